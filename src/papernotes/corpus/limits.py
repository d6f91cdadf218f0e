"""Load stage, input bounds: what one note file may be before anything parses it (pure).

In: a note's path and its bytes (at most ``MAX_NOTE_BYTES + 1`` are read). Out:
``None``, or the ``path:line: error:`` diagnostic that keeps the file out of
the site. Notes are untrusted: a file that is huge, holds a NUL byte (which no
text note has, and which must never reach a page) or opens with a front matter
too long to be one is refused before the YAML parser and the Markdown engine
see it. The other bounds sit where their data is used: URL lengths and the
number of aliases in ``paths.py``, formula spans in ``markdown.py``.
"""
from __future__ import annotations

from papernotes.errors import Diagnostic, error

MAX_NOTE_BYTES = 2 * 1024 * 1024
"""A note file above this size is refused (the largest of the 3,248 reference notes is 0.5 MB)."""
MAX_FRONT_MATTER_BYTES = 64 * 1024
"""The YAML block between the ``---`` lines; real front matter is well under 4 KB."""


def check_note_bytes(path: str, data: bytes) -> Diagnostic | None:
    """The reason the note file ``data`` (read up to one byte past the size limit) is refused, if any."""
    if len(data) > MAX_NOTE_BYTES:
        return error(path, 0, f"file is larger than {MAX_NOTE_BYTES // (1024 * 1024)} MB; a note is a page of "
                              "text, not a data file", "too-large")
    nul = data.find(b"\0")
    if nul >= 0:
        return error(path, data.count(b"\n", 0, nul) + 1, "NUL byte in the file: notes are text, "
                                                          "remove it (or the file is not a note)", "nul-byte")
    if len(data) > MAX_FRONT_MATTER_BYTES and data.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        window = data[:MAX_FRONT_MATTER_BYTES]
        if b"\n---" not in window and b"\n..." not in window:
            return error(path, 1, f"front matter is longer than {MAX_FRONT_MATTER_BYTES // 1024} KB "
                                  "(or its closing `---` line is missing)", "front-matter")
    return None
