"""Draft stage, words: which English words may be part of a keyphrase, without a part-of-speech tagger.

In: a word, and the word before it. Out: whether it is a stopword, reads as a
verb form or an adverb (both end a phrase, the way stopwords do), and whether
it may start or end a keyphrase (a phrase ends with a noun, never with an
adjective of degree, a participle or a compound like ``IO-aware``).

The lists are data (``papernotes/data/extractive.toml``; the stop words are
``papernotes.text.FUNCTION_WORDS``, shared with search's); the rules are
suffixes: an ``-ing`` or ``-ed`` word is a verb form unless the lists know it
as a term (``learning``, ``supervised``) or it is hyphenated (``fine-tuning``);
an ``-ly`` word is an adverb; a lowercase ``-s`` word right after an adverb,
a relative pronoun or the paper's own name is a verb (``rarely needs``,
``which freezes``, ``Jackpot reduces``). Words with inner capitals or digits
(``LoRA``, ``GPT-4``) are names and always welcome.
"""
from __future__ import annotations

import tomllib
from importlib import resources

from papernotes.text import FUNCTION_WORDS

DATA = tomllib.loads((resources.files("papernotes") / "data" / "extractive.toml").read_text(encoding="utf-8"))
"""The word lists of ``papernotes/data/extractive.toml`` (its ``[parts]`` table is read by ``papernotes.intake.parts``)."""


def _words(key: str) -> frozenset[str]:
    return frozenset(DATA[key].split())


GENERIC = _words("generic")
ADJECTIVES = _words("adjectives")
ING_TERMS = _words("ing_terms")
ED_TERMS = _words("ed_terms")
LY_TERMS = _words("ly_terms")
ADVERBS = _words("adverbs")
COMPOUND_ADJECTIVES = _words("compound_adjectives")
SUBJECTS = _words("subjects")
COMMON_ACRONYMS = _words("common_acronyms")
TITLE_LEADS = _words("title_leads")
_ADJECTIVE_ENDINGS = ("able", "ible", "ous", "ful")
_NOUN_EXCEPTIONS = frozenset("variable variables table tables cable".split())


def _inflect(base: str) -> set[str]:
    """Base, third person, past and -ing forms of a regular verb."""
    if base.endswith("y") and base[-2:-1] not in ("a", "e", "o", "u"):
        third, past = base[:-1] + "ies", base[:-1] + "ied"
    else:
        third = base + ("es" if base.endswith(("s", "x", "z", "ch", "sh")) else "s")
        past = base + ("d" if base.endswith("e") else "ed")
    ing = (base[:-1] if base.endswith("e") and not base.endswith("ee") else base) + "ing"
    return {base, third, past, ing}


VERB_FORMS = frozenset({form for base in _words("verbs") for form in _inflect(base)} | _words("verb_forms"))


def is_name(word: str) -> bool:
    """Shaped like a name: inner capitals or digits (LoRA, GPT-4, SWE-bench)."""
    return any(c.isupper() or c.isdigit() for c in word[1:])


def _plural_like(low: str) -> bool:
    return low.endswith("s") and not low.endswith(("ss", "us", "is", "ics", "as", "os"))


def is_adverb(word: str) -> bool:
    low = word.casefold()
    if is_name(word) or "-" in word:
        return False
    return low in ADVERBS or (len(low) > 4 and low.endswith("ly") and low not in LY_TERMS)


def is_verb(word: str, prev: str = "", name: str = "") -> bool:
    """``word`` reads as a verb form here: a keyphrase cannot contain it."""
    low = word.casefold()
    if is_name(word) or low in ING_TERMS or low in ED_TERMS:
        return False
    if low in VERB_FORMS:
        return True
    if "-" in word:
        return False
    if (len(low) > 5 and low.endswith("ing")) or (len(low) > 4 and low.endswith("ed") and not low.endswith("eed")):
        return True
    # "rarely needs", "which freezes", "Jackpot reduces": a subject or an adverb, then a verb
    return word.islower() and _plural_like(low) and bool(prev) and (
        is_adverb(prev) or prev.casefold() in SUBJECTS or (bool(name) and prev.casefold() == name.casefold()))


def breaks(word: str, prev: str = "", name: str = "") -> bool:
    """``word`` ends a keyphrase the way a stopword does: a function word, a verb form or an adverb."""
    low = word.casefold()
    return low in FUNCTION_WORDS or is_adverb(word) or is_verb(word, prev, name)


def can_start(word: str, after: str = "") -> bool:
    """``word`` may start a keyphrase whose next word is ``after``: not an adjective of degree; before
    other words, not a lowercase plural (a verb: "diminishes LM versatility"; a count: "times A100
    machine"), nor an ``-ing`` word before an adjective (a verb: "training reliable models")."""
    low = word.casefold()
    if after and word.islower() and "-" not in word and (
            _plural_like(low) or (low.endswith("ing") and not can_end(after) and after.casefold() not in GENERIC)):
        return False
    return low not in GENERIC and low not in ADJECTIVES


def can_end(word: str) -> bool:
    """A keyphrase ends with a noun: not an adjective, not ``IO-aware`` or ``LLM-based``."""
    low = word.casefold()
    if low in GENERIC or low in ADJECTIVES:
        return False
    if is_name(word) and "-" not in word:
        return True
    tail = low.rsplit("-", 1)[-1]
    if "-" in low and (tail in COMPOUND_ADJECTIVES or (tail.endswith("ed") and not tail.endswith("eed"))):
        return False
    return low in _NOUN_EXCEPTIONS or not low.endswith(_ADJECTIVE_ENDINGS)
