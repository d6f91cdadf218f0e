"""serve: answers on 127.0.0.1 only, rebuilds when a note changes and tells open pages to reload."""
from __future__ import annotations

import shutil
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import EXAMPLES
from papernotes.site.serve import EVENTS_PATH, DevServer


@pytest.fixture()
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus)
    srv = DevServer(corpus, tmp_path / "site", port=0, interval=0.1)
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

    def listen() -> None:
        with urllib.request.urlopen(server.url + EVENTS_PATH.lstrip("/"), timeout=20) as stream:
            for raw in stream:
                line = raw.decode().strip()
                if line.startswith("event: reload"):
                    events.append(line)
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    time.sleep(0.3)
    note = next(server.corpus.glob("ICML2024/optimization/*.md"))
    note.write_text(note.read_text(encoding="utf-8").replace("## 一句话总结\n", "## 一句话总结\n实时更新 ZZQQ。\n\n", 1),
                    encoding="utf-8")
    deadline = time.time() + 20
    while time.time() < deadline and "ZZQQ" not in get(server.url + f"ICML2024/optimization/{note.stem}/")[1]:
        time.sleep(0.1)
    assert "ZZQQ" in get(server.url + f"ICML2024/optimization/{note.stem}/")[1]
    listener.join(timeout=10)
    assert events == ["event: reload"]
