"""Every page of the built examples is valid HTML for html-validate: content model, landmarks, ARIA, ids.

html-validate (MIT, from npm) is not vendored: `.ci/run` installs it into tests/.node/ (git-ignored); an
``html-validate`` on the PATH serves too. Skipped when neither it nor node is there.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

LOCAL = Path(__file__).parent / ".node" / "node_modules" / ".bin" / "html-validate"
CONFIG = {
    "root": True,
    "extends": ["html-validate:recommended"],
    "rules": {
        "doctype-style": "off",  # <!doctype html> in lower case is as valid as upper case
        "long-title": "off",     # a paper's title is the page's title, however long
        "valid-id": "off",       # HTML ids may begin with a digit (a domain slug such as 3d_vision)
        "wcag/h32": "off",       # the header's one-field search form submits with Enter, as HTML specifies
    },
}


def html_validate() -> str | None:
    if shutil.which("node") is None:
        return None
    return str(LOCAL) if LOCAL.exists() else shutil.which("html-validate")


def test_the_built_examples_have_no_html_validate_error(example_site, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    command = html_validate()
    if command is None:
        pytest.skip("html-validate not installed (.ci/run installs it with npm into tests/.node/)")
    site = example_site[0]
    config = tmp_path / "htmlvalidate.json"
    config.write_text(json.dumps(CONFIG), encoding="utf-8")
    report = tmp_path / "report.json"  # a file: node cuts a long report written to a pipe when it exits
    run = subprocess.run([command, "--config", str(config), "--ext", "html", "--formatter", f"json={report}", str(site)],
                         capture_output=True, text=True, timeout=300)
    assert report.exists(), run.stderr
    problems = [f"{Path(f['filePath']).relative_to(site)}:{m['line']}: {m['ruleId']}: {m['message']}"
                for f in json.loads(report.read_text(encoding="utf-8")) for m in f["messages"]]
    assert len(list(site.rglob("*.html"))) > 100
    assert problems == [], "\n".join(problems[:40])
