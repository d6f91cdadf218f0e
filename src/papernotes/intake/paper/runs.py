"""Reading stage, text runs: what pdfium's text page of a PDF page says, as runs of text with their boxes.

In: a pdfium text page. Out: ``Run`` records (text that pdfium reports as one rectangle, neighbours on a
line joined), top to bottom, those that begin with a caption's label word marked ``labelled`` (a label
standing alone joined with its words, two captions side by side on one line cut apart). The figure finder
(``papernotes.intake.paper.figures``) works on them.
"""
from __future__ import annotations

from typing import Any

from papernotes.intake.paper.cleanup import clean_text
from papernotes.intake.paper.graphics import Box
from papernotes.intake.paper.model import well_formed
from papernotes.intake.paper.vocab import BARE, LABEL_WORDS

TERMINAL = (".", ":", "?", "!", ";")
"""How a sentence ends: a label after one of these and a wide gap starts a caption of its own."""


class Run:
    """Text that pdfium reports as one rectangle (rectangles on one baseline joined when close).

    Its text is read when first asked for: pdfium scans the whole page for each rectangle, and most of a page's
    rectangles only need their position.
    """

    __slots__ = ("x0", "y0", "x1", "y1", "rects", "textpage", "labelled", "_text")

    def __init__(self, rects: list[Box], textpage: Any) -> None:
        self.x0, self.y0 = min(r[0] for r in rects), min(r[1] for r in rects)
        self.x1, self.y1 = max(r[2] for r in rects), max(r[3] for r in rects)
        self.rects = rects
        self.textpage = textpage
        self.labelled = False
        """Begins with a label word (``label_runs``): only such a run can be a caption."""
        self._text: str | None = None

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)

    @property
    def box(self) -> Box:
        return self.x0, self.y0, self.x1, self.y1

    @property
    def text(self) -> str:
        if self._text is None:
            parts = (clean_text(self.textpage.get_text_bounded(*r)) for r in self.rects)
            self._text = well_formed(" ".join(" ".join(parts).split()))
        return self._text


def text_runs(textpage: Any) -> list[Run]:
    """The page's text rectangles, top to bottom; neighbours on one line less than an em apart joined.

    Glyph boxes are tight (a run with descenders reaches lower than one without), so a line is rectangles that
    overlap vertically by half their height, not ones with the same middle.
    """
    rects = [textpage.get_rect(i) for i in range(textpage.count_rects())]
    rects.sort(key=lambda r: -(r[1] + r[3]))
    lines: list[list[Box]] = []
    for r in rects:
        line = lines[-1] if lines else None
        if line is not None and min(line[0][3], r[3]) - max(line[0][1], r[1]) >= 0.5 * min(
                r[3] - r[1], line[0][3] - line[0][1]):
            line.append(r)
        else:
            lines.append([r])
    groups: list[list[Box]] = []
    for line in lines:
        line.sort(key=lambda r: r[0])
        groups.append([line[0]])
        for r in line[1:]:
            last = groups[-1][-1]
            if -1.0 <= r[0] - last[2] < max(r[3] - r[1], 1.0):
                groups[-1].append(r)
            else:
                groups.append([r])
    return [Run(group, textpage) for group in groups]


def label_runs(textpage: Any, runs: list[Run]) -> list[Run]:
    """``runs`` with those that begin with a label word (found by pdfium's search) marked ``labelled``.

    A label inside a run after a sentence's end and a wide gap starts a run of its own (two captions side by
    side on one line); a label standing alone is joined with the words right of it on its line.
    """
    out = list(runs)
    for word in LABEL_WORDS:
        searcher = textpage.search(word, match_case=True)
        while (hit := searcher.get_next()) is not None:
            left, bottom, _, top = textpage.get_charbox(hit[0])
            middle = (bottom + top) / 2
            k = next((k for k, run in enumerate(out) if run.x0 - 1.5 <= left <= run.x1
                      and run.y0 - 1 <= middle <= run.y1 + 1), None)
            if k is None:
                continue
            run = out[k]
            if abs(run.x0 - left) < 1.5:
                run.labelled = True
                continue
            cut = next((j for j, r in enumerate(run.rects) if j and abs(r[0] - left) < 1.5), None)
            if cut is None or run.rects[cut][0] - run.rects[cut - 1][2] < 0.4 * run.height:
                continue
            head, tail = Run(run.rects[:cut], textpage), Run(run.rects[cut:], textpage)
            if head.text.endswith(TERMINAL):
                head.labelled, tail.labelled = run.labelled, True
                out[k:k + 1] = [head, tail]
    k = 0
    while k < len(out):
        run = out[k]
        if run.labelled and BARE.match(run.text):
            right = [o for o in out if o is not run and 0 <= o.x0 - run.x1 < 4 * run.height
                     and min(o.y1, run.y1) - max(o.y0, run.y0) >= 0.5 * min(o.height, run.height)]
            if right:
                words = min(right, key=lambda o: o.x0)
                joined = Run(run.rects + words.rects, textpage)
                joined.labelled = True
                out[k] = joined
                out.remove(words)
        k += 1
    return out
