"""Render stage: a ``Page`` becomes HTML through its Jinja2 template; the theme's assets are published.

In: planned pages (and, for note pages, the note's Markdown body read from the
corpus), the site config and its optional theme folder (``theme_dir``). Out:
HTML bytes per page, and the site's ``assets/`` folder.

Templates and assets resolve by name through a chain: the theme folder's
``templates/`` and ``static/`` first, then the package's (``papernotes/templates``,
``papernotes/static``). A theme overrides any file by giving its name and adds
new ones; the package's templates stay reachable as ``papernotes/NAME`` so an
override can extend the template it replaces. Which context each template gets
and the variables every template sees are declared here (``TEMPLATE_CONTEXTS``,
``TEMPLATE_GLOBALS``, ``NOTE_VARIABLES``); ``scripts/gen_template_docs.py`` turns
them and the context dataclasses of ``site/contexts/`` into docs/templates.md.
"""
from __future__ import annotations

import functools
import re
import shutil
import traceback
from dataclasses import dataclass
from html import escape as html_escape
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

import jinja2
from markupsafe import Markup

from papernotes.corpus.frontmatter import split_front_matter
from papernotes.corpus.limits import MAX_NOTE_BYTES
from papernotes.corpus.scan import read_inside
from papernotes.disk import Staging
from papernotes.errors import BuildError, Diagnostic, text_line, warning
from papernotes.markdown import markdown_body, rewrite_links
from papernotes.site.contexts import (
    BibContext,
    DomainContext,
    DomainsIndexContext,
    FeedContext,
    HomeContext,
    NoteContext,
    Page,
    RedirectContext,
    RobotsContext,
    SimpleContext,
    SitemapContext,
    SiteLabels,
    TopicContext,
    TopicsIndexContext,
    VenueContext,
    VenueDomainContext,
)
from papernotes.site.strings import labels_for
from papernotes.site.structured import item_list, scholarly_article, script_json

if TYPE_CHECKING:
    from papernotes.config import SiteConfig

_SAFE = "/#?=&%.-_~:+,;@!$'()*"
PACKAGE_PREFIX = "papernotes/"
"""Template names under this prefix always mean the package's own template, even when a theme overrides it."""
ASSETS = "assets"
"""Folder of the built site that receives the package's and the theme's ``static/`` files."""

#: The page templates and the context dataclass each receives as ``c`` (the planner's contract).
TEMPLATE_CONTEXTS: dict[str, type] = {
    "home.html": HomeContext,
    "venue.html": VenueContext,
    "venue_domain.html": VenueDomainContext,
    "note.html": NoteContext,
    "domains.html": DomainsIndexContext,
    "domain.html": DomainContext,
    "topics.html": TopicsIndexContext,
    "topic.html": TopicContext,
    "search.html": SimpleContext,
    "404.html": SimpleContext,
    "redirect.html": RedirectContext,
    "feed.xml": FeedContext,
    "sitemap.xml": SitemapContext,
    "robots.txt": RobotsContext,
    "papers.bib": BibContext,
}

#: Templates no page renders directly: the pages' templates extend or import them.
PARTIAL_TEMPLATES: dict[str, str] = {
    "base.html": "The page skeleton every page template extends; blocks `head`, `main` and `scripts`.",
    "chrome.html": "Macros `header(root)` and `footer(root)`, rendered once per page depth and edition (with "
                   "that edition's `lang`, `t` and `home`) and passed on as `chrome`.",
    "macros.html": "Shared fragments: `papers(items, where=false)`, `tiles(links)`, `counted(links, suffix='')`; "
                   "import them `with context` so `rel` knows the page.",
}

#: What every template sees besides its context: name -> meaning.
TEMPLATE_GLOBALS: dict[str, str] = {
    "page": "The `Page` being rendered: `page.url` (site-relative), `page.title`, `page.crumbs` (`Crumb` records), "
            "`page.template`.",
    "c": "The page's context dataclass, listed per template below.",
    "site": "The site configuration (`papernotes.toml`): `site.title`, `site.description`, `site.base_url`, "
            "`site.language`, …",
    "lang": "Interface language of the page's edition: `zh` or `en`.",
    "t": "Translated interface strings: `t('key')`, or `t('notes_count', n=3)` for strings with a placeholder "
         "(keys in `papernotes/data/i18n.toml`; a theme's `i18n.toml` replaces any of them).",
    "root": "Path from this page to the site root, e.g. `../../` (empty on the home page; the absolute base path "
            "on `404.html`, which is served at any depth): `{{ root }}assets/site.css` (one `assets/` for every "
            "edition).",
    "home": "Path from this page to its edition's root: the same as `root` on a one-language site and in the "
            "site language's edition, one level more under `/en/`: `{{ home }}topics/`.",
    "alternates": "The page in every edition of a multi-language site, this one included: `lang`, `label` (the "
                  "language's own name), `url` (relative to this page) and `public` (absolute when `base_url` is, "
                  "else `url`); empty on a one-language site.",
    "rel": "Filter: `{{ 'topics/' | rel }}` turns a site-relative URL into one relative to the current page.",
    "stars": "Function: `stars(3.5)` gives `★★★½☆`.",
    "article_data": "Function, note pages: `article_data()` gives the note's JSON-LD `ScholarlyArticle`, escaped for "
                    "`<script type=\"application/ld+json\">` (`site/structured.py`).",
    "item_list_data": "Function, listing pages: `item_list_data(name, items)` gives the JSON-LD `ItemList` of "
                      "`PaperItem` records, escaped the same way.",
    "chrome": "Header and footer from `chrome.html`, pre-rendered for this page's depth and edition: "
              "`chrome.header`, `chrome.footer`.",
    "has_math": "True when the page shows a formula; `base.html` then loads KaTeX.",
}

#: Extra variables of ``note.html``: the note's body, rendered at page time.
NOTE_VARIABLES: dict[str, str] = {
    "body_html": "The note's Markdown body as sanitised HTML, links to other notes already made relative, each "
                 "number grounding found wrapped in `a.num` (or `span.num`) whose `title` says where the paper "
                 "states it (`site/places.py`).",
    "toc": "The body's `##` headings, each with `id` and `text`.",
    "body_lead_html": "With a teaser figure, the body's summary section when the body opens with it (shown above "
                      "the figure; `body_html` is then the rest); else empty.",
    "has_summary_section": "True when the body has its own summary section (the one-line summary is then not "
                           "repeated above it).",
    "edited": "The canonical sections a person changed since the last draft (their keys, e.g. `summary`, "
              "`method`), from front matter `draft_digest`; empty when none was or the note was not drafted.",
}


UNGROUNDED_MARK = '<mark class="ungrounded">'
"""How ``markdown.mark_ungrounded`` highlights a number its paper does not have."""


_PLAIN_URL = re.compile(r"^[A-Za-z0-9/_.~#-]*$")


def relative_url(target: str, current: str) -> str:
    """``target`` (site-relative) as seen from the page at ``current``; percent-encoded.

    A relative URL whose first segment holds a ``:`` (a note named
    ``javascript:alert(1).md``) would read as a scheme: it gets a ``./`` prefix.
    Called a dozen times per page: plain string scans, no splitting into lists.
    """
    if target.startswith(("http://", "https://", "#", "mailto:")):
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
    if ":" in rel.partition("/")[0]:
        rel = "./" + rel
    return rel if _PLAIN_URL.match(rel) else quote(rel, safe=_SAFE)


def _stars(score: float) -> str:
    full = int(score)
    half = score - full >= 0.5
    return "★" * full + ("½" if half else "") + "☆" * (5 - full - (1 if half else 0))


@dataclass(frozen=True, slots=True)
class SwitchLink:
    """One entry of ``alternates``: the page in one edition, as the page links to it."""

    lang: str
    label: str
    url: str
    """Relative to the page (absolute path on ``404.html``)."""
    public: str
    """Absolute URL when ``base_url`` is absolute (``<link rel="alternate" hreflang>``), else ``url``."""

    def __post_init__(self) -> None:
        if not self.public:
            object.__setattr__(self, "public", self.url)


@dataclass(frozen=True, slots=True)
class Chrome:
    """Pre-rendered page chrome shared by all pages at one depth."""

    header: Markup
    footer: Markup


def _escapes(name: str | None) -> bool:
    """HTML and XML templates escape what they print; plain-text ones (``robots.txt``, ``papers.bib``, whose
    entries ``cite.py`` escaped for BibTeX) print it as it is."""
    return not (name or "").endswith((".txt", ".bib"))


class Theme:
    """The Jinja environment plus everything a page render needs."""

    def __init__(self, config: SiteConfig, corpus: Path, bytecode_dir: Path | None = None,
                 precompile: bool = True) -> None:
        self.config = config
        self.corpus = corpus
        self.theme_dir = config.theme_path(corpus)
        self.labels = labels_for(config.language, self.theme_dir)
        self._labels = {config.language: self.labels}
        self.base_path = config.base_path
        self.env = jinja2.Environment(
            loader=template_loader(self.theme_dir),
            autoescape=_escapes,
            undefined=jinja2.StrictUndefined,
            auto_reload=False,
            trim_blocks=True,
            lstrip_blocks=True,
            bytecode_cache=_bytecode_cache(bytecode_dir),
        )
        self.globals: dict[str, Any] = {"site": config, "lang": config.language, "t": self.labels, "stars": _stars}
        self.env.globals.update(self.globals)
        theme = self

        @jinja2.pass_context
        def rel(ctx: Any, target: str) -> str:
            return theme._rel(ctx, target)

        self.env.filters["rel"] = rel

        @jinja2.pass_context
        def article_data(ctx: Any) -> Markup:
            return script_json(scholarly_article(ctx["c"], functools.partial(theme._public, ctx), ctx["lang"]))

        @jinja2.pass_context
        def item_list_data(ctx: Any, name: str, items: Any) -> Markup:
            return script_json(item_list(name, list(items), functools.partial(theme._public, ctx)))

        self.env.globals.update(article_data=article_data, item_list_data=item_list_data)
        if precompile:  # compile once, before any worker forks (a small rebuild loads what it uses)
            # ``papernotes/NAME`` is only reachable from a theme's templates: without one it would compile twice
            names = self.env.list_templates(filter_func=lambda n: n.endswith(".html") and (
                self.theme_dir is not None or not n.startswith(PACKAGE_PREFIX)))
            for name in names:
                try:
                    self.env.get_template(name)
                except jinja2.TemplateError as exc:
                    raise self._failure(exc, name) from None
        self._chrome: dict[tuple[str, str, str], Chrome] = {}

    def labels_in(self, lang: str) -> SiteLabels:
        """The interface strings of ``lang`` (the theme's over the package's), read once per theme."""
        found = self._labels.get(lang)
        if found is None:
            found = self._labels[lang] = labels_for(lang, self.theme_dir)
        return found

    def chrome(self, root: str, lang: str | None = None, home: str | None = None) -> Chrome:
        """Header and footer for pages whose site root is ``root`` away (and edition root ``home``): rendered
        once per depth and edition."""
        lang = lang or self.config.language
        home = root if home is None else home
        found = self._chrome.get((root, lang, home))
        if found is None:
            module = self.env.get_template("chrome.html").make_module({"lang": lang, "t": self.labels_in(lang),
                                                                       "home": home})
            found = self._chrome[(root, lang, home)] = Chrome(Markup(module.header(root)),  # type: ignore[attr-defined]
                                                              Markup(module.footer(root)))  # type: ignore[attr-defined]
        return found

    def _public(self, ctx: Any, target: str) -> str:
        """The URL the world should know ``target`` by: absolute with ``base_url``, else relative to the page."""
        if self.config.absolute_base:
            return self.config.absolute_url(ctx["page"].edition + target)
        return self._rel(ctx, target)

    def _rel(self, ctx: Any, target: str) -> str:
        page: Page = ctx["page"]
        if page.template == "404.html":
            return quote(self.base_path + page.edition + target, safe=_SAFE)
        return relative_url(page.edition + target, page.url)

    def root_for(self, page: Page) -> str:
        """The path from ``page`` to the site root."""
        if page.template == "404.html":
            return quote(self.base_path, safe=_SAFE)
        return relative_url("", page.url) if page.url else ""

    def home_for(self, page: Page) -> str:
        """The path from ``page`` to its edition's root."""
        if page.template == "404.html":
            return quote(self.base_path + page.edition, safe=_SAFE)
        return relative_url(page.edition, page.url) if page.url != page.edition else ""

    def variables(self, page: Page) -> tuple[dict[str, Any], list[Diagnostic]]:
        """What ``page``'s template receives besides ``self.globals`` (and problems met reading the note)."""
        problems: list[Diagnostic] = []
        extra: dict[str, Any] = {}
        if isinstance(page.context, NoteContext):
            extra, problems = self._note_body(page)
            problems.extend(page.context.figure_problems)
            has_math = bool(extra.pop("body_has_math")) or 'class="math' in page.context.title_html
        else:
            has_math = _context_has_math(page.context)
        root, home, lang = self.root_for(page), self.home_for(page), page.lang or self.config.language
        alternates = [SwitchLink(a.lang, a.label, quote(self.base_path + a.url, safe=_SAFE) if page.template == "404.html"
                                 else relative_url(a.url, page.url), self.config.absolute_url(a.url))
                      for a in page.alternates]
        return {"page": page, "c": page.context, "root": root, "home": home, "lang": lang, "t": self.labels_in(lang),
                "alternates": alternates, "chrome": self.chrome(root, lang, home), "has_math": has_math,
                **extra}, problems

    def render(self, page: Page) -> tuple[bytes, list[Diagnostic]]:
        try:
            values, problems = self.variables(page)
            text = self.env.get_template(page.template).render(values)
        except jinja2.TemplateError as exc:
            raise self._failure(exc, page.template) from None
        if UNGROUNDED_MARK in text:  # say what the highlight means, in the page's language (hover, screen readers)
            title = html_escape(values["t"]("ungrounded_mark"), quote=True)
            text = text.replace(UNGROUNDED_MARK, f'<mark class="ungrounded" title="{title}">')
        return text.encode("utf-8"), problems

    def _failure(self, exc: jinja2.TemplateError, name: str) -> BuildError:
        """A template that does not compile or render, as ``path:line: error: message`` (picklable for workers)."""
        path, line = getattr(exc, "filename", None), getattr(exc, "lineno", None) or 0
        if path is None:  # a runtime error: Jinja rewrites the traceback to point at template lines
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.endswith(".py")]
            path, line = (frames[-1].filename, frames[-1].lineno or 0) if frames else (name, 0)
        shown = Path(path)
        if shown.is_absolute() and shown.is_relative_to(self.corpus):
            shown = shown.relative_to(self.corpus)
        where = f"{shown}:{line}" if line else str(shown)
        return BuildError(f"{where}: error: template {name}: {exc.message or type(exc).__name__}")

    def _note_body(self, page: Page) -> tuple[dict[str, Any], list[Diagnostic]]:
        ctx: NoteContext = page.context
        note = ctx.entry.note
        problems: list[Diagnostic] = []
        try:  # never through a link that leaves the corpus (one swapped in after the scan included)
            text = read_inside(self.corpus, note.path, MAX_NOTE_BYTES + 1).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(warning(note.path, 0, f"cannot re-read note body: {exc}", "io"))
            text = ""
        _, body, _ = split_front_matter(text.replace("\r\n", "\n"))
        t = self.labels_in(page.lang or self.config.language)  # wide tables' boxes are named in the page's language
        rendered = markdown_body(body, trusted=self.config.trust_html, table_label=lambda n: t("table_region", n=n))
        html = rendered.html
        if rendered.links:
            link_map = dict(ctx.link_map)

            def resolve(href: str) -> str | None:
                # pyromark percent-encodes non-ASCII targets; the map holds them as written
                key = href if href in link_map else unquote(href)
                if key in link_map:
                    target = link_map[key]
                    return None if target is None else relative_url(page.edition + target, page.url)
                return href

            html, broken = rewrite_links(html, resolve)
            for href in broken:
                problems.append(warning(note.path, text_line(text, href), f"broken link: {href}", "broken-link"))
        edited: tuple[str, ...] = ()
        if ctx.places_from or (ctx.provenance is not None and ctx.provenance.engine):
            # lazy: 17 ms (importtime, beside papernotes.site.theme and the build): a drafted note's page only
            from papernotes.site.places import annotate

            html, edited = annotate(ctx, body, html, self.corpus, self.labels_in(page.lang or self.config.language))
        toc = [h for h in rendered.toc if h.level == 2]
        summary_in_body = any(s.key == "summary" for s in note.sections)
        lead = ""
        if ctx.teaser is not None and note.sections and note.sections[0].key == "summary":
            # the teaser goes under the one-line summary: the body's first section when it is the summary
            # (sanitised HTML: a literal "<h2" can only be a heading)
            cut = html.find("<h2", html.find("<h2") + 1)
            lead, html = (html, "") if cut < 0 else (html[:cut], html[cut:])
        return {"body_html": html, "body_lead_html": lead, "toc": toc, "has_summary_section": summary_in_body,
                "body_has_math": rendered.has_math, "edited": edited}, problems


def template_loader(theme_dir: Path | None) -> jinja2.BaseLoader:
    """Theme templates first, then the package's; ``papernotes/NAME`` is always the package's ``NAME``."""
    package = jinja2.FileSystemLoader(str(resources.files("papernotes") / "templates"))
    chain: list[jinja2.BaseLoader] = [jinja2.PrefixLoader({PACKAGE_PREFIX.rstrip("/"): package})]
    if theme_dir is not None and (theme_dir / "templates").is_dir():
        chain.append(jinja2.FileSystemLoader(str(theme_dir / "templates")))
    chain.append(package)
    return jinja2.ChoiceLoader(chain)


def copy_assets(staging: Staging, theme_dir: Path | None) -> None:
    """Publish the package's ``static/`` tree overlaid with the theme's into the staged site's ``assets/``."""
    dest = staging.path(ASSETS)
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(Path(str(resources.files("papernotes") / "static")), dest,
                    ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    if theme_dir is not None and (theme_dir / "static").is_dir():
        # a theme is the site owner's own folder: leave out editor and VCS leftovers (dotfiles)
        shutil.copytree(theme_dir / "static", dest, ignore=shutil.ignore_patterns(".*", "__pycache__"),
                        dirs_exist_ok=True)


class _Bytecode(jinja2.BytecodeCache):
    """Compiled templates kept for the whole process, in front of ``CORPUS/.papernotes/jinja`` when there is
    one: a theme made again (``serve`` after a config edit, ``build --no-cache``, one build after another in
    one process) loads each template's code instead of compiling it (~0.1 s for the package's templates).
    Jinja checks each entry against its template's source, so a template edited meanwhile compiles anew."""

    _memory: dict[str, bytes] = {}

    def __init__(self, disk: jinja2.BytecodeCache | None) -> None:
        self.disk = disk

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._memory.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)
        if bucket.code is None and self.disk is not None:
            self.disk.load_bytecode(bucket)
            if bucket.code is not None:
                self._memory[bucket.key] = bucket.bytecode_to_string()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._memory[bucket.key] = bucket.bytecode_to_string()
        if self.disk is not None:
            self.disk.dump_bytecode(bucket)


def _bytecode_cache(directory: Path | None) -> jinja2.BytecodeCache:
    if directory is None:
        return _Bytecode(None)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return _Bytecode(None)
    return _Bytecode(jinja2.FileSystemBytecodeCache(str(directory)))


def _context_has_math(ctx: Any) -> bool:
    items = getattr(ctx, "items", None)
    if items is None:
        sections = getattr(ctx, "sections", ())
        items = [p for s in sections for p in s.items]
    return any('class="math' in p.title_html or 'class="math' in p.summary_html for p in items)
