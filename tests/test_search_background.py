"""A first build's search index, made by a forked process while the pages are planned and rendered."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, example_notes, watch_forks
from papernotes import forks
from papernotes.disk import MARKER
from papernotes.site import build as build_module
from papernotes.site import replan
from papernotes.site.build import build
from papernotes.site.search import background

pytestmark = [
    pytest.mark.skipif(not (sys.platform.startswith("linux") and len(os.sched_getaffinity(0)) > 1),
                       reason="the index is made beside the pages only on Linux with a second core"),
    # the tests fork even if earlier tests left threads behind: a child stuck on a lock one of them held
    # would leave its build waiting on the pipe, so a test fails after this long instead
    pytest.mark.timeout(300),
]


def _tree(root: Path) -> dict[str, str]:
    """Every file's digest, but the marker's (which names each build's publish)."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name != MARKER}


def _corpus(tmp_path: Path, name: str) -> Path:
    corpus = tmp_path / name
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    return corpus


def _taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """For each index the build took from a child: whether the child delivered one."""
    taken: list[bool] = []
    real = background.Background.result

    def result(self: background.Background, entries: list) -> object:
        found = real(self, entries)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(background.Background, "result", result)
    return taken


@pytest.fixture()
def control(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The examples built with the index made after the pages, as before (asked for before the fixtures that
    change how the index is made)."""
    base = tmp_path_factory.mktemp("control")
    corpus = _corpus(base, "corpus")
    build(corpus, base / "site")
    return _tree(base / "site")


@pytest.fixture()
def ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """The examples (47 notes) made in the background, whatever threads earlier tests left behind."""
    monkeypatch.setattr(background, "BACKGROUND_NOTES", (1, 10**6))
    monkeypatch.setattr(forks, "can_fork", lambda: True)


def test_the_index_made_beside_the_pages_is_the_one_made_after_them(
        control: dict[str, str], ahead: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _corpus(tmp_path, "corpus")
    made, taken = watch_forks(monkeypatch), _taken(monkeypatch)
    build(corpus, tmp_path / "site")
    assert made and taken == [True, True]  # the zh and en editions
    assert _tree(tmp_path / "site") == control
    # the store the child wrote serves the next build's body edit
    note = next(p for p in sorted(corpus.rglob("*.md"))  # a Chinese original, shown by the site language's edition
                if not p.name.endswith((".en.md", ".zh.md")) and not p.with_suffix(".zh.md").exists())
    note.write_text(note.read_text(encoding="utf-8") + "\nzyxwvutsrq appended.\n", encoding="utf-8")
    again = build(corpus, tmp_path / "site")
    assert again.rendered >= 1
    manifest = (tmp_path / "site" / "search" / "index.json").read_bytes()
    assert b'"delta":true' in manifest  # the edit went into a delta on the child's shards


def test_a_failed_child_leaves_the_index_to_the_build(
        control: dict[str, str], ahead: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise MemoryError("the child cannot make the index")

    monkeypatch.setattr(background, "search_files", broken)  # what the child calls, not what the build calls
    taken = _taken(monkeypatch)
    build(_corpus(tmp_path, "corpus"), tmp_path / "site")
    assert taken == [False, False]
    assert _tree(tmp_path / "site") == control


def test_a_child_given_other_entries_leaves_the_index_to_the_build(
        control: dict[str, str], ahead: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = replan._edition_entries

    def one_note_short(*args: object) -> list:
        return [(prefix, lang, entries[1:] if prefix else entries) for prefix, lang, entries in real(*args)]

    monkeypatch.setattr(replan, "_edition_entries", one_note_short)  # what the children are given
    taken = _taken(monkeypatch)
    build(_corpus(tmp_path, "corpus"), tmp_path / "site")
    assert taken == [True, False]  # the en edition's child indexed other entries than the edition shows
    assert _tree(tmp_path / "site") == control


def test_a_failed_build_stops_and_reaps_its_child(ahead: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(build_module.Builder, "_render_and_publish", interrupted)
    made = watch_forks(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        build(_corpus(tmp_path, "corpus"), tmp_path / "site")
    assert made
    for pid in made:
        with pytest.raises(ChildProcessError):  # reaped: nothing left running or waiting on a pipe
            os.waitpid(pid, os.WNOHANG)


def test_small_corpora_make_their_index_after_the_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forks, "can_fork", lambda: True)
    taken = _taken(monkeypatch)
    build(_corpus(tmp_path, "corpus"), tmp_path / "site")  # 47 notes: below BACKGROUND_NOTES
    assert taken == []


def test_one_job_is_one_process(ahead: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _taken(monkeypatch)
    build(_corpus(tmp_path, "corpus"), tmp_path / "site", workers=1)
    assert taken == []


def _state(pid: int) -> str:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "gone"
    return next(line.split()[1] for line in status.splitlines() if line.startswith("State:"))


def test_a_build_killed_with_kill_9_takes_its_child_with_it(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("synth", Path(__file__).parents[1] / "benchmarks" / "synth.py")
    assert spec is not None and spec.loader is not None
    synth = sys.modules["synth"] = importlib.util.module_from_spec(spec)  # its dataclasses look it up there
    spec.loader.exec_module(synth)
    corpus = tmp_path / "corpus"
    synth.generate(corpus, background.BACKGROUND_NOTES[0] + 40, seed=5)
    # the child stops there, before it opens the search store
    assert_the_child_dies_with_the_build([sys.executable, "-m", "papernotes", "build", str(corpus), "-o",
                                          str(tmp_path / "site"), "-q"], "search.background", tmp_path)


def assert_the_child_dies_with_the_build(argv: list[str], point: str, tmp_path: Path) -> None:
    """Run the build ``argv`` until a child of it stands at the pause ``point``, ``kill -9`` the build, and see
    the child go with it."""
    marker = tmp_path / "paused"
    env = {**os.environ, "PAPERNOTES_PAUSE_AT": point, "PAPERNOTES_PAUSE_FILE": str(marker)}
    proc = subprocess.Popen(argv, env=env)
    child = 0
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() or not marker.read_text().endswith("\n"):
            assert proc.poll() is None, f"the build ended (exit {proc.returncode}) without starting its child"
            assert time.monotonic() < deadline
            time.sleep(0.02)
        child = int(marker.read_text().split()[0])
        assert child != proc.pid and f"PPid:\t{proc.pid}\n" in Path(f"/proc/{child}/status").read_text()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 20
        while _state(child) not in ("Z", "gone"):
            assert time.monotonic() < deadline, "the child outlived the build"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
        if child and _state(child) not in ("Z", "gone"):
            os.kill(child, signal.SIGKILL)


# ------------------------------------------------------------------ a large site's records, made until the render


@pytest.fixture()
def records_ahead(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The examples (47 notes) count as a large site: a child tokenises their records until the render starts;
    here the render waits for it to finish. Returns the child's exit status, per edition."""
    monkeypatch.setattr(background, "BACKGROUND_NOTES", (1, 10))
    monkeypatch.setattr(forks, "can_fork", lambda: True)
    real = background.Records.before_render
    ended: list[int] = []

    def before_render(self: background.Records) -> None:
        if self.child.returncode is None:
            ended.append(self.child.wait())  # all of them stored (47 notes: one batch)
        real(self)

    monkeypatch.setattr(background.Records, "before_render", before_render)
    return ended


def test_the_records_made_before_the_render_make_the_index_made_after_it(
        control: dict[str, str], records_ahead: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from papernotes.site.search import index

    tokenised: list[object] = []  # notes the build tokenised itself
    real = index.note_records
    monkeypatch.setattr(index, "note_records", lambda notes: real(tokenised.append(n) or n for n in notes))
    corpus = _corpus(tmp_path, "corpus")
    build(corpus, tmp_path / "site")
    assert records_ahead == [0]  # one child, the site language's edition (a second would share its core)
    # every record of that edition was in the store the child wrote: the build tokenised the other one's
    assert len(tokenised) == len(example_notes())
    assert _tree(tmp_path / "site") == control


def test_a_records_child_stopped_at_once_leaves_the_index_to_the_build(
        control: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "BACKGROUND_NOTES", (1, 10))
    monkeypatch.setattr(forks, "can_fork", lambda: True)
    started: list[background.Records] = []
    real = background.Records.start

    def start(*args: object) -> object:
        ahead = real(*args)  # type: ignore[arg-type]
        assert ahead is not None
        ahead.before_render()  # before it read what to tokenise: SIGTERM ends it, or it stops at its first batch
        started.append(ahead)
        return ahead

    monkeypatch.setattr(background.Records, "start", start)
    build(_corpus(tmp_path, "corpus"), tmp_path / "site")
    assert len(started) == 1
    assert _tree(tmp_path / "site") == control


def test_a_build_killed_with_kill_9_takes_its_records_child_with_it(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, "corpus")
    script = ("import sys, time; from pathlib import Path; from papernotes import forks; "
              "from papernotes.site.search import background; background.BACKGROUND_NOTES = (1, 10); "
              "forks.can_fork = lambda: True; from papernotes.site.build import build; "
              "background.Records.before_render = lambda self: time.sleep(600); "  # the child is killed first
              "build(Path(sys.argv[1]), Path(sys.argv[2]))")
    # the child stops there, before it reads what to tokenise
    assert_the_child_dies_with_the_build([sys.executable, "-c", script, str(corpus), str(tmp_path / "site")],
                                         "search.records", tmp_path)


# ------------------------------------------------------------------ a helper that fails is reported, never silent


def _search_warnings(result: object) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == "search"]  # type: ignore[attr-defined]


def test_a_background_child_that_fails_is_reported_and_the_build_makes_the_index(
        control: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "BACKGROUND_NOTES", (1, 100))
    monkeypatch.setattr(forks, "can_fork", lambda: True)
    monkeypatch.setenv("PAPERNOTES_FAIL_AT", "search.background")  # raised in the child only: the point is its
    result = build(_corpus(tmp_path, "corpus"), tmp_path / "site")
    said = _search_warnings(result)
    assert len(said) == 2, said  # one child per edition
    assert said[0] == ("the search index's helper process failed (InjectedFailure: failed at search.background "
                       "(PAPERNOTES_FAIL_AT)); this build did its work itself")
    assert _tree(tmp_path / "site") == control


def test_a_records_child_that_fails_is_reported_and_the_build_tokenises_its_notes(
        control: dict[str, str], records_ahead: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERNOTES_FAIL_AT", "search.records")  # raised in the child only: the point is its
    result = build(_corpus(tmp_path, "corpus"), tmp_path / "site")
    assert records_ahead == [1]
    said = _search_warnings(result)
    assert said == ["the search index's helper process failed (papernotes.testhooks.InjectedFailure: failed at "
                    "search.records (PAPERNOTES_FAIL_AT)); this build did its work itself"]
    assert _tree(tmp_path / "site") == control


def test_the_records_child_imports_this_papernotes_whatever_its_folder_holds(
        control: dict[str, str], records_ahead: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The child is a fresh interpreter: it finds the build's own papernotes, not the first one on its path."""
    decoy = tmp_path / "cwd" / "papernotes"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('a papernotes folder in the working directory')\n")
    monkeypatch.chdir(decoy.parent)
    result = build(_corpus(tmp_path, "corpus"), tmp_path / "site")
    assert records_ahead == [0] and _search_warnings(result) == []
    assert _tree(tmp_path / "site") == control
