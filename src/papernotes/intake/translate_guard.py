"""Translate stage, what a translation must keep (pure): formulas, code, link targets and numbers.

In: the Markdown of an original (``translate_parts.document``) and of its
translation. Out: what the original has that the translation lost, each item
described for a repair request and for the report.

- formulas: every ``$…$``, ``$$…$$``, ``\\(…\\)`` and ``\\[…\\]`` as the renderer
  finds them (``corpus.formulas.extract_formulas``), compared by their TeX with
  white space collapsed;
- code: every fenced code block (its lines, trailing blanks ignored) and every
  inline code span;
- link targets: the target of every ``[text](target)``, ``href``, ``<URL>`` and
  bare ``http(s)://`` URL;
- numbers: every number ``intake.grounding.note_numbers`` finds (decimals,
  percentages, factors, table cells, integers in prose; not years, section or
  figure numbers, versions, names such as GPT-4), compared by their digits at
  the precision written (``12.50`` is not ``12.5``); a number with a scale
  word may be written with another one of the same value (``120 万`` is
  ``1.2 million``), as the two languages count large numbers differently.

A translation may have more of them (a number spelled out in the original
written with digits is fine); it may not have fewer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from papernotes.corpus.formulas import extract_formulas
from papernotes.corpus.sections import code_blocks, fence_spans
from papernotes.intake.grounding import SCALE, note_numbers

_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|href=\"([^\"]+)\"|<(https?://[^>\s]+)>"
                   r"|(https?://[^\s<>()\[\]\"'`]+)")
SHOWN = 70
"""Longest code shown in a message; longer code is cut with an ellipsis."""


@dataclass(frozen=True, slots=True)
class Kept:
    """What of a text a translation must keep, each as a set of normalised strings."""

    formulas: frozenset[str]
    code: frozenset[str]
    links: frozenset[str]
    numbers: frozenset[tuple[str, str]]
    """``(digits, value)``: the digits as written and, for a number with a scale word (``万``, ``million``,
    ``K``), its value (``""`` for others)."""


def _code(text: str) -> tuple[set[str], str]:
    """Fenced blocks and inline spans, and the text with the blocks blanked out (for the other scans)."""
    found = set(code_blocks(text))
    prose: list[str] = []
    pos = 0
    for start, end in fence_spans(text):
        prose += [text[pos:start], "\n" * text.count("\n", start, end)]
        pos = end
    prose.append(text[pos:])
    outside = "".join(prose)
    found.update(" ".join(s.group(2).split()) for s in _SPAN.finditer(outside))
    return found, outside


def kept(text: str) -> Kept:
    code, prose = _code(text)
    formulas = frozenset(" ".join(f.tex.split()) for f in extract_formulas(text))
    links = set()
    for m in _LINK.finditer(prose):
        target = next(g for g in m.groups() if g)
        links.add(target.rstrip(".,;:!?。，；：！？、") if m.group(4) else target)
    numbers = frozenset((f"{q.value:.{q.decimals}f}", f"{q.value * SCALE[q.unit]:.6g}" if q.unit in SCALE else "")
                        for q in note_numbers(prose))
    return Kept(formulas, frozenset(code), frozenset(links), numbers)


def _short(code: str) -> str:
    one = " ⏎ ".join(line.strip() for line in code.split("\n") if line.strip())
    return one if len(one) <= SHOWN else one[:SHOWN - 1] + "…"


def missing(original: Kept, translated: Kept) -> list[str]:
    """Each item the translation lost, described (``the formula $x^2$``), in a stable order."""
    out = [f"the formula ${tex}$" for tex in sorted(original.formulas - translated.formulas)]
    out += [f"the code `{_short(code)}`" for code in sorted(original.code - translated.code)]
    out += [f"the link target {link}" for link in sorted(original.links - translated.links)]
    digits = {d for d, _ in translated.numbers}
    values = {v for _, v in translated.numbers if v}
    lost = {d for d, v in original.numbers if d not in digits and not (v and v in values)}
    out += [f"the number {number}" for number in sorted(lost, key=_numeric)]
    return out


def _numeric(text: str) -> tuple[float, str]:
    return float(text), text
