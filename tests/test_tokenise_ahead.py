"""A cold build that tokenises search records in a process of its own makes the same site as one that does not."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES
from papernotes.site import build as build_module
from papernotes.site.build import build
from sitecheck import site_contents


def test_tokenising_ahead_makes_the_same_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    (corpus / "papernotes.toml").write_text('title = "Notes"\n', encoding="utf-8")  # one edition
    started = []
    real = build_module.Builder._tokenise_ahead

    def spy(self, entries):  # type: ignore[no-untyped-def]
        real(self, entries)
        started.append(self._tokenising is not None)

    monkeypatch.setattr(build_module.Builder, "_tokenise_ahead", spy)
    monkeypatch.setattr(build_module, "TOKENISE_AHEAD_NOTES", 1)
    build(corpus, tmp_path / "ahead", workers=2)
    assert started == [True]
    monkeypatch.setattr(build_module, "TOKENISE_AHEAD_NOTES", 10**9)
    shutil.rmtree(corpus / ".papernotes")
    build(corpus, tmp_path / "plain", workers=2)
    assert started == [True, False]
    assert site_contents(tmp_path / "ahead") == site_contents(tmp_path / "plain")
    search = site_contents(tmp_path / "ahead")
    assert any(key.startswith("search/") for key in search)
