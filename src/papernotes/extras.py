"""Optional dependencies: which extra brings which package, and a clear error when one is missing.

Building and serving a site needs none of them (``pip install papernotes``).
The pipeline stages that call out to the world or fit models import their
package through ``require``, which names the extra to install instead of
failing with an ``ImportError`` traceback.
"""
from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from papernotes.errors import PapernotesError
from papernotes.testhooks import hidden_modules

#: Importable module -> (extra that installs it, distribution name).
EXTRAS: dict[str, tuple[str, str]] = {
    "openai": ("llm", "openai"),
    "sklearn": ("classify", "scikit-learn"),
    "arxiv": ("ingest", "arxiv"),
    "bibtexparser": ("ingest", "bibtexparser"),
    "pypdf": ("pdf", "pypdf"),
    "pypdfium2": ("pdf", "pypdfium2"),
    "PIL": ("pdf", "pillow"),
}

SITE_FEATURES: dict[str, tuple[str, ...]] = {
    "figures": ("pypdfium2", "PIL"),
}
"""What optional packages change on a built site: feature (named as the config switch that turns it on) -> the
modules it needs. ``site_features`` is part of what shapes a site (``site/shape.py``): installing or removing
one of these rebuilds the pages."""


class MissingExtraError(PapernotesError):
    """A command needs an optional package that is not installed."""

    exit_code = 2


def available(module: str) -> bool:
    """Whether ``module`` can be imported (a test can hide one: ``testhooks.hidden_modules``)."""
    return module not in hidden_modules() and importlib.util.find_spec(module) is not None


def site_features() -> tuple[str, ...]:
    """The ``SITE_FEATURES`` whose packages are all installed."""
    return tuple(feature for feature, modules in SITE_FEATURES.items() if all(map(available, modules)))


def missing_message(module: str, feature: str) -> str:
    extra, dist = EXTRAS[module]
    return (f"{feature} needs the {dist} package, which a plain install leaves out: "
            f"pip install 'papernotes[{extra}]' (or 'papernotes[pipeline]' for every pipeline stage)")


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` or raise ``MissingExtraError`` naming the extra that provides it."""
    if not available(module):
        raise MissingExtraError(missing_message(module, feature))
    return importlib.import_module(module)
