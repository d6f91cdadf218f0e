"""``papernotes new``: scaffold one note with front matter and the canonical sections.

In: title, venue, domain (and optional language, slug, links, authors,
abstract) and the taxonomy; or a paper's PDF, whose first page gives what the
options leave out (``from_pdf``). Out: a new file
``CORPUS/{venue}/{domain}/{slug}.md``, written atomically, with the PDF copied
beside it (``slug.md`` ↔ ``slug.pdf``); an existing file is never overwritten,
and nothing is written when an input is wrong (a venue or domain outside the
taxonomy, a PDF that cannot be read or whose paper the corpus has, included).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from papernotes.corpus.frontmatter import dump
from papernotes.corpus.model import SECTIONS
from papernotes.disk import atomic_write
from papernotes.errors import PapernotesError
from papernotes.intake.ingest import CorpusState
from papernotes.intake.paper import cache_dir, read_paper
from papernotes.intake.sources import Paper
from papernotes.intake.venues import resolve_venue
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
    authors: tuple[str, ...] = ()
    abstract: str = ""
    pdf: Path | None = None
    """The paper's PDF, copied beside the note."""
    review: str = ""
    """Why a person should look at the note (what its PDF did not give plainly); written as ``review:``."""


def note_text(spec: NewNote, note_id: str) -> str:
    head = dump({"id": note_id, "title": spec.title, "venue": spec.venue, "domain": spec.domain})
    # `topics: []` would pin "no topics"; leave the key commented so the taxonomy rules apply
    head += "# topics: []  (omit to let the taxonomy rules assign topics)\n"
    rest: dict[str, object] = {"authors": list(spec.authors)} if spec.authors else {}
    rest["keywords"] = []
    if links := {k: v for k, v in (("arxiv", spec.arxiv), ("code", spec.code)) if v}:
        rest["links"] = links
    if spec.abstract:
        rest["abstract"] = spec.abstract
    rest["lang"] = spec.lang
    if spec.review:  # `check` lists the note until a person has looked at it and removed the key
        rest["review"] = spec.review
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
    data = None
    if spec.pdf is not None:
        if path.with_suffix(".pdf").exists():
            raise ScaffoldError(f"{path.with_suffix('.pdf')}: already exists; choose another --slug")
        try:
            data = spec.pdf.read_bytes()
        except OSError as exc:
            raise ScaffoldError(f"{spec.pdf}: cannot read: {exc.strerror}") from None
    atomic_write(path, note_text(spec, f"{spec.venue.lower()}-{slug}"))
    if data is not None:
        atomic_write(path.with_suffix(".pdf"), data)
    return path


def from_pdf(corpus: Path, spec: NewNote, pdf: Path, taxonomy: Taxonomy) -> NewNote:
    """``spec`` with what it leaves empty (title, venue, arXiv id, authors, abstract) read from the PDF's first page.

    Raises ``PaperError`` when the PDF cannot be read, ``ScaffoldError`` when it gives no title or venue, or
    when the corpus has the paper already (the same arXiv id or title, as ``ingest`` tells duplicates). What the
    page did not give plainly (its title from the metadata, no author names), unless the options give it, is the
    result's ``review``.
    """
    paper = read_paper(pdf, cache_dir(corpus) if corpus.is_dir() else None)
    title, arxiv = spec.title or paper.title, spec.arxiv or paper.arxiv
    if corpus.is_dir() and (found := CorpusState(corpus).find(Paper(title, arxiv=arxiv))) is not None:
        raise ScaffoldError(f"{pdf}: the paper of {found.path} (the same arXiv id or title); "
                            "`papernotes ingest pdf` files its PDF beside that note")
    venue = spec.venue or (resolve_venue((paper.venue_text,), None, taxonomy) if paper.venue_text else "")
    authors = spec.authors or paper.authors
    doubts = [d for d in paper.doubts if not (spec.title and "title" in d or authors and "author" in d)]
    problems = []
    if not title:
        problems.append(f"{pdf}: no title on its first page; pass --title")
    if not venue:
        says = f" (it says {paper.venue_text!r})" if paper.venue_text else ""
        problems.append(f"{pdf}: no venue printed on its first page{says}; pass --venue")
    if problems:
        raise ScaffoldError(*problems)
    return replace(spec, title=title, venue=venue, arxiv=arxiv, authors=authors,
                   abstract=spec.abstract or paper.abstract, pdf=pdf, review="; ".join(doubts))
