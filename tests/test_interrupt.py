"""Ctrl-C: a terminal sends SIGINT to the whole foreground process group, the build and its forked helpers. The
build stops with one line and exit status 130; no helper prints a traceback; the next build repairs the site."""
from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

import pausing
from conftest import EXAMPLES, example_notes
from papernotes.site.build import build
from papernotes.site.search import background
from sitecheck import clean_build, dead_links, site_contents

LINE = "interrupted (Ctrl-C): the site is as it was, or the next build finishes what this one started\n"


def ctrl_c(paused: pausing.Paused) -> tuple[int, str]:
    """What Ctrl-C in its terminal does to ``paused``; its exit status and stderr."""
    os.killpg(paused.child.pid, signal.SIGINT)
    status, _, err = paused.finish()
    return status, err


@pytest.mark.timeout(300)
@pytest.mark.parametrize("point", ["build.loaded", "build.rendered", "publish.journal#1", "build.published"])
def test_ctrl_c_in_the_build_stops_it_with_one_line(tmp_path: Path, point: str) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    site = tmp_path / "site"
    build(corpus, site)
    for note in example_notes(corpus)[:9:4]:
        note.write_text(note.read_text(encoding="utf-8").replace("## ", "## 改\n\n## ", 1), encoding="utf-8")
    paused = pausing.paused_at(point, corpus, tmp_path / "paused", ("build", "-o", str(site), "-j", "2"), group=True)
    assert ctrl_c(paused) == (130, LINE)
    assert dead_links(site) == []
    assert not build(corpus, site).up_to_date
    clean_build(corpus, tmp_path / "clean")
    assert site_contents(site) == site_contents(tmp_path / "clean")


def synthetic(tmp_path: Path, notes: int) -> Path:
    spec = importlib.util.spec_from_file_location("synth", Path(__file__).parents[1] / "benchmarks" / "synth.py")
    assert spec is not None and spec.loader is not None
    synth = sys.modules["synth"] = importlib.util.module_from_spec(spec)  # its dataclasses look it up there
    spec.loader.exec_module(synth)
    corpus = tmp_path / "corpus"
    synth.generate(corpus, notes, seed=3)
    return corpus


@pytest.mark.timeout(300)
@pytest.mark.skipif(not (sys.platform.startswith("linux") and len(os.sched_getaffinity(0)) > 1),
                    reason="pages are rendered and the search index made by forked helpers only on Linux with a "
                           "second core")
@pytest.mark.parametrize("point", ["render.range", "search.background"])
def test_ctrl_c_while_forked_helpers_work_leaves_no_traceback(tmp_path: Path, point: str) -> None:
    """A first build of a few hundred notes, held in a forked helper: a render worker (``render.range``), or the
    search index's helper while the build plans and renders or waits for it; Ctrl-C reaches them all."""
    corpus = synthetic(tmp_path, background.BACKGROUND_NOTES[0] + 100)
    paused = pausing.paused_at(point, corpus, tmp_path / "paused", ("build", "-o", str(tmp_path / "site"), "-j", "2"),
                               group=True)
    helper = int((tmp_path / "paused").read_text().split()[0])
    assert helper != paused.child.pid  # the pause stands in a helper, a child of the build
    assert ctrl_c(paused) == (130, LINE)
    assert not (tmp_path / "site").exists()
