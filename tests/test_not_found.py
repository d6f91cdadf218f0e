"""The 404 page works wherever the site is: under ``serve`` and on a static host under base_url's path.

Real HTTP both ways: every stylesheet, script, icon and link of the 404 page a
browser would follow is fetched and must answer 200.
"""
from __future__ import annotations

import io
import re
import shutil
import threading
import urllib.error
import urllib.request
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from conftest import EXAMPLES
from papernotes.site.build import build
from papernotes.site.serve import DevServer

ATTR = re.compile(r'<(?:link|a|script)\b[^>]*?\b(?:href|src)="([^"]+)"')


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def fetch(url: str, follow: bool = True) -> tuple[int, str, dict[str, str]]:
    opener = urllib.request.build_opener(*([] if follow else [_NoRedirect()]))
    try:
        with opener.open(url, timeout=5) as response:
            return response.status, response.read().decode("utf-8", "replace"), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace"), dict(exc.headers)


def local_links(html: str, page_url: str) -> list[str]:
    """The page's stylesheet, script, icon and link URLs on the page's own host, resolved."""
    host = urlsplit(page_url).netloc
    urls = [urljoin(page_url, href.replace("&amp;", "&")) for href in ATTR.findall(html)]
    return sorted({u.split("#", 1)[0] for u in urls if urlsplit(u).netloc == host})


def assert_all_resolve(html: str, page_url: str, base_path: str) -> list[str]:
    links = local_links(html, page_url)
    assert len(links) >= 8, links  # stylesheets, script, icon, header links, back home
    assert any(u.endswith("/assets/site.css") for u in links) and any(u.endswith("/assets/favicon.svg") for u in links)
    for url in links:
        assert urlsplit(url).path.startswith(base_path), url
        assert fetch(url)[0] == 200, url
    return links


@pytest.fixture()
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    srv = DevServer(corpus, tmp_path / "site", port=0)
    srv.start()
    yield srv
    srv.stop()


def test_serve_serves_the_site_under_base_url_path(server: DevServer) -> None:
    assert server.base_path == "/papernotes/"  # examples/papernotes.toml: https://example.org/papernotes/
    origin = f"http://127.0.0.1:{server.port}"
    assert server.url == origin + "/papernotes/"
    status, _, headers = fetch(origin + "/", follow=False)
    assert status == 302 and headers["Location"] == "/papernotes/"
    status, _, headers = fetch(origin + "/papernotes", follow=False)
    assert status == 302 and headers["Location"] == "/papernotes/"
    status, _, headers = fetch(origin + "/papernotes/ICML2024?x=1", follow=False)
    assert status == 302 and headers["Location"] == "/papernotes/ICML2024/?x=1"
    status, html, _ = fetch(origin + "/")
    assert status == 200 and 'rel="icon"' in html


@pytest.mark.parametrize("missing", ["/no/such/page/", "/papernotes/no/such/page/", "/papernotes/a.css"])
def test_the_404_page_under_serve_is_styled_and_its_links_work(server: DevServer, missing: str) -> None:
    url = f"http://127.0.0.1:{server.port}{missing}"
    status, html, headers = fetch(url)
    assert status == 404 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert '<html lang="zh-CN">' in html and "404" in html
    links = assert_all_resolve(html, url, "/papernotes/")
    assert f"http://127.0.0.1:{server.port}/papernotes/en/" in links  # the other edition


def test_a_missing_page_of_the_english_edition_gets_its_404(server: DevServer) -> None:
    url = server.url + "en/no/such/page/"
    status, html, _ = fetch(url)
    assert status == 404 and '<html lang="en">' in html
    links = assert_all_resolve(html, url, "/papernotes/")
    assert f"http://127.0.0.1:{server.port}/papernotes/en/topics/" in links


def test_serve_answers_the_favicon(server: DevServer) -> None:
    for url in (f"http://127.0.0.1:{server.port}/favicon.ico", server.url + "assets/favicon.svg"):
        status, svg, headers = fetch(url)
        assert status == 200 and headers["Content-Type"] == "image/svg+xml" and svg.startswith("<svg")


class _StaticHost(SimpleHTTPRequestHandler):
    """A plain static host: files as they are, its configured error page for anything missing."""

    error_page = "/sub/404.html"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        path = Path(self.translate_path(self.path))
        if path.is_dir() and (path / "index.html").is_file() or path.is_file():
            return super().send_head()
        data = Path(self.translate_path(self.error_page)).read_bytes()
        self.send_response(HTTPStatus.NOT_FOUND)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return io.BytesIO(data)


def test_the_404_page_on_a_static_host_under_a_sub_path(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    config = corpus / "papernotes.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("https://example.org/papernotes/",
                                                                 "https://host.example/sub/"), encoding="utf-8")
    www = tmp_path / "www"
    build(corpus, www / "sub")
    host = ThreadingHTTPServer(("127.0.0.1", 0), partial(_StaticHost, directory=str(www)))
    threading.Thread(target=host.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{host.server_address[1]}/sub/ICML2024/no/such/page/"
        status, html, _ = fetch(url)
        assert status == 404 and "404" in html
        assert_all_resolve(html, url, "/sub/")
    finally:
        host.shutdown()
        host.server_close()


def test_a_theme_replaces_the_favicon(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    (corpus / "_theme" / "static").mkdir(parents=True)
    (corpus / "_theme" / "static" / "favicon.svg").write_text("<svg id='mine'/>", encoding="utf-8")
    with (corpus / "papernotes.toml").open("a", encoding="utf-8") as config:
        config.write('theme_dir = "_theme"\n')
    build(corpus, tmp_path / "site")
    assert (tmp_path / "site" / "assets" / "favicon.svg").read_text(encoding="utf-8") == "<svg id='mine'/>"
    page = (tmp_path / "site" / "ICML2024" / "index.html").read_text(encoding="utf-8")
    assert '<link rel="icon" href="../assets/favicon.svg" type="image/svg+xml">' in page


def test_serve_under_a_path_that_needs_encoding(tmp_path: Path) -> None:
    from papernotes.starter import init_site

    init_site(tmp_path / "corpus")
    config = tmp_path / "corpus" / "papernotes.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('# base_url = "/"', 'base_url = "https://h.example/笔记/"'), encoding="utf-8")
    srv = DevServer(tmp_path / "corpus", tmp_path / "site", port=0)
    srv.start()
    try:
        assert srv.base_path == "/%E7%AC%94%E8%AE%B0/"
        status, _, headers = fetch(f"http://127.0.0.1:{srv.port}/", follow=False)
        assert status == 302 and headers["Location"] == srv.base_path
        assert fetch(srv.url)[0] == 200
        url = srv.url + "no/such/"
        status, html, _ = fetch(url)
        assert status == 404
        assert_all_resolve(html, url, srv.base_path)
    finally:
        srv.stop()
