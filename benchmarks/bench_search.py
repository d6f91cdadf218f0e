"""Search benchmark: index build cost, first-query transfer and latency in headless Chromium, ranking.

Stage: none (a developer tool, not part of the package).
In: the reference snapshot (imported with ``papernotes import-mkdocs``) or a synthetic corpus
(``synth.py``). Out: a report on stderr and, with ``--json``, every figure in a file.

What is measured, in one run:

- **build**: ``papernotes build`` cold, as a subprocess (time, peak memory of the process tree);
- **index**: ``search_files`` in a child process on the resolved entries — cold (no cache; the
  median of ``--runs``), no-op (everything cached), re-cut (records cached, shards cut again, as
  after adding a note), one body edit (``search_update`` with the edited entry, the build's
  body-only path, and ``search_files`` with every entry), and the child's peak RSS (workers
  included);
- **browser**: the built site on a loopback HTTP server that gzips (level 6) like a static host;
  Debian's Chromium (Playwright, ``/usr/bin/chromium``), a fresh profile per query: bytes
  transferred (``Network.loadingFinished`` encoded lengths: headers and gzip bodies) from the
  page's HTML on, split into page assets and index files, and the time from DOMContentLoaded to
  the results being on the page (the page's own ``searchdone`` event); then per keystroke of a
  query typed into the same page, keydown (or, for text sent without one, beforeinput) → ``searchdone``;
- **quality** (reference corpus): relevant notes in the top 10 for a query set, a note being
  relevant when its title or keywords match a pattern written for the query; the same for the
  previous search (substring match over title, summary, keywords, topics and authors, ranked
  10 per title hit and 1 per other hit, re-implemented here), and how many notes each finds;
- **Pagefind** (``--pagefind BIN``, e.g. ``pagefind_extended`` from ``pip install
  'pagefind[extended]'`` in a separate venv): the same note pages indexed by its CLI (time,
  peak memory, size), then the same queries through its own JS API in the same Chromium
  (transfer, time, result count, relevant in the top 10).

Usage:
  python benchmarks/bench_search.py [--docs DIR] [--synthetic N] [--runs 5] [--work DIR] [--json OUT]
                                    [--pagefind BIN] [--index-only]
"""
from __future__ import annotations

import argparse
import functools
import gzip
import io
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
import urllib.parse
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import bench_build as bb  # noqa: E402

CHROMIUM = os.environ.get("PAPERNOTES_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]

#: Query → pattern that a relevant note's title or keywords match (lower-cased).
REFERENCE_QUERIES = {
    "知识蒸馏": r"distill|蒸馏", "模型量化": r"quantiz|quantis|量化", "LoRA": r"\blora", "RAG": r"\brag\b|retrieval.augmented|检索增强",
    "联邦学习": r"federated|联邦", "强化学习": r"reinforcement|强化学习|\brl\b", "扩散模型": r"diffusion|扩散",
    "对比学习": r"contrastive|对比", "图神经网络": r"graph neural|\bgnn|图神经", "零阶优化": r"zeroth|zero-order|零阶",
    "GRPO": r"grpo", "剪枝": r"prun|剪枝", "幻觉": r"hallucinat|幻觉", "vision transformer": r"vision transformer|\bvit",
    "持续学习": r"continual|持续学习|lifelong|incremental", "思维链": r"chain.of.thought|\bcot\b|思维链",
    "自动驾驶": r"driving|自动驾驶", "知识图谱": r"knowledge graph|知识图谱", "推荐系统": r"recommend|推荐",
    "mamba": r"mamba|state.space|状态空间", "多模态大模型": r"multimodal|multi-modal|mllm|vlm|vision-language|多模态",
    "模型合并": r"merg|合并", "水印": r"watermark|水印", "speculative decoding": r"speculative|投机",
}
#: Queries for a synthetic corpus (its words come from synth.py's lists).
SYNTHETIC_QUERIES = ["知识蒸馏", "模型量化", "LoRA", "RAG", "扩散采样", "注意力", "GRPO", "剪枝", "检索增强生成",
                     "distillation", "Wang", "大语言模型推理加速"]
TYPED = ("knowledge distillation", "模型量化方法")

FIRST_QUERY_BYTES = {3_248: 300_000, 50_000: 600_000}
FIRST_RESULT_MS = 300
KEYSTROKE_MS = 50
INDEX_SECONDS = 1.0


# ------------------------------------------------------------------ the index, in a child process

def resolved(corpus: Path):  # type: ignore[no-untyped-def]
    """``(entries, language)`` of ``corpus``, resolved as the build does (no cache)."""
    from papernotes.cache import BuildCache
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import load_corpus
    from papernotes.site.resolve import resolve

    config, _ = load_config(corpus)
    with BuildCache(None) as cache:
        loaded = load_corpus(corpus, cache)
        entries, _ = resolve(loaded.notes, loaded.diagnostics, load_site_taxonomy(corpus, config), {})
    return entries, config.language


def _synonyms(corpus: Path) -> tuple[tuple[str, ...], ...]:
    """The search synonyms a build of ``corpus`` puts in the manifest."""
    from papernotes.config import load_config, load_site_taxonomy

    config, _ = load_config(corpus)
    return load_site_taxonomy(corpus, config).synonyms


def _cpu_seconds() -> float:
    import resource

    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def index_child(corpus: Path, runs: int, only_cold: bool = False) -> dict[str, object]:
    """Timings of ``search_files`` on the resolved entries of ``corpus`` (run as a child: clean peak RSS)."""
    import resource

    from papernotes.site.search import corpus_bodies, search_files, search_update
    from papernotes.site.search.store import SearchStore

    found, lang = resolved(corpus)
    synonyms = _synonyms(corpus)
    out: dict[str, object] = {"notes": len(found)}
    with tempfile.TemporaryDirectory() as tmp:
        cold, cold_cpu = [], []
        for i in range(runs):
            cache = Path(tmp) / f"cold{i}"
            cpu = _cpu_seconds()
            started = time.perf_counter()
            files = search_files(found, corpus_bodies(corpus), cache, lang, synonyms=synonyms)
            cold.append(time.perf_counter() - started)
            cold_cpu.append(_cpu_seconds() - cpu)
        out["cold"] = cold
        out["cold_cpu"] = cold_cpu  # this process and its workers: what a shared machine does not inflate much
        if only_cold:
            return out
        started = time.perf_counter()
        search_files(found, corpus_bodies(corpus), cache, lang, synonyms=synonyms)
        out["noop"] = time.perf_counter() - started
        with SearchStore(cache / "search.sqlite") as store, store.db:
            store.db.execute("DELETE FROM meta WHERE key = 'base'")
            store.db.execute("DELETE FROM shards")
        started = time.perf_counter()
        search_files(found, corpus_bodies(corpus), cache, lang, synonyms=synonyms)
        out["recut"] = time.perf_counter() - started
        edited = bb.note_to_edit(corpus)
        original = edited.read_bytes()
        try:
            edited.write_bytes(original + "\n\n一个新的句子 benchmarkword。\n".encode())
            changed, _ = resolved(corpus)
            rel = edited.relative_to(corpus).as_posix()
            started = time.perf_counter()  # the build's body-only path: the edited entry alone
            after = search_update([e for e in changed if e.note.path == rel], corpus_bodies(corpus), cache, lang)
            out["edit"] = time.perf_counter() - started
            assert after is not None
            out["edit_writes"] = len(after.changes(files.digests)[0])
            started = time.perf_counter()  # a build that re-planned the site: every entry
            search_files(changed, corpus_bodies(corpus), cache, lang, synonyms=synonyms)
            out["edit_full"] = time.perf_counter() - started
        finally:
            edited.write_bytes(original)
        sizes = {rel: len(files[rel]) for rel in files}
    gz = {rel: len(gzip.compress(files[rel], 6)) for rel in files if rel.startswith("search/t/")}
    out["files"] = len(sizes)
    out["bytes"] = sum(sizes.values())
    out["shards"] = len(gz)
    out["shard_gzip_median"] = statistics.median(gz.values()) if gz else 0
    out["shard_gzip_max"] = max(gz.values()) if gz else 0
    out["manifest_gzip"] = len(gzip.compress(files["search/index.json"], 6))
    out["max_rss_self"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    out["max_rss_children"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return out


def measure_index(corpus: Path, runs: int, only_cold: bool = False) -> dict[str, object]:
    with tempfile.NamedTemporaryFile(suffix=".json") as result:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--index-child", str(corpus), "--runs", str(runs),
               "--json", result.name, *(["--index-only"] if only_cold else [])]
        run = bb.run_measured(cmd, "index benchmark")
        data = json.loads(Path(result.name).read_text(encoding="utf-8"))
    data["tree_pss"] = run.tree_pss
    return data


# ------------------------------------------------------------------ a static host on loopback

class GzipHandler(SimpleHTTPRequestHandler):
    """Static files over keep-alive HTTP/1.1, gzip-encoded (level 6, compressed once per file) when
    the client accepts it, as static hosts do."""

    protocol_version = "HTTP/1.1"
    # headers and body go out in two writes: with Nagle's algorithm on, the body of a small file waited for
    # the client's delayed ACK of the headers (~40 ms), as no static host (nginx, Caddy) makes it wait
    disable_nagle_algorithm = True
    compressed: dict[Path, bytes] = {}
    lock = threading.Lock()
    sent: list[int] = []
    """Bytes of every response sent (headers and body), for clients whose requests CDP does not see."""
    pages: dict[str, bytes] = {}
    """Benchmark pages served from memory under ``/__bench/`` (the site's directory is not touched)."""
    reports: list[bytes] = []
    """Bodies POSTed to ``/__bench/report`` by those pages."""

    def do_POST(self) -> None:
        if self.path != "/__bench/report":
            self.send_error(404)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.lock:
            self.reports.append(body)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        page = self.pages.get(self.path.split("?", 1)[0])
        if page is not None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            return io.BytesIO(page)
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()
            path = path / "index.html"
        if not path.is_file():
            self.send_error(404)
            return None
        encoded = "gzip" in self.headers.get("Accept-Encoding", "")
        if encoded:
            with self.lock:
                data = self.compressed.get(path) or b""
            if not data:
                data = gzip.compress(path.read_bytes(), 6)
                with self.lock:
                    self.compressed[path] = data
        else:
            data = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        if encoded:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with self.lock:
            self.sent.append(len(data) + 200)  # ~200 bytes of status line and headers
        return io.BytesIO(data)


def serve(site: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(GzipHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


# ------------------------------------------------------------------ Chromium

_PROBE = """
window.__times = [];
document.addEventListener("DOMContentLoaded", function () {
  window.__dcl = performance.now();
  var results = document.getElementById("results");
  if (results) results.addEventListener("searchdone", function (e) {
    window.__times.push([e.detail.query, performance.now(), e.detail.count]);
  });
});
// a keystroke starts at its keydown; text inserted without one (Chinese, typed through an input method
// and sent by Playwright as insertText) starts at its beforeinput
window.__keyed = false;
document.addEventListener("keydown", function () {
  window.__keys = (window.__keys || []).concat([performance.now()]);
  window.__keyed = true;
}, true);
document.addEventListener("beforeinput", function () {
  if (!window.__keyed) window.__keys = (window.__keys || []).concat([performance.now()]);
  window.__keyed = false;
}, true);
"""


def first_queries(base: str, queries: list[str]) -> list[dict[str, object]]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        for query in queries:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(_PROBE)
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            urls: dict[str, str] = {}
            sizes: dict[str, float] = {}
            cdp.on("Network.requestWillBeSent", lambda e, urls=urls: urls.__setitem__(e["requestId"], e["request"]["url"]))
            cdp.on("Network.loadingFinished",
                   lambda e, sizes=sizes: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
            page.goto(base + "search/?q=" + query)
            page.wait_for_function("window.__times.length > 0", timeout=30_000)
            page.wait_for_timeout(50)
            done = page.evaluate("window.__times[0]")
            dcl = page.evaluate("window.__dcl")
            index_bytes = sum(n for rid, n in sizes.items() if "/search/t/" in urls.get(rid, "")
                              or "/search/d/" in urls.get(rid, "") or urls.get(rid, "").split("?")[0].endswith("index.json"))
            out.append({"query": query, "results": done[2], "ms_after_dcl": done[1] - dcl, "ms_after_start": done[1],
                        "bytes": sum(sizes.values()), "index_bytes": index_bytes, "requests": len(sizes),
                        "shards": sum(1 for u in urls.values() if "/search/t/" in u),
                        "docs_files": sum(1 for u in urls.values() if "/search/d/" in u)})
            context.close()
        browser.close()
    return out


def keystrokes(base: str, typed: tuple[str, ...]) -> list[dict[str, object]]:
    """Type each query into one warm page, a key every 120 ms; keydown (beforeinput for Chinese) → that text's results on the page."""
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(_PROBE)
        page = context.new_page()
        page.goto(base + "search/")
        page.wait_for_function("window.__times.length > 0", timeout=30_000)
        for text in typed:
            page.fill("#q", "")
            page.wait_for_timeout(100)
            page.evaluate("window.__times = []; window.__keys = []")
            for ch in text:
                page.keyboard.type(ch)
                page.wait_for_timeout(120)
            page.wait_for_function("t => window.__times.some(x => x[0] === t)", arg=text, timeout=30_000)
            keys = page.evaluate("window.__keys")
            times = page.evaluate("window.__times")
            for i, key_at in enumerate(keys):
                prefix = text[:i + 1]
                if not prefix.strip():
                    continue
                done = [t for q, t, _ in times if q == prefix.strip() and t >= key_at]
                if done:
                    out.append({"text": prefix, "ms": done[0] - key_at})
        context.close()
        browser.close()
    return out


_TYPIST = """<!doctype html><meta charset="utf-8"><body style="margin:0">
<iframe id="site" src="../search/" style="width:1280px;height:900px;border:0"></iframe>
<script>
// Types each query into the search page (same origin, in the frame) a character every 120 ms, by the
// input events a keyboard makes, and POSTs [[text, ms, frame], ...]: from each input event to the page's
// "searchdone" for that text (null when the next character was typed before it came), and to the end of
// the next frame after it (the results laid out and painted: a requestAnimationFrame callback runs before
// the frame's style, layout and paint, a message posted from it after them).
var TYPED = JSON.parse(decodeURIComponent(location.hash.slice(1)));
function sleep(ms) { return new Promise(function (ok) { setTimeout(ok, ms); }); }
async function until(test) { var t = Date.now(); while (!test()) { if (Date.now() - t > 60000) throw new Error("timeout"); await sleep(5); } }
document.getElementById("site").onload = async function () {
  var w = this.contentWindow, d = w.document, q = d.getElementById("q"), results = d.getElementById("results"), done = [], out = [];
  results.addEventListener("searchdone", function (e) {
    var hit = [e.detail.query, w.performance.now(), null];
    done.push(hit);
    w.requestAnimationFrame(function () {
      var channel = new w.MessageChannel();
      channel.port1.onmessage = function () { hit[2] = w.performance.now(); };
      channel.port2.postMessage(0);
    });
  });
  await until(function () { return results.hasAttribute("data-done"); });
  for (var text of TYPED) {
    q.value = "";
    q.dispatchEvent(new w.InputEvent("input", {bubbles: true}));
    await sleep(100);
    done.length = 0;
    var starts = [];
    for (var ch of text) {
      q.value += ch;
      starts.push(w.performance.now());
      q.dispatchEvent(new w.InputEvent("input", {bubbles: true, inputType: "insertText", data: ch}));
      await sleep(120);
    }
    await until(function () { return done.some(function (x) { return x[0] === text.trim() && x[2] !== null; }); });
    starts.forEach(function (t, i) {
      var prefix = text.slice(0, i + 1).trim(), hit = done.find(function (x) { return x[0] === prefix && x[1] >= t; });
      if (prefix) out.push([text.slice(0, i + 1), hit ? hit[1] - t : null, hit && hit[2] ? hit[2] - t : null]);
    });
  }
  await fetch("report", {method: "POST", body: JSON.stringify(out)});
};
</script>"""


def keystrokes_plain(base: str, typed: tuple[str, ...], rounds: int) -> list[list[dict[str, object]]]:
    """``keystrokes`` without an automation protocol: Chromium started on its own (a fresh profile
    per round) opens a page of this server that types into the search page in a frame.

    Playwright listens to every request over CDP, and on this two-core machine that costs about a
    millisecond per request (ten document files at once: 24 ms under Playwright, 15 ms without); a
    reader's browser pays none of it. The typing starts at the input event rather than keydown
    (the same task of the page, a fraction of a millisecond earlier)."""
    GzipHandler.pages["/__bench/keys.html"] = _TYPIST.encode()
    out = []
    for _ in range(rounds):
        with GzipHandler.lock:
            GzipHandler.reports.clear()
        with tempfile.TemporaryDirectory(prefix="bench-keys-", ignore_cleanup_errors=True) as profile:
            browser = subprocess.Popen(
                [CHROMIUM, "--headless", *FLAGS, f"--user-data-dir={profile}", "--window-size=1300,950",
                 base + "__bench/keys.html#" + urllib.parse.quote(json.dumps(list(typed)))],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            try:
                deadline = time.monotonic() + 180
                while not GzipHandler.reports and time.monotonic() < deadline and browser.poll() is None:
                    time.sleep(0.05)
            finally:  # the browser and its renderer, GPU and network processes
                os.killpg(browser.pid, signal.SIGKILL)
                browser.wait()
                time.sleep(0.5)
        if not GzipHandler.reports:
            raise RuntimeError("the typing page reported nothing (Chromium failed or timed out)")
        out.append([{"text": text, "ms": ms, "frame_ms": frame} for text, ms, frame in json.loads(GzipHandler.reports[0])])
    return out


def font_warnings() -> list[str]:
    """Fonts the pages need and this machine lacks. The venue and domain labels carry emoji: with no font
    that has them, Chromium searches every font for each of them at each layout, and a results page takes
    8–12 ms to lay out instead of 1.5 ms (measured with and without fonts-noto-color-emoji)."""
    out = []
    for what, char, package in (("emoji", "1f916", "fonts-noto-color-emoji"), ("Chinese", "6a21", "fonts-noto-cjk")):
        try:
            found = subprocess.run(["fc-list", f":charset={char}", "family"], capture_output=True, text=True,
                                   timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ["fc-list is missing: the fonts were not checked"]
        if not found:
            out.append(f"no {what} font (apt-get install {package}): pages with {what} lay out slowly here")
    return out


def fetch_floor(base: str) -> dict[str, list[float]]:
    """What a fetch costs in this browser on this machine, whatever the page does with it: 30 document
    files one after another, and 8 rounds of 10 at once (what the first ten results fetch)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page()
        page.goto(base + "search/")
        page.wait_for_timeout(300)
        found = page.evaluate("""async () => {
          const one = async (k, tag) => { const r = await fetch('d/' + k + '.json?' + tag + Math.random()); await r.json(); };
          const sequential = [], parallel = [];
          for (let i = 0; i < 30; i++) { const t = performance.now(); await one(i, 's'); sequential.push(performance.now() - t); }
          for (let k = 0; k < 8; k++) {
            const t = performance.now();
            await Promise.all([...Array(10).keys()].map(i => one(i * 7 + k, 'p')));
            parallel.push(performance.now() - t);
          }
          return {sequential, parallel};
        }""")
        browser.close()
    return found


def shown_results(base: str, queries: list[str], k: int = 10) -> dict[str, list[str]]:
    """The URLs of the first ``k`` results the page shows for each query."""
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page()
        for query in queries:
            page.goto(base + "search/?q=" + query)
            page.wait_for_selector("#results[data-done]", state="attached", timeout=30_000)
            hrefs = page.eval_on_selector_all("#results dt > a", "els => els.map(a => a.pathname)")
            count = page.inner_text("#status")
            out[query] = [h.strip("/") + "/" for h in hrefs[:k]] + [f"#count {count}"]
        browser.close()
    return out


# ------------------------------------------------------------------ ranking quality

def quality(corpus: Path, base: str) -> dict[str, object]:
    from papernotes.site.search.tokenize import plain

    entries, lang = resolved(corpus)
    by_url = {e.url: e for e in entries}
    ordered = sorted(entries, key=lambda e: (e.order, e.note.path))

    def relevant(entry, pattern: str) -> bool:  # type: ignore[no-untyped-def]
        return re.search(pattern, " ".join([entry.note.title, *entry.note.keywords]).lower()) is not None

    def previous(query: str) -> tuple[int, list]:  # type: ignore[type-arg]
        terms = query.lower().split()
        hits = []
        for i, e in enumerate(ordered):
            n = e.note
            hay = "\n".join([plain(n.title), plain(n.summary), " ".join(n.keywords),
                             " ".join(t.name(lang) for t in e.topics), " ".join(n.authors)]).lower()
            title = plain(n.title).lower()
            if all(t in hay for t in terms):
                hits.append((-sum(10 if t in title else 1 for t in terms), i, e))
        hits.sort(key=lambda h: (h[0], h[1]))
        return len(hits), [h[2] for h in hits[:10]]

    def mentions(query: str) -> int:
        """Notes whose text contains every space-separated part of the query (case-insensitive)."""
        parts = unicodedata.normalize("NFKC", query).lower().split()
        count = 0
        for e in entries:
            text = (corpus / e.note.path).read_text(encoding="utf-8").lower()
            count += all(p in text for p in parts)
        return count

    shown = shown_results(base, list(REFERENCE_QUERIES))
    rows = []
    for query, pattern in REFERENCE_QUERIES.items():
        urls = shown[query]
        count_text = urls.pop()
        now = [by_url[u] for u in urls if u in by_url]
        before_count, before = previous(query)
        rows.append({"query": query, "relevant_top10": sum(relevant(e, pattern) for e in now),
                     "previous_relevant_top10": sum(relevant(e, pattern) for e in before),
                     "results": sum(map(int, re.findall(r"\d+", count_text))), "previous_results": before_count,
                     "notes_mentioning": mentions(query)})
    return {"queries": rows, "relevant_top10": sum(r["relevant_top10"] for r in rows),
            "previous_relevant_top10": sum(r["previous_relevant_top10"] for r in rows), "out_of": 10 * len(rows)}


# ------------------------------------------------------------------ Pagefind, for comparison

def pagefind_index(binary: str, site: Path) -> dict[str, object]:
    """Index the note pages (``VENUE/domain/slug/index.html``, their ``article.note``) with Pagefind's CLI."""
    out = site / "pagefind"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "--site", str(site), "--glob", "*/*/*/index.html", "--root-selector", "article.note",
           "--output-subdir", "pagefind"]
    run = bb.run_measured(cmd, "pagefind")
    return {"seconds": run.seconds, "memory": run.memory, "bytes": bb.tree_bytes(out)}


_PAGEFIND_QUERY = """async q => {
  const pagefind = await import("/pagefind/pagefind.js");
  await pagefind.init();
  const t0 = performance.now();
  const found = await pagefind.search(q);
  const top = await Promise.all(found.results.slice(0, 10).map(r => r.data()));
  return {count: found.results.length, ms: performance.now() - t0, urls: top.map(d => d.url)};
}"""


def pagefind_queries(base: str, queries: list[str]) -> list[dict[str, object]]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        for query in queries:
            context = browser.new_context()
            page = context.new_page()
            page.goto(base + "404.html")
            page.wait_for_load_state("networkidle")
            with GzipHandler.lock:  # Pagefind fetches from a worker: count what the server sent
                GzipHandler.sent.clear()
            found = page.evaluate(_PAGEFIND_QUERY, query)
            page.wait_for_timeout(300)
            with GzipHandler.lock:
                sent = sum(GzipHandler.sent)
            out.append({"query": query, "results": found["count"], "ms": found["ms"], "bytes": sent,
                        "top": [u.strip("/") + "/" for u in found["urls"]]})
            context.close()
        browser.close()
    return out


def pagefind_quality(corpus: Path, rows: list[dict[str, object]]) -> int:
    entries, _ = resolved(corpus)
    by_url = {e.url: e for e in entries}
    total = 0
    for row in rows:
        pattern = REFERENCE_QUERIES.get(str(row["query"]))
        if pattern is None:
            continue
        hits = [by_url[u] for u in row["top"] if u in by_url]  # type: ignore[union-attr]
        row["relevant_top10"] = sum(re.search(pattern, " ".join([e.note.title, *e.note.keywords]).lower()) is not None
                                    for e in hits)
        total += int(row["relevant_top10"])
    return total


# ------------------------------------------------------------------ report

def ms(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f} ms, max {max(values):.0f} ms" if values else "-"


def report(res: dict) -> list[str]:  # type: ignore[type-arg]
    lines = []
    idx = res["index"]
    lines.append(f"corpus: {res['corpus']} ({idx['notes']} notes)")
    b = res["build"]
    lines.append(f"papernotes build, cold: {b['seconds']:.2f} s, peak memory {bb.mb(b['memory'])} "
                 f"(tree PSS {bb.mb(b['tree_pss'])}, largest process {bb.mb(b['max_rss'])})")
    lines.append(f"index cold: median {statistics.median(idx['cold']):.2f} s of {len(idx['cold'])} "
                 f"({', '.join(f'{c:.2f}' for c in idx['cold'])}); no-op {idx['noop']:.2f} s; "
                 f"re-cut from cached records {idx['recut']:.2f} s; one body edit {idx['edit']:.3f} s "
                 f"({idx['edit_writes']} files to write; {idx['edit_full']:.2f} s when every entry is passed)")
    lines.append(f"index child peak RSS: {bb.mb(idx['max_rss_self'])} (workers {bb.mb(idx['max_rss_children'])}), "
                 f"tree PSS {bb.mb(idx['tree_pss'])}")
    lines.append(f"index: {idx['files']} files, {bb.mb(idx['bytes'])}; {idx['shards']} shards, gzip median "
                 f"{idx['shard_gzip_median'] / 1000:.1f} KB, max {idx['shard_gzip_max'] / 1000:.1f} KB; "
                 f"manifest {idx['manifest_gzip'] / 1000:.1f} KB gzip")
    first = res["first_queries"]
    budget = FIRST_QUERY_BYTES.get(min(FIRST_QUERY_BYTES, key=lambda n: abs(n - idx["notes"])), 300_000)
    lines.append("first query (fresh browser; transferred bytes incl. headers; ms from DOMContentLoaded):")
    for q in first:
        lines.append(f"  {q['query']:<22} {q['results']:>6} results  {q['bytes'] / 1000:7.1f} KB "
                     f"(index {q['index_bytes'] / 1000:6.1f} KB, {q['shards']} shards, {q['docs_files']} doc files)  "
                     f"{q['ms_after_dcl']:6.0f} ms")
    worst = max(q["bytes"] for q in first)
    slowest = max(q["ms_after_dcl"] for q in first)
    lines.append(f"  worst {worst / 1000:.1f} KB (target ≤ {budget / 1000:.0f} KB: "
                 f"{'met' if worst <= budget else 'MISSED'}); slowest {slowest:.0f} ms "
                 f"(target ≤ {FIRST_RESULT_MS} ms: {'met' if slowest <= FIRST_RESULT_MS else 'MISSED'})")
    keys = [k["ms"] for k in res["keystrokes"]]
    lines.append(f"keystrokes under Playwright: {len(keys)}, {ms(keys)}, {sum(k > KEYSTROKE_MS for k in keys)} over "
                 f"{KEYSTROKE_MS} ms")
    plain = res.get("keystrokes_plain") or []
    def took(k: dict) -> float:  # type: ignore[type-arg]
        return float("inf") if k["ms"] is None else k["ms"]  # None: the next key came before its results

    for i, rows in enumerate(plain):
        keys = [took(k) for k in rows]
        lines.append(f"keystrokes in plain Chromium, round {i + 1} (fresh profile): {len(keys)}, {ms(keys)}, "
                     f"{sum(k > KEYSTROKE_MS for k in keys)} over {KEYSTROKE_MS} ms; slowest: "
                     + ", ".join(f"{k['text']!r} {took(k):.0f}" for k in sorted(rows, key=lambda k: -took(k))[:3]))
    if plain:
        worst = max(took(k) for rows in plain for k in rows)
        lines.append(f"keystrokes: worst {worst:.0f} ms over {len(plain)} rounds in plain Chromium (target ≤ "
                     f"{KEYSTROKE_MS} ms: {'met' if worst <= KEYSTROKE_MS else 'MISSED'})")
        frames = [float("inf") if k.get("frame_ms") is None else k["frame_ms"] for rows in plain for k in rows
                  if k["ms"] is not None and k["ms"] > 5]  # keystrokes that fetched or ranked, not those a cache served
        if frames:
            lines.append(f"  the same to the end of the next frame (results laid out and painted), the {len(frames)} "
                         f"over 5 ms to searchdone: {ms(frames)}, {sum(f > KEYSTROKE_MS for f in frames)} over "
                         f"{KEYSTROKE_MS} ms")
    for warning in font_warnings():
        lines.append(f"warning: {warning}")
    floor = res.get("fetch_floor")
    if floor:
        lines.append(f"one fetch of a document file: {ms(floor['sequential'])}; ten at once: {ms(floor['parallel'])}")
    if res.get("pagefind"):
        pf = res["pagefind"]
        lines.append(f"Pagefind index: {pf['index']['seconds']:.1f} s, peak memory {bb.mb(pf['index']['memory'])}, "
                     f"{bb.mb(pf['index']['bytes'])}; relevant in top 10: {pf.get('relevant_top10')}")
        for q in pf["queries"]:
            lines.append(f"  {q['query']:<22} {q['results']:>6} results  {q['bytes'] / 1000:7.1f} KB  {q['ms']:6.0f} ms"
                         f"  relevant {q.get('relevant_top10', '-')}/10")
    if res.get("quality"):
        qa = res["quality"]
        lines.append(f"relevant in top 10: {qa['relevant_top10']} of {qa['out_of']} "
                     f"(previous search: {qa['previous_relevant_top10']})")
        for r in qa["queries"]:
            lines.append(f"  {r['query']:<22} {r['relevant_top10']:>2}/10 (previous {r['previous_relevant_top10']:>2}/10)  "
                         f"results {r['results']:>5} (previous {r['previous_results']:>5}); notes mentioning it "
                         f"{r['notes_mentioning']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=Path, default=bb.DEFAULT_DOCS)
    ap.add_argument("--synthetic", type=int, default=0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--pagefind", metavar="BIN", help="also index and query with this Pagefind binary")
    ap.add_argument("--index-only", action="store_true",
                    help="only the cold index build (wall and CPU seconds, --runs times) of the imported corpus")
    ap.add_argument("--index-child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.index_child:
        data = index_child(args.index_child, args.runs, args.index_only)
        Path(args.json).write_text(json.dumps(data), encoding="utf-8")
        return 0

    if args.pagefind and not (shutil.which(args.pagefind) or Path(args.pagefind).is_file()):
        raise SystemExit(f"{args.pagefind}: no such Pagefind binary")
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-search-"))
    corpus, site = work / "corpus", work / "site"
    if not corpus.is_dir():
        if args.synthetic:
            bb.log(f"synthesising {args.synthetic} notes …")
            subprocess.run([sys.executable, str(BENCH / "synth.py"), str(corpus), "--notes", str(args.synthetic)],
                           check=True, stdout=subprocess.DEVNULL)
        else:
            bb.log(f"importing {args.docs} …")
            bb.import_corpus(args.docs, corpus)
    res: dict[str, object] = {"corpus": f"synthetic {args.synthetic}" if args.synthetic else str(args.docs)}
    if args.index_only:  # the corpus is only read (the index child's cache is a temporary directory)
        idx = measure_index(corpus, args.runs, only_cold=True)
        print(f"index cold ({idx['notes']} notes): median {statistics.median(idx['cold']):.2f} s wall "
              f"({', '.join(f'{c:.2f}' for c in idx['cold'])}), median {statistics.median(idx['cold_cpu']):.2f} s CPU "
              f"({', '.join(f'{c:.2f}' for c in idx['cold_cpu'])}); os.getloadavg() {os.getloadavg()[0]:.1f}")
        if args.json:
            args.json.write_text(json.dumps({**res, "index": idx}, indent=1), encoding="utf-8")
        return 0
    bb.log("cold build …")
    shutil.rmtree(corpus / ".papernotes", ignore_errors=True)
    shutil.rmtree(site, ignore_errors=True)
    run = bb.run_measured([*bb.papernotes_cmd(), "build", str(corpus), "-o", str(site), "-q"], "papernotes build")
    res["build"] = {"seconds": run.seconds, "memory": run.memory, "tree_pss": run.tree_pss, "max_rss": run.max_rss}
    bb.log("index timings …")
    res["index"] = measure_index(corpus, args.runs)
    server, base = serve(site)
    try:
        bb.log("first queries in Chromium …")
        res["first_queries"] = first_queries(base, SYNTHETIC_QUERIES if args.synthetic else list(REFERENCE_QUERIES))
        bb.log("keystrokes …")
        res["keystrokes"] = keystrokes(base, TYPED)
        bb.log("keystrokes in Chromium without Playwright …")
        res["keystrokes_plain"] = keystrokes_plain(base, TYPED, 3)
        res["fetch_floor"] = fetch_floor(base)
        if not args.synthetic and not args.skip_quality:
            bb.log("ranking quality …")
            res["quality"] = quality(corpus, base)
        if args.pagefind:
            bb.log("Pagefind …")
            queries = SYNTHETIC_QUERIES if args.synthetic else list(REFERENCE_QUERIES)
            pf = {"index": pagefind_index(args.pagefind, site), "queries": pagefind_queries(base, queries)}
            if not args.synthetic:
                pf["relevant_top10"] = pagefind_quality(corpus, pf["queries"])
            res["pagefind"] = pf
    finally:
        server.shutdown()
    for line in report(res):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
