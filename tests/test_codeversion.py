"""Versions computed from the code: the import scan agrees with Python's parser, and only a change of the code
that makes a record changes its version."""
from __future__ import annotations

import ast

import pytest

from papernotes.codeversion import CHANGED_ENV, PACKAGE, code_version, sources

READER = "papernotes.intake.paper.read"
RENDERER = "papernotes.intake.paper.picture"


def parsed_closure(module: str) -> set[str]:
    """What ``sources`` should find, by Python's own parser: every module of ours imported, transitively."""
    found: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in found or name not in ALL:
            continue
        found.add(name)
        for node in ast.walk(ast.parse(ALL[name])):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("papernotes"):
                todo += [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                todo += [a.name for a in node.names]
    return found


def every_module() -> dict[str, bytes]:
    """Every module of the package by name, from the files (not from the scan under test)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ["papernotes", *path.relative_to(PACKAGE).with_suffix("").parts]
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path.read_bytes()
    return found


ALL = every_module()


@pytest.mark.parametrize("module", [READER, RENDERER, "papernotes.site.build", "papernotes.cli"])
def test_the_import_scan_finds_what_the_parser_finds(module: str) -> None:
    expected = parsed_closure(module)
    assert len(expected) >= (60 if module == "papernotes.cli" else 7), sorted(expected)
    assert set(sources(module)) == expected


def test_the_reader_version_covers_the_reading_modules_and_nothing_of_the_site() -> None:
    reading = set(sources(READER))
    assert {"papernotes.intake.paper.sections", "papernotes.intake.paper.figures", "papernotes.intake.paper.front",
            "papernotes.intake.paper.cache", "papernotes.intake.paper.picture"} <= reading
    assert not any(m.startswith(("papernotes.site", "papernotes.check", "papernotes.classify")) for m in reading)
    assert "papernotes.intake.paper.sections" not in sources(RENDERER)  # rendering does not depend on sections


def test_a_change_of_a_module_changes_the_versions_that_depend_on_it_only(monkeypatch: pytest.MonkeyPatch) -> None:
    reader, renderer = code_version(READER), code_version(RENDERER)
    assert len(reader) == 16 and reader != renderer and code_version(READER) == reader
    monkeypatch.setenv(CHANGED_ENV, "papernotes.intake.paper.sections")
    assert code_version(READER) != reader and code_version(RENDERER) == renderer
    monkeypatch.setenv(CHANGED_ENV, "papernotes.site.theme,papernotes.site.search.index")
    assert code_version(READER) == reader and code_version(RENDERER) == renderer
    monkeypatch.setenv(CHANGED_ENV, "papernotes.intake.paper.pdfdoc")  # both open the PDF through it
    assert code_version(READER) != reader and code_version(RENDERER) != renderer
