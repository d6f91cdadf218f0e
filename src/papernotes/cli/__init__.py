"""Command-line interface: ``papernotes`` and its commands, one module per pipeline stage.

The Typer application and what commands share live in ``cli.common``; each command module
registers its commands on it when imported. ``papernotes.cli.app`` is that application with
every command registered, done on first use, so the console entry (``cli.entry``) can import
one command module without the others.
"""
from __future__ import annotations

import sys
from typing import Any


def _registered() -> Any:
    # lazy: 195 ms (importtime, beside papernotes.cli): `--help` does not load it
    from papernotes.cli import classify, intake, translate, migrate, site, publish, export, taxonomy  # noqa: F401,I001  (pipeline order)
    from papernotes.cli.common import app

    return app


def __getattr__(name: str) -> Any:
    if name == "app":
        app = globals()["app"] = _registered()
        return app
    raise AttributeError(f"module 'papernotes.cli' has no attribute {name!r}")


def run() -> None:  # pragma: no cover - console entry for anything but a plain build (cli.entry)
    try:
        _registered()(prog_name="papernotes")
    except SystemExit as exc:
        if exc.code == INTERRUPTED:  # typer's exit on KeyboardInterrupt, which it ends silently
            interrupted()
        raise


INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT, as shells and typer have it)."""


def interrupted(after: str = "") -> None:
    """The one line Ctrl-C leaves (forked helpers end without a word: ``forks``); ``after``: what happens next."""
    sys.stderr.write(f"interrupted (Ctrl-C){': ' + after if after else ''}\n")
    sys.stderr.flush()


__all__ = ["INTERRUPTED", "app", "interrupted", "run"]
