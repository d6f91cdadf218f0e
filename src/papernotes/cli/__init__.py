"""Command-line interface: ``papernotes`` and its commands, one module per pipeline stage.

The Typer application and what commands share live in ``cli.common``; each command module
registers its commands on it when imported. ``papernotes.cli.app`` is that application with
every command registered, done on first use, so the console entry (``cli.entry``) can import
one command module without the others.
"""
from __future__ import annotations

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
    _registered()(prog_name="papernotes")


__all__ = ["app", "run"]
