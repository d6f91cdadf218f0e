"""Publishing commands: ``init`` (start a site) and ``deploy`` (push the built site to a branch).

Thin: each reads its options, calls ``starter.init_site`` or ``deploy.deploy``
and prints what it did; stage modules are imported inside the commands so
``papernotes --help`` stays instant.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from papernotes.cli.common import CorpusArg, app, fail, out
from papernotes.cli.output import report
from papernotes.errors import PapernotesError


@app.command()
def init(
    folder: Annotated[Path, typer.Argument(help="Folder of the new site (made if missing).", file_okay=False,
                                           show_default=False)],
    github: Annotated[bool, typer.Option("--github", help="Also write a GitHub Actions workflow that builds the "
                                         "site and deploys it to GitHub Pages.")] = False,
) -> None:
    """Start a site: papernotes.toml (every setting, commented out at its default), an example note, a .gitignore.

    Never overwrites a file: if any file it would write exists, nothing is written (exit status 1).
    """
    # lazy: 217 ms (importtime, beside papernotes.cli.publish): `--help` does not load it
    from papernotes.starter import init_site

    try:
        written = init_site(folder, github=github)
    except PapernotesError as exc:
        raise fail(exc) from None
    for path in written:
        out.print(f"created {path}")
    out.print(f"next: papernotes check {folder}, then papernotes serve {folder}")


@app.command()
def deploy(
    corpus: CorpusArg,
    remote: Annotated[str, typer.Option(help="Git remote to push to.")] = "origin",
    branch: Annotated[str, typer.Option(help="Branch that receives the built site.")] = "gh-pages",
    message: Annotated[str, typer.Option("-m", "--message", help="Commit message (default: what was deployed).",
                                         show_default=False)] = "",
    force: Annotated[bool, typer.Option("--force", help="Deploy even when the branch's last commit was not made "
                                        "by papernotes deploy (the commit goes on top: history is kept).")] = False,
) -> None:
    """Build the site and push it as a new commit on a branch of the corpus' git repository (GitHub Pages).

    The branch holds the built site only, with .nojekyll and, from the cname setting, CNAME; the working tree, index and current branch are left alone. Commits use git's identity (user.name, user.email). Nothing is pushed when a check fails: no repository, no such remote, a branch deploy did not make (unless --force), a push the remote refuses (exit status 1).
    """
    # lazy: 335 ms (importtime, beside papernotes.cli.publish): `--help` does not load it
    from papernotes.deploy import deploy as run

    try:
        done = run(corpus, remote=remote, branch=branch, message=message, force=force)
    except PapernotesError as exc:
        raise fail(exc) from None
    report(done.build.diagnostics)
    if done.pushed:
        out.print(f"deployed {done.build.notes} notes ({done.files} files) to {remote}/{branch} as {done.commit[:12]}")
    else:
        out.print(f"{remote}/{branch} already holds this site ({done.commit[:12]}): nothing pushed")
