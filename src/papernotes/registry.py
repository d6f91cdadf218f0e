"""Registries: where things multiply (sources, draft engines, page kinds), a name -> object table.

Each registered thing lives in its own module of a package and declares itself
with a module-level attribute (``SOURCE``, ``ENGINE``, ``KIND``…); the registry
finds the modules of the package on first use, so adding one means adding one
module (and its test). The CLI takes its choices from here.
"""
from __future__ import annotations

import importlib
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
    """Things of one kind found in the modules of ``package`` under the attribute ``attr``."""

    def __init__(self, what: str, package: str, attr: str) -> None:
        self.what = what
        self.package = package
        self.attr = attr
        self._items: dict[str, T] | None = None

    def _load(self) -> dict[str, T]:
        if self._items is None:
            found: dict[str, T] = {}
            package = importlib.import_module(self.package)
            for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
                if info.name.startswith("_"):
                    continue
                module = importlib.import_module(f"{self.package}.{info.name}")
                declared = getattr(module, self.attr, None)
                for item in declared if isinstance(declared, (tuple, list)) else (declared,):
                    if item is None:
                        continue
                    if item.name in found:
                        raise RuntimeError(f"{self.what} {item.name!r} is declared twice ({module.__name__})")
                    found[item.name] = item
            self._items = found
        return self._items

    def names(self) -> tuple[str, ...]:
        return tuple(self._load())

    def __iter__(self) -> Iterator[T]:
        return iter(self._load().values())

    def __contains__(self, name: object) -> bool:
        return name in self._load()

    def get(self, name: str) -> T:
        items = self._load()
        if name in items:
            return items[name]
        close = get_close_matches(name, list(items), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownName(f"unknown {self.what} {name!r}{hint} (choose one of: {', '.join(items)})")
