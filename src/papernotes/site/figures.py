"""Figures stage, the build's edge to the PDFs: the paper beside a note becomes the figures its page shows.

In: entries whose note has a PDF beside it (``Note.paper``, found by the load stage), the corpus root, the
reading cache and the image folder. Out: a ``NoteFigures`` per note (the teaser, the figures front matter asks
for, and the problems met).

Which figures a PDF has (labels, pages, boxes, captions) is its figure record in the reading cache
(``papernotes.intake.paper.cache``, ``CORPUS/.papernotes/papers/``): the one reading a paper stores, so a
paper drafted or checked before is never searched for figures again; for a paper never read, its figures alone
are found (``intake.paper.read.figure_record``) and stored there for reading to reuse. What is the site's own is
kept in ``CORPUS/.papernotes/figures/``: the rendered images (``ab/<key>.webp``, the key naming the PDF, the
figure, its box, the width and the rendering code: ``image_key``), which of them exist or why one could not be
rendered (``images.marshal``), and which PDF has which digest (``digests.marshal``: a PDF is hashed only when
its path, mtime or size is new, as the note cache does). A rebuild or another site of the corpus reuses them.

Detection and rendering are ``papernotes.intake.paper`` (pypdfium2, the ``pdf`` extra), imported only when a
planned note has a PDF; without the extra the pages build without figures and say why once. A cold cache is
filled by forked workers (``prepare``, through ``forks.share``) before the pages are planned.
"""
from __future__ import annotations

import functools
import hashlib
import marshal
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from papernotes.codeversion import code_version
from papernotes.corpus.scan import OutsideCorpus, read_inside
from papernotes.corpus.model import Entry, Note
from papernotes.disk import atomic_write
from papernotes.errors import Diagnostic, warning
from papernotes.extras import available, missing_message
from papernotes.forks import can_fork, share
from papernotes.layout import CONFIG_NAME
from papernotes.site.contexts import FigureFile, FigureView, Page

if TYPE_CHECKING:
    from papernotes.intake.paper.cache import FigureRecord
    from papernotes.intake.paper.model import Figure

MAX_PDF_BYTES = 256 << 20
"""A PDF larger than this is not read for figures."""
MIN_WIDTH = 800
"""Images are rendered at least this many pixels wide."""
RENDERER = "papernotes.intake.paper.picture"
"""The module whose code (``code_version``) renders the images: a change of it renders them again."""
FIGURE_TEMPLATE = "figure"
"""``Page.template`` of an image file copied beside a note's page (``Theme.render`` copies its bytes)."""
PARALLEL_PAPERS = 8
"""From this many papers to read, a cold cache is filled by forked workers."""

Image = tuple[str, int, int, str]
"""``(file name, width, height, why not rendered)``: a name and no reason, or a reason and no name."""


@dataclass(frozen=True, slots=True)
class NoteFigures:
    """What a note's page shows of its paper."""

    teaser: FigureView | None
    figures: tuple[FigureView, ...]
    files: tuple[tuple[str, FigureFile], ...]
    """``(site-relative URL, file)`` of every image the page shows."""
    problems: tuple[Diagnostic, ...]


def figure_pages(shown: NoteFigures | None) -> list[Page]:
    """The image files of a note's page, as pages of their own (fingerprinted, published and removed as
    pages are)."""
    if shown is None:
        return []
    return [Page(url, FIGURE_TEMPLATE, url.rpartition("/")[2], file) for url, file in shown.files]


def image_key(sha: str, figure: Figure) -> str:
    """The name of the image of ``figure`` of the PDF ``sha``: a box a new reader moves, another width or new
    rendering code make another image, never a stale one under the old name."""
    made = f"{figure.page}:{','.join(f'{v:.2f}' for v in figure.bbox)}:{MIN_WIDTH}:{code_version(RENDERER)}"
    return f"{sha}-{figure.number}-{hashlib.sha256(made.encode()).hexdigest()[:12]}"


@dataclass
class FigureStore:
    """The figures of one corpus's PDFs, as its sites show them; ``of`` is memoised for a build."""

    root: Path
    folder: Path
    """The site's images, ``images.marshal`` and ``digests.marshal``."""
    enabled: bool = True
    """``figures`` in papernotes.toml."""
    workers: int = 1
    papers: Path | None = None
    """The reading cache the figure records are in (``CORPUS/.papernotes/papers/`` when ``None``)."""
    _digests: dict[str, tuple[int, int, str]] | None = field(default=None, repr=False)
    _images: dict[str, Image] | None = field(default=None, repr=False)
    _dirty: bool = field(default=False, repr=False)
    _records: dict[str, FigureRecord] = field(default_factory=dict, repr=False)
    _shown: dict[tuple[str, str, str], NoteFigures | None] = field(default_factory=dict, repr=False)

    # -- what a page shows

    def of(self, note: Note, url: str) -> NoteFigures | None:
        """The figures the page of ``note`` (at ``url``) shows; ``None`` when it shows none."""
        if not (self.enabled and note.paper and note.show_figures):
            return None
        key = (note.path, note.digest, url)  # the digest stands for the note's text and its PDF's stat
        if key not in self._shown:
            self._shown[key] = self._make(note, url)
        return self._shown[key]

    def _make(self, note: Note, url: str) -> NoteFigures | None:
        if not _renderer_available():
            message = (f"{missing_message('pypdfium2', 'showing the figures of the PDFs beside notes')}; "
                       "or set `figures = false`")
            return NoteFigures(None, (), (), (warning(CONFIG_NAME, 0, message, "figures"),))
        sha = self._digest(note.paper)
        if sha is None:
            return None  # gone since the scan: the next build sees it
        record = self._record(note.paper, sha)
        if record.error:
            return NoteFigures(None, (), (), (warning(note.paper, 0, f"no figures shown: {record.error}",
                                                      "figures"),))
        by_number = shown_figures(record)
        wanted = wanted_figures(by_number, note.figures)
        problems = []
        for n in note.figures:
            if n not in by_number:
                has = (f"its figures are {', '.join(map(str, by_number))}" if by_number
                       else "no figure was found in it")
                problems.append(warning(note.path, note.line_of("figures"),
                                        f"`figures`: {note.paper} has no Figure {n} ({has})", "figures"))
        images = self._rendered(note.paper, sha, [by_number[n] for n in wanted])
        views, files = [], []
        for n in wanted:
            name, width, height, failed = images[n]
            if failed:
                problems.append(warning(note.paper, 0, f"Figure {n} not shown: {failed}", "figures"))
                continue
            fmt = name.rpartition(".")[2]
            site_url = f"{url}figure-{n}.{fmt}"
            views.append(FigureView(n, by_number[n].label, by_number[n].caption, site_url, width, height))
            files.append((site_url, FigureFile(str(self._dir(sha) / name), f"{name}:{width}x{height}")))
        teaser = views[0] if views and wanted and views[0].number == wanted[0] else None
        extra = tuple(views[1:] if teaser is not None else views)
        return NoteFigures(teaser, extra, tuple(files), tuple(problems))

    # -- the PDFs' digests and figure records

    def _dir(self, sha: str) -> Path:
        return self.folder / sha[:2]

    @property
    def digests(self) -> dict[str, tuple[int, int, str]]:
        if self._digests is None:
            self._digests = _load_marshal(self.folder / "digests.marshal")
        return self._digests

    def _digest(self, paper: str) -> str | None:
        """The SHA-256 of the PDF ``paper``, hashed only when its path, mtime or size is new."""
        try:
            st = os.lstat(self.root / paper)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        known = self.digests.get(paper)
        if known is not None and known[:2] == (st.st_mtime_ns, st.st_size):
            return known[2]
        try:
            data = read_inside(self.root, paper, MAX_PDF_BYTES + 1)
        except (OSError, OutsideCorpus):
            return None
        sha = hashlib.sha256(data).hexdigest()
        self.digests[paper] = (st.st_mtime_ns, st.st_size, sha)
        self._dirty = True
        return sha

    @property
    def papers_folder(self) -> Path:
        """The reading cache: ``papers``, else the corpus's (``intake.paper.cache.cache_dir``)."""
        if self.papers is None:
            self.papers = _reading_cache().cache_dir(self.root)
        return self.papers

    def _cached(self, sha: str) -> FigureRecord | None:
        """The figure record of the PDF ``sha`` if this build or the reading cache has it."""
        if sha not in self._records:
            if (found := _reading_cache().load_figures(self.papers_folder, sha)) is None:
                return None
            self._records[sha] = found
        return self._records[sha]

    def _record(self, paper: str, sha: str) -> FigureRecord:
        """The figure record of the PDF ``sha``: cached, else found in the PDF at ``paper`` (and stored)."""
        if (found := self._cached(sha)) is not None:
            return found
        try:
            data = _read_pdf(self.root, paper)
        except (OSError, ValueError) as exc:  # said on the page, not kept: looked at again next build
            return _reading_cache().FigureRecord(sha, (), (), f"cannot read it: {exc}")
        self._records[sha] = record = _find(paper, sha, self.papers_folder, data)
        return record

    # -- the images

    @property
    def images(self) -> dict[str, Image]:
        """Every image rendered (or found unrenderable) by ``image_key``, read in one file."""
        if self._images is None:
            self._images = _load_marshal(self.folder / "images.marshal")
        return self._images

    def _rendered(self, paper: str, sha: str, figures: list[Figure]) -> dict[int, Image]:
        """``number -> image`` of ``figures`` of the PDF ``sha``, rendered when not cached."""
        keys = {f.number: image_key(sha, f) for f in figures}
        missing = [f for f in figures if not self._have(keys[f.number])]
        if missing:
            try:
                self.images.update(_render(self.root, paper, sha, self._dir(sha), missing))
            except (OSError, ValueError) as exc:  # gone or grown since it was hashed: tried again next build
                return {n: self.images.get(key, ("", 0, 0, f"cannot read it: {exc}")) for n, key in keys.items()}
            self._dirty = True
        return {n: self.images[key] for n, key in keys.items()}

    def _have(self, key: str) -> bool:
        """Whether the image ``key`` is rendered (its file there) or known not to render."""
        known = self.images.get(key)
        return known is not None and (bool(known[3]) or (self._dir(key[:64]) / known[0]).is_file())

    def prepare(self, entries: Iterable[Entry]) -> None:
        """Fill the caches for the papers of ``entries`` they lack, on every core (a cold build's bulk)."""
        if not self.enabled or not _renderer_available():
            return
        todo: dict[str, list[int]] = {}  # paper -> numbers asked for besides the teaser
        for entry in entries:
            note = entry.note
            if not (note.paper and note.show_figures):
                continue
            try:
                st = os.lstat(self.root / note.paper)
            except OSError:
                continue
            known = self.digests.get(note.paper)
            if known is not None and known[:2] == (st.st_mtime_ns, st.st_size) and self._ready(
                    known[2], note.figures):
                continue
            todo.setdefault(note.paper, []).extend(note.figures)
        if len(todo) < PARALLEL_PAPERS or self.workers < 2 or not can_fork():
            return  # few (or no safe fork): made one by one as their pages are planned
        code_version(RENDERER)  # once here, not in every worker
        _reading_cache().reader_version()
        self.papers_folder  # noqa: B018 - resolved once here too
        jobs = list(todo.items())
        for paper, st_key, sha, record, images in share(jobs, self._prepare_one, self.workers):
            if sha is None:
                continue
            self.digests[paper] = (*st_key, sha)
            self._records[sha] = record
            self.images.update(images)
            self._dirty = True

    def _ready(self, sha: str, numbers: Iterable[int]) -> bool:
        """Whether the PDF ``sha``'s record and the images a note asks for (teaser, ``numbers``) are cached."""
        record = self._cached(sha)
        if record is None:
            return False
        by_number = shown_figures(record)
        return all(self._have(image_key(sha, by_number[n])) for n in wanted_figures(by_number, numbers))

    def _prepare_one(self, job: tuple[str, list[int]]) -> tuple[str, tuple[int, int], str | None, FigureRecord | None,
                                                                dict[str, Image]]:
        """Worker side of ``prepare`` (forked): hash, find and render one paper's teaser and asked-for figures."""
        paper, numbers = job
        try:
            st = os.lstat(self.root / paper)
            data = _read_pdf(self.root, paper)
        except (OSError, ValueError):
            return paper, (0, 0), None, None, {}
        sha = hashlib.sha256(data).hexdigest()
        record = self._cached(sha) or _find(paper, sha, self.papers_folder, data)
        by_number = shown_figures(record)
        missing = [by_number[n] for n in wanted_figures(by_number, numbers)
                   if not self._have(image_key(sha, by_number[n]))]
        images = _render(self.root, paper, sha, self._dir(sha), missing, data) if missing else {}
        return paper, (st.st_mtime_ns, st.st_size), sha, record, images

    def save(self) -> None:
        """Keep what this build hashed and rendered for the next one."""
        if self._dirty:
            atomic_write(self.folder / "digests.marshal", marshal.dumps(self.digests), durable=False)
            atomic_write(self.folder / "images.marshal", marshal.dumps(self.images), durable=False)
            self._dirty = False


def shown_figures(record: FigureRecord) -> dict[int, Figure]:
    """The figures of a record a page can show, by number: a caption whose picture was not found has none."""
    return {f.number: f for f in record.figures if f.located} if not record.error else {}


def wanted_figures(by_number: dict[int, Figure], asked: Iterable[int]) -> list[int]:
    """The teaser (Figure 1, else the first found), then the figures ``asked`` for that the PDF has."""
    wanted = [1 if 1 in by_number else next(iter(by_number))] if by_number else []
    return list(dict.fromkeys([*wanted, *(n for n in asked if n in by_number)]))


@functools.lru_cache(maxsize=1)
def _renderer_available() -> bool:
    """Whether pypdfium2 and Pillow can be imported (looked up once: 0.2 ms a time, 1,000 notes a build)."""
    return available("pypdfium2") and available("PIL")


def _reading_cache() -> ModuleType:
    """``papernotes.intake.paper.cache``, where the figure records are."""
    # lazy: 37 ms (importtime at load 17, beside papernotes.site.figures: gzip, the record's model); only a
    # build that plans the page of a note with a PDF
    from papernotes.intake.paper import cache

    return cache


def _load_marshal(path: Path) -> dict:  # type: ignore[type-arg]
    try:
        found = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return found if isinstance(found, dict) else {}


def _read_pdf(root: Path, paper: str) -> bytes:
    data = read_inside(root, paper, MAX_PDF_BYTES + 1)
    if len(data) > MAX_PDF_BYTES:
        raise ValueError(f"larger than {MAX_PDF_BYTES >> 20} MB")
    return data


def _find(paper: str, sha: str, papers: Path, data: bytes) -> FigureRecord:
    """Find the figures of the PDF ``data`` (at ``paper``) as reading it does, and store them in the reading
    cache ``papers``."""
    # lazy: 245 ms (importtime at load 17, beside papernotes.site.figures): the reading modules, only for a
    # PDF whose figures were never found
    from papernotes.intake.paper.read import figure_record

    record = figure_record(paper, data, sha)
    try:
        _reading_cache().save_figures(papers, record)
    except OSError:  # a read-only corpus still shows its figures; they are found again next time
        pass
    return record


def _render(root: Path, paper: str, sha: str, folder: Path, figures: list[Figure],
            data: bytes | None = None) -> dict[str, Image]:
    """Render ``figures`` of the PDF ``sha`` into ``folder``: ``image_key -> image``; ``OSError`` or
    ``ValueError`` when the PDF cannot be read."""
    # lazy: 73 ms (importtime, beside papernotes.site.figures): pypdfium2, only for a note with a PDF
    from papernotes.intake.paper.figures import render_figure
    from papernotes.intake.paper.model import PaperError

    data = data if data is not None else _read_pdf(root, paper)
    made: dict[str, Image] = {}
    for figure in figures:
        key = image_key(sha, figure)
        try:
            image = render_figure(data, figure, MIN_WIDTH, paper)
        except PaperError as exc:  # PDFium or Pillow: the page shows the others, and says why (page, figure)
            made[key] = ("", 0, 0, exc.reason)
            continue
        name = f"{key}.{image.format}"
        atomic_write(folder / name, image.data, durable=False)
        made[key] = (name, image.width, image.height, "")
    return made
