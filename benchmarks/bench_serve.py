"""Live edits through ``papernotes serve``: from saving a note to its page showing the change.

Starts ``papernotes serve CORPUS -o SITE`` as a subprocess (a real watcher, a real
HTTP server), waits until it answers, then saves one note N times, each time
appending a unique marker to its body, and polls the note's page over HTTP every
2 ms until the marker is there. Reports the median and the spread of the
save-to-page latency, and the same for a title edit (which changes listing pages:
the note's page first, its listings after a full re-plan).

Usage: python benchmarks/bench_serve.py CORPUS [--site SITE] [--saves 10] [--json OUT]
A 50,000-note corpus: ``python benchmarks/synth.py /tmp/s50k --notes 50000``; pass a
``--site`` built before (``papernotes build /tmp/s50k -o /tmp/s50k-site``) to skip the
first build.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from papernotes.config import load_config
from papernotes.corpus import frontmatter


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return ""


def wait_for(url: str, marker: str, timeout: float) -> float:
    """Seconds until ``marker`` is on the page at ``url`` (polling), or raise."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if marker in fetch(url):
            return time.perf_counter()
        time.sleep(0.002)
    raise TimeoutError(f"{marker} did not show at {url} within {timeout:g}s")


def note_url(note: Path, corpus: Path) -> str:
    """The note's page URL from its front matter (venue, domain) and file stem."""
    front, _, _ = frontmatter.read(note.read_text(encoding="utf-8"))  # papernotes' own reader: quoted values too
    return f"{front['venue']}/{front['domain']}/{note.stem}/"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--site", type=Path, help="site directory (default: serve's own)")
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve()
    notes = sorted(corpus.glob("*/*/*.md"))
    note = notes[len(notes) // 2]
    port = free_port()
    command = [sys.executable, "-m", "papernotes", "serve", str(corpus), "-p", str(port)]
    if args.site:
        command += ["-o", str(args.site)]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}{load_config(corpus)[0].base_path}"  # serve serves under base_url's path
    url = base + note_url(note, corpus)
    original = note.read_bytes()
    results: dict[str, object] = {"notes": len(notes), "note": note.relative_to(corpus).as_posix()}
    try:
        while not fetch(base):
            if proc.poll() is not None:
                raise SystemExit(f"serve exited with {proc.returncode}")
            time.sleep(0.05)
        results["startup_s"] = round(time.perf_counter() - started, 2)
        time.sleep(1.0)  # let the watcher settle
        body: list[float] = []
        for i in range(args.saves):
            marker = f"LIVEEDIT{os.getpid()}X{i}"
            saved = time.perf_counter()
            note.write_bytes(original + f"\n\n{marker}\n".encode())
            body.append(wait_for(url, marker, 60) - saved)
            time.sleep(0.3)
        title: list[float] = []
        for i in range(max(1, args.saves // 3)):
            marker = f"TITLEEDIT{os.getpid()}X{i}"
            text = original.decode("utf-8").replace("\ntitle: ", f"\ntitle: {marker} ", 1) \
                if '\ntitle: "' not in original.decode("utf-8") else \
                original.decode("utf-8").replace('\ntitle: "', f'\ntitle: "{marker} ', 1)
            saved = time.perf_counter()
            note.write_text(text, encoding="utf-8")
            title.append(wait_for(url, marker, 120) - saved)
            listing = base + url[len(base):].rsplit("/", 2)[0] + "/"
            title.append(wait_for(listing, marker, 300) - saved)
            time.sleep(0.3)
        results["body_edit_ms"] = {"median": round(statistics.median(body) * 1000, 1),
                                   "min": round(min(body) * 1000, 1), "max": round(max(body) * 1000, 1),
                                   "runs": len(body)}
        results["title_edit_ms"] = {"note_page": [round(t * 1000, 1) for t in title[0::2]],
                                    "listing_page": [round(t * 1000, 1) for t in title[1::2]]}
    finally:
        note.write_bytes(original)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
