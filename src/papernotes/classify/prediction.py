"""Classify stage, shared records: what every classifier says about a note, and when the learned one may speak.

In: nothing (records and a rule). Out: ``Prediction`` — made by the learned
classifier (``classify.learned``) and the language-model one (``classify.llm``)
alike, read by ``classify.apply`` and the CLI — and ``too_few_labels``, the rule
that keeps the learned classifier from guessing on a corpus it cannot learn
from. No scikit-learn here: the openai engine and ``--help`` never load it.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from papernotes.corpus.model import Note

MISFILE_THRESHOLD = 0.8
"""Probability of another domain at which a note is reported as misfiled."""
MIN_CONFIDENCE = 0.8
"""Default of ``classify --apply --min-confidence``: 85% of the reference corpus's cross-fitted predictions at or
above it agree with its labels, against 57% of all of them (docs/classify.md, ``benchmarks/bench_classify.py``)."""
SECONDARY_MIN = 0.2
"""A second domain is named when a classifier gives it at least this probability."""
MIN_LABELLED = 20
"""Labelled notes the learned classifier needs before it predicts anything."""
MIN_DOMAINS = 2
"""Distinct domains among them (with one, every note would get that one)."""


@dataclass(frozen=True, slots=True)
class Prediction:
    """A classifier's view of one note."""

    path: str
    """Note path relative to the corpus."""
    id: str
    title: str
    domain: str
    """Current domain; ``""`` when the note has none."""
    top: tuple[tuple[str, float], ...]
    """The most probable domains with their probabilities (the learned model: three), best first; empty when
    the rules decide and none matches."""
    secondary: str | None
    """Second domain when it is likely enough to name."""
    topics: tuple[str, ...]
    """Topic slugs: the note's own ``topics`` or, without them, every matching rule."""
    source: str
    """``cross-fit`` (model without this note's label), ``all-labelled`` (note had no domain), ``rules`` or
    ``openai`` (a language model's choice, with the confidence it gave)."""
    line: int
    """Line of the ``domain`` key, for diagnostics (1 when absent)."""
    why: tuple[str, ...] = ()
    """What decided ``predicted``, strongest first: the taxonomy phrases found and where (``FedAvg (title)``),
    and for the learned model the words that weighed most; empty when nothing did (no rule matched)."""

    @property
    def predicted(self) -> str:
        """The most probable domain; ``""`` when the classifier has none to offer (no rule matches)."""
        return self.top[0][0] if self.top else ""

    @property
    def probability(self) -> float:
        return self.top[0][1] if self.top else 0.0

    def misfiled(self, threshold: float = MISFILE_THRESHOLD) -> bool:
        """Filed under a domain, and the classifier prefers another with at least ``threshold``."""
        return bool(self.domain) and self.predicted != self.domain and self.probability >= threshold


def too_few_labels(notes: Sequence[Note]) -> str | None:
    """Why the learned classifier cannot be trusted on ``notes``, or ``None`` when it can.

    Below ``MIN_LABELLED`` labelled notes in ``MIN_DOMAINS`` domains its
    probabilities would come from the taxonomy's keyword rules and a fallback
    domain, not from anything learned (a note no rule matches would get
    ``others`` at p=1.00); ``classify`` then lets the rules alone decide
    (``classify.by_rules``), with confidences that say how clear each case is.
    """
    counts = Counter(n.domain for n in notes if n.domain)
    labelled = sum(counts.values())
    if labelled >= MIN_LABELLED and len(counts) >= MIN_DOMAINS:
        return None
    return (f"too few labelled notes to learn from: {labelled} note(s) with a domain, in {len(counts)} domain(s); "
            f"the learned classifier joins at {MIN_LABELLED} in {MIN_DOMAINS} domains")
