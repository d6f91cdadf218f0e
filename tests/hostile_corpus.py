"""The hostile corpus: ``tests/hostile/corpus`` plus what cannot be committed portably, made at run time.

``make(base)`` lays out ``base/outside/`` (files a symlink may point at: they
must never be read) and ``base/work/corpus`` (the committed notes, then file
names with ``:``, ``<``, ``"``, control characters or non-UTF-8 bytes,
symlinks out of the corpus, loops, dangling links, a FIFO, oversized files,
a NUL byte and huge formulas). ``GENERATED_ERRORS`` and ``GENERATED_WARNINGS``
are the diagnostics those additions must give; ``PUBLISHED`` the notes that must
appear on the site.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

HOSTILE = Path(__file__).resolve().parent / "hostile"
EXPECTED = HOSTILE / "expected-errors.txt"
OUTSIDE_TITLE = "OUTSIDE SECRET"
"""Title of the note outside the corpus; it must appear on no page."""

_NOTE = "---\ntitle: {title}\nvenue: ICML2024\ndomain: optimization\nsummary: {summary}\n---\n\n## Method\n{body}\n"
D = "ICML2024/optimization/"


@dataclass(frozen=True)
class Layout:
    base: Path
    corpus: Path
    site: Path
    outside: Path


GENERATED_ERRORS = {
    # path (as diagnostics show it), line, code
    (D + "ctrl\\x1bname.md", 0, "scan"),
    (D + "new\\nline.md", 0, "scan"),
    (D + "\\xff-bytes.md", 0, "scan"),
    (D + "nul_body.md", 11, "nul-byte"),
    (D + "huge.md", 0, "too-large"),
    (D + "big_front.md", 1, "front-matter"),
}
GENERATED_WARNINGS = {
    # path, the start of the message
    ("ICML2024/linked_out", "symlink to "),
    (D + "passwd.md", "symlink to "),
    (D + "evil_link.md", "symlink to "),
    ("ICML2024/loop", "symlink to a folder already read"),
    (D + "up", "symlink to a folder already read"),
    ("mirror", "symlink to a folder already read"),
    (D + "dangling.md", "a dangling symlink"),
    (D + "selfloop.md", "a symlink loop"),
    (D + "dup.md", "the same file as ICML2024/optimization/other_note.md"),
    (D + "fifo.md", "not a regular file"),
}
PUBLISHED = {
    # note page URL -> title shown
    D + "javascript:alert(1)<!--/": "Named javascript:alert(1)",
    D + '"><img src=x onerror=window.__pwned=1>/': "Named with markup",
    D + "linked_in/": "A draft reached through a symlink inside the corpus",
    D + "formula_50k/": "A formula of 50,000 terms",
    D + "dollars/": "A megabyte of dollar signs",
    D + "markdown_subset/": "Markdown subset",
    D + "xss_body/": "Script vectors in a note body",
}


def expected_errors() -> list[str]:
    return [line for line in EXPECTED.read_text(encoding="utf-8").splitlines() if line.strip()]


def _note(title: str, body: str = "Body.", summary: str = "A note.") -> str:
    return _NOTE.format(title=title, summary=summary, body=body)


def make(base: Path) -> Layout:
    """Lay out the hostile corpus under ``base``; returns where everything is."""
    outside = base / "outside"
    outside.mkdir(parents=True)
    (outside / "evil.md").write_text(_note(OUTSIDE_TITLE, "secret body"), encoding="utf-8")
    (outside / "secret.txt").write_text(OUTSIDE_TITLE, encoding="utf-8")
    work = base / "work"
    corpus = work / "corpus"
    shutil.copytree(HOSTILE / "corpus", corpus)
    notes = corpus / D

    # names that cannot be committed on every system
    (notes / "javascript:alert(1)<!--.md").write_text(_note('"Named javascript:alert(1)"'), encoding="utf-8")
    (notes / '"><img src=x onerror=window.__pwned=1>.md').write_text(_note('"Named with markup"'), encoding="utf-8")
    (notes / "ctrl\x1bname.md").write_text(_note("Control character in the name"), encoding="utf-8")
    (notes / "new\nline.md").write_text(_note("Newline in the name"), encoding="utf-8")
    with open(os.fsencode(notes) + b"/\xff-bytes.md", "wb") as handle:
        handle.write(_note("Name that is not UTF-8").encode())

    # limits
    (notes / "nul_body.md").write_bytes(_note("NUL byte", "line\n\nthe NUL: \0 here").encode())
    (notes / "huge.md").write_text(_note("Over the size limit", "x" * (2 * 1024 * 1024 + 1)), encoding="utf-8")
    (notes / "big_front.md").write_text("---\ntitle: Big front matter\nvenue: ICML2024\ndomain: optimization\n"
                                        + "".join(f"k{i}: {'v' * 60}\n" for i in range(1200)) + "---\nBody\n",
                                        encoding="utf-8")
    terms = "+".join(f"x_{{{i}}}^{{2}}" for i in range(50_000))
    (notes / "formula_50k.md").write_text(_note('"A formula of 50,000 terms"', f"$$\n{terms}\n$$\n\n\\[{terms}\\]"),
                                          encoding="utf-8")
    (notes / "dollars.md").write_text(_note('"A megabyte of dollar signs"', "$" * 1_000_000 + "\n\n" + "\\[" * 100_000),
                                      encoding="utf-8")

    # symlinks and other special files
    (corpus / "ICML2024/linked_out").symlink_to(outside, target_is_directory=True)
    (notes / "passwd.md").symlink_to("/etc/passwd")
    (notes / "evil_link.md").symlink_to(outside / "evil.md")
    (corpus / "ICML2024/loop").symlink_to(".", target_is_directory=True)
    (notes / "up").symlink_to("../..", target_is_directory=True)
    (corpus / "mirror").symlink_to("ICML2024", target_is_directory=True)
    (notes / "dangling.md").symlink_to("missing.md")
    (notes / "selfloop.md").symlink_to("selfloop.md")
    (notes / "dup.md").symlink_to("other_note.md")
    (notes / "linked_in.md").symlink_to("../../_drafts/linked_in.md")
    os.mkfifo(notes / "fifo.md")
    return Layout(base, corpus, work / "site", outside)
