"""Registries: where things multiply (sources, draft engines, page kinds), a name -> object table.

Each registered thing is one module of a package, named after it, that declares
itself with a module-level attribute (``SOURCE``, ``ENGINE``, ``KIND``…).
Listing the names reads only the package's directory, so the CLI can offer the
choices without importing anything; ``get`` imports the one module asked for.
Adding a source, an engine or a kind of page is adding one module (and its
test). Modules whose name starts with ``_`` are helpers, not entries.
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Iterator
from difflib import get_close_matches
from typing import Generic, Protocol, TypeVar


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


class UnknownName(LookupError):
    """A name that is not registered; the message lists the choices and the closest one."""


class Registry(Generic[T]):
    """The ``attr`` object of every public module of ``package``, keyed by module name."""

    def __init__(self, what: str, package: str, attr: str) -> None:
        self.what = what
        self.package = package
        self.attr = attr
        self._names: tuple[str, ...] | None = None
        self._loaded: dict[str, T] = {}

    def names(self) -> tuple[str, ...]:
        """Every registered name, sorted; imports nothing."""
        if self._names is None:
            spec = importlib.util.find_spec(self.package)
            paths = spec.submodule_search_locations if spec is not None else None
            self._names = tuple(sorted(info.name for info in pkgutil.iter_modules(paths or [])
                                       if not info.name.startswith("_")))
        return self._names

    def get(self, name: str) -> T:
        if name in self._loaded:
            return self._loaded[name]
        names = self.names()
        if name not in names:
            close = get_close_matches(name, list(names), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UnknownName(f"unknown {self.what} {name!r}{hint} (choose one of: {', '.join(names)})")
        module = importlib.import_module(f"{self.package}.{name}")
        item: T | None = getattr(module, self.attr, None)
        if item is None or item.name != name:
            raise RuntimeError(f"{module.__name__} must declare {self.attr} named {name!r}")
        self._loaded[name] = item
        return item

    def __iter__(self) -> Iterator[T]:
        return (self.get(name) for name in self.names())

    def __contains__(self, name: object) -> bool:
        return name in self.names()
