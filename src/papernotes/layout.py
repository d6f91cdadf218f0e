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
