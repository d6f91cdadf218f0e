"""Kill a papernotes command at a named pause point (``papernotes.testhooks``), for resume tests."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def killed_at(point: str, corpus: Path, tmp_path: Path, command: tuple[str, ...] = ("draft", "--batch", "-q")) -> None:
    """Run ``papernotes COMMAND[0] CORPUS COMMAND[1:]`` in a child process and ``kill -9`` it standing at ``point``."""
    marker = tmp_path / "paused"
    marker.unlink(missing_ok=True)  # left by the last kill
    env = {**os.environ, "PAPERNOTES_PAUSE_AT": point, "PAPERNOTES_PAUSE_FILE": str(marker)}
    child = subprocess.Popen([sys.executable, "-m", "papernotes", command[0], str(corpus), *command[1:]], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert child.poll() is None, f"{command[0]} ended (exit {child.returncode}) without reaching {point}"
        assert time.monotonic() < deadline, f"{point} not reached in 60 s"
        time.sleep(0.02)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL
