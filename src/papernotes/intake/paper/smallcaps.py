"""Reading stage, front matter: small capitals read back as the words they spell.

In: a ``RawPage`` (page 1). Out: the same page whose small-capital runs are
lower-case letters at the line's full size, joined to the capital they follow.
ICLR's and many other templates set the title in small caps, which PDFs draw
as capitals at about four fifths of the size: "R" at 17 pt, then "OBUST" at
13.8 pt. Read as drawn, a title comes out "R OBUST REASONING" and its lines
differ in size (the longest run decides a line's size), so part of the title
was lost. A baseline holds small caps when an all-capital run in 60-90 % of
the line's largest letters touches a neighbour (no space between them);
then every such run on it is a small-caps run.
"""
from __future__ import annotations

from dataclasses import replace

from papernotes.intake.paper.extract import Fragment, RawPage

RATIO = (0.6, 0.9)
"""Small capitals are drawn this much smaller than the capitals beside them."""
TOUCH = 1.0
"""Ems of gap at most between two runs of one word (neither side a space): estimated widths run short."""


def _is_small(frag: Fragment, size: float) -> bool:
    letters = [ch for ch in frag.text if ch.isalpha()]
    return bool(letters) and all(ch.isupper() for ch in letters) and RATIO[0] <= frag.size / size <= RATIO[1]


def _touch(a: Fragment, b: Fragment, size: float) -> bool:
    return (not a.text[-1:].isspace() and not b.text[:1].isspace()
            and -TOUCH * size < b.x - (a.x + a.width) < TOUCH * size)


def _baselines(frags: list[Fragment]) -> list[list[Fragment]]:
    out: list[list[Fragment]] = []
    for f in sorted(frags, key=lambda f: (-f.y, f.x)):
        if out and abs(out[-1][0].y - f.y) <= 0.25 * max(out[-1][0].size, f.size):
            out[-1].append(f)
        else:
            out.append([f])
    return [sorted(group, key=lambda f: f.x) for group in out]


def _line(group: list[Fragment]) -> list[Fragment]:
    size = max((f.size for f in group if any(ch.isalpha() for ch in f.text)), default=0.0)
    small = [_is_small(f, size) for f in group]
    if not any(s and ((k > 0 and _touch(group[k - 1], f, size)) or (k + 1 < len(group) and _touch(f, group[k + 1], size)))
               for k, (f, s) in enumerate(zip(group, small))):
        return group  # the very list: nothing read as small caps
    out: list[tuple[Fragment, bool]] = []
    for f, s in zip(group, small):
        if s:
            f = replace(f, text=f.text.lower(), size=size)
        if out and (s or out[-1][1]) and _touch(out[-1][0], f, size):
            prev = out[-1][0]
            out[-1] = (replace(prev, text=prev.text + f.text, width=f.x + f.width - prev.x, size=size,
                               bold=prev.bold or f.bold), True)
        else:
            out.append((f, s))
    return [f for f, _ in out]


def read_small_caps(page: RawPage) -> RawPage:
    """``page`` with its small-caps runs joined into words (``R`` + ``OBUST`` -> ``Robust``)."""
    if not page.fragments:
        return page
    groups = _baselines(list(page.fragments))
    read = [_line(group) for group in groups]
    if all(a is b for a, b in zip(read, groups)):
        return page
    return replace(page, fragments=tuple(f for group in read for f in group))
