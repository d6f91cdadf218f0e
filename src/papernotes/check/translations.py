"""Check stage, translations: every ``foo.en.md`` / ``foo.zh.md`` against its original ``foo.md`` (pure).

In: the parsed notes and the parse diagnostics. Out: diagnostics.

Errors: a translation without an original, in its original's language, or
with another id, venue, domain or slug (a translation is the same paper, at
the same URL in the other edition). Warnings: a stale translation (its
``translation_of.digest`` is not the original's ``text_digest`` any more: the
original's title, summary, keywords or body changed since), a translation
that records no digest (nobody can tell whether it is stale), and a link of
the same kind pointing elsewhere than the original's (not the same paper?).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from papernotes.corpus.model import Note
from papernotes.errors import Diagnostic, error, warning

SHARED = ("id", "venue", "domain", "slug")
"""What a translation must have exactly as its original."""


def translation_problems(notes: Sequence[Note], parse_problems: Iterable[Diagnostic] = ()) -> list[Diagnostic]:
    originals = {n.path: n for n in notes if n.translation_of is None}
    unparsed = {d.path for d in parse_problems if d.is_error} - set(originals)
    problems: list[Diagnostic] = []
    for note in notes:
        record = note.translation_of
        if record is None:
            continue
        name = record.original.rsplit("/", 1)[-1]
        original = originals.get(record.original)
        if original is None:
            if record.original not in unparsed:  # an original that does not parse has its own error
                problems.append(error(note.path, 1, f"translation without an original: there is no {name} beside it",
                                      "translation-orphan"))
            continue
        if note.lang == original.lang:
            problems.append(error(note.path, note.line_of("lang"), f"a translation in the language of its original "
                                  f"({note.lang}): {name} is in {original.lang} too", "translation-mismatch"))
        for key in SHARED:
            mine, theirs = getattr(note, key), getattr(original, key)
            if mine != theirs:
                problems.append(error(note.path, note.line_of(key), f"`{key}` is {mine!r} but {name} has {theirs!r}; "
                                      f"a translation shares its original's {key}", "translation-mismatch"))
        if not record.digest:
            problems.append(warning(note.path, note.line_of("translation_of"),
                                    f"no `translation_of: {{digest: …}}`: nobody can tell whether {name} changed "
                                    "since it was translated", "translation-unrecorded"))
        elif record.digest != original.text_digest:
            problems.append(warning(note.path, note.line_of("translation_of"),
                                    f"translation is stale: {name} changed since it was translated", "translation-stale"))
        theirs_links = dict(original.links)
        for kind, url in note.links:
            if kind in theirs_links and theirs_links[kind] != url:
                problems.append(warning(note.path, note.line_of("links"), f"link `{kind}` is {url} but {name} has "
                                        f"{theirs_links[kind]}; is it the same paper?", "translation-differs"))
    return problems
