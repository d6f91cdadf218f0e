"""Render stage, places: each number of a note's page says where it stands in the paper, and links there.

In: the note's body as sanitised HTML and as Markdown, the SHA-256 its ``grounding`` record names, the
corpus's paper cache (``CORPUS/.papernotes/papers/``, what ``draft`` and ``check --grounding`` read the PDF
into; the build never opens a PDF for this) and the page's labels. Out: the same HTML with each number
grounding found wrapped by our own markup, after the sanitiser:

    <a class="place" href="https://arxiv.org/pdf/1512.03385#page=6" title="p. 6 · Table 3">21.59</a>

``title`` holds the place (hover; ``site.css`` shows it on keyboard focus, ``site.js`` on a tap), the link
opens the paper at that page: arXiv's PDF, or the site's own copy beside the page (``publish_pdfs``); a
``<span class="place" tabindex="0">`` when there is no PDF to link to. A number the paper does not have
(``class="place off"``, its ``⚠`` kept) names the paper's nearest number and its page instead.

Beside them, whether a drafted note was edited by hand since (``hand_edited``), from the same body.

Only text is wrapped, never a tag or an attribute, and never inside code, math, links or headings; the
numbers' own characters are copied escaped as they were, and places are made of digits and our labels.
"""
from __future__ import annotations

import functools
import html
import re
from pathlib import Path

from papernotes.intake.grounding import line_numbers
from papernotes.intake.paper import cache as paper_cache
from papernotes.corpus.model import Note
from papernotes.intake.places import NumberPlace, PaperPlaces, Place, note_places, paper_places
from papernotes.intake.draft_record import edited_since
from papernotes.site.contexts import NoteContext, SiteLabels

_TOKEN = re.compile(r"(<[^>]*>|&[#A-Za-z0-9]+;)")
_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9]*)")
_SKIP = frozenset({"a", "code", "pre", "kbd", "samp", "h1", "h2", "h3", "h4", "h5", "h6", "sup", "sub", "math",
                   "svg", "script", "style", "textarea", "title"})
"""Elements whose text is not wrapped (``math``: a ``span`` of TeX, named so on the stack)."""
_VOID = frozenset({"br", "hr", "img", "input", "wbr", "col", "source", "area", "base", "meta", "link"})
_CELL = frozenset({"td", "th"})


@functools.lru_cache(maxsize=16)
def _paper(folder: str, sha256: str, stamp: str) -> PaperPlaces | None:
    """The paper's numbers and regions, from the cache (``stamp`` keys the memo: a re-read paper is read again)."""
    paper = paper_cache.load(Path(folder), sha256)
    return paper_places(paper) if paper is not None else None


def number_places(corpus: Path, stamp: str, body: str) -> dict[str, NumberPlace]:
    """Number as written -> its place, for the Markdown ``body`` of a note whose paper cache stamp is ``stamp``."""
    if not stamp:
        return {}
    found = _paper(str(paper_cache.cache_dir(corpus)), stamp.partition(":")[0], stamp)
    return note_places(body, found) if found is not None else {}


def annotate(ctx: NoteContext, body: str, fragment: str, corpus: Path, labels: SiteLabels) -> tuple[str, tuple[str, ...]]:
    """A note page's body HTML with its numbers placed, and the sections a person edited since the draft."""
    places = number_places(corpus, ctx.places_from, body)
    return wrap_numbers(fragment, places, ctx.paper_url, labels), hand_edited(ctx.entry.note, body)


def hand_edited(note: Note, body: str) -> tuple[str, ...]:
    """The sections of a drafted note a person changed since its draft (``redraft.edited_since``)."""
    if not isinstance(note.extra.get("draft_engine"), str):
        return ()
    return edited_since({**note.extra, "summary": note.summary}, body)


def place_text(place: Place, labels: SiteLabels) -> str:
    """``p. 9 · Table 1`` / ``第 9 页 · 表 1``."""
    parts = [labels("place_page", page=place.page)]
    if place.region is not None:
        kind, number = place.region
        parts.append(labels(f"place_{kind}", n=number))
    return " · ".join(parts)


def describe(found: NumberPlace, labels: SiteLabels) -> str:
    """What the number's ``title`` says."""
    where = place_text(found.place, labels) if found.place is not None else ""
    if not found.supported:
        return labels("place_nearest", value=found.nearest, place=where) if where else labels("place_none")
    if found.derived_from:
        return labels("place_derived", value=found.derived_from, place=where)
    return where or labels("place_derived_unplaced")


def wrap_numbers(fragment: str, places: dict[str, NumberPlace], paper_url: str, labels: SiteLabels) -> str:
    """``fragment`` (sanitised HTML) with each number of ``places`` in its text wrapped (see the module doc)."""
    if not places:
        return fragment
    out: list[str] = []
    stack: list[str] = []
    skipping = cells = 0
    for token in _TOKEN.split(fragment):
        if not token:
            continue
        if token[0] == "<":
            out.append(token)
            m = _NAME.match(token)
            if m is None:
                continue  # a comment or a doctype: no text inside
            name = m.group(1).lower()
            if token.startswith("</"):
                while stack:
                    top = stack.pop()
                    skipping -= top in _SKIP
                    cells -= top in _CELL
                    if top == name or (top == "math" and name == "span"):
                        break
            elif name not in _VOID and not token.endswith("/>"):
                name = "math" if name == "span" and 'class="math' in token else name
                stack.append(name)
                skipping += name in _SKIP
                cells += name in _CELL
        elif token[0] == "&" or skipping:
            out.append(token)
        else:
            out.append(_wrap_text(token, places, paper_url, labels, cells > 0))
    return "".join(out)


def _wrap_text(text: str, places: dict[str, NumberPlace], paper_url: str, labels: SiteLabels, cell: bool) -> str:
    """The numbers of one run of text, read as the grounding check reads a line of the note (a plain integer is
    a claim only in a table, signed or beside ``±``), wrapped when the check placed them."""
    out: list[str] = []
    pos = 0
    for q in line_numbers(text, 0, cell):
        found = places.get(q.text) if q.claim else None
        if found is None or q.column < pos:
            continue
        out.append(text[pos:q.column])
        out.append(_element(q.text, found, paper_url, labels))
        pos = q.column + len(q.text)
    out.append(text[pos:])
    return "".join(out)


def _element(written: str, found: NumberPlace, paper_url: str, labels: SiteLabels) -> str:
    title = html.escape(describe(found, labels), quote=True)
    kind = "place" if found.supported else "place off"
    if paper_url and found.place is not None:
        href = html.escape(f"{paper_url}#page={found.place.page}", quote=True)
        return f'<a class="{kind}" href="{href}" title="{title}">{written}</a>'
    return f'<span class="{kind}" tabindex="0" title="{title}">{written}</span>'
