"""Check stage, front matter: a note's title, authors and abstract are plausible, however the note was made (pure).

In: the parsed notes. Out: warnings (``check`` still exits 0 on them), each at
the key's line:

- ``implausible-title``: the title is math, a caption, more than 40 words… (``intake.plausible``);
- ``no-authors``: the note names no author, or one that is not a name (digits, an e-mail, an affiliation);
- ``abstract-leak``: the abstract holds a section heading ("1 INTRODUCTION") or a footnote;
- ``review``: the note carries ``review:`` (``ingest pdf`` and ``new --pdf`` write it when a PDF's first page
  did not give its title or authors plainly); the warning goes once a person has looked and removed the key.

A translation (``foo.en.md``) shares its original's authors and is checked for its title and abstract only.
The grounding count ``check --grounding`` prints vouches for a note's numbers, not for these fields: a note with
such a warning has it listed beside the count.
"""
from __future__ import annotations

from collections.abc import Sequence

from papernotes.corpus.model import Note
from papernotes.errors import Diagnostic, warning
from papernotes.intake.plausible import abstract_problem, authors_problem, title_problem


def front_matter_problems(notes: Sequence[Note]) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    for note in notes:
        if note.title and (why := title_problem(note.title)) is not None:
            problems.append(warning(note.path, note.line_of("title"), f"the title is not plausible ({why}); "
                                    "correct it from the paper", "implausible-title"))
        if note.translation_of is None and (why := authors_problem(note.authors)) is not None:
            problems.append(warning(note.path, note.line_of("authors") or note.line_of("title"),
                                    f"{why}: list the paper's authors under `authors:`", "no-authors"))
        if note.abstract and (why := abstract_problem(note.abstract)) is not None:
            problems.append(warning(note.path, note.line_of("abstract"), f"the abstract is not all abstract: {why}",
                                    "abstract-leak"))
        if review := note.extra.get("review"):
            problems.append(warning(note.path, note.line_of("review"), f"marked for review: {review}; remove "
                                    "`review:` once the title, authors and abstract are checked", "review"))
    return problems
