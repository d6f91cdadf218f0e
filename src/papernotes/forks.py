"""When a build may fork a helper process, and how that helper dies with the build.

The scan (``corpus/load.py``) and the search index of a first build
(``site/search/background.py``) each hand part of their work to a forked child.
"""
from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")


def can_fork() -> bool:
    """Fork is cheap and safe here: Linux, a second core, and no thread that a child could inherit a lock of."""
    threading = sys.modules.get("threading")  # not imported: no thread was started from Python
    return (sys.platform.startswith("linux") and hasattr(os, "fork") and len(os.sched_getaffinity(0)) > 1
            and (threading is None or threading.active_count() == 1))


def fork_with_pipe() -> tuple[int, int] | None:
    """Fork, with a pipe from the child to the parent: ``(0, write end)`` in the child, ``(child's pid,
    read end)`` in the parent; None, and nothing forked, when the system refuses a pipe or a process."""
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid:
        os.close(write_end)
        return pid, read_end
    try:  # the child: whatever happens, it returns to the caller's block that ends it
        os.close(read_end)
    except OSError:
        pass
    return 0, write_end


def die_with_parent(parent: int) -> None:
    """In a forked child: be killed when ``parent`` dies (Linux ``PR_SET_PDEATHSIG``), so that a build
    killed with ``kill -9`` leaves no helper writing its cache behind it."""
    import ctypes

    PR_SET_PDEATHSIG = 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """For a command that spreads its work over processes of its own (``build``, ``serve``): numpy's BLAS
    keeps to one thread in each, unless the environment says otherwise. Threads on top of those processes
    only oversubscribe the cores, and OpenBLAS threads spin while they wait: the reference corpus' cold
    build took 3.6 s with them, 3.4 s without (BENCHMARKS.md). Read when numpy is first imported, so it is
    called before."""
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")


def in_two(work: Callable[[Sequence[_T]], list[_R]], items: Sequence[_T]) -> list[_R]:
    """``work(items)``, its second half done by a forked child when ``can_fork``: the child writes its
    results to a file (a pipe would stall it while this process works on the first half), read here
    afterwards. A child that fails, or is killed, leaves its half to this process. ``work`` must give one
    result per item, whatever the items around it."""
    half = len(items) // 2
    if half < 1 or not can_fork():
        return work(items)
    import pickle
    import tempfile

    parent = os.getpid()
    try:
        out = tempfile.TemporaryFile()
        pid = os.fork()
    except OSError:
        return work(items)
    if pid == 0:
        status = 1  # the child: nothing after this block runs in it, whatever happens
        try:
            die_with_parent(parent)
            pickle.dump(work(items[half:]), out, pickle.HIGHEST_PROTOCOL)
            out.flush()
            status = 0
        finally:
            os._exit(status)
    try:
        first = work(items[:half])
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        out.close()
        raise
    _, status = os.waitpid(pid, 0)
    second: list[_R] | None = None
    if status == 0:
        out.seek(0)
        try:  # written by our own child, in a file only it and this process hold
            second = pickle.load(out)  # noqa: S301
        except (EOFError, pickle.UnpicklingError):
            second = None
    out.close()
    if second is None or len(second) != len(items) - half:
        second = work(items[half:])
    return first + second
