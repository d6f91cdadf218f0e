"""``papernotes init``: the files a new site starts from.

In: a folder (new, empty, or one without any of the files to write) and
whether to add a GitHub Pages workflow. Out: ``papernotes.toml`` listing every
setting of the schema (``config.SiteConfig``) with its help and default,
commented out, so the file cannot drift from the code; one example note; a
``.gitignore`` for the built site, the cache and the PDFs; and, with ``github``, a
workflow that builds the site and deploys it to GitHub Pages. An existing file
is never overwritten: if any is in the way, nothing is written.
"""
from __future__ import annotations

import json
import textwrap
import typing
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pydantic import BaseModel

from papernotes import __version__
from papernotes.config import SiteConfig
from papernotes.disk import atomic_write
from papernotes.errors import PapernotesError
from papernotes.layout import CACHE_DIR, CONFIG_NAME

EXAMPLE_NOTE = "ICLR2015/optimization/adam_a_method_for_stochastic_optimization.md"
WORKFLOW = ".github/workflows/pages.yml"
SITE_DIR = "site"
"""The built site's folder: ``build``'s default output, the workflow's and the ``.gitignore``'s."""
UNSET = "(not set)"
"""Stands for a setting without a default (``None``) in the commented config."""


class InitError(PapernotesError):
    """The folder already holds files ``init`` would write (nothing was written)."""


@dataclass(frozen=True, slots=True)
class Starter:
    """One file of a new site."""

    path: str
    """Relative to the site folder."""
    text: str


def _toml_value(value: object) -> str:
    if value is None:
        return UNSET
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string uses JSON's escapes
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def _choices(annotation: object) -> list[str]:
    """The values a ``Literal`` field (or a list of them) accepts."""
    if typing.get_origin(annotation) is list:
        annotation = typing.get_args(annotation)[0]
    return [str(a) for a in typing.get_args(annotation)] if typing.get_origin(annotation) is typing.Literal else []


def _fields(model: type[BaseModel]) -> list[str]:
    lines: list[str] = []
    for name, field in model.model_fields.items():
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            continue  # a table: listed after the plain keys
        help_text = field.description or ""
        if choices := _choices(field.annotation):
            help_text += f" One of: {', '.join(choices)}."
        lines += ["", *textwrap.wrap(help_text, 96, initial_indent="# ", subsequent_indent="# ")]
        lines.append(f"# {name} = {_toml_value(field.get_default(call_default_factory=True))}")
    return lines


def config_text() -> str:
    """``papernotes.toml`` with every setting of the schema commented out at its default."""
    lines = [f"# {CONFIG_NAME}: the settings of this site. Every key is listed with its default; uncomment a",
             "# line to change it. Written by `papernotes init` from papernotes' own schema. A key belongs to the",
             "# [table] above it: top-level keys go before the first table."]
    lines += _fields(SiteConfig)
    for name, field in SiteConfig.model_fields.items():
        table = field.annotation
        if isinstance(table, type) and issubclass(table, BaseModel):
            doc = (table.__doc__ or "").replace("``", "`")
            lines += ["", *textwrap.wrap(doc, 96, initial_indent="# ", subsequent_indent="# "), f"[{name}]",
                      *_fields(table)]
    return "\n".join(lines) + "\n"


GITIGNORE = (f"# the built site and papernotes' cache\n/{SITE_DIR}/\n{CACHE_DIR}/\n"
             "# the papers: third-party PDFs whose licences rarely allow republishing (publish_pdfs in\n"
             "# papernotes.toml puts them on the site; a repository is no place for them either)\n*.pdf\n")
"""The starter ``.gitignore``: ``git add .`` commits notes and settings, never the site, the cache or a PDF."""


def _data(name: str) -> str:
    return (resources.files("papernotes") / "data" / name).read_text(encoding="utf-8")


def starter_files(github: bool = False) -> list[Starter]:
    """What ``init`` writes, in order."""
    files = [Starter(CONFIG_NAME, config_text()),
             Starter(".gitignore", GITIGNORE),
             Starter(EXAMPLE_NOTE, _data("starter-note.md"))]
    if github:
        files.append(Starter(WORKFLOW, _data("starter-pages.yml").replace("PAPERNOTES_VERSION", __version__)))
    return files


def init_site(folder: Path, github: bool = False) -> list[Path]:
    """Write the starter files into ``folder`` (made if missing); the paths written.

    ``InitError`` naming every file in the way when any exists (nothing is written then).
    """
    if folder.exists() and not folder.is_dir():
        raise InitError(f"{folder}: not a folder")
    files = starter_files(github)
    taken = [str(folder / f.path) for f in files if (folder / f.path).exists()]
    if taken:
        raise InitError(f"{folder}: would overwrite {', '.join(taken)}; init never overwrites a file and wrote "
                        "nothing (move them away, or init another folder)")
    written = []
    for starter in files:
        atomic_write(folder / starter.path, starter.text)
        written.append(folder / starter.path)
    return written
