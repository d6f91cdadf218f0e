"""Fetch stage: each note gets its paper beside it (``foo.md`` → ``foo.pdf``), downloaded or filed from a folder.

In: the corpus (notes read through the corpus loader; front matter is never
written) and either the network or a folder of PDFs. Out: ``foo.pdf`` files
and a ``FetchResult`` saying what was fetched, already there, without a link,
or failed (with the URL).

Downloads go to arXiv (``https://arxiv.org/pdf/ID``), OpenReview
(``https://openreview.net/pdf?id=…``) and the note's ``links.pdf``, in that
order; ``api_url`` points the first two at another server (a mirror, a test).
One request at a time, at least ``delay`` seconds apart; 429, 5xx and network
errors are retried with exponential backoff (``Retry-After`` honoured). The
body streams into a hidden ``.foo.pdf.part`` beside the note, capped at
``max_bytes``; only a complete file that starts with ``%PDF-`` and ends with
``%%EOF`` is renamed to ``foo.pdf``. A killed run leaves at most the ``.part``
file, which the next run resumes with an HTTP range request.
"""
from __future__ import annotations

import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from papernotes import __version__
from papernotes.cache import BuildCache
from papernotes.corpus.load import load_corpus
from papernotes.corpus.model import Note
from papernotes.disk import atomic_write
from papernotes.errors import Diagnostic, PapernotesError, error, warning
from papernotes.intake.paper.extract import first_page_text, sniff
from papernotes.intake.paper.model import PaperError
from papernotes.intake.sources import arxiv_id
from papernotes.testhooks import pause

Progress = Callable[[str, int, int], None]
ARXIV = "https://arxiv.org"
OPENREVIEW = "https://openreview.net"
CHUNK = 64 * 1024
RETRY_STATUS = {408, 425, 429, 500, 502, 503, 504}
MAX_WAIT = 60.0
USER_AGENT = f"papernotes/{__version__} (paper fetch; one request at a time)"


class FetchError(PapernotesError):
    """One URL could not give a PDF; ``retry`` says whether trying again may help."""

    def __init__(self, url: str, message: str, retry: bool = False, wait: float | None = None) -> None:
        self.url, self.message, self.retry, self.wait = url, message, retry, wait
        super().__init__(f"{url}: {message}")


@dataclass(frozen=True, slots=True)
class FetchOptions:
    api_url: str | None = None
    """Replaces ``https://arxiv.org`` and ``https://openreview.net`` (a mirror, a test server)."""
    delay: float = 3.0
    """Seconds between two requests (arXiv asks for no more than one every three seconds)."""
    retries: int = 3
    backoff: float = 2.0
    """First retry wait in seconds, doubled at each retry (unless the server says ``Retry-After``)."""
    max_bytes: int = 100 * 2 ** 20
    timeout: float = 60.0
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    note: str
    status: str
    """``fetched``, ``present``, ``no-link`` or ``failed``."""
    url: str = ""
    message: str = ""


@dataclass(frozen=True, slots=True)
class FetchResult:
    outcomes: tuple[Outcome, ...]
    diagnostics: tuple[Diagnostic, ...]

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)


def paper_urls(note: Note, api_url: str | None = None) -> list[str]:
    """Where a note's PDF can be downloaded from, best first."""
    links = dict(note.links)
    urls = []
    aid = note.arxiv_id or arxiv_id(links.get("arxiv", ""))
    if aid:
        urls.append(f"{(api_url or ARXIV).rstrip('/')}/pdf/{aid}")
    forum = links.get("openreview", "")
    if forum and (m := re.search(r"[?&]id=([\w-]+)", forum)):
        urls.append(f"{(api_url or OPENREVIEW).rstrip('/')}/pdf?id={m.group(1)}")
    if pdf := links.get("pdf", ""):
        urls.append(pdf)
    return list(dict.fromkeys(urls))


class Downloader:
    """Sequential, rate-limited, retrying downloads into ``.NAME.part`` files."""

    def __init__(self, options: FetchOptions) -> None:
        self.options = options
        self._last = 0.0

    def _wait_turn(self) -> None:
        pause = self._last + self.options.delay - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        self._last = time.monotonic()

    def fetch(self, url: str, dest: Path) -> None:
        """Download ``url`` to ``dest`` atomically, retrying what may pass on a second try."""
        for attempt in range(self.options.retries + 1):
            try:
                self._once(url, dest)
                return
            except FetchError as exc:
                if not exc.retry or attempt == self.options.retries:
                    raise
                time.sleep(min(MAX_WAIT, exc.wait if exc.wait is not None else self.options.backoff * 2 ** attempt))

    def _once(self, url: str, dest: Path) -> None:
        part = dest.with_name(f".{dest.name}.part")
        have = part.stat().st_size if part.is_file() else 0
        headers = {"User-Agent": USER_AGENT}
        if have:
            headers["Range"] = f"bytes={have}-"
        self._wait_turn()
        try:
            response = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=self.options.timeout)
        except urllib.error.HTTPError as exc:
            if exc.code == 416 and have:  # the part is already complete
                return self._finish(url, part, dest)
            wait = _retry_after(exc.headers.get("Retry-After"))
            raise FetchError(url, f"HTTP {exc.code} {exc.reason}", exc.code in RETRY_STATUS, wait) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise FetchError(url, f"cannot connect: {reason}", retry=True) from None
        with response:
            resumed = have and response.status == 206
            length = response.headers.get("Content-Length")
            total = (have if resumed else 0) + int(length) if length and length.isdigit() else None
            if total is not None and total > self.options.max_bytes:
                raise FetchError(url, f"{total:,} bytes is over the size limit of {self.options.max_bytes:,}")
            self._stream(url, response, part, have if resumed else 0)
        self._finish(url, part, dest)

    def _stream(self, url: str, response: object, part: Path, offset: int) -> None:
        size = offset
        try:
            with open(part, "ab" if offset else "wb") as out:
                first = True
                while chunk := response.read(CHUNK):  # type: ignore[attr-defined]
                    if first and not offset and b"%PDF-" not in chunk[:1024]:
                        kind = response.headers.get("Content-Type", "?")  # type: ignore[attr-defined]
                        raise FetchError(url, f"not a PDF (the server sent {kind})")
                    size += len(chunk)
                    if size > self.options.max_bytes:
                        raise FetchError(url, f"over the size limit of {self.options.max_bytes:,} bytes")
                    out.write(chunk)
                    if first:
                        out.flush()
                        pause("fetch.body")
                    first = False
                out.flush()
                os.fsync(out.fileno())
        except FetchError:
            part.unlink(missing_ok=True)
            raise
        except (OSError, TimeoutError) as exc:  # the part is kept: the retry resumes it
            raise FetchError(url, f"download interrupted: {exc}", retry=True) from None

    def _finish(self, url: str, part: Path, dest: Path) -> None:
        data = part.read_bytes()
        try:
            sniff(url, data)
        except PaperError as exc:
            part.unlink(missing_ok=True)
            raise FetchError(url, exc.reason, retry=exc.kind == "truncated") from None
        os.replace(part, dest)


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def load_notes(root: Path) -> list[Note]:
    with BuildCache(None) as cache:
        return list(load_corpus(root, cache).notes)


def fetch_corpus(root: Path, options: FetchOptions = FetchOptions(), progress: Progress | None = None) -> FetchResult:
    """Download the paper of every note that has none beside it yet."""
    notes = load_notes(root)
    todo = [n for n in notes if not (root / n.path).with_suffix(".pdf").is_file()]
    outcomes = [Outcome(n.path, "present") for n in notes if n not in todo]
    if options.limit is not None:
        todo = todo[:options.limit]
    diagnostics: list[Diagnostic] = []
    downloader = Downloader(options)
    for done, note in enumerate(todo):
        if progress:
            progress("fetch", done, len(todo))
        urls = paper_urls(note, options.api_url)
        if not urls:
            outcomes.append(Outcome(note.path, "no-link"))
            continue
        dest = (root / note.path).with_suffix(".pdf")
        failures = []
        for url in urls:
            try:
                downloader.fetch(url, dest)
                outcomes.append(Outcome(note.path, "fetched", url))
                break
            except FetchError as exc:
                failures.append(exc)
                dest.with_name(f".{dest.name}.part").unlink(missing_ok=True)  # never resume from another URL's bytes
        else:
            last = failures[-1]
            outcomes.append(Outcome(note.path, "failed", last.url, last.message))
            tried = "; ".join(str(f) for f in failures)
            diagnostics.append(error(note.path, 0, f"no paper fetched: {tried}", "fetch"))
    if progress:
        progress("fetch", len(todo), len(todo))
    return FetchResult(tuple(outcomes), tuple(diagnostics))


def _normalise(text: str) -> str:
    import unicodedata

    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).casefold())


def file_from_dir(root: Path, folder: Path, progress: Progress | None = None) -> FetchResult:
    """Copy the PDFs of ``folder`` beside the notes they are the paper of, by arXiv id or title."""

    if not folder.is_dir():
        raise PapernotesError(f"{folder}: not a folder")
    notes = load_notes(root)
    by_id = {n.arxiv_id: n for n in notes if n.arxiv_id}
    by_title = {_normalise(n.title): n for n in notes if len(_normalise(n.title)) >= 12}
    pdfs = sorted(p for p in folder.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file())
    outcomes: list[Outcome] = []
    diagnostics: list[Diagnostic] = []
    filed: dict[str, Path] = {}
    for done, pdf in enumerate(pdfs):
        if progress:
            progress("file", done, len(pdfs))
        try:
            data = pdf.read_bytes()
            note = by_id.get(arxiv_id(pdf.stem))
            if note is None:
                meta_title, text = first_page_text(str(pdf), data)
                stamp = re.search(r"arXiv:\s*(\d{4}\.\d{4,5})", text)
                note = by_id.get(stamp.group(1)) if stamp else None
                if note is None:
                    note = by_title.get(_normalise(meta_title))
                if note is None:
                    page = _normalise(text)[:4000]
                    note = next((n for key, n in by_title.items() if key in page), None)
            else:
                sniff(str(pdf), data)
        except PaperError as exc:
            diagnostics.append(warning(str(pdf), 0, f"{exc.reason}; not filed", "fetch"))
            continue
        except OSError as exc:
            diagnostics.append(warning(str(pdf), 0, f"cannot read: {exc.strerror}", "fetch"))
            continue
        if note is None:
            diagnostics.append(warning(str(pdf), 0, "matches no note by arXiv id or title; not filed", "fetch"))
            continue
        dest = (root / note.path).with_suffix(".pdf")
        if note.path in filed:
            diagnostics.append(warning(str(pdf), 0, f"{note.path} already gets {filed[note.path]}; not filed", "fetch"))
        elif dest.is_file():
            outcomes.append(Outcome(note.path, "present", str(pdf)))
        else:
            atomic_write(dest, data)
            filed[note.path] = pdf
            outcomes.append(Outcome(note.path, "fetched", str(pdf)))
    if progress:
        progress("file", len(pdfs), len(pdfs))
    return FetchResult(tuple(outcomes), tuple(diagnostics))
