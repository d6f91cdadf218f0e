"""Real papers (``../shared/papers``): each one's front matter read as a person read it.

Title, every author (names only), the abstract's start, the venue id the printed
line maps to (``arxiv`` when none is printed) and the arXiv id, for every PDF
in ``truth.json`` (``tests/papertruth.py`` compares; ``benchmarks/bench_pdfs.py``
prints the same table). Skipped when the folder is absent.
"""
from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from papernotes.cli import app
from papernotes.layout import CACHE_DIR
from papertruth import PAPERS, compare, load_truth, read_fields

FRONT = ("title", "authors", "abstract", "venue", "arxiv")
TRUTH = PAPERS / "truth.json"
pytestmark = pytest.mark.skipif(not TRUTH.is_file(), reason=f"{PAPERS} is absent")
FILES = [t["file"] for t in load_truth(TRUTH)] if TRUTH.is_file() else []


@cache
def _read(file: str) -> dict[str, Any]:
    return read_fields(PAPERS / file)


def test_the_folder_holds_all_sixteen() -> None:
    assert len(FILES) == 16


@pytest.mark.parametrize("file", FILES)
def test_front_matter_is_read_right(file: str) -> None:
    truth = next(t for t in load_truth(TRUTH) if t["file"] == file)
    got = _read(file)
    verdict = compare(truth, got)
    wrong = {field: got[field] for field in FRONT if not verdict[field]}
    assert not wrong, f"{file}: {wrong}"


@pytest.mark.slow
def test_every_command_reads_every_paper_without_a_traceback(tmp_path: Path) -> None:
    """``ingest pdf`` (one run over the folder), ``read --json`` and ``new --pdf`` on each PDF: each ends with its
    output or with one-line ``file: error:`` messages, never a traceback."""
    runner = CliRunner()
    corpus = tmp_path / "notes"
    ingested = runner.invoke(app, ["ingest", "pdf", str(PAPERS), str(corpus)])
    assert ingested.exit_code == 1 and isinstance(ingested.exception, SystemExit)  # errors, then exit 1
    assert "Traceback" not in ingested.output
    errors = [line for line in ingested.stderr.splitlines() if ": error: " in line]
    assert all(line.startswith(str(PAPERS)) and "no venue for" in line for line in errors)  # arXiv preprints
    assert f"{len(FILES)} paper(s) read" in ingested.stdout
    other = tmp_path / "other"
    shutil.copytree(corpus / CACHE_DIR, other / CACHE_DIR)  # the papers read once, for `new` too
    for file in FILES:
        read = runner.invoke(app, ["read", str(PAPERS / file), "--json", "--corpus", str(corpus)])
        assert read.exit_code == 0 and json.loads(read.stdout)["title"], (file, read.output[-300:])
        made = runner.invoke(app, ["new", str(other), "--pdf", str(PAPERS / file), "--domain", "optimization",
                                   "--venue", "arxiv2025", "--slug", Path(file).stem])
        assert made.exit_code == 0 and "Traceback" not in made.output, (file, made.output[-300:])
