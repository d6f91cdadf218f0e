"""Bytes to hash: one serialisation for every digest of plain values (fingerprints, listing keys, records).

``marshal`` from version 3 on writes a reference when an object appears twice *by identity*,
so equal values built differently (a title read from the cache and the same title just parsed,
one string object shared by two fields or two) serialise to different bytes. Version 2 has no
references: equal values give equal bytes, whatever shares what.
"""
from __future__ import annotations

import marshal
from typing import Any

VERSION = 2


def stable_bytes(value: Any) -> bytes:
    """``value`` (tuples, lists, dicts, str, bytes, numbers, bools, ``None``) as bytes that depend on it alone."""
    return marshal.dumps(value, VERSION)
