"""Prompt files (``intake/prompt.py``): every shipped block is filled by the values its callers give, and a
placeholder nobody fills fails loudly, naming the file and line, instead of reaching the model."""
from __future__ import annotations

from importlib import resources
from string import Template

import pytest

from papernotes.errors import PromptError
from papernotes.intake.prompt import Prompt

SHIPPED = sorted(p.name for p in resources.files("papernotes").joinpath("prompts").iterdir()
                 if p.name.endswith(".txt"))


def test_every_shipped_prompt_is_valid() -> None:
    assert len(SHIPPED) >= 7
    for name in SHIPPED:
        stem, lang, _ = name.split(".")
        prompt = Prompt.load(stem, lang)
        assert prompt.blocks, name
        for block, template in prompt.blocks.items():
            assert template.is_valid(), f"{name}: {block}"
            # filled with exactly its own placeholders, every block comes out without a `$name` left
            text = prompt.fill(block, **{k: f"<{k}>" for k in template.get_identifiers()})
            assert all(f"<{k}>" in text for k in template.get_identifiers())


def test_an_unknown_placeholder_names_the_file_and_line() -> None:
    prompt = Prompt.load("draft", "en")
    with pytest.raises(PromptError) as caught:
        prompt.fill("user", title="T", abstract="A", venue="V")  # $authors is not given
    line = prompt.lines["user"]
    assert str(caught.value).startswith(f"prompts/draft.en.txt:{line}: block `user` has the placeholder $authors")
    assert caught.value.exit_code == 2


def test_a_stray_dollar_sign_is_an_error_not_text() -> None:
    prompt = Prompt({"x": Template("costs $5 a month")}, "prompts/x.en.txt", {"x": 3})
    with pytest.raises(PromptError, match=r"prompts/x.en.txt:3: block `x`: .*write \$\$"):
        prompt.fill("x")
    assert Prompt({"x": Template("costs $$5")}, "p", {}).fill("x") == "costs $5"
