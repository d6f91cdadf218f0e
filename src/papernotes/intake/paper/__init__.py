"""Reading stage: a paper's PDF becomes the text the pipeline drafts from and checks numbers against.

``read_paper(path, cache_folder)`` returns a ``PaperText`` or raises
``PaperError`` (not a PDF, truncated, encrypted, no text layer), which callers
catch to fall back to the abstract. One module per concern: ``extract``
(pypdf), ``layout`` (reading order), ``cleanup`` (junk, paragraphs),
``sections`` (headings, references, appendix), ``figures`` (figures and tables
from their captions, rendered; pypdfium2), ``cache``, ``read`` (the steps in
order). Needs the ``pdf`` extra (pypdf, pypdfium2, pillow).
"""
from typing import TYPE_CHECKING

from papernotes.intake.paper.cache import cache_dir
from papernotes.intake.paper.model import Figure, Paragraph, PaperError, PaperText, Section

if TYPE_CHECKING:
    from papernotes.intake.paper.read import find_corpus, paper_path, read_paper

__all__ = ["Figure", "Paragraph", "PaperError", "PaperText", "Section", "cache_dir", "find_corpus", "paper_path",
           "read_paper"]
_READ = ("find_corpus", "paper_path", "read_paper")


def __getattr__(name: str) -> object:
    """The names of ``read``, imported on first use: the site loads a paper's figure record (``cache``,
    ``model``) on a rebuild without the reading modules."""
    if name not in _READ:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # lazy: 60 ms (importtime, beside papernotes.intake.paper.cache): layout, cleanup, sections, front, figures
    from papernotes.intake.paper import read
    return getattr(read, name)
