"""Benchmark: what the figures of the PDFs beside notes add to a build (issue 26, item 6).

Stage: none (a developer tool, not part of the package).
In: a ``synth.py --pdfs`` corpus of ``--notes`` notes, each with a generated two-page paper (two vector
figures) beside it, made in ``--work`` (kept when given).
Out: a Markdown table on stdout: the median wall seconds over ``--runs`` runs of

- a cold build with ``figures = false`` (cache and site deleted): the baseline;
- a cold build with figures and a warm figure cache (site, parse cache and search store deleted, the rendered
  images in ``.papernotes/figures/`` kept): what every new site of the corpus or rebuild after an upgrade pays;
- a truly cold build with figures (all of ``.papernotes/`` deleted): each PDF hashed, its figures found and its
  teaser rendered;
- a no-op build with and without figures;
- a one-edit rebuild with figures (a sentence appended to a note whose PDF is beside it);

and the share each adds to the baseline. Every build is a subprocess (``python -m papernotes build``).
A PDF's figure record lives in the reading cache (``.papernotes/papers/``) and its images in
``.papernotes/figures/``: "warm figure cache" keeps both.

``--baseline SRC`` (another checkout's ``src``, e.g. ``/work/main/src``) measures that package too, in the same
run, on a copy of the corpus, each build of it right before the same build of this checkout's: rows marked
``(baseline)``.

Usage: python benchmarks/bench_figures.py [--notes 1000] [--runs 3] [--work DIR] [--jobs N] [--baseline SRC]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import generate  # noqa: E402  (a sibling script)

REPO = Path(__file__).resolve().parent.parent


def build(corpus: Path, site: Path, jobs: int, src: Path = REPO / "src") -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the build's worker processes included) of one build."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, "-m", "papernotes", "build", str(corpus), "-o", str(site), "-q"]
    if jobs:
        command += ["-j", str(jobs)]
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def configure(corpus: Path, figures: bool) -> None:
    (corpus / "papernotes.toml").write_text(
        f'title = "Synthetic paper notes"\nlanguage = "zh"\nbase_url = "https://example.org/"\n'
        f"figures = {'true' if figures else 'false'}\n", encoding="utf-8")


def forget(corpus: Path, site: Path, keep_figures: bool) -> None:
    """Delete the site and the corpus's caches (``keep_figures``: all but the figure records and images)."""
    shutil.rmtree(site, ignore_errors=True)
    while (old := site.with_name(f".{site.name}.building")).exists():  # a previous tree the build still deletes
        shutil.rmtree(old, ignore_errors=True)
        time.sleep(0.05)
    cache = corpus / ".papernotes"
    if not cache.exists():
        return
    for entry in cache.iterdir():
        if keep_figures and entry.name in ("figures", "papers"):
            continue
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def paper_costs(pdfs: list[Path]) -> dict[str, float]:
    """Median seconds per PDF of what a truly cold build does for each: hash, find the figures, render one."""
    import hashlib

    sys.path.insert(0, str(REPO / "src"))
    from papernotes.intake.paper.figures import find_figures, render_figure

    costs: dict[str, list[float]] = {"read and SHA-256": [], "find_figures": [], "render_figure (teaser)": []}
    for pdf in pdfs:
        started = time.perf_counter()
        data = pdf.read_bytes()
        hashlib.sha256(data).hexdigest()
        costs["read and SHA-256"].append(time.perf_counter() - started)
        started = time.perf_counter()
        found, _ = find_figures(str(pdf), data)
        costs["find_figures"].append(time.perf_counter() - started)
        started = time.perf_counter()
        render_figure(data, next(f for f in found if f.located))  # a caption without its picture renders none
        costs["render_figure (teaser)"].append(time.perf_counter() - started)
    return {what: statistics.median(values) for what, values in costs.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path, help="work directory (default: a temporary one, removed after)")
    parser.add_argument("--jobs", type=int, default=0, help="build -j (default: all cores)")
    parser.add_argument("--baseline", type=Path, help="another package source tree to measure alongside")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-figures-"))
    corpus, site = work / "corpus", work / "site"
    try:
        if not corpus.exists():
            started = time.perf_counter()
            generate(corpus, args.notes, seed=1, pdfs=True)
            print(f"corpus: {args.notes} notes and PDFs in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        trees = [(corpus, site, REPO / "src", "")]
        if args.baseline is not None:
            twin = work / "corpus-baseline"
            shutil.rmtree(twin, ignore_errors=True)
            shutil.copytree(corpus, twin, ignore=shutil.ignore_patterns(".papernotes"))
            trees.insert(0, (twin, work / "site-baseline", args.baseline.resolve(), " (baseline)"))
        edited = sorted(p.relative_to(corpus) for p in corpus.rglob("*.md") if p.with_suffix(".pdf").exists())[0]
        times: dict[str, list[tuple[float, float]]] = {}

        def measure(name: str, figures: bool, prepare: str, runs: int) -> None:
            for _ in range(runs):
                for tree, out, src, mark in trees:
                    configure(tree, figures)
                    if prepare in ("noop", "edit"):
                        build(tree, out, args.jobs, src)
                        if prepare == "edit":
                            with open(tree / edited, "a", encoding="utf-8") as note:
                                note.write("\nOne more sentence for the one-edit rebuild.\n")
                    else:  # figures = false never reads the figure cache: the baseline keeps it for the next run
                        forget(tree, out, keep_figures=prepare == "warm" or not figures)
                    times.setdefault(name + mark, []).append(build(tree, out, args.jobs, src))
                    print(f"{name + mark}: {times[name + mark][-1][0]:.2f} s, CPU {times[name + mark][-1][1]:.2f} s",
                          file=sys.stderr)

        for tree, out, src, _ in trees:
            configure(tree, True)
            build(tree, out, args.jobs, src)  # the figure cache warm
        for _ in range(args.runs):  # interleaved: the machine's drift falls on both alike
            measure("cold, figures = false", False, "cold", 1)
            measure("cold, figures, warm figure cache", True, "warm", 1)
        measure("cold, figures, truly cold cache", True, "cold", args.runs)
        measure("no-op, figures = false", False, "noop", args.runs)
        measure("no-op, figures", True, "noop", args.runs)
        measure("one edit, figures", True, "edit", args.runs)
        per_paper = paper_costs(sorted(corpus.rglob("*.pdf"))[:40])
        def median(name: str, which: int) -> float:
            return statistics.median(run[which] for run in times[name])

        print(f"\n{args.notes} notes with a PDF each, {os.cpu_count()} cores, median of {args.runs} runs:\n")
        print("| build | wall s, median (range) | vs. figures = false | CPU s, median | vs. figures = false |")
        print("|---|---:|---:|---:|---:|")
        for name, found in times.items():
            mark = " (baseline)" if name.endswith(" (baseline)") else ""
            ref = ("no-op, figures = false" if name.startswith(("no-op", "one edit")) else "cold, figures = false") + mark
            wall, cpu = median(name, 0), median(name, 1)
            walls = [run[0] for run in found]
            print(f"| {name} | {wall:.2f} ({min(walls):.2f}–{max(walls):.2f}) | "
                  f"{100 * (wall - median(ref, 0)) / median(ref, 0):+.0f} % | {cpu:.2f} | "
                  f"{100 * (cpu - median(ref, 1)) / median(ref, 1):+.0f} % |")
        print("\nper paper, in one process (median of 40 PDFs): " +
              ", ".join(f"{what} {1000 * value:.1f} ms" for what, value in per_paper.items()))
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
