"""Render step: Markdown to HTML fragments (pure functions).

A top-level module, below the stage packages: the corpus parser renders titles
and outlines through it, the formula checker parses with its options, and the
site renders pages with it.

In: a note body, a summary or a title (Markdown text). Out: HTML strings that
the page templates embed, plus the outline (table of contents) and the links
the body makes. The engine is pyromark (pulldown-cmark), measured as the
fastest of the native engines on real notes (see BENCHMARKS.md). Math is left
as TeX in ``<span class="math …">`` with ``\\(…\\)`` / ``\\[…\\]`` delimiters,
rendered offline in the browser by the KaTeX copy shipped in the package.

Notes are untrusted (drafted by LLMs from third-party abstracts, imported,
contributed): the HTML that leaves this module has been through an allow-list
sanitiser (``sanitise.py``, nh3), so every output built from it (pages, listings,
feeds) carries no script, event handler, ``javascript:``/``data:`` URL, frame,
form or style; the Markdown subset notes use survives. ``trust_html = true`` in
``papernotes.toml`` skips it for note bodies only (``markdown_body(trusted=True)``).
"""
from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import pyromark

from papernotes.sanitise import FOOTNOTE_ID_PREFIX, sanitise_body, sanitise_inline
from papernotes.tables import fit_tables
from papernotes.taxonomy import slugify
from papernotes.text import CJK_ANY, TAG, plain_text

#: The one set of Markdown extensions: tables, math, definition lists, footnotes, ~~strike~~, task lists.
#: ``formulas.extract_formulas`` parses with the same options, so ``check`` sees the formulas the page shows.
MARKDOWN_OPTIONS: pyromark.Options = (
    pyromark.Options.ENABLE_TABLES
    | pyromark.Options.ENABLE_MATH
    | pyromark.Options.ENABLE_DEFINITION_LIST
    | pyromark.Options.ENABLE_FOOTNOTES
    | pyromark.Options.ENABLE_STRIKETHROUGH
    | pyromark.Options.ENABLE_TASKLISTS
)

_HEADING = re.compile(r"<h([1-4])>(.*?)</h\1>", re.S)
_HREF = re.compile(r'<a href="([^"]*)"([^>]*)>(.*?)</a>', re.S)
_WEB_LINK = re.compile(r"^(?:https?://|mailto:)", re.I)
_FOOTNOTE_REF = '<sup class="footnote-reference"><a href="#'
_PARA = re.compile(r"^<p>(.*)</p>\s*$", re.S)
_DOLLAR_MATH = re.compile(r"(?<![\\$])\$(?!\s)([^$\n]+?)(?<![\s\\])\$(?!\d)")


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    id: str
    text: str
    """Plain text of the heading (tags stripped)."""


@dataclass(frozen=True, slots=True)
class RenderedBody:
    html: str
    toc: tuple[Heading, ...]
    links: tuple[str, ...]
    """Every ``href`` in the body, in order (external and internal)."""
    has_math: bool


_PAREN_MAX = 300
"""Longest ``\\(…\\)`` span read as math (in characters)."""
_BRACKET_MAX = 2000
"""Longest ``\\[…\\]`` span read as math."""
_PAREN_START = re.compile(rf"[\s{CJK_ANY}]")
_TEX_CHAR = re.compile(r"[\\^_={}]")
_CJK_CHAR = re.compile(f"[{CJK_ANY}]")
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.S)


def normalise_math(text: str) -> str:
    """Accept the ``\\(…\\)`` and ``\\[…\\]`` delimiters (arithmatex, LaTeX) besides ``$…$`` and ``$$…$$``.

    Only spans that look like TeX are converted (no CJK text inside; display
    spans must contain a TeX character), so an escaped bracket in prose stays
    as it is; code spans and blocks are left alone. Linear in the length of
    the text, whatever it holds (a million unclosed ``\\[`` included).
    """
    if "\\(" not in text and "\\[" not in text:
        return text
    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = _brackets(_parens(parts[i]))
    return "".join(parts)


def _parens(text: str) -> str:
    """``\\(tex\\)`` -> ``$tex$``: the TeX starts with no space, holds 1-300 characters, no newline, no CJK.

    Each span ends at the first ``\\)`` after its opening; the next closing,
    newline and CJK character are looked up once and reused while the scan
    moves on, so no part of the text is read twice for every opening.
    """
    if "\\(" not in text:
        return text
    out: list[str] = []
    n, pos, start = len(text), 0, 0
    close = newline = cjk = -1
    while (i := text.find("\\(", start)) >= 0:
        body = i + 2
        start = i + 1
        if body >= n or _PAREN_START.match(text, body):
            continue
        if close < body + 1:
            close = text.find("\\)", body + 1)
            if close < 0:
                break  # no closing after this opening, hence none after any later one
        if newline < body:
            found = text.find("\n", body)
            newline = found if found >= 0 else n
        if cjk < body:
            m = _CJK_CHAR.search(text, body)
            cjk = m.start() if m else n
        if close - body > _PAREN_MAX or newline < close or cjk < close:
            continue
        out += (text[pos:i], "$", text[body:close], "$")
        pos = start = close + 2
    out.append(text[pos:])
    return "".join(out)


def _brackets(text: str) -> str:
    """``\\[tex\\]`` -> ``$$tex$$`` when the 1-2000 characters inside look like TeX (see ``_display``)."""
    if "\\[" not in text:
        return text
    out: list[str] = []
    pos = start = 0
    close = -1
    while (i := text.find("\\[", start)) >= 0:
        body = i + 2
        start = i + 1
        if close < body:
            close = text.find("\\]", body)
            if close < 0:
                break
        if close == body or close - body > _BRACKET_MAX:
            continue
        out += (text[pos:i], _display(text[body:close], text[i:close + 2]))
        pos = start = close + 2
    out.append(text[pos:])
    return "".join(out)


def _display(tex: str, written: str) -> str:
    return f"$${tex}$$" if _TEX_CHAR.search(tex) and not _CJK_CHAR.search(tex) else written


def _wrap_math(out: str) -> str:
    """Put ``\\(…\\)`` / ``\\[…\\]`` around the TeX of math spans (they hold escaped TeX, never tags)."""
    if 'class="math' not in out:
        return out
    for opening, left, right in (('<span class="math math-inline">', "\\(", "\\)"),
                                 ('<span class="math math-display">', "\\[", "\\]")):
        parts = out.split(opening)
        for i in range(1, len(parts)):  # plain string slicing: ~30,000 formulas in a corpus of 3,000 notes
            part = parts[i]
            end = part.find("</span>")
            parts[i] = f"{left}{part[:end]}{right}{part[end:]}"
        out = opening.join(parts)
    return out


@lru_cache(maxsize=8192)
def _anchor(inner: str) -> tuple[str, str]:
    """(plain text, slug) of a heading's inner HTML; headings repeat across notes, so this is cached."""
    text = plain_text(inner) if ("<" in inner or "&" in inner) else inner.strip()
    return text, slugify(text)


def markdown_body(markdown: str, drop_title: bool = True, trusted: bool = False,
                  table_label: Callable[[int], str] | None = None) -> RenderedBody:
    """Render a note body; a leading ``# Title`` line is dropped (the page shows the title).

    The HTML goes through the allow-list (``sanitise.sanitise_body``) before
    headings get their ids and anchors, unless ``trusted`` (``trust_html``),
    and tables get their scrolling boxes, named by ``table_label(n)`` (``tables.fit_tables``).
    """
    if drop_title:
        stripped = markdown.lstrip("\n")
        if stripped.startswith("# "):
            nl = stripped.find("\n")
            markdown = "" if nl < 0 else stripped[nl + 1:]
    if "\0" in markdown:  # never reaches a page, even from a file edited after it was checked
        markdown = markdown.replace("\0", "\ufffd")
    source = normalise_math(markdown)
    out = _wrap_math(pyromark.html(source, options=MARKDOWN_OPTIONS))
    if not trusted:
        out = sanitise_body(source, out)
        if _FOOTNOTE_REF in out:
            out = out.replace(_FOOTNOTE_REF, _FOOTNOTE_REF + FOOTNOTE_ID_PREFIX)
    toc: list[Heading] = []
    used: set[str] = set()

    def heading(m: re.Match[str]) -> str:
        level, inner = int(m.group(1)), m.group(2)
        text, base = _anchor(inner)
        base = base or f"section-{len(toc) + 1}"
        anchor, n = base, 1
        while anchor in used:
            n += 1
            anchor = f"{base}-{n}"
        used.add(anchor)
        if level in (2, 3):
            toc.append(Heading(level, anchor, text))
        return (f'<h{level} id="{anchor}">{inner}'
                f'<a class="headerlink" href="#{anchor}" title="Permanent link">¶</a></h{level}>')

    out = _HEADING.sub(heading, out)
    if "<table" in out:  # after the allow-list: the box's attributes are the page's, never the note's
        out = fit_tables(out, table_label)
    if UNGROUNDED in out:
        out = mark_ungrounded(out)
    links = tuple(m.group(1) for m in _HREF.finditer(out)) if "<a " in out else ()
    return RenderedBody(out, tuple(toc), links, 'class="math' in out)


UNGROUNDED = "\u26a0"
"""The mark ``draft`` puts after a number its paper does not have (``0.673⚠``, ``$x$⚠``)."""
_UNGROUNDED = re.compile(r"(?:[-+−±]?\d[\d.,]*(?:\s?[%×x])?)?\u26a0")


def mark_ungrounded(fragment: str) -> str:
    """Highlight each ``⚠``-marked number in the text of ``fragment`` (never inside a tag or attribute)."""
    parts = TAG.split(fragment)
    tags = TAG.findall(fragment)
    out = []
    for i, text in enumerate(parts):
        out.append(_UNGROUNDED.sub(lambda m: f'<mark class="ungrounded">{m.group(0)}</mark>', text))
        if i < len(tags):
            out.append(tags[i])
    return "".join(out)


def inline_markdown(text: str) -> str:
    """One line of Markdown (a summary) as inline HTML, without the ``<p>`` wrapper.

    The same fragment is shown on pages at different depths, so relative links
    cannot stay links: they are reduced to their text. http(s) and mailto links are kept.
    """
    if not text:
        return ""
    if "\0" in text:
        text = text.replace("\0", "\ufffd")
    out = _wrap_math(pyromark.html(normalise_math(text), options=MARKDOWN_OPTIONS))
    m = _PARA.match(out)
    out = m.group(1).strip() if m else out.strip()
    if "<a " in out:  # relative links and links with any other scheme than http(s) or mailto become their text
        out = _HREF.sub(lambda a: a.group(0) if _WEB_LINK.match(a.group(1)) else a.group(3), out)
    # summaries reach every listing page and may come from fetched abstracts: always sanitised
    out = sanitise_inline(_raw_html_as_text(out)) if "<" in out else out
    return mark_ungrounded(out) if UNGROUNDED in out else out


_INLINE_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>")
_INLINE_ALLOWED = {"em", "strong", "code", "del", "sup", "sub", "br", "span", "a"}
_SAFE_HREF = re.compile(r'^ href="(https?://[^"]*|mailto:[^"]*)"$')


def _raw_html_as_text(fragment: str) -> str:
    """Show raw HTML written in a summary as text, as a title shows it: keep only the tags Markdown itself
    produces. Presentation, not the safety net: ``sanitise_inline`` runs on the result."""

    def keep(m: re.Match[str]) -> str:
        closing, tag, attrs = m.group(1), m.group(2).lower(), m.group(3)
        if tag in _INLINE_ALLOWED and (
            closing or not attrs or attrs.strip() == "/"
            or (tag == "span" and attrs in (' class="math math-inline"', ' class="math math-display"'))
            or (tag == "a" and _SAFE_HREF.match(attrs))
        ):
            return m.group(0)
        return html.escape(m.group(0), quote=False)

    return _INLINE_TAG.sub(keep, fragment)


def title_html(title: str) -> str:
    """A title as HTML: escaped text, with ``$…$`` spans kept as math (no other Markdown)."""
    title = normalise_math(title.replace("\0", "\ufffd"))
    if "$" not in title:
        return html.escape(title, quote=False)
    parts: list[str] = []
    pos = 0
    for m in _DOLLAR_MATH.finditer(title):
        parts.append(html.escape(title[pos:m.start()], quote=False))
        parts.append(f'<span class="math math-inline">\\({html.escape(m.group(1), quote=False)}\\)</span>')
        pos = m.end()
    parts.append(html.escape(title[pos:], quote=False))
    return sanitise_inline("".join(parts))  # escaped by construction; the allow-list is the second line of defence


def title_text(title: str) -> str:
    """A title for ``<title>`` and search: math delimiters removed."""
    title = normalise_math(title)
    return _DOLLAR_MATH.sub(lambda m: m.group(1), title) if "$" in title else title


def rewrite_links(fragment: str, resolve) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    """Apply ``resolve(href) -> new href | None | href`` to every link.

    ``None`` means the target does not exist: the link becomes plain text marked
    ``broken-link`` (so the built site never has a dead link) and is returned.
    """
    broken: list[str] = []

    def sub(m: re.Match[str]) -> str:
        href = html.unescape(m.group(1))
        new = resolve(href)
        if new is None:
            broken.append(href)
            return f'<span class="broken-link" title="{html.escape(href)}">{m.group(3)}</span>'
        if new == href:
            return m.group(0)
        return f'<a href="{html.escape(new)}"{m.group(2)}>{m.group(3)}</a>'

    return _HREF.sub(sub, fragment), broken
