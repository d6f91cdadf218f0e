"""Citations of the papers behind notes: BibTeX, CSL-JSON and the Highwire Press ``citation_*`` fields.

In: resolved ``Entry`` records (a note placed against the taxonomy: its venue says the year and, by its
series' ``kind``, whether the paper is in a conference's proceedings, a journal or a preprint). Out: one
``Citation`` per note, which the note page shows (its ``<meta name="citation_*">`` tags and the Cite box),
and the text of a ``.bib`` or CSL-JSON file (the ``bib`` page kind and ``papernotes export``).

A citation is of the PAPER, never of the note: its title, authors, venue and arXiv id. Everything comes
from an untrusted note, so the BibTeX writer escapes every LaTeX special character (``{ } % & $ # _ ~ ^ \\``
and the ligatures ``--``, `````, ``''``, ``!```, ``?```), keeps other letters as UTF-8 (biblatex reads them)
and braces a name that holds the word "and". The writer is ours: building a site needs no BibTeX library
(tests read what it writes back with bibtexparser).
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from papernotes.corpus.model import Entry
from papernotes.markdown import title_text
from papernotes.text import FUNCTION_WORDS, latin_words, strip_accents

_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "%": r"\%", "&": r"\&", "$": r"\$", "#": r"\#",
             "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_SPECIAL = re.compile(r"[\\{}%&$#_~^]")
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=`)(?=`)|(?<=')(?=')|(?<=[!?])(?=`)|(?<=[<>,])(?=[<>,])")
"""Between two characters TeX fonts would join into one glyph (``--`` → –, ``!``` → ¡, ``<<`` → «):
an empty group ``{}`` there keeps both."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_SPACE = re.compile(r"\s+")
_AND = re.compile(r"\band\b", re.I)
_KEY_CHARS = re.compile(r"[^a-z0-9]")

#: BibTeX entry type and CSL type per venue kind (``taxonomy.VENUE_KINDS``).
_BIBTEX_TYPE = {"conference": "inproceedings", "journal": "article", "preprint": "misc"}
_CSL_TYPE = {"conference": "paper-conference", "journal": "article-journal", "preprint": "article"}


@dataclass(frozen=True, slots=True)
class Citation:
    """What a citation of a note's paper says; every text plain (unescaped), empty when the note lacks it."""

    key: str
    """Citation key: first author's surname, year and first title word (``ahmadian2024back``), ASCII."""
    kind: str
    """The venue series' kind: ``conference``, ``journal`` or ``preprint``."""
    title: str
    """The paper's title, math delimiters removed, whitespace collapsed."""
    authors: tuple[str, ...]
    """Author names as the note writes them."""
    year: str
    """The venue's year, e.g. ``2024``; empty for a venue id without one."""
    container: str
    """The conference or journal (the series' English name, else its short name); empty for a preprint."""
    arxiv_id: str
    """The arXiv identifier, e.g. ``2402.14740``; empty when the note has none."""

    @property
    def url(self) -> str:
        """The paper's arXiv page; empty without an arXiv id."""
        return f"https://arxiv.org/abs/{self.arxiv_id}" if self.arxiv_id else ""

    @property
    def pdf_url(self) -> str:
        """The paper's PDF on arXiv; empty without an arXiv id."""
        return f"https://arxiv.org/pdf/{self.arxiv_id}" if self.arxiv_id else ""

    @property
    def conference(self) -> str:
        """``citation_conference_title``: the container of a conference paper."""
        return self.container if self.kind == "conference" else ""

    @property
    def journal(self) -> str:
        """``citation_journal_title``: the container of a journal paper."""
        return self.container if self.kind == "journal" else ""


def plain(text: str) -> str:
    """``text`` on one line: control characters and runs of white space become one space."""
    return _SPACE.sub(" ", _CONTROL.sub(" ", text)).strip()


def citation_of(entry: Entry) -> Citation:
    """The citation of ``entry``'s paper (its key not yet made unique among others: ``unique_keys``)."""
    note, venue = entry.note, entry.venue
    title = plain(title_text(note.title))
    authors = tuple(a for a in (plain(a) for a in note.authors) if a)
    year = str(venue.year) if venue.year else ""
    container = "" if venue.kind == "preprint" else plain(venue.en or venue.name)
    return Citation(base_key(authors, year, title), venue.kind, title, authors, year, container, note.arxiv_id)


def citations(entries: Iterable[Entry]) -> list[Citation]:
    """The citations of ``entries`` in their order, each key unique among them."""
    return unique_keys([citation_of(e) for e in entries])


# ------------------------------------------------------------------ keys


def _ascii_word(text: str) -> str:
    return _KEY_CHARS.sub("", strip_accents(text.casefold()))


def surname(name: str) -> str:
    """The family name of ``name``: before the comma of ``Last, First``, else its last word."""
    name = name.strip()
    if "," in name:
        return name.split(",", 1)[0].strip()
    return name.rsplit(" ", 1)[-1]


def base_key(authors: Sequence[str], year: str, title: str) -> str:
    """First author's surname + year + first title word that is not a function word, in ASCII letters
    and digits; ``paper`` stands for a part none of whose letters is ASCII (a Chinese name or title)."""
    who = _ascii_word(surname(authors[0])) if authors else ""
    words = [w for w in (_ascii_word(w) for w in latin_words(title.casefold())) if w]
    what = next((w for w in words if w not in FUNCTION_WORDS), words[0] if words else "")
    return (who + year + what) if who or what else f"paper{year}"


def unique_keys(found: Sequence[Citation]) -> list[Citation]:
    """``found`` with keys made unique in order: the first keeps its key, the next ones get ``b``, ``c``…"""
    taken = {c.key for c in found}
    seen: set[str] = set()
    result = []
    for c in found:
        key = c.key
        if key in seen:
            n = 1
            while key in seen or key in taken:
                key = c.key + _suffix(n)
                n += 1
        seen.add(key)
        result.append(c if key == c.key else replace(c, key=key))
    return result



def _suffix(n: int) -> str:
    """``b``, ``c``, … ``z``, ``ba``, ``bb``…: the suffix of a key's ``n``-th repeat (``n`` from 1)."""
    letters = ""
    while True:
        n, r = divmod(n, 26)
        letters = chr(ord("a") + r) + letters
        if not n:
            return letters


# ------------------------------------------------------------------ BibTeX


def latex_escape(text: str) -> str:
    """``text`` as literal LaTeX: specials escaped, TeX ligatures broken, other characters kept as UTF-8."""
    text = _SPECIAL.sub(lambda m: _SPECIALS[m.group()], plain(text))
    return _LIGATURE.sub("{}", text)


def _protect_case(escaped: str) -> str:
    """Braces around each word with a capital after its first letter (``{LLMs}``, ``{ImageNet}``), so a
    bibliography style that lower-cases titles keeps it."""
    return " ".join(f"{{{w}}}" if any(ch.isupper() for ch in w[1:]) else w
                    for w in escaped.split(" "))


def _name(author: str) -> str:
    escaped = latex_escape(author)
    return f"{{{escaped}}}" if _AND.search(author) else escaped  # `and` separates names in BibTeX


def bibtex_entry(c: Citation) -> str:
    """One BibTeX entry, fields in a fixed order, only those the citation knows."""
    fields = [("title", _protect_case(latex_escape(c.title))),
              ("author", " and ".join(_name(a) for a in c.authors))]
    if c.kind == "conference":
        fields.append(("booktitle", latex_escape(c.container)))
    elif c.kind == "journal":
        fields.append(("journal", latex_escape(c.container)))
    fields.append(("year", c.year))
    if c.arxiv_id:
        fields += [("eprint", c.arxiv_id), ("archiveprefix", "arXiv"), ("url", c.url)]
    body = "".join(f"  {name} = {{{value}}},\n" for name, value in fields if value)
    return f"@{_BIBTEX_TYPE[c.kind]}{{{c.key},\n{body}}}\n"


def bibtex(found: Sequence[Citation]) -> str:
    """A ``.bib`` file of ``found`` (keys already unique), entries separated by a blank line."""
    return "\n".join(bibtex_entry(c) for c in found)


# ------------------------------------------------------------------ CSL-JSON


def csl_name(author: str) -> dict[str, str]:
    """A CSL name: ``family`` and ``given`` from ``Last, First`` or ``First Last``; one word, or a name
    without spaces (Chinese), as ``literal``."""
    if "," in author:
        family, given = (p.strip() for p in author.split(",", 1))
        return {"family": family, "given": given} if family and given else {"literal": author}
    if " " not in author:
        return {"literal": author}
    given, family = author.rsplit(" ", 1)
    return {"family": family, "given": given}


def csl_item(c: Citation) -> dict[str, object]:
    """One CSL-JSON item (the schema of citation-style-language/schema, ``csl-data.json``)."""
    item: dict[str, object] = {"id": c.key, "type": _CSL_TYPE[c.kind], "title": c.title}
    if c.authors:
        item["author"] = [csl_name(a) for a in c.authors]
    if c.year:
        item["issued"] = {"date-parts": [[int(c.year)]]}
    if c.container:
        item["container-title"] = c.container
    if c.arxiv_id:
        item.update({"number": f"arXiv:{c.arxiv_id}", "URL": c.url})
        if c.kind == "preprint":
            item["publisher"] = "arXiv"
    return item


def csl_json(found: Sequence[Citation]) -> str:
    """A CSL-JSON file of ``found``: an array of items, UTF-8, one item per line block."""
    return json.dumps([csl_item(c) for c in found], ensure_ascii=False, indent=1) + "\n"


FORMATS = {"bibtex": bibtex, "csl-json": csl_json}
"""Export format name -> writer of a list of citations (``papernotes export --format``)."""
