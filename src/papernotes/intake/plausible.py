"""Is a paper's title, author list or abstract plausible? Pure tests on text, shared by reader and check.

In: a title, author names or an abstract, however they were made (read from a
PDF, imported, written by hand). Out: ``None`` when the field is plausible,
else a short reason. The PDF reader (``papernotes.intake.paper``) falls back
when its title is not plausible; ``ingest pdf`` and ``new --pdf`` mark such a
note for review; ``check`` (``papernotes.check.front_matter``) warns on any
note whose fields fail these tests.

Not plausible as a title: no words, more than ``MAX_TITLE_WORDS`` words, a
caption ("Figure 1: …"), math (operators, several symbols), or a sentence
that ends like prose. Not a name: digits, an e-mail, an affiliation word,
footnote marks, more than six words. An abstract should not hold a section
heading ("1 INTRODUCTION", small caps "1 I NTRODUCTION") or a footnote
("∗Equal contribution", "Copyright 2024").
"""
from __future__ import annotations

import re

MAX_TITLE_WORDS = 40
MAX_TITLE_CHARS = 300
EMAIL = re.compile(r"@|\{[\w.,\s-]+\}\s*@?|\b(?:e-?mail|correspond\w*)\b", re.I)
AFFILIATION = re.compile(
    r"\b(?:universit\w*|institut\w*|college|school|department|dept|faculty|laborator\w*|labs?|research|inc|ltd|"
    r"corp\w*|company|academy|cent(?:er|re)|group|foundation|hospital|technolog\w*|polytechnic|google|microsoft|"
    r"meta|deepmind|openai|nvidia|amazon|apple|ibm|alibaba|tencent|baidu|bytedance|huawei|samsung|anthropic|"
    r"anonymous|double-blind|contribution|affiliation|address|usa|china|uk|germany|france|canada|japan|korea|"
    r"singapore|switzerland|india|israel)\b", re.I)
CAPTION = re.compile(r"^\W*(?:figure|fig\.|table|algorithm|listing)\s*\d+\s*[.:|]", re.I)
MATH_SYMBOLS = re.compile(r"[=<>≤≥≈∼∑∏∫√∂∇∈∉⊂⊆∪∩→←↦±×÷·^_{}|\\]|[\u0370-\u03ff\u2200-\u22ff\U0001d400-\U0001d7ff]")
MARKS = re.compile(r"[*∗†‡§¶⋆★♠♣♥♦✉#]")
HEADING = re.compile(r"(?:^|\s)(?:1|I)\.?\s+I\s?(?:NTRODUCTION|ntroduction)\b|(?:^|\s)1\.?\s+(?:INTRODUCTION|Introduction)\b")
FOOTNOTE = re.compile(r"[*∗†‡§¶]\s*(?:equal\s+contribution|corresponding\s+author|work\s+(?:was\s+)?done)"
                      r"|\b(?:equal\s+contribution|corresponding\s+authors?)\b|\bcopyright\s*(?:©|\(c\)|\d{4})"
                      r"|©\s*\d{4}", re.I)


def title_problem(title: str) -> str | None:
    """Why ``title`` is not a plausible paper title, or ``None``."""
    text = " ".join(title.split())
    words = text.split()
    if sum(ch.isalpha() for ch in text) < 3:
        return "no words"
    if len(words) > MAX_TITLE_WORDS or len(text) > MAX_TITLE_CHARS:
        return f"{len(words)} words, more than a title's {MAX_TITLE_WORDS}"
    if CAPTION.match(text):
        return "a caption"
    symbols = len(MATH_SYMBOLS.findall(text))
    if symbols >= 3 or symbols and symbols >= 0.05 * len(text) or re.search(r"\w\s*=\s*\w", text):
        return "math"
    letters = [ch for ch in text if ch.isalpha()]
    if sum(ch.isalpha() or ch.isspace() for ch in text) < 0.7 * len(text) or len(letters) < 0.5 * len(text):
        return "mostly symbols and digits"
    if len(words) > 12 and text.endswith(".") and sum(w[0].islower() for w in words) > 0.6 * len(words):
        return "a sentence"
    return None


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a person's name as a paper's author list should hold it, or ``None``."""
    text = " ".join(name.split())
    if not text:
        return "empty"
    if any(ch.isdigit() for ch in text):
        return "digits"
    if EMAIL.search(text):
        return "an e-mail"
    if MARKS.search(text):
        return "footnote marks"
    if AFFILIATION.search(text):
        return "an affiliation"
    if len(text.split()) > 6:
        return "too many words"
    return None


def authors_problem(authors: tuple[str, ...] | list[str]) -> str | None:
    """Why an author list is not plausible (none at all, or one entry that is not a name), or ``None``."""
    if not authors:
        return "no authors"
    for name in authors:
        if (why := name_problem(name)) is not None:
            return f"author {name!r} is not a name ({why})"
    return None


def abstract_problem(abstract: str) -> str | None:
    """Why an abstract holds text that is not the abstract (a section heading, a footnote), or ``None``."""
    if m := HEADING.search(abstract):
        return f"it holds a section heading ({m.group(0).strip()!r})"
    if m := FOOTNOTE.search(abstract):
        return f"it holds a footnote ({m.group(0).strip()!r})"
    return None
