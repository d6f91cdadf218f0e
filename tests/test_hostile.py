"""The hostile corpus end to end: every attack is a named diagnostic, nothing leaves the site, the rest builds.

Run ``python tests/test_hostile.py --update`` to rewrite ``tests/hostile/expected-errors.txt``
after a deliberate change of wording (then read the diff).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

import bibtexparser  # the ingest extra, installed with `test`; building a site never imports it
import pytest
from typer.testing import CliRunner

import hostile_corpus
from conftest import write_note
from hostile_corpus import D, GENERATED_ERRORS, GENERATED_WARNINGS, OUTSIDE_TITLE, PUBLISHED
from papernotes.cli import app
from papernotes.site.build import Builder, build
from sitecheck import dead_links

runner = CliRunner()
_ERROR_LINE = re.compile(r"^.+?:\d+: error: .*$|^[^:\n]+: error: .*$", re.M)
_ATTRS = re.compile(r"<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]*))?)*)\s*/?>")
_OUR_FORMS = ("topsearch", "search-form")
_ATTR = re.compile(r"([^\s=>]+)(?:=(\"[^\"]*\"|'[^']*'|[^\s>]*))?")


def _snapshot(root: Path, skip: tuple[Path, ...]) -> dict[str, str]:
    """Every path under ``root`` (links not followed) -> what it is and holds."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if not any((here / d) == s for s in skip)
                       and not d.startswith(".site.")]
        for name in [*filenames, *dirnames]:
            path = here / name
            if any(path == s for s in skip) or name.startswith(".site."):
                continue
            st = path.lstat()
            if path.is_symlink():
                found[str(path)] = f"link {os.readlink(path)}"
            elif path.is_file():
                found[str(path)] = f"file {hashlib.sha1(path.read_bytes()).hexdigest()} {st.st_mtime_ns}"
            else:
                found[str(path)] = f"other {st.st_mode:o}"
    return found


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The hostile corpus, built once through the CLI: (layout, CLI result, snapshots before/after, roots)."""
    layout = hostile_corpus.make(tmp_path_factory.mktemp("hostile") / "a" / "b")
    skip = (layout.site, layout.corpus / ".papernotes")
    top = layout.base.parents[1]
    before = _snapshot(top, skip)
    roots = {p: os.path.lexists(p) for p in ("/index.html", "/X", "/b", "/y", "/tmp/x")}
    result = runner.invoke(app, ["build", str(layout.corpus), "-o", str(layout.site)])
    after = _snapshot(top, skip)
    return layout, result, before, after, roots


def test_every_attack_is_a_path_line_error_and_the_rest_builds(hostile) -> None:  # type: ignore[no-untyped-def]
    layout, result, *_ = hostile
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    printed = sorted(set(_ERROR_LINE.findall(result.output)))
    committed = [line for line in printed if not any(line.startswith(f"{p}:") for p, _, _ in GENERATED_ERRORS)]
    assert committed == sorted(hostile_corpus.expected_errors())
    generated = {line.split(": error: ")[0] for line in printed} - {
        line.split(": error: ")[0] for line in committed}
    assert generated == {f"{p}:{n}" if n else p for p, n, _ in GENERATED_ERRORS}
    assert re.search(r"\d+ notes → \d+ pages", result.output)


def test_the_additions_made_at_run_time_give_their_own_diagnostics(hostile) -> None:  # type: ignore[no-untyped-def]
    layout, *_ = hostile
    result = build(layout.corpus, layout.site)  # up to date: the problems come from the cache, unchanged
    assert result.up_to_date
    errors = {(d.path, d.line, d.code) for d in result.errors}
    assert GENERATED_ERRORS <= errors
    warnings = [(d.path, d.message) for d in result.diagnostics if not d.is_error]
    for path, start in GENERATED_WARNINGS:
        assert any(p == path and m.startswith(start) for p, m in warnings), (path, start, warnings)
    assert not any(p.endswith(("linked_in.md", "formula_50k.md", "dollars.md")) for p, _, _ in errors)


def test_nothing_is_written_outside_the_site(hostile) -> None:  # type: ignore[no-untyped-def]
    layout, _, before, after, roots = hostile
    assert after == before
    assert {p: os.path.lexists(p) for p in roots} == roots
    assert sorted(os.listdir(layout.site.parent)) == ["corpus", "site"]


def test_the_rest_of_the_site_has_no_dead_link_and_no_outside_text(hostile) -> None:  # type: ignore[no-untyped-def]
    layout, *_ = hostile
    site = layout.site
    assert dead_links(site) == []
    for url, title in PUBLISHED.items():
        page = (site / url / "index.html").read_text(encoding="utf-8")
        assert title.split(":")[0] in page, url
    passwd = Path("/etc/passwd").read_bytes()[:40]
    for path in site.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert OUTSIDE_TITLE.encode() not in data and b"secret body" not in data, path
            assert passwd not in data, path
            assert b"\0" not in data or path.suffix not in (".html", ".json"), path


def test_kept_aliases_redirect_and_refused_ones_leave_no_file(hostile) -> None:  # type: ignore[no-untyped-def]
    site = hostile[0].site
    for alias in ("old/place", "legacy/markdown-subset", "旧/page", "kept/alias", "also/kept", "tldr/old",
                  "many/0", "many/49"):
        page = (site / alias / "index.html").read_text(encoding="utf-8")
        assert 'http-equiv="refresh"' in page, alias
    assert not (site / "many/50").exists()
    assert not (site / "index.html").is_dir() and not (site / "search/index.json").is_dir()
    assert json.loads((site / "search/index.json").read_text(encoding="utf-8"))["docs"]  # the index is whole


def _tags(html: str):  # type: ignore[no-untyped-def]
    for m in _ATTRS.finditer(html):
        yield m.group(1).lower(), {k.lower(): (v or "").strip("\"'") for k, v in _ATTR.findall(m.group(2))}


def test_no_page_has_a_handler_a_script_url_or_a_script_of_the_notes(hostile) -> None:  # type: ignore[no-untyped-def]
    site = hostile[0].site
    for path in site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        if path.relative_to(site).parts[0] in ("domains", "topics"):  # the theme's own trend chart (SVG)
            html = re.sub(r'<figure class="trend">.*?</figure>', "", html, flags=re.S)
        for tag, attrs in _tags(html):
            if tag == "form" and attrs.get("class") in _OUR_FORMS:  # the templates' own search forms
                attrs = {k: v for k, v in attrs.items() if (k, v) != ("onsubmit", "return false")}
            else:
                assert tag not in ("iframe", "object", "embed", "form", "base", "svg", "math", "style", "template"), (
                    path, tag)
            assert not [a for a in attrs if a.startswith("on")], (path, tag, attrs)
            assert "style" not in attrs or tag in ("th", "td"), (path, tag, attrs)
            for key in ("href", "src", "action", "formaction", "data", "poster", "srcset"):
                if key in attrs:
                    assert urlsplit(attrs[key]).scheme in ("", "http", "https", "mailto"), (path, tag, attrs)
                    assert "evil.invalid" not in attrs[key], (path, tag, attrs)
            if tag == "meta" and attrs.get("http-equiv") == "refresh":
                assert "evil" not in attrs.get("content", "") and path.parent.name != "xss_body", path
        for attrs, content in re.findall(r"<script([^>]*)>([^<]*)", html):
            if attrs in (' type="application/ld+json"', ' type="application/json" id="search-strings"'):  # data: JSON
                json.loads(content)
                continue
            src = re.search(r'src="([^"]*)"', attrs)
            ours = "localStorage" in content or content.startswith("window.__searchManifest = ")  # theme, search prefetch
            assert (src and "assets/" in src.group(1)) or ours, (path, attrs, content[:80])
    listing = (site / D / "index.html").read_text(encoding="utf-8")
    assert 'href="./javascript:alert(1)%3C!--/"' in listing


def test_search_records_are_plain_text_with_checked_urls(hostile) -> None:  # type: ignore[no-untyped-def]
    from papernotes.site.search.contents import index_contents

    urls = [row[-1] for row in index_contents(hostile[0].site).documents]
    assert f"{D}javascript:alert(1)<!--/" in urls
    for url in urls:
        assert ".." not in url.split("/") and not re.search(r"[\x00-\x1f\\%?#]", url) and not url.startswith("/")


def test_citation_tags_and_bib_files_hold_hostile_text_as_text(hostile) -> None:  # type: ignore[no-untyped-def]
    site = hostile[0].site
    html = (site / D / "xss_summary/index.html").read_text(encoding="utf-8")
    tags = [attrs for tag, attrs in _tags(html) if tag == "meta" and attrs.get("name", "").startswith("citation_")]
    assert [a["name"] for a in tags] == ["citation_title", "citation_author", "citation_publication_date",
                                         "citation_conference_title"]
    # the payloads are escaped inside the attribute: no tag of theirs reaches the page
    assert '<meta name="citation_author" content="&lt;img src=x onerror=&#34;window.__pwned=&#39;author&#39;&#34;&gt;">' \
        in html
    assert '<meta name="citation_title" content="&lt;script&gt;window.__pwned=&#39;title&#39;&lt;/script&gt;Title' in html
    assert "<script>window.__pwned" not in html
    bib = (site / "bib" / f"{D.replace('/', '-').rstrip('-')}.bib").read_text(encoding="utf-8")
    library = bibtexparser.parse_string(bib)
    assert not library.failed_blocks
    listed = (site / D / "index.html").read_text(encoding="utf-8").count("<dt>")
    assert listed >= 3 and len(library.entries) == listed


# ------------------------------------------------------------------ settings, render time, watcher, import


def test_trust_html_publishes_raw_bodies_but_never_raw_titles_or_summaries(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    body = '## Method\n<script>var hand = "written";</script>\n<div style="color: red">styled</div>\n'
    write_note(corpus, "A/b/n.md", title="<i>T</i>", venue="ICML2024", domain="optimization",
               summary="<img src=x onerror=alert(1)> s", body=body)
    build(corpus, tmp_path / "safe")
    page = (tmp_path / "safe/ICML2024/optimization/n/index.html").read_text(encoding="utf-8")
    assert "hand" not in page and 'style="color: red"' not in page and "styled" in page
    (corpus / "papernotes.toml").write_text("trust_html = true\n", encoding="utf-8")
    build(corpus, tmp_path / "trusted")
    page = (tmp_path / "trusted/ICML2024/optimization/n/index.html").read_text(encoding="utf-8")
    assert '<script>var hand = "written";</script>' in page and '<div style="color: red">' in page
    listing = (tmp_path / "trusted/ICML2024/optimization/index.html").read_text(encoding="utf-8")
    for html in (page, listing):
        assert "<img" not in html and "<i>T</i>" not in html and "&lt;i&gt;T&lt;/i&gt;" in html


def test_a_note_swapped_for_a_link_out_of_the_corpus_is_not_read_at_render_time(tmp_path: Path) -> None:
    from papernotes.config import SiteConfig
    from papernotes.corpus.load import read_note
    from papernotes.site.kinds.note import note_page
    from papernotes.site.resolve import resolve
    from papernotes.site.strings import labels_for
    from papernotes.site.theme import Theme
    from papernotes.taxonomy import load_taxonomy

    corpus = tmp_path / "c"
    path = write_note(corpus, "A/b/n.md", title="T", venue="ICML2024", domain="optimization", body="## Method\nmine\n")
    note, problems, _ = read_note(corpus, "A/b/n.md")
    entries, _ = resolve([note], problems, load_taxonomy())
    page = note_page(entries[0], None, None, labels_for("en"), {}, frozenset())
    secret = tmp_path / "secret.md"
    secret.write_text(path.read_text(encoding="utf-8").replace("mine", OUTSIDE_TITLE), encoding="utf-8")
    path.unlink()
    path.symlink_to(secret)  # after the scan and the parse, before the render
    html, found = Theme(SiteConfig(), corpus.resolve(), precompile=False).render(page)
    assert OUTSIDE_TITLE not in html.decode()
    assert [d.code for d in found] == ["io"] and "outside the corpus" in found[0].message


def test_a_watched_edit_that_turns_a_note_into_a_link_out_of_the_corpus(tmp_path: Path) -> None:
    corpus, site = tmp_path / "c", tmp_path / "site"
    path = write_note(corpus, "A/b/n.md", title="T", venue="ICML2024", domain="optimization")
    write_note(corpus, "A/b/m.md", title="M", venue="ICML2024", domain="optimization")
    builder = Builder(corpus, site)
    builder.build()
    secret = tmp_path / "secret.md"
    secret.write_text(path.read_text(encoding="utf-8").replace("title: T", f"title: {OUTSIDE_TITLE}"),
                      encoding="utf-8")
    path.unlink()
    path.symlink_to(secret)
    result = builder.build(edited=["A/b/n.md"])
    assert any(d.path == "A/b/n.md" and "outside the corpus" in d.message for d in result.diagnostics)
    assert not (site / "ICML2024/optimization/n").exists()
    assert all(OUTSIDE_TITLE.encode() not in p.read_bytes() for p in site.rglob("*") if p.is_file())


def test_import_mkdocs_copies_only_from_inside_docs(tmp_path: Path) -> None:
    from papernotes.migrate.tree import import_tree

    docs, dest, outside = tmp_path / "docs", tmp_path / "dest", tmp_path / "outside"
    (docs / "ICML2024/optimization").mkdir(parents=True)
    outside.mkdir()
    (outside / "evil.md").write_text(f"# {OUTSIDE_TITLE}\n\nsecret body\n", encoding="utf-8")
    (docs / "ICML2024/optimization/good.md").write_text("# Good\n\n## 一句话总结\nfine\n", encoding="utf-8")
    (docs / "ICML2024/optimization/passwd.md").symlink_to("/etc/passwd")
    (docs / "ICML2024/optimization/evil.md").symlink_to(outside / "evil.md")
    (docs / "ICML2024/linked").symlink_to(outside, target_is_directory=True)
    os.mkfifo(docs / "ICML2024/optimization/fifo.md")
    result = runner.invoke(app, ["import-mkdocs", str(docs), str(dest)])
    assert "Traceback" not in result.output, result.output
    report = import_tree(docs, dest)
    assert {(d.path, d.code) for d in report.diagnostics} >= {
        ("ICML2024/optimization/passwd.md", "outside-docs"), ("ICML2024/optimization/evil.md", "outside-docs"),
        ("ICML2024/optimization/fifo.md", "io")}
    written = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.md"))
    assert written == ["ICML2024/optimization/good.md"]
    assert all(OUTSIDE_TITLE.encode() not in p.read_bytes() and b"root:" not in p.read_bytes()
               for p in dest.rglob("*") if p.is_file())


def _update_expected() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        layout = hostile_corpus.make(Path(tmp))
        result = build(layout.corpus, layout.site)
        generated = {p for p, _, _ in GENERATED_ERRORS}
        lines = sorted({str(d) for d in result.errors if d.path not in generated})
    hostile_corpus.EXPECTED.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{hostile_corpus.EXPECTED}: {len(lines)} errors")


if __name__ == "__main__" and "--update" in sys.argv:
    _update_expected()
