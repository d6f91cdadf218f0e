"""Plan stage, trends: notes over time, for topic, domain and home pages (pure).

In: resolved entries (a topic's or a domain's, or the whole site's grouped by venue)
and the site's venues. Out: a ``TrendChart`` (one bar per venue, oldest first, its
geometry computed here so the template only draws it), the ``SeriesGrowth`` rows of
the home page, and ``note_date``, the date feeds and structured data give a note.

Growth: for each conference series with two editions or more, the two latest
editions are compared; a topic's growth is the change of its share of the
edition's notes, in percentage points, counted only for topics with at least
``GROWTH_MIN`` notes in the newer edition (a topic going from 1 note to 2 is not
a trend).
"""
from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from papernotes.corpus.model import Entry
from papernotes.site.contexts import GrowthTopic, Link, SeriesGrowth, TrendBar, TrendChart
from papernotes.taxonomy import Topic, Venue

CHART_WIDTH = 360
"""About a phone's content width: drawn near 1:1 there, the 12 px labels stay readable (a 640-wide chart
scaled to a 390 px screen drew them at 6 px); site.css caps the desktop size so they stay moderate."""
CHART_HEIGHT = 210
CHART_TOP = 22
"""Room above the tallest bar for its count."""
CHART_BASE = 140
"""Y of the axis; the rotated venue labels take the space below it."""
CHART_LEFT = 30
"""Room left of the first bar for its rotated label, which runs down to the left."""
GROWTH_MIN = 3
GROWTH_TOPICS = 5


def note_date(entry: Entry) -> dt.date:
    """Front matter ``date`` (a YAML date or ``YYYY-MM-DD`` text) when valid, else the venue's date.

    Stable across rebuilds (never a file's modification time): a feed entry keeps its date.
    """
    value = entry.note.extra.get("date")
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            pass
    return entry.venue.date


def chronological(venues: Iterable[Venue]) -> list[Venue]:
    return sorted(venues, key=lambda v: (v.date, v.id))


def trend_chart(group: Iterable[Entry], venues: Sequence[Venue], totals: Mapping[str, int]) -> TrendChart | None:
    """Bars of ``group``'s notes per venue of the site (``totals``: every venue's notes), oldest venue first;
    ``None`` when the site has fewer than two venues."""
    ordered = chronological(venues)
    if len(ordered) < 2:
        return None
    counts = Counter(e.venue.id for e in group)
    top = max(counts.values(), default=0) or 1
    slot = (CHART_WIDTH - CHART_LEFT) / len(ordered)
    width = round(min(48.0, slot * 0.7), 1)
    scale = (CHART_BASE - CHART_TOP) / top
    bars = []
    for i, venue in enumerate(ordered):
        n = counts.get(venue.id, 0)
        height = round(n * scale, 1)
        bars.append(TrendBar(venue.id, n, round(100 * n / totals[venue.id], 1) if totals.get(venue.id) else 0.0,
                             round(CHART_LEFT + i * slot + (slot - width) / 2, 1), round(CHART_BASE - height, 1), height))
    return TrendChart(tuple(bars), CHART_WIDTH, CHART_HEIGHT, width, CHART_BASE)


def series_growth(by_venue: Mapping[str, Sequence[Entry]], venues: Iterable[Venue], lang: str,
                  topic_url: str = "topics/{}/", venue_url: str = "{}/") -> tuple[SeriesGrowth, ...]:
    """The fastest-growing topics of every series between its two latest editions, newest series first."""
    series: dict[str, list[Venue]] = {}
    for venue in venues:
        if venue.year is not None:
            series.setdefault(venue.name, []).append(venue)
    rows = []
    for name, editions in series.items():
        if len(editions) < 2:
            continue
        older, newer = chronological(editions)[-2:]
        before, after = _topic_counts(by_venue[older.id]), _topic_counts(by_venue[newer.id])
        n_old, n_new = len(by_venue[older.id]), len(by_venue[newer.id])
        topics: dict[str, Topic] = {t.slug: t for e in (*by_venue[older.id], *by_venue[newer.id]) for t in e.topics}
        changes = []
        for slug, topic in topics.items():
            b, a = before.get(slug, 0), after.get(slug, 0)
            change = round(100 * (a / n_new - b / n_old), 1)
            if a >= GROWTH_MIN and change > 0:
                changes.append((-change, -a, slug, GrowthTopic(Link(topic.name(lang), topic_url.format(slug)), b, a,
                                                               change)))
        if changes:
            best = tuple(g for *_, g in sorted(changes, key=lambda c: c[:3])[:GROWTH_TOPICS])
            rows.append((newer.sort_key, SeriesGrowth(name, Link(older.id, venue_url.format(older.id), n_old),
                                                      Link(newer.id, venue_url.format(newer.id), n_new), best)))
    return tuple(row for _, row in sorted(rows, key=lambda r: r[0]))


def _topic_counts(entries: Iterable[Entry]) -> Counter[str]:
    return Counter(t.slug for e in entries for t in e.topics)
