"""Draft engine ``extractive``: offline, no model; a note made of the paper's own parts, marked as such.

In: a ``DraftJob``. Out: each stub drafted from its abstract
(``papernotes.intake.extractive``: the contribution sentence as summary,
noun-phrase keywords) and, when its PDF is beside it, from the paper's parts
(``papernotes.intake.parts``, ``papernotes.intake.results``), each under a mark
naming the part and its pages:

- Background: the introduction's problem and gap;
- Method: the method section's opening, else the contribution list;
- Experiments: the main results table with its header row, caption and page,
  then the sentence that states the main result (the one citing that table)
  and a few more result sentences with their page;
- Highlights: the contribution list, else the introduction's claims;
- Limitations: the limitations section, else the conclusion's caveats;
- Related work: the related-work section's opening.

Where the paper has no such part (or there is no paper), the abstract's
sentences for that section are quoted. No sentence appears twice in a note
(the summary included), and every quoted sentence is prose
(``parts.note_prose``). No ratings are made up. The numbers are checked
against the paper like a model's (they are quotes, and the table keeps only
rows the check finds, so they pass) and the ``grounding`` record written.
"""
from __future__ import annotations

import re

from papernotes.intake import parts
from papernotes.intake.draft import SECTION_KEYS, Drafted, DraftJob
from papernotes.intake.engines import DraftEngine, _grounding
from papernotes.intake.extractive import Extract, Keyphraser, extract
from papernotes.intake.paper import PaperText
from papernotes.intake.parts import Quote, note_prose
from papernotes.intake.results import ResultsTable, main_results, results_table

_MARK = {"zh": "*摘自摘要（抽取式草稿，待人工整理）*", "en": "*From the abstract (extractive draft, to be edited)*"}
_PART_MARK = {"zh": "*摘自论文「{}」（{}；抽取式草稿，待人工整理）*", "en": "*From the paper's {} ({}; extractive draft, to be edited)*"}
_PAPER_MARK = {"zh": "*摘自论文正文（抽取式草稿，待人工整理）*", "en": "*From the paper (extractive draft, to be edited)*"}
_MISSING = {"zh": "*摘要未涉及，待补充。*", "en": "*Not covered by the abstract; to be written.*"}
_NOT_FOUND = {"zh": "*论文与摘要中均未找到，待补充。*", "en": "*Not found in the paper or its abstract; to be written.*"}
_PAGE = {"zh": "第 {} 页", "en": "p. {}"}
_PAGES = {"zh": "第 {}–{} 页", "en": "pp. {}–{}"}
_GROUP = {"zh": "{} 组", "en": "{} rows"}
_ROWS_LEFT = {"zh": "另有 {} 行未列出", "en": "{} more rows in the paper"}
_COLUMNS_LEFT = {"zh": "另有 {} 列未列出", "en": "{} more columns in the paper"}
RESULT_SENTENCES = 3


class _Once:
    """The sentences a note already quotes: none is quoted twice (a shortened one counts as its whole)."""

    def __init__(self) -> None:
        self._keys: list[str] = []

    def fresh(self, sentence: str) -> bool:
        key = re.sub(r"\W+", "", sentence.casefold())[:80]
        if not key or any(key.startswith(k) or k.startswith(key) for k in self._keys):
            return False
        self._keys.append(key)
        return True


def _pages(quotes: list[Quote], lang: str) -> str:
    first, last = min(q.page for q in quotes), max(q.page for q in quotes)
    return _PAGE[lang].format(first) if first == last else _PAGES[lang].format(first, last)


def _quoted_part(quotes: list[Quote], lang: str, bullets: bool = False) -> str:
    """Sentences of one part of the paper under a mark naming it and its pages; one paragraph, or a list."""
    if not quotes:
        return ""
    mark = _PART_MARK[lang].format(quotes[0].section or "…", _pages(quotes, lang))
    if bullets:
        return f"{mark}\n\n" + "\n".join(f"- {q.text}" for q in quotes)
    return f"> {mark}\n>\n> " + " ".join(q.text for q in quotes)


def _quoted(sentences: list[str], lang: str) -> str:
    return f"> {_MARK[lang]}\n>\n> " + " ".join(sentences) if sentences else ""


def _listed(sentences: list[tuple[str, int]], lang: str) -> str:
    return "\n".join(f"- {text} ({_PAGE[lang].format(n)})" for text, n in sentences)


def _table(table: ResultsTable | None, lang: str) -> str:
    """The table, a blank line (so the caption is not read as a row), then its caption, page and what was left out."""
    if table is None:
        return ""
    notes = [_PAGE[lang].format(table.page)]
    if table.group:
        notes.append(_GROUP[lang].format(table.group))
    if table.rows_left_out:
        notes.append(_ROWS_LEFT[lang].format(table.rows_left_out))
    if table.columns_left_out:
        notes.append(_COLUMNS_LEFT[lang].format(table.columns_left_out))
    note = "(" + ("；" if lang == "zh" else "; ").join(notes) + ")"
    return f"{table.markdown()}\n\n" + " ".join(p for p in (table.caption, note) if p)


def _paper_parts(found: Extract, paper: PaperText, once: _Once, lang: str) -> dict[str, str]:
    """Each section from the paper's own parts (see the module docstring); ``""`` where the paper has none."""
    def fresh(quotes: list[Quote]) -> list[Quote]:
        return [q for q in quotes if once.fresh(q.text)]

    out: dict[str, str] = {"background": _quoted_part(fresh(parts.background(paper)), lang)}
    contributions = parts.contributions(paper)
    method = fresh(parts.method_opening(paper))
    out["method"] = _quoted_part(method, lang) if method else _quoted_part(fresh(contributions), lang, bullets=True)
    table = results_table(paper, found.name)
    sentences = [(t, n) for t, n in main_results(paper, table, found.name, RESULT_SENTENCES * 3) if once.fresh(t)]
    listed = _listed(sentences[:RESULT_SENTENCES], lang)
    out["experiments"] = "\n\n".join(p for p in (_PAPER_MARK[lang] if table or listed else "", _table(table, lang),
                                                  listed) if p)
    out["highlights"] = _quoted_part(fresh(contributions) or fresh(parts.claims(paper)), lang, bullets=True)
    out["limitations"] = _quoted_part(fresh(parts.limitations(paper)), lang)
    out["related"] = _quoted_part(fresh(parts.related(paper)), lang)
    return out


def from_extract(found: Extract, lang: str, paper: PaperText | None = None) -> Drafted:
    """An offline draft: each section from the paper's own part for it (its page and section named), the
    abstract's sentences where the paper has none (or there is no paper); no sentence twice."""
    once = _Once()
    once.fresh(found.summary)
    from_paper = _paper_parts(found, paper, once, lang) if paper is not None else {}
    sections = {}
    for key in SECTION_KEYS:
        text = from_paper.get(key, "")
        if not text or (key == "experiments" and not _LISTED.search(text)):  # no result sentence in the paper
            quoted = [s for s in (note_prose(s) for s in found.sections.get(key, ())) if s and once.fresh(s)]
            text = "\n\n".join(p for p in (_quoted(quoted, lang), text) if p)
        sections[key] = text or (_MISSING if paper is None else _NOT_FOUND)[lang]
    return Drafted(found.summary, found.keywords, sections, {}, "extractive")


_LISTED = re.compile(r"^- ", re.M)


def run(job: DraftJob) -> None:
    keyphraser = Keyphraser(job.abstracts)
    for stub in job.stubs:
        lang = job.langs[stub.path]
        paper = job.paper(stub)
        abstract = job.abstract(stub)
        if not abstract:
            job.fail(stub, "no abstract to extract from")
            continue
        drafted = from_extract(extract(stub.text("title"), abstract, keyphraser), lang, paper)
        if paper is None:
            job.finish(stub, drafted)
            continue
        found = _grounding.check(stub, drafted, paper, lang)
        job.finish(stub, _grounding.mark(drafted, found), found.record())


ENGINE = DraftEngine(
    name="extractive",
    help="offline, no model: abstract sentences, and result sentences with numbers from the PDF beside a note",
    run=run,
)
