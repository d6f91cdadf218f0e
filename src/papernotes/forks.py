"""When a build may fork a helper process, and how that helper dies with the build (or with Ctrl-C).

The scan (``corpus/load.py``) and the search index of a first build
(``site/search/background.py``) each hand part of their work to a forked child;
``share`` spreads tasks over this process and forked ones (tokenising a search
index, scoring the related lists of a large corpus).
"""
from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")


def can_fork() -> bool:
    """Fork is cheap and safe here: Linux, a second core, and no thread that a child could inherit a lock of."""
    threading = sys.modules.get("threading")  # not imported: no thread was started from Python
    return (sys.platform.startswith("linux") and hasattr(os, "fork") and len(os.sched_getaffinity(0)) > 1
            and (threading is None or threading.active_count() == 1))


def _ctrl_c_ends_the_child() -> None:
    """In every forked child: Ctrl-C (SIGINT, sent to the whole foreground process group) ends it at once, without
    a ``KeyboardInterrupt`` traceback of its own; the build's process reports the interrupt, once, and reaps it.
    A child cut short is a child killed, which every one of them is made to survive (``die_with_parent``)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


os.register_at_fork(after_in_child=_ctrl_c_ends_the_child)


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


def share(tasks: Sequence[_T], work: Callable[[_T], _R], workers: int) -> list[_R]:
    """``[work(task) for task in tasks]``, done by this process and ``workers - 1`` forked children.

    Each process takes the next task from one shared counter when it is done with its last, so all
    finish about together. A child writes what it made to a file of its own (a pipe would stall it while
    this process works), read here once no task is left; the children die with this process
    (``die_with_parent``, so Linux only: elsewhere, or with one worker, this process does every task).
    What a child raised is raised here. The tasks of a child that could not be had (fork or temporary
    file refused) or that died without a word (killed) are done here.
    """
    if workers < 2 or len(tasks) < 2 or not sys.platform.startswith("linux"):
        return [work(task) for task in tasks]
    import ctypes  # noqa: F401 - for die_with_parent: imported once here rather than in every child
    import multiprocessing
    import pickle
    import tempfile

    ctx = multiprocessing.get_context("fork")
    counter, lock = ctx.RawValue("i", 0), ctx.Lock()

    def taken() -> Iterator[int]:
        while True:
            with lock:
                i = counter.value
                counter.value = i + 1
            if i >= len(tasks):
                return
            yield i

    parent = os.getpid()
    children: list[tuple[int, IO[bytes]]] = []
    done: dict[int, _R] = {}
    try:
        for _ in range(workers - 1):
            try:
                out = tempfile.TemporaryFile()
            except OSError:
                break
            try:
                pid = os.fork()
            except OSError:
                out.close()
                break
            if pid:
                children.append((pid, out))
                continue
            status = 1  # the child: nothing after this block runs in it, whatever happens
            try:
                die_with_parent(parent)
                for i in taken():
                    pickle.dump((i, work(tasks[i])), out, pickle.HIGHEST_PROTOCOL)
                status = 0
            except BaseException as failure:  # noqa: BLE001 - the parent raises it
                pickle.dump((-1, failure), out, pickle.HIGHEST_PROTOCOL)
            finally:
                out.flush()
                os._exit(status)
        for i in taken():
            done[i] = work(tasks[i])
        for pid, out in children:
            os.waitpid(pid, 0)
            out.seek(0)
            while True:
                try:  # written by our own child, in a file only it and this process hold
                    i, made = pickle.load(out)  # noqa: S301
                except (EOFError, pickle.UnpicklingError):  # the end, or where a child was cut short
                    break
                if i < 0:
                    raise made
                done[i] = made
    except BaseException:
        for pid, _ in children:  # this process failed: its children go with it
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        raise
    finally:
        for _, out in children:
            out.close()
    return [done[i] if i in done else work(tasks[i]) for i in range(len(tasks))]
