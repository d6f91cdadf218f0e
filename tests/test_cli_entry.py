"""The console entry (``cli.entry``): a plain ``build`` goes straight to its command with the values
typer would pass; everything else goes through typer, and both behave the same from the shell."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES
from papernotes.cli import app
from papernotes.cli.entry import plain_build


def typer_params(args: list[str]) -> dict:
    """What typer's parser passes to the ``build`` command for ``args`` (``build`` excluded)."""
    import typer.main

    command = typer.main.get_command(app).commands["build"]  # type: ignore[attr-defined]
    with command.make_context("build", list(args)) as ctx:
        return dict(ctx.params)


PLAIN = [
    ["{c}"],
    ["{c}", "-o", "out"],
    ["{c}", "--output", "out/site", "-q"],
    ["{c}", "--output=out", "--quiet", "--strict"],
    ["-q", "{c}", "-j", "3", "--no-cache"],
    ["{c}", "--jobs=2", "--no-strict", "-o", "x y"],
    ["--strict", "-o", "s", "{c}"],
]

NOT_PLAIN = [
    [],
    ["{c}", "--help"],
    ["{c}", "-o"],  # a value missing
    ["{c}", "-o", "a", "-o", "b"],  # repeated
    ["{c}", "-qo", "x"],  # short flags together
    ["{c}", "-j", "two"],
    ["{c}", "-j", "-1"],
    ["{c}", "--jobs=", "-q"],
    ["{c}", "other"],  # a second argument
    ["{c}", "--unknown"],
    ["{c}", "--"],
    ["missing-folder"],
    ["a-file.md"],
]


@pytest.mark.parametrize("args", PLAIN)
def test_a_plain_build_gets_what_typer_would_pass(args: list[str], tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    argv = [a.replace("{c}", "corpus") for a in args]
    assert plain_build(["build", *argv]) == typer_params(argv)


@pytest.mark.parametrize("args", NOT_PLAIN)
def test_anything_else_is_left_to_typer(args: list[str], tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "a-file.md").write_text("x", encoding="utf-8")
    assert plain_build(["build", *[a.replace("{c}", "corpus") for a in args]]) is None


def test_other_commands_are_left_to_typer(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    for command in ("check", "serve", "--version", "--help", "buildx"):
        assert plain_build([command, "corpus"]) is None


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "papernotes", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_from_the_shell_both_paths_build_report_and_exit_alike(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "c")
    first = run("build", "c", "-o", "site", cwd=tmp_path)  # the direct path
    assert first.returncode == 0, first.stderr
    assert "47 notes" in first.stdout and "up to date" not in first.stdout
    again = run("build", "c", "-o", "site", cwd=tmp_path)
    assert again.returncode == 0 and "(up to date)" in again.stdout
    through_typer = run("build", "c", "--output", "site", "--output", "site", cwd=tmp_path)  # repeated: typer
    assert through_typer.returncode == 0 and "(up to date)" in through_typer.stdout
    quiet = run("build", "c", "-o", "site", "-q", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""


def test_from_the_shell_failures_keep_their_exit_status_and_message(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    empty = run("build", "empty", "-o", "site", cwd=tmp_path)  # direct path: the command raises typer.Exit(1)
    assert empty.returncode == 1 and "no notes in empty" in empty.stderr and "Traceback" not in empty.stderr
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    (corpus / "AAAI2026" / "x").mkdir(parents=True, exist_ok=True)
    (corpus / "AAAI2026" / "x" / "bad.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    strict = run("build", "c", "-o", "site", "--strict", cwd=tmp_path)
    assert strict.returncode == 1 and "AAAI2026/x/bad.md:2: error" in strict.stderr, strict.stderr
    assert "--strict" in strict.stderr and not (tmp_path / "site").exists()
    missing = run("build", "nowhere", "-o", "site", cwd=tmp_path)  # typer's path
    assert missing.returncode == 2 and "nowhere" in missing.stderr and "Traceback" not in missing.stderr
    as_file = run("build", "c/AAAI2026/x/bad.md", cwd=tmp_path)
    assert as_file.returncode == 2 and "Traceback" not in as_file.stderr


_LEFT_AT_ONCE = """
import atexit, sys
sys.argv = ["papernotes", *sys.argv[1:]]
atexit.register(print, "torn down")
from papernotes.cli.entry import console
console()
"""


def test_the_console_leaves_a_plain_build_at_once_with_its_status(tmp_path: Path) -> None:
    """No teardown (0.1 s after an edit at 50,000 notes) once the build is done; its output and status intact."""
    shutil.copytree(EXAMPLES, tmp_path / "c")

    def console(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", _LEFT_AT_ONCE, "build", *args], cwd=tmp_path,
                              env={**os.environ, "NO_COLOR": "1"}, capture_output=True, text=True, timeout=120,
                              check=False)

    built = console("c", "-o", "site")
    assert built.returncode == 0 and "47 notes" in built.stdout and "torn down" not in built.stdout
    (tmp_path / "c/ICML2024/optimization/bad.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    strict = console("c", "-o", "site", "--strict")
    assert strict.returncode == 1 and "bad.md:2: error" in strict.stderr and "torn down" not in strict.stdout
    assert (tmp_path / "site/index.html").exists()
    other = console("--help")  # through typer: a normal exit
    assert other.returncode == 0 and "torn down" in other.stdout


_MODULES_AFTER_BUILD = """
import sys
sys.argv = ["papernotes", *sys.argv[1:]]
from papernotes.cli import entry
try:
    entry.main()
except SystemExit as exc:
    status = exc.code
print(status, sorted({name.split(".")[0] for name in sys.modules} & {"typer", "rich", "click", "pydantic"}))
"""


def test_a_plain_build_imports_neither_typer_nor_rich(tmp_path: Path) -> None:
    """An up-to-date build is a scan and little else: typer and rich (~0.17 s) stay unloaded."""
    shutil.copytree(EXAMPLES, tmp_path / "c")
    env = {**os.environ, "NO_COLOR": "1"}

    def modules(*args: str) -> str:
        done = subprocess.run([sys.executable, "-c", _MODULES_AFTER_BUILD, "build", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120, check=False)
        return done.stdout.strip().splitlines()[-1]

    assert modules("c", "-o", "site", "-q") == "0 ['pydantic']"  # a full build reads the configuration
    assert modules("c", "-o", "site") == "0 []"  # up to date, and says so: not even the configuration schema
    assert modules("c", "-o", "site", "--strict") == "0 ['pydantic']"  # a full build again


def test_output_colours_follow_the_terminal_and_the_environment(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "c")
    (tmp_path / "c" / "AAAI2026" / "x").mkdir(parents=True, exist_ok=True)
    (tmp_path / "c" / "AAAI2026" / "x" / "bad.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    plain = run("build", "c", "-o", "site [1]", cwd=tmp_path)  # NO_COLOR, and a path rich would read as markup
    assert plain.returncode == 0 and "\x1b[" not in plain.stderr
    assert "AAAI2026/x/bad.md:2: error" in plain.stderr and "1 note(s) skipped" in plain.stderr
    assert "pages in site [1] (" in plain.stdout
    env = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    forced = subprocess.run([sys.executable, "-m", "papernotes", "build", "c", "-o", "site [1]"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=120, check=False)
    assert "\x1b[31mAAAI2026/x/bad.md:2: error" in forced.stderr
    assert "\x1b[33m1 note(s) skipped because of errors\x1b[0m" in forced.stderr


BLAS_PROBE = """
import json, sys
import threadpoolctl
if sys.argv[1] == "build":
    from papernotes.cli.entry import main
    sys.argv = ["papernotes", "build", *sys.argv[2:]]
    try:
        main()
    except SystemExit as exc:
        assert exc.code == 0, exc.code
import numpy
print(json.dumps([p["num_threads"] for p in threadpoolctl.threadpool_info() if p["internal_api"] == "openblas"]))
"""


def test_a_build_keeps_numpy_s_blas_to_one_thread_unless_told_otherwise(tmp_path: Path) -> None:
    """The build spreads its work over processes of its own: BLAS threads on top only oversubscribe the cores
    (``forks.one_blas_thread``). A value the user set is kept."""
    pytest.importorskip("threadpoolctl")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")}

    def threads(*args: str, **extra: str) -> list[int]:
        done = subprocess.run([sys.executable, "-c", BLAS_PROBE, *args], env={**env, **extra}, capture_output=True,
                              text=True, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    alone = threads("numpy")
    if not alone or max(alone) < 2:
        pytest.skip("numpy has no OpenBLAS, or it would run one thread here anyway")
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    assert threads("build", str(corpus), "-o", str(tmp_path / "a"), "-q") == [1] * len(alone)
    assert threads("build", str(corpus), "-o", str(tmp_path / "b"), "-q", OPENBLAS_NUM_THREADS="2") == [2] * len(alone)
