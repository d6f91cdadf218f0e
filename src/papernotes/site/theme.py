"""Render stage: a ``Page`` becomes HTML through its Jinja2 template.

In: planned pages (and, for note pages, the note's Markdown body read from the
corpus). Out: HTML bytes. Templates live in ``papernotes/templates`` and each
receives ``page`` (the ``Page``), ``c`` (its context dataclass, documented in
``contexts.py``), ``site`` (the ``SiteConfig``), ``lang``, ``t`` (translations),
``root`` (relative path to the site root) and the ``rel`` filter that turns a
site-relative URL into one relative to the current page.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import jinja2
from markupsafe import Markup

from papernotes.config import SiteConfig
from papernotes.site.contexts import NoteContext, Page, SiteLabels
from papernotes.errors import Diagnostic, text_line, warning
from papernotes.corpus.parse import split_front_matter
from papernotes.site.markdown import markdown_body, rewrite_links

_SAFE = "/#?=&%.-_~:+,;@!$'()*"


@lru_cache(maxsize=None)
def ui_strings(lang: str) -> dict[str, str]:
    data = tomllib.loads((resources.files("papernotes") / "data" / "i18n.toml").read_text(encoding="utf-8"))
    return data[lang]


def labels_for(lang: str) -> SiteLabels:
    return SiteLabels(lang, ui_strings(lang))


_PLAIN_URL = re.compile(r"^[A-Za-z0-9/_.~#-]*$")


def relative_url(target: str, current: str) -> str:
    """``target`` (site-relative) as seen from the page at ``current``; percent-encoded.

    Called a dozen times per page: plain string scans, no splitting into lists.
    """
    if "://" in target or target.startswith(("#", "mailto:")):
        return target
    if not current.endswith("/"):  # a file such as 404.html: relative to its directory
        current = current.rpartition("/")[0] + "/" if "/" in current else ""
    common = 0  # length of the directory prefix both share
    while True:
        cut = current.find("/", common)
        if cut < 0 or not target.startswith(current[common:cut + 1], common):
            break
        common = cut + 1
    rel = "../" * current.count("/", common) + target[common:]
    if not rel:
        return "./"
    return rel if _PLAIN_URL.match(rel) else quote(rel, safe=_SAFE)


def _stars(score: float) -> str:
    full = int(score)
    half = score - full >= 0.5
    return "★" * full + ("½" if half else "") + "☆" * (5 - full - (1 if half else 0))


@dataclass(frozen=True, slots=True)
class Chrome:
    """Pre-rendered page chrome shared by all pages at one depth."""

    header: Markup
    footer: Markup


class Theme:
    """The Jinja environment plus everything a page render needs."""

    def __init__(self, config: SiteConfig, corpus: Path, bytecode_dir: Path | None = None,
                 precompile: bool = True) -> None:
        self.config = config
        self.corpus = corpus
        self.labels = labels_for(config.language)
        self.base_path = urlsplit(config.base_url).path or "/"
        if not self.base_path.endswith("/"):
            self.base_path += "/"
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(resources.files("papernotes") / "templates")),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            auto_reload=False,
            trim_blocks=True,
            lstrip_blocks=True,
            bytecode_cache=_bytecode_cache(bytecode_dir),
        )
        self.env.globals.update(site=config, lang=config.language, t=self.labels, stars=_stars)
        theme = self

        @jinja2.pass_context
        def rel(ctx: Any, target: str) -> str:
            return theme._rel(ctx, target)

        self.env.filters["rel"] = rel
        if precompile:  # compile once, before any worker forks (a small rebuild loads what it uses)
            for name in self.env.list_templates():
                self.env.get_template(name)
        self._chrome: dict[str, Chrome] = {}

    def chrome(self, root: str) -> Chrome:
        """Header and footer for pages whose site root is ``root`` away: rendered once per depth."""
        found = self._chrome.get(root)
        if found is None:
            module = self.env.get_template("chrome.html").module
            found = self._chrome[root] = Chrome(Markup(module.header(root)), Markup(module.footer(root)))  # type: ignore[attr-defined]
        return found

    def _rel(self, ctx: Any, target: str) -> str:
        page: Page = ctx["page"]
        if page.template == "404.html":
            return quote(self.base_path + target, safe=_SAFE)
        return relative_url(target, page.url)

    def root_for(self, page: Page) -> str:
        if page.template == "404.html":
            return self.base_path
        return relative_url("", page.url) if page.url else ""

    def render(self, page: Page) -> tuple[bytes, list[Diagnostic]]:
        problems: list[Diagnostic] = []
        extra: dict[str, Any] = {}
        has_math = False
        if isinstance(page.context, NoteContext):
            extra, problems = self._note_body(page)
            has_math = bool(extra.pop("body_has_math")) or 'class="math' in page.context.title_html
        else:
            has_math = _context_has_math(page.context)
        template = self.env.get_template(page.template)
        root = self.root_for(page)
        text = template.render(page=page, c=page.context, root=root, chrome=self.chrome(root), has_math=has_math, **extra)
        return text.encode("utf-8"), problems

    def _note_body(self, page: Page) -> tuple[dict[str, Any], list[Diagnostic]]:
        ctx: NoteContext = page.context
        note = ctx.entry.note
        source = self.corpus / note.path
        problems: list[Diagnostic] = []
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(warning(note.path, 0, f"cannot re-read note body: {exc}", "io"))
            text = ""
        _, body, _ = split_front_matter(text.replace("\r\n", "\n"))
        rendered = markdown_body(body)
        html = rendered.html
        if rendered.links:
            link_map = dict(ctx.link_map)

            def resolve(href: str) -> str | None:
                # pyromark percent-encodes non-ASCII targets; the map holds them as written
                key = href if href in link_map else unquote(href)
                if key in link_map:
                    target = link_map[key]
                    return None if target is None else relative_url(target, page.url)
                return href

            html, broken = rewrite_links(html, resolve)
            for href in broken:
                problems.append(warning(note.path, text_line(text, href), f"broken link: {href}", "broken-link"))
        toc = [h for h in rendered.toc if h.level == 2]
        summary_in_body = any(s.key == "summary" for s in note.sections)
        return {"body_html": html, "toc": toc, "has_summary_section": summary_in_body,
                "body_has_math": rendered.has_math}, problems


def _bytecode_cache(directory: Path | None) -> jinja2.BytecodeCache | None:
    if directory is None:
        return None
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(directory))


def _context_has_math(ctx: Any) -> bool:
    items = getattr(ctx, "items", None)
    if items is None:
        sections = getattr(ctx, "sections", ())
        items = [p for s in sections for p in s.items]
    return any('class="math' in p.title_html or 'class="math' in p.summary_html for p in items)
