"""Plan stage, related papers: each note's five nearest notes by TF-IDF cosine (numpy, in the build's process).

In: every note's title, summary, keywords and arXiv id. Out: note path -> the paths of its
``NEIGHBOURS`` nearest notes, best first; the note itself and other notes about the same paper
(same arXiv id or normalised title) are left out, and a paper appears once per list. The
modules, each importing only those before it:

- ``terms``: what the stage reads of a note (``RelatedInput``), its terms and input digest;
- ``model``: integer TF-IDF weights, norms and exact dot products as numpy arrays;
- ``exact``: exact cosine over every pair, up to ``exact.EXACT_NOTES`` notes;
- ``pruned``: beyond, candidates from truncated postings, scored exactly;
- ``update``: after an edit, which rows can change (the others kept bit for bit);
- ``lists``: the lists, from scratch or updated, with a forked helper for many rows;
- ``store``: the lists as a build keeps them in its cache and publishes them.
"""
from __future__ import annotations

from papernotes.site.related.lists import Outcome, compute, related, rows_by_path
from papernotes.site.related.model import NEIGHBOURS, quantised_idf
from papernotes.site.related.store import (
    PackedRows,
    Related,
    cached_related,
    mark_published,
    note_inputs,
    published_related,
    related_of_entries,
)
from papernotes.site.related.terms import RelatedInput, input_digest, paper_key, terms_of

__all__ = ["NEIGHBOURS", "Outcome", "PackedRows", "Related", "RelatedInput", "cached_related",
           "compute", "input_digest", "mark_published", "note_inputs", "paper_key", "published_related",
           "quantised_idf", "related", "related_of_entries", "rows_by_path", "terms_of"]
