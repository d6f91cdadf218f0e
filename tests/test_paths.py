"""Path rules (paths.py), the relative URLs pages use, and the publisher's last guard."""
from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from papernotes.errors import BuildError
from papernotes.layout import MANIFEST_NAME
from papernotes import disk, paths
from papernotes.disk import MARKER, Staging
from papernotes.site.theme import relative_url

ALIASES = [
    # (alias as written, URL it becomes, or the start of the refusal)
    ("old/place", "old/place/", None),
    ("/old/place/", "old/place/", None),
    ("ICML2024/nlp/%E4%B8%AD/", "ICML2024/nlp/中/", None),
    ("论文/旧地址", "论文/旧地址/", None),
    ("weird:name", None, "must be a path on this site"),
    ("./x", None, "cannot be a folder name"),
    ("../../X", None, "cannot be a folder name"),
    ("a/../../b", None, "cannot be a folder name"),
    ("%2e%2e/%2e%2e/y", None, "cannot be a folder name"),
    ("%2E%2E/y", None, "cannot be a folder name"),
    ("%252e%252e/y", None, "percent-encoded twice"),
    ("%ff/y", None, "not UTF-8"),
    ("a//b", None, "cannot be a folder name"),
    ("/", None, "home page"),
    ("", None, "home page"),
    ("///", None, "not a URL"),
    ("a\\..\\b", None, "backslash"),
    ("http://evil.invalid/", None, "not a URL"),
    ("//evil.invalid/x", None, "not a URL"),
    ("JavaScript:alert(1)", None, "not a URL"),
    ("a\x00b", None, "U+0000"),
    ("a%00b", None, "U+0000"),
    ("a\nb", None, "U+000A"),
    ("a%0Ab", None, "U+000A"),
    ("a\u2028b", None, "U+2028"),
    ("a\x7fb", None, "U+007F"),
    ("q?x", None, "'?'"),
    ("f#x", None, "'#'"),
    ("a" * 256, None, "256 bytes long"),
    ("a" * 255, "a" * 255 + "/", None),
    ("é" * 128, None, "256 bytes long"),
    ("/".join(["b" * 250] * 5), None, "at most 1024"),
    ("index.html", None, "file name of every page"),
    ("x/INDEX.HTML", None, "file name of every page"),
    ("404.html", None, "a name the site uses"),
    ("Search/x", None, "a name the site uses"),
    ("assets/site.css", None, "a name the site uses"),
    (MANIFEST_NAME, None, "a name the site uses"),
    (MARKER, None, "a name the site uses"),
    ("topics/x", None, "a name the site uses"),
]


@pytest.mark.parametrize("alias,url,refusal", ALIASES, ids=[repr(a[0])[:40] for a in ALIASES])
def test_alias_rules(alias: str, url: str | None, refusal: str | None) -> None:
    if url is not None:
        assert paths.alias_url(alias) == url
        assert paths.alias_url(url) == url  # normalised aliases are fixed points (the redirect kind re-checks)
        assert paths.safe_relpath(url + "index.html")
        return
    with pytest.raises(paths.UnsafePath) as caught:
        paths.alias_url(alias)
    assert refusal in str(caught.value) and caught.value.key == "aliases"
    assert "\n" not in str(caught.value) and "\x00" not in str(caught.value)


@pytest.mark.parametrize("venue,domain,slug,key", [
    ("ICML2024", "optimization", "..", "slug"),
    ("ICML2024", "optimization", "a/b", "slug"),
    ("ICML2024", "optimization", "a\\b", "slug"),
    ("ICML2024", "optimization", "a\x00b", "slug"),
    ("ICML2024", "optimization", "a\nb", "slug"),
    ("ICML2024", "optimization", "%2e%2e", "slug"),
    ("ICML2024", "optimization", "index.html", "slug"),
    ("ICML2024", "optimization", "s" * 300, "slug"),
    ("ICML2024", "optimization", "\udcff", "slug"),
    ("ICML2024", "d" * 300, "x", "domain"),
    ("V" * 300, "optimization", "x", "venue"),
    ("search", "optimization", "x", "venue"),
    ("Assets", "optimization", "x", "venue"),
    ("index.html", "optimization", "x", "venue"),
])
def test_note_url_rules(venue: str, domain: str, slug: str, key: str) -> None:
    with pytest.raises(paths.UnsafePath) as caught:
        paths.note_url(venue, domain, slug)
    assert caught.value.key == key


def test_note_urls_that_are_fine() -> None:
    assert paths.note_url("ICML2024", "optimization", "javascript:alert(1)<!--") == \
        "ICML2024/optimization/javascript:alert(1)<!--/"
    assert paths.note_url("ICML2024", "optimization", "中文 标题") == "ICML2024/optimization/中文 标题/"


def test_every_top_level_name_of_a_built_site_is_reserved_or_a_venue(example_site) -> None:  # type: ignore[no-untyped-def]
    site, result = example_site
    venues = {e.name for e in site.iterdir() if e.is_dir() and (e / "index.html").is_file()
              and e.name[:1].isupper()}
    assert {e.name for e in site.iterdir()} - venues <= paths.RESERVED_TOP
    assert {MARKER, MANIFEST_NAME, "index.html", "404.html", "assets", "search"} <= paths.RESERVED_TOP


@pytest.mark.parametrize("rel,ok", [
    ("a/index.html", True), ("index.html", True), ("a/b c/中/index.html", True),
    ("../x", False), ("a/../../x", False), ("/etc/x", False), ("a//b", False), ("./a", False), ("", False),
    ("a\x00b", False), ("a\\b", False), ("a/" + "n" * 256, False), ("a/" + "n" * 255, True),
])
def test_safe_relpath(rel: str, ok: bool) -> None:
    assert paths.safe_relpath(rel) is ok


@pytest.mark.parametrize("target,current,expected", [
    ("ICML2024/optimization/javascript:alert(1)<!--/", "ICML2024/optimization/", "./javascript:alert(1)%3C!--/"),
    ("ICML2024/optimization/javascript:x/", "ICML2024/optimization/other/", "../javascript:x/"),
    ("a:b/", "", "./a:b/"),
    ("ICML2024/", "", "ICML2024/"),
    ("ICML2024/optimization/x/", "ICML2024/", "optimization/x/"),
    ('V/d/"><img src=x>/', "V/d/", "%22%3E%3Cimg%20src=x%3E/"),
    ("https://example.org/", "V/", "https://example.org/"),
    ("#frag", "V/", "#frag"),
])
def test_relative_urls_never_read_as_a_scheme(target: str, current: str, expected: str) -> None:
    assert relative_url(target, current) == expected


def test_the_publisher_refuses_to_write_outside_the_site(tmp_path: Path) -> None:
    staging = Staging(tmp_path / "site")
    staging.begin(incremental=False)
    for rel in ("../escape.html", "/tmp/escape.html", "a/../../escape.html", "a\x00b", "a/" + "n" * 300):
        with pytest.raises(BuildError, match="outside the site"):
            staging.write(rel, b"x")
    staging.write("ok/index.html", b"x")
    staging.commit({})
    assert (tmp_path / "site/ok/index.html").read_bytes() == b"x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]

    staging.begin(incremental=True)
    with pytest.raises(BuildError, match="outside the site"):
        staging.planned_writes(["../escape.html"])
    with pytest.raises(BuildError, match="outside the site"):
        staging.remove("../../etc/passwd")
    staging.abort()


def test_a_tampered_journal_is_refused_before_any_move(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / MARKER).write_text("{}", encoding="utf-8")
    (tmp_path / ".site.staging").mkdir()
    (tmp_path / ".site.staging" / "f").write_bytes(b"evil")
    (tmp_path / ".site.journal").write_text(json.dumps([["f", "../escaped.html"]]), encoding="utf-8")
    with pytest.raises(BuildError, match="outside the site"):
        Staging(site).recover()
    assert not (tmp_path / "escaped.html").exists()


def test_a_symlink_inside_the_live_site_cannot_redirect_a_move(tmp_path: Path) -> None:
    site, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    site.mkdir()
    elsewhere.mkdir()
    (site / MARKER).write_text("{}", encoding="utf-8")
    (site / "a").symlink_to(elsewhere, target_is_directory=True)
    staging = Staging(site)
    staging.begin(incremental=True)
    staging.write("a/index.html", b"x")
    staging.planned_writes(["a/index.html"])
    with pytest.raises(BuildError, match="outside the site"):
        staging.commit({})
    assert list(elsewhere.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="an old site is deleted by rm in the background on POSIX only")
def test_an_old_site_being_deleted_is_left_to_the_rm_deleting_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    site.mkdir()
    old = tmp_path / ".site.old-1-2"  # what a build swapped out; its rm outlives the build
    (old / "venue").mkdir(parents=True)
    (old / "venue/index.html").write_text("x", encoding="utf-8")
    slow_rm = tmp_path / "slow-rm"  # an rm still at work on a large tree when the next build starts
    slow_rm.write_text(f"#!/bin/sh\nsleep 1\nexec {disk.shutil.which('rm')} \"$@\"\n", encoding="utf-8")
    slow_rm.chmod(0o755)
    monkeypatch.setattr(disk.shutil, "which", lambda name: str(slow_rm))
    started: list[object] = []
    real_popen = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(a[0]) or real_popen(*a, **k))
    for _ in range(3):  # three builds in a row: one rm
        Staging(site).recover()
    assert len(started) == 1 and old.exists()
    deadline = time.monotonic() + 30
    while old.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not old.exists()
    Staging(site).recover()
    assert len(started) == 1  # nothing left to delete
