"""Check stage: every problem in a corpus, with ``path:line``, before publishing.

In: a corpus directory (and optionally a built site). Out: a list of
``Diagnostic`` records. Errors (bad front matter, missing required fields,
duplicate ids or papers, formulas KaTeX rejects) make ``papernotes check`` exit
non-zero; warnings (missing, empty or doubled sections, broken links, suspected
misfiles, unknown taxonomy names) do not. A built site is compared with the
corpus by ``check/site.py``.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import NamedTuple

from papernotes import extras
from papernotes.cache import BuildCache
from papernotes.check.front_matter import front_matter_problems
from papernotes.check.ratings import RatingShare, rating_problems, rating_shares
from papernotes.check.site import site_problems
from papernotes.check.translations import translation_problems
from papernotes.config import load_config, load_site_taxonomy
from papernotes.corpus.frontmatter import split_front_matter
from papernotes.corpus.load import cache_path, load_corpus
from papernotes.corpus.model import SECTIONS, Entry, Note, SectionInfo
from papernotes.errors import CorpusError, Diagnostic, error, text_line, warning
from papernotes.site.plan import resolve_local_link, site_urls
from papernotes.site.resolve import resolve
from papernotes.taxonomy import Taxonomy
from papernotes.text import normalise_title

REQUIRED_SECTIONS = ("summary", "background", "method", "experiments", "highlights", "limitations")


@dataclass(frozen=True, slots=True)
class CheckOptions:
    formulas: bool = True
    """Validate every formula with KaTeX (cached)."""
    classifier: bool = True
    """Report suspected misfiles with the learned classifier."""
    misfile_threshold: float = 0.8
    site: Path | None = None
    """A built site whose pages are compared with the corpus."""
    grounding: bool = False
    """Check every number a note states against its paper, the PDF beside it (``intake.grounding``)."""


def section_problems(note: Note) -> list[Diagnostic]:
    problems = doubled_sections(note)
    if note.status == "stub":
        return problems
    found = {s.key: s for s in note.sections if s.key}
    for key in REQUIRED_SECTIONS:
        zh, en, _ = SECTIONS[key]
        heading = en if note.lang == "en" else zh
        info = found.get(key)
        if info is None:
            if key == "summary" and note.summary:
                continue
            problems.append(warning(note.path, note.body_line, f"missing section `## {heading}`", "missing-section"))
        elif info.chars == 0:
            problems.append(warning(note.path, info.line, f"empty section `## {info.heading}`", "empty-section"))
    return problems


_MAIN_NAMES = {key: (zh, en.casefold()) for key, (zh, en, _) in SECTIONS.items()}


def doubled_sections(note: Note) -> list[Diagnostic]:
    """A canonical section written again, at each later copy: under its zh or en name (``局限性 / 可改进方向``
    counts as ``局限性``) or the same heading; two headings that share only an alias (``实验设置``,
    ``实验结果``) are two sections of their own."""
    keys = [info.key for info in note.sections if info.key]
    if len(keys) == len(set(keys)):  # nearly every note: no key twice
        return []
    main: dict[str, SectionInfo] = {}
    same: dict[str, SectionInfo] = {}
    problems = []
    for info in note.sections:
        if not info.key:
            continue
        heading = info.heading.casefold()
        is_main = heading.startswith(_MAIN_NAMES[info.key])
        earlier = (main.get(info.key) if is_main else None) or same.get(heading)
        if earlier is not None:
            problems.append(warning(note.path, info.line, f"section `## {info.heading}` appears twice (first "
                                    f"`## {earlier.heading}` at line {earlier.line}); keep one", "doubled-section"))
        if is_main:
            main.setdefault(info.key, info)
        same.setdefault(heading, info)
    return problems


def duplicate_problems(notes: Sequence[Note]) -> list[Diagnostic]:
    """Same arXiv id, or (near-)identical titles, anywhere in the corpus."""
    problems: list[Diagnostic] = []
    by_arxiv: dict[str, list[Note]] = defaultdict(list)
    by_title: dict[str, list[Note]] = defaultdict(list)
    for note in notes:
        if note.arxiv_id:
            by_arxiv[note.arxiv_id].append(note)
        if note.title:
            by_title[normalise_title(note.title)].append(note)
    reported: set[tuple[str, str]] = set()

    def report(a: Note, b: Note, why: str) -> None:
        pair = (a.path, b.path)
        if pair in reported or a.path == b.path:
            return
        reported.add(pair)
        problems.append(error(b.path, b.line_of("title"), f"duplicate paper: {why} as {a.path}", "duplicate-paper"))

    for arxiv_id, group in by_arxiv.items():
        for other in group[1:]:
            report(group[0], other, f"same arXiv id {arxiv_id}")
    for group in by_title.values():
        for other in group[1:]:
            report(group[0], other, "same title")
    # near-identical: compare titles sharing a prefix (cheap blocking instead of all pairs)
    blocks: dict[str, list[tuple[str, Note]]] = defaultdict(list)
    for key, group in by_title.items():
        if len(key) >= 12:
            blocks[key[:8]].append((key, group[0]))
    for block in blocks.values():
        for i, (ka, a) in enumerate(block):
            for kb, b in block[i + 1:]:
                if SequenceMatcher(None, ka, kb).ratio() >= 0.95:
                    report(a, b, "near-identical title")
    return problems


def link_problems(root: Path, entries: Sequence[Entry]) -> list[Diagnostic]:
    by_path = {e.note.path: e.url for e in entries}
    urls = site_urls(entries)
    problems = []
    for entry in entries:
        broken = [t for t in entry.note.local_links
                  if resolve_local_link(entry.note.path, entry.url, t, by_path, urls) is None]
        if not broken:
            continue
        try:
            text = (root / entry.note.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        for target in broken:
            problems.append(warning(entry.note.path, text_line(text, target), f"broken link: {target}", "broken-link"))
    return problems


def topic_problems(entries: Sequence[Entry]) -> list[Diagnostic]:
    problems = []
    for entry in entries:
        note = entry.note
        if note.topics is None:
            continue
        for topic in entry.topics:
            if not topic.known:
                problems.append(warning(note.path, note.line_of("topics"),
                                        f"topic {topic.zh!r} is not in the taxonomy (shown as written)", "unknown-topic"))
        if len(entry.topics) != len(note.topics):
            problems.append(warning(note.path, note.line_of("topics"), "a topic is listed twice", "duplicate-topic"))
    return problems


def formula_problems(root: Path, notes: Sequence[Note], cache_file: Path | None) -> list[Diagnostic]:
    # lazy: 43 ms (importtime, beside papernotes.check.run): only the check that needs it loads it
    from papernotes.corpus.katex import MAX_FORMULA_CHARS, FormulaChecker
    from papernotes.corpus.formulas import extract_formulas, lost_escape

    problems: list[Diagnostic] = []
    groups = []
    for note in notes:
        try:
            text = (root / note.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        _, body, body_line = split_front_matter(text.replace("\r\n", "\n"))
        formulas = extract_formulas(body, body_line) if ("$" in body or "\\(" in body or "\\[" in body) else []
        groups.append((note, formulas))
        for formula in formulas:
            if (hint := lost_escape(formula.tex)) is not None:
                problems.append(warning(note.path, formula.line, hint, "math-escape"))
    with FormulaChecker(cache_file) as checker:
        for note, formula, message in checker.check_many(groups):
            short = formula.tex if len(formula.tex) <= 60 else formula.tex[:57] + "…"
            if len(formula.tex) > MAX_FORMULA_CHARS:
                message = (f"formula of {len(formula.tex):,} characters: `check` validates formulas of up to "
                           f"{MAX_FORMULA_CHARS:,} (split it): {short}")
            else:
                message = f"formula does not render ({message}): {short}"
            problems.append(error(note.path, formula.line, message, "math"))
    return problems


def misfile_problems(notes: Sequence[Note], taxonomy: Taxonomy, threshold: float) -> list[Diagnostic]:
    if not extras.available("sklearn"):  # the learned classifier is an extra; `check` works without it
        return []
    # lazy: 184 ms (importtime, beside papernotes.check.run): only the check that needs it loads it
    from papernotes.classify.learned import suspected_misfiles

    labelled = [n for n in notes if n.domain]
    problems = []
    for m in suspected_misfiles(labelled, taxonomy, threshold):
        problems.append(warning(m.path, m.line,
                                f"suspected misfile: filed under {m.current!r}, the classifier says {m.predicted!r} "
                                f"(p={m.probability:.2f})", "misfile"))
    return problems


class Checked(NamedTuple):
    """What ``check`` read, counted as ``build`` counts: a note and its translations are one note."""

    notes: int
    """Originals (``foo.md``)."""
    translations: int
    """Translations (``foo.en.md``), not among ``notes``."""
    ratings: tuple[RatingShare, ...] = ()
    """Per venue and rating key, the notes rated 4★ or more (``check/ratings.py``)."""


def check_corpus(root: Path, options: CheckOptions = CheckOptions()) -> tuple[list[Diagnostic], Checked]:
    """All diagnostics for ``root`` and how many notes (and translations) were checked."""
    root = root.resolve()
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    config, _ = load_config(root)
    taxonomy = load_site_taxonomy(root, config)
    cache_file = cache_path(root)
    with BuildCache(cache_file) as cache:
        loaded = load_corpus(root, cache)
        notes, parse_problems = list(loaded.notes), list(loaded.diagnostics)
    entries, problems = resolve(notes, parse_problems, taxonomy)
    diagnostics = [*parse_problems, *problems]
    for note in notes:
        diagnostics.extend(section_problems(note))
    diagnostics.extend(duplicate_problems([n for n in notes if n.translation_of is None]))
    diagnostics.extend(translation_problems(notes, parse_problems))
    diagnostics.extend(front_matter_problems(notes))
    diagnostics.extend(link_problems(root, entries))
    diagnostics.extend(topic_problems(entries))
    shares = tuple(rating_shares(notes))
    diagnostics.extend(rating_problems(shares, config.high_rating_share))
    if options.formulas:
        diagnostics.extend(formula_problems(root, notes, cache_file))
    if options.classifier:
        diagnostics.extend(misfile_problems(notes, taxonomy, options.misfile_threshold))
    if options.site is not None:
        diagnostics.extend(site_problems(options.site, entries))
    if options.grounding:
        # lazy: 145 ms (importtime, beside papernotes.check.run): only the check that needs it loads it
        from papernotes.check.grounding_run import ground_corpus

        diagnostics.extend(ground_corpus(root, notes).diagnostics)
    diagnostics.sort(key=lambda d: (d.path, d.line, d.code))
    translated = sum(n.translation_of is not None for n in notes)
    return diagnostics, Checked(len(notes) - translated, translated, shares)
