"""Diagnostics and the exception hierarchy shared by every stage.

Stages never print or exit: they return ``Diagnostic`` records (for problems in
one note that must not stop the rest) or raise a ``PapernotesError`` subclass
(for problems that stop the whole command). Only the CLI maps these to exit codes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in the user's input, pointing at the file and line."""

    path: str
    """Path of the offending file, as the user would type it (relative to the corpus when possible)."""
    line: int
    """1-based line number; 0 when the problem concerns the whole file."""
    message: str
    """Human-readable description, starting lower-case, without a trailing period."""
    severity: Severity = Severity.ERROR
    code: str = "error"
    """Short machine-readable kind, e.g. ``front-matter``, ``missing-field``, ``broken-link``."""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.severity.value}: {self.message}"

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


def text_line(text: str, needle: str) -> int:
    """1-based line of the first occurrence of ``needle`` in ``text``; 0 when absent."""
    idx = text.find(needle)
    return text.count("\n", 0, idx) + 1 if idx >= 0 else 0


def toml_error_line(exc: Exception) -> int:
    """The line a ``tomllib.TOMLDecodeError`` points at (its message says ``line N``); 0 when it names none."""
    m = re.search(r"line (\d+)", str(exc))
    return int(m.group(1)) if m else 0


def warning(path: str, line: int, message: str, code: str) -> Diagnostic:
    return Diagnostic(path, line, message, Severity.WARNING, code)


def error(path: str, line: int, message: str, code: str) -> Diagnostic:
    return Diagnostic(path, line, message, Severity.ERROR, code)


class PapernotesError(Exception):
    """Base class of every error the CLI reports without a traceback."""

    exit_code = 1


class ConfigError(PapernotesError):
    """``papernotes.toml`` or a taxonomy file is invalid; carries every problem found."""

    exit_code = 2

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


class PromptError(PapernotesError):
    """A prompt file that cannot be filled as written (an unknown placeholder, a stray ``$``): a bug to fix,
    never text to send to a model."""

    exit_code = 2


class CorpusError(PapernotesError):
    """The corpus cannot be read at all (missing directory, not a directory...)."""

    exit_code = 2


class BuildError(PapernotesError):
    """The build stopped (``--strict`` with errors, or an output problem); the previous site is untouched."""

    exit_code = 1

    def __init__(self, message: str, errors: list[Diagnostic] | tuple[Diagnostic, ...] = ()) -> None:
        super().__init__(message)
        self.errors = tuple(errors)
        """The notes' errors that stopped it (``--strict``), printed before the message."""
