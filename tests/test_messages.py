"""Messages that say what to do: papernotes.toml keys with a did-you-mean, a busy port with the one to try."""
from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import write_note
from papernotes.cli import app
from papernotes.cli.site import can_listen
from papernotes.config import load_config
from papernotes.errors import ConfigError

runner = CliRunner()


def config_errors(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "papernotes.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    return [f"{d.line}: {d.message}" for d in sorted(caught.value.diagnostics, key=lambda d: d.line)]


def test_a_mistyped_config_key_gets_the_key_meant(tmp_path: Path) -> None:
    assert config_errors(tmp_path, 'title = "x"\nbase_ulr = "https://a.org/"\ncolour = 1\n[llm]\nmodle = "m"\n'
                                   '[taxonomy]\ndomain = ["d.toml"]\n') == [
        "2: base_ulr: Extra inputs are not permitted; did you mean `base_url`?",
        "3: colour: Extra inputs are not permitted",
        "5: llm.modle: Extra inputs are not permitted; did you mean `model`?",
        "7: taxonomy.domain: Extra inputs are not permitted; did you mean `domains`?",
    ]


def test_a_key_of_a_table_written_at_the_top_says_where_it_goes(tmp_path: Path) -> None:
    assert config_errors(tmp_path, 'model = "qwen2.5:7b"\n') == [
        "1: model: Extra inputs are not permitted; `model` is a key of the [llm] table"]


def test_the_cli_prints_the_did_you_mean_with_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "papernotes.toml").write_text('title = "x"\nbase_ulr = "https://a.org/"\n', encoding="utf-8")
    result = runner.invoke(app, ["check", str(tmp_path), "--no-formulas", "--no-classifier"])
    assert result.exit_code != 0
    assert (f"{tmp_path / 'papernotes.toml'}:2: error: base_ulr: Extra inputs are not permitted; "
            "did you mean `base_url`?") in result.stderr


def test_a_busy_port_names_a_free_one_to_try_and_builds_nothing(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "ICML2024/optimization/a.md", title="A", venue="ICML2024", domain="optimization")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert not can_listen(port)
        result = runner.invoke(app, ["serve", str(corpus), "--port", str(port), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1
    found = re.search(rf"^error: cannot listen on 127\.0\.0\.1:{port}: port {port} is in use; try --port (\d+) "
                      r"\(--port 0 picks any free port\)$", result.stderr, re.M)
    assert found is not None, result.stderr
    assert int(found[1]) > port
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("url", ["example.org/notes", "//example.org/notes/", "ftp://example.org/", "https:///notes/",
                                 "notes/"])
def test_a_base_url_that_is_neither_a_url_nor_a_path_is_an_error_naming_the_key(tmp_path: Path, url: str) -> None:
    said = config_errors(tmp_path, f'title = "x"\nbase_url = "{url}"\n')
    assert len(said) == 1 and said[0].startswith(f"2: base_url: {url} is neither an absolute URL nor a path"), said


@pytest.mark.parametrize("url", ["https://example.org/notes/", "http://localhost:8000", "/", "/notes/"])
def test_a_base_url_that_is_a_url_or_a_path_is_taken(tmp_path: Path, url: str) -> None:
    (tmp_path / "papernotes.toml").write_text(f'base_url = "{url}"\n', encoding="utf-8")
    assert load_config(tmp_path)[0].base_url == url


def test_the_build_refuses_a_base_url_without_its_scheme_with_one_line(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "ICML2024/optimization/a.md", title="A", venue="ICML2024", domain="optimization")
    (corpus / "papernotes.toml").write_text('base_url = "example.org/notes"\n', encoding="utf-8")
    result = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{corpus / 'papernotes.toml'}:1: error: base_url: example.org/notes is neither an absolute URL nor a path: "
        "write it with its scheme (https://example.org/notes) or as a path from the host's root (such as /notes/)"]
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("port", ["80000", "-1"])
def test_a_port_out_of_range_is_one_line(tmp_path: Path, port: str) -> None:
    corpus = tmp_path / "c"
    write_note(corpus, "ICML2024/optimization/a.md", title="A", venue="ICML2024", domain="optimization")
    result = runner.invoke(app, ["serve", str(corpus), "--port", port, "-o", str(tmp_path / "site")])
    assert result.exit_code == 2
    assert result.stderr == f"error: --port {port}: a port is a number from 0 to 65535 (0 picks any free port)\n"
    assert not (tmp_path / "site").exists()
