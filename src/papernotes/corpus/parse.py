"""Parse stage: the text of one note file becomes a ``Note`` plus diagnostics.

Pure: no file system access. Input is the file's relative path and its text;
output is ``(note or None, diagnostics)``. A note is ``None`` only when its front
matter cannot be read at all; missing fields are reported and left empty so the
caller decides (the build skips such notes, ``classify`` can still use them).
"""
from __future__ import annotations

import hashlib
import re
from typing import Any

from papernotes.corpus.frontmatter import FrontMatterError, key_lines, parse, split_front_matter
from papernotes.corpus.model import LINK_KINDS, RATING_KEYS, Grounding, Note, SectionInfo
from papernotes.corpus.sections import heading_text, headings, section_key
from papernotes.corpus.translation import read_record, text_digest, translation_name
from papernotes.errors import Diagnostic, error, warning
from papernotes.markdown import inline_markdown, title_html
from papernotes.taxonomy import suggest


REQUIRED = ("title", "venue", "domain")
KNOWN_KEYS = {"id", "title", "venue", "domain", "topics", "keywords", "summary", "links", "authors", "lang",
              "ratings", "aliases", "abstract", "status", "slug", "grounding", "translation_of", "figures"}
"""Keys the parser reads into ``Note`` fields."""
WRITTEN_KEYS = frozenset({"draft_engine", "draft_error", "draft_model", "draft_digest", "draft_date",  # draft
                          "draft_prompt", "meta", "mkdocs_header", "domain_label", "imported_from",  # import-mkdocs
                          "review"})  # ingest pdf, new --pdf: a front matter read with doubts
"""Keys the pipeline writes and keeps for itself (in ``Note.extra``)."""
OWN_KEY_PREFIX = "x_"
"""Keys of a corpus's own that start with this (``x_reviewer: …``) are kept without a word; any other unknown
key is kept too (in ``Note.extra``, for templates) but reported as a warning, with the key it may be a typo of."""
_LIKELY = {"tags": "keywords", "tag": "keywords", "keyword": "keywords", "author": "authors", "tldr": "summary",
           "url": "links", "arxiv": "links", "code": "links", "pdf": "links", "openreview": "links",
           "conference": "venue", "booktitle": "venue", "category": "domain", "field": "domain", "topic": "topics",
           "alias": "aliases", "rating": "ratings", "language": "lang"}
"""Keys other tools write, and the key papernotes reads that instead."""

_ARXIV_ID = re.compile(r"(?:arxiv\.org/(?:abs|pdf)/|arxiv:\s*)?(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?(?:\.pdf)?$", re.I)
_STARS = re.compile(r"[⭐★]")
_HALF = re.compile(r"½|☆")
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*(?:/\s*(?:5|10))?")
_LOCAL_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|href=\"([^\"]+)\"")


def guess_lang(body: str) -> str:
    """``zh`` when the start of the body holds Chinese text, else ``en``.

    CJK characters take three UTF-8 bytes: the byte excess over the character
    count measures them in C speed (a regex scan per note was a tenth of the parse).
    """
    sample = body[:1500]
    return "zh" if len(sample.encode("utf-8", "surrogatepass")) - len(sample) > 60 else "en"


def local_links(body: str) -> tuple[str, ...]:
    """Link targets inside the corpus or site (no scheme, not a bare #anchor), in order."""
    out: list[str] = []
    for m in _LOCAL_LINK.finditer(body):
        target = m.group(1) or m.group(2)
        if target.startswith("#") or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue
        if target not in out:
            out.append(target)
    return tuple(out)


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value).strip()
    return ""


def _as_list(value: Any) -> tuple[str, ...] | None:
    """Lists of scalars, or a comma-separated string; ``None`` when the shape is wrong."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(part.strip() for part in re.split(r"[,，、]", value) if part.strip())
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return None


def arxiv_id_of(value: str) -> str:
    m = _ARXIV_ID.search(value.strip())
    return m.group(1) if m else ""


def normalise_link(kind: str, value: str) -> str:
    value = value.strip()
    if value.startswith(("http://", "https://")):
        return value
    if kind == "arxiv" and (aid := arxiv_id_of(value)):
        return f"https://arxiv.org/abs/{aid}"
    if kind == "openreview" and re.fullmatch(r"[A-Za-z0-9_-]{6,}", value):
        return f"https://openreview.net/forum?id={value}"
    if kind == "code" and re.fullmatch(r"[\w.-]+/[\w.-]+", value):
        return f"https://github.com/{value}"
    return ""


_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _outline(body: str, body_line: int) -> tuple[tuple[SectionInfo, ...], str, str]:
    """Section outline, the first paragraph of the summary section and the ratings section's text."""
    heads = headings(body)
    sections: list[SectionInfo] = []
    summary = ratings = ""
    line = body_line
    pos = 0
    for i, m in enumerate(heads):
        line += body.count("\n", pos, m.start())
        pos = m.start()
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        text = body[m.end():end].strip()
        heading = heading_text(m)
        key = section_key(heading)
        sections.append(SectionInfo(key, heading, line, len(text)))
        if key == "summary" and not summary and text:
            first = _BLANK_LINE.split(text, 1)[0]
            summary = " ".join(ln.strip() for ln in first.split("\n") if ln.strip() and not ln.lstrip().startswith("#"))
        elif key == "ratings" and not ratings:
            ratings = text
    return tuple(sections), summary, ratings


def _ratings(value: Any, path: str, line: int, problems: list[Diagnostic]) -> tuple[tuple[str, float], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        problems.append(error(path, line, "`ratings` must be a mapping such as {novelty: 4, value: 5}", "schema"))
        return ()
    out = []
    for key, score in value.items():
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 5:
            problems.append(error(path, line, f"rating `{key}` must be a number from 0 to 5, got {score!r}", "rating-range"))
            continue
        out.append((str(key), float(score)))
    return tuple(out)


def _figures(value: Any, path: str, line: int, problems: list[Diagnostic]) -> tuple[tuple[int, ...], bool]:
    """Front matter ``figures``: ``([numbers], True)``; ``none`` (or ``false``) shows no figure at all.
    A value of another shape is a warning and leaves the default (the teaser only): the page still builds."""
    if value is None:
        return (), True
    if value is False or (isinstance(value, str) and value.strip().casefold() == "none"):
        return (), False
    items = value if isinstance(value, list) else re.split(r"[,，\s]+", value.strip()) if isinstance(value, str) \
        else [value]
    numbers: list[int] = []
    for item in items:
        text = str(item).strip() if isinstance(item, (str, int)) and not isinstance(item, bool) else ""
        if not text.isascii() or not text.isdigit() or int(text) < 1:
            problems.append(warning(path, line, f"`figures` lists figure numbers, as in `figures: [2, 3]`, or is "
                                                f"`none`; {item!r} is not a figure number (ignored)", "figures"))
            continue
        if int(text) not in numbers:
            numbers.append(int(text))
    return tuple(numbers), True


def _grounding(value: Any, path: str, line: int, problems: list[Diagnostic]) -> Grounding | None:
    """``grounding: {checked, unsupported, pdf_sha256, not_in_paper}`` as ``draft`` writes it."""
    if value is None:
        return None
    shape = "`grounding` must be a mapping {checked: N, unsupported: M, pdf_sha256: …}"
    if not isinstance(value, dict):
        problems.append(error(path, line, shape, "schema"))
        return None
    checked, unsupported, sha = value.get("checked"), value.get("unsupported"), value.get("pdf_sha256")
    counts = [v for v in (checked, unsupported) if isinstance(v, int) and not isinstance(v, bool) and v >= 0]
    if len(counts) < 2 or not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
        problems.append(error(path, line, f"{shape}, with counts as whole numbers and the PDF's SHA-256 in hex",
                              "schema"))
        return None
    if unsupported > checked:
        problems.append(error(path, line, f"`grounding`: {unsupported} unsupported of only {checked} checked",
                              "schema"))
        return None
    missing = _as_list(value.get("not_in_paper"))
    if missing is None:
        problems.append(error(path, line, "`grounding.not_in_paper` must be a list of numbers as written", "schema"))
        missing = ()
    return Grounding(checked, unsupported, sha, missing)


_RATING_NAMES = tuple((key, tuple(n.casefold() for n in names)) for key, names in RATING_KEYS.items())
_RATING_LINE = re.compile(r"^\s*[-*]?\s*\**([^:：*]+?)\**\s*[:：]\s*(.*)$")


def ratings_from_section(text: str) -> tuple[tuple[str, float], ...]:
    """Read ``- 新颖性: ⭐⭐⭐⭐`` / ``- Novelty: 4/5`` lines of a ratings section's text."""
    found: list[tuple[str, float]] = []
    for line in text.split("\n"):
        if line.startswith("#"):
            break
        m = _RATING_LINE.match(line)
        if not m:
            continue
        label = m.group(1).strip().casefold()
        key = next((k for k, names in _RATING_NAMES if label.startswith(names)), None)
        if key is None:
            continue
        rest = m.group(2)
        stars = len(_STARS.findall(rest))
        if stars:
            score = stars + (0.5 if _HALF.search(rest) else 0.0)
        elif (num := _NUMBER.match(rest.strip())) is not None:
            score = float(num.group(1))
            if "/10" in rest.replace(" ", ""):
                score /= 2
        else:
            continue
        if 0 <= score <= 5:
            found.append((key, score))
    return tuple(found)


def unknown_key(key: object) -> str | None:
    """The warning for a top-level front-matter key papernotes does not know (with the key it may be a typo
    of), or ``None`` when it knows it or it is one of the corpus's own (``x_…``)."""
    name = str(key)
    if name in KNOWN_KEYS or name in WRITTEN_KEYS or name.startswith(OWN_KEY_PREFIX):
        return None
    meant = suggest(name, sorted(KNOWN_KEYS)) or ([_LIKELY[name.casefold()]] if name.casefold() in _LIKELY else [])
    hint = f"; did you mean `{meant[0]}`?" if meant else ""
    return (f"unknown key `{name}`{hint} (kept for templates as `note.extra`; keys of your own that start with "
            f"`{OWN_KEY_PREFIX}` are not reported)")


def parse_note(path: str, text: str, digest: str = "") -> tuple[Note | None, list[Diagnostic]]:
    """Parse one note. ``path`` is relative to the corpus and used in every diagnostic."""
    problems: list[Diagnostic] = []
    if not digest:
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    raw, body, body_line = split_front_matter(text)
    if raw is None:
        return None, [error(path, 1, "no YAML front matter: a note must start with a line `---`", "front-matter")]
    if body_line < 0:
        return None, [error(path, 1, "front matter is not closed by a `---` line", "front-matter")]
    try:
        data = parse(raw)
    except FrontMatterError as exc:
        return None, [error(path, exc.line, exc.message, "front-matter")]
    lines = key_lines(raw)

    def line_of(key: str) -> int:
        return lines.get(key, 1)

    problems.extend(warning(path, line_of(str(key)), message, "unknown-key")
                    for key in data if (message := unknown_key(key)) is not None)

    original, name_lang = translation_name(path)  # a translation foo.en.md has its original's slug
    slug = original.rsplit("/", 1)[-1].removesuffix(".md")
    if isinstance(data.get("slug"), str) and data["slug"].strip():
        slug = data["slug"].strip()
    if "/" in slug or slug in ("", ".", ".."):
        problems.append(error(path, line_of("slug"), f"invalid slug {slug!r}", "schema"))

    fields: dict[str, str] = {}
    for key in ("id", "title", "venue", "domain", "summary", "lang", "abstract", "status"):
        value = data.get(key)
        if isinstance(value, bool) or (value is not None and not isinstance(value, (str, int, float))):
            problems.append(error(path, line_of(key), f"`{key}` must be a single text value", "schema"))
            value = None
        fields[key] = _as_text(value)

    sections, section_summary, ratings_text = _outline(body, body_line)
    if not fields["title"]:
        first = next((ln for ln in body.split("\n") if ln.strip()), "")
        if first.startswith("# "):
            fields["title"] = first[2:].strip()
    for key in REQUIRED:
        if fields[key]:
            continue
        if key == "domain" and fields["status"] == "stub":  # fresh from `ingest`: `classify --apply` files it
            problems.append(warning(path, 1, "stub without a domain is not published yet; "
                                             "run `papernotes classify --apply`", "unfiled-stub"))
            continue
        problems.append(error(path, line_of(key) if key in data else 1, f"missing required field `{key}`", "missing-field"))

    venue = fields["venue"]
    if venue and not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", venue):
        problems.append(error(path, line_of("venue"), f"venue {venue!r} must look like ICML2026 (letters, digits, _ . -)", "schema"))
        venue = ""
    domain = fields["domain"]
    if domain and not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", domain):
        problems.append(error(path, line_of("domain"), f"domain {domain!r} must be a slug such as optimization", "schema"))
        domain = ""

    lists: dict[str, tuple[str, ...] | None] = {}
    for key in ("topics", "keywords", "authors", "aliases"):
        value = _as_list(data.get(key))
        if value is None:
            problems.append(error(path, line_of(key), f"`{key}` must be a list of names", "schema"))
            value = ()
        lists[key] = value
    topics = lists["topics"] if "topics" in data else None

    links: list[tuple[str, str]] = []
    arxiv = ""
    raw_links = data.get("links") or {}
    if not isinstance(raw_links, dict):
        problems.append(error(path, line_of("links"), "`links` must be a mapping such as {arxiv: 2401.00001, code: https://…}", "schema"))
        raw_links = {}
    for kind in sorted(raw_links, key=lambda k: (LINK_KINDS.index(k) if k in LINK_KINDS else len(LINK_KINDS), str(k))):
        value = _as_text(raw_links[kind])
        if not value:
            continue
        url = normalise_link(str(kind), value)
        if not url:
            problems.append(warning(path, line_of("links"), f"link `{kind}` is not a URL: {value!r}", "bad-link"))
            continue
        links.append((str(kind), url))
        if kind == "arxiv":
            arxiv = arxiv_id_of(value)

    ratings = _ratings(data.get("ratings"), path, line_of("ratings"), problems)
    grounding = _grounding(data.get("grounding"), path, line_of("grounding"), problems)
    figures, show_figures = _figures(data.get("figures"), path, line_of("figures"), problems)
    if not ratings:
        ratings = ratings_from_section(ratings_text)

    summary = fields["summary"] or section_summary
    if not summary and fields["status"] != "stub":
        problems.append(warning(path, 1, "no one-line summary: add `summary:` or a `## 一句话总结` / `## TL;DR` section", "no-summary"))
    lang = fields["lang"] or name_lang or guess_lang(body)
    if lang not in ("zh", "en"):
        problems.append(warning(path, line_of("lang"), f"`lang` should be zh or en, got {lang!r}", "schema"))
    elif name_lang and lang != name_lang:
        problems.append(error(path, line_of("lang"), f"`lang: {lang}` in a file named as the {name_lang} "
                                                     "translation", "translation"))
    translation = read_record(data.get("translation_of"), path, line_of("translation_of"), problems)

    note = Note(
        path=path,
        slug=slug,
        id=fields["id"] or f"{venue}/{domain}/{slug}",
        title=fields["title"],
        venue=venue,
        domain=domain,
        topics=topics,
        keywords=lists["keywords"] or (),
        summary=summary,
        links=tuple(links),
        authors=lists["authors"] or (),
        lang=lang,
        ratings=ratings,
        aliases=lists["aliases"] or (),
        sections=sections,
        body_line=body_line,
        field_lines=lines,
        extra={k: v for k, v in data.items() if k not in KNOWN_KEYS},
        arxiv_id=arxiv,
        digest=digest,
        abstract=fields["abstract"],
        status=fields["status"],
        local_links=local_links(body) if ("](" in body or "href=" in body) else (),
        title_html=title_html(fields["title"]),
        summary_html=inline_markdown(summary),
        grounding=grounding,
        translation_of=translation,
        text_digest=text_digest(fields["title"], fields["summary"], lists["keywords"] or (), body),
        figures=figures,
        show_figures=show_figures,
    )
    return note, problems
