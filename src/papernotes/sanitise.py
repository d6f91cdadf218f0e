"""Render step, the allow-list between Markdown and the page: untrusted HTML in, HTML that cannot run out (pure).

Notes are untrusted input: they are drafted by LLMs from third-party abstracts,
imported from other sites or contributed, and Markdown passes raw HTML through.
``markdown.py`` sends every fragment it renders through here (note bodies,
one-line summaries, titles, imported ``meta`` values), so what pages, listings
and feeds show has been cleaned once, by nh3 (the Rust ``ammonia`` sanitiser,
which parses the fragment as a browser would before it filters).

What survives is the Markdown subset notes use: paragraphs, headings, lists,
tables (cell alignment only as ``style="text-align: …"``), code blocks with a
``language-*`` class, math spans (``<span class="math math-inline|math-display">``
holding TeX as text), images and links whose URLs are http, https, mailto (links
only) or relative, footnotes, definition lists, ``<details>/<summary>``,
``<sup>/<sub>``, ``<mark>``, and task-list checkboxes (always disabled). Everything
else goes: scripts and their text, event handlers, ``style`` attributes and
elements, frames, objects, embeds, forms, ``<base>``, ``<meta>``, SVG and MathML,
comments, and any URL with another scheme however it is cased, entity-encoded
or split by whitespace (nh3 decodes the attribute as a browser would).
"""
from __future__ import annotations

import html
import re

import nh3

URL_SCHEMES = frozenset({"http", "https", "mailto"})
"""Schemes a link may use; images too (``mailto`` is never a picture). Relative URLs are kept."""

BODY_TAGS = frozenset({
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code", "kbd", "samp", "var",
    "em", "strong", "b", "i", "u", "s", "del", "ins", "mark", "small", "sup", "sub", "abbr", "cite", "q", "dfn",
    "ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption",
    "colgroup", "col", "a", "img", "span", "div", "details", "summary", "figure", "figcaption", "input",
    "ruby", "rt", "rp", "time", "wbr",
})
"""Elements a note body may contain (``input`` only as a disabled checkbox)."""

INLINE_TAGS = frozenset({"em", "strong", "b", "i", "u", "s", "del", "mark", "code", "kbd", "sup", "sub", "br",
                         "span", "a", "abbr", "small"})
"""Elements a one-line summary, a title or a ``meta`` value may contain: no blocks, no images."""

DROPPED_WITH_CONTENT = frozenset({"script", "style", "template", "noscript"})
"""Elements removed together with what they hold (code, or markup meant for another context). Any other element
outside the allow-list loses its tags and keeps its text: notes write placeholders such as ``<object A>`` or
``<bbox>`` in prose, and a browser would show the text after them."""

_ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "abbr": {"title"},
    "th": {"style", "colspan", "rowspan"},
    "td": {"style", "colspan", "rowspan"},
    "ol": {"start"},
    "li": {"value"},
    "code": {"class"},
    "span": {"class"},
    "div": {"class", "id"},
    "sup": {"class"},
    "details": {"open"},
    "input": {"checked"},
    "time": {"datetime"},
    "col": {"span"},
    "colgroup": {"span"},
}

FOOTNOTE_ID_PREFIX = "fn-"
"""Prefix of every ``id`` a note's HTML keeps (footnote definitions); ``markdown.py`` points the footnote
references at the prefixed ids. Heading ids are added after sanitising, from the heading's text."""

_FOOTNOTE_DEFINITION = '<div class="footnote-definition" id="'
_CLASSES: dict[str, frozenset[str]] = {
    "span": frozenset({"math math-inline", "math math-display"}),
    "div": frozenset({"footnote-definition"}),
    "sup": frozenset({"footnote-reference", "footnote-definition-label"}),
}
_LANGUAGE = re.compile(r"language-[A-Za-z0-9_+#.-]{1,40}")
_ALIGN = re.compile(r"text-align: ?(?:left|center|right)")
_NUMBER = re.compile(r"\d{1,4}")


def _attribute(tag: str, name: str, value: str) -> str | None:
    """Values of allowed attributes that carry meaning beyond text: anything unexpected is dropped."""
    if name == "class":
        if tag == "code":
            return value if _LANGUAGE.fullmatch(value) else None
        return value if value in _CLASSES.get(tag, ()) else None
    if name == "style":
        return value if _ALIGN.fullmatch(value) else None
    if name in ("colspan", "rowspan", "start", "value", "span", "width", "height"):
        return value if _NUMBER.fullmatch(value) else None
    if name == "id":  # footnotes only; prefixed so no note can name a global (``window.x`` is ``id="x"``)
        return FOOTNOTE_ID_PREFIX + value if len(value) <= 200 else None
    return value


_BODY = nh3.Cleaner(
    tags=set(BODY_TAGS),
    clean_content_tags=set(DROPPED_WITH_CONTENT),
    attributes=_ATTRIBUTES,
    attribute_filter=_attribute,
    tag_attribute_values={"input": {"type": {"checkbox"}}},
    set_tag_attribute_values={"input": {"disabled": ""}},
    url_schemes=set(URL_SCHEMES),
    link_rel=None,
    strip_comments=True,
)
_INLINE = nh3.Cleaner(
    tags=set(INLINE_TAGS),
    clean_content_tags=set(DROPPED_WITH_CONTENT),
    attributes={"a": {"href", "title"}, "abbr": {"title"}, "span": {"class"}, "code": {"class"}},
    attribute_filter=_attribute,
    url_schemes=set(URL_SCHEMES),
    url_relative="deny",
    link_rel=None,
    strip_comments=True,
)


MAX_DEPTH = 256
"""Elements nested deeper than this are shown as text (Chromium's parser stops nesting at 512)."""
_TAGS_BEFORE_DEPTH_CHECK = 4000
"""Fragments with fewer ``<`` than this are sanitised as they are (the reference notes have at most 2,245)."""
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^<>]*")


def limit_depth(fragment: str, max_depth: int = MAX_DEPTH) -> str:
    """``fragment`` with start tags nested deeper than ``max_depth`` escaped (linear).

    An HTML parser spends time proportional to the depth of the open elements on
    each new block tag, so a note of 100,000 nested ``<div>`` or ``>`` quote
    levels would take minutes to sanitise; beyond the limit the tags become text.
    """
    if fragment.count("<") <= _TAGS_BEFORE_DEPTH_CHECK:
        return fragment
    stack: list[str] = []
    open_names: dict[str, int] = {}
    out: list[str] = []
    pos = 0
    for m in _TAG.finditer(fragment):
        name = m.group(2).lower()
        if name in _VOID or m.group(0).endswith("/"):
            continue
        if m.group(1):  # an end tag closes up to its element, as a parser would
            if open_names.get(name):
                while stack:
                    top = stack.pop()
                    open_names[top] -= 1
                    if top == name:
                        break
        elif len(stack) >= max_depth:
            out += (fragment[pos:m.start()], "&lt;")
            pos = m.start() + 1
        else:
            stack.append(name)
            open_names[name] = open_names.get(name, 0) + 1
    out.append(fragment[pos:])
    return "".join(out)


def sanitise_html(fragment: str) -> str:
    """A note body's HTML with everything outside the allow-list removed."""
    return _BODY.clean(limit_depth(fragment))


_RAW_HTML = re.compile(r"<[A-Za-z/!?]")
"""What starts every kind of raw HTML in CommonMark (tags, comments, declarations, autolinks)."""
_ENGINE_URL = re.compile(r' (?:href|src)="([^"]*)"')
_ENGINE_LANGUAGE = re.compile(r'<code class="([^"]*)"')
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")
_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f]")


def url_allowed(value: str) -> bool:
    """An ``href`` or ``src`` as written in HTML: relative, or http, https or mailto once entities, spaces and
    control characters (which browsers drop) are taken out."""
    url = _CONTROL_OR_SPACE.sub("", html.unescape(value)) if ("&" in value or not value.isprintable()
                                                             or " " in value) else value
    scheme = _SCHEME.match(url)
    return scheme is None or scheme.group(1).lower() in URL_SCHEMES


def sanitise_body(markdown: str, fragment: str) -> str:
    """``sanitise_html`` of ``fragment``, the HTML the Markdown engine made of ``markdown``, with a shortcut.

    When ``markdown`` holds no raw HTML (no ``<`` before a letter, ``/``, ``!``
    or ``?``: nine notes in ten), every tag of ``fragment`` was written by the
    engine from the subset above, with every text and attribute value escaped;
    what a note controls there is its URLs, its code blocks' language and its
    footnote labels. Those are checked against the same rules (URL schemes after
    entity decoding, ``language-*`` names) and the footnote ids get their prefix,
    instead of re-parsing the whole fragment: nh3 costs about a millisecond per
    note, three times the Markdown rendering (BENCHMARKS.md). Anything else,
    and any fragment that fails a check, goes through nh3.
    """
    if "<" not in fragment:
        return fragment
    if (_RAW_HTML.search(markdown) is None
            and all(url_allowed(url) for url in _ENGINE_URL.findall(fragment))
            and ("<code class" not in fragment
                 or all(_LANGUAGE.fullmatch(c) for c in _ENGINE_LANGUAGE.findall(fragment)))
            and fragment.count(' id="') == fragment.count(_FOOTNOTE_DEFINITION)):
        return fragment.replace(_FOOTNOTE_DEFINITION, _FOOTNOTE_DEFINITION + FOOTNOTE_ID_PREFIX)
    return sanitise_html(fragment)


def sanitise_inline(fragment: str) -> str:
    """Inline HTML (summary, title, ``meta`` value): inline elements only, no relative links (shown at any depth)."""
    return _INLINE.clean(limit_depth(fragment))
