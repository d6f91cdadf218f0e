"""Benchmark: papernotes vs MkDocs Material building the reference notes ("Migration and scale").

Stage: none (a developer tool, not part of the package).
In: the reference MkDocs "Paper-Notes" docs tree (default
``../shared/corpus/paper-notes/docs``), or with ``--synthetic N`` a corpus of N
notes made by ``benchmarks/synth.py``.
Out: a table on stdout (and ``--json FILE``): median wall seconds of a
papernotes cold build (cache and output deleted), a no-op rebuild and a
one-edit rebuild (a sentence appended to one note), each over ``--runs``
runs; the median of ``--mkdocs-runs`` MkDocs Material builds of the same
notes; the MkDocs/papernotes ratio; site sizes (apparent bytes of every file,
hard links counted once, like ``du -sb``), search index sizes, peak memory,
dead internal links in both sites, and pass/fail for each target.

Every build is a subprocess (``papernotes build …`` / ``mkdocs build …``), so
interpreter start-up is included. Peak memory of a run is measured two ways:
the largest single process (``ru_maxrss`` from ``wait4``, as ``/usr/bin/time -v``
reports it) and the whole process tree (worker processes included), sampled
every second from ``/proc/PID/smaps_rollup`` as the sum of PSS (shared pages
split between the processes that share them). The memory target is judged on
the larger of the two. The tree's summed RSS (every 50 ms) is shown too; it
over-counts pages that forked workers share with their parent.

The papernotes corpus is made from the docs tree by ``papernotes import-mkdocs
DOCS DEST``; when this papernotes has no such command, a FALLBACK converter
here is used instead (``# Title`` → ``title``, folders → venue/domain, the rest
of the file as body) and the table says so.

A dead link is an ``<a href>`` without a scheme (not a bare ``#fragment``) that,
resolved against its page with ``#fragment``/``?query`` stripped and
percent-decoding applied (a directory meaning its ``index.html``), names no
file of the site.

Usage: python benchmarks/bench_build.py [--docs DIR] [--runs N] [--mkdocs-runs N] [--skip-mkdocs]
                                        [--synthetic N [--seed N] [--stats auto|corpus|defaults]]
                                        [--json out.json] [--profile] [--work DIR]
                                        [--snapshot-src]
"""
from __future__ import annotations

import argparse
import compileall
import hashlib
import html
import json
import os
import posixpath
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import mkdocs_reference
import synth

BENCH = Path(__file__).resolve().parent
DEFAULT_DOCS = BENCH.parent.parent / "shared" / "corpus" / "paper-notes" / "docs"
CACHE_DIR = ".papernotes"

#: The issue's targets.
COLD_RATIO = 30  # papernotes cold build ≤ 1/30 of MkDocs' time in the same run
REBUILD_SECONDS = 0.5  # no-op and one-edit rebuilds
SIZE_RATIO = 5  # papernotes output ≤ 1/5 of MkDocs'
SCALE_SECONDS = 60.0  # synthetic 50,000 notes, cold
SCALE_BYTES = 1.5e9


# ------------------------------------------------------------------ measured subprocesses

@dataclass
class Run:
    seconds: float
    max_rss: int
    """Largest single process of the run, bytes (``ru_maxrss`` of the child and its reaped children)."""
    tree_pss: int
    """Peak of the summed PSS of the process tree, bytes (sampled every second)."""
    tree_rss: int
    """Peak of the summed RSS of the process tree, bytes (sampled every 50 ms; shared pages counted once
    per process that maps them)."""
    cpu: float = 0.0
    """User + system CPU seconds of the child and the children it reaped (``wait4``): what a busy machine
    inflates far less than wall time."""

    @property
    def memory(self) -> int:
        return max(self.max_rss, self.tree_pss)


def _descendants(pid: int) -> list[int]:
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as handle:
                    stack.extend(int(c) for c in handle.read().split())
        except OSError:
            continue
    return out


class _TreeSampler(threading.Thread):
    """Peak summed RSS (every 50 ms, from ``statm``) and PSS (every second: ``smaps_rollup`` costs
    ~40 ms per GB of RSS, and sampling it faster would steal a noticeable share of 2 cores)."""

    PAGE = os.sysconf("SC_PAGE_SIZE")

    def __init__(self, pid: int, interval: float = 0.05, pss_interval: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval, self.pss_interval = pid, interval, pss_interval
        self.done = threading.Event()
        self.peak_pss = self.peak_rss = 0

    def run(self) -> None:
        next_pss = time.monotonic() + self.pss_interval / 4
        while not self.done.is_set():
            pids = _descendants(self.pid)
            self.peak_rss = max(self.peak_rss, sum(_statm_rss(p) for p in pids) * self.PAGE)
            if time.monotonic() >= next_pss:
                self.peak_pss = max(self.peak_pss, sum(_pss(p) for p in pids))
                next_pss = time.monotonic() + self.pss_interval
            self.done.wait(self.interval)


def _statm_rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            return next((int(line.split()[1]) * 1024 for line in handle if line.startswith("Pss:")), 0)
    except (OSError, ValueError):
        return 0


def run_measured(cmd: list[str], what: str) -> Run:
    """Run ``cmd``; fail loudly (with its stderr) when it exits non-zero."""
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        sampler = _TreeSampler(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        sampler.done.set()
        sampler.join()
        if proc.returncode != 0:
            err.seek(0)
            tail = err.read().decode("utf-8", "replace")[-3000:]
            raise SystemExit(f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{tail}")
    return Run(seconds, usage.ru_maxrss * 1024, sampler.peak_pss, sampler.peak_rss, usage.ru_utime + usage.ru_stime)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ corpus

def snapshot_package(work: Path) -> Path:
    """Copy the importable papernotes package to ``work/src`` and put it first on PYTHONPATH for every
    subprocess: edits made to the checkout during a run then change nothing (papernotes fingerprints its
    own files, so any edit would also turn every rebuild into a full one)."""
    import papernotes

    src = work / "src"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(Path(papernotes.__file__).parent, src / "papernotes",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # Its bytecode compiled, as ``pip install`` compiles an installed package and Python writes it on a first
    # import: where PYTHONDONTWRITEBYTECODE is set (this machine's shells), every build would compile every
    # module it imports again, ~0.15 s of each one-edit rebuild of the reference corpus.
    compileall.compile_dir(src / "papernotes", quiet=1)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(src), os.environ.get("PYTHONPATH"))))
    return src


def package_digest(package: Path) -> str:
    """Short hash of the package's files, to tell which code a result was measured with."""
    h = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


def papernotes_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("papernotes")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "papernotes"]


def has_import_command() -> bool:
    probe = subprocess.run([*papernotes_cmd(), "import-mkdocs", "--help"], check=False, capture_output=True)
    return probe.returncode == 0


def fallback_import(docs: Path, dest: Path) -> int:
    """FALLBACK converter, used only while ``papernotes import-mkdocs`` does not exist:
    ``{VENUE}/{domain}/{slug}.md`` → front matter ``title`` (first ``# `` line), ``venue``, ``domain``;
    the rest of the file is the body. Index pages and other files are skipped."""
    count = 0
    for path in sorted(docs.glob("*/*/*.md")):
        if path.name == "index.md":
            continue
        venue, domain = path.parent.parent.name, path.parent.name
        lines = path.read_text(encoding="utf-8").split("\n")
        at = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
        title = lines[at][2:].strip() if at is not None else path.stem
        body = "\n".join(lines[:at] + lines[at + 1:] if at is not None else lines)
        front = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\nvenue: {venue}\ndomain: {domain}\n---\n"
        target = dest / venue / domain / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(front + body, encoding="utf-8")
        count += 1
    return count


def import_corpus(docs: Path, dest: Path) -> tuple[str, float]:
    """Make the papernotes corpus; returns the method used and its seconds."""
    started = time.perf_counter()
    if has_import_command():
        cmd = [*papernotes_cmd(), "import-mkdocs", str(docs), str(dest)]
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
        if proc.returncode not in (0, 1):  # 1: some notes have errors, the others were imported
            raise SystemExit(f"import failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-3000:]}")
        said = re.sub(r"\s+", " ", proc.stdout).split(" report: ")[0].strip()  # rich wraps at 80 columns
        return f"papernotes import-mkdocs: {said}", time.perf_counter() - started
    fallback_import(docs, dest)
    return "FALLBACK converter in bench_build.py (no import-mkdocs yet)", time.perf_counter() - started


def note_to_edit(corpus: Path) -> Path:
    notes = sorted(p for p in corpus.glob("*/**/*.md") if CACHE_DIR not in p.parts and p.name != "index.md")
    if not notes:
        raise SystemExit(f"no notes in {corpus}")
    return notes[len(notes) // 2]


# ------------------------------------------------------------------ sites

def tree_bytes(root: Path) -> int:
    """Apparent size of every file under ``root``, hard links counted once (``du -sb``)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            st = os.lstat(os.path.join(dirpath, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_size
    return total


@dataclass
class LinkReport:
    pages: int = 0
    """HTML files scanned."""
    links: int = 0
    """Internal ``<a href>`` links (no scheme, not a bare ``#fragment``)."""
    dead: int = 0
    dead_targets: int = 0
    """Distinct unresolved targets."""
    pages_with_dead: int = 0
    delinked: int = 0
    """Links the generator itself found unresolvable and printed as text (papernotes'
    ``<span class="broken-link">``; it reports each as a diagnostic too)."""
    examples: list[str] = field(default_factory=list)


_A_HREF = re.compile(r"""<a\b[^>]*?\shref=(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _resolve(page_dir: str, href: str, files: set[str], dirs: set[str], prefix: str) -> str | bool | None:
    """``None`` (not an internal link), ``True`` (resolves) or the dead target's site path."""
    if "&" in href:
        href = html.unescape(href)
    href = href.strip()
    if not href or href.startswith(("#", "//")) or _SCHEME.match(href):
        return None
    path = unquote(href.split("#", 1)[0].split("?", 1)[0])
    if not path:
        return None
    if path.startswith("/"):
        if not (path + "/").startswith(prefix):
            return path
        target = posixpath.normpath(path[len(prefix):] or ".")
    else:
        target = posixpath.normpath(posixpath.join(page_dir, path))
    if target == ".":
        target = ""
    if target == ".." or target.startswith("../"):
        return target
    if target in dirs:
        target = posixpath.join(target, "index.html") if target else "index.html"
    return True if target in files else target


def link_report(site: Path, base_path: str = "/") -> LinkReport:
    files: set[str] = set()
    dirs: set[str] = {""}
    for dirpath, dirnames, filenames in os.walk(site):
        rel = os.path.relpath(dirpath, site).replace(os.sep, "/")
        rel = "" if rel == "." else rel + "/"
        dirs.update(rel + d for d in dirnames)
        files.update(rel + f for f in filenames)
    prefix = "/" + base_path.strip("/") + "/" if base_path.strip("/") else "/"
    report = LinkReport()
    dead_targets: set[str] = set()
    memo: dict[tuple[str, str], str | bool | None] = {}
    for page in sorted(f for f in files if f.endswith(".html")):
        report.pages += 1
        page_dir = posixpath.dirname(page)
        text = (site / page).read_text(encoding="utf-8", errors="replace")
        dead_here = 0
        report.delinked += text.count('class="broken-link"')
        for m in _A_HREF.finditer(text):
            href = m.group(1) if m.group(1) is not None else m.group(2)
            key = (page_dir, href)
            verdict = memo.get(key, False)
            if verdict is False:
                verdict = memo[key] = _resolve(page_dir, href, files, dirs, prefix)
            if verdict is None:
                continue
            report.links += 1
            if verdict is not True:
                dead_here += 1
                dead_targets.add(str(verdict))
                example = f"{page} -> {href}"
                if len(report.examples) < 5 and example not in report.examples:
                    report.examples.append(example)
        report.dead += dead_here
        report.pages_with_dead += dead_here > 0
    report.dead_targets = len(dead_targets)
    return report


def site_facts(site: Path, search_index: str, base_path: str = "/") -> dict[str, object]:
    index = site / search_index
    html_pages = sum(1 for _ in site.rglob("*.html"))
    return {"bytes": tree_bytes(site), "html_pages": html_pages,
            "search_index_bytes": index.stat().st_size if index.exists() else None,
            "links": asdict(link_report(site, base_path))}


def base_path_of(corpus: Path) -> str:
    config = corpus / "papernotes.toml"
    if not config.exists():
        return "/"
    with config.open("rb") as handle:
        return urlsplit(str(tomllib.load(handle).get("base_url", "/"))).path or "/"


# ------------------------------------------------------------------ the benchmarks

def summary(runs: list[Run]) -> dict[str, object]:
    return {"median_s": statistics.median(r.seconds for r in runs), "runs_s": [round(r.seconds, 4) for r in runs],
            "cpu_median_s": statistics.median(r.cpu for r in runs),
            "peak_memory_bytes": max(r.memory for r in runs), "max_rss_bytes": max(r.max_rss for r in runs),
            "tree_pss_bytes": max(r.tree_pss for r in runs), "tree_rss_bytes": max(r.tree_rss for r in runs)}


def diagnostics_of(stderr: str) -> dict[str, int]:
    """Counts from ``papernotes build``'s report (it prints at most 200 lines, then "… and N more")."""
    skipped = re.search(r"(\d+) note\(s\) skipped because of errors", stderr)
    more = re.search(r"and (\d+) more", stderr)
    shown = len(re.findall(r": (?:error|warning): ", stderr))
    return {"notes_skipped": int(skipped.group(1)) if skipped else 0,
            "diagnostics": shown + (int(more.group(1)) if more else 0)}


def papernotes_build(corpus: Path, site: Path) -> list[str]:
    return [*papernotes_cmd(), "build", str(corpus), "-o", str(site), "-q"]


def cold_build(corpus: Path, site: Path) -> Run:
    """A first build: the corpus's cache and the output deleted, then ``papernotes build``."""
    shutil.rmtree(corpus / CACHE_DIR, ignore_errors=True)
    shutil.rmtree(site, ignore_errors=True)
    return run_measured(papernotes_build(corpus, site), "papernotes cold build")


def noop_build(corpus: Path, site: Path) -> Run:
    return run_measured(papernotes_build(corpus, site), "papernotes no-op rebuild")


def edit_build(corpus: Path, site: Path, i: int) -> Run:
    """A sentence appended to one note (``note_to_edit``), then ``papernotes build``."""
    with note_to_edit(corpus).open("a", encoding="utf-8") as handle:
        handle.write(f"\n\nBenchmark edit {i + 1}: one more sentence appended to this note.\n")
    return run_measured(papernotes_build(corpus, site), "papernotes one-edit rebuild")


def bench_papernotes(corpus: Path, site: Path, runs: int) -> dict[str, object]:
    cold: list[Run] = []
    for i in range(runs):
        cold.append(cold_build(corpus, site))
        log(f"papernotes cold {i + 1}/{runs}: {cold[-1].seconds:.2f}s")
    noop = []
    for i in range(runs):
        noop.append(noop_build(corpus, site))
        log(f"papernotes no-op {i + 1}/{runs}: {noop[-1].seconds:.2f}s")
    edited = note_to_edit(corpus)
    edit = []
    for i in range(runs):
        edit.append(edit_build(corpus, site, i))
        log(f"papernotes one-edit {i + 1}/{runs}: {edit[-1].seconds:.2f}s")
    last = subprocess.run([*papernotes_cmd(), "build", str(corpus), "-o", str(site)], check=False,
                          capture_output=True, text=True)
    return {"cold": summary(cold), "noop": summary(noop), "edit": summary(edit),
            "edited_note": str(edited.relative_to(corpus)), "summary_line": re.sub(r"\s+", " ", last.stdout).strip(),
            "diagnostics": diagnostics_of(last.stderr),
            "site": site_facts(site, "search/index.json", base_path_of(corpus))}


def bench_mkdocs(docs: Path, work: Path, runs: int) -> dict[str, object]:
    mkdocs = mkdocs_reference.ensure_venv()
    site = work / "mkdocs-site"
    config = mkdocs_reference.write_config(docs, work / "mkdocs", site)
    command = mkdocs_reference.build_command(mkdocs, config)
    cold = []
    for i in range(runs):
        shutil.rmtree(site, ignore_errors=True)
        cold.append(run_measured(command, "mkdocs build"))
        log(f"mkdocs {i + 1}/{runs}: {cold[-1].seconds:.1f}s")
    query = "import importlib.metadata as m; print(m.version('mkdocs'), m.version('mkdocs-material'))"
    version = subprocess.run([str(mkdocs.with_name("python")), "-c", query],
                             check=True, capture_output=True, text=True).stdout.split()
    return {"cold": summary(cold), "versions": {"mkdocs": version[0], "mkdocs-material": version[1]},
            "site": site_facts(site, "search/search_index.json")}


def profile(corpus: Path, site: Path, out: Path) -> dict[str, str]:
    """cProfile of a cold and a one-edit build, serial (``-j 1``) so that every stage shows up."""
    import io
    import pstats

    texts = {}
    build = [sys.executable, "-m", "cProfile", "-o", "{prof}", "-m", "papernotes", "build", str(corpus),
             "-o", str(site), "-q", "-j", "1"]
    for name in ("cold", "edit"):
        if name == "cold":
            shutil.rmtree(corpus / CACHE_DIR, ignore_errors=True)
            shutil.rmtree(site, ignore_errors=True)
        else:
            with note_to_edit(corpus).open("a", encoding="utf-8") as handle:
                handle.write("\n\nProfiled edit: one more sentence.\n")
        prof = out / f"{name}.prof"
        run_measured([a.replace("{prof}", str(prof)) for a in build], f"profiled {name} build")
        stream = io.StringIO()
        stats = pstats.Stats(str(prof), stream=stream)
        stats.sort_stats("cumulative").print_stats(r"papernotes/(?!cli|__main__)", 15)  # skip the CLI wrappers
        stats.sort_stats("tottime").print_stats(15)
        texts[name] = re.sub(r"\n{3,}", "\n\n", stream.getvalue())
    return texts


# ------------------------------------------------------------------ report

def mb(n: object) -> str:
    return "—" if n is None else f"{int(n) / 1e6:,.1f} MB"  # type: ignore[call-overload]


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def targets(res: dict) -> list[tuple[str, str, bool | None]]:  # type: ignore[type-arg]
    pn, mk = res["papernotes"], res.get("mkdocs")
    out: list[tuple[str, str, bool | None]] = []
    if res["synthetic"]:  # the scale targets; the rebuild targets are set for the reference corpus
        out.append((f"cold build ≤ {SCALE_SECONDS:.0f} s (set for 50,000 notes)", f"{pn['cold']['median_s']:.2f} s",
                    pn["cold"]["median_s"] <= SCALE_SECONDS))
        out.append((f"peak memory ≤ {SCALE_BYTES / 1e9:.1f} GB (set for 50,000 notes)",
                    mb(pn["cold"]["peak_memory_bytes"]), pn["cold"]["peak_memory_bytes"] <= SCALE_BYTES))
        return out
    ratio = mk["cold"]["median_s"] / pn["cold"]["median_s"] if mk else None
    out.append((f"cold build ≤ 1/{COLD_RATIO} of MkDocs", f"{ratio:.1f}x faster" if ratio else "MkDocs skipped",
                ratio >= COLD_RATIO if ratio else None))
    for kind, label in (("noop", "no-op"), ("edit", "one-edit")):
        seconds = pn[kind]["median_s"]
        out.append((f"{label} rebuild ≤ {REBUILD_SECONDS} s", f"{seconds:.3f} s", seconds <= REBUILD_SECONDS))
    size = mk["site"]["bytes"] / pn["site"]["bytes"] if mk else None
    out.append((f"output ≤ 1/{SIZE_RATIO} of MkDocs", f"{size:.1f}x smaller" if size else "MkDocs skipped",
                size >= SIZE_RATIO if size else None))
    return out


def print_report(res: dict) -> None:  # type: ignore[type-arg]
    pn, mk = res["papernotes"], res.get("mkdocs")
    print(f"\ncorpus: {res['corpus']}  ({res['notes_source']})")
    print(f"load average before/after: {res['load_before']} / {res['load_after']}; {os.cpu_count()} cores")
    if "package" in res:
        print(res["package"])
    diagnostics = pn["diagnostics"]
    print(f"papernotes: {pn['summary_line']}  [{diagnostics['diagnostics']} diagnostics, "
          f"{diagnostics['notes_skipped']} notes skipped]")
    if mk:
        print(f"MkDocs {mk['versions']['mkdocs']}, Material {mk['versions']['mkdocs-material']}")
    rows = [("", "papernotes", "MkDocs Material", "ratio")]

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.1f}x" if a and b else ""

    pc, mc = pn["cold"], mk["cold"] if mk else None
    rows.append((f"cold build, median of {len(pc['runs_s'])}/{len(mc['runs_s']) if mc else 0} (s)",
                 f"{pc['median_s']:.3f}", f"{mc['median_s']:.2f}" if mc else "—",
                 ratio(mc["median_s"], pc["median_s"]) if mc else ""))
    rows.append(("no-op rebuild, median (s)", f"{pn['noop']['median_s']:.3f}", "—", ""))
    rows.append(("one-edit rebuild, median (s)", f"{pn['edit']['median_s']:.3f}", "—", ""))
    ps, ms = pn["site"], mk["site"] if mk else None
    rows.append(("output size (du -sb)", mb(ps["bytes"]), mb(ms["bytes"]) if ms else "—",
                 ratio(ms["bytes"], ps["bytes"]) if ms else ""))
    rows.append(("HTML pages", f"{ps['html_pages']:,}", f"{ms['html_pages']:,}" if ms else "—", ""))
    rows.append(("search index", mb(ps["search_index_bytes"]), mb(ms["search_index_bytes"]) if ms else "—",
                 ratio(ms["search_index_bytes"], ps["search_index_bytes"]) if ms else ""))
    rows.append(("peak memory, cold (max of tree PSS, RSS)", mb(pc["peak_memory_bytes"]),
                 mb(mc["peak_memory_bytes"]) if mc else "—", ""))
    rows.append(("  largest process RSS, cold", mb(pc["max_rss_bytes"]), mb(mc["max_rss_bytes"]) if mc else "—", ""))
    rows.append(("  process-tree RSS sum, cold", mb(pc["tree_rss_bytes"]), mb(mc["tree_rss_bytes"]) if mc else "—", ""))
    rows.append(("peak memory, one-edit", mb(pn["edit"]["peak_memory_bytes"]), "—", ""))
    for label, key in (("internal links", "links"), ("dead links", "dead"), ("distinct dead targets", "dead_targets"),
                       ("pages with dead links", "pages_with_dead"), ("broken links shown as text", "delinked")):
        rows.append((label, f"{ps['links'][key]:,}", f"{ms['links'][key]:,}" if ms else "—", ""))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print(f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}")
    print("\ntargets:")
    for label, value, ok in targets(res):
        print(f"  {verdict(ok):<4}  {label:<46} {value}")
    for name, site in (("papernotes", ps), ("MkDocs", ms)):
        if site and site["links"]["examples"]:
            print(f"dead link examples ({name}): " + "; ".join(site["links"]["examples"][:3]))
    for name, text in res.get("profile", {}).items():
        print(f"\ncProfile, {name} build (-j 1): top 15 papernotes functions by cumulative time,"
              f" then top 15 of all by own time\n{text}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="reference MkDocs docs tree")
    parser.add_argument("--runs", type=int, default=5, help="papernotes runs of each kind (median)")
    parser.add_argument("--mkdocs-runs", type=int, default=3, help="MkDocs builds (median)")
    parser.add_argument("--skip-mkdocs", action="store_true")
    parser.add_argument("--synthetic", type=int, metavar="N", help="bench a synth.py corpus of N notes (no MkDocs)")
    parser.add_argument("--seed", type=int, default=1, help="seed of --synthetic")
    parser.add_argument("--stats", choices=("auto", "corpus", "defaults"), default="auto",
                        help="note-size statistics of --synthetic (synth.py's --stats)")
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    parser.add_argument("--profile", action="store_true", help="also cProfile a cold and a one-edit build")
    parser.add_argument("--work", type=Path, help="work directory (default: a temporary one, removed after)")
    parser.add_argument("--snapshot-src", action="store_true",
                        help="build with a copy of the papernotes package taken at the start (for a checkout that "
                             "others are editing during the run)")
    args = parser.parse_args(argv)

    work = args.work or Path(tempfile.mkdtemp(prefix="papernotes-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    corpus, site = work / "corpus", work / "papernotes-site"
    shutil.rmtree(corpus, ignore_errors=True)
    res: dict = {"synthetic": args.synthetic, "load_before": [round(x, 2) for x in os.getloadavg()]}  # type: ignore[type-arg]
    try:
        if args.snapshot_src:
            src = snapshot_package(work)
            res["package"] = f"snapshot of papernotes (files sha256 {package_digest(src / 'papernotes')}) in {src}"
        if args.synthetic:
            started = time.perf_counter()
            shapes, source = synth.load_shapes(args.stats, args.docs)
            synth.generate(corpus, args.synthetic, args.seed, shapes)
            res["corpus"] = f"synthetic, {args.synthetic:,} notes, seed {args.seed}"
            res["notes_source"] = f"benchmarks/synth.py ({source}) in {time.perf_counter() - started:.1f}s"
        else:
            if not args.docs.is_dir():
                raise SystemExit(f"docs tree {args.docs} not found (use --docs or --synthetic N)")
            method, seconds = import_corpus(args.docs, corpus)
            res["corpus"] = str(args.docs)
            res["notes_source"] = f"{method}, {seconds:.1f}s"
        log(f"corpus ready: {res['notes_source']}")
        res["papernotes"] = bench_papernotes(corpus, site, args.runs)
        if not args.skip_mkdocs and not args.synthetic:
            res["mkdocs"] = bench_mkdocs(args.docs, work, args.mkdocs_runs)
        if args.profile:
            res["profile"] = profile(corpus, site, work)
        res["load_after"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    res["targets"] = [{"target": label, "value": value, "pass": ok} for label, value, ok in targets(res)]
    print_report(res)
    if args.json:
        args.json.write_text(json.dumps(res, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0 if all(ok is not False for _, _, ok in targets(res)) else 1


if __name__ == "__main__":
    sys.exit(main())
