"""Reading stage: a paper's PDF becomes the text the pipeline drafts from and checks numbers against.

``read_paper(path, cache_folder)`` returns a ``PaperText`` or raises
``PaperError`` (not a PDF, truncated, encrypted, no text layer), which callers
catch to fall back to the abstract. One module per concern: ``extract``
(pypdf), ``layout`` (reading order), ``cleanup`` (junk, paragraphs),
``sections`` (headings, references, appendix), ``figures`` (figures and tables
from their captions, rendered; pypdfium2), ``cache``, ``read`` (the steps in
order). Needs the ``pdf`` extra (pypdf, pypdfium2, pillow).
"""
from papernotes.intake.paper.cache import cache_dir
from papernotes.intake.paper.model import Figure, Paragraph, PaperError, PaperText, Section
from papernotes.intake.paper.read import find_corpus, paper_path, read_paper

__all__ = ["Figure", "Paragraph", "PaperError", "PaperText", "Section", "cache_dir", "find_corpus", "paper_path",
           "read_paper"]
