"""Reading stage, extraction: text drawn inside a form XObject, put where the page shows it.

In: the operators pypdf reads from a page's content stream and from the forms
it draws (``visitor_operand_before`` / ``visitor_operand_after`` hooks), and
the matrices pypdf reports with each text run. Out: those matrices in page
space. pypdf extracts a form's text (a figure included as a PDF, a logo, a
watermark) with the form's own coordinates: its current matrix starts again
from the identity, without the page's ``cm`` before ``Do`` or the form's
``/Matrix``. A figure's labels then land anywhere on the page, even beside the
page (a title of 18 pt under the abstract, figure words interleaved with its
lines). ``FormSpace`` keeps the stack of those transforms and maps each
matrix the hooks see into page space.

pypdf calls the ``before`` hook for ``Do``, then reports the page's pending
text, then walks the form's operators (each through ``before``), then calls
``after`` for ``Do``; so the form's transform is pushed at its first operator,
not at ``Do``, and an image (no operators) pushes nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def multiply(m: Sequence[float], n: Sequence[float]) -> tuple[float, ...]:
    """``m`` then ``n`` (PDF's row-vector convention: a point is transformed by ``m`` first)."""
    return (m[0] * n[0] + m[1] * n[2], m[0] * n[1] + m[1] * n[3],
            m[2] * n[0] + m[3] * n[2], m[2] * n[1] + m[3] * n[3],
            m[4] * n[0] + m[5] * n[2] + n[4], m[4] * n[1] + m[5] * n[3] + n[5])


class FormSpace:
    """The transform from the current form's space to page space, kept from pypdf's operator hooks."""

    def __init__(self, xobjects: Any) -> None:
        self._xobjects = xobjects
        """The page's ``/XObject`` resources (for a form's ``/Matrix``), or ``None``."""
        self._stack: list[tuple[float, ...]] = []
        self._entering: tuple[float, ...] | None = None

    @property
    def current(self) -> tuple[float, ...]:
        return self._stack[-1] if self._stack else IDENTITY

    def to_page(self, cm: Sequence[float]) -> Sequence[float]:
        """A ``cm`` pypdf reports, in page space."""
        return multiply(cm, self._stack[-1]) if self._stack else cm

    def before(self, op: bytes, operands: Sequence[Any], cm: Sequence[float]) -> None:
        if self._entering is not None:  # the first operator inside the form just drawn
            self._stack.append(self._entering)
            self._entering = None
        if op == b"Do" and operands:
            self._entering = multiply(self._matrix(operands[0]), multiply(cm, self.current))

    def after(self, op: bytes) -> None:
        if op != b"Do":
            return
        if self._entering is not None:  # an image, or an empty form: nothing was pushed
            self._entering = None
        elif self._stack:
            self._stack.pop()

    def _matrix(self, name: Any) -> tuple[float, ...]:
        """The form's ``/Matrix`` when the page's resources name it (a nested form's are not looked up)."""
        try:
            matrix = self._xobjects[name].get_object().get("/Matrix") if self._xobjects is not None else None
            return tuple(float(v) for v in matrix) if matrix is not None and len(matrix) == 6 else IDENTITY
        except (KeyError, TypeError, ValueError, AttributeError):
            return IDENTITY
