"""Page models of a note's page: its context, figures and provenance."""
from __future__ import annotations

from dataclasses import dataclass

from papernotes.cite import Citation
from papernotes.corpus.model import Entry, Grounding
from papernotes.errors import Diagnostic
from papernotes.site.contexts.common import Link, RelatedItem


@dataclass(frozen=True, slots=True)
class FigureView:
    """One figure of the note's paper, rendered from the PDF beside the note (``site/figures.py``)."""

    number: int
    """The figure's number in the paper (``2`` for "Figure 2")."""
    label: str
    """The label as the paper prints it, e.g. ``Figure 2``."""
    caption: str
    """The whole caption as plain text (escape it: it comes from the PDF)."""
    url: str
    """Site-relative URL of the image file, beside the note's page (pass it through ``rel``)."""
    width: int
    """Width of the image in pixels (at least 800 where the PDF allows)."""
    height: int
    """Height of the image in pixels; with ``width`` it reserves the image's box before it loads."""


@dataclass(frozen=True, slots=True)
class FigureFile:
    """An image file the build copies into the site beside a note's page (the page kind ``figure``)."""

    source: str
    """Where the build's figure cache keeps the rendered image (``CORPUS/.papernotes/figures/…``)."""
    digest: str
    """Stands for the image's bytes: the PDF's SHA-256, the figure's number and the image's size."""


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a note came from, as its front matter records it (``draft``, ``import-mkdocs``)."""

    engine: str = ""
    """Front matter ``draft_engine``: the draft engine that wrote it (``openai``, ``extractive``); ``""``: not drafted."""
    model: str = ""
    """Front matter ``draft_model``: the language model, when the engine used one."""
    prompt: str = ""
    """Front matter ``draft_prompt``: the prompt file and a digest of its text, e.g. ``draft.zh@1a2b3c4d``."""
    date: str = ""
    """Front matter ``draft_date``: the day of the draft, ``YYYY-MM-DD``."""
    imported_from: str = ""
    """Front matter ``imported_from.site`` and ``.path``: the MkDocs site and file the note was imported from."""
    imported_url: str = ""
    """Front matter ``imported_from.repo``: the imported site's repository (an http(s) URL), or ``""``."""


@dataclass(frozen=True, slots=True)
class NoteContext:
    """``/{VENUE}/{domain}/{slug}/``: one note."""

    entry: Entry
    """The resolved note: ``entry.note`` has the front matter (``authors``, ``keywords``, ``lang``, …),
    ``entry.venue``, ``entry.domain`` and ``entry.topics`` the taxonomy records."""
    title_html: str
    """The title as HTML (math kept as TeX spans); safe to output unescaped."""
    summary_html: str
    """The one-line summary as inline HTML; empty when the note has none."""
    venue: Link
    """The venue page."""
    domain: Link
    """The note's venue × domain page, labelled with the domain's icon and name."""
    topics: tuple[Link, ...]
    """The note's topic pages."""
    links: tuple[Link, ...]
    """External links (arXiv, OpenReview, code, PDF, …): absolute URLs, not to pass through ``rel``."""
    ratings: tuple[tuple[str, float], ...]
    """``(label, score)`` pairs in canonical order."""
    prev: Link | None
    """The previous note of the same venue × domain page (by slug), ``None`` for the first."""
    next: Link | None
    """The next note of the same venue × domain page, ``None`` for the last."""
    link_map: tuple[tuple[str, str | None], ...]
    """Relative links in the body -> site-relative target (``None``: broken)."""
    extra_meta: tuple[tuple[str, str], ...] = ()
    """Other metadata lines kept from an import (``meta:`` in front matter), as (label, inline HTML)."""
    grounding: Grounding | None = None
    """Front matter ``grounding``: numbers checked against the paper (``supported``/``checked``) and the ones
    not in it (``not_in_paper``, shown highlighted); ``None`` when the note was never checked."""
    date: str = ""
    """The note's date, ``YYYY-MM-DD``: front matter ``date`` when valid, else its venue's date (feeds and
    structured data use it)."""
    related: tuple[RelatedItem, ...] = ()
    """The five nearest notes across venues by title, summary and keywords (TF-IDF cosine), best first;
    other notes about the same paper left out (``site/related/``)."""
    teaser: FigureView | None = None
    """The paper's Figure 1 (else its first figure), from the PDF beside the note, shown under the summary
    and as the page's ``og:image``; ``None`` without a PDF, with ``figures: none`` or ``figures = false``."""
    figures: tuple[FigureView, ...] = ()
    """The figures front matter ``figures: [2, 3]`` asks for, in that order (the 论文图表 / Figures section)."""
    figure_problems: tuple[Diagnostic, ...] = ()
    """What went wrong finding those figures (a number the paper lacks, an unreadable PDF): the build reports
    them with the page's problems; not for display."""
    citation: Citation | None = None
    """The paper's citation (``papernotes/cite.py``): title, ``authors``, ``year``, ``conference`` or
    ``journal``, ``arxiv_id``, ``pdf_url``, plain text to escape; the page's ``citation_*`` meta tags."""
    bibtex: str = ""
    """The paper's BibTeX entry (LaTeX specials already escaped for BibTeX; HTML-escape it), the Cite box."""
    provenance: Provenance | None = None
    """Who or what wrote the note and when (the provenance line); ``None`` for a note written by hand."""
    paper_url: str = ""
    """Where the body's numbers link (``#page=N`` added): the site's copy of the paper beside the page
    (``paper.pdf``, with ``publish_pdfs``), else arXiv's PDF; ``""``: the numbers link nowhere."""
    places_from: str = ""
    """The paper-cache record the numbers' places come from (the grounding's SHA-256 and the cache file's
    stat); ``""`` when this corpus never read the paper. Not for display: a new record re-renders the page."""
    report_url: str = ""
    """``report_url`` of papernotes.toml filled in for this note (its path and title, URL-encoded); ``""``:
    no "report a mistake" link."""
