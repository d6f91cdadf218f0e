"""Render stage, the interface strings: ``data/i18n.toml`` per language, with a theme's own file over it.

In: a language and the site's theme folder. Out: the strings templates show
through ``t(key)`` and the planner through ``SiteLabels``. A theme's
``i18n.toml`` may only set keys the package has, with the same ``{placeholders}``;
every problem is reported at once, with its line (docs/theming.md).
"""
from __future__ import annotations

import re
import string
import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path

from papernotes.errors import ConfigError, error, toml_error_line
from papernotes.site.contexts import SiteLabels

STRINGS_NAME = "i18n.toml"
"""The interface strings: ``papernotes/data/i18n.toml``, and a theme's own file of that name over it."""


def ui_strings(lang: str, theme_dir: Path | None = None) -> dict[str, str]:
    """The interface strings of ``lang``: the package's, with those a theme's ``i18n.toml`` sets instead."""
    if theme_dir is not None:
        path = theme_dir / STRINGS_NAME
        try:
            st = path.stat()
        except OSError:
            pass
        else:
            return _theme_strings(str(path), st.st_mtime_ns, st.st_size)[lang]
    return _package_strings()[lang]


def labels_for(lang: str, theme_dir: Path | None = None) -> SiteLabels:
    return SiteLabels(lang, ui_strings(lang, theme_dir))


@lru_cache(maxsize=None)
def _package_strings() -> dict[str, dict[str, str]]:
    return tomllib.loads((resources.files("papernotes") / "data" / STRINGS_NAME).read_text(encoding="utf-8"))


@lru_cache(maxsize=8)
def _theme_strings(path: str, mtime_ns: int, size: int) -> dict[str, dict[str, str]]:
    """The package's strings with a theme's file over them (read again when the file changes)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # as papernotes.toml: a BOM is no error
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([error(path, 0, f"cannot read interface strings: {exc}", "config")]) from exc
    return merge_strings(_package_strings(), text, path)


def merge_strings(base: dict[str, dict[str, str]], text: str, path: str) -> dict[str, dict[str, str]]:
    """``base`` with the strings of a theme's ``i18n.toml`` (``text``) over it: tables named after languages,
    keys among ``base``'s, string values with the same ``{placeholders}``. Every problem is reported, with
    its line."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([error(path, toml_error_line(exc), f"invalid TOML: {exc}", "config")]) from None
    lines = text.splitlines()

    def line_of(key: str, after: int = 0) -> int:
        pattern = re.compile(rf"^\s*(\[\s*)?[\"']?{re.escape(key)}[\"']?\s*(=|\])")
        return next((i + 1 for i in range(after, len(lines)) if pattern.match(lines[i])), 0)

    def fields(value: str) -> set[str] | None:
        try:
            return {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
        except ValueError:  # a lone "{" or "}"
            return None

    problems = []
    merged = {lang: dict(strings) for lang, strings in base.items()}
    for lang, table in data.items():
        where = line_of(lang)
        if lang not in base or not isinstance(table, dict):
            problems.append(error(path, where, f"`{lang}` is not a language table; use [{'] or ['.join(base)}]",
                                  "config"))
            continue
        for key, value in table.items():
            line = line_of(key, where)
            if key not in base[lang]:
                problems.append(error(path, line, f"unknown interface string `{key}` (see papernotes/data/"
                                                  f"{STRINGS_NAME} for the keys)", "config"))
            elif not isinstance(value, str):
                problems.append(error(path, line, f"`{key}` must be a string", "config"))
            elif (wanted := fields(base[lang][key])) and fields(value) != wanted:  # shown through str.format
                names = ", ".join(f"{{{n}}}" for n in sorted(wanted))
                problems.append(error(path, line, f"`{key}` must use {names}, as the package's does (a literal "
                                                  "brace is written twice: {{ }})", "config"))
            else:
                merged[lang][key] = value
    if problems:
        raise ConfigError(problems)
    return merged
