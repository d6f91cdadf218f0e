"""Import stage, pure part: one MkDocs "Paper-Notes" note becomes a papernotes note.

In: the text of ``DOCS/{VENUE}/{domain}/{slug}.md`` (a ``# Title`` and a block of
``**标签**: value`` lines, then the sections). Out: front matter, the body verbatim
and diagnostics. ``migrate_tree`` runs it over a whole tree (the I/O edge).

``convert_note`` is pure. Only the *header* (lines before the body: an old front
matter or HTML comment, the title, the metadata lines, a ``## 基本信息`` list) moves
into front matter; everything after it is copied byte for byte. Each metadata line
lands in a typed field when the field's canonical rendering reproduces the line
exactly, otherwise its raw text is kept in ``meta`` (unknown labels always are).
``mkdocs_header`` records the header's line templates only when the header is not
the canonical ``# {}`` / blank / ``**会议**: {}``… layout. ``source_text`` inverts
the conversion; the import checks that it does for every note.

Note ids are ``{VENUE}/{domain}/{slug}`` (the parser's default), written out so a
note keeps its id if it is later moved; the file stem is the slug, unchanged, so the
old URL ``/{VENUE}/{domain}/{slug}/`` keeps working.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from papernotes.corpus import frontmatter, translation
from papernotes.corpus.frontmatter import TEXT_KEYS, FrontMatterError
from papernotes.errors import Diagnostic, error, warning

MANIFEST = "import-manifest.json"
REPORT = "import-report.json"
GENERATED = {"index.md", "todo.md"}
"""Pages the MkDocs site generates from the notes (case-insensitive); never imported."""
HEADER_KEY = "mkdocs_header"
META_HEADINGS = {"基本信息", "论文信息", "paper info", "metadata"}
"""``##`` sections that hold nothing but metadata lines; moved into front matter."""
INFO_CODES = {"unknown-label", "no-link", "old-front-matter", "repeated-label", "twin-only", "untranslated"}
"""Findings that do not lose anything; listed as info, not warnings."""

#: Known labels (case-folded) -> typed field; ``meta`` keeps what none of them reproduces.
LABELS: dict[str, str] = {
    "arxiv": "arxiv", "openreview": "openreview", "代码": "code", "code": "code", "pdf": "pdf",
    "领域": "domain_label", "关键词": "keywords", "keywords": "keywords",
    "作者": "authors", "authors": "authors",
    "会议": "", "venue": "", "conference": "",  # the folder names the venue; text kept in meta
    "domain": "domain_label", "area": "domain_label", "field": "domain_label",  # an English twin's labels
}
FIELD_ORDER = ("id", "title", "venue", "domain", "keywords", "authors", "links", "domain_label", "meta", HEADER_KEY)
CANON_ORDER = ("会议", "arXiv", "OpenReview", "代码", "PDF", "作者", "领域", "关键词")
"""Label spellings and order of the canonical header; ``mkdocs_header`` records any other."""

_META = re.compile(r"^(?P<prefix>[ \t]*(?:[-*+][ \t]+)?\*\*(?:(?P<a>[^*:：\n]{1,40}?)[ \t]*\*\*[ \t]*[:：]"
                   r"|(?P<b>[^*:：\n]{1,40}?)[ \t]*[:：][ \t]*\*\*)[ \t]*)(?P<value>.*)$")
_LOOKS_META = re.compile(r"\*\*[^*\n]{1,40}\*\*\s*[:：]|^(?:[-*+]\s+)?(?:arxiv|会议|代码|领域|关键词|code|keywords)\s*[:：]",
                         re.IGNORECASE)
_TITLE = re.compile(r"^(?P<prefix>#[ \t]+)(?P<value>\S.*)$")
_ARXIV = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5}(?:v\d+)?)(?![\d])")
_URL = re.compile(r"\]\((https?://[^)\s]+)\)|(https?://[^\s)\]>（）<]+)|(?<![\w/.])((?:www\.)?github\.com/[\w.-]+/[\w.-]+)")
_OPENREVIEW = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([\w-]+)")
_SPLIT = re.compile(r"\s*[,，、;；]\s*")
MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_PLACEHOLDER = "{}"
_LINK_KINDS = ("arxiv", "openreview", "code", "pdf")
_OLD_TEXT_KEYS = TEXT_KEYS | {"arxiv", "arxiv_id", "code", "authors"}
"""Text fields of a source's own front matter: ``arxiv: 2401.10010`` is an id, not a number."""


# ------------------------------------------------------------------ the header

@dataclass(frozen=True, slots=True)
class _Header:
    end: int
    """``lines[:end]`` move into front matter; the body is ``lines[end:]``."""
    title: int | None
    """Index of the ``# Title`` line."""
    front_matter: int
    """``lines[:front_matter]`` are a YAML front matter the source already had (0: none)."""


def _old_front_matter(lines: list[str]) -> int:
    if not lines or lines[0].rstrip() != "---":
        return 0
    close = next((j for j in range(1, min(len(lines), 100)) if lines[j].rstrip() in ("---", "...")), None)
    if close is None or any(line.rstrip().endswith(_PLACEHOLDER) for line in lines[:close]):
        return 0
    try:
        frontmatter.parse("\n".join(lines[1:close]), 2, _OLD_TEXT_KEYS)
    except FrontMatterError:
        return 0
    return close + 1


def _meta_section_end(lines: list[str], start: int) -> int | None:
    """End of a ``## 基本信息`` section at ``start`` that holds only metadata lines, else ``None``."""
    j, seen = start + 1, False
    while j < len(lines) and not lines[j].startswith("#"):
        if _META.match(lines[j]):
            seen = True
        elif lines[j].strip():
            return None
        j += 1
    return j if seen else None


def _scan_header(lines: list[str]) -> _Header:
    n = len(lines)
    i = fm_end = _old_front_matter(lines)
    last = fm_end
    while i < n:  # blank lines and HTML comments before the title
        if not lines[i].strip():
            i += 1
        elif lines[i].lstrip().startswith("<!--"):
            j = i
            while j < n and "-->" not in lines[j]:
                j += 1
            if j == n or any(lines[k].rstrip().endswith(_PLACEHOLDER) for k in range(i, j + 1)):
                break
            i = last = j + 1
        else:
            break
    title, found = None, False
    if i < n and _TITLE.match(lines[i].rstrip()):
        title, i, last, found = i, i + 1, i + 1, True
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
        elif _META.match(line):
            i = last = i + 1
            found = True
        elif line.startswith("## ") and line[3:].strip().casefold() in META_HEADINGS \
                and (stop := _meta_section_end(lines, i)) is not None:
            last = max(k for k in range(i, stop) if lines[k].strip()) + 1
            i, found = stop, True
        else:
            break
    if not found:
        last = fm_end  # an HTML comment alone stays in the body
    if last == n:  # no final newline after the header: its last line stays in the body (see `source_text`)
        if last - 1 < fm_end:
            return _Header(0, None, 0)
        last -= 1
        title = title if title is not None and title < last else None
    return _Header(last, title, fm_end)


# ------------------------------------------------------------------ labels and values

def label_of(line: str) -> str | None:
    m = _META.match(line)
    return (m["a"] or m["b"]).strip() if m else None


def _first_url(value: str) -> str:
    m = _URL.search(value)
    if m is None:
        return ""
    if m.group(1):
        return m.group(1)
    url = m.group(2) or f"https://{m.group(3)}"
    return url.rstrip(".,;:。，；、")


def _typed(kind: str, raw: str) -> Any:
    """Typed value of a known label's text; ``None`` when there is nothing to map."""
    if kind == "arxiv":
        m = _ARXIV.search(raw)
        return m.group(1) if m else None
    if kind == "openreview":
        m = _OPENREVIEW.search(raw)
        return m.group(1) if m else (_first_url(raw) or None)
    if kind in ("code", "pdf"):
        return _first_url(raw) or None
    if kind == "authors" and any(ch in raw for ch in "()（）[]等@"):
        return None  # affiliations or remarks mixed in: not a clean list of names
    if kind in ("keywords", "authors"):
        return [part for part in _SPLIT.split(raw.strip()) if part] or None
    return raw or None  # domain_label


def _canonical(kind: str, value: Any) -> str:
    """How a typed value is written after ``**标签**: `` in the canonical header."""
    if value is None:
        return ""
    if kind == "arxiv":
        return f"[{value}](https://arxiv.org/abs/{value})"
    if kind == "openreview" and "/" not in value:
        return f"[{value}](https://openreview.net/forum?id={value})"
    if kind in ("openreview", "code", "pdf"):
        return f"[{value}]({value})"
    if kind in ("keywords", "authors"):
        return ", ".join(value)
    return str(value)


def _field(fm: dict[str, Any], kind: str) -> Any:
    if kind in _LINK_KINDS:
        return fm.get("links", {}).get(kind)
    return fm.get(kind) if kind else None


def _map_labels(found: list[tuple[int, str, str]], path: str,
                problems: list[Diagnostic]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, typed)`` for the metadata lines ``(index, label, raw value)``, in order of appearance."""
    by_label: dict[str, list[tuple[int, str]]] = {}
    for k, label, raw in found:
        by_label.setdefault(label, []).append((k, raw))
    meta: dict[str, Any] = {}
    typed: dict[str, Any] = {}
    for label, hits in by_label.items():
        line, raw = hits[0][0] + 1, hits[0][1]
        kind = LABELS.get(label.casefold())
        if kind is None:
            problems.append(warning(path, line, f"unknown metadata label `{label}`; kept in `meta`", "unknown-label"))
        value = _typed(kind, raw) if kind else None
        if kind in _LINK_KINDS and value is None:
            problems.append(warning(path, line, f"no link in `{label}: {raw}`; kept in `meta`", "no-link"))
        reproduced = False
        if kind and value is not None and kind not in typed:
            typed[kind] = value
            reproduced = _canonical(kind, value) == raw
        if len(hits) > 1:
            meta[label] = [r for _, r in hits]
            problems.append(warning(path, line, f"label `{label}` appears {len(hits)} times; all values kept in `meta`",
                                    "repeated-label"))
        elif not reproduced:
            meta[label] = raw
    return meta, typed


def _from_old_front_matter(lines: list[str], end: int, fm: dict[str, Any], path: str) -> Diagnostic:
    """Fill empty fields from a front matter the source already had (kept verbatim in the header)."""
    data = frontmatter.parse("\n".join(lines[1:end - 1]), 2, _OLD_TEXT_KEYS)
    links = fm.setdefault("links", {})
    for key in ("arxiv", "arxiv_id"):
        if "arxiv" not in links and isinstance(data.get(key), (str, float)) and (aid := _typed("arxiv", str(data[key]))):
            links["arxiv"] = aid
    if "code" not in links and isinstance(data.get("code"), str) and (url := _first_url(data["code"])):
        links["code"] = url
    if not links:
        del fm["links"]
    for key in ("keywords", "tags"):
        value = data.get(key)
        if "keywords" not in fm and isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            fm["keywords"] = value
    if "authors" not in fm and isinstance(data.get("authors"), str) and (names := _typed("authors", data["authors"])):
        fm["authors"] = names
    if "domain_label" not in fm and isinstance(data.get("domain"), str) and data["domain"]:
        fm["domain_label"] = data["domain"]
    if not fm["title"] and isinstance(data.get("title"), str):
        fm["title"] = data["title"].strip()
    return warning(path, 1, f"front matter of the source (lines 1-{end}) kept verbatim in `{HEADER_KEY}`; "
                   "its title, arxiv, code, keywords/tags, authors and domain fill empty fields", "old-front-matter")


# ------------------------------------------------------------------ conversion

def convert_note(rel_path: str, text: str) -> tuple[dict[str, Any], str, list[Diagnostic]]:
    """One note, ``{VENUE}/{domain}/{slug}.md`` relative to DOCS, -> ``(front matter, body, diagnostics)``."""
    venue, domain, name = rel_path.split("/")
    slug = name.removesuffix(".md")
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    head = _scan_header(lines)
    problems: list[Diagnostic] = []
    title = ""
    templates: list[str] = []
    found: list[tuple[int, str, str]] = []
    for k in range(head.end):
        line = lines[k].rstrip()
        if k == head.title:
            m = _TITLE.match(line)
            title = m["value"]
            templates.append(m["prefix"] + _PLACEHOLDER)
        elif k >= head.front_matter and (m := _META.match(line)):
            templates.append(m["prefix"] + _PLACEHOLDER)
            found.append((k, (m["a"] or m["b"]).strip(), m["value"]))
        else:
            templates.append(line)
    meta, typed = _map_labels(found, rel_path, problems)
    fm: dict[str, Any] = {"id": f"{venue}/{domain}/{slug}", "title": title, "venue": venue, "domain": domain}
    fm.update({key: typed[key] for key in ("keywords", "authors") if key in typed})
    if links := {kind: typed[kind] for kind in _LINK_KINDS if kind in typed}:
        fm["links"] = links
    if "domain_label" in typed:
        fm["domain_label"] = typed["domain_label"]
    if head.front_matter:
        problems.append(_from_old_front_matter(lines, head.front_matter, fm, rel_path))
    if not fm["title"]:
        fm["title"], problem = _fallback_title(lines, head.end, rel_path, slug)
        problems.append(problem)
    if meta:
        fm["meta"] = meta
    fm = {key: fm[key] for key in FIELD_ORDER if key in fm}
    if templates != _canonical_header(fm):
        fm[HEADER_KEY] = templates
    body = "\n".join(lines[head.end:])
    problems += _header_problems(rel_path, lines, head, bool(found))
    if (lost := _first_difference(lines, head.end, source_text(fm, body))) is not None:
        problems.append(error(rel_path, lost, "the imported note would not reproduce this line; not imported "
                              "(please report this)", "round-trip"))
    return fm, body, sorted(problems, key=lambda d: d.line)


def _first_difference(lines: list[str], header_end: int, rebuilt: str) -> int | None:
    """First 1-based line where ``rebuilt`` differs from ``lines`` (header lines compared without trailing blanks)."""
    again = rebuilt.split("\n")
    for k, (a, b) in enumerate(zip(lines, again)):
        if a != b and (k >= header_end or a.rstrip() != b.rstrip()):
            return k + 1
    return None if len(lines) == len(again) else min(len(lines), len(again)) + 1


def _fallback_title(lines: list[str], body_start: int, path: str, slug: str) -> tuple[str, Diagnostic]:
    """The first ``# heading`` of the body (left there), else the file name."""
    for k in range(body_start, len(lines)):
        if m := _TITLE.match(lines[k].rstrip()):
            return m["value"], warning(path, k + 1, "no `# Title` at the top; title taken from this line, "
                                       "which stays in the body", "no-title")
    return slug.replace("_", " "), warning(path, 1, "no `# Title` line; title made from the file name", "no-title")


def _header_problems(path: str, lines: list[str], head: _Header, has_meta: bool) -> list[Diagnostic]:
    problems = []
    nxt = next((k for k in range(head.end, len(lines)) if lines[k].strip()), len(lines))
    if nxt < len(lines) and nxt <= head.end + 1 and (head.title is not None or has_meta) \
            and not lines[nxt].startswith("#") and _LOOKS_META.search(lines[nxt]):
        problems.append(warning(path, nxt + 1, "looks like a metadata line but is not `**label**: value`; "
                                "it and the lines after it stay in the body", "bad-meta-line"))
    if not has_meta and not head.front_matter:
        line = head.title + 2 if head.title is not None else 1
        problems.append(warning(path, line, "no metadata lines (`**会议**: …`) at the top; "
                                "links and keywords left empty", "no-metadata"))
    return problems


def _canonical_header(fm: dict[str, Any]) -> list[str]:
    """Line templates of the canonical header for the fields of ``fm``."""
    meta = fm.get("meta", {})
    present = [label for label in CANON_ORDER if label in meta or _field(fm, LABELS[label.casefold()]) is not None]
    present += [label for label in meta if label not in present]
    return ["# {}", "", *(f"**{label}**: {{}}" for label in present)]


def header_lines(fm: dict[str, Any]) -> list[str]:
    """The source lines (title, metadata…) that the front matter ``fm`` stands for."""
    templates = fm.get(HEADER_KEY) or _canonical_header(fm)
    meta = {k: list(v) if isinstance(v, list) else v for k, v in fm.get("meta", {}).items()}
    out = []
    for template in templates:
        if not template.endswith(_PLACEHOLDER):
            out.append(template)
            continue
        prefix = template[:-len(_PLACEHOLDER)]
        label = label_of(prefix + "x")
        if label is None:
            out.append(prefix + fm.get("title", ""))
        elif label in meta:
            value = meta[label]
            out.append(prefix + ((value.pop(0) if value else "") if isinstance(value, list) else str(value)))
        else:
            kind = LABELS.get(label.casefold(), "")
            out.append(prefix + _canonical(kind, _field(fm, kind)))
    return out


def source_text(fm: dict[str, Any], body: str) -> str:
    """Invert ``convert_note``: the source text up to BOM, CRLF and trailing blanks of header lines."""
    if HEADER_KEY in fm and not fm[HEADER_KEY]:
        return body
    return "\n".join(header_lines(fm)) + "\n" + body


def render_note(fm: dict[str, Any], body: str) -> str:
    """The imported file: YAML front matter, then the body verbatim."""
    return frontmatter.render(fm, body)


def as_translation(text: str, lang: str, digest: str) -> str:
    """An imported note (``render_note``'s text) from a twin tree, as the ``lang`` translation of the note
    imported from DOCS, whose ``text_digest`` was ``digest`` when the twin matched it."""
    return _with(text, {"lang": lang, translation.KEY: translation.to_front(digest)})


def as_original(text: str, lang: str) -> str:
    """An imported note with its language said: a DOCS note of a twin import, or a twin note DOCS does not have."""
    return _with(text, {"lang": lang})


def _with(text: str, fields: dict[str, Any]) -> str:
    """``text``, as ``render_note`` wrote it, with ``fields`` (written by ``frontmatter.dump``) after its
    ``domain:`` line, a slug on one line. Spliced, not read and written again: rendering is most of an import's
    time, and ``frontmatter.update`` reads its result back to check it."""
    close = text.find("\n---\n")
    domain = _DOMAIN_LINE.search(text, 0, close + 1)
    at = domain.end() if domain is not None else close + 1
    return text[:at] + frontmatter.dump(fields) + text[at:]


_DOMAIN_LINE = re.compile(r"^domain:[^\n]*\n", re.MULTILINE)
