"""Shared fixtures: the bundled example corpus and its built site; how the suite is scheduled.

The suite runs on parallel workers (pytest-xdist, ``-n auto`` in pyproject.toml). ``once_per_run`` makes
something (a built site) once for all of them; tests marked ``slow`` are handed out first, so that no worker
starts a minute-long test when the others have nothing left to do.
"""
from __future__ import annotations

import compileall
import fcntl
import os
import pickle
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from papernotes.corpus.frontmatter import render
from papernotes.site.build import BuildResult, build

pytest_plugins = ["chromium"]  # the ``browser`` fixture of the browser tests

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SHARED = Path(os.environ.get("PAPERNOTES_SHARED", REPO.parent / "shared"))


def example_notes(root: Path = EXAMPLES) -> list[Path]:
    """The original notes under ``root``, without their translations (``foo.en.md``)."""
    return sorted(p for p in root.rglob("*.md") if not p.name.endswith((".en.md", ".zh.md")))


def write_note(root: Path, rel: str, **fields: object) -> Path:
    """Write a small note; ``body`` is the Markdown after the front matter."""
    body = str(fields.pop("body", "## 一句话总结\n一句话。\n"))
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(fields, body), encoding="utf-8")
    return path


_T = TypeVar("_T")


SCRATCH_FREE = 4 << 30
"""Free bytes a memory file system needs to hold a run's scratch folders (a run writes ~0.6 GB)."""


def memory_scratch() -> Path | None:
    """Where a run's scratch folders go: ``/dev/shm`` (or ``$PAPERNOTES_TEST_TMP``) when it is writable with room
    to spare, else None (pytest's default under the system's temp folder; ``PAPERNOTES_TEST_TMP=disk`` asks
    for it). Every test builds and deletes sites: on this machine's disk (ext4, mounted with ``discard``) a
    random walk of edits spends a third of its time in the kernel creating and deleting files, in memory a
    tenth (27.5 s against 16.9 s). Nothing a test checks depends on the file system."""
    chosen = os.environ.get("PAPERNOTES_TEST_TMP", "/dev/shm")
    if chosen == "disk":
        return None
    try:
        free = os.statvfs(chosen)
    except OSError:
        return None
    if free.f_bavail * free.f_frsize < SCRATCH_FREE or not os.access(chosen, os.W_OK | os.X_OK):
        return None
    return Path(chosen)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores. With one per core, a quarter of the CPU time goes unused while
    tests wait on Chromium, on subprocesses and on servers (2 cores: 184 s of pytest with 2 workers, 167 s with 3,
    172 s with 4, each worker also paying its ~6 s of collection)."""
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """In the controlling process, before any worker starts: the package's bytecode, and the run's scratch folders
    in memory (``memory_scratch``; xdist's workers get a folder inside it) unless ``--basetemp`` was given,
    removed when the run ends."""
    if hasattr(config, "workerinput"):
        return
    # The package's bytecode, once for the run: where PYTHONDONTWRITEBYTECODE is set (this machine's shells, so
    # perhaps CI's), each worker and every ``papernotes`` subprocess of the tests would compile the modules it
    # imports again (~0.15 s a build); as an installed package is, it is compiled beforehand (0.25 s, __pycache__).
    compileall.compile_dir(REPO / "src" / "papernotes", quiet=1)
    if config.option.basetemp:
        return
    root = memory_scratch()
    if root is not None:
        config.option.basetemp = tempfile.mkdtemp(prefix="papernotes-tests-", dir=root)
        config.stash[_SCRATCH] = config.option.basetemp


def pytest_unconfigure(config: pytest.Config) -> None:
    scratch = config.stash.get(_SCRATCH, None)
    if scratch is not None:  # memory: not kept for later like pytest's own (it keeps the last three runs)
        shutil.rmtree(scratch, ignore_errors=True)


_SCRATCH = pytest.StashKey[str]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` first, the rest in their order (a module's tests stay together, so its
    module-scoped fixtures are made once). ``slow`` only schedules: every test runs."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], _T]) -> _T:
    """``make(folder)`` run once per test run, whatever the number of workers: the first worker to ask makes
    it in a folder all of them share (the others wait on a lock), and every caller gets its (pickled) value.
    What is made there is shared: read it, never change it (copy it first)."""
    run = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # .../pytest-N/gw0: the run's folder is the parent
        run = run.parent
    folder, made = run / name, run / f"{name}.pickle"
    with (run / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a worker that failed half-way
            folder.mkdir()
            made.write_bytes(pickle.dumps(make(folder)))
        return pickle.loads(made.read_bytes())


def _build_examples(base: Path) -> tuple[Path, BuildResult]:
    corpus = base / "corpus"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    site = base / "site"
    return site, build(corpus, site)


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildResult]:
    """A copy of examples/ built once for the whole run (all workers): (site dir, result). Read-only."""
    return once_per_run(tmp_path_factory, "examples", _build_examples)


def watch_forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The children this process forks from now on (``os.fork`` watched)."""
    made: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            made.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return made


_WORKER_TASK: dict = {}


def _noting_the_worker(bounds):  # type: ignore[no-untyped-def]
    """A pool task that writes down which process ran it, waits until ``meet`` processes have each taken a
    task (on a busy machine one may take them all before another starts), then runs the task it stands for."""
    pids: Path = _WORKER_TASK["pids"]
    with pids.open("a") as f:
        f.write(f"{os.getpid()}\n")
    deadline = time.monotonic() + 60
    while len(set(pids.read_text().split())) < _WORKER_TASK["meet"]:
        assert time.monotonic() < deadline, f"{_WORKER_TASK['meet']} processes did not each take a task in 60 s"
        time.sleep(0.005)
    return _WORKER_TASK["task"](bounds)


@pytest.fixture()
def worker_pids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``worker_pids(module, "task")`` makes ``module.task`` (a forked pool's task) note the process that runs
    each call; returns a function giving those process ids, one per call. With ``meet=2``, no call runs until
    two processes have each taken one (for a test that asserts they share the work)."""
    pids = tmp_path / "worker-pids"

    def watch(module: object, name: str, meet: int = 1):  # type: ignore[no-untyped-def]
        monkeypatch.setitem(_WORKER_TASK, "pids", pids)
        monkeypatch.setitem(_WORKER_TASK, "meet", meet)
        monkeypatch.setitem(_WORKER_TASK, "task", getattr(module, name))
        monkeypatch.setattr(module, name, _noting_the_worker)  # a module function: the pool pickles it by name
        return lambda: pids.read_text().split() if pids.exists() else []

    return watch
