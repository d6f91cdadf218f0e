"""Classify stage, before there are labels: the taxonomy's rules decide the clear cases.

In: the notes without a domain, the ``Taxonomy`` and the PDFs read beside some of them. Out: one
``Prediction`` per note (source ``rules``), its confidence from the evidence of each domain
(``classify.evidence``: the distinct taxonomy phrases in the title, keywords, summary, abstract and PDF,
weighted by where they stand, the venue and the arXiv category), and the clues that decided it. Pure; no
scikit-learn, so a new corpus needs no extra to file its first notes.

``classify`` uses this while the corpus has too few labelled notes for the learned model
(``prediction.too_few_labels``); once it has them the learned model decides, with the same evidence among
its features.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from papernotes.classify.evidence import Clue, clues, evidence
from papernotes.classify.prediction import SECONDARY_MIN, Prediction
from papernotes.classify.rules import note_topics
from papernotes.corpus.model import Note
from papernotes.taxonomy import Taxonomy

if TYPE_CHECKING:
    from papernotes.intake.paper.model import PaperText

DOUBT = 0.5
"""Doubt left per unit of evidence: one title phrase gives 0.5, two 0.75, three 0.875 (before other domains'
evidence takes its share), so the default ``--min-confidence`` 0.8 takes more than two phrases of one domain."""
WHY_MAX = 6
"""Clues named per prediction."""


def confidence(weights: dict[str, float]) -> tuple[tuple[str, float], ...]:
    """The domains the rules point at (at most three), best first, each with a confidence in [0, 1): how much
    of the evidence is its own (its squared weight over the sum of all squared weights, so one stray phrase of a
    neighbouring field costs little) times ``1 - DOUBT ** its weight``. Empty when no rule matches."""
    total = sum(weight * weight for weight in weights.values())
    ranked = sorted(weights.items(), key=lambda item: -item[1])  # stable: taxonomy order breaks ties
    return tuple((slug, round(weight * weight / total * (1.0 - DOUBT ** weight), 4))
                 for slug, weight in ranked[:3] if weight)


def explain(found: Sequence[Clue], taken: Mapping[str, str], domain: str) -> tuple[str, ...]:
    """The clues that count for ``domain``, strongest first; one taken from a domain it absorbs names that
    domain (``分割 (keywords, segmentation)``)."""
    mine = [c for c in found if c.domain == domain or taken.get(c.domain) == domain]
    mine.sort(key=lambda c: -c.weight)
    return tuple(str(c) if c.domain == domain else f"{c.phrase} ({c.where}, {c.domain})" for c in mine[:WHY_MAX])


def predict_by_rules(notes: Sequence[Note], taxonomy: Taxonomy,
                     papers: Mapping[str, PaperText] | None = None) -> list[Prediction]:
    """A prediction for every note without a domain, in the order given; ``top`` is empty when no rule matches.
    ``papers``: the PDF read beside a note, by note path."""
    order = {slug: i for i, slug in enumerate(taxonomy.domains)}
    out = []
    for note in notes:
        if note.domain:
            continue
        found = clues(note, taxonomy, (papers or {}).get(note.path))
        weights, taken = evidence(found, taxonomy)
        top = confidence(dict(sorted(weights.items(), key=lambda item: order.get(item[0], 0))))
        second = top[1][0] if len(top) > 1 and top[1][1] >= SECONDARY_MIN else None
        why = explain(found, taken, top[0][0]) if top else ()
        out.append(Prediction(note.path, note.id, note.title, "", top, second,
                              tuple(t.slug for t in note_topics(note, taxonomy)), "rules", note.line_of("domain"),
                              why))
    return out
