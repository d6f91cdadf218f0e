"""Ingest stage: papers from a source become stub notes in the corpus.

In: ``Paper`` records from ``papernotes.intake.sources``, the corpus directory and an
optional ``--venue``. Out: one stub note per new paper at ``{VENUE}/{slug}.md``
(front matter only: ``id``, ``title``, ``venue``, ``authors``, ``keywords``,
``links``, ``abstract``, ``status: stub``; no ``domain`` yet, which
``classify --apply`` writes into the front matter). A corpus folder that does
not exist yet is created.

Duplicates are merged, never doubled: papers with the same arXiv id, OpenReview
forum or normalised title are folded into one, and a paper already in the
corpus (found by scanning every note's front matter) only fills the missing
fields and links of a stub that nobody edited since ingest wrote it. Written
notes and their hashes are kept in ``.papernotes/ingest-manifest.json``: a hash
that no longer matches means the note was edited (or drafted) and is left alone.

A paper that comes with its PDF (the ``pdf`` source) has it copied beside its
note (``VENUE/slug.md`` ↔ ``VENUE/slug.pdf``), new or existing, edited or not:
the PDF changes nothing the user wrote. A note that already has a different
PDF keeps it, with a warning.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from papernotes.config import CACHE_DIR, load_config, load_site_taxonomy
from papernotes.corpus import frontmatter
from papernotes.corpus.frontmatter import DELETE, KEY_ORDER, FrontMatterError
from papernotes.corpus.load import read_note
from papernotes.corpus.scan import scan
from papernotes.corpus.model import LINK_KINDS
from papernotes.disk import atomic_write
from papernotes.errors import CorpusError, Diagnostic, error, warning
from papernotes.intake.paper.cache import cache_dir
from papernotes.intake.sources import SOURCES, Paper, SourceRequest, load_source
from papernotes.intake.venues import normalise_venue, resolve_venue
from papernotes.intake.plausible import title_problem
from papernotes.taxonomy import Taxonomy, cut_words, slugify

MANIFEST = "ingest-manifest.json"
MANIFEST_EVERY = 100
"""Notes written between manifest saves; a crash in between only loses merge-ability, not notes."""


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What one ``papernotes ingest`` run did; paths are relative to the corpus."""

    read: int
    """Papers the source returned."""
    folded: int
    """Papers merged into another paper of the same run (same arXiv id or title)."""
    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    """Stubs untouched since ingest that gained fields or links."""
    existing: tuple[str, ...] = ()
    """Papers already in the corpus whose note was left as it is."""
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    new_corpus: bool = False
    """The corpus folder did not exist and was created for the new stubs."""
    pdfs: tuple[str, ...] = ()
    """PDFs filed beside their notes (``VENUE/slug.pdf``)."""


# ---------------------------------------------------------------- note text

def render_note(front: dict[str, Any], body: str = "") -> str:
    """A new note's text: front matter in ``KEY_ORDER`` then ``body``."""
    body = body.strip("\n")
    return frontmatter.render(front, f"\n{body}\n" if body else "", order=KEY_ORDER)


def _links(paper: Paper) -> dict[str, str]:
    links = dict(paper.links)
    if paper.arxiv:
        links["arxiv"] = f"https://arxiv.org/abs/{paper.arxiv}"
    return {k: links[k] for k in sorted(links, key=lambda k: LINK_KINDS.index(k) if k in LINK_KINDS else 99)}


def stub_front(paper: Paper, note_id: str) -> dict[str, Any]:
    front: dict[str, Any] = {"id": note_id, "title": paper.title, "venue": paper.venue}
    if paper.authors:
        front["authors"] = list(paper.authors)
    if paper.keywords:
        front["keywords"] = list(paper.keywords)
    if links := _links(paper):
        front["links"] = links
    if paper.abstract:
        front["abstract"] = paper.abstract
    front["status"] = "stub"
    if paper.review:  # `check` lists the note until a person has looked at it and removed the key
        front["review"] = paper.review
    return front


def merge_front(front: dict[str, Any], paper: Paper) -> dict[str, Any]:
    """``front`` with missing authors/abstract/keywords filled and links added from ``paper``."""
    merged = dict(front)
    for key, value in (("authors", list(paper.authors)), ("abstract", paper.abstract),
                       ("keywords", list(paper.keywords))):
        if value and not merged.get(key):
            merged[key] = value
    links = merged.get("links") or {}
    if isinstance(links, dict):
        new = dict(links)
        for kind, url in _links(paper).items():
            new.setdefault(kind, url)
        if new != links:
            merged["links"] = {k: new[k] for k in sorted(new, key=lambda k: LINK_KINDS.index(k)
                                                         if k in LINK_KINDS else 99)}
    return merged


# ---------------------------------------------------------------- merging papers

def merge_papers(a: Paper, b: Paper) -> Paper:
    """``a`` with ``b``'s fields where ``a`` has none; a conference venue beats an arXiv one."""
    links = dict(a.links)
    for kind, url in b.links:
        links.setdefault(kind, url)
    keywords = list(a.keywords) + [k for k in b.keywords if k.casefold() not in {x.casefold() for x in a.keywords}]
    venue, hints, year = a.venue, a.venue_hints, a.year
    a_arxiv = not a.venue_hints or all("arxiv" in h.casefold() for h in a.venue_hints)
    if (not a.venue and b.venue) or (a_arxiv and b.venue_hints and not all("arxiv" in h.casefold()
                                                                           for h in b.venue_hints)):
        venue, hints, year = b.venue or a.venue, b.venue_hints + a.venue_hints, b.year or a.year
    return replace(
        a, authors=a.authors or b.authors, abstract=a.abstract or b.abstract, venue=venue, venue_hints=hints,
        year=year or b.year, arxiv=a.arxiv or b.arxiv, links=tuple(links.items()), keywords=tuple(keywords),
        origin=a.origin + b.origin, pdf=a.pdf or b.pdf,
    )


def fold_duplicates(papers: list[Paper]) -> list[Paper]:
    """Papers sharing any identity key merged into the first of them, in source order."""
    out: list[Paper] = []
    owner: dict[str, int] = {}
    for paper in papers:
        index = next((owner[k] for k in paper.keys() if k in owner), None)
        if index is None:
            index = len(out)
            out.append(paper)
        else:
            out[index] = merge_papers(out[index], paper)
        for key in out[index].keys():
            owner.setdefault(key, index)
    return out


# ---------------------------------------------------------------- corpus state

@dataclass(frozen=True, slots=True)
class _Existing:
    path: str
    digest: str


class CorpusState:
    """Existing notes by identity key, taken slugs and ids, and the ingest manifest."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.by_key: dict[str, _Existing] = {}
        self.slugs: set[tuple[str, str]] = set()
        self.ids: set[str] = set()
        for source in sorted(scan(root), key=lambda f: f.path):
            note, _, digest = read_note(root, source.path)
            if note is None:
                continue
            item = _Existing(source.path, digest)
            for key in Paper(note.title, arxiv=note.arxiv_id, links=note.links).keys():
                self.by_key.setdefault(key, item)
            self.slugs.add((source.path.split("/", 1)[0], note.slug))
            self.ids.add(note.id)
        self.manifest_path = root / CACHE_DIR / MANIFEST
        self.manifest: dict[str, dict[str, Any]] = self._load_manifest()
        self.gone = {k for p, entry in self.manifest.items() if not (root / p).exists() for k in entry.get("keys", [])}

    def _load_manifest(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # absent or unreadable: every note counts as hand-made, never overwritten
            return {}
        notes = data.get("notes") if isinstance(data, dict) else None
        return {k: v for k, v in notes.items() if isinstance(v, dict)} if isinstance(notes, dict) else {}

    def save_manifest(self) -> None:
        payload = {"version": 1, "notes": dict(sorted(self.manifest.items()))}
        atomic_write(self.manifest_path, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")

    def find(self, paper: Paper) -> _Existing | None:
        return next((self.by_key[k] for k in paper.keys() if k in self.by_key), None)

    def unedited(self, item: _Existing) -> bool:
        """The note is as ingest wrote it, apart from a ``draft_error`` a failed draft may have added."""
        entry = self.manifest.get(item.path)
        if entry is None:
            return False
        if entry.get("sha1") == item.digest:
            return True
        try:
            text = (self.root / item.path).read_bytes().decode("utf-8")
            before_draft = frontmatter.update(text, {"draft_error": DELETE})
        except (OSError, UnicodeDecodeError, FrontMatterError):
            return False
        return hashlib.sha1(before_draft.encode("utf-8")).hexdigest() == entry.get("sha1")

    def new_path(self, paper: Paper) -> tuple[str, str]:
        """``(relative path, note id)`` for a new stub; slugs are unique per venue, ids per corpus."""
        # a file name from a plausible title only (a PDF's title may be the fallback its reader warned of)
        plausible = paper.title if title_problem(paper.title) is None else ""
        base = slugify(plausible) or (paper.arxiv.replace(".", "_") if paper.arxiv else "paper")
        slug, n = base, 1
        while (paper.venue, slug) in self.slugs:
            n += 1
            slug = f"{base}_{n}"
        self.slugs.add((paper.venue, slug))
        stem = cut_words(slug.replace("_", "-"), 60, "-")
        note_id, n = f"{paper.venue.lower()}-{stem}", 1
        while note_id in self.ids:
            n += 1
            note_id = f"{paper.venue.lower()}-{stem}-{n}"
        self.ids.add(note_id)
        return f"{paper.venue}/{slug}.md", note_id

    def record(self, rel: str, text: str, paper: Paper) -> None:
        digest = hashlib.sha1(text.encode("utf-8")).hexdigest()
        item = _Existing(rel, digest)
        for key in paper.keys():
            self.by_key[key] = item
        keys = sorted(set(self.manifest.get(rel, {}).get("keys", [])) | set(paper.keys()))
        self.manifest[rel] = {"sha1": digest, "keys": keys}


# ---------------------------------------------------------------- the stage

def _with_venue(paper: Paper, forced: str, taxonomy: Taxonomy, printed: bool) -> Paper:
    """``--venue`` wins over what a source says, except over the venue a paper prints (``printed``)."""
    found = resolve_venue(paper.venue_hints, paper.year, taxonomy)
    return replace(paper, venue=(found or forced) if printed else (forced or found))


def ingest(corpus: Path, source: str, request: SourceRequest, venue: str | None = None) -> IngestResult:
    """Read ``source`` and write stub notes for its new papers into ``corpus`` (created when it does not exist)."""
    if corpus.exists() and not corpus.is_dir():
        raise CorpusError(f"{corpus}: not a directory")
    config, _ = load_config(corpus)
    taxonomy = load_site_taxonomy(corpus, config)
    forced = ""
    if venue:
        forced = normalise_venue(venue, taxonomy)
        if not forced:
            raise CorpusError(f"--venue {venue!r} is not a venue id such as ICML2026")
    if corpus.is_dir():  # a source that reads PDFs fills the corpus's paper cache, which draft reads from
        request = replace(request, cache=cache_dir(corpus))
    loaded = load_source(source, request)
    problems = list(loaded.diagnostics)
    printed = SOURCES.get(source).venue_printed
    folded = fold_duplicates([_with_venue(p, forced, taxonomy, printed) for p in loaded.papers])
    problems.extend(_pdfs_folded(loaded.papers, folded))
    new_corpus = not corpus.exists()
    if new_corpus and not folded:  # nothing to add: no empty corpus folder either
        return IngestResult(len(loaded.papers), 0, diagnostics=tuple(problems))
    if new_corpus:  # only once the source was read: a failed ingest leaves no empty folder behind
        try:
            corpus.mkdir(parents=True)
        except OSError as exc:
            raise CorpusError(f"{corpus}: cannot create the corpus folder: {exc.strerror}") from None
    state = CorpusState(corpus)
    created: list[str] = []
    updated: list[str] = []
    existing: list[str] = []
    pdfs: list[str] = []
    unsaved = 0
    try:
        for paper in folded:
            found = state.find(paper)
            if found is not None:
                if state.unedited(found) and (text := _merged_text(corpus / found.path, paper)) is not None:
                    atomic_write(corpus / found.path, text)
                    state.record(found.path, text, paper)
                    updated.append(found.path)
                    unsaved += 1
                else:
                    existing.append(found.path)
                _file_pdf(corpus, found.path, paper, pdfs, problems)
            elif state.gone.intersection(paper.keys()):
                continue  # ingested before, then deleted by the user: do not bring it back
            elif not paper.venue:
                hint = f" (the source says {paper.venue_hints[0]!r})" if paper.venue_hints else ""
                problems.append(error(*_where(paper, source), f"no venue for {paper.title!r}{hint}; pass --venue",
                                      "no-venue"))
            else:
                rel, note_id = state.new_path(paper)
                text = render_note(stub_front(paper, note_id))
                atomic_write(corpus / rel, text)
                state.record(rel, text, paper)
                created.append(rel)
                unsaved += 1
                _file_pdf(corpus, rel, paper, pdfs, problems)
            if unsaved >= MANIFEST_EVERY:
                state.save_manifest()
                unsaved = 0
    finally:
        if unsaved:
            state.save_manifest()
    return IngestResult(len(loaded.papers), len(loaded.papers) - len(folded), tuple(created),
                        tuple(dict.fromkeys(updated)), tuple(dict.fromkeys(existing)), tuple(problems), new_corpus,
                        tuple(pdfs))


def _where(paper: Paper, source: str) -> tuple[str, int]:
    """``(path, line)`` of a paper's first origin (``refs.bib:12``) for diagnostics."""
    origin = paper.origin[0] if paper.origin else source
    path, _, line = origin.rpartition(":")
    return (path, int(line)) if path and line.isdigit() else (origin, 0)


def _merged_text(path: Path, paper: Paper) -> str | None:
    """The stub's new text with ``paper`` merged into its front matter; ``None`` when nothing changes."""
    try:
        text = path.read_bytes().decode("utf-8")
        front, _, _ = frontmatter.read(text)
    except (OSError, UnicodeDecodeError, FrontMatterError):
        return None
    merged = merge_front(front, paper)
    if merged == front:
        return None
    changes = {k: v for k, v in merged.items() if k not in front or front[k] != v}
    changes["draft_error"] = DELETE  # the new fields may be what the draft lacked; let it try again
    try:
        return frontmatter.update(text, changes, order=KEY_ORDER)
    except FrontMatterError:
        return None


# ---------------------------------------------------------------- PDFs beside notes

def _file_pdf(corpus: Path, note: str, paper: Paper, filed: list[str], problems: list[Diagnostic]) -> None:
    """Copy ``paper.pdf`` beside ``note`` unless the note has a PDF already (the same one, or another: say so)."""
    if paper.pdf is None:
        return
    rel = PurePosixPath(note).with_suffix(".pdf").as_posix()
    try:
        data = paper.pdf.read_bytes()
        present = (corpus / rel).read_bytes() if (corpus / rel).is_file() else None
    except OSError as exc:
        problems.append(error(str(paper.pdf), 0, f"cannot read: {exc.strerror}; not filed", "unreadable"))
        return
    if present is None:
        atomic_write(corpus / rel, data)
        filed.append(rel)
    elif present != data:
        problems.append(warning(str(paper.pdf), 0, f"not filed: {note} already has another PDF ({rel}), kept",
                                "pdf-exists"))


def _pdfs_folded(papers: tuple[Paper, ...], folded: list[Paper]) -> list[Diagnostic]:
    """A warning for each PDF whose paper was folded into one that brought its own: one PDF per note."""
    owner = {key: paper for paper in folded for key in paper.keys()}
    found = []
    for paper in papers:
        first = next((owner[k] for k in paper.keys() if k in owner), None)
        if paper.pdf is not None and first is not None and first.pdf not in (None, paper.pdf):
            found.append(warning(str(paper.pdf), 0, f"the same paper as {first.pdf}, whose PDF is filed; not filed",
                                 "duplicate"))
    return found
