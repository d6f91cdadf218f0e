"""Real papers against what a person read on their pages (``../shared/papers/truth.json``).

Shared by ``tests/test_real_papers.py`` and ``benchmarks/bench_pdfs.py``: a PDF
is read the way ``ingest pdf`` reads it (no cache; the venue resolved from its
printed line with the shipped taxonomy, ``arxiv`` when it prints none), and
each field is compared with the hand-read truth.
"""
from __future__ import annotations

import json
import os
import re
import unicodedata
from pathlib import Path
from typing import Any

from papernotes.intake.paper import read_paper
from papernotes.intake.venues import resolve_venue
from papernotes.taxonomy import load_taxonomy

PAPERS = Path(os.environ.get("PAPERNOTES_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "papers"
FIELDS = ("title", "authors", "abstract", "venue", "arxiv", "fig1_page", "table1_page")
_TAXONOMY = None


def load_truth(path: Path = PAPERS / "truth.json") -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))


def read_fields(pdf: Path) -> dict[str, Any]:
    """What the reader says of each field, as ``ingest pdf`` would file it."""
    global _TAXONOMY
    if _TAXONOMY is None:
        _TAXONOMY = load_taxonomy()
    text = read_paper(pdf, None)
    venue = resolve_venue((text.venue_text,), None, _TAXONOMY) if text.venue_text else ""
    return {
        "title": text.title, "authors": list(text.authors), "abstract": text.abstract, "venue": venue or "arxiv",
        "arxiv": text.arxiv, "venue_text": text.venue_text,
        "fig1_page": next((f.page for f in text.figures if f.label == "Figure 1"), None),
        "table1_page": next((f.page for f in text.tables if f.label == "Table 1"), None),
    }


def _norm(text: str | None) -> str:
    text = unicodedata.normalize("NFKC", text or "").replace("\u2019", "'").casefold()
    return re.sub(r"[\s\-‐‑–—:]+", " ", text).strip()


def compare(truth: dict[str, Any], got: dict[str, Any]) -> dict[str, bool]:
    """Field -> right. Titles and names compare without case, spacing or dash differences."""
    want_arxiv = re.sub(r"v\d+$", "", truth.get("arxiv_id") or "")
    return {
        "title": _norm(got["title"]) == _norm(truth["title"]),
        "authors": [_norm(a) for a in got["authors"]] == [_norm(a) for a in truth["authors"]],
        "abstract": _norm(got["abstract"]).startswith(_norm(truth["abstract_start"])),
        "venue": got["venue"] == truth["venue"],
        "arxiv": re.sub(r"v\d+$", "", got["arxiv"] or "") == want_arxiv,
        "fig1_page": got["fig1_page"] == truth["fig1_page"],
        "table1_page": got["table1_page"] == truth["first_table_page"],
    }
