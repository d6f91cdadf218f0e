"""Load stage, the files: which note files a corpus has, and reading one without leaving the corpus.

I/O edge of the pipeline. ``scan`` walks the tree once (every note file by its
own path, links inside the corpus followed after the plain tree, anything that
leaves the corpus or cannot be a page refused with why) and ``scan_corpus``
packs what it found for the cache to compare; ``read_inside`` reads a file only
once the path of what was opened is known to lie inside the corpus.
"""
from __future__ import annotations

import errno
import hashlib
import heapq
import marshal
import os
import re
import signal
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain, repeat
from pathlib import Path
from typing import NamedTuple

from papernotes import forks
from papernotes.cache_records import columns, rows
from papernotes.errors import CorpusError
from papernotes.layout import LANGUAGES, paper_of


SKIP_FILES = {"README.md", "readme.md", "CHANGELOG.md", "LICENSE.md"}



class SourceFile(NamedTuple):
    """A note file found by ``scan`` (a tuple: tens of thousands are made on every build)."""

    path: str
    """Relative to the corpus root, ``/``-separated."""
    mtime_ns: int
    size: int


class Refused(NamedTuple):
    """An entry ``scan`` saw but will not let anyone read, and why (a symlink out of the corpus, a loop…)."""

    path: str
    """Relative to the corpus root, ``/``-separated; control characters and undecodable bytes escaped."""
    mtime_ns: int
    size: int
    message: str
    is_error: bool = False
    """A name the site cannot carry is an error; a link not followed is a warning."""


_UNSHOWABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _shown(rel: str) -> str:
    """``rel`` printable: undecodable bytes as ``\\xNN``, control characters as escapes."""
    if _UNSHOWABLE.search(rel) is None:
        return rel
    text = rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return _UNSHOWABLE.sub(lambda m: repr(m.group())[1:-1], text)


def with_paper(mtime_ns: int, paper: os.stat_result) -> int:
    """A note's mtime as the scan records it when a PDF lies beside it: mixed with the PDF's mtime and size,
    so adding, replacing or removing the PDF reads as an edit of the note (and only of that note)."""
    mixed = hashlib.blake2b(f"{paper.st_mtime_ns}:{paper.st_size}".encode(), digest_size=8).digest()
    return mtime_ns ^ (int.from_bytes(mixed, "little") >> 2)


def notes_beside(root: Path, paper: str) -> list[str]:
    """The notes whose PDF is ``paper`` (``paper_of`` the other way round): the original and its translations
    that exist."""
    stem = paper[:-4]
    return [rel for rel in (f"{stem}.md", *(f"{stem}.{lang}.md" for lang in LANGUAGES)) if (root / rel).is_file()]


def paper_stat(path: str | Path) -> os.stat_result | None:
    """The PDF at ``path`` if it is a regular file (a link is never followed to a PDF)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def note_digest(root: Path, rel: str, data: bytes) -> tuple[str, str]:
    """The digest a note's record carries, and its PDF's path (``""`` without one).

    The SHA-1 of the file's bytes, with the stat of the PDF beside it mixed in: a
    replaced PDF is an edit of its note. Whoever checks that a note is still as it
    was read (``classify --apply``) compares with this, never with the bytes alone.
    """
    hashed = hashlib.sha1(data)
    paper = paper_of(rel)
    if (paper_st := paper_stat(root / paper)) is None:
        return hashed.hexdigest(), ""
    hashed.update(f"\0paper\0{paper}\0{paper_st.st_mtime_ns}\0{paper_st.st_size}".encode())
    return hashed.hexdigest(), paper


def _inside(real: str, root_real: str) -> bool:
    return real == root_real or real.startswith(root_real + os.sep)


@lru_cache(maxsize=8)
def _real_root(root: str) -> str:
    return os.path.realpath(root)


def scan(root: Path, refused: list[Refused] | None = None) -> Iterator[SourceFile]:
    """Every note file under ``root``, once; skips hidden and ``_``-prefixed entries and README-like files.

    Never reads through a symbolic link that leaves the corpus. Links that stay
    inside are followed after the plain tree is walked, so a note reached by
    its own path and through a link is read once, by its own path; a folder link
    that loops back, a dangling link, a link out of the corpus, a name with
    control characters or bytes that are not UTF-8 and anything that is not a
    regular file are not yielded but appended to ``refused``, for the caller to
    report with the entry's path.

    A large tree is walked by two processes (see ``_Walk.run``).
    """
    walk = _Walk(root)
    walk.run()
    if refused is not None:
        refused.extend(walk.refused)
    return chain(walk.out.values(), *map(_unpacked, walk.packed))


def _unpacked(packed: tuple[str, bytes, bytes]) -> list[SourceFile]:
    return list(map(tuple.__new__, repeat(SourceFile), rows(packed)))


_LIST_BY_FD = os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY")
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)

SPLIT_FOLDERS = 32
"""A level of the tree with this many folders is shared with a forked process, when there is a second core:
50,000 ``stat`` calls are most of a no-op build."""


class _Walk:
    """One scan: note files by inode (a file reached twice is read once), folders seen, links to follow after
    the plain tree, refusals."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.root_real = os.path.realpath(root)
        st_root = os.stat(self.root_real)
        self.root_dev = st_root.st_dev
        # by inode (a plain int on the root's device, the cheapest key)
        self.out: dict[int | tuple[int, int], SourceFile] = {}
        self.seen_dirs: dict[tuple[int, int], str] = {(st_root.st_dev, st_root.st_ino): "."}
        self.links: list[tuple[str, str]] = []
        self.refused: list[Refused] = []
        self.packed: list[tuple[str, bytes, bytes]] = []
        """Shares children found, as they sent them (``cache.columns``), when nothing needs them unpacked."""

    def refuse(self, rel: str, message: str, st: os.stat_result | None = None, is_error: bool = False) -> None:
        self.refused.append(Refused(_shown(rel), st.st_mtime_ns if st else 0, st.st_size if st else 0, message,
                                    is_error))

    def add_file(self, rel: str, st: os.stat_result) -> None:
        key = st.st_ino if st.st_dev == self.root_dev else (st.st_dev, st.st_ino)
        if key in self.out:
            self.refuse(rel, f"the same file as {self.out[key].path}; read once, under that name", st)
        else:
            self.out[key] = tuple.__new__(SourceFile, (rel, st.st_mtime_ns, st.st_size))

    def run(self, meanwhile: Callable[[], object] | None = None) -> None:
        """The plain tree level by level until a level is worth sharing, the rest (shared or not), then links.
        ``meanwhile``: work of the caller's, done when this process has walked its share and the child may not
        have finished (not called when nothing was shared)."""
        level = [("", self.root)]
        while level and len(level) < SPLIT_FOLDERS:
            below: list[tuple[str, str]] = []
            for prefix, directory in level:
                self.folder(prefix, directory, below)
            level = below
        level.sort()  # shares that do not depend on the order of listings
        child = self.fork(level[1::2]) if level and forks.can_fork() else None
        if child is None:
            self.walk(level)
        else:
            try:
                self.walk(level[0::2])
                if meanwhile is not None:
                    meanwhile()
            except BaseException:  # interrupted: the child must not wait forever to send what it found
                os.close(child[1])
                os.kill(child[0], signal.SIGKILL)
                os.waitpid(child[0], 0)
                raise
            if not self.merge(*child):
                self.walk(level[1::2])  # the child failed: its share, here
        self.follow_links()

    def walk(self, stack: list[tuple[str, str]]) -> None:
        stack = list(stack)
        while stack:
            self.folder(*stack.pop(), stack)

    def folder(self, prefix: str, directory: str, push: list[tuple[str, str]]) -> None:
        """One folder, listed (a folder that cannot be listed is refused)."""
        fd = None
        try:
            if _LIST_BY_FD:  # each file's ``stat`` then resolves one name, not the whole path
                fd = os.open(directory, _DIR_FLAGS)
            with os.scandir(directory if fd is None else fd) as listing:
                entries = list(listing)
        except OSError as exc:
            if fd is not None:
                os.close(fd)
            if not prefix:
                raise CorpusError(f"{directory}: cannot list directory: {exc.strerror}") from exc
            self.refuse(prefix.rstrip("/"), f"cannot list folder: {exc.strerror}; skipped")
            return
        try:
            self.entries(prefix, directory, entries, push)
        finally:
            if fd is not None:
                os.close(fd)

    def entries(self, prefix: str, directory: str, entries: list[os.DirEntry[str]],
                push: list[tuple[str, str]]) -> None:
        """The listed ``entries`` of ``directory``: note files kept or refused, subfolders appended to ``push``."""
        out, root_dev, make = self.out, self.root_dev, tuple.__new__
        # one search per folder; names are looked at one by one only when one of them is odd
        odd = _UNSHOWABLE.search("/".join([entry.name for entry in entries])) is not None
        top = not prefix
        papers: dict[str, os.DirEntry[str]] = {}  # PDFs of the folder by stem
        for entry in entries:
            name = entry.name
            if name[0] in "._" or name == "node_modules":
                continue
            rel = prefix + name
            try:
                # the common case first, with the fewest steps (50,000 times on a no-op build): a plainly
                # named regular note file; anything else takes the careful way below
                if not odd and name[-3:] == ".md" and entry.is_file(follow_symlinks=False) and not (
                        top and name in SKIP_FILES):
                    st = entry.stat(follow_symlinks=False)
                    key = st.st_ino if st.st_dev == root_dev else (st.st_dev, st.st_ino)
                    if st.st_mode & 0o170000 == stat.S_IFREG and key not in out:
                        out[key] = make(SourceFile, (rel, st.st_mtime_ns, st.st_size))
                        continue
                if entry.is_symlink():
                    heapq.heappush(self.links, (rel, os.path.join(directory, name)))
                elif entry.is_dir(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    if odd and _shown(name) != name:
                        self.refuse(rel, "folder name has control characters or bytes that are not UTF-8; "
                                         "rename it (its notes are not read)", st, is_error=True)
                    elif (st.st_dev, st.st_ino) not in self.seen_dirs:
                        self.seen_dirs[(st.st_dev, st.st_ino)] = rel
                        push.append((rel + "/", os.path.join(directory, name)))
                elif name.endswith(".md") and not (top and name in SKIP_FILES):
                    st = entry.stat(follow_symlinks=False)
                    if odd and _shown(name) != name:
                        self.refuse(rel, "file name has control characters or bytes that are not UTF-8; "
                                         "rename it", st, is_error=True)
                    elif not stat.S_ISREG(st.st_mode):
                        self.refuse(rel, "not a regular file; skipped", st)
                    else:
                        self.add_file(rel, st)
                elif name[-4:] == ".pdf":
                    papers[name[:-4]] = entry
            except OSError as exc:
                self.refuse(rel, f"cannot read: {exc.strerror}; skipped")
        if papers:
            self.beside_papers(prefix, entries, papers)

    def beside_papers(self, prefix: str, entries: list[os.DirEntry[str]], papers: dict[str, os.DirEntry[str]]) -> None:
        """Mix into each note's mtime the PDF beside it (``with_paper``): one more ``stat`` per PDF, none in a
        corpus without PDFs."""
        out, root_dev = self.out, self.root_dev
        for entry in entries:
            name = entry.name
            if name[-3:] != ".md" or (paper := papers.get(paper_of(name)[:-4])) is None:
                continue
            try:
                st, paper_st = entry.stat(follow_symlinks=False), paper.stat(follow_symlinks=False)
            except OSError:
                continue
            key = st.st_ino if st.st_dev == root_dev else (st.st_dev, st.st_ino)
            found = out.get(key)
            if found is not None and found.path == prefix + name and stat.S_ISREG(paper_st.st_mode):
                out[key] = found._replace(mtime_ns=with_paper(found.mtime_ns, paper_st))

    def fork(self, share: list[tuple[str, str]]) -> tuple[int, int] | None:
        """A child process that walks ``share`` and sends back what it found: ``(pid, pipe)``, or None."""
        forked = forks.fork_with_pipe()
        if forked is None or forked[0]:
            return forked
        write_end = forked[1]
        status = 1  # the child: nothing after this block runs in it, whatever happens
        try:
            self.out, self.links, self.refused = {}, [], []
            self.walk(share)
            found = (list(self.out), *columns(list(self.out.values())),
                     list(self.seen_dirs.items()), self.links, [tuple(r) for r in self.refused])
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(marshal.dumps(found))
            status = 0
        finally:
            os._exit(status)

    def merge(self, pid: int, pipe: int) -> bool:
        """Add what the child found; False if it failed (nothing is added then)."""
        with os.fdopen(pipe, "rb") as reader:
            data = reader.read()
        _, status = os.waitpid(pid, 0)
        if status != 0:
            return False
        try:
            keys, paths, mtimes, sizes, seen, links, refused = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return False
        for key, rel in seen:
            self.seen_dirs.setdefault(key, rel)
        self.refused.extend(Refused(*r) for r in refused)
        disjoint = self.out.keys().isdisjoint(keys)  # no file of one share is a hard link to one of the other
        if disjoint and not links and not self.links:
            # nothing left to follow that could reach a file twice: the child's share stays packed
            self.packed.append((paths, mtimes, sizes))
            return True
        files = _unpacked((paths, mtimes, sizes))
        if disjoint:
            self.out.update(zip(keys, files, strict=True))
        else:
            for key, found in zip(keys, files, strict=True):
                if key in self.out:
                    self.refused.append(Refused(found.path, found.mtime_ns, found.size,
                                                f"the same file as {self.out[key].path}; read once, under that name"))
                else:
                    self.out[key] = found
        self.links.extend(links)
        heapq.heapify(self.links)
        return True

    def shares(self) -> list[tuple[str, bytes, bytes]]:
        """What the scan found, as ``cache.columns``, in the order it was found: this process's files, then
        each share a child sent; empty ones left out."""
        return [share for share in (columns(list(self.out.values())), *self.packed) if share[0]]

    def follow_links(self) -> None:
        """Links that stay inside the corpus, in path order, each after the plain tree it may lead back into."""
        links, refuse = self.links, self.refuse
        while links:
            rel, path = heapq.heappop(links)
            is_note = rel.endswith(".md") and not ("/" not in rel and rel in SKIP_FILES)
            if _shown(rel) != rel:
                refuse(rel, "symlink name has control characters or bytes that are not UTF-8; rename it", None, True)
                continue
            try:
                real = os.path.realpath(path, strict=True)
                st = os.stat(real)
            except OSError as exc:
                what = "a symlink loop" if exc.errno == errno.ELOOP else "a dangling symlink"
                refuse(rel, f"{what}; not followed", os.lstat(path) if os.path.lexists(path) else None)
                continue
            if not _inside(real, self.root_real):
                if is_note or stat.S_ISDIR(st.st_mode):
                    refuse(rel, f"symlink to {real}, outside the corpus; not followed, not published", os.lstat(path))
                continue
            if stat.S_ISDIR(st.st_mode):
                key = (st.st_dev, st.st_ino)
                if key in self.seen_dirs:
                    refuse(rel, f"symlink to a folder already read ({self.seen_dirs[key]}); not followed twice",
                           os.lstat(path))
                else:
                    self.seen_dirs[key] = rel
                    self.walk([(rel + "/", path)])
            elif is_note:
                if stat.S_ISREG(st.st_mode):
                    self.add_file(rel, st)
                else:
                    refuse(rel, "symlink to something that is not a regular file; skipped", os.lstat(path))


class OutsideCorpus(OSError):
    """A file that resolves outside the corpus (through a symlink): never read."""


def read_inside(root: Path, rel: str, limit: int) -> bytes:
    """At most ``limit`` bytes of the regular file ``root/rel``, which must lie inside ``root`` once every
    link is resolved; ``OutsideCorpus`` or another ``OSError`` otherwise.

    The file is opened first and the path of what was opened is checked (``/proc/self/fd``, one call, and no
    race with a link swapped in meanwhile; ``realpath`` where there is no ``/proc``); non-blocking, so a FIFO
    under a note's name cannot hang the build.
    """
    fd = os.open(root / rel, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        try:
            real = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            real = os.path.realpath(root / rel)
        if not _inside(real, _real_root(str(root))):
            raise OutsideCorpus(f"{rel} leads outside the corpus (to {real})")
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        chunks, size = [], 0
        while size < limit and (chunk := os.read(fd, min(limit - size, 1 << 20))):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Scan:
    """Every note file of a corpus with its mtime and size, and a digest of the lot."""

    columns: tuple[str, bytes, bytes]
    """Every file found, as ``cache.columns``, in the order the walk found them (each process's share, one after
    the other). A tree that did not change is walked in the same order, so the parse cache compares and
    stores the columns as they are, and an up-to-date build never unpacks them; a listing that comes back in
    another order only costs a comparison by path."""
    digest: str
    """Equal digests mean no file was added, removed or modified (by mtime and size)."""
    refused: tuple[Refused, ...] = ()
    """Entries not read (links out of the corpus, loops, dangling links, unshowable names), in path order."""

    @cached_property
    def files(self) -> list[SourceFile]:
        """In path order (unpacked when first asked for)."""
        return sorted(_unpacked(self.columns))

    @property
    def empty(self) -> bool:
        return not self.columns[0]


def scan_corpus(root: Path, meanwhile: Callable[[], object] | None = None) -> Scan:
    """``meanwhile``: see ``_Walk.run``."""
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    walk = _Walk(root)
    walk.run(meanwhile)
    shares = walk.shares()
    packed = shares[0] if len(shares) == 1 else (
        "\0".join([share[0] for share in shares]), b"".join([share[1] for share in shares]),
        b"".join([share[2] for share in shares]))
    refused = tuple(sorted(walk.refused))
    return Scan(packed, scan_digest(packed, refused), refused)


def scan_digest(packed: tuple[str, bytes, bytes], refused: Iterable[Refused]) -> str:
    """Changes when a file is added, removed or modified (by mtime and size), or a refusal changes.
    ``packed``: the files, as ``cache.columns``."""
    digest = hashlib.blake2b(digest_size=16)
    for column in packed:  # hashed whole
        digest.update(column.encode("utf-8", "surrogatepass") if isinstance(column, str) else column)
    digest.update("\n".join([f"{r.path}\0{r.mtime_ns}\0{r.size}\0{r.message}\0{r.is_error}"
                              for r in refused]).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
