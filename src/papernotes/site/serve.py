"""Serve stage: build, serve on 127.0.0.1, rebuild on change and reload the open page.

In: a corpus directory. Out: an HTTP server (standard library, one thread per
request, a real listen backlog) over the built site, at ``base_url``'s path as
on the host it is built for (``/`` redirects there; a missing URL gets its
edition's ``404.html``, whose links start from that path). A watcher (``watchfiles``:
inotify and friends, no polling of every note) hands the edited note paths to
the same ``Builder`` the ``build`` command uses, which re-renders just those
notes' pages when nothing else changed (no scan of the corpus), and anything
else incrementally; a change to the config, a taxonomy file or the theme
rebuilds with a fresh builder. Each open page holds a Server-Sent Events
connection and reloads when a build changed something. The reload script is
injected into HTML responses only, never written into the built site.

Defensive by default: only ``Host`` headers naming the bound address are served
(DNS rebinding), long request lines get 414, event streams are capped, a
client that goes away mid-response is not an error, and a build that fails is
reported while the server keeps serving the last good site and rebuilds on the
next change.
"""
from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Callable
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import watchfiles

from papernotes.corpus.scan import SKIP_FILES, notes_beside
from papernotes.errors import PapernotesError
from papernotes.layout import CACHE_DIR, CONFIG_NAME
from papernotes.site.build import Builder, BuildResult
from papernotes.site.theme import ASSETS

EVENTS_PATH = "__papernotes/events"
"""The reload event stream, under the site's path (``/papernotes/__papernotes/events``) like everything it serves."""
FAVICON = "favicon.svg"
"""The site's icon in ``assets/`` (the package's, or the theme's of the same name); also answers ``/favicon.ico``."""
MAX_EVENT_STREAMS = 32
"""Open pages that can listen for reloads at once; more get 503 (each holds a thread)."""
MAX_REQUEST_LINE = 8192
LISTEN_BACKLOG = 512
DEBOUNCE_MS = 30
"""How long the watcher gathers changes before building (editors write a file in several steps)."""


def reload_snippet(base_path: str) -> bytes:
    """The script injected into served HTML: reload the page when the events stream says a build changed it."""
    url = json.dumps(base_path + EVENTS_PATH).replace("<", "\\u003c")
    return ("<script>(function(){var s=new EventSource(" + url + ");"
            "s.addEventListener('reload',function(){location.reload()});})();</script>").encode()


class _Handler(SimpleHTTPRequestHandler):
    server: DevServer  # type: ignore[assignment]

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        if self.server.verbose:
            super().log_message(format, *args)

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in self.server.allowed_hosts:  # another name pointing here: DNS rebinding
            self.send_error(HTTPStatus.MISDIRECTED_REQUEST, "unknown Host")
            return False
        return True

    def handle_one_request(self) -> None:
        try:
            self.raw_requestline = self.rfile.readline(MAX_REQUEST_LINE + 1)
            if len(self.raw_requestline) > MAX_REQUEST_LINE:
                self.requestline, self.request_version, self.command = "", "HTTP/1.1", ""
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
                self.close_connection = True
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
            method = getattr(self, f"do_{self.command}", None)
            if method is None:
                self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"unsupported method {self.command!r}")
                return
            method()
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True  # the client went away: not our error

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if urlsplit(self.path).path == self.server.base_path + EVENTS_PATH:
            self._events()
            return
        super().do_GET()

    def copyfile(self, source: Any, outputfile: Any) -> None:
        try:
            super().copyfile(source, outputfile)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def send_head(self):  # type: ignore[no-untyped-def]
        url = urlsplit(self.path).path
        base = self.server.base_path
        site = Path(self.directory)
        status = HTTPStatus.OK
        path: Path | None = None
        if url == "/favicon.ico":  # what a browser asks for when a page (a listing of files…) names no icon
            path = site / ASSETS / FAVICON
        elif url.startswith(base):
            path = Path(self.translate_path("/" + url[len(base):]))
            if path.is_dir():
                if not url.endswith("/"):
                    return self._redirect(url + "/")
                path = path / "index.html"
        elif url == "/" or url + "/" == base:
            return self._redirect(base)  # the site lives under base_url's path, as on the host it is made for
        if path is None or not path.is_file():
            status = HTTPStatus.NOT_FOUND
            path = self._not_found_page(url[len(base):] if url.startswith(base) else "")
            if path is None:
                self.send_error(HTTPStatus.NOT_FOUND)
                return None
        data = path.read_bytes()
        ctype = self.guess_type(str(path))
        if ctype.startswith("text/html"):
            ctype = "text/html; charset=utf-8"
            marker = data.rfind(b"</body>")
            snippet = reload_snippet(self.server.base_path)
            data = data[:marker] + snippet + data[marker:] if marker >= 0 else data + snippet
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        return io.BytesIO(data)

    def _redirect(self, location: str) -> None:
        query = urlsplit(self.path).query
        self.send_response(HTTPStatus.FOUND)
        self.send_header("Location", location + (f"?{query}" if query else ""))
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _not_found_page(self, inner: str) -> Path | None:
        """The 404 page of the edition the missing URL is in (``en/404.html`` under ``/en/``), else the site's."""
        site = Path(self.directory)
        first = inner.split("/", 1)[0]
        for candidate in ((site / first / "404.html") if "/" in inner and first not in ("", ".", "..") else None,
                          site / "404.html"):
            if candidate is not None and candidate.is_file():
                return candidate
        return None

    def _events(self) -> None:
        if not self.server.streams.acquire(blocking=False):
            self.send_error(HTTPStatus.SERVICE_UNAVAILABLE, "too many open pages listen for reloads")
            return
        try:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            seen = self.server.generation
            self.wfile.write(b": connected\n\n")
            self.wfile.flush()
            while not self.server.stopping.is_set():
                with self.server.changed:
                    self.server.changed.wait(timeout=15)
                if self.server.generation != seen:
                    seen = self.server.generation
                    self.wfile.write(f"event: reload\ndata: {seen}\n\n".encode())
                else:
                    self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass
        finally:
            self.server.streams.release()
            self.close_connection = True


class DevServer(ThreadingHTTPServer):
    """The development server; ``start`` serves and watches in background threads."""

    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, corpus: Path, site: Path, port: int = 8000,
                 on_build: Callable[[BuildResult], None] | None = None,
                 on_error: Callable[[Exception], None] | None = None, verbose: bool = False) -> None:
        self.corpus = corpus.resolve()
        self.site = site
        self.on_build = on_build
        self.on_error = on_error
        self.verbose = verbose
        self.generation = 0
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        self.streams = threading.BoundedSemaphore(MAX_EVENT_STREAMS)
        self.watching = threading.Event()
        self.last_result: BuildResult | None = None
        self.base_path = "/"
        """Where the site is served: ``base_url``'s path, as on the host it is built for (``/papernotes/``)."""
        self.last_built: float = 0.0
        """``time.monotonic()`` when the last build that changed the site was published."""
        self.builder: Builder | None = None
        self.rebuild()
        handler = partial(_Handler, directory=str(site))
        super().__init__(("127.0.0.1", port), handler)
        self.allowed_hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}", "127.0.0.1", "localhost"}

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that resets its connection is routine; anything else is printed only when verbose."""
        if self.verbose:
            super().handle_error(request, client_address)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.base_path}"

    def rebuild(self, edited: set[str] | None = None, fresh: bool = False) -> BuildResult | None:
        """Build (``edited``: just these notes changed; ``fresh``: settings changed, start a new builder)."""
        try:
            if fresh or self.builder is None:
                self.builder = Builder(self.corpus, self.site)
                edited = None
            notified = []
            result = self.builder.build(edited=edited, on_pages=lambda: notified.append(self._reload()))
        except PapernotesError as exc:
            self.builder = None  # the settings may be what is wrong: read them again next time
            if self.on_error:
                self.on_error(exc)
            return None
        except Exception as exc:  # noqa: BLE001 - a failing build must not stop the server
            self.builder = None
            if self.on_error:
                self.on_error(exc)
            return None
        self.last_result = result
        # as the pages spell it in their links (the 404 page's, the redirect's Location), percent-encoded
        self.base_path = quote(self.builder.project.config.base_path, safe="/%:@!$&'()*+,;=-._~")
        if self.on_build:
            self.on_build(result)
        if not notified and not result.up_to_date and (result.rendered or result.removed):
            self._reload()
        return result

    def _reload(self) -> None:
        """Tell open pages to reload (the changed pages are published)."""
        self.last_built = time.monotonic()
        with self.changed:
            self.generation += 1
            self.changed.notify_all()

    # -- watching
    def _settings_files(self) -> set[Path]:
        """Files whose change means a new builder: the config, taxonomy files (the theme is a folder)."""
        files = {self.corpus / CONFIG_NAME}
        if self.builder is not None:
            files.update(self.corpus / name for name in self.builder.project.config.taxonomy.files())
        return files

    def _theme_dir(self) -> Path | None:
        return self.builder.project.config.theme_path(self.corpus) if self.builder is not None else None

    def classify(self, paths: set[str]) -> tuple[set[str], bool]:
        """``(edited note paths relative to the corpus, whether settings or the theme changed)``."""
        notes: set[str] = set()
        settings = False
        settings_files = {str(p) for p in self._settings_files()}
        theme = self._theme_dir()
        for raw in paths:
            path = Path(raw)
            if raw in settings_files or (theme is not None and path.is_relative_to(theme)):
                settings = True
                continue
            try:
                rel = path.relative_to(self.corpus)
            except ValueError:
                continue
            parts = rel.parts
            if not parts or any(p.startswith((".", "_")) or p == "node_modules" for p in parts):
                continue
            if rel.suffix == ".md" and not (len(parts) == 1 and parts[0] in SKIP_FILES):
                notes.add(rel.as_posix())
            elif rel.suffix == ".pdf":  # a paper's figures are part of its notes' pages
                notes.update(notes_beside(self.corpus, rel.as_posix()))
        return notes, settings

    def watch(self) -> None:
        """Rebuild on every batch of changes until ``stop``; a failing build never ends the loop."""
        output = self.site.resolve()

        def wanted(change: Any, path: str) -> bool:
            return not (path.startswith(str(output)) or f"{os.sep}{CACHE_DIR}" in path)

        def roots() -> list[Path]:
            theme = self._theme_dir()
            return [self.corpus, *([theme] if theme is not None and not theme.is_relative_to(self.corpus) else [])]

        while not self.stopping.is_set():
            watched = roots()
            try:
                for changes in watchfiles.watch(*watched, watch_filter=wanted, debounce=DEBOUNCE_MS, step=10,
                                                stop_event=self.stopping, rust_timeout=200, yield_on_timeout=True,
                                                raise_interrupt=False):
                    self.watching.set()  # the first (empty, on timeout) batch: the watches are in place
                    if not changes:
                        continue
                    notes, settings = self.classify({path for _, path in changes})
                    if settings:
                        self.rebuild(fresh=True)
                        if roots() != watched:
                            break  # the theme folder moved: watch the new one
                    elif notes:
                        self.rebuild(edited=notes)
            except Exception as exc:  # noqa: BLE001 - e.g. a watched folder vanished; try again
                if self.on_error:
                    self.on_error(exc)
                self.stopping.wait(0.5)

    def start(self) -> None:
        """Serve and watch in background threads; returns once changes are being watched."""
        threading.Thread(target=self.serve_forever, name="papernotes-http", daemon=True).start()
        threading.Thread(target=self.watch, name="papernotes-watch", daemon=True).start()
        self.watching.wait(timeout=10)

    def stop(self) -> None:
        self.stopping.set()
        with self.changed:
            self.changed.notify_all()
        self.shutdown()
        self.server_close()


def default_site_dir(corpus: Path) -> Path:
    return corpus / CACHE_DIR / "serve"


def wait_forever() -> None:  # pragma: no cover - interactive
    while True:
        time.sleep(3600)


__all__ = ["DevServer", "default_site_dir"]
