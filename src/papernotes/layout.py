"""Where papernotes keeps things: the config file and the cache folder of a corpus, the record of a site.

A module of its own (no imports) so that code on the fast path of a build, which
must not load the config schema, can name them.
"""
CONFIG_NAME = "papernotes.toml"
"""The site's settings, at the root of the corpus."""
CACHE_DIR = ".papernotes"
"""Caches, manifests and reports, at the root of the corpus; deleting it is always safe."""
MANIFEST_NAME = "papernotes-manifest.json"
"""The published-pages record, at the root of a built site (``site/manifest.py``)."""
PAPERS_DIR = "papers"
"""The read papers (``intake/paper/cache.py``), in the cache folder: ``ab/<sha256>.json.gz``."""
LANGUAGES = ("zh", "en")
"""Languages a note may be written in; also the suffixes of translations (``foo.en.md``)."""


def paper_of(note: str) -> str:
    """Where the PDF of the note at ``note`` lies: beside it, with the same stem (``foo.md`` ↔ ``foo.pdf``,
    as ``intake.paper.read.paper_path``); a translation's (``foo.en.md``) is its original's."""
    stem = note[:-3]
    for lang in LANGUAGES:
        if stem.endswith("." + lang) and len(stem) > 3 and stem[-4] != "/":
            return stem[:-3] + ".pdf"
    return stem + ".pdf"


def paper_cache_file(papers: str, sha256: str) -> str:
    """The file of the paper cache folder ``papers`` that holds the read PDF ``sha256`` (the build stats it for
    the places of a note's numbers without loading the reader)."""
    return f"{papers}/{sha256[:2]}/{sha256}.json.gz"
