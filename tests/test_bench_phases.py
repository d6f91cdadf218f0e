"""benchmarks/bench_phases.py: a build's phases timed from a child process, and its memory sampled."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "bench_phases.py"


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux /proc")
def test_every_phase_of_a_cold_build_is_timed(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    out = tmp_path / "phases.json"
    done = subprocess.run([sys.executable, str(SCRIPT), str(corpus), "--site", str(tmp_path / "site"), "--cold",
                           "--every", "0.05", "--json", str(out)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    phases = {row["phase"] for row in report["phases"]}
    assert {"load", "resolve", "related papers", "plan", "render", "search: tokenise", "search (all)"} <= phases
    assert report["peak_pss_mb"] > 10 and report["seconds"] > 0
    assert (tmp_path / "site" / "index.html").is_file()
