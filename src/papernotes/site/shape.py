"""What shapes a site besides its notes, said once: papernotes' own files, the config, the files and folders it
names (taxonomy, theme), and the optional packages that change pages (``extras.site_features``).

In: a corpus directory. Out: the ``Project`` (config and taxonomy read, and the salt), and two digests of the
same inputs, compared at two costs. ``settings_stamp`` is compared before the config is read, from file sizes and modification times:
when it is equal, nothing that shapes the site changed and an up-to-date build stops after scanning the notes.
When it differs, ``site_salt`` says — from contents, after the config is read — whether the site must be made
anew (a new salt re-renders every page) or only compared note by note.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from papernotes import __version__
from papernotes.errors import CorpusError
from papernotes.extras import site_features
from papernotes.layout import CONFIG_NAME

if TYPE_CHECKING:
    from papernotes.config import SiteConfig
    from papernotes.site.figures import FigureStore
    from papernotes.taxonomy import Taxonomy

PACKAGE = Path(__file__).resolve().parents[1]
"""papernotes' own code, templates and assets."""


@dataclass(frozen=True)
class Project:
    """A corpus and everything that shapes its site besides the notes."""

    root: Path
    config: SiteConfig
    taxonomy: Taxonomy
    salt: str
    """``shape.site_salt``: a new salt rebuilds every page."""
    figures: FigureStore | None = None
    """The figures of the PDFs beside notes (``site/figures.py``); ``None``: pages show none."""


def open_project(corpus: Path) -> Project:
    """The corpus' config and taxonomy, read, and its salt."""
    # lazy: 144 ms (importtime, beside papernotes.site.shape): an up-to-date build never loads it
    from papernotes.config import (  # the schema (pydantic) loads only here
        load_config,
        load_site_taxonomy,
    )

    root = corpus.resolve()
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    config, config_fp = load_config(root)
    taxonomy = load_site_taxonomy(root, config)
    return Project(root, config, taxonomy, site_salt(root, config, config_fp, taxonomy))


def settings_stamp(root: Path, named: Sequence[str]) -> str:
    """A cheap stand-in for the salt, compared before reading any setting: it changes whenever the salt
    may have (papernotes' files, the config's bytes, the files and folders ``named``, the optional packages
    installed that change pages), judged by file sizes and modification times; empty (never equal) when the
    config cannot be read.

    ``named`` is what the config named when the stamp was last recorded (``SiteConfig.named_paths``, kept
    in the stamp itself: ``stamp_names``). While the config's bytes are the same it names the same files,
    and when they differ the stamp differs anyway: so the config is never parsed here, only by its schema."""
    digest = hashlib.blake2b(f"{__version__}|{','.join(site_features())}".encode(), digest_size=16)
    try:
        digest.update((root / CONFIG_NAME).read_bytes())
    except FileNotFoundError:
        pass
    except OSError:
        return ""
    for top in [PACKAGE, *(root / name for name in named)]:
        for dirpath, dirnames, filenames in os.walk(top) if top.is_dir() else [(str(top.parent), [], [top.name])]:
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                try:
                    st = os.stat(os.path.join(dirpath, name))
                except OSError:
                    continue
                digest.update(f"{dirpath}/{name}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    return "\n".join([digest.hexdigest(), *named])


def stamp_names(stamp: str) -> list[str]:
    """The files and folders a ``settings_stamp`` was taken over (see there)."""
    return stamp.split("\n")[1:]


def site_salt(root: Path, config: SiteConfig, config_fingerprint: str, taxonomy: Taxonomy) -> str:
    """Changes with papernotes' code and assets, the theme folder, the config, the taxonomy and the features
    of optional packages the config uses (installing the pdf extra shows the figures it could not): a new
    salt rebuilds every page."""
    used = [feature for feature in site_features() if getattr(config, feature)]  # named as the config's switch
    return (f"{__version__}|{_package_fingerprint(config.theme_path(root))}|{config_fingerprint}"
            f"|{taxonomy.fingerprint}|{config.language}|{','.join(used)}")


def _package_fingerprint(theme_dir: Path | None = None) -> str:
    """Changes when papernotes' own code, templates or assets change, or the site's theme folder does,
    so an upgrade or a theme edit rebuilds every page.

    Contents, not modification times: a reinstall or a checkout that leaves the files
    as they were must not turn the next build into a full one.
    """
    roots = [PACKAGE]
    if theme_dir is not None:
        roots += [theme_dir / "templates", theme_dir / "static", theme_dir / "i18n.toml"]
    digest = hashlib.blake2b(digest_size=8)
    for index, root in enumerate(roots):
        digest.update(f"\0{index}\0".encode())
        files = [str(root)] if root.is_file() else []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]  # pruned while walking: bytecode is no input
            files += [os.path.join(dirpath, name) for name in filenames]
        for path in sorted(files):
            digest.update(path[len(str(root)):].encode())
            with open(path, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()
