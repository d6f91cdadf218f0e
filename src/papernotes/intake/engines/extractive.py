"""Draft engine ``extractive``: offline, no model; sentences of the abstract and of the paper, marked as such.

In: a ``DraftJob``. Out: each stub drafted from its abstract
(``papernotes.intake.extractive``: the contribution sentence as summary,
noun-phrase keywords, sentences sorted into sections) and, when its PDF is
beside it, from the paper too (``papernotes.intake.results``): the main
results table as a Markdown table with its header row, its caption and page,
and the sentences that state results with numbers, from its
experiments/results sections, go under 实验关键数据 / Experiments with their
page, and a limitations section's sentences under 局限性. No ratings are made
up. The numbers are checked against the paper like a model's (they are
quotes, so they pass) and the ``grounding`` record written.
"""
from __future__ import annotations

from papernotes.intake.draft import SECTION_KEYS, Drafted, DraftJob
from papernotes.intake.engines import DraftEngine, _grounding
from papernotes.intake.extractive import Extract, Keyphraser, extract
from papernotes.intake.paper import PaperText
from papernotes.intake.results import LIMITATION_HEADING, RESULT_HEADING, ResultsTable, paper_sentences, results_table

_MARK = {"zh": "*摘自摘要（抽取式草稿，待人工整理）*", "en": "*From the abstract (extractive draft, to be edited)*"}
_PAPER_MARK = {"zh": "*摘自论文正文（抽取式草稿，待人工整理）*", "en": "*From the paper (extractive draft, to be edited)*"}
_MISSING = {"zh": "*摘要未涉及，待补充。*", "en": "*Not covered by the abstract; to be written.*"}
_PAGE = {"zh": "第 {} 页", "en": "p. {}"}
_GROUP = {"zh": "{} 组", "en": "{} rows"}
_ROWS_LEFT = {"zh": "另有 {} 行未列出", "en": "{} more rows in the paper"}
_COLUMNS_LEFT = {"zh": "另有 {} 列未列出", "en": "{} more columns in the paper"}
RESULT_SENTENCES = 8
LIMITATION_SENTENCES = 3


def _quoted(sentences: tuple[str, ...], lang: str) -> str:
    return f"> {_MARK[lang]}\n>\n> " + " ".join(sentences) if sentences else ""


def _listed(sentences: tuple[tuple[str, int], ...], lang: str) -> str:
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


def from_extract(found: Extract, lang: str, paper: PaperText | None = None) -> Drafted:
    """An extractive draft: abstract sentences quoted under a visible mark, the paper's table and sentences with their pages."""
    from_paper: dict[str, list[str]] = {}
    if paper is not None:
        from_paper["experiments"] = [_table(results_table(paper, found.name), lang),
                                     _listed(paper_sentences(paper, RESULT_HEADING, True, RESULT_SENTENCES), lang)]
        from_paper["limitations"] = [_listed(paper_sentences(paper, LIMITATION_HEADING, False, LIMITATION_SENTENCES),
                                             lang)]
    sections = {}
    for key in SECTION_KEYS:
        quoted = [p for p in from_paper.get(key, []) if p]
        parts = [_quoted(found.sections.get(key, ()), lang), _PAPER_MARK[lang] if quoted else "", *quoted]
        sections[key] = "\n\n".join(p for p in parts if p) or _MISSING[lang]
    return Drafted(found.summary, found.keywords, sections, {}, "extractive")


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
