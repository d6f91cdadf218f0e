"""Search stage: the static, sharded full-text index behind ``/search/``.

``search_files`` and ``search_update`` (``index.py``) are what the build calls;
``tokenize.py`` turns a note into weighted terms, ``encode.py`` writes the shard
format, ``documents.py`` the result and facet data, ``store.py`` caches all of
it between builds. The browser side is ``static/search-core.js``
(tokenising, decoding, ranking) and ``static/search.js`` (the page).
"""
from papernotes.site.search.index import SearchFiles, corpus_bodies, forget, search_files, search_update, updatable

__all__ = ["SearchFiles", "corpus_bodies", "forget", "search_files", "search_update", "updatable"]
