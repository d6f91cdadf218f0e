"""init: a new site that checks and builds, a config that lists the whole schema, a Pages workflow."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml_rs
from pydantic import BaseModel
from typer.testing import CliRunner

from papernotes import __version__
from papernotes.cli import app
from papernotes.config import SiteConfig, load_config
from papernotes.starter import EXAMPLE_NOTE, UNSET, WORKFLOW, config_text

runner = CliRunner()
KEY_LINE = re.compile(r"^# (\w+) = (.*)$")


def schema_keys() -> set[str]:
    """Every setting of papernotes.toml as ``key`` or ``table.key``."""
    keys = set()
    for name, field in SiteConfig.model_fields.items():
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            keys |= {f"{name}.{sub}" for sub in field.annotation.model_fields}
        else:
            keys.add(name)
    return keys


def uncommented(text: str) -> tuple[str, set[str]]:
    """The config with every ``# key = default`` line made live (but unset ones), and every key listed."""
    lines, listed, table = [], set(), ""
    for line in text.splitlines():
        if line.startswith("["):
            table = line.strip("[]") + "."
        if m := KEY_LINE.match(line):
            listed.add(table + m[1])
            if m[2] != UNSET:
                line = f"{m[1]} = {m[2]}"
        lines.append(line)
    return "\n".join(lines), listed


def test_the_config_lists_every_setting_at_its_default() -> None:
    text = config_text()
    assert tomllib.loads(text) == {"taxonomy": {}, "llm": {}}  # as written: every key commented out
    live, listed = uncommented(text)
    assert len(listed) >= 25 and listed == schema_keys()
    data = tomllib.loads(live)
    assert SiteConfig.model_validate(data) == SiteConfig()  # each listed value is the schema's default
    assert "# Custom domain of the published site" in text and "One of: zh, en." in text


def test_init_then_check_and_build(tmp_path: Path) -> None:
    site = tmp_path / "mysite"
    result = runner.invoke(app, ["init", str(site)])
    assert result.exit_code == 0, result.output
    assert {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()} == {
        "papernotes.toml", ".gitignore", EXAMPLE_NOTE}
    assert load_config(site)[0] == SiteConfig()
    ignored = (site / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "/site/" in ignored and ".papernotes/" in ignored
    checked = runner.invoke(app, ["check", str(site)])
    assert checked.exit_code == 0 and "1 notes checked: 0 error(s), 0 warning(s)" in checked.output, checked.output
    built = runner.invoke(app, ["build", str(site), "-o", str(tmp_path / "out")])
    assert built.exit_code == 0, built.output
    assert "Adam" in (tmp_path / "out" / "ICLR2015" / "optimization" / "adam_a_method_for_stochastic_optimization"
                      / "index.html").read_text(encoding="utf-8")


def test_the_github_workflow_builds_and_deploys_to_pages(tmp_path: Path) -> None:
    result = runner.invoke(app, ["init", str(tmp_path), "--github"])
    assert result.exit_code == 0, result.output
    flow = yaml_rs.loads((tmp_path / WORKFLOW).read_text(encoding="utf-8"))
    assert flow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    build, deploy = flow["jobs"]["build"]["steps"], flow["jobs"]["deploy"]["steps"]
    runs = [s["run"] for s in build if "run" in s]
    assert f'pip install "papernotes=={__version__}"' in runs and "papernotes build . -o site" in runs
    upload = next(s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "site"
    assert [s["uses"].split("@")[0] for s in deploy] == ["actions/deploy-pages"]
    assert flow["jobs"]["deploy"]["needs"] == "build"
    assert flow["jobs"]["deploy"]["environment"]["name"] == "github-pages"


def test_init_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "papernotes.toml").write_text('title = "mine"\n', encoding="utf-8")
    result = runner.invoke(app, ["init", str(tmp_path), "--github"])
    assert result.exit_code == 1
    assert f"error: {tmp_path}: would overwrite {tmp_path / 'papernotes.toml'};" in result.output
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["papernotes.toml"]  # nothing else written
    assert (tmp_path / "papernotes.toml").read_text(encoding="utf-8") == 'title = "mine"\n'


def test_init_adds_to_a_folder_without_those_files(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# my notes\n", encoding="utf-8")
    result = runner.invoke(app, ["init", str(tmp_path), "--github"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / WORKFLOW).is_file() and (tmp_path / "README.md").read_text(encoding="utf-8") == "# my notes\n"
