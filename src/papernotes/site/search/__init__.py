"""Search stage: the static, sharded full-text index behind ``/search/``.

``search_files`` (``index.py``) is what the build calls; ``tokenize.py`` turns a
note into weighted terms, ``encode.py`` writes the shard format, ``store.py``
caches both between builds. The browser side is ``static/search-core.js``
(tokenising, decoding, ranking) and ``static/search.js`` (the page).
"""
from papernotes.site.search.index import SearchFiles, corpus_bodies, search_files

__all__ = ["SearchFiles", "corpus_bodies", "search_files"]
