"""The ``json`` source: a list of paper objects, or ``{"papers": [...]}`` (see ``_table`` for the fields)."""
from papernotes.intake.sources import Source
from papernotes.intake.sources._table import load

SOURCE = Source("json", load, ".json files: a list of papers")
