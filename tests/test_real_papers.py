"""Real papers (``../shared/papers``): each one's front matter read as a person read it.

Title, every author (names only), the abstract's start, the venue id the printed
line maps to (``arxiv`` when none is printed) and the arXiv id, for every PDF
in ``truth.json`` (``tests/papertruth.py`` compares; ``benchmarks/bench_pdfs.py``
prints the same table). Skipped when the folder is absent.
"""
from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

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
