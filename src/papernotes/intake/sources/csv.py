"""The ``csv`` source: a spreadsheet of papers, one per row (see ``_table`` for the columns)."""
from papernotes.intake.sources import Source
from papernotes.intake.sources._table import load

SOURCE = Source("csv", load, ".csv files, one paper per row")
