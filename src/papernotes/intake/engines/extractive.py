"""Draft engine ``extractive``: offline, no model; sentences of the abstract and of the paper, marked as such.

In: a ``DraftJob``. Out: each stub drafted from its abstract
(``papernotes.intake.extractive``: TextRank summary, keyphrases, sentences
sorted into sections) and, when its PDF is beside it, from the paper too: the
sentences that state results with numbers, from its experiments/results
sections, go under 实验关键数据 / Experiments with their page, and a
limitations section's sentences under 局限性. No ratings are made up. The
numbers are checked against the paper like a model's (they are quotes, so
they pass) and the ``grounding`` record written.
"""
from __future__ import annotations

from papernotes.intake.draft import SECTION_KEYS, Drafted, DraftJob
from papernotes.intake.engines import DraftEngine, _grounding
from papernotes.intake.extractive import (
    LIMITATION_HEADING,
    RESULT_HEADING,
    Extract,
    Keyphraser,
    extract,
    paper_sentences,
)
from papernotes.intake.paper import PaperText

_MARK = {"zh": "*摘自摘要（抽取式草稿，待人工整理）*", "en": "*From the abstract (extractive draft, to be edited)*"}
_PAPER_MARK = {"zh": "*摘自论文正文（抽取式草稿，待人工整理）*", "en": "*From the paper (extractive draft, to be edited)*"}
_MISSING = {"zh": "*摘要未涉及，待补充。*", "en": "*Not covered by the abstract; to be written.*"}
RESULT_SENTENCES = 8
LIMITATION_SENTENCES = 3


def _quoted(sentences: tuple[str, ...], lang: str) -> str:
    return f"> {_MARK[lang]}\n>\n> " + " ".join(sentences) if sentences else ""


def _listed(sentences: tuple[tuple[str, int], ...], lang: str) -> str:
    page = "第 {} 页" if lang == "zh" else "p. {}"
    items = "\n".join(f"- {text} ({page.format(n)})" for text, n in sentences)
    return f"{_PAPER_MARK[lang]}\n\n{items}" if sentences else ""


def from_extract(found: Extract, lang: str, paper: PaperText | None = None) -> Drafted:
    """An extractive draft: abstract sentences quoted under a visible mark, the paper's listed with their pages."""
    from_paper = {}
    if paper is not None:
        from_paper["experiments"] = paper_sentences(paper, RESULT_HEADING, True, RESULT_SENTENCES)
        from_paper["limitations"] = paper_sentences(paper, LIMITATION_HEADING, False, LIMITATION_SENTENCES)
    sections = {}
    for key in SECTION_KEYS:
        parts = [_quoted(found.sections.get(key, ()), lang), _listed(from_paper.get(key, ()), lang)]
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
