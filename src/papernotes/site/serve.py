"""Serve stage: build, serve on 127.0.0.1, rebuild on change and reload the open page.

In: a corpus directory. Out: an HTTP server (standard library) over the built
site. A polling watcher (no extra dependency; a stat of every note per tick)
triggers the incremental build; each open page holds a Server-Sent Events
connection and reloads when a build finishes. The reload script is injected into
HTML responses only, never written into the built site.
"""
from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from papernotes.config import CONFIG_NAME
from papernotes.corpus.load import scan
from papernotes.errors import PapernotesError
from papernotes.site.build import BuildResult, build

EVENTS_PATH = "/__papernotes/events"
RELOAD_SNIPPET = (
    "<script>(function(){var s=new EventSource('" + EVENTS_PATH + "');"
    "s.addEventListener('reload',function(){location.reload()});})();</script>"
).encode()


def corpus_signature(corpus: Path) -> tuple[object, ...]:
    """Changes whenever a note or the config is added, removed or modified."""
    files = tuple((f.path, f.mtime_ns, f.size) for f in scan(corpus))
    try:
        st = (corpus / CONFIG_NAME).stat()
        config = (st.st_mtime_ns, st.st_size)
    except FileNotFoundError:
        config = None
    return (files, config)


class _Handler(SimpleHTTPRequestHandler):
    server: DevServer  # type: ignore[assignment]

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        if self.server.verbose:
            super().log_message(format, *args)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path.split("?", 1)[0] == EVENTS_PATH:
            self._events()
            return
        super().do_GET()

    def send_head(self):  # type: ignore[no-untyped-def]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()  # stdlib answers with a redirect to the slash URL
            path = path / "index.html"
        status = HTTPStatus.OK
        if not path.is_file():
            status = HTTPStatus.NOT_FOUND
            path = Path(self.directory) / "404.html"
            if not path.is_file():
                self.send_error(HTTPStatus.NOT_FOUND)
                return None
        data = path.read_bytes()
        ctype = self.guess_type(str(path))
        if ctype.startswith("text/html"):
            ctype = "text/html; charset=utf-8"
            marker = data.rfind(b"</body>")
            data = data[:marker] + RELOAD_SNIPPET + data[marker:] if marker >= 0 else data + RELOAD_SNIPPET
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        return io.BytesIO(data)

    def _events(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        seen = self.server.generation
        try:
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
        except (BrokenPipeError, ConnectionResetError):
            return


class DevServer(ThreadingHTTPServer):
    """The development server; ``start`` builds, serves and watches in background threads."""

    daemon_threads = True

    def __init__(self, corpus: Path, site: Path, port: int = 8000, interval: float = 0.5,
                 on_build: Callable[[BuildResult], None] | None = None,
                 on_error: Callable[[Exception], None] | None = None, verbose: bool = False) -> None:
        self.corpus = corpus
        self.site = site
        self.interval = interval
        self.on_build = on_build
        self.on_error = on_error
        self.verbose = verbose
        self.generation = 0
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        self.last_result: BuildResult | None = None
        self._signature: tuple[object, ...] | None = None
        self.rebuild()
        handler = partial(_Handler, directory=str(site))
        super().__init__(("127.0.0.1", port), handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def rebuild(self) -> BuildResult | None:
        self._signature = corpus_signature(self.corpus)
        try:
            result = build(self.corpus, self.site)
        except PapernotesError as exc:
            if self.on_error:
                self.on_error(exc)
            return None
        self.last_result = result
        if self.on_build:
            self.on_build(result)
        if not result.up_to_date:
            with self.changed:
                self.generation += 1
                self.changed.notify_all()
        return result

    def watch(self) -> None:
        while not self.stopping.wait(self.interval):
            try:
                if corpus_signature(self.corpus) != self._signature:
                    self.rebuild()
            except OSError as exc:  # a file vanished mid-scan: try again next tick
                if self.on_error:
                    self.on_error(exc)

    def start(self) -> None:
        threading.Thread(target=self.serve_forever, name="papernotes-http", daemon=True).start()
        threading.Thread(target=self.watch, name="papernotes-watch", daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        with self.changed:
            self.changed.notify_all()
        self.shutdown()
        self.server_close()


def default_site_dir(corpus: Path) -> Path:
    return corpus / ".papernotes" / "serve"


def wait_forever() -> None:  # pragma: no cover - interactive
    while True:
        time.sleep(3600)


__all__ = ["DevServer", "corpus_signature", "default_site_dir"]
