"""Whole-term phrase matching: which taxonomy phrases a text holds (classify's domains and topics).

In: the phrases of a taxonomy (each with its owner, a domain or topic slug, and a weight) and a list of
other whole terms; then any text. Out: the ``Hit``s, one per phrase the text holds as a whole term.

A text becomes a sequence of terms: each Latin word (its plural ending off, ``text.stem``) and each
Chinese character (``text.is_cjk``), with a note of whether the term is written right after the previous one
(nothing, spaces or hyphens between them: ``chain-of-thought`` is ``chain of thought``). A phrase is such a
sequence too. The text is read left to right and at each place the *longest* known term is taken — a
phrase or one of the other terms — then the reading goes on after it (maximum matching, the usual way to
cut Chinese text into words with a lexicon). So a phrase never matches inside a word (``rl`` in ``curl``),
nor inside a longer term it is part of: with ``位置编码`` among the terms, ``编码`` is not found in
``位置编码``, and with ``generative adversarial`` a rule ``adversarial`` is not found in it.

Built once per taxonomy; ``hits`` costs a few microseconds per hundred characters, since rules run over
every note on a cold build.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from papernotes.text import CJK, LATIN, fold, stem

_TERM = re.compile(f"([{LATIN}]+)|[{CJK}]+")
_GAP = " \t-\u2010\u2011"
"""What may stand between two terms of one phrase: nothing, spaces or hyphens (not a line break or a
punctuation mark, which end a phrase)."""


def terms(text: str) -> tuple[list[str], list[bool]]:
    """The terms of ``text`` (folded and case-folded here) and, for each, whether it follows the previous
    one directly (only spaces or hyphens between them)."""
    folded = fold(text).casefold()
    words: list[str] = []
    joined: list[bool] = []
    end = 0
    for m in _TERM.finditer(folded):
        start = m.start()
        joined.append(start == end or not folded[end:start].strip(_GAP))
        if m.group(1) is None:  # a run of Chinese characters: one term each, each right after the last
            run = m.group(0)
            words.extend(run)
            joined.extend([True] * (len(run) - 1))
        else:
            word = m.group(1)
            words.append(stem(word) if word[-1] == "s" else word)
        end = m.end()
    return words, joined


@dataclass(frozen=True, slots=True)
class Hit:
    """A phrase found in a text."""

    owner: str
    """Slug of the domain or topic whose rule it is."""
    phrase: str
    """The phrase as the taxonomy spells it."""
    weight: float
    """1 for a rule, less for a hint (``hints`` of a domain)."""


class PhraseIndex:
    """Many phrases found at once, each only as a whole term (see the module docstring)."""

    def __init__(self, owned: Iterable[tuple[str, str, float]], others: Iterable[str] = ()) -> None:
        """``owned``: ``(phrase, owner, weight)``; ``others``: whole terms that belong to no owner and hide the
        phrases inside them. A phrase listed twice for one owner keeps its first weight."""
        self.owners: dict[tuple[str, ...], dict[str, tuple[str, float]]] = {}
        for phrase, owner, weight in owned:
            key = self._key(phrase)
            if key:
                self.owners.setdefault(key, {}).setdefault(owner, (phrase, weight))
        keys = set(self.owners) | {k for k in map(self._key, others) if k}
        self.by_first: dict[str, list[tuple[str, ...]]] = {}
        for key in sorted(keys, key=len, reverse=True):  # longest first: the first that fits is the match
            self.by_first.setdefault(key[0], []).append(key)

    @staticmethod
    def _key(phrase: str) -> tuple[str, ...]:
        words, joined = terms(phrase)
        return tuple(words) if all(joined[1:]) else ()  # a phrase with punctuation inside could never match

    def hits(self, text: str) -> list[Hit]:
        """One ``Hit`` per (phrase, owner) that ``text`` holds as a whole term, in the order found."""
        return list(self.counts(text))

    def counts(self, text: str) -> dict[Hit, int]:
        """How many times ``text`` holds each phrase as a whole term, by ``Hit``, in the order found."""
        words, joined = terms(text)
        found: dict[Hit, int] = {}
        i, n = 0, len(words)
        by_first, owners = self.by_first, self.owners
        while i < n:
            step = 1
            for key in by_first.get(words[i], ()):
                k = len(key)
                if tuple(words[i:i + k]) == key and all(joined[i + 1:i + k]):
                    for owner, (phrase, weight) in owners.get(key, {}).items():
                        hit = Hit(owner, phrase, weight)
                        found[hit] = found.get(hit, 0) + 1
                    step = k
                    break
            i += step
        return found
