"""LLM edge, prompts and replies: the prompt files every LLM stage fills, and the JSON its replies carry.

In: a prompt name and language (``prompts/NAME.LANG.txt``: named ``=== block ===``
templates), a model's reply text. Out: filled messages (``Prompt.fill``, ``then``
for a follow-up such as a repair request) and the one JSON object of a reply
(``json_object``) or what is wrong with it — the words a repair request quotes
back to the model. Used by draft, translate and classify alike.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from string import Template
from typing import Any

from papernotes.errors import PromptError
from papernotes.intake.conversation import Messages


@dataclass(frozen=True, slots=True)
class Prompt:
    """One prompt file (``prompts/NAME.LANG.txt``): named ``=== block ===`` templates."""

    blocks: dict[str, Template]
    path: str = ""
    """Where the file is, for errors (``prompts/draft.zh.txt``)."""
    lines: dict[str, int] = field(default_factory=dict)
    """Block -> line of the file its text starts on."""

    @classmethod
    def load(cls, name: str, lang: str) -> Prompt:
        text = resources.files("papernotes").joinpath("prompts", f"{name}.{lang}.txt").read_text(encoding="utf-8")
        blocks: dict[str, Template] = {}
        lines: dict[str, int] = {}
        for m in re.finditer(r"^=== (\w+) ===\n(.*?)(?=^=== \w+ ===\n|\Z)", text, re.S | re.M):
            blocks[m.group(1)] = Template(m.group(2).strip())
            lines[m.group(1)] = text.count("\n", 0, m.start(2)) + 1
        return cls(blocks, f"prompts/{name}.{lang}.txt", lines)

    def fill(self, block: str, **values: str) -> str:
        """The block with its ``$name`` placeholders filled (``$$`` is a literal dollar sign); a placeholder no
        value is given for, or a ``$`` that is not one, is a ``PromptError`` naming the file and line."""
        template = self.blocks.get(block)
        where = f"{self.path}:{self.lines.get(block, 0)}"
        if template is None:
            raise PromptError(f"{self.path}: no `=== {block} ===` block")
        try:
            return template.substitute(**values)
        except KeyError as exc:
            given = ", ".join(f"${k}" for k in sorted(values)) or "none"
            raise PromptError(f"{where}: block `{block}` has the placeholder ${exc.args[0]}, which is not one of "
                              f"the values it is filled with ({given})") from None
        except ValueError as exc:
            raise PromptError(f"{where}: block `{block}`: {exc} (write $$ for a dollar sign)") from None


def prompt_version(name: str, lang: str) -> str:
    """The prompt file ``NAME.LANG`` and a digest of its text (``draft.zh@1a2b3c4d``): what a note drafted with it
    records, so that a changed prompt shows."""
    text = resources.files("papernotes").joinpath("prompts", f"{name}.{lang}.txt").read_bytes()
    return f"{name}.{lang}@{hashlib.sha1(text).hexdigest()[:8]}"


def then(messages: Messages, reply: str, request: str) -> Messages:
    """The conversation so far, the model's ``reply`` and our next ``request`` (a repair, say)."""
    return [*messages, {"role": "assistant", "content": reply}, {"role": "user", "content": request}]


def json_object(text: str) -> tuple[dict[str, Any] | None, str]:
    """The one JSON object of a reply (a Markdown fence around it is fine), or what is wrong with it."""
    body = text.strip()
    if fence := re.match(r"^```(?:json)?\s*(.*?)\s*```$", body, re.S):
        body = fence.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        start, end = body.find("{"), body.rfind("}")
        try:
            data = json.loads(body[start:end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            data = None
        if data is None:
            return None, f"the reply is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    if not isinstance(data, dict):
        return None, "the reply must be one JSON object"
    return data, ""
