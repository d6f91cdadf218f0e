"""README's figures for the bundled examples are what the built examples show, and `build` and `check` count
notes the same way (a note and its translations are one note)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from conftest import REPO
from papernotes.cli import app
from papernotes.layout import MANIFEST_NAME
from papernotes.site.build import BuildResult
from papernotes.site.manifest import read_manifest

COUNTS = re.compile(r"bundled example corpus \((\d+) notes, (\d+) of them with an English\s+translation; "
                    r"(\d+) venues, (\d+) domains\)")


def test_readme_counts_are_the_built_examples(example_site: tuple[Path, BuildResult]) -> None:
    found = COUNTS.findall((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(found) == 1, "README.md no longer states the examples' counts in the form this test reads"
    notes, translations, venues, domains = map(int, found[0])
    site, result = example_site
    pages = read_manifest((site / MANIFEST_NAME).read_bytes()).pages
    published = [p.url for p in pages if p.kind == "note" and not p.url.startswith("en/")]
    assert len(published) == result.notes == notes
    assert result.translations == translations
    assert len({url.split("/")[0] for url in published}) == venues
    assert len({url.split("/")[1] for url in published}) == domains
    home = (site / "index.html").read_text(encoding="utf-8")  # the totals the home page shows
    shown = re.findall(r'<span class="stat-number">(\d+)</span>', home)
    assert shown == [str(notes), str(venues), str(domains)]


def test_check_counts_as_build_does(example_site: tuple[Path, BuildResult]) -> None:
    site, result = example_site
    corpus = site.parent / "corpus"
    checked = CliRunner().invoke(app, ["check", str(corpus), "--no-formulas", "--no-classifier", "--json"])
    assert checked.exit_code == 0, checked.output
    data = json.loads(checked.stdout)
    assert (data["notes"], data["translations"]) == (result.notes, result.translations) == (47, 20)
