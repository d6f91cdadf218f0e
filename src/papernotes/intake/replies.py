"""LLM edge, replies: what a model must answer a draft request with, as a pydantic model and its JSON schema.

In: the text of a model's reply. Out: a ``DraftReply`` (the summary one sentence, the keywords, every
canonical section, every rating from 1 to 5) or every reason the reply cannot be used, in the words a
repair request quotes back to the model (``read_reply``). The same rules as a JSON schema (``DRAFT_SCHEMA``)
go to a server that offers structured output (``[llm] structured_output = true``), so such a server answers
in shape at once; the reply is validated here either way.
"""
from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from papernotes.corpus.model import RATING_KEYS
from papernotes.corpus.sections import demote_headings
from papernotes.intake.extractive import split_sentences
from papernotes.intake.prompt import json_object
from papernotes.intake.redraft import SECTION_KEYS

M = TypeVar("M", bound=BaseModel)


def _section_text(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(f"- {v.strip()}" for v in value if v.strip())
    if not isinstance(value, str):
        return ""
    return demote_headings(value.strip())  # a heading inside a section would end it in the note's outline


class DraftReply(BaseModel):
    """A model's draft of one note (its JSON, as ``prompts/draft.*.txt`` asks for it)."""

    model_config = ConfigDict(extra="ignore", validate_default=True)  # a missing field is checked too

    summary: str = ""
    """One sentence, whitespace folded."""
    keywords: tuple[str, ...] = ()
    """Non-empty, each stripped, repeats dropped."""
    sections: dict[str, str] = {}
    """Markdown of each of ``SECTION_KEYS`` (a list of strings becomes a bulleted list; headings demoted)."""
    ratings: dict[str, int] | None = None
    """``RATING_KEYS`` -> 1..5."""

    @model_validator(mode="before")
    @classmethod
    def _sections_at_top(cls, data: Any) -> Any:
        if isinstance(data, dict) and not isinstance(data.get("sections"), dict):  # the sections as top-level keys
            return {**data, "sections": data}
        return data

    @field_validator("summary", mode="before")
    @classmethod
    def _one_sentence(cls, value: Any) -> str:
        text = " ".join(value.split()) if isinstance(value, str) else ""
        if not text:
            raise ValueError("`summary` is missing or empty")
        if (n := len(split_sentences(text))) != 1:
            raise ValueError(f"`summary` must be exactly one sentence, it has {n}")
        return text

    @field_validator("keywords", mode="before")
    @classmethod
    def _keywords(cls, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not value or not all(isinstance(k, str) and k.strip() for k in value):
            raise ValueError("`keywords` must be a non-empty list of strings")
        return tuple(dict.fromkeys(k.strip() for k in value))

    @field_validator("sections", mode="before")
    @classmethod
    def _sections(cls, value: Any) -> dict[str, str]:
        sections = {key: _section_text(value.get(key)) for key in SECTION_KEYS}
        if missing := [key for key, text in sections.items() if not text]:
            raise ValueError("\n".join(f"`sections.{key}` is missing or empty" for key in missing))
        return sections

    @field_validator("ratings", mode="before")
    @classmethod
    def _ratings(cls, value: Any) -> dict[str, int]:
        if not isinstance(value, dict):
            raise ValueError(f"`ratings` must be an object with integer scores 1-5 for {', '.join(RATING_KEYS)}")
        wrong = [f"`ratings.{key}` must be an integer from 1 to 5, got {json.dumps(value.get(key))}"
                 for key in RATING_KEYS if isinstance(value.get(key), bool) or not isinstance(value.get(key), int)
                 or not 1 <= value[key] <= 5]
        if wrong:
            raise ValueError("\n".join(wrong))
        return {key: value[key] for key in RATING_KEYS}


def read_reply(model: type[M], text: str) -> tuple[M | None, list[str]]:
    """The reply's one JSON object as ``model``, or every reason it is not one (a message per problem)."""
    data, problem = json_object(text)
    if data is None:
        return None, [problem]
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        errors = []
        for error in exc.errors(include_url=False):
            message = str(error["msg"]).removeprefix("Value error, ")
            if not message.startswith("`"):  # pydantic's own words: name the field
                message = f"`{'.'.join(str(p) for p in error['loc'])}`: {message}"
            errors.extend(message.split("\n"))
        return None, errors


def _draft_schema() -> dict[str, Any]:
    text = {"type": "string", "minLength": 1}
    return {
        "type": "object",
        "properties": {
            "summary": text,
            "keywords": {"type": "array", "items": text, "minItems": 1},
            "sections": {"type": "object", "properties": dict.fromkeys(SECTION_KEYS, text),
                         "required": list(SECTION_KEYS), "additionalProperties": False},
            "ratings": {"type": "object", "properties": {k: {"type": "integer", "minimum": 1, "maximum": 5}
                                                         for k in RATING_KEYS},
                        "required": list(RATING_KEYS), "additionalProperties": False},
        },
        "required": ["summary", "keywords", "sections", "ratings"],
        "additionalProperties": False,
    }


DRAFT_SCHEMA: dict[str, Any] = {"name": "draft", "schema": _draft_schema()}
"""What ``response_format`` names for a draft request when the server offers structured output."""
