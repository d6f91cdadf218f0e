"""Command-line interface: ``papernotes`` and its commands, one module per pipeline stage.

``app`` lives in ``cli.app``; importing this package registers every command on it.
"""
from papernotes.cli import classify, intake, translate, migrate, site  # noqa: F401,I001  (each registers its commands, in pipeline order)
from papernotes.cli.app import app


def run() -> None:  # pragma: no cover - console entry for `python -m papernotes`
    app(prog_name="papernotes")


__all__ = ["app", "run"]
