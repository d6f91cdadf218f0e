"""Search stage, read back: what a built site's search index holds, independent of how it was cut.

In: a site directory. Out: ``IndexContents`` — every term with its postings (the
delta applied, dead documents dropped), the documents' rows and the manifest's
facets. Two indexes with equal contents answer every query alike, whether one
was cut in one go and the other grew by deltas (the kill -9 test compares a
repaired site with a clean build this way). The one reader of the format besides
``static/search-core.js``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from papernotes.site.search.encode import decode_shard

_CUT = ("gen", "shards", "dead", "delta")
"""Manifest keys that depend on how the postings were cut, not on what they hold."""


@dataclass(frozen=True)
class IndexContents:
    postings: dict[str, list[tuple[int, int]]]
    """Term → ``[(doc, impact), …]`` by document."""
    documents: list[list[str]]
    """Per document: title, summary, URL."""
    manifest: dict[str, Any]
    """The manifest without the keys that depend on the cut."""


def index_contents(site: Path) -> IndexContents:
    root = site / "search"
    manifest = json.loads((root / "index.json").read_text(encoding="utf-8"))
    dead = set(manifest["dead"])
    postings: dict[str, list[tuple[int, int]]] = {}
    for n in range(len(manifest["shards"])):
        for term, rows in decode_shard((root / f"t/{n}.bin").read_bytes()).items():
            kept = [row for row in rows if row[0] not in dead]
            if kept:
                postings[term] = kept
    if manifest["delta"]:
        for term, rows in decode_shard((root / "t/delta.bin").read_bytes()).items():
            postings[term] = sorted([*postings.get(term, []), *rows])
    documents: list[list[str]] = []
    for k in range(-(-manifest["docs"] // manifest["chunk"])):
        documents.extend(json.loads((root / f"d/{k}.json").read_text(encoding="utf-8")))
    return IndexContents(dict(sorted(postings.items())), documents, {k: v for k, v in manifest.items() if k not in _CUT})
