"""``papernotes new``: scaffold one note with front matter and the canonical sections.

In: title, venue, domain (and optional language, slug, links) and the taxonomy.
Out: a new file ``CORPUS/{venue}/{domain}/{slug}.md``, written atomically; an
existing file is never overwritten, and nothing is written when an input is
wrong (a venue or domain outside the taxonomy included).
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
    """The note cannot be made as asked; ``problems`` lists every reason (nothing was written)."""

    exit_code = 2

    def __init__(self, *problems: str) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


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


def create_note(corpus: Path, spec: NewNote, taxonomy: Taxonomy) -> Path:
    """Write the scaffold and return its path; a ``ScaffoldError`` (and no file) when any input is wrong.

    The venue and domain must be in the taxonomy (the same rule as ``check`` and
    ``build``), so a typo is caught here, with the closest names, not published.
    """
    problems: list[str] = []
    if not spec.title.strip():
        problems.append("the title must not be empty")
    if not VENUE_ID.match(spec.venue):
        problems.append(f"venue {spec.venue!r} must look like ICML2026")
    elif (unknown := taxonomy.venue_problem(spec.venue)) is not None:
        problems.append(unknown)
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", spec.domain):
        problems.append(f"domain {spec.domain!r} must be a slug such as optimization")
    elif (unknown := taxonomy.domain_problem(spec.domain)) is not None:
        problems.append(unknown)
    if spec.lang not in ("zh", "en"):
        problems.append("--lang must be zh or en")
    slug = spec.slug or slugify(spec.title)
    if spec.title.strip() and (not slug or "/" in slug):
        problems.append(f"cannot make a file name from {spec.title!r}; pass --slug")
    if problems:
        raise ScaffoldError(*problems)
    path = corpus / spec.venue / spec.domain / f"{slug}.md"
    if path.exists():
        raise ScaffoldError(f"{path}: already exists; choose another --slug")
    atomic_write(path, note_text(spec, f"{spec.venue.lower()}-{slug}"))
    return path
