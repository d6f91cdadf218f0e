"""LLM edge, replies: what a model must answer a draft request with, as a pydantic model and its JSON schema.

In: the text of a model's reply. Out: a ``DraftReply`` (the summary one sentence, the keywords, every
canonical section, every rating from 1 to 5), a ``ChoiceReply`` (``classify --llm``: a domain of the site's
taxonomy, a confidence, a second choice), or every reason the reply cannot be used, in the words a
repair request quotes back to the model (``read_reply``; a model that needs it gets the taxonomy as
``context``). The same rules as a JSON schema (``DRAFT_SCHEMA``)
go to a server that offers structured output (``[llm] structured_output = true``), so such a server answers
in shape at once; the reply is validated here either way.
"""
from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator, model_validator

from papernotes.corpus.model import RATING_KEYS
from papernotes.corpus.sections import demote_headings
from papernotes.intake.extractive import split_sentences
from papernotes.intake.prompt import json_object
from papernotes.intake.redraft import SECTION_KEYS
from papernotes.taxonomy import Taxonomy, suggest

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


class ChoiceReply(BaseModel):
    """A model's choice of domain for one note (``classify --llm``); validated with ``context={"taxonomy": …}``."""

    model_config = ConfigDict(extra="ignore", validate_default=True)

    domain: str = ""
    """A domain slug of the taxonomy (its slug in any case, or its English or Chinese name, as written)."""
    confidence: float = -1.0
    """From 0 to 1."""
    second: str | None = None
    """The runner-up's slug, ``None`` when there is none (or it is the domain itself)."""

    @field_validator("domain", mode="before")
    @classmethod
    def _domain(cls, value: Any, info: ValidationInfo) -> str:
        taxonomy = info.context["taxonomy"]
        if (slug := domain_slug(value, taxonomy)) is None:
            raise ValueError(f"`domain` must be one of the slugs listed, got {value!r}" + _meant(value, taxonomy))
        return slug

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"`confidence` must be a number from 0 to 1, got {value!r}")
        return float(value)

    @field_validator("second", mode="before")
    @classmethod
    def _second(cls, value: Any, info: ValidationInfo) -> str | None:
        if value in (None, "", "null"):
            return None
        taxonomy = info.context["taxonomy"]
        if (slug := domain_slug(value, taxonomy)) is None:
            raise ValueError(f"`second` must be a slug listed or null, got {value!r}" + _meant(value, taxonomy))
        return slug

    @model_validator(mode="after")
    def _second_is_another(self) -> ChoiceReply:
        if self.second == self.domain:
            self.second = None
        return self


def domain_slug(value: object, taxonomy: Taxonomy) -> str | None:
    """The taxonomy slug ``value`` names (the slug itself, any case, or a domain's English or Chinese name)."""
    if not isinstance(value, str):
        return None
    wanted = value.strip().casefold()
    for d in taxonomy.domains.values():
        if wanted in (d.slug.casefold(), d.en.casefold(), d.zh.casefold()):
            return d.slug
    return None


def _meant(value: object, taxonomy: Taxonomy) -> str:
    close = suggest(value, taxonomy.domains) if isinstance(value, str) else []
    return f" (did you mean {close[0]!r}?)" if close else ""


def read_reply(model: type[M], text: str, context: dict[str, Any] | None = None) -> tuple[M | None, list[str]]:
    """The reply's one JSON object as ``model`` (``context``: what its validators look things up in), or every
    reason it is not one (a message per problem)."""
    data, problem = json_object(text)
    if data is None:
        return None, [problem]
    return validate_data(model, data, context)


def validate_data(model: type[M], data: dict[str, Any], context: dict[str, Any] | None = None
                  ) -> tuple[M | None, list[str]]:
    """``data`` (a reply's JSON object) as ``model``, or every reason it is not one: a validator's own words
    (one message per line it raised), or pydantic's with the field named."""
    try:
        return model.model_validate(data, context=context), []
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
