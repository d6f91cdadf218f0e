"""Where one build spends its time and memory: each phase's seconds and the process tree's PSS.

Runs ``papernotes build CORPUS -o SITE -q`` in a child process whose pipeline functions
(loading, resolving, related papers, planning, rendering, tokenising and gathering the
search index) are wrapped with timers; the parent samples the child's process tree
(PSS from ``/proc/PID/smaps_rollup``, every ``--every`` seconds) and prints the phases
with the peak memory seen while each ran. Linux only (``/proc``).

Usage: python benchmarks/bench_phases.py CORPUS --site SITE [--cold] [--every 0.5] [--json OUT]
``--cold`` removes ``CORPUS/.papernotes`` and SITE first (a first build).
"""
from __future__ import annotations

import argparse
import functools
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_build import _descendants, _pss  # noqa: E402

PHASES = [  # (module, function, label), in pipeline order
    ("papernotes.site.build", "load_corpus", "load"),
    ("papernotes.site.replan", "resolve_all", "resolve"),
    ("papernotes.site.related", "cached_related", "related papers"),
    ("papernotes.site.plan", "plan_site", "plan"),
    ("papernotes.site.render", "render_pages", "render"),
    ("papernotes.site.search.index", "_tokenise_missing", "search: tokenise"),
    ("papernotes.site.search.index", "gather", "search: gather postings"),
    ("papernotes.site.search", "search_files", "search (all)"),
    ("papernotes.site.search.background", "Background.result", "search: wait for its child"),
]


def child(argv: list[str], log: Path) -> None:
    """In the build's process: wrap each phase, append ``label start end`` lines to ``log``, build."""
    import importlib

    def timed(function, label):  # type: ignore[no-untyped-def]
        @functools.wraps(function)
        def run(*args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.time()
            try:
                return function(*args, **kwargs)
            finally:
                with log.open("a", encoding="utf-8") as f:
                    f.write(f"{label}\t{start:.3f}\t{time.time():.3f}\n")
        return run

    for module, name, label in PHASES:
        owner = importlib.import_module(module)
        *path, name = name.split(".")  # a method: Class.name
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, name)
        wrapped = timed(original, label)
        setattr(owner, name, wrapped)
        for loaded in list(sys.modules.values()):  # and where a module imported it by name (``from … import``)
            if getattr(loaded, "__name__", "").startswith("papernotes") and getattr(loaded, name, None) is original:
                setattr(loaded, name, wrapped)
    from papernotes.cli.entry import main

    sys.argv = ["papernotes", "build", *argv]
    main()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--site", type=Path, required=True)
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--every", type=float, default=0.5)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.child:
        child([str(args.corpus), "-o", str(args.site), *rest], args.child)
        return
    if args.cold:
        shutil.rmtree(args.corpus / ".papernotes", ignore_errors=True)
        shutil.rmtree(args.site, ignore_errors=True)
    log = args.site.with_name(args.site.name + ".phases.log")
    log.unlink(missing_ok=True)
    samples: list[tuple[float, int, int]] = []  # (time, tree PSS bytes, processes)
    started = time.time()
    proc = subprocess.Popen([sys.executable, __file__, str(args.corpus), "--site", str(args.site), "-q",
                             "--child", str(log)])
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            pids = _descendants(proc.pid)
            samples.append((time.time(), sum(_pss(p) for p in pids), len(pids)))
            done.wait(args.every)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = proc.wait()
    ended = time.time()
    done.set()
    sampler.join()
    if code != 0:
        raise SystemExit(f"the build failed (exit {code})")
    phases = [line.split("\t") for line in log.read_text(encoding="utf-8").splitlines()]
    rows = []
    for label, a, b in phases:
        start, end = float(a), float(b)
        inside = [pss // 2**20 for t, pss, _ in samples if start <= t <= end]  # none for a phase shorter than --every
        rows.append({"phase": label, "seconds": round(end - start, 2), "ends_at": round(end - started, 2),
                     "peak_pss_mb": max(inside) if inside else None})
        shown = f"{max(inside):6d} MB" if inside else "     – "
        print(f"{label:26s} {end - start:8.2f} s   ends at {end - started:7.2f} s   peak {shown}")
    peak = max((pss for _, pss, _ in samples), default=0)
    print(f"{'whole build':26s} {ended - started:8.2f} s   peak PSS of the process tree {peak // 2**20} MB")
    log.unlink(missing_ok=True)
    if args.json:
        args.json.write_text(json.dumps({"seconds": round(ended - started, 2), "peak_pss_mb": peak // 2**20,
                                         "phases": rows}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
