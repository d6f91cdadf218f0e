"""Versions of cached records computed from the code that makes them, never bumped by hand.

In: the name of one of our modules (``papernotes.intake.paper.read``). Out: a short digest of its source and of
the source of every module of ours it imports, transitively, so a cache that stores it beside its records sees
them go stale when that code changes, and only then. A change elsewhere (a template, the search) leaves it be.

The imports are found by scanning each file's import statements (``from papernotes.x import y`` and
``import papernotes.x``, at any indentation, so an import inside a function counts too); a name imported from a
package counts as its submodule when it is one. ``tests/test_codeversion.py`` checks the scan against Python's
parser. About 2 ms for the 22 files of the reading stage, once per process per module (``functools.cache``).

The libraries underneath (pypdf, pypdfium2) are not part of it: asking for their versions costs 190 ms.

``PAPERNOTES_CODE_CHANGED`` (comma-separated module names) makes the version of every module that imports one of
them come out different, as an edit of those files would: a test's way to change the code without editing it.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHANGED_ENV = "PAPERNOTES_CODE_CHANGED"
_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+(papernotes[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^#\n]*)"
                     rb"|import[ \t]+(papernotes[\w.]*))", re.M)


def code_version(module: str) -> str:
    """16 hex digits standing for ``module``'s source and that of the modules of ours it imports."""
    return _version(module, os.environ.get(CHANGED_ENV, ""))


@functools.cache
def _version(module: str, changed: str) -> str:
    digest = hashlib.sha256()
    marked = set(filter(None, changed.split(",")))
    for name, source in sorted(sources(module).items()):
        digest.update(f"\0{name}\0{len(source)}\0".encode())
        digest.update(source)
        if name in marked:
            digest.update(b"\0changed")
    return digest.hexdigest()[:16]


def sources(module: str) -> dict[str, bytes]:
    """``module`` and every module of ours it imports, transitively: name → source bytes."""
    found: dict[str, bytes] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in found or (path := _path(name)) is None:
            continue
        found[name] = source = path.read_bytes()
        for match in _IMPORT.finditer(source):
            if match[3]:
                todo.append(match[3].decode())
                continue
            base = match[1].decode()
            todo.append(base)
            names = re.sub(r"#[^\n]*", "", match[2].decode())  # a comment inside parentheses names nothing
            for item in names.strip("() \t\r\n").split(","):
                if words := item.split():
                    todo.append(f"{base}.{words[0]}")  # a submodule when it is one; else no file, skipped
    return found


def _path(module: str) -> Path | None:
    """The source file of one of our modules, ``None`` for a name that is none (a function, a class)."""
    parts = module.split(".")
    if parts[0] != "papernotes":
        return None
    where = PACKAGE.joinpath(*parts[1:])
    for candidate in (where.with_suffix(".py"), where / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None
