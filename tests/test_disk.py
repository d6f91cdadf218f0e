"""``disk.write_if_unchanged``: the one "write only if the file is still as it was read" that draft, translate and
classify --apply share."""
from __future__ import annotations

from pathlib import Path

from papernotes.disk import as_read, sha1_hex, write_if_unchanged


def test_a_file_still_as_read_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_text("old", encoding="utf-8")
    assert write_if_unchanged(path, sha1_hex(b"old"), "new") and path.read_text(encoding="utf-8") == "new"
    assert write_if_unchanged(path, sha1_hex(b"new"), lambda data: data.upper()) and path.read_bytes() == b"NEW"


def test_a_file_changed_since_it_was_read_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_text("edited by a person", encoding="utf-8")
    assert not write_if_unchanged(path, sha1_hex(b"what was read"), "draft")
    assert path.read_text(encoding="utf-8") == "edited by a person"
    assert not write_if_unchanged(tmp_path / "gone.md", sha1_hex(b"x"), "draft")  # removed meanwhile
    assert not (tmp_path / "gone.md").exists()


def test_an_absent_file_is_written_only_while_it_stays_absent(tmp_path: Path) -> None:
    path = tmp_path / "foo.en.md"
    assert as_read(path, "") == b""
    assert write_if_unchanged(path, "", "first") and path.read_text(encoding="utf-8") == "first"
    assert not write_if_unchanged(path, "", "second") and path.read_text(encoding="utf-8") == "first"


def test_the_digest_may_cover_more_than_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_bytes(b"abc")
    assert as_read(path, "3", lambda data: str(len(data))) == b"abc"
    assert as_read(path, "4", lambda data: str(len(data))) is None
