"""Draft stage, the paper's results: its main results table and the sentences that state results.

In: a ``PaperText``. Out: ``paper_sentences`` — ``(sentence, page)`` of the
prose of the sections whose heading matches (experiments, results… or
limitations), with result numbers when asked — and ``results_table`` — the
main results table as a ``ResultsTable`` (header row, the method's and the
baselines' rows, cells verbatim) that renders as Markdown.

What is not prose is left out of the sentences: table rows (a paragraph of
``\\n``-separated rows whose cells are two spaces apart, see
``papernotes.intake.paper.cleanup``), two rows run together on one line,
pseudo-code (``Algorithm 2``, ``Require:``, ``20: Estimate …``) and captions.

A table is, first, one found from its caption with its rows of cells
(``PaperText.tables``, exact: pdflatex runs a row's cells together in the
text); else a run of row paragraphs, possibly split by group header lines (a
short line on its own, "Qwen3-8B"), whose caption is the ``Table N:`` text
just before or after it. The main results table is the first with a header row
(mostly words, as many cells as the numeric rows) and at least two numeric
rows, preferring one that has the paper's method (its name, or "Ours") and one
in the experiments/results sections; rows that do not fit (another cell count,
words after numbers: two rows merged) are left out, and so are all but the
method's group (its largest, when it is in several) when the table has groups;
a second header row after numeric rows starts another table.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace

from papernotes.intake.extractive import split_sentences
from papernotes.intake.grounding import PaperIndex, ground, note_numbers, paper_index
from papernotes.intake.paper.cleanup import NUMBER
from papernotes.intake.paper.model import Paragraph, PaperText, Section
from papernotes.intake.paper.vocab import LABEL_START, TABLE_CAPTION_IN, TABLE_START
from papernotes.intake.parts import note_prose

RESULT_HEADING = re.compile(r"experiment|result|evaluat|ablation|benchmark|empirical|comparison|analys[ie]s"
                            r"|实验|结果|评估|消融|对比", re.I)
LIMITATION_HEADING = re.compile(r"limitation|局限", re.I)
MAX_ROWS = 12
MAX_COLUMNS = 8
MAX_CAPTION = 300
_RESULT_NUMBER = re.compile(r"\d+\.\d+|\d+(?:\.\d+)?\s*(?:%|％|×|x\b|倍|points?\b|pp\b)", re.I)
_CELLS = re.compile(r"\s{2,}")
_VALUE = re.compile(r"[-+−±~×]?\(?\d[\d,]*(?:\.\d+)?\)?\s*(?:%|×|x|[kKMB])?(?:\s*(?:±|\+|-|−|/)\s*\d[\d.,]*%?)?"
                    r"(?:\s*\(\s*[-+−±]?\s*\d[\d.,]*%?\s*\))?[*†‡↑↓]*|[-–—✓✗✔✘]|N/?A|n/?a|OOM|OOT")
_SPLIT_VALUE = re.compile(r"\d+(?: \d+)+")
"""Digit groups a space apart: a number whose decimal point a reader lost (``43 98``) or thousands (``2 600``)."""
_COINED_START = re.compile(r"[a-z]+[A-Z0-9]")
"""A sentence may start lowercase with a name: "mAP rises to 45.2.", "iPhone runs at 12 fps."."""
_STEP = re.compile(r"(?:^|\s)\d{1,3}:\s+\S")
_PSEUDO = re.compile(r"^Algorithm\s+\d|\b(?:Require|Ensure|Input|Output)\s*:|[←⇐≔]|\bend (?:for|while|if)\b")


# ---------------------------------------------------------------- what a paragraph is

def cells(line: str) -> list[str]:
    return [c for c in _CELLS.split(line.strip()) if c]


def _is_row(line: str) -> bool:
    """``cleanup.is_row`` read back from the text: cells are two spaces apart there."""
    numbers = len(NUMBER.findall(line))
    return len(cells(line)) >= 3 or (numbers >= 3 and 2 * numbers >= len(line.split()))


def is_table(paragraph: Paragraph) -> bool:
    """Table rows, one per line (a single row counts too)."""
    return all(_is_row(line) for line in paragraph.text.split("\n"))


def _is_group(paragraph: Paragraph) -> bool:
    """A group header inside a table: one short line, no sentence ("Qwen3-8B", "Zero-shot")."""
    text = paragraph.text
    return "\n" not in text and len(text) <= 40 and len(text.split()) <= 5 and not text.endswith((".", ":", "。")) \
        and not LABEL_START.match(text)


def is_pseudocode(text: str) -> bool:
    """Algorithm lines: ``Algorithm 2``, ``Require:``, numbered steps (``20: Estimate …``), assignments."""
    steps = len(_STEP.findall(text))
    return bool(_PSEUDO.search(text)) or steps >= 2 or (steps == 1 and text.lstrip()[:1].isdigit())


def _is_prose(sentence: str) -> bool:
    """A sentence, not a caption, a table row, or a fragment starting mid-sentence."""
    numbers = len(NUMBER.findall(sentence))
    starts = not sentence[:1].islower() or _COINED_START.match(sentence) is not None
    ends = sentence.endswith((".", "!", "?", "。", "！", "？", ".)", ".\""))
    return (starts and ends and not LABEL_START.match(sentence) and not is_pseudocode(sentence)
            and not (numbers >= 4 and numbers >= 0.3 * len(sentence.split())) and "  " not in sentence)


def _matching(paper: PaperText, heading: re.Pattern[str]) -> Iterator[tuple[Section, bool, bool]]:
    """Every section, whether its heading (or its parent's) matches, and whether it is in the appendix."""
    parent = False
    for appendix, sections in ((False, paper.sections), (True, paper.appendix)):
        for section in sections:
            if section.level <= 1:
                parent = bool(heading.search(section.title))
            yield section, parent or bool(heading.search(section.title)), appendix


# ---------------------------------------------------------------- sentences

def paper_sentences(paper: PaperText, heading: re.Pattern[str], numbers: bool, limit: int) -> tuple[tuple[str, int], ...]:
    """``(sentence, page)`` of the sections whose heading (or whose parent's) matches, in paper order.

    With ``numbers``, only sentences that state a result number (a decimal, a
    percentage, a factor). Prose only: no table rows, pseudo-code or captions.
    """
    out: list[tuple[str, int]] = []
    for section, matches, _ in _matching(paper, heading):
        if not matches:
            continue
        for paragraph in section.paragraphs:
            if "\n" in paragraph.text or is_table(paragraph) or _PSEUDO.match(paragraph.text):
                continue
            for sentence in split_sentences(paragraph.text):
                if len(sentence) < 25 or not _is_prose(sentence) or (numbers and not _RESULT_NUMBER.search(sentence)):
                    continue
                sentence = note_prose(sentence)
                if sentence and sentence not in (s for s, _ in out):
                    out.append((sentence, paragraph.page))
                if len(out) == limit:
                    return tuple(out)
    return tuple(out)


def main_results(paper: PaperText, table: ResultsTable | None, name: str, limit: int) -> list[tuple[str, int]]:
    """The result sentences (``paper_sentences`` with numbers), the one that states the main result first: one
    that cites ``table`` ("Table 2"), else one naming the method (``name``), else the first."""
    found = list(paper_sentences(paper, RESULT_HEADING, True, max(limit, 40)))
    label = TABLE_START.match(table.caption) if table is not None and table.caption else None
    cites = re.compile(rf"\b{re.escape(label.group(0))}(?!\d)") if label else None
    names = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.I) if name else None
    first = next((i for i, (s, _) in enumerate(found) if cites is not None and cites.search(s)),
                 next((i for i, (s, _) in enumerate(found) if names is not None and names.search(s)), 0))
    return (found[first:first + 1] + found[:first] + found[first + 1:])[:limit] if found else []


# ---------------------------------------------------------------- the main results table

@dataclass(frozen=True, slots=True)
class ResultsTable:
    """A results table as printed: the header row and the rows kept, cells verbatim."""

    caption: str
    """``Table 2: …`` as printed, or ``""`` when none was found next to the table."""
    page: int
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    group: str
    """The group header the rows stand under ("Qwen3-8B"), or ``""`` for a table without groups."""
    rows_left_out: int
    """Rows of the table (other groups', merged ones, ones over ``MAX_ROWS``) not in ``rows``."""
    columns_left_out: int

    def markdown(self) -> str:
        def line(row: tuple[str, ...]) -> str:
            return "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"

        return "\n".join([line(self.header), "|" + "---|" * len(self.header), *(line(r) for r in self.rows)])


@dataclass(frozen=True, slots=True)
class _Found:
    table: ResultsTable
    method: bool
    results: bool
    appendix: bool


def _caption(before: Paragraph | None, after: Paragraph | None) -> str:
    """The ``Table N:`` caption ending the paragraph before the table, or the first sentence of the one after it.

    A caption before the table over ``MAX_CAPTION`` characters keeps its first sentence too.
    """
    if after is not None and TABLE_START.match(after.text):
        return split_sentences(after.text)[0]
    text = ""
    if before is not None and (found := list(TABLE_CAPTION_IN.finditer(before.text))):
        text = before.text[found[-1].start():].strip()
    elif before is not None and TABLE_START.match(before.text):
        text = before.text
    return split_sentences(text)[0] if len(text) > MAX_CAPTION else text


def _runs(paragraphs: tuple[Paragraph, ...]) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each run of table paragraphs, group header lines inside included."""
    i, n = 0, len(paragraphs)
    while i < n:
        if not is_table(paragraphs[i]):
            i += 1
            continue
        j = i + 1
        while j < n and (is_table(paragraphs[j]) or (_is_group(paragraphs[j]) and j + 1 < n and is_table(paragraphs[j + 1]))):
            j += 1
        yield i, j
        i = j


def _names(cells_: list[str], name: str) -> bool:
    label = " ".join(c for c in cells_ if not _VALUE.fullmatch(c))
    return bool(re.search(r"\bours\b", label, re.I)) or (
        bool(name) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", label, re.I) is not None)


def _kind(row: list[str]) -> str:
    """``numbers`` (labels, then values), ``merged`` (words after values: two rows run together) or ``words``."""
    values = [bool(_VALUE.fullmatch(c) or _SPLIT_VALUE.fullmatch(c)) for c in row]
    if not any(values) or not any(NUMBER.search(c) for c in row):
        return "words"
    first = values.index(True)
    if first == 0 or not all(values[first:]):
        return "merged"
    return "numbers"


def _table(paragraphs: list[Paragraph], caption: str, name: str, headed: bool = False) -> ResultsTable | None:
    """The table of one run of paragraphs, or ``None`` without a header row and two numeric rows.

    ``headed``: the first row is the header row unless it holds decimals (a table read from its cells, whose
    header may name sizes or years: "32K", "AIME 2024").
    """
    rows: list[tuple[str, str, list[str]]] = []  # (kind, group, cells)
    group = ""
    for line, paragraph in ((line, p) for p in paragraphs for line in p.text.split("\n")):
        if not is_table(paragraph):
            group = line.strip()
            continue
        if TABLE_START.match(line) and len(cells(line)) == 1:
            caption = caption or line  # a caption with numbers ("Table 3: … Qwen3-8B.") reads as a row
            continue
        row = cells(line)
        kind = "words" if headed and not rows and not re.search(r"\d[.,]\d", line) else _kind(row)
        if kind == "words" and len(row) >= 3 and any(k == "numbers" for k, _, _ in rows):
            break  # another table's header row: the tables stood side by side or one after the other
        rows.append((kind, group, row))
    numeric = [r for r in rows if r[0] == "numbers"]
    if len(numeric) < 2 or not rows or rows[0][0] != "words":
        return None
    width = Counter(len(r[2]) for r in numeric).most_common(1)[0][0]
    first = next(i for i, r in enumerate(rows) if r[0] == "numbers")
    heads = [r[2] for r in rows[:first] if r[0] == "words"]
    header = next((h for h in reversed(heads) if len(h) == width), None)
    if header is None:
        header = next(([""] + h for h in reversed(heads) if len(h) == width - 1), None)
    if header is None and heads and len(heads[-1]) < width:
        # fewer header cells than columns (a header run together, "Model 1st Round 2nd Round Avg."): the first
        # names the label column, the others stand over the last columns, as a right-aligned header does
        last = heads[-1]
        header = [last[0], *[""] * (width - len(last)), *last[1:]]
    if header is None:
        return None
    fitting = [r for r in numeric if len(r[2]) == width]
    groups = list(dict.fromkeys(g for _, g, _ in fitting))
    sizes = Counter(g for _, g, _ in fitting)
    chosen = max((g for g in groups if any(_names(c, name) for _, gg, c in fitting if gg == g)),
                 key=lambda g: sizes[g], default=groups[0])  # the method's group with the most baselines
    body = [c for _, g, c in fitting if g == chosen]
    if len(body) > MAX_ROWS:
        method = [i for i, c in enumerate(body) if _names(c, name)]
        keep = sorted([*method, *(i for i in range(len(body)) if i not in method)][:MAX_ROWS])
        body = [body[i] for i in keep]
    columns = min(width, MAX_COLUMNS)
    data = sum(1 for kind, _, _ in rows if kind != "words")
    return ResultsTable(caption, paragraphs[0].page, tuple(header[:columns]), tuple(tuple(c[:columns]) for c in body),
                        chosen, data - len(body), width - columns)


def _printed(paper: PaperText, name: str) -> list[_Found]:
    """The tables found from their captions (``PaperText.tables``), read from their cells as the page spaces them."""
    last = max((s.page for s in paper.sections), default=0)
    found: list[_Found] = []
    for table in paper.tables:
        rows = list(table.rows)
        while rows and len(rows[0]) < 2:
            rows.pop(0)  # a header spanning the columns under it ("RULER") before the header row
        caption = table.caption if len(table.caption) <= MAX_CAPTION else split_sentences(table.caption)[0]
        found_table = _table([Paragraph("  ".join(row), table.page) for row in rows], caption, name, headed=True)
        if found_table is not None:
            appendix = bool(paper.appendix) and table.page >= paper.appendix[0].page and table.page > last
            found.append(_Found(found_table, any(_names(list(r), name) for r in found_table.rows), True, appendix))
    return found


def results_table(paper: PaperText, name: str = "") -> ResultsTable | None:
    """The paper's main results table, or ``None`` when it has no table with a header row and numeric rows.

    The tables found from their captions (their cells exact) and the runs of table rows in the text (a table
    whose caption was not found, a PDF pdfium cannot open) are both candidates. The table as shown keeps only
    the rows whose every number the paper's text has, as the grounding check reads it (``in_paper``): where the
    two readings of a cell differ (a decimal point one of them lost), the row is left out rather than shown
    wrong, so a draft's table never fails its own check. A table whose rows all agree comes first, then one
    with the paper's method, one in the body, one in the results sections, one read from its cells.
    """
    index = paper_index(paper)
    ranked = []
    for printed, found in [*((True, f) for f in _printed(paper, name)), *((False, f) for f in _in_text(paper, name))]:
        agreeing = _agreeing(found.table, paper, index)
        if agreeing is not None:
            shown, whole = agreeing
            ranked.append(((not whole, not found.method, found.appendix, not found.results, not printed), shown))
    return min(ranked, key=lambda r: r[0])[1] if ranked else None


def in_paper(text: str, paper: PaperText, index: PaperIndex) -> bool:
    """Whether the grounding check finds every number of ``text`` (a Markdown table row, a caption) in the paper."""
    return all(f.supported for f in ground(note_numbers(text), index))


def _agreeing(table: ResultsTable, paper: PaperText, index: PaperIndex) -> tuple[ResultsTable, bool] | None:
    """``table`` without the rows, caption and group name whose numbers the paper's text lacks, and whether it
    lost none of its rows; ``None`` when no row is left."""
    rows = tuple(r for r in table.rows if in_paper(ResultsTable("", 0, (), (r,), "", 0, 0).markdown()
                                                    .rsplit("\n", 1)[-1], paper, index))
    if not rows:
        return None
    caption = table.caption
    if caption and not in_paper(caption, paper, index):
        label = TABLE_START.match(caption)
        caption = label.group(0) if label else ""
    group = table.group if not table.group or in_paper(table.group, paper, index) else ""
    lost = len(table.rows) - len(rows)
    return replace(table, caption=caption, rows=rows, group=group, rows_left_out=table.rows_left_out + lost), not lost


def _in_text(paper: PaperText, name: str) -> list[_Found]:
    """The runs of table rows in the sections' text, with the caption next to each."""
    found: list[_Found] = []
    for section, results, appendix in _matching(paper, RESULT_HEADING):
        paragraphs = section.paragraphs
        for start, end in _runs(paragraphs):
            caption = _caption(paragraphs[start - 1] if start else None, paragraphs[end] if end < len(paragraphs) else None)
            if not (results or caption):
                continue
            table = _table(list(paragraphs[start:end]), caption, name)
            if table is not None:
                found.append(_Found(table, any(_names(list(r), name) for r in table.rows), results, appendix))
    return found
