"""Math formulas: find them in Markdown (``corpus/katex.py`` validates them with KaTeX).

Stage: a reading of a note's text, shared by the ``check`` stage and translate's
guard (so it lives with the corpus, below both; it parses with the renderer's
``MARKDOWN_OPTIONS``, so that both see the same formulas).
In: Markdown text (a note's body, with the line number it starts on).
Out: ``Formula`` records (line, TeX, display flag) from ``extract_formulas``,
and the structural faults a formula can be told by without KaTeX (``lint_tex``,
``lost_escape``); ``corpus/katex.py`` checks them with KaTeX.

Formulas are found with pyromark's own parser (``events_with_range``), so a
``$`` used as currency, or inside a code span or block, never counts, and a
formula in a table cell is seen exactly as the renderer sees it.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import pyromark

from papernotes.markdown import MARKDOWN_OPTIONS, normalise_math  # the renderer's own view: both see the same formulas


# --------------------------------------------------------------------------- extraction


@dataclass(frozen=True, slots=True)
class Formula:
    """One ``$…$`` or ``$$…$$`` formula as pyromark parses it."""

    line: int
    """1-based line of the opening ``$`` (shifted by ``first_line``)."""
    tex: str
    """The TeX source between the delimiters, as the renderer puts it in the page."""
    display: bool
    """True for ``$$…$$`` (display math), False for ``$…$``."""


def extract_formulas(markdown: str, first_line: int = 1) -> list[Formula]:
    """Every formula of ``markdown`` in document order.

    ``first_line`` is the line number of the first line of ``markdown`` in its
    file (a note's body starts after its front matter). pyromark reports UTF-8
    byte offsets, so line numbers are counted on the encoded text. ``\\(…\\)``
    and ``\\[…\\]`` are read as the renderer reads them (``normalise_math``
    keeps every line where it was).
    """
    markdown = normalise_math(markdown)
    if "$" not in markdown:
        return []
    data: bytes | None = None
    newlines: list[int] = []
    found: list[Formula] = []
    for event, span in pyromark.events_with_range(markdown, options=MARKDOWN_OPTIONS):
        if type(event) is not dict:
            continue
        tex = event.get("InlineMath")
        display = tex is None
        if display:
            tex = event.get("DisplayMath")
        if not isinstance(tex, str):
            continue
        if data is None:
            data = markdown.encode("utf-8")
            newlines = [m.start() for m in re.finditer(b"\n", data)]
        line = first_line + bisect.bisect_left(newlines, span["start"])
        found.append(Formula(line, tex, display))
    return found


# --------------------------------------------------------------------------- lost escapes


# The rest of a TeX command whose backslash escape (\t, \n, \r) was turned into
# a control character by a tool that wrote the note through a string literal.
# KaTeX accepts the result silently ("\theta" becomes a tab then "heta"), so
# ``check`` needs this heuristic on top of KaTeX. One-letter rests (\nu, \ni)
# are left out: a line of display math may well start with "u".
_LOST_ESCAPE = re.compile(
    r"(?:\t(?P<t>au|heta|imes|ext(?:bf|it|rm|sf|tt|normal)?|ilde|op|riangle[A-Za-z]*|frac|anh?|o)"
    r"|\n(?P<n>abla|eq|eg|ot|otin|ewline|onumber|earrow|warrow|mid|parallel|subseteq)"
    r"|\r(?P<r>ho|ight[A-Za-z]*|angle|ceil|floor|m|vert|Vert))(?![A-Za-z])"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LETTERS = re.compile(r"[A-Za-z]*")
_ESCAPE_LETTER = {"\a": "a", "\b": "b", "\f": "f", "\v": "v", "\t": "t", "\n": "n", "\r": "r"}


def lost_escape(tex: str) -> str | None:
    """A warning when ``tex`` looks like a backslash escape was lost, else None.

    Catches control characters (``\\alpha`` written through a string literal
    becomes BEL + ``lpha``) and a tab, newline or carriage return directly
    followed by the rest of a common command (``\\theta``, ``\\neq``, ``\\rho``).
    """
    lost = _LOST_ESCAPE.search(tex)
    if lost is not None:
        ch, rest = lost.group(0)[0], lost.group(0)[1:]
        return f"{_char_name(ch)} before {rest!r}: probably a lost backslash (\\{_ESCAPE_LETTER[ch]}{rest})"
    control = _CONTROL.search(tex)
    if control is None:
        return None
    ch = control.group(0)
    letter = _ESCAPE_LETTER.get(ch)
    word = _LETTERS.match(tex, control.end())
    if letter and word is not None and word.group(0):
        return (
            f"control character {_char_name(ch)} before {word.group(0)!r}:"
            f" probably a lost backslash (\\{letter}{word.group(0)})"
        )
    return f"control character {_char_name(ch)} in formula"


def _char_name(ch: str) -> str:
    return {"\t": "tab", "\n": "line break", "\r": "carriage return"}.get(ch, f"U+{ord(ch):04X}")


# --------------------------------------------------------------------------- structural lint


_LINT_TOKEN = re.compile(
    r"\\(?:begin|end)\s*\{([^{}]*)\}|\\left(?![A-Za-z])|\\right(?![A-Za-z])|\\[A-Za-z]+|\\.|[{}]",
    re.DOTALL,
)


def lint_tex(tex: str) -> str | None:
    """A structural check used only when no JavaScript engine is available.

    It checks balanced braces, ``\\begin``/``\\end`` pairing and
    ``\\left``/``\\right`` pairing, nothing else: unknown commands and wrong
    arguments go unnoticed. Returns an error message, or None when it passes.
    """
    # Stack of open groups: "{" for braces, "left" for \left, an environment name.
    stack: list[str] = []
    for m in _LINT_TOKEN.finditer(tex):
        tok = m.group(0)
        if tok == "{":
            stack.append("{")
        elif tok == "}":
            if not stack or stack[-1] != "{":
                return f"unbalanced '}}' at position {m.start()}" if not stack else _unclosed(stack[-1])
            stack.pop()
        elif tok.startswith("\\begin"):
            stack.append("env:" + m.group(1).strip())
        elif tok.startswith("\\end"):
            name = m.group(1).strip()
            if not stack or stack[-1] != "env:" + name:
                if not stack:
                    return f"\\end{{{name}}} without \\begin{{{name}}}"
                return _unclosed(stack[-1]) + f" before \\end{{{name}}}"
            stack.pop()
        elif tok == "\\left":
            stack.append("left")
        elif tok == "\\right":
            if not stack or stack[-1] != "left":
                return "\\right without \\left" if not stack else _unclosed(stack[-1]) + " before \\right"
            stack.pop()
    if stack:
        return _unclosed(stack[-1]) + " at end of formula"
    return None


def _unclosed(group: str) -> str:
    if group == "{":
        return "unclosed '{'"
    if group == "left":
        return "\\left without \\right"
    name = group.removeprefix("env:")
    return f"\\begin{{{name}}} without \\end{{{name}}}"


