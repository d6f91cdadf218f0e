"""Extractive drafting: summary, keyphrases and sections from an abstract, no model.

In: a paper's title and abstract, plus the abstracts of the whole corpus (for
document frequencies). Out: an ``Extract`` with the paper's own name for its
method (the title's part before a colon, else a coined term such as ``LoRA``),
the sentence that states the contribution as the one-line summary ("we
propose …", naming the method; the most central sentence by TextRank — PageRank
over a TF-IDF cosine sentence graph — when none does), keyphrases (noun
phrases between stopwords and verb forms, see ``papernotes.intake.words``,
scored by TF-IDF against the corpus, the method's name first), and abstract
sentences sorted into sections by position and cue words. Ratings are never
produced: they cannot be read off an abstract.

Pure Python on purpose: an abstract has about ten sentences, so the sentence
graph is tiny, and a corpus of a few thousand abstracts is counted in well under
a second; scikit-learn would add a heavy import for the same numbers. Chinese
text is split at 。！？ and compared by character bigrams.

The paper's full text is read by ``papernotes.intake.results``.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from papernotes.intake import words
from papernotes.text import CHINESE_STOP_CHARACTERS, CJK_ANY, CJK_RUN, FUNCTION_WORDS, ngrams, stem

_TOKEN = re.compile(rf"[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*|\d+(?:[.,]\d+)*[A-Za-z%]*|[{CJK_ANY}]+")
"""A word as written (case kept: names are told by their capitals), a number, or a run of Chinese."""
_END = re.compile(rf"[。！？；]+|[.!?]+(?=[\"'”’)\]]?(?:\s+[\"'“(\[]?[A-Z0-9{CJK_ANY}]|\s*$))")
_ABBREV = frozenset("e.g i.e et al etc vs fig figs eq eqs sec no cf approx resp ref refs".split())

_DIMENSION = re.compile(r"\d+D[A-Za-z]*|\d+[A-Z]{2,}[A-Za-z]*")
"""A word that starts with a digit and is a name, not a number: ``3D``, ``3DGS``, ``5G`` is left out."""

_CUES: dict[str, re.Pattern[str]] = {
    "method": re.compile(r"\b(?:we|our)\s+(?:propose|present|introduce|develop|design|formulate|call|describe|"
                         r"devise|build|train)|\b(?:introduces|proposes|presents)\b|"
                         r"\bour\s+(?:method|approach|framework|model|algorithm|system)\b|"
                         r"\b(?:method|approach|framework|algorithm|architecture|technique)\s+(?:that|which|called)"
                         r"|提出|设计|引入|框架", re.I),
    "highlights": re.compile(r"\b(?:we\s+(?:show|find|demonstrate|reveal|observe|prove)|surprising\w*|for the first"
                             r" time|first to|insight\w*|key finding)\b|发现|首次|揭示", re.I),
    "limitations": re.compile(r"\blimitations?\b|future work|we leave|remains? (?:an )?open|局限|未来工作", re.I),
    "related": re.compile(r"\b(?:prior|previous|existing|recent|conventional|traditional|standard|current)\s+"
                          r"(?:\w+\s+)?(?:works?|methods?|approaches|models|techniques|systems)\b|\bunlike\b|"
                          r"\bcompared (?:to|with)\b|现有|已有|以往|传统", re.I),
}


_CONTRIBUTION = re.compile(r"\bin this (?:paper|work)\b|\b(?:this|our) (?:paper|work)\b|\bhere,? we\b|"
                           r"\bwe (?:show|propose|present|introduce|develop|find|study|investigate|identify|conduct)\b|"
                           r"本文|我们提出|我们发现", re.I)
_NUMERIC_RESULT = re.compile(r"\d+(?:\.\d+)?\s*(?:%|×|x\b|times|points?|pp\b|bleu|fid)|优于|提升了", re.I)
_RESULT_WORDS = re.compile(r"\b(?:outperform\w*|state-of-the-art|sota|experiments? (?:show|demonstrate|confirm)\w*|"
                           r"(?:experimental|empirical) results?|results (?:show|demonstrate|suggest)\w*|"
                           r"evaluations? (?:show|demonstrate)\w*|surpass\w*|better than|on[- ]par|"
                           r"comparabl[ey] to|competitive with|improved (?:\w+ )?performance|performance gains?|"
                           r"significant(?:ly)? (?:gains|improv\w+)|"
                           r"achiev\w+ (?:a |an |the )?(?:new )?(?:state|success|accuracy|improvement|speedup)\w*)\b"
                           r"|实验表明|实验结果", re.I)


@dataclass(frozen=True, slots=True)
class Extract:
    """An extractive draft of one paper; every text is a sentence of the abstract."""

    summary: str
    keywords: tuple[str, ...]
    sections: dict[str, tuple[str, ...]]
    """Section key (``background``, ``method``, ...) -> abstract sentences; empty when no sentence fits."""
    name: str = ""
    """The paper's own name for its method (see ``method_name``), or ``""``."""


# ---------------------------------------------------------------- text units

def split_sentences(text: str) -> list[str]:
    """Sentences of English or Chinese text; keeps ``e.g.``, ``et al.``, initials and decimals intact."""
    text = re.sub(r"\s+", " ", text).strip()
    out: list[str] = []
    start = 0
    for m in _END.finditer(text):
        if m.group(0) == "." and m.end() < len(text):
            word = re.search(r"(\S+)$", text[start:m.start()])
            last = word.group(1).casefold().rstrip(".").lstrip("(") if word else ""
            if last in _ABBREV or len(last) == 1 or re.fullmatch(r"(?:[a-z]\.)+[a-z]", last):
                continue
        end = m.end()
        if end < len(text) and text[end] in "\"'”’)]":
            end += 1
        if sentence := text[start:end].strip():
            out.append(sentence)
        start = end
    if tail := text[start:].strip():
        out.append(tail)
    return out


def tokens(text: str) -> list[str]:
    """Index terms: stemmed non-stopwords for Latin script, character bigrams for Chinese."""
    out: list[str] = []
    for word in _TOKEN.findall(text):
        if CJK_RUN.fullmatch(word):
            out.extend(ngrams(word, 2) or [word])
            continue
        low = word.casefold()
        if low not in FUNCTION_WORDS and len(low) > 1:
            out.append(stem(low))
    return out


# ---------------------------------------------------------------- TextRank

def _tfidf(bags: list[Counter[str]], df: Counter[str], n_docs: int) -> list[dict[str, float]]:
    vectors = []
    for bag in bags:
        vec = {t: (1 + math.log(c)) * (math.log((1 + n_docs) / (1 + df[t])) + 1) for t, c in bag.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors.append({t: v / norm for t, v in vec.items()})
    return vectors


def textrank(sentences: list[str], df: Counter[str] | None = None, n_docs: int = 0, title: str = "",
             damping: float = 0.85, iterations: int = 100) -> list[float]:
    """Centrality of each sentence: PageRank over the cosine-similarity graph of TF-IDF vectors.

    With a ``title``, the random jump prefers sentences that share its terms
    (title-biased, i.e. personalised, PageRank), which favours the sentence that
    states the paper's contribution over general background.
    """
    n = len(sentences)
    if n <= 1:
        return [1.0] * n
    bags = [Counter(tokens(s)) for s in sentences]
    if df is None:
        df, n_docs = Counter(t for bag in bags for t in bag), n
    vectors = _tfidf(bags + [Counter(tokens(title))], df, n_docs)
    title_vec = vectors.pop()
    bias = [0.1 + sum(v * title_vec.get(t, 0.0) for t, v in vec.items()) for vec in vectors]
    jump = [b / sum(bias) for b in bias]
    weights = [[0.0 if i == j else sum(v * vectors[j].get(t, 0.0) for t, v in vectors[i].items())
                for j in range(n)] for i in range(n)]
    out_sum = [sum(row) for row in weights]
    scores = [1.0 / n] * n
    for _ in range(iterations):
        # a sentence sharing no term with the others would leak rank mass; it jumps instead
        leak = damping * sum(scores[j] for j in range(n) if out_sum[j] == 0)
        new = [((1 - damping) + leak) * jump[i] + damping * sum(weights[j][i] / out_sum[j] * scores[j]
                                                               for j in range(n) if out_sum[j] > 0)
               for i in range(n)]
        done = sum(abs(a - b) for a, b in zip(new, scores, strict=True)) < 1e-9
        scores = new
        if done:
            break
    return scores


# ---------------------------------------------------------------- keyphrases

def _candidates(text: str, name: str = "") -> list[tuple[str, str]]:
    """``(key, surface)`` candidate phrases: runs of noun-like words between stopwords, verbs and punctuation.

    A run loses words at its edges until it starts with something other than an
    adjective of degree and ends with a noun (see ``papernotes.intake.words``).
    """
    out: list[tuple[str, str]] = []
    for chunk in re.split(r"[,.;:!?()\[\]{}\"“”'’、，。；：！？（）]", text):
        run: list[str] = []
        prev = ""
        for word in _TOKEN.findall(chunk) + [""]:
            if CJK_RUN.fullmatch(word or "-"):
                for part in re.split(f"[{CHINESE_STOP_CHARACTERS}]+", word):
                    if 2 <= len(part) <= 8:
                        out.append((part, part))
                word = ""
            if len(word) > 1 and (not word[0].isdigit() or _DIMENSION.fullmatch(word)) \
                    and not words.breaks(word, prev, name):
                run.append(word)
                prev = word
                continue
            prev = word
            while run and not words.can_start(run[0], run[1] if len(run) > 1 else ""):
                run.pop(0)
            while run and not words.can_end(run[-1]):
                run.pop()
            if 1 <= len(run) <= 4 and not (len(run) == 1 and len(run[0]) < 3):
                out.append((" ".join(stem(w.casefold()) for w in run), " ".join(run)))
            run = []
    return out


class Keyphraser:
    """Keyphrases of one abstract, weighted by how rare each phrase is across the corpus."""

    def __init__(self, corpus: list[str]) -> None:
        self.n_docs = len(corpus)
        self.df: Counter[str] = Counter()
        self.term_df: Counter[str] = Counter()
        for doc in corpus:
            self.df.update({key for key, _ in _candidates(doc)})
            self.term_df.update(set(tokens(doc)))

    def phrases(self, title: str, abstract: str, k: int = 6, name: str = "") -> tuple[str, ...]:
        """The ``k`` best phrases; the paper's own ``name`` (see ``method_name``) first when it has one."""
        in_abstract = _candidates(abstract, name)
        found = in_abstract + _candidates(title, name)
        counts = Counter(key for key, _ in found)
        capitalised = Counter(key for key, surface in in_abstract if surface[:1].isupper())
        surfaces: dict[str, Counter[str]] = {}
        for key, surface in found:
            surfaces.setdefault(key, Counter())[surface] += 1
        title_keys = {key for key, _ in _candidates(title, name)}
        scored = []
        for key, tf in counts.items():
            idf = math.log((1 + self.n_docs) / (1 + self.df[key])) + 1
            length = len(key.split()) if not CJK_RUN.fullmatch(key) else max(1, len(key) // 2)
            score = (1 + math.log(tf)) * idf * (1 + 0.5 * (min(length, 3) - 1)) * (1.5 if key in title_keys else 1.0)
            termlike = any(_is_term(w) for s in surfaces[key] for w in s.split())
            named = termlike or capitalised[key] > 1  # in a title, Every Word Is Capitalised
            if length == 1 and not named:
                score *= 0.3  # a lone plain word ("tools") is rarely a keyphrase; "LoRA" or "Toolformer" is
            scored.append((score * (1.3 if termlike else 1.0), key))
        chosen: list[str] = [name] if name else []
        chosen_keys: list[str] = [_key(name)] if name else []
        terms_of: list[set[str]] = [set(chosen_keys[0].split())] if name else []
        for _, key in sorted(scored, key=lambda item: (-item[0], item[1])):
            if len(chosen) >= k:
                break
            if CJK_RUN.fullmatch(key) and any(key in other or other in key for other in chosen_keys):
                continue
            terms = set(key.split())
            if any(terms <= other or other <= terms for other in terms_of):
                continue
            chosen_keys.append(key)
            surface = max(surfaces[key].items(), key=lambda item: (item[1], sum(ch.isupper() for ch in item[0])))[0]
            chosen.append(surface)
            terms_of.append(terms)
        return tuple(chosen)


def _key(phrase: str) -> str:
    return phrase if CJK_RUN.fullmatch(phrase) else " ".join(stem(w.casefold()) for w in _TOKEN.findall(phrase))


def _is_term(word: str) -> bool:
    """Shaped like a technical term: inner capitals, digits or hyphens (LoRA, GPT-4, SWE-bench)."""
    return bool(CJK_RUN.fullmatch(word)) or any(c.isupper() or c.isdigit() or c == "-" for c in word[1:])


# ---------------------------------------------------------------- the contribution

_PROPOSE = re.compile(r"\b(?:we|this (?:paper|work)|our (?:paper|work)|here)\b[^.;]{0,40}?\b(?:propose|introduce|present"
                      r"|develop|design|devise|contribute|formulate|call|describe|offer|construct|curate)\w*\b|\b(?:introduces|proposes|"
                      r"presents|develops)\b|本文提出|我们提出|提出了", re.I)
_COINED = re.compile(r"(?<![\w-])(?:[A-Z][a-z]*[A-Z][\w-]*|[A-Z]{2,}[\w-]*|[A-Z][a-z]+-[A-Za-z0-9-]+)(?![\w-])")
_NAMED_AFTER = re.compile(r"\b(?:propose|introduce|present|develop|call|name|dub)\w*\s+(?:(?:a|an|the)\s+)?"
                          r"(?:(?:new|novel|simple)\s+)?((?:[A-Z][\w-]*\s?){1,3})(?=[,:(]|\s+(?:that|which|to|for|—))")
_SECONDARY = re.compile(r"\b(?:also|additionally|finally|moreover|furthermore|besides)\b|此外|另外|最后", re.I)
SUMMARY_CHARS = 300
"""A longer contribution sentence loses a trailing clause (", which …", ", achieving …") when one can go."""


def method_name(title: str, sentences: list[str]) -> str:
    """The paper's own name for its method, or ``""``.

    The title's part before a colon when it is short and not a phrase like
    "Towards …" ("Jackpot: …" gives "Jackpot"), else a coined term (``LoRA``,
    ``TileAttn``, ``SWE-bench``) the contribution sentence introduces, else a
    mixed-case one the abstract uses twice.
    """
    head = re.split(r"\s*[:：]\s*", title, maxsplit=1)[0].strip() if re.search(r"[:：]", title) else ""
    if head and _title_name(head, sentences):
        return head
    for sentence in (s for s in sentences if _PROPOSE.search(s)):
        coined = [m.group(0) for m in _COINED.finditer(sentence) if m.group(0) not in words.COMMON_ACRONYMS]
        if coined:
            return coined[0]
        if m := _NAMED_AFTER.search(sentence):
            return m.group(1).strip()
    counts = Counter(m.group(0) for s in sentences for m in _COINED.finditer(s)
                     if m.group(0) not in words.COMMON_ACRONYMS and not m.group(0).isupper())
    return next((term for term, n in counts.most_common() if n > 1), "")


def _coined(word: str) -> bool:
    """Coined: a capital after a lowercase letter, two capitals, or a digit (LoRA, NTK, mR3; not Capacity-Aware)."""
    return re.search(r"[a-z][A-Z]|[A-Z]{2}|\d", word) is not None


def _title_name(head: str, sentences: list[str]) -> bool:
    """Is a title's part before the colon a name: one word ("Jackpot", "cadrille"), or a few capitalised
    nouns with a coined one or that the abstract writes the same way ("Gutter Networks"); never a phrase
    ("Towards …", "Peering into the Unknown", "Better NTK Conditioning", "AdvDreamer Unveils")?"""
    if CJK_RUN.fullmatch(head):
        return len(head) <= 12
    parts = head.split()
    if len(parts) > 4 or any(w.casefold() in words.TITLE_LEADS or words.breaks(w) for w in parts):
        return False
    if len(parts) == 1:
        return True
    if any(not (w[:1].isupper() or _coined(w)) or not words.can_start(w) for w in parts) \
            or (_coined(parts[-2]) and parts[-1].endswith("s")):
        return False
    return any(_coined(w) for w in parts) or any(head in s for s in sentences)


def contribution(sentences: list[str], name: str) -> int | None:
    """Index of the sentence that states the contribution, or ``None`` when no sentence says it.

    Best: "we propose / introduce / present …" naming the method; then any such
    sentence; then "this paper / we show / we find …" naming it; then one naming
    it after the first sentence (which sets the scene); then "we show …".
    """
    def names(sentence: str) -> bool:
        return bool(name) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", sentence, re.I) is not None

    def tier(i: int) -> int:
        s = sentences[i]
        # "we also release a dataset" is a contribution, but not the one a summary states
        strong = _PROPOSE.search(s) is not None and _SECONDARY.search(s) is None
        weak = _CONTRIBUTION.search(s) is not None
        for rank, hit in enumerate((strong and names(s), strong, weak and names(s), i > 0 and names(s), weak)):
            if hit:
                return rank
        return 9

    best = min(range(len(sentences)), key=lambda i: (tier(i), i), default=None)
    return best if best is not None and tier(best) < 9 else None


def shorten(sentence: str, limit: int = SUMMARY_CHARS) -> str:
    """``sentence`` without a trailing clause when it is over ``limit`` characters and what stays is a sentence."""
    if len(sentence) <= limit or not sentence.endswith("."):
        return sentence
    cuts = [m.start() for m in re.finditer(r",\s+(?:which|while|whereas|thereby|thus|and thus|and thereby|\w+ing)\b",
                                           sentence)]
    for cut in reversed(cuts):
        head = sentence[:cut]
        if 60 <= len(head) <= limit and head.count("(") == head.count(")"):
            return head + "."
    return sentence


# ---------------------------------------------------------------- sections

def _section_of(sentence: str) -> str:
    """The section a sentence's cue words point to, or ``""``; the method cue beats a mere result word."""
    if _CUES["limitations"].search(sentence):
        return "limitations"
    numeric = _NUMERIC_RESULT.search(sentence) is not None
    if _CUES["method"].search(sentence) and not numeric:
        return "method"
    if numeric or _RESULT_WORDS.search(sentence):
        return "experiments"
    for key in ("related", "highlights"):
        if _CUES[key].search(sentence):
            return key
    return ""


def extract(title: str, abstract: str, keyphraser: Keyphraser) -> Extract:
    """Summary, keyphrases and sections of one paper from its abstract.

    Abstracts run background -> contribution -> method -> results -> significance,
    so sentences before the first contribution sentence are background, cue
    words place the rest, and sentences without cues join the method when they
    come before the first result and the highlights after it.
    """
    sentences = split_sentences(abstract)
    if not sentences:
        name = method_name(title, [])
        return Extract("", keyphraser.phrases(title, title, name=name), {}, name)
    scores = textrank(sentences, keyphraser.term_df or None, keyphraser.n_docs, title)
    # very short sentences ("Code is available.") are poor summaries even when central
    ranked = sorted(range(len(sentences)),
                    key=lambda i: (-(scores[i] * min(1.0, len(tokens(sentences[i])) / 6)), i))
    sections: dict[str, list[int]] = {key: [] for key in ("background", "method", "experiments", "highlights",
                                                           "limitations", "related")}
    start = next((i for i, s in enumerate(sentences) if _CONTRIBUTION.search(s)), None)
    if start is None:
        start = next((i for i, s in enumerate(sentences) if _CUES["method"].search(s)), len(sentences))
    for i in range(start):
        sections["related" if _CUES["related"].search(sentences[i]) and i else "background"].append(i)
    labels = {i: _section_of(sentences[i]) for i in range(start, len(sentences))}
    first_result = next((i for i in labels if _RESULT_WORDS.search(sentences[i])),
                        next((i for i, key in labels.items() if key == "experiments"), len(sentences)))
    for i, key in labels.items():
        sections[key or ("method" if i < first_result else "highlights")].append(i)
    name = method_name(title, sentences)
    summary = contribution(sentences, name)
    summary = ranked[0] if summary is None else summary
    if not sections["highlights"]:
        best = next((i for i in ranked if i != summary and i not in sections["background"]), None)
        if best is not None:
            sections["highlights"].append(best)
    return Extract(shorten(sentences[summary]), keyphraser.phrases(title, abstract, name=name),
                   {key: tuple(sentences[i] for i in sorted(idx)) for key, idx in sections.items()}, name)
