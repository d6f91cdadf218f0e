"""``papernotes new``: scaffold one note with front matter and the canonical sections.

In: title, venue, domain (and optional language, slug, links). Out: a new file
``CORPUS/{venue}/{domain}/{slug}.md``, written atomically; an existing file is
never overwritten.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from papernotes.corpus.frontmatter import dump
from papernotes.errors import PapernotesError
from papernotes.corpus.model import SECTIONS
from papernotes.site.publish import atomic_write
from papernotes.taxonomy import VENUE_ID, Taxonomy, slugify

RATING_LINES = {
    "zh": ["- 新颖性: ", "- 实验充分度: ", "- 写作质量: ", "- 价值: "],
    "en": ["- Novelty: ", "- Experiments: ", "- Writing: ", "- Value: "],
}


class ScaffoldError(PapernotesError):
    exit_code = 2


@dataclass(frozen=True, slots=True)
class NewNote:
    title: str
    venue: str
    domain: str
    lang: str = "zh"
    slug: str = ""
    arxiv: str = ""
    code: str = ""


def note_text(spec: NewNote, note_id: str) -> str:
    head = dump({"id": note_id, "title": spec.title, "venue": spec.venue, "domain": spec.domain})
    # `topics: []` would pin "no topics"; leave the key commented so the taxonomy rules apply
    head += "# topics: []  (omit to let the taxonomy rules assign topics)\n"
    rest: dict[str, object] = {"keywords": []}
    if links := {k: v for k, v in (("arxiv", spec.arxiv), ("code", spec.code)) if v}:
        rest["links"] = links
    rest["lang"] = spec.lang
    head += dump(rest)
    parts = [f"---\n{head}---\n"]
    for key, (zh, en, _) in SECTIONS.items():
        parts.append(f"\n## {en if spec.lang == 'en' else zh}\n")
        if key == "ratings":
            parts.append("\n".join(RATING_LINES[spec.lang]) + "\n")
    return "".join(parts)


def create_note(corpus: Path, spec: NewNote, taxonomy: Taxonomy) -> tuple[Path, list[str]]:
    """Write the scaffold; returns its path and advisory messages (unknown venue/domain)."""
    if not spec.title.strip():
        raise ScaffoldError("the title must not be empty")
    if not VENUE_ID.match(spec.venue):
        raise ScaffoldError(f"venue {spec.venue!r} must look like ICML2026")
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", spec.domain):
        raise ScaffoldError(f"domain {spec.domain!r} must be a slug such as optimization")
    if spec.lang not in ("zh", "en"):
        raise ScaffoldError("--lang must be zh or en")
    slug = spec.slug or slugify(spec.title)
    if not slug or "/" in slug:
        raise ScaffoldError(f"cannot make a file name from {spec.title!r}; pass --slug")
    notes: list[str] = []
    if not taxonomy.venue(spec.venue).known:
        notes.append(f"venue {spec.venue} is not in the taxonomy; it will be shown with a default icon")
    if not taxonomy.domain(spec.domain).known:
        known = ", ".join(sorted(taxonomy.domains))
        notes.append(f"domain {spec.domain} is not in the taxonomy (known: {known})")
    path = corpus / spec.venue / spec.domain / f"{slug}.md"
    if path.exists():
        raise ScaffoldError(f"{path}: already exists; choose another --slug")
    atomic_write(path, note_text(spec, f"{spec.venue.lower()}-{slug}"))
    return path, notes
