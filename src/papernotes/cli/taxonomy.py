"""CLI: ``papernotes taxonomy [venues|domains|topics] [--corpus DIR] [--json]``, what a note's front matter may name.

Reads the site's taxonomy (the shipped files overlaid with those ``papernotes.toml`` names under
``[taxonomy]``, ``config.load_site_taxonomy``) and lists, per kind, what ``venue:``, ``domain:`` and
``topics:`` accept: slug or series, icon, Chinese and English names. Writes nothing.
"""
from __future__ import annotations

import json
import re
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.markup import escape

from papernotes.cli.common import app, fail, out
from papernotes.errors import PapernotesError

if TYPE_CHECKING:
    from papernotes.taxonomy import Taxonomy


class Kind(str, Enum):
    venues = "venues"
    domains = "domains"
    topics = "topics"


_SERIES_OF = re.compile(r"^(?P<series>.*?)[-_]?\d+$")


def rows(taxonomy: Taxonomy, kind: Kind) -> list[dict[str, Any]]:
    """The entries of one kind as plain records, in taxonomy order (what ``--json`` prints)."""
    if kind is Kind.domains:
        return [{"slug": d.slug, "icon": d.icon, "zh": d.zh, "en": d.en} for d in taxonomy.domains.values()]
    if kind is Kind.topics:
        return [{"slug": t.slug, "zh": t.zh, "en": t.en} for t in taxonomy.topics.values()]
    listed: dict[str, list[str]] = {}
    for venue_id in sorted(taxonomy.venue_dates):
        if (m := _SERIES_OF.match(venue_id)) is not None:
            listed.setdefault(m["series"].casefold(), []).append(venue_id)
    return [{"series": s.id, "name": s.name, "icon": s.icon, "zh": s.zh, "en": s.en, "month": s.month,
             "venues": listed.get(key, [])} for key, s in taxonomy.series.items()]


def _lines(kind: Kind, listed: list[dict[str, Any]]) -> list[str]:
    """One aligned line per entry: icon, slug (a series: ``ICML<year>``), names, and a series' dated venues."""
    keys = [f"{row['series']}<year>" if kind is Kind.venues else row["slug"] for row in listed]
    width = max(map(len, keys), default=0)
    lines = []
    for key, row in zip(keys, listed):
        names = " · ".join(n for n in (row["zh"], row["en"]) if n)
        dated = f"  (dated: {', '.join(row['venues'])})" if row.get("venues") else ""
        icon = f"{row['icon']} " if "icon" in row else ""
        lines.append(f"{icon}{key:<{width}}  {names}{dated}".rstrip())
    return lines


_HOW = {Kind.venues: "`venue:` is a series and a year, e.g. ICML2024",
        Kind.domains: "`domain:` is one slug",
        Kind.topics: "`topics:` takes slugs or names; others become topics of their own"}


@app.command("taxonomy")
def taxonomy(
    kind: Annotated[Optional[Kind], typer.Argument(help="Which list: venues, domains or topics (default: all three).",
                                                   show_default=False)] = None,
    corpus: Annotated[Path, typer.Option("--corpus", "-c", file_okay=False,
                                         help="Corpus whose papernotes.toml may add taxonomy files.")] = Path("."),
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: an object with one list per kind.")] = False,
) -> None:
    """List the venues, domains and topics a note may use: slug, icon, Chinese and English names.

    The site's taxonomy: the shipped one with the files named in the taxonomy table of papernotes.toml (in the corpus given by --corpus, default the current directory).
    """
    # lazy: 90 ms (importtime, beside papernotes.cli.taxonomy): `--help` does not load it
    from papernotes.config import load_config, load_site_taxonomy

    try:
        config, _ = load_config(corpus)
        loaded = load_site_taxonomy(corpus, config)
    except PapernotesError as exc:
        raise fail(exc) from None
    kinds = [kind] if kind is not None else list(Kind)
    if as_json:
        typer.echo(json.dumps({k.value: rows(loaded, k) for k in kinds}, ensure_ascii=False, indent=1))
        return
    for i, k in enumerate(kinds):
        listed = rows(loaded, k)
        out.print(f"{'' if i == 0 else chr(10)}{k.value} ({len(listed)}; {_HOW[k]})")
        for line in _lines(k, listed):
            out.print(escape(line))
