"""The text primitives (papernotes.text) and that every component takes its CJK range from them."""
from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

import papernotes
from papernotes import text
from papernotes.intake.engines._paper import estimate_tokens
from papernotes.intake.extractive import tokens as extractive_tokens
from papernotes.intake.paper.front import is_name
from papernotes.markdown import normalise_math
from papernotes.site.search.tokenize import field_terms
from papernotes.text import (
    CJK_RANGES,
    FUNCTION_WORDS,
    STOP_WORDS,
    cjk_runs,
    compounds,
    fold,
    is_cjk,
    latin_words,
    ngrams,
    stem,
    strip_accents,
)

EXT_A = "\u3400\u4e00\u4dbf"  # 㐀 (first of Extension A), 一 (first of the main block), 䶿 (last of Extension A)
HEXAGRAM = "\u4dc0"  # between Extension A and the main block: a symbol, not a character


def test_extension_a_is_chinese_everywhere() -> None:
    assert [is_cjk(c) for c in EXT_A + HEXAGRAM + "\u9fff\ua000\u33ff"] == [True, True, True, False, True, False, False]
    assert all(is_cjk(chr(lo)) and is_cjk(chr(hi)) and not is_cjk(chr(lo - 1)) for lo, hi in CJK_RANGES)
    assert cjk_runs(f"x{EXT_A}y{HEXAGRAM}模型") == [EXT_A, "模型"]
    assert ngrams(EXT_A, 2) == ["\u3400\u4e00", "\u4e00\u4dbf"] and ngrams("模", 2) == []
    # each component's terms hold Extension A characters (the extractive drafter's used to drop them)
    assert field_terms(EXT_A) == ["\u3400\u4e00", "\u4e00\u4dbf"]
    assert extractive_tokens(EXT_A) == ["\u3400\u4e00", "\u4e00\u4dbf"]
    learned = pytest.importorskip("papernotes.classify.learned")
    assert learned._tokens(EXT_A) == ["\u3400\u4e00", "\u4e00\u4dbf"]
    # and in the other tests of "is this Chinese": a parenthesis holding Chinese is no formula, a name, a token each
    assert normalise_math(r"a \(x^2\) b") == "a $x^2$ b"
    assert normalise_math("a \\(x^2 \u3400\\) b") == "a \\(x^2 \u3400\\) b"
    assert is_name("\u3400\u4e00") and not is_name("\u4dc0\u4e00")
    assert estimate_tokens(EXT_A) == 3


def test_compatibility_ideographs_fold_or_count_as_chinese() -> None:
    compat = "\uf900\uf901"  # 豈 更, twins of U+8C48 and U+66F4
    assert cjk_runs(compat) == [compat]  # text as written
    assert fold(compat) == "\u8c48\u66f4" and field_terms(compat) == ["\u8c48\u66f4"]  # search folds first
    assert fold("ＬｏＲＡ ﬁne") == "LoRA fine" and fold("plain") == "plain"


@pytest.mark.parametrize(("word", "expected"), [
    ("models", "model"), ("policies", "policy"), ("classes", "class"), ("losses", "loss"), ("ties", "tie"),
    ("focus", "focus"), ("analysis", "analysis"), ("gas", "gas"), ("class", "class"), ("llms", "llm"),
    ("is", "is"), ("model", "model"),
])
def test_stem_takes_plural_endings_off(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_stop_words_are_one_list_and_its_extension() -> None:
    assert STOP_WORDS < FUNCTION_WORDS
    assert {"the", "of", "via"} <= STOP_WORDS and not {"however", "not"} & STOP_WORDS
    assert {"however", "not", "whether"} <= FUNCTION_WORDS
    assert field_terms("the model via however") == ["model", "however"]  # search drops the common ones only
    assert extractive_tokens("the model via however") == ["model"]  # the drafter every function word
    assert "的" in text.CHINESE_STOP_CHARACTERS


def test_the_query_side_has_the_same_stop_words_and_cjk_range() -> None:
    core = (resources.files("papernotes") / "static" / "search-core.js").read_text(encoding="utf-8")
    listed = re.search(r"var STOP = \{\};\s*\((.*?)\)\.split", core, re.S)
    assert listed is not None
    assert set("".join(re.findall(r'"([^"]*)"', listed.group(1))).split()) == STOP_WORDS
    ranges = _cjk_ranges(core)
    assert len(ranges) >= 5 and set(ranges) == set(CJK_RANGES)


def test_mixed_scripts() -> None:
    mixed = "基于GPT-4的检索 with Rényi LoRA-based text-to-image 㐀㐁"
    low = mixed.lower()
    assert latin_words(low) == ["gpt", "4", "with", "rényi", "lora", "based", "text", "to", "image"]
    assert latin_words(low, "-") == ["gpt-4", "with", "rényi", "lora-based", "text-to-image"]
    assert latin_words("rényi a--b c-+d", "[-+]+", accents=False) == ["r", "nyi", "a--b", "c-+d"]
    assert compounds(low) == ["gpt4", "lorabased", "texttoimage"]
    assert cjk_runs(mixed) == ["基于", "的检索", "㐀㐁"]
    assert strip_accents("rényi") == "renyi"
    assert field_terms(mixed) == ["gpt", "4", "renyi", "lora", "based", "text", "image", "gpt4", "lorabased",
                                  "texttoimage", "基于", "的检", "检索", "㐀㐁"]


_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})-\\u([0-9a-fA-F]{4})")
_LITERAL = re.compile(r"([\u3400-\u9fff])-([\u3400-\u9fff])")
_BOUND = re.compile(r"\b0x(?:33ff|3400|4dbf|4e00|9fff)\b", re.I)
"""A bound of the CJK ranges written as a number (numpy code)."""


def _cjk_ranges(source: str) -> list[tuple[int, int]]:
    """Character ranges, written with ``\\u`` escapes or as characters, that overlap the CJK ideographs."""
    found = [(int(a, 16), int(b, 16)) for a, b in _ESCAPE.findall(source)]
    found += [(ord(a), ord(b)) for a, b in _LITERAL.findall(source)]
    return [(lo, hi) for lo, hi in found if lo <= 0x9FFF and hi >= 0x3400]


def test_no_cjk_range_outside_the_text_module() -> None:
    package = Path(papernotes.__file__).parent
    sources = sorted(package.rglob("*.py"))
    assert len(sources) > 100 and _cjk_ranges(Path(text.__file__).read_text(encoding="utf-8"))  # WIDE
    assert _cjk_ranges(r'"[\u4e00-\u9fff]" "[一-龥]" "[\u1100-\u11ff]"') == [(0x4E00, 0x9FFF), (0x4E00, 0x9FA5)]
    assert _BOUND.search("chars - 0x4E00 <= 0x51FF") and not _BOUND.search("0x4E001")
    offenders = [str(p.relative_to(package)) for p in sources if p != Path(text.__file__)
                 and (_cjk_ranges(source := p.read_text(encoding="utf-8")) or _BOUND.search(source))]
    assert offenders == [], "write CJK ranges in papernotes/text.py and import them"
