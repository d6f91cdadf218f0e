"""Benchmark: what a second edition costs (``languages = ["zh"]`` against ``["zh", "en"]``).

Stage: none (a developer tool, not part of the package).
In: the bundled examples (47 notes, 20 translations) and the reference MkDocs
"Paper-Notes" docs tree (default ``../shared/corpus/paper-notes/docs``), imported
once with ``papernotes import-mkdocs``. Out: a table on stdout (and ``--json FILE``)
with, per corpus and setting, the median wall seconds over ``--runs`` runs of a
cold build (cache and output deleted), a no-op rebuild and a one-edit rebuild (a
sentence appended to one note's body), the pages written and the ratios of the
two settings, measured in the same run.

Every build is a subprocess (``papernotes build …``), so interpreter start-up is
included.

Usage: python benchmarks/bench_editions.py [--docs DIR] [--runs N] [--json out.json] [--work DIR]
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETTINGS = {"zh": 'languages = ["zh"]\n', "zh+en": 'languages = ["zh", "en"]\n'}


def papernotes(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "papernotes", *args], capture_output=True, text=True, check=True)
    return done.stdout


def timed(*args: str) -> tuple[float, str]:
    started = time.perf_counter()
    out = papernotes(*args)
    return time.perf_counter() - started, out


def configure(corpus: Path, setting: str) -> None:
    config = corpus / "papernotes.toml"
    text = config.read_text(encoding="utf-8") if config.exists() else 'title = "Notes"\n'
    text = re.sub(r"(?m)^languages = .*\n", "", text)
    config.write_text(text + SETTINGS[setting], encoding="utf-8")


def first_note(corpus: Path) -> Path:
    return next(p for p in sorted(corpus.rglob("*.md"))
                if ".papernotes" not in p.parts and not p.name.endswith((".en.md", ".zh.md"))
                and p.name != "README.md")


def measure(corpus: Path, site: Path, runs: int) -> dict[str, object]:
    cold, noop, edit = [], [], []
    pages = ""
    note = first_note(corpus)
    original = note.read_bytes()
    for n in range(runs):
        shutil.rmtree(corpus / ".papernotes", ignore_errors=True)
        shutil.rmtree(site, ignore_errors=True)
        seconds, out = timed("build", str(corpus), "-o", str(site))
        cold.append(seconds)
        pages = out.strip().splitlines()[-1] if out.strip() else ""
        noop.append(timed("build", str(corpus), "-o", str(site))[0])
        note.write_bytes(original + f"\n\nOne more sentence {n}.\n".encode())
        edit.append(timed("build", str(corpus), "-o", str(site))[0])
        note.write_bytes(original)
        papernotes("build", str(corpus), "-o", str(site))
    return {"cold": statistics.median(cold), "noop": statistics.median(noop), "edit": statistics.median(edit),
            "summary": pages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=REPO.parent / "shared/corpus/paper-notes/docs")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-editions-"))
    corpora = {"examples": work / "examples"}
    shutil.rmtree(corpora["examples"], ignore_errors=True)
    shutil.copytree(REPO / "examples", corpora["examples"], ignore=shutil.ignore_patterns(".papernotes"))
    if args.docs.is_dir():
        corpora["reference"] = work / "reference"
        if not corpora["reference"].exists():
            papernotes("import-mkdocs", str(args.docs), str(corpora["reference"]))
    results: dict[str, dict[str, object]] = {}
    for name, corpus in corpora.items():
        for setting in SETTINGS:
            configure(corpus, setting)
            results[f"{name} {setting}"] = measure(corpus, work / f"site-{name}", args.runs)
    print(f"{'corpus / languages':<22}{'cold s':>9}{'no-op s':>9}{'edit s':>9}  pages")
    for key, row in results.items():
        print(f"{key:<22}{row['cold']:>9.2f}{row['noop']:>9.2f}{row['edit']:>9.2f}  {row['summary']}")
    for name in corpora:
        one, two = results[f"{name} zh"], results[f"{name} zh+en"]
        print(f"{name}: zh+en / zh  cold ×{two['cold'] / one['cold']:.2f}  "  # type: ignore[operator]
              f"edit ×{two['edit'] / one['edit']:.2f}")  # type: ignore[operator]
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
