"""Output edge: atomic file writes and whole-site staging.

A top-level module, below the stage packages, so that every stage (intake,
classify, check, site, migrate) writes through this one module.

Every write the project makes to a user's disk goes through here. A single file
is written to a temporary name and renamed over the target. A site is built in a
staging directory next to the output (seeded with hard links to the previous
build, so unchanged pages cost nothing) and swapped in at the end: a failing or
killed build leaves the previous site exactly as it was.

Every path written, moved or removed is checked to stay inside the site root
(``paths.safe_relpath``, and the resolved folder when moving into the live
site): the resolve stage already refuses unsafe URLs, so this guard never
fires for a planned page; it stops a bug or a tampered journal from writing
anywhere else.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from papernotes.errors import BuildError
from papernotes.paths import PATH_MAX, safe_relpath
from papernotes.testhooks import pause

MARKER = ".papernotes-site"
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def atomic_write(path: Path, data: bytes | str, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a mix. ``durable=False``
    skips the ``fsync`` (a cache, which a crash may lose but never sees half-written)."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if durable:
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


def sha1_hex(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def as_read(path: Path, digest: str, digest_of: Callable[[bytes], str] = sha1_hex) -> bytes | None:
    """The bytes of ``path`` if they are still the ones read (``digest_of`` them is ``digest``; ``digest`` ``""``:
    the file must still be absent, and ``b""`` stands for it), ``None`` if the file changed or cannot be read."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return b"" if digest == "" else None
    except OSError:
        return None
    return data if digest and digest_of(data) == digest else None


def write_if_unchanged(path: Path, digest: str, data: bytes | str | Callable[[bytes], bytes | str],
                       digest_of: Callable[[bytes], str] = sha1_hex) -> bool:
    """Write ``data`` (or what it makes of the bytes read) atomically to ``path`` only if the file is still as it
    was read (``as_read``): a note a person saved while a draft, a translation or a classification was being made
    is never overwritten. ``False``: nothing was written."""
    current = as_read(path, digest, digest_of)
    if current is None:
        return False
    atomic_write(path, data(current) if callable(data) else data)
    return True


_HELD: set[int] = set()
"""File descriptors of the ``exclusive`` locks this process holds."""


def _forget_held_locks() -> None:
    """In a forked child (render workers, the search child…): close its copies of the lock files. A ``flock`` lives
    as long as any copy of its descriptor, so a child that outlived a killed build would hold the lock on."""
    for fd in _HELD:
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_held_locks)


@contextmanager
def exclusive(lock: Path, what: str, waiting: Callable[[str], None] | None = None) -> Iterator[bool]:
    """Hold an exclusive lock on the file ``lock`` while the block runs: a second process (or thread) asking
    for it waits, after ``waiting`` was told why in one line naming the holder's PID and the lock. Yields
    whether it had to wait. An OS lock (``flock``): the kernel lets go of it when the holder ends, however it
    ends, so a killed build never leaves a stale lock behind (the file it may leave is taken over as it is).
    The file is made for the block and removed at its end, while still held: one who waited on it then finds
    it gone and takes the one there now (``_lock_file``)."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd, waited = _lock_file(lock, what, waiting)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _HELD.add(fd)
        yield waited
    finally:
        _HELD.discard(fd)
        try:
            os.unlink(lock)
        except FileNotFoundError:
            pass
        os.close(fd)  # lets go of the lock


def _lock_file(lock: Path, what: str, waiting: Callable[[str], None] | None) -> tuple[int, bool]:
    """An open descriptor of ``lock`` holding its ``flock``, the file still at that path; whether it waited."""
    waited = False
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not waited:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                    if waiting is not None:
                        waiting(f"waiting for another build of {what} to finish (PID {holder or '?'} holds {lock})")
                    pause("lock.wait")
                    waited = True
                fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                there = os.stat(lock)
            except FileNotFoundError:
                there = None
            if there is not None and (there.st_dev, there.st_ino) == (held.st_dev, held.st_ino):
                return fd, waited
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # its holder removed it as it let go: take the one at that path now


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directories (Linux renameat2); False when unsupported."""
    import ctypes
    import ctypes.util

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


def _discard(path: Path) -> None:
    """Delete a directory tree without waiting (large trees take seconds on slow disks).

    The ``rm`` started holds a lock on the tree until it exits, so a build that starts meanwhile
    (and finds the tree still there) leaves it to that ``rm`` instead of starting another on it.
    """
    rm = shutil.which("rm")
    if not rm or os.name != "posix":
        shutil.rmtree(path, ignore_errors=True)
        return
    import subprocess

    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return  # gone already
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # being deleted
        # the lock belongs to the open directory, which the child inherits and keeps until it exits
        subprocess.Popen([rm, "-rf", "--", str(path)], start_new_session=True, pass_fds=(fd,),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        os.close(fd)


def _outside(rel: str, root: Path) -> BuildError:
    return BuildError(f"{root}: refusing to write {rel!r}, a path outside the site (a bug in papernotes, or a "
                      "tampered journal: delete the output directory's .journal file and rebuild)")


def output_path(url: str) -> str:
    """The file behind a site-relative URL: directories get their ``index.html``."""
    return url + "index.html" if url == "" or url.endswith("/") else url


class Staging:
    """Stages a build next to the output directory and publishes it at the end.

    Full build: pages go to a fresh directory that is swapped with the output
    directory in one rename. Incremental build: changed pages go to a flat
    staging directory; ``commit`` writes a journal of the moves, then renames
    each staged file over its target (a few renames for a one-note edit). A
    build that fails or is killed before ``commit`` leaves the site untouched;
    one killed during the moves is completed from the journal by the next build.
    """

    def __init__(self, out: Path) -> None:
        self.out = out.resolve()
        name = self.out.name
        self.tmp = self.out.with_name(f".{name}.building")
        self.staged = self.out.with_name(f".{name}.staging")
        self.journal = self.out.with_name(f".{name}.journal")
        self.lock = self.out.with_name(f".{name}.lock")
        """Held while a build works on the site (``exclusive``): two builds into one output take turns."""
        self.incremental = False
        self._made: set[str] = set()
        self._ops: list[tuple[str, str]] = []

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

    @property
    def site_key(self) -> str:
        """Identifies the output directory in the build cache."""
        return str(self.out)

    def has_previous(self) -> bool:
        return (self.out / MARKER).exists()

    def publish_id(self) -> str:
        """The ``publish`` of the marker the last commit wrote (``commit``): which build's publish the site shows."""
        try:
            marker = json.loads((self.out / MARKER).read_bytes())
        except (OSError, ValueError):
            return ""
        return str(marker.get("publish", "")) if isinstance(marker, dict) else ""

    def recover(self) -> None:
        """Finish a publish interrupted by a crash; drop stages of builds that never committed."""
        if self.journal.exists():
            try:
                ops = json.loads(self.journal.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                ops = []
            self._apply([tuple(op) for op in ops])  # type: ignore[misc]
            self.journal.unlink(missing_ok=True)
        for leftover in (self.tmp, self.staged):
            if leftover.exists():
                shutil.rmtree(leftover, ignore_errors=True)
        for old in self.out.parent.glob(f".{self.out.name}.old-*"):
            _discard(old)

    def begin(self, incremental: bool) -> None:
        self.recover()
        self._ops, self._made = [], set()  # a Builder publishes many times (serve, or pages then search)
        self.incremental = incremental and self.has_previous()
        (self.staged if self.incremental else self.tmp).mkdir(parents=True)

    def path(self, rel: str) -> Path:
        return self.tmp / rel

    def _staged_name(self, rel: str) -> str:
        return hashlib.blake2b(rel.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()

    def _checked(self, rel: str) -> str:
        if not safe_relpath(rel) or len(os.fsencode(self.out)) + len(rel.encode("utf-8")) + 32 > PATH_MAX:
            raise _outside(rel, self.out)
        return rel

    def _target(self, rel: str) -> str:
        """Where the file for ``rel`` is staged (its folder made)."""
        self._checked(rel)
        if self.incremental:
            return os.path.join(self.staged, self._staged_name(rel))
        target = os.path.join(self.tmp, rel)
        parent = os.path.dirname(target)
        if parent not in self._made:
            os.makedirs(parent, exist_ok=True)
            self._made.add(parent)
        return target

    def write(self, rel: str, data: bytes) -> None:
        with open(self._target(rel), "wb") as handle:
            handle.write(data)

    def link(self, rel: str, source: str) -> None:
        """Put the file ``source`` (an image of the figure cache, never rewritten in place) at ``rel``: a hard
        link, or a copy where the site is on another file system."""
        target = self._target(rel)
        try:
            os.link(source, target)
        except OSError:  # another file system, or links refused: a copy
            shutil.copyfile(source, target)

    def planned_writes(self, rels: list[str]) -> None:
        """Record the files written (possibly by worker processes) for the incremental journal."""
        self._ops.extend((self._staged_name(self._checked(rel)), rel) for rel in rels)

    def remove(self, rel: str) -> None:
        if self.incremental:
            self._ops.append(("", self._checked(rel)))

    def _apply(self, ops: list[tuple[str, str]]) -> None:
        root = os.path.realpath(self.out)
        for staged, rel in ops:
            target = self.out / self._checked(rel)
            if not os.path.realpath(target.parent).startswith(root + os.sep) and target.parent != self.out:
                raise _outside(rel, self.out)
            if not staged:
                try:
                    target.unlink()
                except FileNotFoundError:
                    continue
                parent = target.parent
                while parent != self.out:
                    try:
                        parent.rmdir()
                    except OSError:
                        break
                    parent = parent.parent
                continue
            source = self.staged / staged
            if source.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(source, target)
            pause("publish.move")

    def commit(self, marker: dict[str, object]) -> None:
        marker_bytes = json.dumps(marker).encode("utf-8")
        if self.incremental:
            atomic_write(self.journal, json.dumps(self._ops))
            pause("publish.journal")
            self._apply(self._ops)
            atomic_write(self.out / MARKER, marker_bytes)
            self.journal.unlink()
            shutil.rmtree(self.staged, ignore_errors=True)
            return
        (self.tmp / MARKER).write_bytes(marker_bytes)
        pause("publish.swap")
        if self.out.exists():
            old = self.out.with_name(f".{self.out.name}.old-{os.getpid()}-{time.time_ns()}")
            if _exchange(self.tmp, self.out):
                os.rename(self.tmp, old)
            else:
                os.rename(self.out, old)
                os.rename(self.tmp, self.out)
            _discard(old)
        else:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            os.rename(self.tmp, self.out)

    def abort(self) -> None:
        shutil.rmtree(self.staged if self.incremental else self.tmp, ignore_errors=True)
