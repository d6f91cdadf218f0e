"""How far `classify --apply` can trust a prediction: accuracy by confidence, and by number of labelled notes.

    python benchmarks/bench_classify.py [--docs DIR] [--seeds 3] [--no-curve] [--json out.json]

Imports the reference snapshot (``--docs``, default ``../shared/corpus/paper-notes/docs``)
into a temporary corpus; its folders are the labels. Two measurements:

1. **Confidence**: the cross-fitted prediction of every labelled note (each by a
   model that never saw its label, what ``classify`` computes) — for each
   threshold, the share of notes whose top probability reaches it (coverage) and
   how many of those agree with the reference's label (accuracy of what
   ``--apply --min-confidence T`` would write).
2. **Rules alone** (what ``classify`` does with fewer than 20 labelled notes,
   ``classify.by_rules``): every note's label hidden, the same coverage and
   accuracy by threshold, then the day-one line: the share of notes filed at
   the default confidence and how many of those agree with the reference.
3. **Labelled notes needed**: N notes drawn at random keep their label, every
   other note loses it; the notes without a label are predicted as ``classify``
   predicts them (a model trained on the N). Reported per N: accuracy of all
   predictions, and coverage and accuracy at the default threshold. Mean over
   ``--seeds`` draws.

The reference labels are themselves often wrong (docs/classify.md), so the
accuracies are agreement with the reference, a lower bound on correctness.
"""
from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from papernotes.cache import BuildCache
from papernotes.classify.by_rules import predict_by_rules
from papernotes.classify.learned import predict
from papernotes.config import load_config, load_site_taxonomy
from papernotes.corpus.load import load_corpus
from papernotes.migrate.tree import import_tree

THRESHOLDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
SIZES = (5, 10, 20, 30, 40, 80, 160, 320)


def _at(predictions, truth, threshold):  # type: ignore[no-untyped-def]
    kept = [(p, t) for p, t in zip(predictions, truth) if p.probability >= threshold]
    agree = sum(p.predicted == t for p, t in kept)
    return len(kept) / max(1, len(truth)), (agree / len(kept) if kept else float("nan")), len(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=Path, default=Path(__file__).resolve().parents[2] / "shared/corpus/paper-notes/docs")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--default", type=float, default=0.8, help="Threshold of the learning curve.")
    parser.add_argument("--no-curve", action="store_true", help="Skip the learning curve (3).")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        import_tree(args.docs, corpus)
        config, _ = load_config(corpus)
        taxonomy = load_site_taxonomy(corpus, config)
        notes = list(load_corpus(corpus, BuildCache(None)).notes)
    truth = [n.domain for n in notes]
    started, cpu = time.perf_counter(), time.process_time()
    crossfit = predict(notes, taxonomy)
    report: dict[str, object] = {"notes": len(notes), "seconds": round(time.perf_counter() - started, 2),
                                 "cpu_seconds": round(time.process_time() - cpu, 2)}
    accuracy = _at(crossfit, truth, 0.0)[1]
    report["accuracy"] = round(accuracy, 3)
    print(f"{len(notes)} labelled notes; cross-fitted prediction in {report['seconds']} s "
          f"({report['cpu_seconds']} s of CPU); agreement of every prediction {accuracy:.3f}")
    print("\nthreshold  coverage  notes  accuracy of the notes at or above it")
    rows = []
    for t in THRESHOLDS:
        coverage, accuracy, kept = _at(crossfit, truth, t)
        rows.append({"threshold": t, "coverage": round(coverage, 3), "notes": kept, "accuracy": round(accuracy, 3)})
        print(f"{t:9.2f}  {coverage:8.3f}  {kept:5d}  {accuracy:.3f}")
    report["confidence"] = rows

    started, cpu = time.perf_counter(), time.process_time()
    by_rules = predict_by_rules([replace(n, domain="") for n in notes], taxonomy)
    rules_seconds, rules_cpu = time.perf_counter() - started, time.process_time() - cpu
    print("\nrules alone (every label hidden)\nthreshold  coverage  notes  accuracy of the notes at or above it")
    rows = []
    for t in THRESHOLDS:
        coverage, accuracy, kept = _at([p for p in by_rules if p.top], [t_ for p, t_ in zip(by_rules, truth) if p.top],
                                       t)
        coverage *= sum(bool(p.top) for p in by_rules) / max(1, len(notes))  # of all notes, not of those matched
        rows.append({"threshold": t, "coverage": round(coverage, 3), "notes": kept, "accuracy": round(accuracy, 3)})
        print(f"{t:9.2f}  {coverage:8.3f}  {kept:5d}  {accuracy:.3f}")
    report["rules"] = rows
    filed = [(p, t) for p, t in zip(by_rules, truth) if p.top and p.probability >= args.default]
    agree = sum(p.predicted == t for p, t in filed) / max(1, len(filed))
    report["day_one"] = {"filed": len(filed), "coverage": round(len(filed) / len(notes), 3),
                         "agreement": round(agree, 3), "seconds": round(rules_seconds, 2)}
    print(f"day one (rules alone, labels hidden): {len(filed)} of {len(notes)} notes "
          f"({len(filed) / len(notes):.1%}) filed at p >= {args.default}, {agree:.1%} of them as the reference "
          f"files them; {rules_seconds:.2f} s ({rules_cpu:.2f} s of CPU)")
    if args.no_curve:
        _write(args.json, report)
        return

    print(f"\nlabelled  accuracy (all)  coverage@{args.default}  accuracy@{args.default}   (mean of {args.seeds} draws)")
    curve = []
    for size in SIZES:
        runs = []
        for seed in range(args.seeds):
            chosen = set(random.Random(seed).sample(range(len(notes)), size))
            hidden = [n if i in chosen else replace(n, domain="") for i, n in enumerate(notes)]
            rest = [i for i in range(len(notes)) if i not in chosen]
            predictions = predict(hidden, taxonomy)
            guesses = [predictions[i] for i in rest]
            labels = [truth[i] for i in rest]
            overall = _at(guesses, labels, 0.0)[1]
            coverage, accuracy, _ = _at(guesses, labels, args.default)
            runs.append((overall, coverage, accuracy))
        mean = [sum(r[k] for r in runs if r[k] == r[k]) / max(1, sum(r[k] == r[k] for r in runs)) for k in range(3)]
        curve.append({"labelled": size, "accuracy": round(mean[0], 3), "coverage": round(mean[1], 3),
                      "accuracy_at_default": round(mean[2], 3)})
        print(f"{size:8d}  {mean[0]:14.3f}  {mean[1]:12.3f}  {mean[2]:12.3f}")
    report["labelled_curve"] = curve
    _write(args.json, report)


def _write(path: Path | None, report: dict[str, object]) -> None:
    if path:
        path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
