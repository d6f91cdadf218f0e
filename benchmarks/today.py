"""Today's figures: one run of the headline benchmarks, written as the table that opens BENCHMARKS.md.

Stage: none (a developer tool, not part of the package).
In: the reference docs tree (default ``../shared/corpus/paper-notes/docs``), imported with
``papernotes import-mkdocs`` into a work directory; Hugo from ``benchmarks/.venv`` (installed on
first use); with ``--large`` a corpus of 50,000 synthetic notes.
Out: the table between ``<!-- today:start -->`` and ``<!-- today:end -->`` in BENCHMARKS.md
(``--out FILE`` for another file, ``--dry-run`` to print it only), and every number with ``--json``.

What one run does, each build a subprocess timed by ``bench_build.run_measured``:

- papernotes cold builds of the reference corpus (``bench_build.cold_build``: its cache and
  output deleted; search index, related papers and feeds included) alternating with Hugo cold
  builds of the same notes with bare templates (``hugo_reference``: its output deleted), one
  untimed build of each first (the page cache; the snapshot's bytecode is compiled when it is
  copied); then no-op rebuilds and one-edit rebuilds (``bench_build.noop_build``/``edit_build``);
  medians of ``--runs``;
- the number of note pages in both outputs, against the number of notes;
- the first query of the built site's search in a fresh headless Chromium, over a gzip
  loopback host (``bench_search.first_queries``, its reference query set): bytes transferred;
- with ``--large``: ``bench_build.py --synthetic 50000 --seed 7 --stats defaults`` (cold, no-op,
  one edit) and ``bench_serve.py`` on the corpus and site it leaves (save → page), as subprocesses.

The papernotes package is copied at the start (``bench_build.snapshot_package``), so an edit of
the checkout during the run changes nothing. Exit status 1 when a target is missed.

Usage: python benchmarks/today.py [--docs DIR] [--runs N | --quick] [--large] [--work DIR]
                                  [--out FILE | --dry-run] [--json FILE]
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import bench_build as bb
import bench_search
import bench_serve
import hugo_reference

from papernotes.disk import atomic_write

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
START, END = "<!-- today:start -->", "<!-- today:end -->"
QUICK_RUNS = 2

#: The issue's targets (issue 27, item 8).
HUGO_RATIO = 1.0
PAGE_BYTES = 1_000_000
"""No HTML page over 1 MB at 50,000 notes (a phone parses it; Googlebot reads 15 MB)."""
REBUILD_SECONDS = 0.5
LARGE_COLD_SECONDS = 60.0
LARGE_NOOP_SECONDS = 0.5
LARGE_EDIT_SECONDS = 1.0
SERVE_MS = 200.0
FIRST_QUERY_BYTES = bench_search.FIRST_QUERY_BYTES[3_248]

CORPUS, SITE, HUGO = "C", "S", "H"  # how the commands in the table name the work directories


@dataclass(frozen=True)
class Row:
    what: str
    figure: str
    """The median, with its unit (and the runs' range or counts where they help)."""
    target: str
    """The target with its verdict, or "" where none is set."""
    command: str


# ------------------------------------------------------------------ the table (pure)

def verdict(value: float, limit: float) -> str:
    return "met" if value <= limit else "**missed**"


def render(rows: list[Row], header: str, legend: str) -> str:
    """The Markdown between the markers: a header line, the table, what its commands' names mean."""
    lines = [header, "", "| what | figure (median) | target | command |", "|---|---:|---|---|"]
    lines += [f"| {r.what} | {r.figure} | {r.target or '—'} | {r.command} |" for r in rows]
    return "\n".join([*lines, "", legend])


def replace_block(text: str, block: str) -> str:
    """``text`` with what lies between the ``today`` markers replaced by ``block``; the rest byte for byte."""
    if text.count(START) != 1 or text.count(END) != 1:
        raise ValueError(f"expected one {START} and one {END}, found {text.count(START)} and {text.count(END)}")
    if text.index(END) < text.index(START):
        raise ValueError(f"{END} comes before {START}")
    head, rest = text.split(START)
    _, tail = rest.split(END)
    return f"{head}{START}\n{block.strip()}\n{END}{tail}"


def write_table(path: Path, block: str) -> None:
    try:
        text = path.read_text(encoding="utf-8")
        atomic_write(path, replace_block(text, block).encode("utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"{path}: {error}") from None


# ------------------------------------------------------------------ measuring

LOADS: list[float] = []
"""The 1-minute load average after each measured step: the header gives its peak."""


def note_load() -> None:
    LOADS.append(os.getloadavg()[0])


def seconds(runs: list[bb.Run]) -> str:
    """``**1.23 s** (1.10–1.40); CPU 2.0 s``: the wall median, the runs' range, the CPU median."""
    values = [r.seconds for r in runs]
    spread = f" ({min(values):.2f}–{max(values):.2f})" if len(values) > 1 else ""
    return f"**{statistics.median(values):.2f} s**{spread}; CPU {cpu(runs):.2f} s"


def median(runs: list[bb.Run]) -> float:
    return statistics.median(r.seconds for r in runs)


def cpu(runs: list[bb.Run]) -> float:
    return statistics.median(r.cpu for r in runs)


def note_pages(corpus: Path, site: Path) -> tuple[int, int]:
    """(notes of ``corpus`` whose page is in ``site``, notes of ``corpus``)."""
    notes = [n for n in sorted(corpus.glob("*/*/*.md")) if n.name != "index.md"]
    shown = sum((site / bench_serve.note_url(n, corpus) / "index.html").is_file() for n in notes)
    return shown, len(notes)


def reference(docs: Path, work: Path, runs: int, res: dict) -> list[Row]:  # type: ignore[type-arg]
    corpus, site, hugo_dir = work / "corpus", work / "site", work / "hugo"
    shutil.rmtree(corpus, ignore_errors=True)
    method, took = bb.import_corpus(docs, corpus)
    bb.log(f"corpus: {method} ({took:.1f} s)")
    notes = hugo_reference.write_site(corpus, hugo_dir)
    hugo = hugo_reference.binary()
    hugo_build = hugo_reference.build_command(hugo, hugo_dir)
    public = hugo_reference.output_dir(hugo_dir)

    def hugo_cold() -> bb.Run:
        shutil.rmtree(public, ignore_errors=True)
        return bb.run_measured(hugo_build, "hugo build")

    bb.cold_build(corpus, site)  # untimed, both: the page cache
    hugo_cold()
    ours: list[bb.Run] = []
    theirs: list[bb.Run] = []
    for i in range(runs):  # alternating, so both see the same machine
        ours.append(bb.cold_build(corpus, site))
        theirs.append(hugo_cold())
        bb.log(f"cold {i + 1}/{runs}: papernotes {ours[-1].seconds:.2f} s, Hugo {theirs[-1].seconds:.2f} s")
        note_load()
    noop = [bb.noop_build(corpus, site) for _ in range(runs)]
    edit = [bb.edit_build(corpus, site, i) for i in range(runs)]
    bb.log(f"no-op {median(noop):.2f} s, one edit {median(edit):.2f} s")
    note_load()
    shown, total = note_pages(corpus, site)
    hugo_pages = hugo_reference.note_pages(public)
    server, base = bench_search.serve(site)
    try:
        first = bench_search.first_queries(base, list(bench_search.REFERENCE_QUERIES))
    finally:
        server.shutdown()
    sizes = [int(q["bytes"]) for q in first]
    ratio = median(ours) / median(theirs)
    res.update(notes=total, hugo_notes=notes, hugo_version=hugo_reference.version(hugo), import_=method,
               papernotes_cold=bb.summary(ours), hugo_cold=bb.summary(theirs), noop=bb.summary(noop),
               edit=bb.summary(edit), note_pages=shown, hugo_note_pages=hugo_pages, first_queries=first,
               edited_note=bb.note_to_edit(corpus).relative_to(corpus).as_posix())
    build = f"`papernotes build {CORPUS} -o {SITE} -q`"
    return [
        Row(f"cold build, reference corpus ({total:,} notes → {shown:,} note pages; search index, related papers, "
            f"feeds)", seconds(ours), "", f"`rm -rf {CORPUS}/.papernotes {SITE}`; {build}"),
        Row(f"Hugo {res['hugo_version'].split('-')[0]}, bare templates, same notes, cold ({notes:,} notes → "
            f"{hugo_pages:,} note pages)", seconds(theirs), "", f"`rm -rf {HUGO}/public`; `hugo --source {HUGO} "
            f"--destination {HUGO}/public --quiet`"),
        Row("cold build ÷ Hugo's, same run (wall; CPU)", f"**{ratio:.2f}×**; CPU {cpu(ours) / cpu(theirs):.2f}×",
            f"≤ {HUGO_RATIO}× Hugo: {verdict(ratio, HUGO_RATIO)}", "the two rows above, alternating"),
        Row("peak memory of a cold build, papernotes / Hugo (process tree PSS or largest RSS)",
            f"{bb.mb(res['papernotes_cold']['peak_memory_bytes'])} / {bb.mb(res['hugo_cold']['peak_memory_bytes'])}",
            "", "the two cold rows above"),
        Row("no-op build", seconds(noop), f"≤ {REBUILD_SECONDS} s: {verdict(median(noop), REBUILD_SECONDS)}",
            f"{build} again"),
        Row("one-edit rebuild (a sentence appended to one note)", seconds(edit),
            f"≤ {REBUILD_SECONDS} s: {verdict(median(edit), REBUILD_SECONDS)}",
            f"`echo … >> {CORPUS}/{res['edited_note']}`; {build}"),
        Row(f"search, first query: bytes transferred ({len(sizes)} queries, fresh browser, gzip)",
            f"**{statistics.median(sizes) / 1000:.0f} KB** (worst {max(sizes) / 1000:.0f} KB)",
            f"worst ≤ {FIRST_QUERY_BYTES / 1000:.0f} KB: {verdict(max(sizes), FIRST_QUERY_BYTES)}",
            f"`bench_search.first_queries` on {SITE}, headless Chromium"),
    ]


def large(work: Path, runs: int, res: dict) -> list[Row]:  # type: ignore[type-arg]
    out = work / "large"
    build_json, serve_json = work / "large-build.json", work / "large-serve.json"
    command = [sys.executable, str(BENCH / "bench_build.py"), "--synthetic", "50000", "--seed", "7",
               "--stats", "defaults", "--runs", str(runs), "--work", str(out), "--json", str(build_json)]
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL)  # exit 1 is a missed target
    if not build_json.exists():
        raise SystemExit(f"{' '.join(command)} failed")
    built = json.loads(build_json.read_text(encoding="utf-8"))["papernotes"]
    note_load()
    subprocess.run([sys.executable, str(BENCH / "bench_serve.py"), str(out / "corpus"), "--site",
                    str(out / "papernotes-site"), "--saves", "10", "--json", str(serve_json)],
                   check=True, stdout=subprocess.DEVNULL)
    served = json.loads(serve_json.read_text(encoding="utf-8"))["body_edit_ms"]
    pages = sorted((p.stat().st_size, p) for p in (out / "papernotes-site").rglob("*.html"))
    largest, over = pages[-1], sum(1 for size, _ in pages if size > PAGE_BYTES)
    res["large"] = {"build": built, "serve": served, "largest_page_bytes": largest[0], "pages_over_1mb": over}
    cold, noop, edit = (built[k]["median_s"] for k in ("cold", "noop", "edit"))
    peak = built["cold"]["peak_memory_bytes"]
    runs_note = f" ({runs} run{'s' if runs > 1 else ''})"
    synth = "`bench_build.py --synthetic 50000 --seed 7 --stats defaults`"
    return [
        Row("50,000 synthetic notes: cold build (no site, no cache)", f"**{cold:.1f} s**{runs_note}",
            f"≤ {LARGE_COLD_SECONDS:.0f} s: {verdict(cold, LARGE_COLD_SECONDS)}", f"{synth}: its cold runs"),
        Row("50,000 notes: peak memory of the cold build (process tree PSS or largest RSS)", f"**{bb.mb(peak)}**",
            f"≤ {bb.mb(bb.SCALE_BYTES)}: {verdict(peak, bb.SCALE_BYTES)}", f"{synth}: its cold runs"),
        Row("50,000 notes: HTML pages over 1 MB; the largest", f"**{over}**; {largest[0] / 1e3:,.0f} KB "
            f"(`{largest[1].relative_to(out / 'papernotes-site').as_posix()}`)",
            f"none: {verdict(over, 0)}", "every `*.html` of that site (listings split at `page_size` = 100)"),
        Row("50,000 notes: no-op build", f"**{noop:.2f} s**", f"≤ {LARGE_NOOP_SECONDS} s: "
            f"{verdict(noop, LARGE_NOOP_SECONDS)}", f"{synth}: its no-op runs"),
        Row("50,000 notes: one-edit rebuild", f"**{edit:.2f} s**", f"≤ {LARGE_EDIT_SECONDS:.0f} s: "
            f"{verdict(edit, LARGE_EDIT_SECONDS)}", f"{synth}: its one-edit runs"),
        Row("50,000 notes: `serve`, save → page shows the edit", f"**{served['median']:.0f} ms** "
            f"({served['min']:.0f}–{served['max']:.0f}, {served['runs']} saves)",
            f"≤ {SERVE_MS:.0f} ms: {verdict(served['median'], SERVE_MS)}",
            "`bench_serve.py CORPUS --site SITE --saves 10` on that corpus and site"),
    ]


def not_run() -> list[Row]:
    """The 50,000-note targets, named when ``--large`` was not given (they take minutes)."""
    return [Row(f"50,000 synthetic notes: {what}", "not in this run (`--large`)", target, "")
            for what, target in (("cold build", f"≤ {LARGE_COLD_SECONDS:.0f} s"),
                                 ("no-op", f"≤ {LARGE_NOOP_SECONDS} s"), ("one edit", f"≤ {LARGE_EDIT_SECONDS:.0f} s"),
                                 ("`serve` save → page", f"≤ {SERVE_MS:.0f} ms"))]


def machine() -> str:
    """``2 cores (Intel Xeon …)``: the CPU count and, on Linux, the model."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "")
    except OSError:
        model = ""
    return f"{os.cpu_count()} cores" + (f" ({model})" if model else "")


def git_head() -> str:
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], check=False,
                          capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "src"], check=False,
                           capture_output=True, text=True).stdout.strip()
    return (done.stdout.strip() or "unknown") + (" + uncommitted changes in src/" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=bb.DEFAULT_DOCS, help="reference MkDocs docs tree")
    parser.add_argument("--runs", type=int, default=5, help="runs of each kind (median)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} runs of each kind, for trying the script")
    parser.add_argument("--large", action="store_true", help="also the 50,000-note rows (several minutes)")
    parser.add_argument("--large-runs", type=int, default=1, help="runs of each kind at 50,000 notes")
    parser.add_argument("--work", type=Path, help="work directory (default: a temporary one, removed after)")
    parser.add_argument("--out", type=Path, default=REPO / "BENCHMARKS.md", help="the file whose table is rewritten")
    parser.add_argument("--dry-run", action="store_true", help="print the table, write nothing")
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    args = parser.parse_args(argv)
    if not args.docs.is_dir():
        parser.error(f"docs tree {args.docs} not found (use --docs)")
    if not args.dry_run:
        replace_block(args.out.read_text(encoding="utf-8"), "")  # a file without markers fails now, not after the run
    runs = QUICK_RUNS if args.quick else args.runs
    work = args.work or Path(tempfile.mkdtemp(prefix="papernotes-today-"))
    work.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()
    res: dict = {"started": started.isoformat(timespec="seconds"), "runs": runs,  # type: ignore[type-arg]
                 "machine": machine(), "load_before": [round(x, 2) for x in load_before], "commit": git_head()}
    try:
        src = bb.snapshot_package(work)
        res["package"] = bb.package_digest(src / "papernotes")
        rows = reference(args.docs, work, runs, res)
        rows += large(work, args.large_runs, res) if args.large else not_run()
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    res["load_after"] = [round(x, 2) for x in load_after]
    res["load_during"] = [round(x, 2) for x in LOADS]
    mode = " (`--quick`)" if args.quick else ""
    header = (f"Measured {started:%Y-%m-%d %H:%M} UTC by `python benchmarks/today.py{' --large' if args.large else ''}`"
              f"{mode} in one run: {runs} runs of each kind, papernotes and Hugo alternating; {machine()}, "
              f"1-minute load average {load_before[0]:.1f} before, up to {max([load_after[0], *LOADS]):.1f} during and "
              f"{load_after[0]:.1f} after; papernotes at "
              f"{res['commit']} (package sha256 {res['package']}).")
    legend = (f"`{CORPUS}`: the reference notes imported by `papernotes import-mkdocs DOCS {CORPUS}`; `{SITE}`: its "
              f"site; `{HUGO}`: the Hugo site `benchmarks/hugo_reference.py {CORPUS} {HUGO}` writes (Hugo from "
              f"`benchmarks/requirements.txt`). Every build is a subprocess, start-up included; the range of the runs "
              f"follows each median, then the median user + system CPU seconds of the process and the children it reaped "
              f"(less inflated by a busy machine; the targets are on wall time). The lab notebook below holds how each "
              f"figure came about.")
    block = render(rows, header, legend)
    print(block)
    if args.json:
        args.json.write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if not args.dry_run:
        write_table(args.out, block)
    return 1 if any("missed" in r.target for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
