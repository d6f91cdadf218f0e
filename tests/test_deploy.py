"""deploy: the built site as commits on a branch of a real (bare, local) remote; every refusal pushes nothing."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from papernotes.cli import app
from papernotes.deploy import TRAILER
from papernotes.starter import EXAMPLE_NOTE, init_site

runner = CliRunner()


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(autouse=True)
def git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Who commits, and no machine-wide git settings (CI has no global config)."""
    (tmp_path / "gitconfig").write_text("", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test Deployer")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "deployer@example.org")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A repository with a corpus in ``notes/`` (init's site, with a cname) and ``origin``, a bare repository."""
    git(tmp_path, "init", "--quiet", "--bare", "remote.git")
    work = tmp_path / "work"
    git(tmp_path, "init", "--quiet", "-b", "main", str(work))
    init_site(work / "notes")
    config = work / "notes" / "papernotes.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('# cname = ""', 'cname = "notes.example.org"'),
                      encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "notes")
    git(work, "remote", "add", "origin", str(tmp_path / "remote.git"))
    return work


def remote_log(repo: Path, branch: str = "gh-pages") -> list[str]:
    remote = repo.parent / "remote.git"
    if subprocess.run(["git", "rev-parse", "--verify", "--quiet", branch], cwd=remote).returncode:
        return []
    return git(remote, "log", "--format=%H", branch).splitlines()


def user_state(repo: Path) -> tuple[str, ...]:
    """HEAD, the current branch, the index, the working tree's status and the local branches."""
    return (git(repo, "rev-parse", "HEAD"), git(repo, "branch", "--show-current"), git(repo, "ls-files", "-s"),
            git(repo, "status", "--porcelain"), git(repo, "branch", "--list"))


def deploy(*args: str) -> object:
    return runner.invoke(app, ["deploy", *args])


def test_deploys_the_site_and_keeps_history(repo: Path) -> None:
    before = user_state(repo)
    result = deploy(str(repo / "notes"))
    assert result.exit_code == 0, result.output
    assert "deployed 1 notes" in result.output and "to origin/gh-pages" in result.output
    remote = repo.parent / "remote.git"
    [first] = remote_log(repo)
    assert git(remote, "log", "-1", "--format=%B", "gh-pages").splitlines()[-1] == TRAILER
    files = git(remote, "ls-tree", "-r", "--name-only", "gh-pages").splitlines()
    assert {".nojekyll", "CNAME", "index.html", "404.html", "assets/site.css", "assets/favicon.svg"} <= set(files)
    assert git(remote, "show", "gh-pages:CNAME") == "notes.example.org"
    assert not [f for f in files if f.endswith((".md", ".toml", ".sqlite")) or ".papernotes" in f
                or f.startswith(("notes/", ".git"))], files
    assert user_state(repo) == before  # working tree, index, HEAD and branches untouched

    note = repo / "notes" / EXAMPLE_NOTE
    text = note.read_text(encoding="utf-8")
    note.write_text(text.replace("## 一句话总结\n", "## 一句话总结\n新增 QZXW。\n", 1), encoding="utf-8")
    result = deploy(str(repo / "notes"), "-m", "Second deploy")
    assert result.exit_code == 0, result.output
    log = remote_log(repo)
    assert len(log) == 2 and log[1] == first and git(remote, "rev-parse", "gh-pages^") == first
    assert git(remote, "log", "-1", "--format=%s", "gh-pages") == "Second deploy"
    page = EXAMPLE_NOTE.removesuffix(".md") + "/index.html"
    assert "QZXW" in git(remote, "show", f"gh-pages:{page}")

    again = deploy(str(repo / "notes"))
    assert again.exit_code == 0 and "nothing pushed" in again.output and remote_log(repo) == log


def test_not_in_a_repository(tmp_path: Path) -> None:
    init_site(tmp_path / "loose")
    result = deploy(str(tmp_path / "loose"))
    assert result.exit_code == 1
    assert f"error: {tmp_path / 'loose'} is not in a git repository" in result.output


def test_no_such_remote(repo: Path) -> None:
    result = deploy(str(repo / "notes"), "--remote", "upstream")
    assert result.exit_code == 1
    assert "error: no remote named 'upstream'" in result.output and "(remotes: origin)" in result.output
    assert remote_log(repo) == []
    # the log would have shown a push: the same deploy to the remote that exists makes one commit there
    assert deploy(str(repo / "notes")).exit_code == 0 and len(remote_log(repo)) == 1


def test_a_branch_deploy_did_not_make_is_left_alone_unless_forced(repo: Path) -> None:
    git(repo, "push", "--quiet", "origin", "main:refs/heads/gh-pages")  # someone's own gh-pages
    theirs = remote_log(repo)
    result = deploy(str(repo / "notes"))
    assert result.exit_code == 1 and "was not made by papernotes deploy" in result.output and "--force" in result.output
    assert remote_log(repo) == theirs
    forced = deploy(str(repo / "notes"), "--force")
    assert forced.exit_code == 0, forced.output
    log = remote_log(repo)
    assert len(log) == len(theirs) + 1 and log[1:] == theirs  # on top: their history is kept


def test_a_refused_push_is_an_error(repo: Path) -> None:
    hook = repo.parent / "remote.git" / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'deploys are frozen today' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    result = deploy(str(repo / "notes"))
    assert result.exit_code == 1
    assert "error: origin refused the push to gh-pages:" in result.output
    assert "deploys are frozen today" in result.output
    assert remote_log(repo) == []


def test_git_without_an_identity(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.delenv(f"GIT_{role}_NAME")
        monkeypatch.delenv(f"GIT_{role}_EMAIL")
    git(repo, "config", "user.useConfigOnly", "true")  # no guessing from the host name
    result = deploy(str(repo / "notes"))
    assert result.exit_code == 1 and "git does not know who commits" in result.output
    assert remote_log(repo) == []


def test_cname_must_be_a_host_name(tmp_path: Path) -> None:
    from papernotes.config import load_config
    from papernotes.errors import ConfigError

    (tmp_path / "papernotes.toml").write_text('title = "t"\ncname = "https://notes.example.org/"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    [problem] = caught.value.diagnostics
    assert problem.line == 2
    assert "not a host name (no scheme, path or port): https://notes.example.org/" in problem.message
