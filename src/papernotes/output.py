"""Output edge: atomic file writes and whole-site staging.

Every write the project makes to a user's disk goes through here. A single file
is written to a temporary name and renamed over the target. A site is built in a
staging directory next to the output (seeded with hard links to the previous
build, so unchanged pages cost nothing) and swapped in at the end: a failing or
killed build leaves the previous site exactly as it was.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import tempfile
from pathlib import Path

from .errors import BuildError

MARKER = ".papernotes-site"
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a mix."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directories (Linux renameat2); False when unsupported."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        func = libc.renameat2
    except (OSError, AttributeError):
        return False
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rc = func(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return rc == 0


def link_tree(src: Path, dst: Path) -> None:
    """Recreate ``src`` under ``dst`` with hard links (falls back to copies across devices)."""
    src_s = str(src)
    cut = len(src_s) + 1
    for dirpath, dirnames, filenames in os.walk(src_s):
        rel = dirpath[cut:]
        target = os.path.join(dst, rel) if rel else str(dst)
        os.makedirs(target, exist_ok=True)
        for name in filenames:
            if name == MARKER:
                continue
            s = os.path.join(dirpath, name)
            d = os.path.join(target, name)
            try:
                os.link(s, d)
            except OSError:
                shutil.copy2(s, d)


class Staging:
    """A staging directory that becomes the output directory on ``commit``."""

    def __init__(self, out: Path) -> None:
        self.out = out.resolve()
        self.tmp = self.out.with_name(f".{self.out.name}.building")
        self.old = self.out.with_name(f".{self.out.name}.old")
        self._made: set[str] = set()

    def check_target(self, corpus: Path) -> None:
        corpus = corpus.resolve()
        if self.out == corpus or corpus.is_relative_to(self.out):
            raise BuildError(f"{self.out}: the output directory must not contain the corpus")
        if self.out.exists():
            if not self.out.is_dir():
                raise BuildError(f"{self.out}: exists and is not a directory")
            if not (self.out / MARKER).exists() and any(self.out.iterdir()):
                raise BuildError(f"{self.out}: not empty and not built by papernotes; "
                                 "refusing to replace it (choose another -o or empty it)")

    def has_previous(self) -> bool:
        return (self.out / MARKER).exists()

    def begin(self, reuse_previous: bool) -> None:
        for leftover in (self.tmp, self.old):
            if leftover.exists():
                shutil.rmtree(leftover)
        if reuse_previous and self.has_previous():
            link_tree(self.out, self.tmp)
        else:
            self.tmp.mkdir(parents=True)

    def path(self, rel: str) -> Path:
        return self.tmp / rel

    def write(self, rel: str, data: bytes) -> None:
        """Write a staged file; never writes through a hard link into the live site."""
        target = self.tmp / rel
        parent = os.path.dirname(target)
        if parent not in self._made:
            os.makedirs(parent, exist_ok=True)
            self._made.add(parent)
        try:
            os.unlink(target)
        except FileNotFoundError:
            pass
        with open(target, "wb") as handle:
            handle.write(data)

    def remove(self, rel: str) -> None:
        target = self.tmp / rel
        try:
            os.unlink(target)
        except FileNotFoundError:
            return
        parent = target.parent
        while parent != self.tmp:
            try:
                parent.rmdir()
            except OSError:
                break
            parent = parent.parent

    def commit(self, marker: dict[str, object]) -> None:
        (self.tmp / MARKER).write_text(json.dumps(marker), encoding="utf-8")
        if self.out.exists():
            if _exchange(self.tmp, self.out):
                shutil.rmtree(self.tmp, ignore_errors=True)
                return
            os.rename(self.out, self.old)
            os.rename(self.tmp, self.out)
            shutil.rmtree(self.old, ignore_errors=True)
        else:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            os.rename(self.tmp, self.out)

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)
