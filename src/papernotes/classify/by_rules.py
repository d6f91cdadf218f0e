"""Classify stage, before there are labels: the taxonomy's rules decide the clear cases.

In: the notes without a domain and the ``Taxonomy``. Out: one ``Prediction`` per
note (source ``rules``), its confidence from how many distinct rule phrases of
one domain the note's text holds and how many of other domains. Pure; no
scikit-learn, so a new corpus needs no extra to file its first notes.

``classify`` uses this while the corpus has too few labelled notes for the
learned model (``prediction.too_few_labels``); once it has them the learned model
decides, with the same rules among its features.
"""
from __future__ import annotations

from collections.abc import Sequence

from papernotes.classify.prediction import SECONDARY_MIN, Prediction
from papernotes.classify.rules import note_topics, rule_text
from papernotes.corpus.model import Note
from papernotes.taxonomy import Taxonomy

ABSTRACT_WEIGHT = 0.5
"""Weight of a rule phrase found only in the abstract (title, keywords and summary weigh 1): an abstract
names neighbouring fields in passing."""
DOUBT = 0.5
"""Doubt left per unit of evidence: one title phrase gives 0.5, two 0.75, three 0.875 (before other domains'
phrases take their share), so the default ``--min-confidence`` 0.8 takes more than two phrases of one domain.
On the reference corpus, labels hidden, that is 5% of its notes, 77% of them filed as the reference files them;
0.44 (two phrases enough) gave 16% and 67% (``benchmarks/bench_classify.py``, docs/classify.md)."""


def rule_evidence(note: Note, taxonomy: Taxonomy) -> dict[str, float]:
    """Weighted count of the distinct rule phrases of each domain in the note's title, keywords and summary
    (weight 1) and, when not there already, in its abstract (``ABSTRACT_WEIGHT``)."""
    strong = _phrases(rule_text(note), taxonomy)
    evidence = {slug: float(len(phrases)) for slug, phrases in strong.items()}
    for slug, phrases in _phrases(note.abstract.casefold(), taxonomy).items():
        if weak := len(phrases - strong.get(slug, set())):
            evidence[slug] = evidence.get(slug, 0.0) + ABSTRACT_WEIGHT * weak
    return evidence


def _phrases(folded: str, taxonomy: Taxonomy) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for owner, phrase in taxonomy.domain_index.hits(folded):
        found.setdefault(owner, set()).add(phrase)
    return found


def confidence(evidence: dict[str, float]) -> tuple[tuple[str, float], ...]:
    """The domains the rules point at (at most three), best first, each with a confidence in [0, 1): how much
    of the evidence is its own (its squared weight over the sum of all squared weights, so one stray phrase of a
    neighbouring field costs little) times ``1 - DOUBT ** its weight``. Empty when no rule matches."""
    total = sum(weight * weight for weight in evidence.values())
    ranked = sorted(evidence.items(), key=lambda item: -item[1])  # stable: taxonomy order breaks ties
    return tuple((slug, round(weight * weight / total * (1.0 - DOUBT ** weight), 4))
                 for slug, weight in ranked[:3] if weight)


def predict_by_rules(notes: Sequence[Note], taxonomy: Taxonomy) -> list[Prediction]:
    """A prediction for every note without a domain, in the order given; ``top`` is empty when no rule matches."""
    order = {slug: i for i, slug in enumerate(taxonomy.domains)}
    out = []
    for note in notes:
        if note.domain:
            continue
        evidence = dict(sorted(rule_evidence(note, taxonomy).items(), key=lambda item: order.get(item[0], 0)))
        top = confidence(evidence)
        second = top[1][0] if len(top) > 1 and top[1][1] >= SECONDARY_MIN else None
        out.append(Prediction(note.path, note.id, note.title, "", top, second,
                              tuple(t.slug for t in note_topics(note, taxonomy)), "rules", note.line_of("domain")))
    return out
