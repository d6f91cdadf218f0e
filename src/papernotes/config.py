"""Site configuration: the optional ``papernotes.toml`` at the root of a corpus.

Input: the corpus directory. Output: a validated ``SiteConfig`` and the
``Taxonomy`` it selects. The schema is declarative (type, default and help per
field); every problem in the file is collected and reported in one go.
"""
from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path
from string import Formatter
from typing import Literal
from urllib.parse import quote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from papernotes.errors import ConfigError, Diagnostic, error, toml_error_line
from papernotes.layout import CACHE_DIR, CONFIG_NAME  # noqa: F401  (the config module names them too)
from papernotes.taxonomy import Taxonomy, load_taxonomy, suggest


class TaxonomyFiles(BaseModel):
    """Site taxonomy files, relative to the corpus; each adds to or overrides the shipped one."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    venues: list[str] = Field(default_factory=list, description="Venue series/date files.")
    domains: list[str] = Field(default_factory=list, description="Domain files.")
    topics: list[str] = Field(default_factory=list, description="Topic files.")
    synonyms: list[str] = Field(default_factory=list, description="Search synonym files.")

    def files(self) -> list[str]:
        """Every site taxonomy file, relative to the corpus."""
        return [*self.venues, *self.domains, *self.topics, *self.synonyms]


class LLMConfig(BaseModel):
    """OpenAI-compatible endpoint used by ``papernotes draft --engine openai``."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    base_url: str | None = Field(None, description="Endpoint, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL).")
    model: str | None = Field(None, description="Model name (env PAPERNOTES_MODEL).")
    api_key_env: str = Field("OPENAI_API_KEY", description="Environment variable holding the API key.")
    concurrency: int = Field(4, ge=1, le=64, description="Requests in flight at once.")
    requests_per_minute: float = Field(60.0, gt=0, description="Rate limit.")
    timeout: float = Field(120.0, gt=0, description="Seconds per request.")
    max_retries: int = Field(4, ge=0, le=20, description="Retries on 429/5xx/timeouts, with backoff.")
    temperature: float = Field(0.2, ge=0, le=2, description="Sampling temperature of the drafting model.")
    price_per_1k_input: float = Field(0.0, ge=0, description="For the cost summary.")
    price_per_1k_output: float = Field(0.0, ge=0, description="For the cost summary.")
    context_tokens: int = Field(
        128_000, ge=4096, description="The model's context window in tokens. A paper whose text fits (with room "
        "for the reply) is sent whole; a longer one is drafted by map-reduce over its sections.")
    batch_price_factor: float = Field(
        0.5, ge=0, le=1, description="Price of a Batch API token relative to a live one, for the cost summary "
        "of draft --batch (OpenAI: half price).")
    batch_poll_seconds: float = Field(30.0, gt=0, description="Seconds between two status checks of a batch "
                                      "(draft --batch).")
    structured_output: bool = Field(
        False, description="Send a draft request's JSON schema as the server's structured output "
        "(response_format json_schema), for servers that offer it (OpenAI, vLLM, llama.cpp, Ollama): the reply "
        "comes back in shape at once. Replies are validated against the same model either way.")


REPORT_FIELDS = ("path", "title", "url")
"""The placeholders ``report_url`` may use."""


class SiteConfig(BaseModel):
    """Everything in ``papernotes.toml``; all fields are optional."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    title: str = Field("Paper Notes", description="Site title shown in the header and <title>.")
    description: str = Field("", description="One-line description for the home page and feeds.")
    language: Literal["zh", "en"] = Field("zh", description="Language of the site's interface and taxonomy names.")
    languages: list[Literal["zh", "en"]] = Field(
        default_factory=list, description="Editions to build, e.g. [\"zh\", \"en\"]: the site language's at /, each "
        "other one under /en/ (or /zh/) with the same URLs below it, showing the notes' translations (foo.en.md) "
        "where there are some. Empty: the site language only.")
    untranslated: Literal["show", "hide"] = Field(
        "show", description="A note without a translation into an edition's language: shown in its own language "
        "and marked (show, so every edition counts the same notes), or left out of that edition (hide; the site "
        "language's edition always shows every note).")
    base_url: str = Field("/", description="Public URL of the site root, e.g. https://example.org/notes/. Atom feeds, "
                                           "sitemap.xml, canonical and OpenGraph URLs need it absolute (http or https "
                                           "with a host); with a path such as / they are left out and the build warns "
                                           "once. Anything else (example.org/notes, no scheme) is an error.")
    cname: str = Field("", description="Custom domain of the published site, e.g. notes.example.org: `papernotes "
                                       "deploy` writes it to a CNAME file (GitHub Pages). Empty: no CNAME file.")
    hot_topics: int = Field(5, ge=0, le=50, description="How many topics the 🔥 line of a venue × domain page shows.")
    hot_topic_min: int = Field(2, ge=1, description="A topic needs at least this many notes on a page to be shown.")
    page_size: int = Field(
        100, ge=10, description="Notes per listing page: a venue × domain, domain or topic page with more is split "
        "into numbered pages (…/page/2/), linked to one another; counts still tell the whole list.")
    theme_dir: str | None = Field(None, description="Theme folder, relative to the corpus: its templates/ and static/ "
                                                    "override the package's files of the same name and may add new ones.")
    trust_html: bool = Field(
        False, description="Publish the raw HTML of note bodies as written, scripts and styles included. Only for a "
        "site whose every note you wrote yourself: by default bodies go through an allow-list sanitiser. Titles, "
        "summaries and imported meta values are sanitised whatever this says (they reach every listing page).")
    figures: bool = Field(
        True, description="Show the figures of the PDF beside each note (foo.md ↔ foo.pdf): its Figure 1 (else its "
        "first figure) under the summary and as the page's og:image, and the ones front matter `figures: [2, 3]` "
        "lists. Rendering needs the pdf extra (pypdfium2); images are cached in .papernotes/figures/. false: no "
        "figures on any page, and no PDF is opened.")
    high_rating_share: float = Field(
        0.6, ge=0, le=1, description="`papernotes check` warns about a venue whose notes rate a key (novelty, "
        "value, …) 4★ or more more often than this share (0.6: 60%), from 10 rated notes on: ratings most notes "
        "reach do not tell papers apart. 1 turns the warning off.")
    publish_pdfs: bool = Field(
        False, description="Publish the PDF beside each note (foo.md ↔ foo.pdf) as paper.pdf beside its page, and "
        "link the note's numbers to their page in it. Publishing a PDF redistributes the paper: turn this on only "
        "for papers whose licence allows it (your own, CC BY…). false: numbers link to arXiv's PDF when the note has "
        "an arXiv id, else nowhere.")
    report_url: str = Field(
        "", description="Each note gets a \"report a mistake\" link made from this template: {path} (the note's file), "
        "{title} and {url} (its page) are filled in, URL-encoded, e.g. "
        "https://github.com/you/notes/issues/new?title=Mistake%20in%20{title}&body={url}. Empty: no link.")
    taxonomy: TaxonomyFiles = Field(default_factory=TaxonomyFiles)
    llm: LLMConfig = Field(default_factory=LLMConfig)

    @field_validator("theme_dir")
    @classmethod
    def _theme_folder_exists(cls, value: str | None, info: ValidationInfo) -> str | None:
        corpus = (info.context or {}).get("corpus")
        if value is None or corpus is None:
            return value
        folder = Path(corpus) / value
        if not folder.is_dir():
            raise PydanticCustomError("theme_dir", "theme folder not found: {folder}", {"folder": str(folder)})
        if not ((folder / "templates").is_dir() or (folder / "static").is_dir() or (folder / "i18n.toml").is_file()):
            raise PydanticCustomError("theme_dir", "theme folder {folder} has neither templates/, static/ nor "
                                      "i18n.toml", {"folder": str(folder)})
        return value

    @field_validator("base_url")
    @classmethod
    def _url_or_path(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme in ("http", "https") and parts.netloc:
            return value
        if not parts.scheme and not parts.netloc and value.startswith("/"):
            return value  # a path on whatever host serves the site: no feeds (the build warns once)
        raise PydanticCustomError("base_url", "{value} is neither an absolute URL nor a path: write it with its "
                                  "scheme (https://{hint}) or as a path from the host's root (such as /notes/)",
                                  {"value": value, "hint": value.split("://")[-1].lstrip("/")})

    @field_validator("cname")
    @classmethod
    def _host_name(cls, value: str) -> str:
        if value and not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?", value):
            raise PydanticCustomError("cname", "not a host name (no scheme, path or port): {value}", {"value": value})
        return value

    @field_validator("report_url")
    @classmethod
    def _report_template(cls, value: str) -> str:
        if not value:
            return value
        if urlsplit(value).scheme not in ("http", "https", "mailto"):
            raise PydanticCustomError("report_url", "not an http(s) or mailto URL: {value}", {"value": value})
        try:
            names = {name for _, name, _, _ in Formatter().parse(value) if name is not None}
        except ValueError as exc:
            raise PydanticCustomError("report_url", "not a template ({reason}): {value}",
                                      {"reason": str(exc), "value": value}) from None
        if unknown := sorted(names - set(REPORT_FIELDS)):
            raise PydanticCustomError("report_url", "unknown placeholder {name} (use {known})",
                                      {"name": f"{{{unknown[0]}}}", "known": ", ".join(f"{{{k}}}" for k in REPORT_FIELDS)})
        return value

    def report_link(self, **values: str) -> str:
        """``report_url`` filled in with ``values`` (``REPORT_FIELDS``), each URL-encoded; ``""`` without one."""
        return self.report_url.format(**{k: quote(values.get(k, ""), safe="") for k in REPORT_FIELDS}) \
            if self.report_url else ""

    @field_validator("languages")
    @classmethod
    def _distinct_languages(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise PydanticCustomError("languages", "a language is listed twice: {value}", {"value": value})
        return value

    @property
    def editions(self) -> tuple[str, ...]:
        """The languages of the editions to build, the site language's first (it is published at ``/``)."""
        return (self.language, *(lang for lang in self.languages if lang != self.language))

    @property
    def base_path(self) -> str:
        """The path of ``base_url``, with a trailing ``/`` (``/papernotes/``; ``/`` for a bare host or ``/``)."""
        path = urlsplit(self.base_url).path or "/"
        return path if path.endswith("/") else path + "/"

    @property
    def absolute_base(self) -> str:
        """``base_url`` with a trailing ``/`` when it is absolute (``https://host/…``), else ``""``."""
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return ""
        return self.base_url if self.base_url.endswith("/") else self.base_url + "/"

    def absolute_url(self, url: str) -> str:
        """The public URL of the site-relative ``url`` (percent-encoded), or ``""`` without an absolute base."""
        base = self.absolute_base
        return base + quote(url, safe="/%-._~#?=&+,;:@!$'()*") if base else ""

    def named_paths(self) -> list[str]:
        """The files and folders this config names, relative to the corpus (taxonomy files, theme folder):
        with the config's own bytes, what a build's settings depend on (``site.shape.settings_stamp``)."""
        return [*self.taxonomy.files(), *([self.theme_dir] if self.theme_dir else [])]

    def theme_path(self, corpus: Path) -> Path | None:
        """The theme folder (``theme_dir`` resolved against the corpus), or ``None`` for the package's theme."""
        return (corpus / self.theme_dir).resolve() if self.theme_dir else None


def _line_for_key(text: str, loc: tuple[int | str, ...]) -> int:
    """Best-effort line of the TOML key a validation error points at."""
    key = next((part for part in reversed(loc) if isinstance(part, str)), None)
    if key is None:
        return 0
    m = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*=", text, re.MULTILINE)
    if m is None and len(loc) > 1:
        m = re.search(rf"^\s*\[{re.escape(str(loc[0]))}\]", text, re.MULTILINE)
    return text.count("\n", 0, m.start()) + 1 if m else 0


def _meant(loc: tuple[int | str, ...]) -> str:
    """For a key the schema does not have: the key of its table it is closest to, or the table it belongs in."""
    model: type[BaseModel] = SiteConfig
    for part in loc[:-1]:
        annotation = model.model_fields[str(part)].annotation if str(part) in model.model_fields else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return ""
        model = annotation
    key = str(loc[-1])
    if guesses := suggest(key, model.model_fields):
        return "; did you mean " + " or ".join(f"`{g}`" for g in guesses) + "?"
    tables = [name for name, info in model.model_fields.items() if isinstance(info.annotation, type)
              and issubclass(info.annotation, BaseModel) and key in info.annotation.model_fields]
    return f"; `{key}` is a key of the [{tables[0]}] table" if tables else ""


def load_config(corpus: Path) -> tuple[SiteConfig, str]:
    """The corpus's config (defaults when the file is absent) and a fingerprint of its bytes."""
    path = corpus / CONFIG_NAME
    if not path.exists():
        return SiteConfig(), "default"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([error(str(path), 0, f"cannot read config: {exc}", "config")]) from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([error(str(path), toml_error_line(exc), f"invalid TOML: {exc}", "config")]) from exc
    try:
        config = SiteConfig.model_validate(data, context={"corpus": corpus})
    except ValidationError as exc:
        problems: list[Diagnostic] = []
        for item in exc.errors():
            dotted = ".".join(str(p) for p in item["loc"])
            hint = _meant(item["loc"]) if item["type"] == "extra_forbidden" else ""
            problems.append(error(str(path), _line_for_key(text, item["loc"]), f"{dotted}: {item['msg']}{hint}",
                                  "config"))
        raise ConfigError(problems) from exc
    return config, hashlib.sha256(text.encode()).hexdigest()[:16]


def load_site_taxonomy(corpus: Path, config: SiteConfig) -> Taxonomy:
    files = config.taxonomy
    missing = [
        error(str(corpus / CONFIG_NAME), 0, f"taxonomy file not found: {name}", "config")
        for name in files.files()
        if not (corpus / name).is_file()
    ]
    if missing:
        raise ConfigError(missing)
    return load_taxonomy(
        venues=[corpus / p for p in files.venues],
        domains=[corpus / p for p in files.domains],
        topics=[corpus / p for p in files.topics],
        synonyms=[corpus / p for p in files.synonyms],
    )
