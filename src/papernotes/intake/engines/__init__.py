"""Draft engines: what turns a stub into a draft, one module per engine.

Every engine is a module of this package named after it that declares
``ENGINE = DraftEngine(name, help, run, …)``; the ``ENGINES`` registry finds
them by file name (nothing is imported until one is asked for), so the
``draft`` command's ``--engine`` choices come from here and a new engine is one
module plus its test. Modules starting with ``_`` are helpers shared by the
language-model engines: ``_paper`` (what of the paper goes into a prompt),
``_conversation`` (the requests one stub needs: map, draft, repairs),
``_grounding`` (the draft's numbers against the paper, marks, the record).

In: a ``DraftJob`` (``papernotes.intake.draft``): the stubs, their languages and
papers, the settings, and ``finish``/``fail`` to hand each result back. Out: the
run's token ``Usage`` (``None`` for engines that call no model).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from papernotes.registry import Registry

if TYPE_CHECKING:
    from papernotes.intake.draft import DraftJob
    from papernotes.intake.conversation import Usage


@dataclass(frozen=True, slots=True)
class DraftEngine:
    """One way of drafting notes."""

    name: str
    """The module's name; what ``--engine`` takes."""
    help: str
    """One line for ``papernotes draft --help``."""
    run: Callable[[DraftJob], Usage | None]
    """Drafts every stub of the job, handing each result to ``job.finish`` or ``job.fail`` as it is ready."""
    uses_llm: bool = False
    """Needs the ``[llm]`` settings (a model, an endpoint)."""
    batch: str = ""
    """The engine that sends this one's requests through a batch API (``draft --batch``); ``""``: none."""


ENGINES: Registry[DraftEngine] = Registry("draft engine", "papernotes.intake.engines", "ENGINE")
