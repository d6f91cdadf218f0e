"""PDF source: papers read from their own first page, each filed beside its note.

Arguments are PDF files or folders (a folder's ``*.pdf``, sorted by name). Each
file is read by ``papernotes.intake.paper`` (the ``pdf`` extra): the title,
authors, abstract, arXiv id and venue line its first page prints. A file that
cannot be read (not a PDF, 0 bytes, truncated, encrypted, a scan without a text
layer) is one error naming it, and the other files are read. The venue is the
one the paper prints ("Published as a conference paper at ICLR 2026");
``--venue`` only fills in for the papers that print none. A first page that
does not give a plausible title or any author name (``PaperText.doubts``) is
one warning naming the file, and its note is marked for review (``review:``). Each ``Paper``
carries its file, which ingest copies beside the note (``slug.md`` ↔
``slug.pdf``).
"""
from __future__ import annotations

from pathlib import Path

from papernotes.errors import Diagnostic, error, warning
from papernotes.intake.sources import MAX_FIELD_CHARS, Paper, Source, SourceError, SourceRequest, SourceResult


def pdf_files(args: tuple[str, ...]) -> tuple[list[Path], list[Diagnostic]]:
    """The files named, folders replaced by their ``*.pdf``; a missing path or a folder without PDFs is an error."""
    files: list[Path] = []
    problems: list[Diagnostic] = []
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            found = sorted((p for p in path.iterdir() if p.suffix.lower() == ".pdf" and p.is_file()),
                           key=lambda p: p.name)
            if not found:
                problems.append(error(str(path), 0, "no PDF in this folder", "source"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            problems.append(error(str(path), 0, "file not found", "source"))
    return files, problems


def load(request: SourceRequest) -> SourceResult:
    # lazy: 142 ms (importtime, beside papernotes.intake.sources.pdf): only the source that reads notes or PDFs loads it
    from papernotes.intake.paper import PaperError, read_paper  # pypdf and friends: only when PDFs are read

    if request.from_file is not None:
        raise SourceError("pdf reads the PDF files and folders given as arguments, not --from-file")
    if not request.args:
        raise SourceError("pdf needs PDF files or folders")
    files, problems = pdf_files(request.args)
    papers: list[Paper] = []
    for path in files:
        try:
            text = read_paper(path, request.cache)
        except PaperError as exc:
            problems.append(error(str(path), 0, exc.reason, exc.kind))
            continue
        if not text.title:
            problems.append(error(str(path), 0, "no title on its first page; `papernotes new --pdf` takes --title",
                                  "no-title"))
            continue
        review = "; ".join(text.doubts)
        if review:
            problems.append(warning(str(path), 0, f"{review}; its note is marked for review", "doubtful-front"))
        papers.append(Paper(
            title=text.title[:1000], authors=text.authors, abstract=text.abstract[:MAX_FIELD_CHARS],
            venue_hints=(text.venue_text,) if text.venue_text else (), arxiv=text.arxiv, origin=(str(path),),
            pdf=path, review=review,
        ))
    return SourceResult(tuple(papers), tuple(problems))


SOURCE = Source("pdf", load, "PDF files or folders of PDFs (their *.pdf); each PDF is filed beside its note",
                venue_printed=True)
