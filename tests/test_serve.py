"""serve: answers on 127.0.0.1 only, rebuilds when a note changes and tells open pages to reload."""
from __future__ import annotations

import re
import shutil
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import EXAMPLES, example_notes
from papernotes.site.serve import EVENTS_PATH, DevServer


@pytest.fixture()
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus)
    srv = DevServer(corpus, tmp_path / "site", port=0)
    srv.start()
    yield srv
    srv.stop()


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def test_serves_pages_on_loopback_only(server: DevServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    status, html = get(server.url + "ICML2024/optimization/")
    assert status == 200 and "优化/理论" in html and EVENTS_PATH in html
    status, html = get(server.url + "no/such/page/")
    assert status == 404 and "404" in html
    status, css = get(server.url + "assets/site.css")
    assert status == 200 and EVENTS_PATH not in css
    addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    for address in addresses - {"127.0.0.1"}:
        with pytest.raises(OSError):
            socket.create_connection((address, server.port), timeout=1).close()


def test_edit_triggers_rebuild_and_reload_event(server: DevServer) -> None:
    events: list[str] = []
    connected = threading.Event()

    def listen() -> None:
        with urllib.request.urlopen(server.url + EVENTS_PATH, timeout=20) as stream:
            for raw in stream:
                line = raw.decode().strip()
                if line == ": connected":  # the server has noted the generation this stream reloads after
                    connected.set()
                if line.startswith("event: reload"):
                    events.append(line)
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert connected.wait(timeout=20), "the event stream did not open"
    note = example_notes(server.corpus / "ICML2024/optimization")[0]
    note.write_text(note.read_text(encoding="utf-8").replace("## 一句话总结\n", "## 一句话总结\n实时更新 ZZQQ。\n\n", 1),
                    encoding="utf-8")
    deadline = time.time() + 20
    while time.time() < deadline and "ZZQQ" not in get(server.url + f"ICML2024/optimization/{note.stem}/")[1]:
        time.sleep(0.1)
    assert "ZZQQ" in get(server.url + f"ICML2024/optimization/{note.stem}/")[1]
    listener.join(timeout=10)
    assert events == ["event: reload"]


def raw_request(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def wait_for(predicate, timeout: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_body_edit_renders_only_that_note_without_scanning(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus)
    # one edition: with two, an edit plans both editions whole (and renders the pages that changed)
    (corpus / "papernotes.toml").write_text('title = "papernotes example"\n', encoding="utf-8")
    results = []
    srv = DevServer(corpus, tmp_path / "site", port=0, on_build=results.append)
    srv.start()
    try:
        note = example_notes(corpus / "ICML2024/optimization")[0]
        note.write_text(note.read_text(encoding="utf-8") + "\n\n追加 QWKX。\n", encoding="utf-8")
        assert wait_for(lambda: "QWKX" in get(srv.url + f"ICML2024/optimization/{note.stem}/")[1])
        assert wait_for(lambda: len(results) >= 2)
        assert results[-1].rendered == 1 and not results[-1].up_to_date
    finally:
        srv.stop()


def test_hostile_requests_get_clean_answers(server: DevServer) -> None:
    long = raw_request(server.port, b"GET /" + b"a" * 10_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert long.startswith(b"HTTP/1.0 414") or long.startswith(b"HTTP/1.1 414")
    rebinding = raw_request(server.port, b"GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    assert b" 421 " in rebinding.split(b"\r\n", 1)[0]
    ok = raw_request(server.port, f"GET {server.base_path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                                  "Connection: close\r\n\r\n".encode())
    assert b" 200 " in ok.split(b"\r\n", 1)[0]
    # a client that hangs up mid-response is routine
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(f"GET {server.base_path}assets/katex/katex.min.js HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
    assert get(server.url)[0] == 200


def test_200_simultaneous_requests_are_answered(server: DevServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    started = time.time()
    with ThreadPoolExecutor(200) as pool:
        statuses = list(pool.map(lambda i: get(server.url + ("ICML2024/optimization/" if i % 2 else ""))[0],
                                 range(200)))
    assert statuses.count(200) == 200 and time.time() - started < 10


def test_event_streams_are_capped(server: DevServer) -> None:
    from papernotes.site.serve import MAX_EVENT_STREAMS

    streams = [urllib.request.urlopen(server.url + EVENTS_PATH, timeout=10)
               for _ in range(MAX_EVENT_STREAMS)]
    try:
        status, _ = get(server.url + EVENTS_PATH)
        assert status == 503
    finally:
        for stream in streams:
            stream.close()


def test_a_failing_build_is_reported_and_the_next_change_rebuilds(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus)
    errors: list[Exception] = []
    srv = DevServer(corpus, tmp_path / "site", port=0, on_error=errors.append)
    srv.start()
    try:
        config = corpus / "papernotes.toml"
        good = config.read_text(encoding="utf-8")
        config.write_text("title = [unclosed\n", encoding="utf-8")
        assert wait_for(lambda: errors)
        assert "papernotes.toml" in str(errors[0])
        assert get(srv.url)[0] == 200  # the last good site is still served
        config.write_text(re.sub(r'(?m)^title = .*$', 'title = "Renamed QQZT"', good), encoding="utf-8")
        assert wait_for(lambda: "Renamed QQZT" in get(srv.url)[1])
    finally:
        srv.stop()


def test_taxonomy_and_theme_changes_rebuild(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus)
    (corpus / "theme/static").mkdir(parents=True)
    (corpus / "theme/static/extra.css").write_text("body{}", encoding="utf-8")
    (corpus / "taxo").mkdir()
    (corpus / "taxo/domains.toml").write_text("", encoding="utf-8")
    (corpus / "taxo/synonyms.toml").write_text("", encoding="utf-8")
    (corpus / "papernotes.toml").write_text('theme_dir = "theme"\n[taxonomy]\ndomains = ["taxo/domains.toml"]\n'
                                            'synonyms = ["taxo/synonyms.toml"]\n', encoding="utf-8")
    srv = DevServer(corpus, tmp_path / "site", port=0)
    srv.start()
    try:
        (corpus / "taxo/domains.toml").write_text('[[domain]]\nslug = "optimization"\nzh = "优化 ZQXV"\n',
                                                  encoding="utf-8")
        assert wait_for(lambda: "优化 ZQXV" in get(srv.url + "ICML2024/optimization/")[1])
        (corpus / "theme/static/extra.css").write_text("body{color:red} /* KQPL */", encoding="utf-8")
        assert wait_for(lambda: "KQPL" in get(srv.url + "assets/extra.css")[1])
        (corpus / "taxo/synonyms.toml").write_text('[[synonyms]]\nterms = ["甲乙 WQZV", "wqzv"]\n', encoding="utf-8")
        assert wait_for(lambda: "WQZV" in get(srv.url + "search/index.json")[1])
    finally:
        srv.stop()
