"""Venue lines as papers print them: the patterns of the venue taxonomy, compiled.

In: the ``[printed]`` table of a venues file (``lines``: what marks a line that
says where a paper appeared; ``not_venue``: lines that say it has not, "Under
review", "Preprint"; ``not_main``: venues that are never their main conference,
a workshop) and each ``[[series]]``'s ``printed`` patterns (Python regular
expressions, case-insensitive; a ``year`` group gives the year, a ``yy`` group
a two-digit one such as AAAI's "(AAAI-18)"). Out: a ``PrintedVenues`` record,
part of the ``Taxonomy``; ``shipped()`` is the shipped file's alone, which the
PDF reader uses to find the line (``papernotes.intake.paper.front``) and
``papernotes.intake.venues`` to name its series. A site's venues file adds
patterns to the shipped ones.
"""
from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from papernotes.errors import Diagnostic, error, text_line

KINDS = ("lines", "not_venue", "not_main")
YEAR = re.compile(r"(?<![\d.:])((?:19|20)\d{2})(?!\d|\.\d)")
"""A year in a venue line or name, not part of an arXiv id (2006.12345)."""


@dataclass(frozen=True, slots=True)
class SeriesPattern:
    series: str
    """The series id, as the venues file spells it."""
    pattern: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class PrintedVenues:
    lines: tuple[re.Pattern[str], ...] = ()
    not_venue: tuple[re.Pattern[str], ...] = ()
    not_main: tuple[re.Pattern[str], ...] = ()
    series: tuple[SeriesPattern, ...] = field(default=())

    def is_cue(self, text: str) -> bool:
        """Whether a printed line reads as a venue line ("Published as…", "Proceedings of…")."""
        return any(p.search(text) for p in self.lines)

    def is_not_venue(self, text: str) -> bool:
        """Whether a printed line says the paper has appeared nowhere yet ("Under review", "Preprint")."""
        return any(p.search(text) for p in self.not_venue)

    def not_a_main_venue(self, text: str) -> bool:
        return any(p.search(text) for p in self.not_main)

    def series_in(self, text: str) -> tuple[str, int | None] | None:
        """The series a printed line names first (the longer match on a tie) and its year: from a ``year`` or
        ``yy`` group of any of that series' patterns ("… AAAI Conference … (AAAI-18)"), else the line's own."""
        found = [(m.start(), -len(m.group(0)), sp.series, m) for sp in self.series if (m := sp.pattern.search(text))]
        if not found:
            return None
        series = min(found, key=lambda f: f[:2])[2]
        for _, _, name, m in sorted(found, key=lambda f: f[:2]):
            groups = m.re.groupindex
            if name == series and "year" in groups and m.group("year"):
                return series, int(m.group("year"))
            if name == series and "yy" in groups and m.group("yy"):
                return series, 2000 + int(m.group("yy"))
        year = YEAR.search(text)
        return series, int(year.group(1)) if year else None


def compile_patterns(values: Any, where: tuple[str, int], what: str, problems: list[Diagnostic]
                     ) -> tuple[re.Pattern[str], ...]:
    """A list of regular expressions from a venues file, each compiled case-insensitive; problems collected."""
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        problems.append(error(*where, f"`{what}` must be a list of non-empty regular expressions", "taxonomy"))
        return ()
    out = []
    for value in values:
        try:
            out.append(re.compile(value, re.I))
        except re.error as exc:
            problems.append(error(*where, f"`{what}`: {value!r} is not a regular expression ({exc})", "taxonomy"))
    return tuple(out)


def read_printed(data: dict[str, Any], path: Path, text: str, problems: list[Diagnostic]
                 ) -> dict[str, tuple[re.Pattern[str], ...]]:
    """The ``[printed]`` table of one venues file: its pattern lists by kind."""
    table = data.get("printed", {})
    if not isinstance(table, dict):
        problems.append(error(str(path), text_line(text, "printed"), "`printed` must be a table", "taxonomy"))
        return {}
    unknown = sorted(set(table) - set(KINDS))
    if unknown:
        problems.append(error(str(path), text_line(text, unknown[0]), f"[printed] has no `{unknown[0]}` "
                              f"(it takes {', '.join(KINDS)})", "taxonomy"))
    return {kind: compile_patterns(table[kind], (str(path), text_line(text, kind)), f"printed.{kind}", problems)
            for kind in KINDS if kind in table}


def assemble(kinds: dict[str, tuple[re.Pattern[str], ...]], series: Iterable[tuple[str, tuple[str, ...]]]
             ) -> PrintedVenues:
    """The record from the ``[printed]`` lists by kind and each series' id with its ``printed`` patterns."""
    return PrintedVenues(**kinds, series=tuple(SeriesPattern(sid, re.compile(p, re.I)) for sid, ps in series
                                               for p in ps))


@cache
def shipped() -> PrintedVenues:
    """The shipped venues file's patterns (read once a process; the PDF reader has no site taxonomy)."""
    path = Path(str(resources.files("papernotes") / "data" / "venues.toml"))
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    problems: list[Diagnostic] = []
    kinds = read_printed(data, path, text, problems)
    if problems:  # the shipped file is tested; a broken one is a bug, not a user's mistake
        raise ValueError("; ".join(d.message for d in problems))
    return assemble(kinds, ((entry["id"], tuple(entry.get("printed", ()))) for entry in data.get("series", ())))
