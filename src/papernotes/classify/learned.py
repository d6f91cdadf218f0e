"""Classify stage (learned model): cross-fitted domain predictions for every note.

In: parsed ``Note`` records (with or without a domain) and the ``Taxonomy``.
Out: one ``Prediction`` per note (primary and secondary domain, the three most
probable domains, rule topics), ``Misfile`` records for ``check``, and an
``Evaluation`` for ``classify --evaluate``. Pure: no file system access.

The model learns the corpus's own conventions from its labelled notes: a linear
SVM over TF-IDF of word uni/bigrams and Chinese character bigrams (title,
keywords, one-line summary, abstract), with the taxonomy rule scores as extra
features. Its scores become probabilities through a softmax whose temperature
is fitted on out-of-fold predictions, and the rules' shares are mixed in with a
weight fitted the same way (high on a small, clean corpus, low on a large, noisy
one). Every labelled note is predicted by a model that never saw its label
(K-fold cross-fitting; the two calibration scalars come from the other folds);
notes without a domain by a model trained on all labelled notes. A taxonomy
domain with too few labelled notes to learn from is scored by its rules alone,
so it can still be predicted; with fewer than two labelled domains rules alone
decide. scikit-learn is imported inside the functions that fit.
"""
from __future__ import annotations

import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from papernotes.classify.by_rules import explain
from papernotes.classify.evidence import clues, evidence
from papernotes.classify.prediction import MISFILE_THRESHOLD, SECONDARY_MIN, Prediction, too_few_labels
from papernotes.classify.rules import note_topics, rule_domain_scores
from papernotes.corpus.model import Note
from papernotes.extras import MissingExtraError, available, missing_message
from papernotes.taxonomy import Taxonomy
from papernotes.text import cjk_runs, latin_words, ngrams

if not available("sklearn"):  # lets callers treat the classifier as optional
    raise MissingExtraError(missing_message("sklearn", "the learned classifier"))

FALLBACK_DOMAIN = "others"
WORDS_MAX = 4
"""Words named per prediction, after the taxonomy's clues."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Model hyper-parameters; the defaults were chosen on the reference corpus (docs/classify.md)."""

    folds: int = 5
    """K of the cross-fitting; fewer when there are fewer labelled notes."""
    random_state: int = 0
    c: float = 1.0
    """Inverse regularisation strength of the linear SVM."""
    title_weight: float = 0.7
    """Weight of the extra title + keywords block next to the full-text block."""
    rule_weight: float = 0.4
    """Weight of the rule-score features; 0 gives a text-only model."""
    rare_min: int = 3
    """Domains with fewer labelled training notes than this are scored by their rules; 0 turns that off."""
    blend: bool = True
    """Mix the rules' shares into the model's probabilities with a weight fitted on out-of-fold notes."""
    text: bool = True
    """False: rules alone, with the training majority for notes no rule matches."""


@dataclass(frozen=True, slots=True)
class Misfile:
    """A note the classifier believes is filed under the wrong domain."""

    path: str
    """Note path relative to the corpus."""
    current: str
    """Domain the note is filed under."""
    predicted: str
    """Domain the classifier prefers."""
    probability: float
    """The classifier's probability for ``predicted``."""
    line: int = 1
    """Line of the note's ``domain`` key."""


def suspected_misfiles(notes: Sequence[Note], taxonomy: Taxonomy,
                       threshold: float = MISFILE_THRESHOLD) -> list[Misfile]:
    """Labelled notes whose cross-fitted prediction disagrees with their domain at ``threshold`` or more.

    None while the corpus has too few labelled notes to learn from (``too_few_labels``).
    """
    if too_few_labels(notes) is not None:
        return []
    return [Misfile(p.path, p.domain, p.predicted, p.probability, p.line)
            for p in predict(notes, taxonomy) if p.misfiled(threshold)]


def predict(notes: Sequence[Note], taxonomy: Taxonomy, settings: Settings = Settings()) -> list[Prediction]:
    """One prediction per note, in the order given; deterministic for fixed ``settings``."""
    if not notes:
        return []

    classes, probs, sources, words = _probabilities(notes, taxonomy, settings)
    best = np.argsort(-probs, axis=1, kind="stable")[:, :3]  # ties: taxonomy order
    out = []
    for i, note in enumerate(notes):
        top = tuple((classes[j], round(float(probs[i, j]), 4)) for j in best[i])
        second = top[1][0] if len(top) > 1 and top[1][1] >= SECONDARY_MIN else None
        found = clues(note, taxonomy)
        said = {c.phrase.casefold() for c in found}
        why = explain(found, evidence(found, taxonomy)[1], top[0][0])
        why += tuple(w for w in words.get(i, ()) if w.rsplit(" (", 1)[0] not in said)
        out.append(Prediction(note.path, note.id, note.title, note.domain, top, second,
                              tuple(t.slug for t in note_topics(note, taxonomy)), sources[i], note.line_of("domain"),
                              why))
    return out


# ------------------------------------------------------------------ features

def _tokens(text: str) -> list[str]:
    """Latin words and word bigrams, Chinese character bigrams (no segmenter: measured as good as jieba)."""
    words = [w for w in latin_words(text, "[-+]+", accents=False) if len(w) > 1 or not w.isdigit()]  # no lone digit
    tokens = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
    for run in cjk_runs(text):
        tokens.extend(ngrams(run, 2) or [run])
    return tokens


def model_text(note: Note) -> str:
    """What the model reads: title, keywords, one-line summary and abstract, case-folded."""
    return "\n".join((note.title, " ".join(note.keywords), note.summary, note.abstract)).casefold()


def _rule_matrix(notes: Sequence[Note], taxonomy: Taxonomy, classes: list[str]) -> np.ndarray:
    column = {slug: j for j, slug in enumerate(classes)}
    scores = np.zeros((len(notes), len(classes)))
    for i, note in enumerate(notes):
        for slug, hits in rule_domain_scores(note, taxonomy).items():
            if slug in column:
                scores[i, column[slug]] = hits
    return scores


def _features(notes: Sequence[Note], rules: np.ndarray, settings: Settings) -> tuple[Any, list[str]] | None:
    """Sparse feature matrix and each column's name (``""`` for a rule column), or ``None`` when the notes
    carry no usable text.

    The vectorisers see every note's text but no label, so fitting them once on
    the whole corpus does not leak labels into the cross-fitted predictions.
    """
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    def tfidf(texts: list[str]) -> tuple[Any, Any] | None:
        vectoriser = TfidfVectorizer(analyzer=_tokens, min_df=2 if len(texts) >= 20 else 1,
                                     sublinear_tf=True, dtype=np.float32)
        try:
            return vectoriser.fit_transform(texts), vectoriser.get_feature_names_out()
        except ValueError:  # empty vocabulary
            return None

    full = tfidf([model_text(n) for n in notes])
    if full is None:
        return None
    blocks, names = [full[0]], [f"{word} (word)" for word in full[1]]
    head = tfidf(["\n".join((n.title, " ".join(n.keywords))).casefold() for n in notes])
    if head is not None and settings.title_weight:
        blocks.append(settings.title_weight * head[0])
        names += [f"{word} (title word)" for word in head[1]]
    if settings.rule_weight:
        blocks.append(sparse.csr_matrix(settings.rule_weight * np.log1p(rules)))
        names += ["" for _ in range(rules.shape[1])]  # the rules' clues are named from the note itself
    return normalize(sparse.hstack(blocks).tocsr()), names


# ------------------------------------------------------------------ fitting

@dataclass(frozen=True, slots=True)
class _Job:
    train: tuple[int, ...]
    test: tuple[int, ...]
    source: str
    fold: int
    """Fold predicted by this job; -1 for the job that predicts unlabelled notes."""


def fold_of(labels: Sequence[str], folds: int, random_state: int) -> list[int]:
    """Stratified fold number of each label: each domain's notes are dealt round the folds in random order."""
    rng = np.random.default_rng(random_state)
    by_label: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by_label.setdefault(label, []).append(i)
    assigned = [0] * len(labels)
    dealt = 0
    for label in sorted(by_label):
        for i in rng.permutation(by_label[label]):
            assigned[int(i)] = dealt % folds
            dealt += 1
    return assigned


def _jobs(labels: list[str], settings: Settings) -> list[_Job]:
    labelled = [i for i, label in enumerate(labels) if label]
    unlabelled = tuple(i for i, label in enumerate(labels) if not label)
    jobs = []
    k = min(settings.folds, len(labelled))
    if k >= 2:
        folds = fold_of([labels[i] for i in labelled], k, settings.random_state)
        for f in range(k):
            jobs.append(_Job(tuple(i for i, g in zip(labelled, folds) if g != f),
                             tuple(i for i, g in zip(labelled, folds) if g == f), "cross-fit", f))
    elif labelled:  # a single labelled note: nothing else to learn from
        jobs.append(_Job((), tuple(labelled), "cross-fit", 0))
    if unlabelled:
        jobs.append(_Job(tuple(labelled), unlabelled, "all-labelled", -1))
    return jobs


def _rules_only(rules: np.ndarray, fallback: int, smoothing: float = 0.5) -> np.ndarray:
    """Rule hits as probabilities; the fallback domain takes the rest (all of it when nothing matches)."""
    probs = rules / (rules.sum(axis=1, keepdims=True) + smoothing)
    probs[:, fallback] += 1.0 - probs.sum(axis=1)
    return probs


def _svm_scores(features: Any, labels: np.ndarray, job: _Job, columns: dict[str, int],
                settings: Settings) -> tuple[np.ndarray, Any]:
    from sklearn.svm import LinearSVC

    train = list(job.train)
    with warnings.catch_warnings():  # "more classes than half the samples": expected on a small corpus
        warnings.simplefilter("ignore", UserWarning)
        model = LinearSVC(C=settings.c, random_state=settings.random_state).fit(features[train], labels[train])
    raw = model.decision_function(features[list(job.test)])
    if raw.ndim == 1:  # two classes: one margin
        raw = np.column_stack([-raw, raw])
    scores = np.full((len(job.test), len(columns)), -np.inf)
    scores[:, [columns[c] for c in model.classes_]] = raw
    return scores, model


def _top_words(features: Any, names: list[str], model: Any, rows: list[int], wanted: list[str]) -> dict[int, tuple[str, ...]]:
    """For each row, the named features that added most to the score of the class it was given (``wanted``),
    when the model knows that class: what the learned model read in the note."""
    known = {c: k for k, c in enumerate(model.classes_)}
    coef = model.coef_ if len(model.classes_) > 2 else np.vstack([-model.coef_[0], model.coef_[0]])
    out: dict[int, tuple[str, ...]] = {}
    for i, cls in zip(rows, wanted):
        if cls not in known:
            continue
        row = features[i]
        gain = row.data * coef[known[cls], row.indices]
        order = np.argsort(-gain, kind="stable")
        out[i] = tuple(names[row.indices[j]] for j in order if gain[j] > 0 and names[row.indices[j]])[:WORDS_MAX]
    return out


def _softmax(scores: np.ndarray, temperature: float) -> np.ndarray:
    z = temperature * scores
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _rule_shares(rules: np.ndarray) -> np.ndarray:
    """Each domain's share of a note's rule hits, with one pseudo-hit of "no opinion" (so one hit gives 0.5)."""
    return rules / (rules.sum(axis=1, keepdims=True) + 1.0)


def _blend(model: np.ndarray, shares: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Mixture of model and rules: domain ``c`` gets ``weights[c] * shares[c]``, the model the rest."""
    ruled = shares * weights
    return model * (1.0 - ruled.sum(axis=1, keepdims=True)) + ruled


def _calibrate(scores: np.ndarray, shares: np.ndarray, truth: np.ndarray,
               default: tuple[float, float] = (5.0, 0.0)) -> tuple[float, float]:
    """Softmax temperature, then rule weight, that minimise the log loss of out-of-fold predictions."""
    from scipy.optimize import minimize_scalar

    if len(truth) < 2:
        return default
    rows = np.arange(len(truth))

    def loss(p: np.ndarray) -> float:
        return float(-np.log(np.maximum(p[rows, truth], 1e-12)).mean())

    fit = minimize_scalar(lambda log_t: loss(_softmax(scores, float(np.exp(log_t)))),
                          bounds=(np.log(0.05), np.log(200.0)), method="bounded")
    temperature = float(np.exp(fit.x))
    model = _softmax(scores, temperature)
    ones = np.ones(shares.shape[1])
    fit = minimize_scalar(lambda w: loss(_blend(model, shares, w * ones)), bounds=(0.0, 1.0), method="bounded")
    return temperature, float(fit.x)


def _probabilities(notes: Sequence[Note], taxonomy: Taxonomy, settings: Settings
                   ) -> tuple[list[str], np.ndarray, list[str], dict[int, tuple[str, ...]]]:
    """``(classes, probabilities per note and class, source per note, the words that weighed most for the
    class given, by note)``."""
    labels = [n.domain for n in notes]
    classes = list(taxonomy.domains) + sorted({d for d in labels if d and d not in taxonomy.domains})
    columns = {c: j for j, c in enumerate(classes)}
    rules = _rule_matrix(notes, taxonomy, classes)
    shares = _rule_shares(rules)
    y = np.array(labels, dtype=object)
    default = columns.get(FALLBACK_DOMAIN, 0)
    jobs = _jobs(labels, settings)
    learnable = [j for j in jobs if settings.text and len({labels[i] for i in j.train}) >= 2]
    built = _features(notes, rules, settings) if learnable else None
    features, names = built if built is not None else (None, [])
    if features is None:
        learnable = []
    # One fit after another: liblinear draws from one process-wide random generator, so
    # concurrent fits would make the predictions depend on thread timing.
    fitted = {job: _svm_scores(features, y, job, columns, settings) for job in learnable}
    scores = {job: fitted[job][0] for job in fitted}
    words: dict[int, tuple[str, ...]] = {}

    probs = np.zeros((len(notes), len(classes)))
    sources = ["rules"] * len(notes)
    out_of_fold = [j for j in learnable if j.fold >= 0]
    for job in jobs:
        test = list(job.test)
        counts = Counter(labels[i] for i in job.train)
        if job not in scores:
            fallback = columns[counts.most_common(1)[0][0]] if counts else default
            probs[test] = _rules_only(rules[test], fallback)
            continue
        others = [j for j in out_of_fold if j is not job]  # calibration never sees this job's labels
        rows = [i for j in others for i in j.test]
        temperature, weight = _calibrate(np.vstack([scores[j] for j in others]) if others else scores[job],
                                         shares[rows], np.array([columns[labels[i]] for i in rows], dtype=int))
        if not settings.blend:
            weight = 0.0
        weights = np.full(len(classes), weight)
        weights[[columns[c] for c in classes if counts[c] < settings.rare_min]] = 1.0  # the model cannot know these
        probs[test] = _blend(_softmax(scores[job], temperature), shares[test], weights)
        words.update(_top_words(features, names, fitted[job][1], test, [classes[j] for j in probs[test].argmax(axis=1)]))
        for i in test:
            sources[i] = job.source
    return classes, probs, sources, words


# ------------------------------------------------------------------ evaluation

@dataclass(frozen=True, slots=True)
class Score:
    """Agreement of one classifier's cross-fitted predictions with the current labels."""

    name: str
    accuracy: float
    macro_f1: float
    """Unweighted mean F1 over the domains that occur in the labels."""


@dataclass(frozen=True, slots=True)
class DomainScore:
    domain: str
    support: int
    f1_full: float
    f1_rules: float


@dataclass(frozen=True, slots=True)
class Evaluation:
    """K-fold agreement with the current labels, for ``classify --evaluate``."""

    labelled: int
    folds: int
    domains: int
    """Distinct domains among the labels."""
    scores: tuple[Score, ...]
    """``full``, ``text only``, ``rules``, ``majority``, in that order; empty without labelled notes."""
    per_domain: tuple[DomainScore, ...]
    """Worst full-model F1 first."""
    seconds: float
    """Time of the full classifier's cross-fitted prediction."""


def f1_by_domain(truth: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    """F1 of each domain that occurs in ``truth``."""
    pairs = Counter(zip(truth, predicted))
    true_n, pred_n = Counter(truth), Counter(predicted)
    return {d: 2 * pairs[(d, d)] / (true_n[d] + pred_n[d]) for d in sorted(true_n)}


def evaluate(notes: Sequence[Note], taxonomy: Taxonomy, settings: Settings = Settings()) -> Evaluation:
    """Cross-fitted accuracy and macro-F1 of the full classifier, text alone, rules alone and the majority."""
    labelled = [n for n in notes if n.domain]
    truth = [n.domain for n in labelled]
    if not labelled:
        return Evaluation(0, 0, 0, (), (), 0.0)
    variants = {"full": settings, "text only": replace(settings, rule_weight=0.0, rare_min=0, blend=False),
                "rules": replace(settings, text=False)}
    predicted: dict[str, list[str]] = {}
    seconds = 0.0
    for name, variant in variants.items():
        started = time.perf_counter()
        predicted[name] = [p.predicted for p in predict(labelled, taxonomy, variant)]
        if name == "full":
            seconds = time.perf_counter() - started
    k = min(settings.folds, len(labelled))
    folds = fold_of(truth, k, settings.random_state) if k >= 2 else [0] * len(truth)
    majority = {f: Counter(t for t, g in zip(truth, folds) if g != f).most_common(1) for f in set(folds)}
    predicted["majority"] = [majority[g][0][0] if majority[g] else FALLBACK_DOMAIN for g in folds]
    scores = []
    for name, guesses in predicted.items():
        f1 = f1_by_domain(truth, guesses)
        accuracy = sum(t == g for t, g in zip(truth, guesses)) / len(truth)
        scores.append(Score(name, accuracy, sum(f1.values()) / len(f1)))
    full, rules, support = f1_by_domain(truth, predicted["full"]), f1_by_domain(truth, predicted["rules"]), Counter(truth)
    per_domain = sorted((DomainScore(d, support[d], full[d], rules[d]) for d in full), key=lambda s: (s.f1_full, s.domain))
    return Evaluation(len(labelled), max(k, 1), len(support), tuple(scores), tuple(per_domain), seconds)
