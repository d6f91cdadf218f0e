"""Named pause points, so crash tests can kill a process at an exact place instead of after a delay.

``pause("publish.move")`` does nothing unless the environment variable
``PAPERNOTES_PAUSE_AT`` names that point (``publish.move`` or ``publish.move#3``
for its third pass). Then it creates the file named by ``PAPERNOTES_PAUSE_FILE``
and sleeps, so a test can wait for the file and ``kill -9`` the process while
it stands exactly there. Costs one dictionary lookup when unused.

``PAPERNOTES_FAIL_AT`` naming a point makes ``pause`` raise ``InjectedFailure`` there instead, so a test can
see how a failure at that place is reported.

``hidden_modules``: the optional packages ``PAPERNOTES_HIDE_MODULES`` (comma-separated module names) makes
papernotes see as not installed (``extras.available``), so a test can remove an extra without uninstalling it.
"""
from __future__ import annotations

import os
import time

_passes: dict[str, int] = {}


class InjectedFailure(RuntimeError):
    """Raised at the point ``PAPERNOTES_FAIL_AT`` names (see the module)."""


def pause(point: str) -> None:
    if os.environ.get("PAPERNOTES_FAIL_AT") == point:
        raise InjectedFailure(f"failed at {point} (PAPERNOTES_FAIL_AT)")
    spec = os.environ.get("PAPERNOTES_PAUSE_AT")
    if not spec:
        return
    name, _, nth = spec.partition("#")
    if name != point:
        return
    _passes[point] = _passes.get(point, 0) + 1
    if nth and _passes[point] != int(nth):
        return
    marker = os.environ.get("PAPERNOTES_PAUSE_FILE")
    if not marker:
        return
    with open(marker, "w", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()} {point}\n")
    while os.path.exists(marker):  # until killed, or released by the test
        time.sleep(0.01)


def hidden_modules() -> frozenset[str]:
    """The modules ``PAPERNOTES_HIDE_MODULES`` names (see the module)."""
    return frozenset(filter(None, os.environ.get("PAPERNOTES_HIDE_MODULES", "").split(",")))
