"""Reading stage, front matter: the paper's own first page gives its title, authors, abstract, arXiv id and venue.

In: a ``RawDocument`` (the first page with text: its fragments, and page 1's
margin stamps) and the venue lines' patterns (``papernotes.printed_venues``,
the shipped venue taxonomy's by default). Out: a ``Front`` record whose fields
are empty where the page prints nothing, with ``doubts`` saying what was not
plausible. Pure; the PDF metadata is not consulted here (``read.build_paper``
falls back to it). Small capitals are read back as words first
(``smallcaps``).

- **title**: the largest type on the page above the "Abstract" heading (or in
  its upper part) whose text is a plausible title (``intake.plausible``: not
  math, a caption, a sentence, 40+ words), its lines joined; an ALL-CAPS title
  is set in title case, keeping the spelling a word has elsewhere on the page
  (``LoRA``, ``GPT``) and capitals for words without vowels or with digits.
- **authors**: the name lines between the title and the abstract, read across
  the page's width (author blocks side by side are one row). Affiliation and
  "equal contribution" lines are skipped, an e-mail beside a name dropped;
  superscripts, digits, footnote marks (``* † ‡``), commas, "and" and gaps of
  an em separate the names; a name that is not plausible is left out.
- **abstract**: after an "Abstract" heading (or an inline ``Abstract—``), else
  the first paragraph of prose after the authors; it ends at the first section
  heading ("1 Introduction"), keywords line, caption or change of type size.
- **arxiv**: from the margin stamp ``arXiv:2602.06107v1 [cs.LG] 5 Feb 2026``
  (drawn rotated) or a line that starts with one; without its version.
- **venue_text**: the line that says where the paper appeared ("Published as a
  conference paper at ICLR 2026", "Proceedings of the 43rd International
  Conference on Machine Learning, …, 2026"; a line matching the taxonomy's
  ``printed.lines``, or in the page's header or footer a series' own pattern,
  "(AAAI-18)") with the lines it runs on to; never a ``not_venue`` line ("Under
  review", "Preprint"). Turning it into a venue id is
  ``papernotes.intake.venues.resolve_venue``'s job.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import median

from papernotes.intake.paper.cleanup import LIGATURES, clean_text, known_hyphenated, paragraphs
from papernotes.intake.paper.extract import RawDocument, RawPage
from papernotes.intake.paper.layout import Line, reading_order, rows
from papernotes.intake.paper.smallcaps import read_small_caps
from papernotes.intake.plausible import AFFILIATION, EMAIL, name_problem, title_problem
from papernotes.printed_venues import PrintedVenues, shipped
from papernotes.text import CJK_ANY

ARXIV_STAMP = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5})(?:v\d+)?", re.I)
ABSTRACT_HEAD = re.compile(r"^(?:abstract|摘\s*要)(?:\s*$|\s*[.:：—–-]+\s*(?P<rest>.*)$)", re.I)
HEADING = re.compile(r"^(?:\d{1,2}\.?|[IVX]{1,5}\.)\s+[A-Z][^.]{1,60}$")
INTRO = re.compile(r"^(?:(?:\d{1,2}|[IVX]{1,5})\.?\s+)?(?:introduction|background|motivation)$", re.I)
STOP = re.compile(r"^(?:keywords?|key\s+words|index\s+terms|ccs\s+concepts|(?:figure|fig\.|table)\s*\d)", re.I)
ORDINAL = re.compile(r"\b(\d+)\s+(st|nd|rd|th)\b")
"""A superscript ordinal read apart from its number: ``38 th`` -> ``38th``."""
TITLE_AREA = 0.6
"""Share of the page, from the top, where a title stands when no "Abstract" heading is printed under it."""
MARGIN = (0.12, 0.2)
"""Top and bottom shares of the page where a line naming a series alone is a venue line (a header, a footer)."""
YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
CHINESE_NAME = re.compile(f"[{CJK_ANY}]{{2,4}}")
"""A Chinese name: two to four Chinese characters."""
SEPARATORS = re.compile(r"\s*(?:\||,|;|&|\band\b|\s{2,}|\d+|[*∗†‡§¶♠♣♥♦⋆★#✉]+|\([^)]*\))\s*")
MEMBERSHIP = re.compile(r"(?:(?:student|senior|life)\s+)?(?:member|fellow)|IEEE|ACM|IAPR|AAAI", re.I)
"""What IEEE journals print beside a name ("Kaiming He, Member, IEEE"): not a name, dropped like an e-mail."""
PARTICLES = frozenset("van von de der den di da du la le dos das del della bin al y zu ter".split())
SMALL = frozenset("a an and as at but by for from in into nor of on or per the to via vs with".split())
WORDS_2 = frozenset("is it be do go up we us my no so if me he".split())
MARKS = "*∗†‡§¶⋆★"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
PUNCTUATION = "\"'“”‘’()[]{}:;,.!?—–"


@dataclass(frozen=True, slots=True)
class Front:
    """What a paper prints about itself on its first page; ``""``/``()`` where it prints nothing."""

    title: str = ""
    authors: tuple[str, ...] = ()
    abstract: str = ""
    arxiv: str = ""
    """Without version: ``2602.06107``."""
    venue_text: str = ""
    """As printed, e.g. ``Published as a conference paper at ICLR 2026``."""
    doubts: tuple[str, ...] = ()
    """What the page did not give plainly: no plausible title, no author names (``intake.plausible``)."""


def read_front(doc: RawDocument, printed: PrintedVenues | None = None,
               boxes: Sequence[tuple[float, float, float, float]] = ()) -> Front:
    """Page 1's front matter; ``printed`` (the venue lines' patterns) defaults to the shipped venue taxonomy's;
    ``boxes`` are the page's figures (x0, y0, x1, y1), whose text is never the title."""
    printed = printed or shipped()
    cue = printed.is_cue
    page = next((p for p in doc.pages if p.fragments), None)
    if page is None:
        return Front()
    page = read_small_caps(page)
    flat = [replace(line, text=_clean(line.text)) for line in rows(page)]
    lines = [replace(line, text=_clean(line.text)) for line in reading_order(page)]
    arxiv = _arxiv(doc.pages[0].stamps, page.stamps, lines)
    venue = _venue(lines, printed, page.height)
    inside = {i for i, line in enumerate(flat) if any(b[0] <= line.x and line.right <= b[2] and b[1] <= line.y <= b[3]
                                                       for b in boxes)}
    title_at, doubt = _title(flat, page.width, page.height, inside)
    if title_at is None:
        return Front(arxiv=arxiv, venue_text=venue, doubts=(doubt,))
    bottom = min(flat[i].y for i in title_at)
    start, heading = _abstract_start(lines, [i for i, line in enumerate(lines) if line.y < bottom - 0.5 * line.size], cue)
    abstract = _abstract(lines, start, heading, cue) if start is not None else ""
    floor = lines[start].y + 0.5 * lines[start].size if start is not None else float("-inf")
    # under the title, above the abstract, across the page (author blocks side by side read as one row)
    authors = _authors(page, [line for line in flat if floor < line.y < bottom - 0.5 * line.size], cue)
    authors = tuple(name for name in authors if name_problem(name) is None)
    known = _spellings(line for i, line in enumerate(flat) if i not in title_at)
    doubts = () if authors else ("no author names under the title",)
    return Front(_title_text([flat[i] for i in title_at], known), authors, abstract, arxiv, venue, doubts)


def _clean(text: str) -> str:
    """Ligatures spelled out; control bytes (math fonts draw some) dropped; accents back on their letters."""
    return clean_text(CONTROL.sub("", text.translate(LIGATURES)))


# ---------------------------------------------------------------- title

def _body_size(lines: Sequence[Line]) -> float:
    sizes = [line.size for line in lines for _ in range(min(len(line.text) // 10 + 1, 20))]
    return median(sizes) if sizes else 10.0


def _title(lines: Sequence[Line], width: float, height: float, inside: set[int]) -> tuple[list[int] | None, str]:
    """Indices of the title's lines, or ``None`` and why not.

    The title is the largest type (clearly above the body's) drawn on the page, above the "Abstract" heading
    (without one, in the page's upper ``TITLE_AREA``), whose text is a plausible title; a larger type that is
    not (math from a figure, a caption, a sentence) is passed over for the next size down; so is a line ``inside``
    a figure's box.
    """
    body = _body_size(lines)
    heads = [line.y for line in lines if ABSTRACT_HEAD.match(line.text.strip())]
    floor = max(heads) if heads else (1 - TITLE_AREA) * height
    doubt = "no type on page 1 larger than its body text"
    for size in sorted({line.size for line in lines}, reverse=True):
        if size < 1.15 * body:
            break
        same = sorted((i for i, line in enumerate(lines) if abs(line.size - size) <= 0.06 * size
                       and i not in inside and line.y > floor and -1 <= line.x and line.right <= width + 1
                       and line.y <= height),
                      key=lambda i: (-lines[i].y, lines[i].x))
        taken = same[:1]
        for i in same[1:]:
            gap = lines[taken[-1]].y - lines[i].y
            if gap > 2.5 * size:
                break
            taken.append(i)
        if sum(ch.isalpha() for i in taken for ch in lines[i].text) < 8:
            continue
        why = title_problem(_title_text([lines[i] for i in taken], {}))
        if why is None:
            return taken, ""
        doubt = f"the largest type on page 1 is not a plausible title ({why})"
    return None, doubt


def _title_text(lines: Sequence[Line], known: dict[str, str]) -> str:
    text = ""
    for line in lines:
        part = line.text.strip()
        text = f"{text}{part}" if text.endswith("-") else f"{text} {part}".strip()
    text = " ".join(text.split()).strip(MARKS + " ")
    return title_case(text, known) if _all_caps(text) else text


def _all_caps(text: str) -> bool:
    cased = [ch for ch in text if ch.lower() != ch.upper()]
    return len(cased) >= 6 and all(ch.isupper() for ch in cased)


def _spellings(lines: Iterable[Line]) -> dict[str, str]:
    """Words the page spells with inner capitals (``LoRA``, ``GPT``, ``ImageNet``), by their case-folded form."""
    found: dict[str, str] = {}
    for line in lines:
        for word in re.findall(r"[^\W\d_][\w]*", line.text):
            if any(ch.isupper() for ch in word[1:]) and word.casefold() not in SMALL:
                found.setdefault(word.casefold(), word)
    return found


def title_case(title: str, known: dict[str, str] | None = None) -> str:
    """An ALL-CAPS title in title case; acronyms (no vowel, a digit, two letters, or spelled so on the page) kept,
    a plural one written ``LLMs``."""
    known = known or {}
    out: list[str] = []
    first = True
    for token in re.split(r"(\s+)", title):
        if not token.strip():
            out.append(token)
            continue
        out.append("-".join(_word(part, known, first and k == 0) for k, part in enumerate(token.split("-"))))
        first = token.endswith((":", "?", "!", "—", "–"))
    return "".join(out)


def _word(word: str, known: dict[str, str], first: bool) -> str:
    core = word.strip(PUNCTUATION)
    if not core:
        return word
    start = word.index(core)
    head, tail = word[:start], word[start + len(core):]
    key = core.casefold()
    if key in known:
        core = known[key]
    elif len(core) >= 4 and core.endswith("S") and not re.search(r"[AEIOUY]", core, re.I):
        core = core[:-1] + "s"  # a plural acronym: LLMS -> LLMs
    elif any(ch.isdigit() for ch in core) or not re.search(r"[AEIOUY]", core, re.I) \
            or (len(core) == 2 and key not in SMALL and key not in WORDS_2):
        pass
    elif key in SMALL and not first:
        core = key
    else:
        core = core[0] + core[1:].lower()
    return f"{head}{core}{tail}"


# ---------------------------------------------------------------- authors

def _marked_text(page: RawPage, line: Line) -> str:
    """The line's text with superscripts (smaller or raised type) and gaps of an em or more (author blocks side by
    side) turned into ``|`` separators."""
    frags = sorted((f for f in page.fragments if abs(f.y - line.y) <= 0.6 * line.size
                    and line.x - 1 <= f.x <= line.right + 1), key=lambda f: f.x)
    text, end = "", None
    for f in frags:
        if f.size < 0.85 * line.size or f.y > line.y + 0.2 * line.size:
            text += "|"
        else:
            gap = f.x - end if end is not None else 0.0
            text += ("|" if gap > f.size else " " if gap > 0.15 * f.size else "") + f.text  # an em: another name
        end = f.x + f.width
    return _clean(text) or line.text


def is_name(text: str) -> bool:
    if CHINESE_NAME.fullmatch(text):
        return True
    words = text.split()
    return (2 <= len(words) <= 5 and words[-1][0].isupper()
            and all(re.fullmatch(r"[^\W\d_][\w'’.-]*", w) and (w[0].isupper() or w in PARTICLES) for w in words))


def _authors(page: RawPage, lines: Sequence[Line], cue: Callable[[str], bool]) -> tuple[str, ...]:
    """Names from the lines between the title and the abstract, read across the page's whole width.

    A line counts when its parts (cut at separators, footnote marks and wide gaps) are names, apart from
    e-mail addresses beside them (older ICML: the address right-aligned on the name's line). A line of
    prose before any name (a content warning) is passed over; one after the names ends them.
    """
    names: list[str] = []
    for line in lines:
        if _prose(line) or _is_heading(line, line.size):
            if names:
                break
            continue
        if AFFILIATION.search(line.text) or cue(line.text):
            continue
        parts = [" ".join(p.split()) for p in SEPARATORS.split(_marked_text(page, line))]
        parts = [p for p in parts if p and not EMAIL.search(p) and not MEMBERSHIP.fullmatch(p)]
        if parts and all(is_name(p) for p in parts):
            names.extend(p for p in parts if p not in names)
    return tuple(names)


# ---------------------------------------------------------------- abstract

def _is_heading(line: Line, size: float) -> bool:
    text = line.text.strip()
    return bool(INTRO.match(text)) or bool(HEADING.match(text)) and (line.bold or line.size > 1.05 * size)


def _prose(line: Line) -> bool:
    words = line.text.split()
    return len(words) >= 8 and sum(w[0].islower() for w in words) >= 0.4 * len(words)


def _abstract_start(lines: Sequence[Line], below: Sequence[int], cue: Callable[[str], bool]
                    ) -> tuple[int | None, bool]:
    """Where the abstract starts among the lines ``below`` the title (in reading order), and whether at a heading."""
    for i in below:
        if ABSTRACT_HEAD.match(lines[i].text.strip()):
            return i, True
    body = _body_size(lines)
    for i in below:
        line = lines[i]
        if _is_heading(line, body):
            return None, False
        if _prose(line) and not (EMAIL.search(line.text) or cue(line.text) or STOP.match(line.text)):
            return i, False
    return None, False


def _abstract(lines: Sequence[Line], start: int, heading: bool, cue: Callable[[str], bool]) -> str:
    first = lines[start]
    taken: list[Line] = []
    if heading:
        m = ABSTRACT_HEAD.match(first.text.strip())
        if m and m.group("rest"):
            taken.append(replace(first, text=m.group("rest")))
        start += 1
    size = lines[start].size if start < len(lines) else first.size
    for line in lines[start:]:
        text = line.text.strip()
        if (abs(line.size - size) > 0.12 * size or _is_heading(line, size) or STOP.match(text)
                or cue(text) or ABSTRACT_HEAD.match(text)):
            break
        taken.append(line)
    found = paragraphs(taken, known_hyphenated(lines))  # "self-" + "distillation": the title spells it
    chosen = found if heading else found[:1]
    return " ".join(" ".join(p.text.split()) for p in chosen)


# ---------------------------------------------------------------- arXiv id and venue

def _arxiv(stamps: Sequence[str], more: Sequence[str], lines: Sequence[Line]) -> str:
    for text in (" ".join(stamps), " ".join(more)):
        if m := ARXIV_STAMP.search(text) or ARXIV_STAMP.search(text.replace(" ", "")):
            return m.group(1)
    for line in lines:
        if m := re.match(r"\W*arXiv:\s*(\d{4}\.\d{4,5})", line.text, re.I):
            return m.group(1)
    return ""


def _venue(lines: Sequence[Line], printed: PrintedVenues, height: float) -> str:
    """The first line that says where the paper appeared, with the lines it runs on to, as printed.

    A line naming a series but no cue ("(AAAI-18)", a journal's header) counts in the page's margins only:
    the body may cite another venue.
    """
    for i, line in enumerate(lines):
        text = ORDINAL.sub(r"\1\2", line.text)
        margin = line.y > (1 - MARGIN[0]) * height or line.y < MARGIN[1] * height
        if not (printed.is_cue(text) or margin and not _prose(line) and printed.series_in(text)) \
                or printed.is_not_venue(text):
            continue
        text, prev = text.strip(), line
        for nxt in lines[i + 1:i + 3]:
            if YEAR.search(text) or abs(nxt.size - prev.size) > 0.06 * prev.size \
                    or not 0 < prev.y - nxt.y < 2 * prev.size:
                break
            more = ORDINAL.sub(r"\1\2", nxt.text.strip())
            text = f"{text[:-1]}{more}" if text.endswith("-") else f"{text} {more}"
            prev = nxt
        text = re.split(r"\s*(?:copyright|©)", text, maxsplit=1, flags=re.I)[0]
        return re.sub(r"^\W+", "", text).rstrip(" .;,")
    return ""
