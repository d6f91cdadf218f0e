"""``papernotes deploy``: build the site and push it as one commit on a branch (GitHub Pages' ``gh-pages``).

In: a corpus inside a git repository, a remote, a branch. Out: a commit whose
tree is the built site and nothing else (plus ``.nojekyll``, and ``CNAME`` from
the ``cname`` setting), whose parent is the branch's last commit on the remote
(history is kept), pushed to the remote. The way ``ghp-import`` (behind
``mkdocs gh-deploy``) does it, with git's plumbing: the tree is written through
a temporary index whose work tree is the built site, so the user's working
tree, index, HEAD and branches are never touched.

Every check that can fail runs before anything is pushed: the corpus is in a
repository, the remote exists, git knows who commits, the branch's last commit
was made by deploy (the ``Deployed-by`` trailer; ``force`` overrides). A push
the remote refuses (not a fast-forward, a hook) is reported with git's words.
Git has no identity of its own here: it is the user's (``user.name`` and
``user.email``, or ``GIT_AUTHOR_*``/``GIT_COMMITTER_*``), as for any commit.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from papernotes import __version__
from papernotes.config import SiteConfig, load_config
from papernotes.disk import MARKER
from papernotes.errors import CorpusError, Diagnostic, PapernotesError
from papernotes.layout import CACHE_DIR
from papernotes.site.build import BuildResult, build

TRAILER = "Deployed-by: papernotes"
"""The last line of every commit deploy makes: how it knows a branch is its own."""
SITE_DIR = "deploy"
"""The built site deploy commits, under the corpus' cache folder (kept, so the next build is incremental)."""


class DeployError(PapernotesError):
    """Deploy stopped before pushing anything; ``errors``: the notes' errors that caused it, if any."""

    def __init__(self, message: str, errors: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []


@dataclass(frozen=True, slots=True)
class Deployed:
    """What a deploy did."""

    build: BuildResult
    commit: str
    """The commit now at the tip of the remote branch."""
    pushed: bool
    """False when the site was the same as the branch's last commit (nothing to push)."""
    files: int
    """Files in the commit's tree."""


@dataclass(frozen=True, slots=True)
class Git:
    """Git commands run in one repository."""

    repo: Path

    def run(self, *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None,
            check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        try:
            done = subprocess.run(["git", *args], cwd=cwd or self.repo, input=stdin, capture_output=True,
                                  env={**os.environ, **(env or {})})
        except FileNotFoundError as exc:
            raise DeployError("git not found: deploy needs git on the PATH") from exc
        if check and done.returncode:
            raise DeployError(f"git {args[0]} failed: {_said(done)}")
        return done

    def out(self, *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None) -> str:
        return self.run(*args, env=env, stdin=stdin).stdout.decode().strip()

    def add_folder(self, folder: Path, env: dict[str, str], *excluded: str) -> None:
        """Stage every file of ``folder`` (but ``excluded``) at the top of the index ``env`` names."""
        git_dir = self.out("rev-parse", "--absolute-git-dir")
        self.run("--git-dir", git_dir, "--work-tree", str(folder.resolve()), "add", "--all", "--force", "--", ".",
                 *(f":(exclude){name}" for name in excluded), env=env, cwd=folder)


def _said(done: subprocess.CompletedProcess[bytes]) -> str:
    """Git's own message, on one line."""
    lines = [line.strip() for line in done.stderr.decode(errors="replace").splitlines() if line.strip()]
    return " / ".join(lines) or f"exit status {done.returncode}"


def find_repository(corpus: Path) -> Git:
    """The repository ``corpus`` is in."""
    if not corpus.is_dir():
        raise CorpusError(f"{corpus}: corpus directory not found")
    done = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=corpus, capture_output=True)
    if done.returncode:
        raise DeployError(f"{corpus} is not in a git repository: deploy commits the site to a branch of the "
                          "corpus' repository (git init, then git remote add origin URL)")
    return Git(Path(done.stdout.decode().strip()))


def remote_tip(git: Git, remote: str, branch: str) -> str | None:
    """The branch's last commit on the remote (fetched), or None when the remote has no such branch."""
    if git.run("remote", "get-url", remote, check=False).returncode:
        names = git.out("remote").split() or ["none"]
        raise DeployError(f"no remote named {remote!r} in {git.repo} (remotes: {', '.join(names)}); "
                          f"add one with git remote add {remote} URL, or pass --remote")
    listed = git.run("ls-remote", "--heads", remote, f"refs/heads/{branch}", check=False)
    if listed.returncode:
        raise DeployError(f"cannot reach remote {remote!r}: {_said(listed)}")
    if not listed.stdout.strip():
        return None
    tip = listed.stdout.split()[0].decode()
    fetched = git.run("fetch", "--quiet", "--no-tags", remote, f"refs/heads/{branch}", check=False)
    if fetched.returncode:
        raise DeployError(f"cannot fetch {branch} from {remote!r}: {_said(fetched)}")
    return tip


def _ours(git: Git, commit: str) -> bool:
    message = git.out("log", "-1", "--format=%B", commit)
    return TRAILER in message.splitlines()


def _identity(git: Git) -> None:
    for who in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
        done = git.run("var", who, check=False)
        if done.returncode:
            raise DeployError("git does not know who commits: set it with git config user.name \"Your Name\" and "
                              "git config user.email you@example.org (or GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, "
                              "GIT_COMMITTER_NAME, GIT_COMMITTER_EMAIL); nothing was pushed")


def site_tree(git: Git, site: Path, config: SiteConfig) -> tuple[str, int]:
    """The tree of the built ``site`` written into the repository, with ``.nojekyll`` and ``CNAME``: (id, files)."""
    with tempfile.TemporaryDirectory(prefix="papernotes-deploy-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git.add_folder(site, env, MARKER)
        extras = {".nojekyll": b""}  # GitHub Pages: publish as is, no Jekyll (it hides _folders)
        if config.cname:
            extras["CNAME"] = f"{config.cname}\n".encode()
        for name, data in extras.items():
            blob = git.out("hash-object", "-w", "--stdin", stdin=data)
            git.run("update-index", "--add", "--cacheinfo", f"100644,{blob},{name}", env=env)
        files = len(git.out("ls-files", env=env).splitlines())
        return git.out("write-tree", env=env), files


def deploy(corpus: Path, remote: str = "origin", branch: str = "gh-pages", message: str = "",
           force: bool = False) -> Deployed:
    """Build ``corpus`` and push it to ``remote``'s ``branch`` as a new commit on top of the branch."""
    git = find_repository(corpus)
    config, _ = load_config(corpus)
    parent = remote_tip(git, remote, branch)
    _identity(git)
    if parent is not None and not force and not _ours(git, parent):
        raise DeployError(f"the last commit of {branch} on {remote} ({parent[:12]}) was not made by papernotes "
                          f"deploy (no `{TRAILER}` line): deploying would put the site over it; pass --force to do "
                          "so anyway (history is kept), or deploy to another --branch")
    site = corpus / CACHE_DIR / SITE_DIR
    result = build(corpus, site)
    if result.notes == 0:
        raise DeployError(f"no note of {corpus} can be published; nothing was pushed", result.errors)
    tree, files = site_tree(git, site, config)
    if parent is not None and git.out("rev-parse", f"{parent}^{{tree}}") == tree:
        return Deployed(result, parent, False, files)
    text = (message or f"Deploy the site ({result.notes} notes, papernotes {__version__})").rstrip()
    commit = git.out("commit-tree", tree, *(["-p", parent] if parent else []), stdin=f"{text}\n\n{TRAILER}\n".encode())
    pushed = git.run("push", "--quiet", remote, f"{commit}:refs/heads/{branch}", check=False)
    if pushed.returncode:
        raise DeployError(f"{remote} refused the push to {branch}: {_said(pushed)}")
    return Deployed(result, commit, True, files)

