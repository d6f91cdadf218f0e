"""CLI for the classify stage: ``papernotes classify CORPUS [--json | --apply | --evaluate]``.

Thin: loads the corpus and taxonomy, calls ``classify_model`` and prints or
applies its predictions. ``--apply`` is the only write: it adds ``domain:`` to
notes that have none (``frontmatter.update``: every other byte kept), atomically, and moves nothing.
Registered with ``@app.command``; scikit-learn is imported lazily so ``--help`` stays instant.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papernotes.cli.app import app, err, fail, out

if TYPE_CHECKING:
    from papernotes.classify.learned import Evaluation, Prediction
    from papernotes.corpus.model import Note


@app.command("classify")
def classify(
    corpus: Annotated[Path, typer.Argument(help="Corpus directory (notes + optional papernotes.toml).",
                                           file_okay=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (one object per note; with --evaluate "
                                                         "the scores; with --apply the changes).")] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Write the predicted domain into notes that have "
                                                        "none; nothing else changes.")] = False,
    evaluate: Annotated[bool, typer.Option("--evaluate", help="K-fold agreement with the current labels: "
                                                              "full classifier, text alone, rules alone, "
                                                              "majority.")] = False,
    threshold: Annotated[float, typer.Option(min=0.0, max=1.0, help="Probability of another domain that "
                                                                    "marks a note misfiled.")] = 0.8,
    folds: Annotated[int, typer.Option(min=2, max=20, help="Folds of the cross-fitting.")] = 5,
) -> None:
    """Predict each note's domain and topics, and find misfiled notes.

    Rules from the taxonomy plus a model learned from the corpus's own labelled notes. Every labelled note is predicted by a model that never saw its label (cross-fitting), so a note filed under the wrong domain stands out; notes without a domain are predicted by a model trained on all labelled notes.
    """
    from papernotes.cache import BuildCache
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import load_corpus
    from papernotes.errors import PapernotesError

    if apply and evaluate:
        err.print("[red]error:[/red] --apply and --evaluate cannot be combined")
        raise typer.Exit(2)
    from papernotes.extras import MissingExtraError, available, missing_message

    if not available("sklearn"):  # the learned classifier is an extra
        raise fail(MissingExtraError(missing_message("sklearn", "papernotes classify")))
    from papernotes.classify import learned as cm
    try:
        config, _ = load_config(corpus)
        taxonomy = load_site_taxonomy(corpus, config)
        notes = load_corpus(corpus, BuildCache(None)).notes
    except PapernotesError as exc:
        raise fail(exc) from None
    settings = cm.Settings(folds=folds)
    if evaluate:
        _print_evaluation(cm.evaluate(notes, taxonomy, settings), as_json)
        return
    predictions = cm.predict(notes, taxonomy, settings)
    if apply:
        _apply(corpus, notes, predictions, as_json)
    elif as_json:
        typer.echo(json.dumps([_as_dict(p, threshold) for p in predictions], ensure_ascii=False, indent=1))
    else:
        _print_summary(predictions, threshold)


def _as_dict(p: Prediction, threshold: float) -> dict[str, object]:
    return {"id": p.id, "path": p.path, "title": p.title, "domain": p.domain, "predicted": p.predicted,
            "secondary": p.secondary, "top": [[d, prob] for d, prob in p.top], "topics": list(p.topics),
            "misfiled": p.misfiled(threshold)}


def _apply(root: Path, notes: tuple[Note, ...], predictions: list[Prediction], as_json: bool) -> None:
    """Write ``domain:`` into domain-less notes whose file is unchanged since it was read."""
    from rich.markup import escape

    from papernotes.corpus.frontmatter import KEY_ORDER, FrontMatterError, read, update
    from papernotes.site.publish import atomic_write

    changes: list[dict[str, object]] = []
    for note, p in zip(notes, predictions):
        if note.domain:
            continue
        path = root / note.path
        text: str | None = None
        try:
            data = path.read_bytes()
            source = data.decode("utf-8")
            current = read(source)[0].get("domain")
            if current is None or (isinstance(current, str) and not current.strip()):
                text = update(source, {"domain": p.predicted}, order=KEY_ORDER)
            why = "its `domain` line is not empty"
        except (OSError, UnicodeDecodeError, FrontMatterError) as exc:
            why = f"cannot read it again ({exc})"
        if text is not None and note.digest and hashlib.sha1(data).hexdigest() != note.digest:
            text, why = None, "the file changed while classifying"
        if text is None:
            err.print(f"[yellow]{escape(note.path)}:{p.line}: warning: not changed: {escape(why)}[/yellow]",
                      soft_wrap=True)
            continue
        atomic_write(path, text.encode("utf-8"))
        changes.append({"path": note.path, "domain": p.predicted, "probability": p.probability})
        if not as_json:
            out.print(f"{escape(note.path)}: domain: {p.predicted} (p={p.probability:.2f})", soft_wrap=True)
    if as_json:
        typer.echo(json.dumps(changes, ensure_ascii=False, indent=1))
    else:
        out.print(f"{len(changes)} note(s) given a domain")


def _print_summary(predictions: list[Prediction], threshold: float) -> None:
    """One ``path:line:`` line per suspected misfile and per note without a domain, then the counts."""
    from rich.markup import escape


    def also(p: Prediction) -> str:
        return f", then {p.secondary} ({p.top[1][1]:.2f})" if p.secondary else ""

    misfiled = sorted((p for p in predictions if p.misfiled(threshold)), key=lambda p: (-p.probability, p.path))
    missing = [p for p in predictions if not p.domain]
    for p in misfiled:
        out.print(f"{escape(p.path)}:{p.line}: filed under {p.domain}, predicted {p.predicted} "
                  f"(p={p.probability:.2f}{also(p)})", soft_wrap=True, highlight=False)
    for p in missing:
        out.print(f"{escape(p.path)}: no domain, predicted {p.predicted} (p={p.probability:.2f}{also(p)})",
                  soft_wrap=True, highlight=False)
    out.print(f"{len(predictions)} notes: {len(misfiled)} suspected misfile(s) at p ≥ {threshold:g}, "
              f"{len(missing)} without a domain (classify --apply fills them)", soft_wrap=True)


def _print_evaluation(ev: Evaluation, as_json: bool) -> None:
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
