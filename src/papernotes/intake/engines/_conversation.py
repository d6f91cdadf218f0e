"""Draft stage, one stub's exchange with a model, as a generator that both the live and the batch engine run.

``converse`` yields lists of ``Call``s (requests that can go out together),
receives their replies (a ``Completion``, or the ``RequestError`` a request
failed with) and returns an ``Outcome``: a ``Draft``, or why there is none.
Rounds, each only when needed:

1. **map** — a paper too long for one request: one request per chunk of
   sections, asking for its facts with numbers copied verbatim, each with its
   table/figure and page (JSON); a reply that is not that JSON gets one repair.
2. **draft** — from the abstract (no readable paper), the whole paper, or the
   facts plus abstract and introduction (the reduce step).
3. **repair** — one request when the reply is not the expected JSON.
4. **grounding repair** — one request listing each number the paper does not
   have, with the paper's nearest number and its page. What is still
   unsupported afterwards is marked ``⚠`` and counted in the record.

The runner (``papernotes.intake.llm_run``) sends each yield at once for the
live engine and gathers the yields of all stubs into one batch per round for
the batch engine. Replies are cached by key, so a re-run replays the rounds
for free.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from papernotes.corpus.model import Grounding
from papernotes.intake import conversation
from papernotes.intake.conversation import Call, Completion, Messages, Outcome, RequestError, cache_key
from papernotes.intake.draft import Drafted, Stub, stub_abstract, validate_reply
from papernotes.intake.replies import DRAFT_SCHEMA
from papernotes.intake.engines import _grounding
from papernotes.intake.engines._paper import Reading, estimate_tokens, fit, plan, reply_reserve
from papernotes.intake.llm import LLMSettings
from papernotes.intake.paper import PaperText
from papernotes.intake.prompt import Prompt, json_object, then


@dataclass(frozen=True, slots=True)
class Draft:
    """What a stub's exchange made."""

    drafted: Drafted
    """Marked where numbers are not in the paper."""
    grounding: Grounding | None = None
    """How its numbers stand against the paper; ``None``: there was no paper."""
    ground_repaired: int = 0
    """1 when it was sent back because some of its numbers were not in the paper."""


Conversation = conversation.Conversation[Outcome[Draft]]
"""A stub's exchange: its draft, or why it stays a stub."""


@dataclass(frozen=True, slots=True)
class Fact:
    text: str
    source: str
    page: int | None

    def line(self) -> str:
        where = ", ".join(x for x in (self.source, f"p. {self.page}" if self.page else "") if x)
        return f"- {self.text}" + (f" [{where}]" if where else "")


def validate_facts(text: str) -> tuple[list[Fact] | None, list[str]]:
    """``{"facts": [{"fact", "source", "page"}]}`` from a map reply (an empty list is fine)."""
    data, problem = json_object(text)
    if data is None:
        return None, [problem]
    items = data.get("facts")
    if not isinstance(items, list):
        return None, ["`facts` must be a list of objects with `fact`, `source` and `page`"]
    facts, errors = [], []
    for i, item in enumerate(items):
        fact = item.get("fact") if isinstance(item, dict) else None
        if not isinstance(fact, str) or not fact.strip():
            errors.append(f"`facts[{i}].fact` must be a non-empty string")
            continue
        source = item.get("source")
        page = item.get("page")
        facts.append(Fact(" ".join(fact.split()), source.strip() if isinstance(source, str) else "",
                          page if isinstance(page, int) and not isinstance(page, bool) and page > 0 else None))
    return (None, errors) if errors else (facts, [])


@dataclass(frozen=True, slots=True)
class Prompts:
    """The draft and map prompts of one language."""

    draft: Prompt
    map: Prompt

    @classmethod
    def load(cls, lang: str) -> Prompts:
        return cls(Prompt.load("draft", lang), Prompt.load("map", lang))


def _fields(stub: Stub, paper: PaperText | None) -> dict[str, str]:
    abstract = stub_abstract(stub, paper)
    return {"title": stub.text("title"), "authors": ", ".join(stub.authors()) or "-",
            "venue": stub.text("venue") or "-", "abstract": abstract or "-"}


def _draft_messages(prompts: Prompts, reading: Reading, fields: dict[str, str], facts: str = "") -> Messages:
    system = prompts.draft.fill("system", basis=prompts.draft.fill(f"basis_{reading.mode}"))
    if reading.mode == "full":
        user = prompts.draft.fill("user_paper", paper=reading.text, **fields)
    elif reading.mode == "map":
        user = prompts.draft.fill("user_facts", introduction=reading.introduction, facts=facts, **fields)
    else:
        user = prompts.draft.fill("user", **fields)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _map_messages(prompts: Prompts, fields: dict[str, str], part: str, text: str) -> Messages:
    return [{"role": "system", "content": prompts.map.fill("system")},
            {"role": "user", "content": prompts.map.fill("user", title=fields["title"], part=part, text=text)}]


def _tokens(messages: Messages) -> int:
    return sum(estimate_tokens(m["content"]) + 4 for m in messages)


def reading_for(stub: Stub, paper: PaperText | None, prompts: Prompts, settings: LLMSettings) -> Reading:
    fields = _fields(stub, paper)
    draft_overhead = _tokens(_draft_messages(prompts, Reading("full"), fields))
    map_overhead = _tokens(_map_messages(prompts, fields, "", ""))
    return plan(paper, settings.context_tokens, draft_overhead, map_overhead, front=fields["abstract"] == "-")


def converse(stub: Stub, lang: str, paper: PaperText | None, prompts: Prompts, settings: LLMSettings,
             engine: str = "openai") -> Conversation:
    identity: tuple[Any, ...] = (stub.text("id") or stub.path, stub.text("title"), stub.text("abstract"))
    if paper is not None:
        identity += (paper.sha256,)

    def call(messages: Messages, schema: dict[str, Any] | None = None) -> Call:
        return Call(cache_key(identity, messages, settings.model), messages, schema)

    fields = _fields(stub, paper)
    if paper is None and fields["abstract"] == "-":  # a title alone is no basis for a note
        return Outcome(None, failure="no abstract to draft from (no `abstract:` in the note, no readable PDF beside it)")
    reading = reading_for(stub, paper, prompts, settings)
    repaired = 0
    facts_text = ""
    if reading.mode == "map":
        calls = [call(_map_messages(prompts, fields, chunk.label, chunk.text)) for chunk in reading.chunks]
        replies = yield calls
        facts: dict[int, list[Fact]] = {}
        retry: dict[int, Call] = {}
        for i, (sent, reply) in enumerate(zip(calls, replies, strict=True)):
            if isinstance(reply, RequestError):
                return Outcome(None, failure=f"reading {reading.chunks[i].label}: {reply}")
            found, errors = validate_facts(reply.text)
            if found is None:
                request = prompts.map.fill("repair", errors="\n".join(f"- {e}" for e in errors))
                retry[i] = call(then(sent.messages, reply.text, request))
            else:
                facts[i] = found
        if retry:
            repaired += len(retry)
            replies = yield list(retry.values())
            for (i, sent), reply in zip(retry.items(), replies, strict=True):
                found, errors = validate_facts(reply.text) if isinstance(reply, Completion) else (None, [str(reply)])
                if found is None:
                    return Outcome(None, failure=f"reading {reading.chunks[i].label}: {'; '.join(errors)}",
                                   forget=(calls[i].key, sent.key))
                facts[i] = found
        lines = [f"### {reading.chunks[i].label}\n" + "\n".join(f.line() for f in facts[i])
                 for i in sorted(facts) if facts[i]]
        room = settings.context_tokens - reply_reserve(settings.context_tokens) - _tokens(
            _draft_messages(prompts, reading, fields))
        facts_text = fit("\n\n".join(lines), room) or "-"

    messages = _draft_messages(prompts, reading, fields, facts_text)
    sent = call(messages, DRAFT_SCHEMA)
    keys = [sent.key]
    (reply,) = yield [sent]
    drafted, errors = validate_reply(reply.text, engine) if isinstance(reply, Completion) else (None, [str(reply)])
    if errors and isinstance(reply, Completion):
        repaired += 1
        messages = then(messages, reply.text, prompts.draft.fill(
            "repair", errors="\n".join(f"- {e}" for e in errors)))
        sent = call(messages, DRAFT_SCHEMA)
        keys.append(sent.key)
        (reply,) = yield [sent]
        drafted, errors = validate_reply(reply.text, engine) if isinstance(reply, Completion) else (None, [str(reply)])
    if drafted is None or not isinstance(reply, Completion):
        return Outcome(None, failure="; ".join(errors), forget=tuple(keys), repaired=repaired)
    if paper is None:
        return Outcome(Draft(drafted), repaired=repaired)

    found = _grounding.check(stub, drafted, paper, lang)
    ground_repaired = 0
    # numbers in text the stub already had are the author's: counted, never sent back
    if numbers := _grounding.repair_list(found, prompts.draft, lang):
        ground_repaired = 1
        request = prompts.draft.fill("repair_numbers", numbers=numbers)
        (again,) = yield [call(then(messages, reply.text, request), DRAFT_SCHEMA)]
        if isinstance(again, Completion):
            fixed, _ = validate_reply(again.text, engine)
            recheck = _grounding.check(stub, fixed, paper, lang) if fixed is not None else None
            # an unusable repair, or one that makes things worse, keeps the first draft (marked)
            if fixed is not None and recheck is not None and len(recheck.unsupported) <= len(found.unsupported):
                drafted, found = fixed, recheck
    return Outcome(Draft(_grounding.mark(drafted, found), found.record(), ground_repaired), repaired=repaired)

