"""Before and after in one run: two papernotes packages, their no-op and one-edit rebuilds alternating.

Stage: none (a developer tool, not part of the package).
In: two folders that hold a ``papernotes`` package (``A`` and ``B``, e.g. ``/work/main/src`` and ``src``) and
the reference docs tree (``../shared/corpus/paper-notes/docs``), imported once with ``papernotes import-mkdocs``.
Out: for each package, the median wall and CPU seconds of ``--runs`` no-op rebuilds and one-edit rebuilds
(``bench_build.note_to_edit``, a sentence appended), each build a subprocess with that package first on
PYTHONPATH. Each package is copied and byte-compiled at the start, and builds a corpus copy of its own (the
two fingerprint different code: one cache would make every build a full one); after one untimed cold build
and one no-op of each, the runs alternate A, B, so a busy machine weighs on both alike.

Usage: python benchmarks/bench_ab.py A B [--runs N] [--docs DIR] [--work DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", type=Path, nargs=2, metavar="SRC", help="a folder holding a papernotes package")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--docs", type=Path, default=bench_build.DEFAULT_DOCS, help="reference MkDocs docs tree")
    parser.add_argument("--work", type=Path, help="work directory (default: a temporary one, removed after)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="papernotes-ab-"))
    try:
        base = work / "corpus"
        if not base.exists():
            print(bench_build.import_corpus(args.docs, base)[0], flush=True)
        sides = [_side(work, name, src, base) for name, src in zip("AB", args.packages, strict=True)]
        for side in sides:
            print(f"{side.name} ({side.origin}): cold {side.build():.2f}s", flush=True)
            side.build()
        runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for i in range(args.runs):
            for side in sides:
                runs.setdefault((side.name, "no-op"), []).append(side.measured())
            for side in sides:
                with bench_build.note_to_edit(side.corpus).open("a", encoding="utf-8") as handle:
                    handle.write(f"\n\nBenchmark edit {i + 1}: one more sentence appended to this note.\n")
                runs.setdefault((side.name, "one edit"), []).append(side.measured())
        print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        for (name, kind), found in runs.items():
            wall, cpu = [w for w, _ in found], [c for _, c in found]
            print(f"{name} {kind}: {statistics.median(wall):.3f}s ({min(wall):.3f}–{max(wall):.3f}); "
                  f"CPU {statistics.median(cpu):.3f}s")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


class _Side:
    def __init__(self, name: str, origin: Path, src: Path, corpus: Path, site: Path) -> None:
        self.name, self.origin, self.src, self.corpus, self.site = name, origin, src, corpus, site

    def build(self) -> float:
        return self.measured()[0]

    def measured(self) -> tuple[float, float]:
        """One ``papernotes build -q``: wall and CPU (user + system, the build and its children) seconds."""
        env = {**os.environ, "PYTHONPATH": str(self.src)}
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "papernotes", "build", str(self.corpus), "-o", str(self.site),
                                 "-q"], env=env, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        if status:
            raise SystemExit(f"{self.name}: build exited with status {os.waitstatus_to_exitcode(status)}")
        return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def _side(work: Path, name: str, origin: Path, base: Path) -> _Side:
    src = work / f"src-{name}"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(origin / "papernotes", src / "papernotes", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True)  # as an install compiles it
    corpus = work / f"corpus-{name}"
    if not corpus.exists():
        shutil.copytree(base, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    return _Side(name, origin, src, corpus, work / f"site-{name}")


if __name__ == "__main__":
    sys.exit(main())
