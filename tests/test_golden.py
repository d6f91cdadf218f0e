"""Golden site: a fresh build of examples/ is exactly the tree committed under tests/golden/.

Any change to what the site shows (templates, Markdown rendering, planning, counts,
assets, the published record) shows up here as a readable diff. When the change is
intended, regenerate the tree with ``python scripts/update_golden.py`` and commit it.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from conftest import REPO

_spec = importlib.util.spec_from_file_location("update_golden", REPO / "scripts" / "update_golden.py")
assert _spec and _spec.loader
golden = importlib.util.module_from_spec(_spec)
sys.modules["update_golden"] = golden
_spec.loader.exec_module(golden)

COMMAND = "python scripts/update_golden.py"


def test_the_examples_build_to_the_golden_site(tmp_path: Path) -> None:
    expected = golden.read_golden()
    assert expected, f"tests/golden/ is empty: run {COMMAND}"
    actual = golden.snapshot(golden.build_examples(tmp_path))
    report = golden.differences(expected, actual)
    assert not report, f"the built examples differ from tests/golden/:\n{report}\n\nIf the change is intended: {COMMAND}"


def test_the_comparison_reports_a_readable_diff() -> None:
    page = '<!doctype html>\n<html><body><main><h1>Title</h1>\n<p>Some <em>text</em></p><pre>a\n  b</pre></main></body></html>'
    before = golden.normalise_html(page, "9.9.9")
    assert before.splitlines() == ["<!doctype html>", "<html>", "<body>", "<main>", "<h1>", "Title", "</h1>", "<p>",
                                   "Some", "<em>", "text", "</em>", "</p>", "<pre>", "a", "  b", "</pre>", "</main>",
                                   "</body>", "</html>"]
    after = golden.normalise_html(page.replace("Some", "Other"), "9.9.9")
    report = golden.differences({"examples/x.html": before, "examples/gone.html": ""},
                                {"examples/x.html": after, "examples/new.html": ""})
    assert "1 golden file(s) no longer built: examples/gone.html" in report
    assert "1 new file(s) not in the golden tree: examples/new.html" in report
    assert "--- tests/golden/examples/x.html\n+++ built/examples/x.html" in report
    assert "\n-Some\n+Other\n" in report
    assert golden.normalise_html("<p>papernotes 9.9.9</p>", "9.9.9") == "<p>\npapernotes {version}\n</p>\n"
