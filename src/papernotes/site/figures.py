"""Figures stage, the build's edge to the PDFs: the paper beside a note becomes the figures its page shows.

In: entries whose note has a PDF beside it (``Note.paper``, found by the load stage), the corpus root and
the figure cache folder. Out: a ``NoteFigures`` per note (the teaser, the figures front matter asks for,
and the problems met), each image rendered once per PDF digest and kept in
``CORPUS/.papernotes/figures/`` (``ab/<sha256>.json`` lists a paper's figures, ``ab/<sha256>-<n>.webp``
holds a rendered one), so a rebuild or another site of the corpus reuses them. A PDF is hashed only
when its path, mtime or size is new to the cache (``digests.marshal``), as the note cache does.

Detection and rendering are ``papernotes.intake.paper.figures`` (pypdfium2, the ``pdf`` extra), imported
only when a planned note has a PDF; without the extra the pages build without figures and say why once.
A cold cache is filled by forked workers (``prepare``, through ``forks.share``) before the pages are planned.
"""
from __future__ import annotations

import functools
import hashlib
import json
import marshal
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from papernotes.corpus.load import OutsideCorpus, read_inside
from papernotes.corpus.model import Entry, Note
from papernotes.disk import atomic_write
from papernotes.errors import Diagnostic, warning
from papernotes.extras import missing_message, site_features
from papernotes.forks import can_fork, share
from papernotes.layout import CONFIG_NAME
from papernotes.site.contexts import FigureFile, FigureView, Page

RECORD_VERSION = 1
"""Bumped when what a paper's record holds changes: older records are made again."""
MAX_PDF_BYTES = 256 << 20
"""A PDF larger than this is not read for figures."""
MIN_WIDTH = 800
"""Images are rendered at least this many pixels wide."""
FIGURE_TEMPLATE = "figure"
"""``Page.template`` of an image file copied beside a note's page (``Theme.render`` copies its bytes)."""
PARALLEL_PAPERS = 8
"""From this many papers to read, a cold cache is filled by forked workers."""


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


@dataclass
class FigureStore:
    """The figure cache of one corpus; ``of`` is memoised for a build."""

    root: Path
    folder: Path
    enabled: bool = True
    """``figures`` in papernotes.toml."""
    workers: int = 1
    _digests: dict[str, tuple[int, int, str]] | None = field(default=None, repr=False)
    _dirty: bool = field(default=False, repr=False)
    _records: dict[str, dict[str, Any]] | None = field(default=None, repr=False)
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
        if record["error"]:
            return NoteFigures(None, (), (), (warning(note.paper, 0, f"no figures shown: {record['error']}",
                                                      "figures"),))
        numbers = [f[0] for f in record["figures"]]
        wanted: list[int] = []
        if numbers:
            wanted.append(1 if 1 in numbers else numbers[0])
        problems = []
        for n in note.figures:
            if n not in numbers:
                has = f"its figures are {', '.join(map(str, numbers))}" if numbers else "no figure was found in it"
                problems.append(warning(note.path, note.line_of("figures"),
                                        f"`figures`: {note.paper} has no Figure {n} ({has})", "figures"))
            elif n not in wanted:
                wanted.append(n)
        images = self._images(note.paper, sha, record, wanted)
        views, files = [], []
        by_number = {f[0]: f for f in record["figures"]}
        for n in wanted:
            if n not in images:
                reason = record.get("failed", {}).get(str(n), "not rendered")
                problems.append(warning(note.paper, 0, f"Figure {n} not shown: {reason}", "figures"))
                continue
            name, width, height = images[n]
            fmt = name.rpartition(".")[2]
            site_url = f"{url}figure-{n}.{fmt}"
            _, label, caption = by_number[n]
            views.append(FigureView(n, label, caption, site_url, width, height))
            files.append((site_url, FigureFile(str(self._dir(sha) / name), f"{sha}:{n}:{width}x{height}:{fmt}")))
        teaser = views[0] if views and wanted and views[0].number == wanted[0] else None
        extra = tuple(views[1:] if teaser is not None else views)
        return NoteFigures(teaser, extra, tuple(files), tuple(problems))

    # -- the cache

    def _dir(self, sha: str) -> Path:
        return self.folder / sha[:2]

    @property
    def digests(self) -> dict[str, tuple[int, int, str]]:
        if self._digests is None:
            try:
                self._digests = marshal.loads((self.folder / "digests.marshal").read_bytes())
            except (OSError, EOFError, ValueError, TypeError):
                self._digests = {}
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
    def records(self) -> dict[str, dict[str, Any]]:
        """Every paper's record by SHA-256, read in one file (``records.marshal``; 1,000 files were 0.15 s)."""
        if self._records is None:
            try:
                found = marshal.loads((self.folder / "records.marshal").read_bytes())
            except (OSError, EOFError, ValueError, TypeError):
                found = {}
            ok = isinstance(found, dict) and all(isinstance(r, dict) for r in found.values())
            self._records = {sha: r for sha, r in found.items() if r.get("version") == RECORD_VERSION} if ok else {}
        return self._records

    def _record(self, paper: str, sha: str) -> dict[str, Any]:
        """The figures of the PDF ``sha`` (read from the cache, else from the PDF at ``paper``)."""
        if sha not in self.records:
            record = _load_record(self._dir(sha) / f"{sha}.json")
            if record is None:
                record = _read_figures(self.root, paper, sha, self._dir(sha))
            self.records[sha] = record
            self._dirty = True
        return self.records[sha]

    def _images(self, paper: str, sha: str, record: dict[str, Any], wanted: list[int]) -> dict[int, tuple[str, int, int]]:
        """``number -> (file name, width, height)`` of the ``wanted`` figures, rendered when not cached."""
        # a record names files of its own PDF only (a damaged one is made again, never followed elsewhere)
        images = {int(n): tuple(v) for n, v in record["images"].items()
                  if _own(sha, n, v[0])}
        failed = record.get("failed", {})
        missing = [n for n in wanted if str(n) not in failed and (
            n not in images or not (self._dir(sha) / images[n][0]).is_file())]
        if missing:
            record.update(_render(self.root, paper, sha, self._dir(sha), record, missing))
            self._dirty = True
            images = {int(n): tuple(v) for n, v in record["images"].items()
                      if _own(sha, n, v[0])}
        return images  # type: ignore[return-value]

    def prepare(self, entries: Iterable[Entry]) -> None:
        """Fill the cache for the papers of ``entries`` that it lacks, on every core (a cold build's bulk)."""
        if not self.enabled or not _renderer_available():
            return
        todo: dict[str, tuple[str, list[int]]] = {}  # sha -> (paper, numbers asked for besides the teaser)
        for entry in entries:
            note = entry.note
            if not (note.paper and note.show_figures):
                continue
            try:
                st = os.lstat(self.root / note.paper)
            except OSError:
                continue
            known = self.digests.get(note.paper)
            if known is not None and known[:2] == (st.st_mtime_ns, st.st_size) and (
                    known[2] in self.records or (self._dir(known[2]) / f"{known[2]}.json").is_file()):
                continue
            paper, numbers = todo.setdefault(note.paper, (note.paper, []))
            numbers.extend(note.figures)
        if len(todo) < PARALLEL_PAPERS or self.workers < 2 or not can_fork():
            return  # few (or no safe fork): made one by one as their pages are planned
        jobs = [(str(self.root), str(self.folder), paper, numbers) for paper, numbers in todo.values()]
        for paper, st_key, sha, record in share(jobs, _prepare_one, self.workers):
            if sha is None:
                continue
            self.digests[paper] = (*st_key, sha)
            self.records[sha] = record
            self._dirty = True

    def save(self) -> None:
        """Keep what this build hashed for the next one."""
        if self._dirty:
            atomic_write(self.folder / "digests.marshal", marshal.dumps(self.digests), durable=False)
            atomic_write(self.folder / "records.marshal", marshal.dumps(self.records), durable=False)
            self._dirty = False


def _own(sha: str, number: object, name: object) -> bool:
    """Whether ``name`` is the file this cache renders figure ``number`` of the PDF ``sha`` into."""
    return name in (f"{sha}-{number}.webp", f"{sha}-{number}.png")


@functools.lru_cache(maxsize=1)
def _renderer_available() -> bool:
    """Whether pypdfium2 and Pillow can be imported (looked up once: 0.2 ms a time, 1,000 notes a build)."""
    return "figures" in site_features()


def _load_record(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("version") == RECORD_VERSION else None


def _read_pdf(root: Path, paper: str) -> bytes:
    data = read_inside(root, paper, MAX_PDF_BYTES + 1)
    if len(data) > MAX_PDF_BYTES:
        raise ValueError(f"larger than {MAX_PDF_BYTES >> 20} MB")
    return data


def _read_figures(root: Path, paper: str, sha: str, folder: Path, data: bytes | None = None,
                  write: bool = True) -> dict[str, Any]:
    """Find the figures of the PDF at ``paper`` and write its record (``write``: now, else by the caller)."""
    # lazy: 73 ms (importtime, beside papernotes.site.figures): pypdfium2, only for a note with a PDF
    from papernotes.intake.paper.figures import find_figures
    from papernotes.intake.paper.model import PaperError

    record: dict[str, Any] = {"version": RECORD_VERSION, "figures": [], "images": {}, "error": ""}
    try:
        figures, _ = find_figures(paper, data if data is not None else _read_pdf(root, paper))
        record["figures"] = [[f.number, f.label, f.caption] for f in figures]
        record["boxes"] = [[f.number, f.page, list(f.bbox), f.kind] for f in figures]
    except PaperError as exc:
        record["error"] = exc.reason
    except (OSError, ValueError) as exc:
        record["error"] = f"cannot read it: {exc}"
    if write:
        atomic_write(folder / f"{sha}.json", json.dumps(record, ensure_ascii=False), durable=False)
    return record


def _render(root: Path, paper: str, sha: str, folder: Path, record: dict[str, Any], numbers: list[int],
            data: bytes | None = None) -> dict[str, Any]:
    """Render the figures ``numbers`` of the PDF ``sha`` into the cache; returns the updated record."""
    # lazy: 73 ms (importtime, beside papernotes.site.figures): pypdfium2, only for a note with a PDF
    from papernotes.intake.paper.figures import Figure, render_figure
    from papernotes.intake.paper.model import PaperError

    data = data if data is not None else _read_pdf(root, paper)
    boxes = {b[0]: b for b in record.get("boxes", [])}
    by_number = {f[0]: f for f in record["figures"]}
    images, failed = dict(record["images"]), dict(record.get("failed", {}))
    for n in numbers:
        number, page, bbox, kind = boxes[n]
        figure = Figure(kind, by_number[n][1], number, page, tuple(bbox), by_number[n][2])
        try:
            image = render_figure(data, figure, MIN_WIDTH)
        except PaperError as exc:  # the page shows the others, and says why this one is missing
            failed[str(n)] = exc.reason
            continue
        name = f"{sha}-{n}.{image.format}"
        atomic_write(folder / name, image.data, durable=False)
        images[str(n)] = [name, image.width, image.height]
    record = {**record, "images": images, "failed": failed}
    atomic_write(folder / f"{sha}.json", json.dumps(record, ensure_ascii=False), durable=False)
    return record


def _prepare_one(job: tuple[str, str, str, list[int]]) -> tuple[str, tuple[int, int], str | None, dict[str, Any]]:
    """Worker side of ``FigureStore.prepare``: hash, find and render one paper's teaser and asked-for figures."""
    root_s, folder_s, paper, numbers = job
    root, folder = Path(root_s), Path(folder_s)
    try:
        st = os.lstat(root / paper)
        data = _read_pdf(root, paper)
    except (OSError, ValueError):
        return paper, (0, 0), None, {}
    sha = hashlib.sha256(data).hexdigest()
    where = folder / sha[:2]
    record = _load_record(where / f"{sha}.json")
    fresh = record is None
    if record is None:
        record = _read_figures(root, paper, sha, where, data, write=False)
    found = [f[0] for f in record["figures"]]
    wanted = ([1 if 1 in found else found[0]] if found else []) + [n for n in numbers if n in found]
    wanted = [n for n in dict.fromkeys(wanted) if str(n) not in record["images"]]
    if wanted and not record["error"]:
        record = _render(root, paper, sha, where, record, wanted, data)  # writes the record
    elif fresh:
        atomic_write(where / f"{sha}.json", json.dumps(record, ensure_ascii=False), durable=False)
    return paper, (st.st_mtime_ns, st.st_size), sha, record
