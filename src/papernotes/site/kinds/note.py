"""``/{VENUE}/{domain}/{slug}/``: one note's page.

Title, venue, domain, topics, links, ratings, the provenance line (who drafted or imported the note
and when, the grounding count "numbers checked against the paper: 41/43" from front matter, a "report
a mistake" link), summary and body (rendered by the theme from the file; its numbers carry their place
in the paper, ``site/places.py``), previous/next note of the same venue × domain page, the related notes
across venues (``SiteIndex.related``), every relative link of the body mapped to its page on the
site, and the paper's citation (``cite.py``: its ``citation_*`` meta tags, the Cite box). With
``publish_pdfs``, the note's PDF is a page of its own beside it (``paper.pdf``).
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papernotes.cite import bibtex_entry, citation_of
from papernotes.corpus.model import Entry, Note
from papernotes.layout import CACHE_DIR, PAPERS_DIR, paper_cache_file
from papernotes.markdown import inline_markdown, title_text
from papernotes.site.contexts import Crumb, FigureFile, Link, NoteContext, Page, Provenance, RelatedItem, SiteLabels
from papernotes.site.figures import FIGURE_TEMPLATE, FigureStore, NoteFigures, figure_pages
from papernotes.site.plan import (
    PageKind,
    PlanSettings,
    Scope,
    SiteIndex,
    cell_url,
    domain_label,
    resolve_local_link,
    topic_url,
    venue_label,
    venue_url,
)
from papernotes.site.trends import note_date

if TYPE_CHECKING:
    from papernotes.config import SiteConfig

RATING_ORDER = ("novelty", "experiments", "writing", "value")
LINK_LABELS = {"arxiv": "arXiv", "openreview": "OpenReview", "code": "Code", "pdf": "PDF"}
#: ``meta:`` labels already shown through typed fields (links, keywords, domain, authors).
_SHOWN_META = {"arxiv", "代码", "code", "领域", "domain", "关键词", "keywords", "openreview", "pdf", "作者", "authors"}
PAPER_FILE = "paper.pdf"
"""The site's copy of a note's PDF, beside its page (``publish_pdfs = true``)."""


def neighbour(entry: Entry | None) -> Link | None:
    return Link(title_text(entry.note.title), entry.url) if entry is not None else None


def related_item(entry: Entry) -> RelatedItem:
    return RelatedItem(title_text(entry.note.title), entry.url, entry.venue.id)


def note_page(entry: Entry, prev: Link | None, nxt: Link | None, labels: SiteLabels,
              by_path: dict[str, str], urls: frozenset[str] | set[str],
              related: tuple[RelatedItem, ...] = (), shown: NoteFigures | None = None,
              config: SiteConfig | None = None, root: Path | None = None) -> Page:
    """The page of one note; ``prev``/``nxt`` are its neighbours on the venue × domain page, ``related``
    its nearest notes across venues, ``shown`` its paper's figures (their files are pages of their own:
    ``note_pages``); ``config`` and the corpus ``root``: where its numbers link and what their places come
    from."""
    lang = labels.lang
    note = entry.note
    ratings = dict(note.ratings)
    ordered = [(labels(f"rating_{k}"), ratings.pop(k)) for k in RATING_ORDER if k in ratings]
    ordered += sorted(ratings.items())
    venue = Link(venue_label(entry.venue), venue_url(entry.venue))
    domain = Link(domain_label(entry.domain, lang), cell_url(entry.venue, entry.domain))
    citation = citation_of(entry)
    ctx = NoteContext(
        entry=entry,
        title_html=note.title_html,
        summary_html=note.summary_html,
        venue=venue,
        domain=domain,
        topics=tuple(Link(t.name(lang), topic_url(t)) for t in entry.topics),
        links=tuple(Link(LINK_LABELS.get(kind, kind), url) for kind, url in note.links),
        ratings=tuple(ordered),
        prev=prev,
        next=nxt,
        link_map=tuple((t, resolve_local_link(note.path, entry.url, t, by_path, urls)) for t in note.local_links),
        extra_meta=_extra_meta(note.extra.get("meta"), note.venue),
        grounding=note.grounding,
        date=note_date(entry).isoformat(),
        related=related,
        teaser=shown.teaser if shown is not None else None,
        figures=shown.figures if shown is not None else (),
        figure_problems=shown.problems if shown is not None else (),
        citation=citation,
        bibtex=bibtex_entry(citation),
        provenance=provenance(note),
        paper_url=paper_url(note, config),
        places_from=places_stamp(root, note) if root is not None else "",
        report_url=config.report_link(path=note.path, title=title_text(note.title),
                                      url=config.absolute_url(entry.url)) if config is not None else "",
    )
    return Page(entry.url, "note.html", title_text(note.title), ctx,
                (Crumb(labels("home"), ""), Crumb(venue.label, venue.url), Crumb(domain.label, domain.url)))


def note_pages(entry: Entry, prev: Link | None, nxt: Link | None, labels: SiteLabels,
               by_path: dict[str, str], urls: frozenset[str] | set[str],
               related: tuple[RelatedItem, ...], figures: FigureStore | None,
               config: SiteConfig | None = None) -> list[Page]:
    """The page of one note, then the image files of its paper's figures, beside it."""
    shown = figures.of(entry.note, entry.url) if figures is not None else None
    root = figures.root if figures is not None else None
    page = note_page(entry, prev, nxt, labels, by_path, urls, related, shown, config, root)
    return [page, *figure_pages(shown), *paper_pages(entry, config, root)]


def paper_pages(entry: Entry, config: SiteConfig | None, root: Path | None) -> list[Page]:
    """The note's PDF as a file beside its page, when the site publishes PDFs (``publish_pdfs``)."""
    note = entry.note
    if config is None or root is None or not (config.publish_pdfs and note.paper):
        return []
    # the note's digest stands for its PDF's stat (the load stage folds it in): a new PDF is a new file
    file = FigureFile(str(root / note.paper), f"pdf:{note.digest}")
    return [Page(entry.url + PAPER_FILE, FIGURE_TEMPLATE, PAPER_FILE, file)]


def paper_url(note: Note, config: SiteConfig | None) -> str:
    """Where the note's numbers link: the site's copy of its PDF, else arXiv's; ``""``: nowhere."""
    if config is not None and config.publish_pdfs and note.paper:
        return PAPER_FILE
    return f"https://arxiv.org/pdf/{note.arxiv_id}" if note.arxiv_id else ""


def places_stamp(root: Path, note: Note) -> str:
    """The grounding's paper in the corpus's paper cache, as its SHA-256 and the cache file's stat (the places
    of the numbers come from it: a paper read again re-renders the page); ``""`` when it is not there."""
    sha = note.grounding.pdf_sha256 if note.grounding is not None else ""
    if not sha:
        return ""
    try:
        st = os.stat(paper_cache_file(str(root / CACHE_DIR / PAPERS_DIR), sha))
    except OSError:
        return ""
    return f"{sha}:{st.st_mtime_ns}:{st.st_size}"


def provenance(note: Note) -> Provenance | None:
    """What the front matter says of where the note came from (``draft`` and ``import-mkdocs`` write it)."""
    extra = note.extra
    text = {k: str(extra[k]).strip() for k in ("draft_engine", "draft_model", "draft_prompt", "draft_date")
            if isinstance(extra.get(k), (str, int, float)) and not isinstance(extra.get(k), bool)}
    imported = extra.get("imported_from")
    source = url = ""
    if isinstance(imported, dict):
        parts = [str(imported[k]).strip() for k in ("site", "path") if isinstance(imported.get(k), str)]
        source = ": ".join(p for p in parts if p)
        repo = imported.get("repo")
        url = repo if isinstance(repo, str) and re.match(r"https?://[^\s\"<>]+$", repo) else ""
    if not (text.get("draft_engine") or source):
        return None
    return Provenance(text.get("draft_engine", ""), text.get("draft_model", ""), text.get("draft_prompt", ""),
                      text.get("draft_date", ""), source, url)


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    by_path = {e.note.path: e for e in site.entries} if site.related else {}
    for cell in site.by_cell.values():
        for i, entry in enumerate(cell):
            if scope is not None and entry.note.path not in scope.notes:
                continue
            prev = cell[i - 1] if i > 0 else None
            nxt = cell[i + 1] if i + 1 < len(cell) else None
            related = tuple(related_item(by_path[p]) for p in site.related.get(entry.note.path, ()) if p in by_path)
            yield from note_pages(entry, neighbour(prev), neighbour(nxt), settings.labels, site.by_path, site.urls,
                                  related, settings.figures, settings.config)


def _extra_meta(meta: Any, venue: str) -> tuple[tuple[str, str], ...]:
    """Imported metadata worth showing: skips what typed fields show and a venue line that only repeats the id."""
    if not isinstance(meta, dict):
        return ()
    rows = []
    for key, value in meta.items():
        text = str(value).strip() if isinstance(value, (str, int, float)) else ""
        if not text or str(key).casefold() in _SHOWN_META:
            continue
        if re.sub(r"\W", "", text).casefold() == venue.casefold():
            continue
        rows.append((str(key), inline_markdown(text)))
    return tuple(rows)


KIND = PageKind("note", 20, plan)
