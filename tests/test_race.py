"""Two builds at once: into one output, or of one corpus (``serve`` and ``build``), they take turns.

Each test holds a first build (a real process) at a named pause point (``papernotes.testhooks``), starts a
second one, and sees it stop at ``lock.wait`` — it found the first one working and said so — before letting
both go on; the site is then what a clean build of the corpus makes, and a plain build finds it up to date.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest

import pausing
from conftest import EXAMPLES, example_notes
from papernotes.disk import exclusive
from papernotes.site.build import build
from papernotes.site.serve import DevServer
from sitecheck import clean_build, site_contents


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    return corpus


def building(corpus: Path, site: Path, point: str, marker: Path, reached: bool = True) -> pausing.Paused:
    return pausing.paused_at(point, corpus, marker, ("build", "-o", str(site), "-j", "1"), reached=reached)


def edit_bodies(corpus: Path, notes: slice, word: str) -> None:
    chosen = example_notes(corpus)[notes]
    assert chosen
    for note in chosen:
        text = note.read_text(encoding="utf-8")
        note.write_text(text.replace("## ", f"## {word}\n\n## ", 1), encoding="utf-8")


def race(corpus: Path, site: Path, tmp_path: Path, first_at: str) -> tuple[str, str]:
    """A build held at ``first_at``, a second one into the same site started meanwhile: the second waits, saying
    so; both succeed. Their stderr."""
    first = building(corpus, site, first_at, tmp_path / "first")
    second = building(corpus, site, "lock.wait", tmp_path / "second")  # it found the site taken
    second.release()
    first.release()
    status, _, first_err = first.finish()
    assert status == 0, first_err
    status, _, second_err = second.finish()
    assert status == 0, second_err
    assert f"waiting for another build of {site.resolve()} to finish (PID {first.child.pid} holds " in second_err
    return first_err, second_err


def assert_clean(corpus: Path, site: Path, tmp_path: Path) -> None:
    """The site is a clean build's, a plain build finds it up to date, and no lock file is left behind."""
    assert not site.with_name(f".{site.name}.lock").exists() and not (corpus / ".papernotes" / "build.lock").exists()
    clean_build(corpus, tmp_path / "clean")
    assert site_contents(site) == site_contents(tmp_path / "clean")
    assert build(corpus, site).up_to_date
    shutil.rmtree(tmp_path / "clean")


@pytest.mark.timeout(300)
def test_two_cold_builds_into_one_output_take_turns(corpus: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    _, second_err = race(corpus, site, tmp_path, "build.rendered")
    assert "Traceback" not in second_err
    assert_clean(corpus, site, tmp_path)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("first_at", ["build.loaded", "build.rendered", "publish.journal#1", "build.published"])
def test_two_incremental_builds_after_edits_take_turns(corpus: Path, tmp_path: Path, first_at: str) -> None:
    site = tmp_path / "site"
    build(corpus, site)
    edit_bodies(corpus, slice(0, 12, 3), "first")
    first = building(corpus, site, first_at, tmp_path / "first")
    edit_bodies(corpus, slice(1, 12, 3), "second")  # seen by the second build only
    second = building(corpus, site, "lock.wait", tmp_path / "second")
    second.release()
    first.release()
    assert first.finish()[0] == 0 and second.finish()[0] == 0
    assert_clean(corpus, site, tmp_path)


@pytest.mark.timeout(300)
def test_builds_of_one_corpus_into_two_outputs_take_turns_at_its_cache(corpus: Path, tmp_path: Path) -> None:
    first = building(corpus, tmp_path / "a", "build.rendered", tmp_path / "first")
    second = building(corpus, tmp_path / "b", "lock.wait", tmp_path / "second")
    second.release()
    first.release()
    assert first.finish()[0] == 0
    status, _, err = second.finish()
    assert status == 0 and f"waiting for another build of {corpus.resolve()} to finish" in err
    assert_clean(corpus, tmp_path / "a", tmp_path)
    assert_clean(corpus, tmp_path / "b", tmp_path)


@pytest.mark.timeout(300)
def test_serve_s_rebuild_waits_for_a_build_into_its_output(corpus: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build(corpus, site)
    edit_bodies(corpus, slice(0, 6, 2), "edited")
    first = building(corpus, site, "build.rendered", tmp_path / "first")
    told: list[str] = []
    waits = threading.Event()
    servers: list[DevServer] = []

    def on_wait(line: str) -> None:
        told.append(line)
        waits.set()

    serving = threading.Thread(target=lambda: servers.append(DevServer(corpus, site, 0, on_wait=on_wait)))
    serving.start()
    assert waits.wait(60), "serve's build did not wait for the build under way"
    assert serving.is_alive()  # it still waits: the first build holds the site
    first.release()
    serving.join(120)
    assert first.finish()[0] == 0 and servers and servers[0].last_result is not None
    servers[0].server_close()
    assert told == [f"waiting for another build of {site.resolve()} to finish (PID {first.child.pid} holds "
                    f"{site.resolve().with_name('.site.lock')})"]
    assert_clean(corpus, site, tmp_path)


@pytest.mark.timeout(300)
def test_a_build_killed_while_holding_the_site_leaves_no_lock(corpus: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build(corpus, site)
    edit_bodies(corpus, slice(0, 6, 2), "edited")
    first = building(corpus, site, "build.rendered", tmp_path / "first")
    first.child.send_signal(signal.SIGKILL)
    first.finish()
    told: list[str] = []
    result = build(corpus, site, waiting=told.append)
    assert told == [] and not result.up_to_date
    assert_clean(corpus, site, tmp_path)


def test_a_forked_child_does_not_keep_the_lock(tmp_path: Path) -> None:
    """A child forked while the lock is held (a render worker) lets it go with its parent, even if it lives on."""
    lock = tmp_path / "lock"
    hold_read, hold_write = os.pipe()  # the child lives until the test closes this
    ready_read, ready_write = os.pipe()  # the child is up (its copy of the lock closed at the fork)
    with exclusive(lock, "x"):
        assert lock.read_text() == f"{os.getpid()}\n"
        probe = os.open(lock, os.O_RDONLY)  # the same file, which the block removes as it ends
        pid = os.fork()
        if pid == 0:
            os.close(hold_write)
            os.write(ready_write, b"!")
            os.read(hold_read, 1)
            os._exit(0)
        assert os.read(ready_read, 1) == b"!"
        with pytest.raises(BlockingIOError):  # held here
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        assert not lock.exists()
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the child still lives: the lock is free all the same
    finally:
        for fd in (probe, hold_write, hold_read, ready_read, ready_write):
            os.close(fd)
        os.waitpid(pid, 0)


def test_a_lock_left_by_a_killed_holder_is_taken_over_and_removed(tmp_path: Path) -> None:
    lock = tmp_path / ".site.lock"
    lock.write_text("4194305\n")  # a file, locked by no one: its build was killed
    told: list[str] = []
    with exclusive(lock, "x", told.append) as waited:
        assert not waited and told == [] and lock.read_text() == f"{os.getpid()}\n"
    assert not lock.exists()


def test_a_site_published_by_a_build_without_the_cache_is_rebuilt(corpus: Path, tmp_path: Path) -> None:
    """The cache's record describes the site only while the site carries the publish it recorded: a --no-cache
    build in between (or another corpus') publishes a site the cache knows nothing of."""
    site = tmp_path / "site"
    build(corpus, site)
    note = example_notes(corpus)[0]
    published = note.read_bytes()
    edit_bodies(corpus, slice(0, 1), "uncached")
    build(corpus, site, use_cache=False)
    note.write_bytes(published)  # back to what the cache recorded as published
    result = build(corpus, site)
    assert not result.up_to_date
    assert_clean(corpus, site, tmp_path)
