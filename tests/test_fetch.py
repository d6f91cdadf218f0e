"""Fetch stage against a real HTTP server on loopback: downloads, retries, limits, resume after kill -9, --from-dir."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip("pypdf")
pytest.importorskip("fpdf")

import pdfgen  # noqa: E402
from conftest import write_note  # noqa: E402
from papernotes.cli import app  # noqa: E402

runner = CliRunner()


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


class PaperServer:
    """Serves scripted answers per path (``/pdf/ID``, ``/pdf?id=…``, anything); honours ``Range``; logs requests."""

    def __init__(self) -> None:
        self.routes: dict[str, list[Answer]] = {}
        self.requests: list[tuple[str, str | None, float]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_GET(self) -> None:  # noqa: N802 - stdlib naming
                rng = self.headers.get("Range")
                server.requests.append((self.path, rng, time.monotonic()))
                answers = server.routes.get(self.path)
                if not answers:
                    return self._send(Answer(404, b"not found"))
                answer = answers.pop(0) if len(answers) > 1 else answers[0]
                if rng and answer.status == 200 and (start := int(rng.split("=")[1].rstrip("-"))) <= len(answer.body):
                    body = answer.body[start:]
                    return self._send(Answer(206, body, {"Content-Range": f"bytes {start}-{len(answer.body) - 1}/"
                                                                          f"{len(answer.body)}"}))
                self._send(answer)

            def _send(self, answer: Answer) -> None:
                self.send_response(answer.status)
                self.send_header("Content-Type", answer.headers.pop("Content-Type", "application/pdf")
                                 if answer.status < 300 else "text/html")
                self.send_header("Content-Length", str(len(answer.body)))
                for key, value in answer.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(answer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> PaperServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def pdf_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return pdfgen.sample_paper(tmp_path_factory.mktemp("fetch") / "paper.pdf").read_bytes()


def note(root: Path, slug: str, **links: str) -> Path:
    return write_note(root, f"ICML2026/{slug}.md", title=f"Paper {slug} about reading columns", venue="ICML2026",
                      links=links, body="## 一句话总结\nA note.\n")


def fetch(root: Path, server: PaperServer, *extra: str) -> Any:
    return runner.invoke(app, ["fetch", str(root), "--api-url", server.url, "--delay", "0", "--backoff", "0.01",
                               *extra])


def test_fetch_from_arxiv_openreview_and_pdf_links(tmp_path: Path, pdf_bytes: bytes) -> None:
    root = tmp_path / "corpus"
    with PaperServer() as server:
        server.routes = {"/pdf/2401.01234": [Answer(body=pdf_bytes)], "/pdf?id=AbC-1_x": [Answer(body=pdf_bytes)],
                         "/files/direct.pdf": [Answer(body=pdf_bytes)]}
        note(root, "by-arxiv", arxiv="https://arxiv.org/abs/2401.01234v2")
        note(root, "by-openreview", openreview="https://openreview.net/forum?id=AbC-1_x")
        note(root, "by-link", pdf=f"{server.url}/files/direct.pdf")
        note(root, "no-link")
        note(root, "present", arxiv="2401.09999")
        (root / "ICML2026" / "present.pdf").write_bytes(b"%PDF-1.4 mine %%EOF")
        result = fetch(root, server)
        assert result.exit_code == 0, result.output
        assert "3 fetched, 1 already present, 1 without a link, 0 failed" in result.stdout
        for slug in ("by-arxiv", "by-openreview", "by-link"):
            assert (root / "ICML2026" / f"{slug}.pdf").read_bytes() == pdf_bytes
        assert (root / "ICML2026" / "present.pdf").read_bytes() == b"%PDF-1.4 mine %%EOF"
        assert not list(root.rglob(".*.part"))
        assert all("2401.09999" not in path for path, _, _ in server.requests)
        again = fetch(root, server)
        assert "0 fetched, 4 already present, 1 without a link, 0 failed" in again.stdout
        assert len(server.requests) == 3


def test_retry_after_429_and_rate_limit(tmp_path: Path, pdf_bytes: bytes) -> None:
    root = tmp_path / "corpus"
    note(root, "a", arxiv="2401.00001")
    note(root, "b", arxiv="2401.00002")
    with PaperServer() as server:
        server.routes = {"/pdf/2401.00001": [Answer(429, b"slow down", {"Retry-After": "0"}), Answer(body=pdf_bytes)],
                         "/pdf/2401.00002": [Answer(body=pdf_bytes)]}
        result = runner.invoke(app, ["fetch", str(root), "--api-url", server.url, "--delay", "0.2", "--backoff", "5"])
        assert result.exit_code == 0, result.output
        assert "2 fetched" in result.stdout
        times = [t for _, _, t in server.requests]
        assert len(times) == 3
        assert all(b - a >= 0.15 for a, b in zip(times, times[1:]))  # 0.2 s apart, less arrival jitter
        # Retry-After: 0 beat the 5 s backoff
        assert times[-1] - times[0] < 4


@pytest.mark.parametrize("answer, message", [
    (Answer(500, b"oops"), "HTTP 500"),
    (Answer(200, b"<!DOCTYPE html><html>log in</html>", {"Content-Type": "text/html"}), "not a PDF (the server sent text/html)"),
    (Answer(200, b"%PDF-1.4\n" + b"0" * 300_000 + b"\n%%EOF"), "over the size limit of 104,857"),
    (Answer(200, b"%PDF-1.4\n" + b"0" * 3_000), "truncated PDF"),
])
def test_failures_name_the_url_and_leave_nothing(tmp_path: Path, answer: Answer, message: str) -> None:
    root = tmp_path / "corpus"
    note(root, "bad", arxiv="2401.00003")
    with PaperServer() as server:
        server.routes = {"/pdf/2401.00003": [answer]}
        result = fetch(root, server, "--max-mb", "0.1", "--retries", "2")
        assert result.exit_code == 1
        assert "0 fetched, 0 already present, 0 without a link, 1 failed" in result.stdout
        assert f"ICML2026/bad.md: error: no paper fetched: {server.url}/pdf/2401.00003: " in result.stderr
        assert message in result.stderr
        assert not (root / "ICML2026" / "bad.pdf").exists()
        assert not list(root.rglob(".*.part"))
        retried = answer.status == 500 or message == "truncated PDF"
        assert len(server.requests) == (3 if retried else 1)


def test_kill_during_download_loses_nothing_and_resumes(tmp_path: Path) -> None:
    paper = pdfgen.Paper("A Large Paper")
    paper.flow([pdfgen.Para(pdfgen.FILLER)] * 300, columns=2)
    paper.pdf.set_compression(False)
    big = paper.render()
    assert len(big) > 2 * 65536
    root = tmp_path / "corpus"
    note(root, "big", arxiv="2401.00004")
    marker = tmp_path / "paused"
    with PaperServer() as server:
        server.routes = {"/pdf/2401.00004": [Answer(body=big)]}
        env = {**os.environ, "PAPERNOTES_PAUSE_AT": "fetch.body", "PAPERNOTES_PAUSE_FILE": str(marker)}
        cmd = [sys.executable, "-m", "papernotes", "fetch", str(root), "--api-url", server.url, "--delay", "0", "-q"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert not (root / "ICML2026" / "big.pdf").exists()
        part = root / "ICML2026" / ".big.pdf.part"
        assert 0 < part.stat().st_size < len(big)
        result = fetch(root, server)
        assert result.exit_code == 0, result.output
        assert (root / "ICML2026" / "big.pdf").read_bytes() == big
        assert not part.exists()
        assert server.requests[-1][1] == f"bytes={65536}-"  # resumed, not downloaded again


def test_from_dir_files_by_arxiv_id_stamp_and_title(tmp_path: Path, pdf_bytes: bytes) -> None:
    root = tmp_path / "corpus"
    write_note(root, "ICML2026/by-name.md", title="A paper filed by its name", venue="ICML2026",
               links={"arxiv": "2401.11111"}, body="")
    write_note(root, "ICML2026/by-stamp.md", title="A paper filed by its stamp", venue="ICML2026",
               links={"arxiv": "2401.22222"}, body="")
    write_note(root, "ICML2026/by-title.md", title="Gutter Networks: Reading Two-Column Papers in Order",
               venue="ICML2026", body="")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "2401.11111v2.pdf").write_bytes(pdf_bytes)
    stamped = pdfgen.Paper("Untitled draft")
    stamped.flow([pdfgen.Lines(("arXiv:2401.22222v1 [cs.CL] 5 Jan 2024",)), pdfgen.Para(pdfgen.INTRO)], columns=1)
    stamped.save(inbox / "download (3).pdf")
    (inbox / "gutter.pdf").write_bytes(pdf_bytes)  # same bytes as by-name, found by its title instead
    (inbox / "other.pdf").write_bytes(pdfgen.NOT_PDF)
    result = runner.invoke(app, ["fetch", str(root), "--from-dir", str(inbox)])
    assert result.exit_code == 0, result.output
    assert "3 filed, 0 already present" in result.stdout
    assert (root / "ICML2026" / "by-name.pdf").read_bytes() == pdf_bytes
    assert (root / "ICML2026" / "by-title.pdf").read_bytes() == pdf_bytes
    assert (root / "ICML2026" / "by-stamp.pdf").read_bytes() == (inbox / "download (3).pdf").read_bytes()
    assert f"{inbox / 'other.pdf'}: warning: not a PDF" in result.stderr
    assert (inbox / "gutter.pdf").exists()  # copied, never moved
    again = runner.invoke(app, ["fetch", str(root), "--from-dir", str(inbox)])
    assert "0 filed, 3 already present" in again.stdout
