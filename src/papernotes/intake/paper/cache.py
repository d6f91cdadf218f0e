"""Reading stage, cache: a read paper stored by the SHA-256 of its PDF, under ``CORPUS/.papernotes/papers/``.

In: a ``PaperText`` (or a hash to look up). Out: the same record read back, or
``None`` when absent, stale (another reader version) or damaged. One gzip'd
JSON file per paper, written atomically, so a killed run leaves either the old
file or the new one; deleting the folder is always safe.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from papernotes.layout import CACHE_DIR
from papernotes.intake.paper.model import PaperText
from papernotes.disk import atomic_write

READER_VERSION = 5
"""Bump when extraction, layout, cleanup or sectioning changes what a PDF reads as."""
FOLDER = "papers"


def cache_dir(corpus: Path) -> Path:
    return corpus / CACHE_DIR / FOLDER


def _file(folder: Path, sha256: str) -> Path:
    return folder / sha256[:2] / f"{sha256}.json.gz"


def load(folder: Path, sha256: str) -> PaperText | None:
    try:
        data = json.loads(gzip.decompress(_file(folder, sha256).read_bytes()))
        if data.get("reader") != READER_VERSION:
            return None
        return PaperText.from_dict(data["paper"])
    except (OSError, EOFError, ValueError, KeyError, TypeError):  # absent or damaged: read the PDF again
        return None


def save(folder: Path, paper: PaperText) -> None:
    payload = json.dumps({"reader": READER_VERSION, "paper": paper.to_dict()}, ensure_ascii=False)
    atomic_write(_file(folder, paper.sha256), gzip.compress(payload.encode("utf-8"), compresslevel=6, mtime=0))
