"""Hold or kill a papernotes command at a named pause point (``papernotes.testhooks``), for resume and race tests."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Paused:
    """A ``papernotes`` child process standing at a pause point until ``release``."""

    child: subprocess.Popen[str]
    marker: Path
    point: str

    def release(self) -> None:
        """Let it go on from the pause point."""
        self.marker.unlink()

    def finish(self, timeout: float = 120) -> tuple[int, str, str]:
        """Wait for it to end: (exit status, stdout, stderr)."""
        out, err = self.child.communicate(timeout=timeout)
        return self.child.returncode, out, err


def paused_at(point: str, corpus: Path, marker: Path, command: tuple[str, ...], env: dict[str, str] | None = None,
              reached: bool = True, output: bool = True, group: bool = False) -> Paused:
    """Start ``papernotes COMMAND[0] CORPUS COMMAND[1:]`` in a child process that pauses at ``point``; with
    ``reached``, return once it stands there (its marker file is written). ``output``: keep what it prints
    (``finish`` returns it), else drop it. ``group``: in a process group of its own, which a test can send what a
    terminal's Ctrl-C sends (``os.killpg``)."""
    marker.unlink(missing_ok=True)  # left by the last pause
    env = {**os.environ, **(env or {}), "PAPERNOTES_PAUSE_AT": point, "PAPERNOTES_PAUSE_FILE": str(marker)}
    child = subprocess.Popen([sys.executable, "-m", "papernotes", command[0], str(corpus), *command[1:]], env=env,
                             stdout=subprocess.PIPE if output else subprocess.DEVNULL,
                             stderr=subprocess.PIPE if output else subprocess.DEVNULL, text=True,
                             process_group=0 if group else None)
    paused = Paused(child, marker, point)
    if reached:
        wait_for(paused)
    return paused


def wait_for(paused: Paused, timeout: float = 60) -> None:
    """Until ``paused`` stands at its pause point (its marker file exists)."""
    deadline = time.monotonic() + timeout
    while not paused.marker.exists():
        if paused.child.poll() is not None:
            _, err = paused.child.communicate()
            raise AssertionError(f"ended (exit {paused.child.returncode}) without reaching {paused.point}: {err or ''}")
        assert time.monotonic() < deadline, f"{paused.point} not reached in {timeout} s"
        time.sleep(0.02)


def killed_at(point: str, corpus: Path, tmp_path: Path, command: tuple[str, ...] = ("draft", "--batch", "-q")) -> None:
    """Run ``papernotes COMMAND[0] CORPUS COMMAND[1:]`` in a child process and ``kill -9`` it standing at ``point``."""
    paused = paused_at(point, corpus, tmp_path / "paused", command, output=False)
    paused.child.send_signal(signal.SIGKILL)
    paused.child.communicate(timeout=10)
    assert paused.child.returncode == -signal.SIGKILL
