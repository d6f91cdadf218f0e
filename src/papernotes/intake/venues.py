"""Venue ids (``ICLR2024``) from what sources say about a venue.

Input: venue texts (an OpenReview venue id ``ICLR.cc/2024/Conference``, a
BibTeX ``booktitle`` such as "Advances in Neural Information Processing Systems
36", a CSV cell "ICML 2024") plus a year, and the site taxonomy whose series
give the canonical spelling. Output: a venue id, or ``""`` when the text does
not name a known series with a year; the user then passes ``--venue``.
Workshop venues are never mapped to their main conference. How papers print
their venue ("Proceedings of the 33rd International Conference on Machine
Learning", "(AAAI-18)", "Findings of the Association for Computational
Linguistics: EMNLP 2021") is data: the venue taxonomy's ``printed`` patterns
(``papernotes.printed_venues``), which a site's venues file extends.
"""
from __future__ import annotations

import re

from papernotes.printed_venues import YEAR
from papernotes.taxonomy import VENUE_ID, Taxonomy

_DOMAIN_SUFFIX = re.compile(r"\.(?:cc|org|com|net|io|ai)$", re.I)
_ORDINAL = re.compile(
    r"\b(?:\d+(?:st|nd|rd|th)|(?:(?:twenty|thirty|forty|fifty|sixty)[- ]?)?"
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
    r"fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|fortieth|fiftieth))\b")
#: Words that vary between spellings of one venue name ("Proceedings of the 40th International ...").
_GENERIC = frozenset("""a an and the of on in for to at proceedings conference international annual meeting
    ieee cvf acm advances joint volume long short papers main track""".split())
#: Former names still common in BibTeX files (the printed patterns say the same of PDFs).
_ALIASES = {"nips": "NeurIPS", "neurips": "NeurIPS"}


def _core(text: str) -> str:
    text = re.sub(r"\([^)]*\)", " ", text.casefold())
    text = _ORDINAL.sub(" ", text)
    words = re.findall(r"[a-z]+", text)
    return " ".join(w for w in words if w not in _GENERIC)


def _series_id(name: str, taxonomy: Taxonomy) -> str:
    """Canonical spelling of a series name (``iclr`` -> ``ICLR``); unknown names kept as written."""
    series = taxonomy.series.get(name.lower())
    if series is not None:
        return series.id
    return _ALIASES.get(name.lower(), name)


def _from_path(text: str, taxonomy: Taxonomy) -> str:
    """OpenReview group ids: ``ICML.cc/2026/Conference``, ``aclweb.org/ACL/2024/Conference``."""
    parts = text.strip("/").split("/")
    for i, part in enumerate(parts):
        if YEAR.fullmatch(part) and i > 0:
            if taxonomy.printed.not_a_main_venue(text):  # ``…/Workshop/…``
                return ""
            series = _DOMAIN_SUFFIX.sub("", parts[i - 1])
            if re.fullmatch(r"[A-Za-z][A-Za-z-]*", series):
                return f"{_series_id(series, taxonomy)}{part}"
    return ""


def resolve_venue(hints: tuple[str, ...], year: int | None, taxonomy: Taxonomy) -> str:
    """The first hint that names a series (by id or full name) with a year, as ``SeriesYEAR``."""
    for hint in hints:
        hint = hint.strip()
        if not hint or taxonomy.printed.not_a_main_venue(hint):  # a workshop's line is not its conference's
            continue
        if m := re.fullmatch(r"([A-Za-z][A-Za-z-]*?)[-_]?((?:19|20)\d{2})", hint):
            return f"{_series_id(m.group(1), taxonomy)}{m.group(2)}"
        if "/" in hint and (found := _from_path(hint, taxonomy)):
            return found
        if (printed := taxonomy.printed.series_in(hint)) is not None:
            if (printed[1] or year) is not None:
                return f"{printed[0]}{printed[1] or year}"
            continue
        m = YEAR.search(hint)
        hint_year = int(m.group(1)) if m else year
        if hint_year is None:
            continue
        series = _match_series(hint, taxonomy)
        if series:
            return f"{series}{hint_year}"
    return ""


def _match_series(text: str, taxonomy: Taxonomy) -> str:
    """A series named in ``text``: its id as a whole word (earliest wins) or its full English name."""
    found: list[tuple[int, str]] = []
    names = {s.id: s.id for s in taxonomy.series.values()} | {k: v for k, v in _ALIASES.items()}
    for name, canonical in names.items():
        m = re.search(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", text, re.I)
        if m:
            found.append((m.start(), canonical))
    if found:
        return min(found)[1]
    # the whole text, else its first part: a PDF's "Proceedings of the … Conference on Machine Learning, Seoul, …"
    for core in dict.fromkeys((_core(text), _core(text.split(",")[0]))):
        for series in taxonomy.series.values():
            if core and series.en and _core(series.en) == core:
                return series.id
    m = re.fullmatch(r"\s*([A-Z][A-Za-z]{1,15})[\s'-]*(?:19|20)\d{2}\s*", text)
    return m.group(1) if m else ""


def normalise_venue(value: str, taxonomy: Taxonomy) -> str:
    """A ``--venue`` value as a venue id (``ICLR 2024`` -> ``ICLR2024``); ``""`` if it cannot be one."""
    value = value.strip()
    resolved = resolve_venue((value,), None, taxonomy)
    if resolved:
        return resolved
    return value if VENUE_ID.match(value) else ""
