"""Check stage, ratings: how many notes each venue rates 4★ or more, per rating key (pure).

In: the parsed notes and ``high_rating_share`` from papernotes.toml. Out: one ``RatingShare`` per venue and
rating key (and one for all venues together, ``ALL``), and a warning for each venue whose share of notes
rated 4★ or more on a key is above the setting. A star rating that most notes reach tells readers nothing:
the reference corpus rates 93% of its notes 4★ or more for novelty (BENCHMARKS.md). The draft prompts
anchor each star level (``prompts/draft.*.txt``); this rule says when a corpus drifted away from them.

Translations are left out (they repeat their original's ratings), and a share is judged only from
``MIN_RATED`` rated notes on: two notes both rated 5★ say little.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import NamedTuple

from papernotes.corpus.model import RATING_KEYS, Note
from papernotes.errors import Diagnostic, warning

HIGH = 4.0
"""A rating of this many stars or more counts as high."""
MIN_RATED = 10
"""Rated notes a venue needs on a key before its share is judged."""
ALL = "*"
"""The venue of the row counting every venue together."""


class RatingShare(NamedTuple):
    """The notes of one venue rated on one key, and how many of them 4★ or more."""

    venue: str
    """Venue id, or ``ALL`` for every venue together."""
    key: str
    """Rating key (``novelty``, ``experiments``, ``writing``, ``value``, or a key of the corpus's own)."""
    rated: int
    """Notes that give this key a rating."""
    high: int
    """Of those, notes rated ``HIGH`` or more."""

    @property
    def share(self) -> float:
        return self.high / self.rated if self.rated else 0.0


def rating_shares(notes: Iterable[Note]) -> list[RatingShare]:
    """``ALL``, then per venue (by id), each by rating key (canonical keys first): rated and high counts."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for note in notes:
        if note.translation_of is not None:
            continue
        for key, score in dict(note.ratings).items():
            for venue in (note.venue, ALL):
                row = counts[venue, key]
                row[0] += 1
                row[1] += score >= HIGH
    order = {key: i for i, key in enumerate(RATING_KEYS)}
    ranked = sorted(counts, key=lambda vk: (vk[0] != ALL, vk[0], order.get(vk[1], len(order)), vk[1]))
    return [RatingShare(venue, key, *counts[venue, key]) for venue, key in ranked]


def rating_problems(shares: Iterable[RatingShare], threshold: float) -> list[Diagnostic]:
    """A warning per venue and key whose share of high ratings is above ``threshold`` (from ``MIN_RATED`` notes)."""
    return [warning(s.venue, 0, f"{s.share:.0%} of {s.rated} rated notes give {s.key} {HIGH:g}★ or more, above "
                                f"high_rating_share = {threshold:.0%}: such ratings do not tell papers apart (the "
                                f"draft prompts say what each star level means)", "rating-inflation")
            for s in shares if s.venue != ALL and s.rated >= MIN_RATED and s.share > threshold]


def share_lines(shares: Iterable[RatingShare]) -> list[str]:
    """The shares as text, one line per venue: ``ICML2024: novelty 70% of 10 · value 80% of 10``."""
    by_venue: dict[str, list[str]] = defaultdict(list)
    for s in shares:
        by_venue["all venues" if s.venue == ALL else s.venue].append(f"{s.key} {s.share:.0%} of {s.rated:,}")
    return [f"{venue}: {' · '.join(parts)}" for venue, parts in by_venue.items()]
