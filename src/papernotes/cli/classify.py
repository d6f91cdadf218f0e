"""CLI for the classify stage: ``papernotes classify CORPUS [--engine learned|openai [--batch]] [--json | --apply
| --evaluate]``.

Thin: loads the corpus and taxonomy, asks an engine for predictions (the
learned classifier, ``classify.learned`` — the taxonomy's rules, ``classify.by_rules``, while there are too
few labelled notes — or a language model choosing among
the taxonomy's domains, ``classify.llm``) and prints them or applies them with
``classify.apply`` (the only write: ``domain:`` into notes that have none, when
the prediction reaches ``--min-confidence``; the rest is listed for review).
scikit-learn and openai are imported lazily so ``--help`` stays instant.
"""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from papernotes import extras
from papernotes.classify.prediction import MIN_CONFIDENCE, MISFILE_THRESHOLD, too_few_labels
from papernotes.cli.common import app, err, fail, model_line, out
from papernotes.cli.output import error, report

if TYPE_CHECKING:
    from papernotes.classify.apply import Applied
    from papernotes.classify.learned import Evaluation
    from papernotes.classify.prediction import Prediction
    from papernotes.config import SiteConfig
    from papernotes.corpus.model import Note
    from papernotes.errors import Diagnostic
    from papernotes.intake.paper.model import PaperText
    from papernotes.taxonomy import Taxonomy

ENGINES = ("learned", "openai")


@app.command("classify")
def classify(
    corpus: Annotated[Path, typer.Argument(help="Corpus directory (notes + optional papernotes.toml).",
                                           file_okay=False)],
    engine: Annotated[str, typer.Option(
        metavar="|".join(ENGINES),
        help="learned: a model trained on the corpus's own labelled notes (offline; with fewer than 20 of them "
             "the taxonomy's rules decide the clear cases); "
             "openai: a language model chooses among the taxonomy's domains for each note without one (the llm "
             "table of papernotes.toml, as for draft).")] = "learned",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (one object per note; with --evaluate "
                                                         "the scores; with --apply the changes).")] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Write the predicted domain into notes that have none when "
                                                        "the prediction reaches --min-confidence; list the rest "
                                                        "for review. Nothing else changes.")] = False,
    min_confidence: Annotated[float, typer.Option(
        "--min-confidence", min=0.0, max=1.0,
        help="Probability (learned) or confidence (openai) a prediction needs for --apply to write it.")]
        = MIN_CONFIDENCE,
    evaluate: Annotated[bool, typer.Option("--evaluate", help="K-fold agreement with the current labels: "
                                                              "full classifier, text alone, rules alone, "
                                                              "majority.")] = False,
    threshold: Annotated[float, typer.Option(min=0.0, max=1.0, help="Probability of another domain that "
                                                                    "marks a note misfiled.")] = MISFILE_THRESHOLD,
    folds: Annotated[int, typer.Option(min=2, max=20, help="Folds of the cross-fitting.")] = 5,
    batch: Annotated[bool, typer.Option(
        "--batch", help="With --engine openai: send the requests through the OpenAI Batch API (half price, "
                        "within 24 h); re-run to resume a run that was interrupted.")] = False,
    verbose: Annotated[bool, typer.Option(
        "-v", "--verbose", help="Under each note listed, what decided its prediction: the taxonomy's phrases "
                                "found and where, and the words the learned model weighed most.")] = False,
) -> None:
    """Predict each note's domain and topics, and find misfiled notes.

    learned: rules from the taxonomy plus a model learned from the corpus's own labelled notes. Every labelled note is predicted by a model that never saw its label (cross-fitting), so a note filed under the wrong domain stands out; notes without a domain are predicted by a model trained on all labelled notes. With fewer than 20 labelled notes (in at least 2 domains) the taxonomy's rules alone predict the notes without a domain, each with a confidence (the evidence of one domain - its phrases in the title, keywords, summary, abstract and a PDF beside the note, its venue and arXiv category - against that of the others); notes no rule matches are listed for review. -v and --json say which phrases and words decided each prediction. openai: one request per note without a domain (--batch: all of them in one Batch API batch, a repair round in another). Exit status 1 when nothing could be predicted or a note could not be classified.
    """
    # lazy: 571 ms (importtime, beside papernotes.cli.classify): `--help` does not load it
    from papernotes.cache import BuildCache
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import load_corpus
    from papernotes.errors import PapernotesError

    if engine not in ENGINES:
        raise typer.BadParameter(f"choose one of: {', '.join(ENGINES)}", param_hint="--engine")
    if apply and evaluate:
        error("--apply and --evaluate cannot be combined")
        raise typer.Exit(2)
    if evaluate and engine != "learned":
        error("--evaluate measures the learned classifier; it cannot be combined with --engine openai")
        raise typer.Exit(2)
    if batch and engine != "openai":
        error("--batch sends a language model's requests through the Batch API: use it with --engine openai")
        raise typer.Exit(2)
    try:
        config, _ = load_config(corpus)
        taxonomy = load_site_taxonomy(corpus, config)
        notes = load_corpus(corpus, BuildCache(None)).notes
        if engine == "openai":
            predictions, failures = _ask_model(corpus, notes, config, taxonomy, batch)
        else:
            predictions, failures = _learned(corpus, notes, taxonomy, folds, evaluate, as_json), []
    except PapernotesError as exc:
        raise fail(exc) from None
    if predictions is None:
        return
    if engine == "openai" and not predictions and not failures and not as_json:
        out.print(f"every note of {corpus} has a domain: nothing to ask the model")
        return
    report(failures)
    if apply:
        # lazy: 69 ms (importtime, beside papernotes.cli.classify): `--help` does not load it
        from papernotes.classify.apply import apply_domains

        _print_applied(apply_domains(corpus, notes, predictions, min_confidence), min_confidence, as_json, verbose)
    elif as_json:
        typer.echo(json.dumps([_as_dict(p, threshold) for p in predictions], ensure_ascii=False, indent=1))
    else:
        _print_summary(predictions, threshold, min_confidence, verbose)
    if failures:
        raise typer.Exit(1)


def _learned(corpus: Path, notes: tuple[Note, ...], taxonomy: Taxonomy, folds: int, evaluate: bool,
             as_json: bool) -> list[Prediction] | None:
    """The learned classifier's predictions; ``None`` when ``--evaluate`` printed its table instead."""

    if not evaluate and notes and (reason := too_few_labels(notes)) is not None:  # day one: no extra needed
        # lazy: 56 ms (importtime, beside papernotes.cli.classify): `--help` does not load it
        from papernotes.classify.by_rules import predict_by_rules

        err.print(f"{reason}; until then the taxonomy's rules decide the clear cases", highlight=False)
        return predict_by_rules(notes, taxonomy, _papers(corpus, [n for n in notes if not n.domain and n.paper]))
    if not extras.available("sklearn"):  # the learned classifier is an extra
        raise extras.MissingExtraError(extras.missing_message("sklearn", "papernotes classify"))
    # lazy: 327 ms (importtime, beside papernotes.cli.classify): `--help` does not load it
    from papernotes.classify import learned

    settings = learned.Settings(folds=folds)
    if evaluate:
        _print_evaluation(learned.evaluate(notes, taxonomy, settings), as_json)
        return None
    return learned.predict(notes, taxonomy, settings)


def _papers(corpus: Path, notes: list[Note]) -> dict[str, PaperText]:
    """The PDF beside each note, read (from the reader's cache when it was read before); none without the pdf
    extra. A PDF that cannot be read is reported and left out: the note is classified from its own text."""
    if not notes or not extras.available("pypdf"):
        return {}
    # lazy: 56 ms (importtime, beside papernotes.cli.classify): only when a note without a domain has a PDF
    from papernotes.intake.paper.cache import cache_dir
    from papernotes.intake.paper.model import PaperError
    from papernotes.intake.paper.read import read_paper

    papers: dict[str, PaperText] = {}
    for note in notes:
        try:
            papers[note.path] = read_paper(corpus / note.paper, cache_dir(corpus))
        except PaperError as exc:
            err.print(f"{escape(note.paper)}: not read, the note's own text decides: {escape(str(exc))}",
                      highlight=False)
    return papers


def _ask_model(corpus: Path, notes: tuple[Note, ...], config: SiteConfig, taxonomy: Taxonomy,
               batch: bool) -> tuple[list[Prediction], list[Diagnostic]]:
    """A language model's choice for every note without a domain, and an error per note it could not classify."""
    # lazy: 370 ms (importtime, beside papernotes.cli.classify): `--help` does not load it
    from papernotes.classify.llm import classify_with_llm
    from papernotes.cli.progress import progress_bar
    from papernotes.errors import error as diagnostic
    from papernotes.intake.llm import LLMSettings

    targets = [n for n in notes if not n.domain]
    if not targets:
        return [], []
    settings = LLMSettings.resolve(config.llm, corpus, offline="or classify offline without `--engine`: the "
                                   "taxonomy's rules file the clear cases until 20 notes have a domain, then the "
                                   "learned classifier")
    with progress_bar(err) as progress:
        result = classify_with_llm(corpus, targets, taxonomy, settings, progress, batch=batch)
    failures = [diagnostic(note.path, note.field_lines.get("domain", 0), f"not classified: {why}", "classify-failed")
                for note, why in result.failed]
    err.print(model_line(settings.model, result.usage, result.repaired, settings.batch_price_factor),
              highlight=False)
    return list(result.predictions), failures


def _as_dict(p: Prediction, threshold: float) -> dict[str, object]:
    return {"id": p.id, "path": p.path, "title": p.title, "domain": p.domain, "predicted": p.predicted,
            "secondary": p.secondary, "top": [[d, prob] for d, prob in p.top], "topics": list(p.topics),
            "why": list(p.why), "misfiled": p.misfiled(threshold)}


def _why(p: Prediction, verbose: bool) -> str:
    """The line under a listed note that says what decided its prediction (``-v``)."""
    if not verbose:
        return ""
    return f"\n  why: {escape(', '.join(p.why))}" if p.why else "\n  why: nothing of the taxonomy's in its text"


def _also(p: Prediction) -> str:
    return f", then {p.secondary} ({p.top[1][1]:.2f})" if p.secondary and len(p.top) > 1 else ""


def _print_applied(applied: Applied, min_confidence: float, as_json: bool, verbose: bool) -> None:
    report(list(applied.diagnostics))
    if as_json:
        rows = [{"path": p.path, "domain": p.predicted, "probability": p.probability, "why": list(p.why),
                 "applied": True} for p in applied.written]
        rows += [{"path": p.path, "domain": p.predicted, "probability": p.probability, "why": list(p.why),
                  "applied": False} for p in applied.review]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    for p in applied.written:
        out.print(f"{escape(p.path)}: domain: {p.predicted} (p={p.probability:.2f}){_why(p, verbose)}")
    for p in applied.review:
        why = (f"{_guess(p)} is below --min-confidence {min_confidence:.2f}" if p.top
               else "no rule of the taxonomy matches it")
        out.print(f"{escape(p.path)}: not written: {why}; review it and set `domain:` by hand"
                  f"{HOW_TO_REVIEW if p.source == 'rules' else ''}{_why(p, verbose) if p.top else ''}")
    review = f", {len(applied.review)} left for review" if applied.review else ""
    out.print(f"{len(applied.written)} note(s) given a domain{review}")


HOW_TO_REVIEW = " (`papernotes taxonomy domains` lists them; `--engine openai` asks a language model)"


def _guess(p: Prediction) -> str:
    """What the classifier thinks of a note: its best domain, or that no rule matches."""
    if not p.top:
        return "no rule of the taxonomy matches it"
    return f"predicted {p.predicted} (p={p.probability:.2f}{_also(p)})"


def _print_summary(predictions: list[Prediction], threshold: float, min_confidence: float, verbose: bool) -> None:
    """One ``path:line:`` line per suspected misfile and per note without a domain, then the counts."""
    misfiled = sorted((p for p in predictions if p.misfiled(threshold)), key=lambda p: (-p.probability, p.path))
    missing = [p for p in predictions if not p.domain]
    for p in misfiled:
        out.print(f"{escape(p.path)}:{p.line}: filed under {p.domain}, predicted {p.predicted} "
                  f"(p={p.probability:.2f}{_also(p)}){_why(p, verbose)}")
    for p in missing:
        review = ("" if p.top and p.probability >= min_confidence else
                  f"; below --min-confidence {min_confidence:.2f}: review it" if p.top else ": review it")
        out.print(f"{escape(p.path)}: no domain, {_guess(p)}{review}{_why(p, verbose) if p.top else ''}")
    sure = sum(bool(p.top) and p.probability >= min_confidence for p in missing)
    filing = (f"{len(missing)} without a domain ({sure} at p ≥ {min_confidence:.2f}: `classify --apply` writes "
              f"them; {len(missing) - sure} to review)") if missing else "none without a domain"
    misfiles = f"{len(misfiled)} suspected misfile(s) at p ≥ {threshold:g}, " if any(p.domain for p in predictions) else ""
    out.print(f"{len(predictions)} notes: {misfiles}{filing}")


def _print_evaluation(ev: Evaluation, as_json: bool) -> None:
    # lazy: 8 ms (importtime, beside papernotes.cli.classify): `--help` does not load it
    from rich.table import Table

    if as_json:
        typer.echo(json.dumps(asdict(ev), ensure_ascii=False, indent=1))
        return
    if not ev.scores:
        out.print("no labelled notes: nothing to evaluate")
        return
    table = Table("classifier", "accuracy", "macro-F1",
                  title=f"{ev.folds}-fold agreement with the current labels "
                        f"({ev.labelled} notes, {ev.domains} domains)")
    for score in ev.scores:
        table.add_row(score.name, f"{score.accuracy:.3f}", f"{score.macro_f1:.3f}")
    out.print(table)
    worst = Table("domain", "notes", "F1 full", "F1 rules", title="worst domains")
    for d in ev.per_domain[:8]:
        worst.add_row(d.domain, str(d.support), f"{d.f1_full:.3f}", f"{d.f1_rules:.3f}")
    out.print(worst)
    out.print(f"cross-fitted prediction in {ev.seconds:.2f}s")
