"""Reading stage, PDFium's edge: opening a PDF with pypdfium2, under the one lock every PDFium call holds.

In: the PDF's bytes. Out: a ``pypdfium2.PdfDocument`` or a ``PaperError`` saying why it cannot be opened
(as ``extract_document`` says it). Used by the figure finder, the table reader and the figure renderer.
"""
from __future__ import annotations

import threading
from typing import Any

from papernotes.extras import require
from papernotes.intake.paper.extract import sniff
from papernotes.intake.paper.model import PaperError

PDFIUM = threading.Lock()
"""PDFium is not thread-safe (pypdfium2 says so): every use of it, closing a page, a text page or a bitmap
included, holds this lock. The LLM engines read papers in worker threads; two of them in pdfium at once
crashed the process."""


def pdfium() -> Any:
    """The ``pypdfium2`` module, or the ``MissingExtra`` error naming the ``pdf`` extra."""
    return require("pypdfium2", "finding figures in PDFs")


def open_document(path: str, data: bytes) -> Any:
    """A ``pypdfium2.PdfDocument``; a ``PaperError`` for what cannot be opened. Call it holding ``PDFIUM``."""
    module = pdfium()
    sniff(path, data)
    try:
        return module.PdfDocument(data)
    except module.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise PaperError(path, "encrypted PDF: it needs a password; save an unprotected copy",
                             "encrypted") from None
        raise PaperError(path, f"cannot read PDF: {exc}", "unreadable") from None
