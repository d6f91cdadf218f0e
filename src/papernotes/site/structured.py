"""Render stage, structured data: the JSON-LD of note pages (``ScholarlyArticle``) and listings (``ItemList``).

Pure: a page's context and a way to make a URL public → one JSON text, safe inside
``<script type="application/ld+json">``. Built as one Python value and serialised
once per page (Jinja's ``tojson`` on each of a note's ~15 values cost a tenth of a
note page's render); the bytes are what ``tojson`` gave value by value: JSON with
ASCII escapes, and ``<``, ``>``, ``&`` and ``'`` as ``\\u`` escapes, so no title can
close the script element.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from markupsafe import Markup

from papernotes.site.contexts import NoteContext, PaperItem

PublicUrl = Callable[[str], str]
"""A site-relative URL as the page should give it to the world: absolute with ``base_url``, else relative."""


def script_json(value: Any) -> Markup:
    """``value`` as JSON that can stand inside a ``<script>`` element (``tojson``'s escapes)."""
    text = json.dumps(value)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                  .replace("'", "\\u0027"))


def _text(html: str) -> str:
    return Markup(html).striptags()


def scholarly_article(c: NoteContext, public: PublicUrl, lang: str) -> dict[str, Any]:
    note = c.entry.note
    data: dict[str, Any] = {"@context": "https://schema.org", "@type": "ScholarlyArticle",
                            "headline": _text(c.title_html), "url": public(c.entry.url), "datePublished": c.date,
                            "inLanguage": note.lang or lang}
    if c.summary_html:
        data["abstract"] = _text(c.summary_html)
    data.update({"author": [{"@type": "Person", "name": a} for a in note.authors], "keywords": list(note.keywords),
                 "about": [link.label for link in c.topics],
                 "isPartOf": {"@type": "CreativeWorkSeries", "name": c.entry.venue.id},
                 "sameAs": [link.url for link in c.links]})
    return data


def item_list(name: str, items: Sequence[PaperItem], public: PublicUrl) -> dict[str, Any]:
    return {"@context": "https://schema.org", "@type": "ItemList", "name": name, "numberOfItems": len(items),
            "itemListElement": [{"@type": "ListItem", "position": i, "url": public(p.url), "name": _text(p.title_html)}
                                for i, p in enumerate(items, 1)]}
