"""Grounding: is every number a note states in its paper? (pure functions)

Used by drafting (an engine grounds its draft before writing it), by translate's guard
(numbers survive translation) and by ``check --grounding``; so it lives in intake,
below check.

In: a note's Markdown body (and one-line summary) and the ``PaperText`` of its
PDF. Out: one ``Finding`` per number the note states, supported or not, with
the nearest number of the paper for the ones that are not.

What counts as a stated number: decimals (``0.4642``), percentages (``12%``),
factors (``1.8x``, ``3×``, ``2倍``), numbers with a scale or unit (``1.5K``,
``7B``, ``12.5 ms``, ``1.2 GB``), signed numbers and deltas (``+0.78``), the two
sides of ``±``, and every number in a Markdown table row other than the header.
Plain integers in prose ("8 GPUs", "3 stages") are not claims we check.
Never counted: years (1900–2099), section/equation/figure/table/algorithm
numbers ("Table 3.2", "第3节"), citations (``[12]``), dates, version numbers
(``v1.2``, ``1.2.3``, ``Python 3.11``), ordinals (``2nd``), parts of names
(``ResNet-50``, ``GPT-4``, ``3D``), kernel shapes (``3×3``), ratings (``4/5``, the
ratings section), code, URLs and links; in ``$…$`` math only decimals count,
and not in sub- or superscripts (indices and exponents).

A number is supported when the paper has it: verbatim; rounded (the note's
number, read at the precision it is written with, covers the paper's:
``0.46`` covers ``0.4642``); as a fraction or a percentage (``46.4%`` ↔
``0.4642``); in another unit or scale (``1.5K`` ↔ ``1500``, ``0.5 s`` ↔ ``500
ms``, ``1.2 GB`` ↔ ``1200 MB``); or, for a signed delta or a factor, as the
difference or ratio of two supported numbers of the note, one of them on the
same line (``28.82 (+0.78)`` when the note also says ``28.04``). Hedged numbers
(``~``, ``约``, "about", "over") are allowed 5% either way.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, replace

from papernotes.intake.paper.model import PaperText

NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.\d+|\d+")
UNIT = re.compile(r"\s?(%|％|×|x(?![A-Za-z])|倍|[kKMBGT](?![A-Za-z])|万|亿|thousand\b|million\b|billion\b|trillion\b"
                  r"|ms\b|μs\b|us\b|ns\b|sec\b|secs\b|seconds?\b|s\b|mins?\b|minutes?\b|h\b|hrs?\b|hours?\b|days?\b"
                  r"|毫秒|秒|分钟|小时|天|[KMGT]i?B\b)")
SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12, "万": 1e4, "亿": 1e8,
         "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
TIME = {"ns": 1e-9, "μs": 1e-6, "us": 1e-6, "ms": 1e-3, "毫秒": 1e-3, "s": 1.0, "sec": 1.0, "secs": 1.0,
        "second": 1.0, "seconds": 1.0, "秒": 1.0, "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0,
        "分钟": 60.0, "h": 3600.0, "hr": 3600.0, "hrs": 3600.0, "hour": 3600.0, "hours": 3600.0, "小时": 3600.0,
        "day": 86400.0, "days": 86400.0, "天": 86400.0}
BYTES = {"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 2.0 ** 10, "MiB": 2.0 ** 20, "GiB": 2.0 ** 30,
         "TiB": 2.0 ** 40}
FACTOR = ("×", "x", "倍")
REFERENCE = re.compile(
    r"(?:section|sections|sec\.|sect\.|§|eq\.|eqs\.|equations?|fig\.|figs\.|figures?|tables?|tab\.|appendix|app\."
    r"|algorithm|alg\.|theorem|thm\.|lemma|corollary|proposition|definition|def\.|chapter|line|lines|step|stage"
    r"|version|ver\.|python|cuda|pytorch|torch|ubuntu|表|图|公式|式|第|章|节|附录|定理|引理|算法|版本)\s*[(（]?$", re.I)
APPROX = re.compile(r"(?:~|～|≈|约|大约|近|超过|逾|about|approximately|approx\.|around|roughly|nearly|over|more than"
                    r"|less than|up to|almost|under)\s*$", re.I)
DELTA = re.compile(r"(?:[+\-−↑↓Δ]|提升|提高|降低|下降|减少|增加|improves? by|gains? of|drops? of|by)\s*$", re.I)
DIGIT = re.compile(r"\d")
CITATION = re.compile(r"\[\s*\d+(?:\s*[,–-]\s*\d+)*\s*\]")
MASKS = re.compile(r"`[^`]*`|https?://\S+|\]\([^)]*\)|<[^>]+>|\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?|\d+\s*/\s*(?:5|10)\b"
                   r"|\d+(?:\.\d+)?\s*[×xX*]\s*\d+(?:\.\d+)?(?:\s*[×xX*]\s*\d+)*|⭐+|★+")
ORDINAL = re.compile(r"(?:st|nd|rd|th)\b")
RATINGS = re.compile(r"^#{1,6}\s*(?:评分|ratings?|scores?)\b", re.I)


@dataclass(frozen=True, slots=True)
class Quantity:
    """One number as written, in a note or in a paper."""

    text: str
    """As written, unit included: ``46.4%``, ``1.5K``, ``0.4642``."""
    value: float
    """The digits' value, without sign or unit."""
    decimals: int
    unit: str
    where: int
    """Note: 1-based file line. Paper: 1-based page."""
    signed: bool = False
    """Written as a delta (``+0.78``, ``↓1.2``, "improves by")."""
    approx: bool = False
    claim: bool = True
    """False for a plain integer in prose: not checked, but a delta or factor on its line may be derived from it."""
    column: int = 0
    """0-based offset in the text it was read from, where ``text`` starts."""

    @property
    def tolerance(self) -> float:
        """Half a unit of the last written digit: what rounding to this precision may hide."""
        return 0.5 * 10.0 ** -self.decimals

    def values(self) -> list[tuple[str, float, float]]:
        """(dimension, value, tolerance) readings: the digits, and in base units when a unit says which."""
        tol = self.tolerance + 1e-9 * self.value
        out = [("count", self.value, tol)]
        if self.unit in SCALE:
            out.append(("count", self.value * SCALE[self.unit], tol * SCALE[self.unit]))
        elif self.unit in TIME:
            out.append(("time", self.value * TIME[self.unit], tol * TIME[self.unit]))
        elif self.unit in BYTES:
            out.append(("bytes", self.value * BYTES[self.unit], tol * BYTES[self.unit]))
        if self.approx:
            out = [(dim, v, max(t, 0.05 * v)) for dim, v, t in out]
        return out


@dataclass(frozen=True, slots=True)
class Finding:
    number: Quantity
    how: str
    """``verbatim``, ``rounded``, ``percent``, ``unit``, ``derived``; ``""`` when the paper does not support it."""
    nearest: Quantity | None = None
    """For unsupported numbers: the paper's closest number (by ratio)."""
    source: Quantity | None = None
    """For supported numbers: the paper's number that supports it (its page is where it stands); ``None`` for a
    derived one."""

    @property
    def supported(self) -> bool:
        return bool(self.how)

    def message(self) -> str:
        near = f" (nearest: {self.nearest.text}, p. {self.nearest.where})" if self.nearest else ""
        return f"{self.number.text} is not in the paper{near}"


def _unit(text: str, end: int) -> tuple[str, int]:
    m = UNIT.match(text, end)
    if not m:
        return "", end
    unit = m.group(1).strip()
    unit = {"％": "%", "x": "×"}.get(unit, unit)
    return unit, m.end()


def _quantity(text: str, m: re.Match[str], where: int, unit: str, end: int, context: bool = True) -> Quantity:
    digits = m.group(0)
    decimals = len(digits) - digits.index(".") - 1 if "." in digits else 0
    signed = approx = False
    if context:
        before = text[max(0, m.start() - 14):m.start()]
        if d := DELTA.search(before):
            # a hyphen after a digit or letter is a range or a compound, not a sign
            signed = not (d.group(0).strip() in "+-−" and d.start() > 0 and before[d.start() - 1].isalnum())
        approx = bool(APPROX.search(before))
    return Quantity(text[m.start():end].strip(), float(digits.replace(",", "")), decimals, unit, where, signed, approx,
                    column=m.start())


def paper_numbers(paper: PaperText) -> list[Quantity]:
    """Every number of the paper (body and appendix, references left out), with its page."""
    out = []
    for _, paragraph in paper.paragraphs():
        out.extend(text_numbers(paragraph.text, paragraph.page))
    return out


def text_numbers(text: str, where: int) -> list[Quantity]:
    """Every number of a paper's text as written, unit included (no context read: the paper's side)."""
    out = []
    for m in NUMBER.finditer(text):
        unit, end = _unit(text, m.end())
        out.append(_quantity(text, m, where, unit, end, context=False))
    return out


def _mask(text: str, pattern: re.Pattern[str]) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _mask_math(line: str, in_display: bool) -> tuple[str, bool]:
    """Inside ``$…$``/``$$…$$``: commands, sub/superscripts and integers blanked, decimals kept."""
    out = []
    display, inline = in_display, False
    for part in re.split(r"(\$\$|\$)", line):
        if part == "$$":
            display = not display
        elif part == "$":
            inline = not inline if not display else inline
        elif display or inline:
            part = re.sub(r"[_^](?:\{[^}]*\}|\\?\w+)", _blank, part)
            part = re.sub(r"\\[A-Za-z]+", _blank, part)
            part = re.sub(r"(?<![\d.])\d+(?![\d.])", _blank, part)
        out.append(part if part not in ("$", "$$") else " " * len(part))
    return "".join(out), display


def note_numbers(body: str, body_line: int = 1, summary: str = "", summary_line: int = 0) -> list[Quantity]:
    """Every checkable number the note states, with its file line (see the module docstring).

    Plain integers in prose come too, with ``claim=False``: ``ground`` does not check them
    but may derive a delta or factor from them.
    """
    out: list[Quantity] = []
    if summary and summary_line:
        out.extend(line_numbers(summary, summary_line, table=False))
    fence = ""
    display = False
    skip_section = False
    lines = body.split("\n")
    for i, line in enumerate(lines):
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        if stripped.startswith("#"):
            skip_section = bool(RATINGS.match(stripped)) if re.match(r"^#{1,2}\s", stripped) else skip_section
            continue
        if skip_section or not stripped:
            continue
        if display or "$" in line:
            line, display = _mask_math(line, display)
        if not DIGIT.search(line):
            continue
        table = stripped.startswith("|")
        if table:
            if re.fullmatch(r"\|?[\s:|-]+\|?", stripped):
                continue
            following = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if re.fullmatch(r"\|?\s*:?-{2,}[\s:|-]*\|?", following):
                continue  # the header row
        out.extend(line_numbers(line, body_line + i, table))
    return out


def line_numbers(line: str, where: int, table: bool) -> list[Quantity]:
    """The numbers of one line of a note (``table``: a table row), claims and plain integers (see ``note_numbers``)."""
    text = _mask(_mask(line, CITATION) if "[" in line else line, MASKS)
    out = []
    for m in NUMBER.finditer(text):
        start, end = m.start(), m.end()
        prev = text[start - 1] if start else " "
        if (prev.isascii() and (prev.isalnum() or prev in "_.")) or (prev == "-" and start >= 2 and text[start - 2].isascii()
                                                                      and text[start - 2].isalpha()):
            continue  # a name (ResNet-50, GPT-4, v2) or a version
        if text.startswith(".", end) and end + 1 < len(text) and text[end + 1].isdigit():
            continue
        unit, unit_end = _unit(text, end)
        if not unit and (ORDINAL.match(text, end) or (end < len(text) and text[end].isascii() and text[end].isalpha())):
            continue  # 2nd, 3D, 5-shot is fine but 3D is a name
        if REFERENCE.search(text[max(0, start - 16):start]):
            continue
        q = _quantity(text, m, where, unit, unit_end)
        if q.decimals == 0 and not unit and 1900 <= q.value <= 2099:
            continue  # a year
        if not (q.decimals or unit or q.signed or table or "±" in text[max(0, start - 3):end + 3]):
            q = replace(q, claim=False)
        out.append(q)
    return out


class PaperIndex:
    """The paper's numbers sorted per dimension, for range look-ups."""

    def __init__(self, numbers: Iterable[Quantity]) -> None:
        rows: dict[str, list[tuple[float, Quantity]]] = {}
        for q in numbers:
            for dim, value, _ in q.values():
                rows.setdefault(dim, []).append((value, q))
        for items in rows.values():
            items.sort(key=lambda r: r[0])
        self._keys = {dim: [v for v, _ in items] for dim, items in rows.items()}
        self._items = rows

    def find(self, dim: str, value: float, tol: float) -> tuple[float, Quantity] | None:
        """The (reading, number) of the paper closest to ``value`` within ``tol``."""
        keys = self._keys.get(dim, [])
        lo, hi = bisect_left(keys, value - tol), bisect_right(keys, value + tol)
        if lo >= hi:
            return None
        return min(self._items[dim][lo:hi], key=lambda r: abs(r[0] - value))

    def nearest(self, value: float) -> Quantity | None:
        best: tuple[float, Quantity] | None = None
        keys = self._keys.get("count", [])
        for target, penalty in ((value, 1.0), (value * 100, 2.0), (value / 100, 2.0)):
            i = bisect_left(keys, target)
            for j in (i - 1, i):
                if 0 <= j < len(keys) and target > 0:
                    ratio = penalty * abs(keys[j] - target) / target
                    if best is None or ratio < best[0]:
                        best = (ratio, self._items["count"][j][1])
        return best[1] if best else None


def support(q: Quantity, index: PaperIndex) -> str:
    """How the paper supports ``q`` (``""``: it does not)."""
    return match(q, index)[0]


def match(q: Quantity, index: PaperIndex) -> tuple[str, Quantity | None]:
    """How the paper supports ``q`` (``""``: it does not), and the paper's number that does."""
    for dim, value, tol in q.values():
        if (hit := index.find(dim, value, tol)) is not None:
            reading, found = hit
            if dim != "count" or value != q.value or reading != found.value:
                return "unit", found
            return ("verbatim" if abs(reading - value) <= 1e-9 * max(1.0, value) else "rounded"), found
    if q.value <= 100 and (hit := index.find("count", q.value / 100, q.tolerance / 100 + 1e-12)) is not None:
        return "percent", hit[1]
    if q.value <= 1 and (hit := index.find("count", q.value * 100, q.tolerance * 100)) is not None:
        return "percent", hit[1]
    return "", None


def _derived(q: Quantity, same_line: list[float], grounded: list[float]) -> bool:
    """A delta or factor that two supported numbers of the note give (one of them on its line)."""
    tol = q.tolerance if not q.approx else max(q.tolerance, 0.05 * q.value)
    for a in same_line:
        for b in grounded:
            if a == b or b == 0:
                continue
            if q.unit in FACTOR:
                candidates = (a / b, b / a if a else 0.0)
            elif q.unit == "%":
                candidates = (abs(a - b), abs(a - b) / abs(b) * 100, abs(a - b) / abs(a) * 100 if a else 0.0)
            else:
                candidates = (abs(a - b),)
            if any(abs(c - q.value) <= tol + 1e-9 for c in candidates):
                return True
    return False


def ground(numbers: list[Quantity], paper: PaperText | PaperIndex) -> list[Finding]:
    """A finding per stated number (claims only), in note order (``paper``: the paper, or its numbers indexed)."""
    index = paper if isinstance(paper, PaperIndex) else PaperIndex(paper_numbers(paper))
    matched = [match(q, index) for q in numbers]
    hows = [how for how, _ in matched]
    grounded = [q.value for q, how in zip(numbers, hows) if how and not q.signed]
    by_line: dict[int, list[float]] = {}
    for q, how in zip(numbers, hows):
        if how and not q.signed:
            by_line.setdefault(q.where, []).append(q.value)
    out = []
    for q, (how, source) in zip(numbers, matched):
        if not q.claim:
            continue
        if not how and (q.signed or q.unit in FACTOR) and _derived(q, by_line.get(q.where, []), grounded):
            how = "derived"
        out.append(Finding(q, how, None if how else index.nearest(q.value), source))
    return out
