"""Page kinds: one module per kind of page, each declaring ``KIND = PageKind(...)``.

The ``papernotes.site.plan.KINDS`` registry finds them; ``plan_site`` runs them
in ``order``. A new kind of page is a new module here, its template and a test.
"""
