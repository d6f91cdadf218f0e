"""Taxonomies: venues, research domains and topics, loaded from data files.

Input: the TOML files shipped in ``papernotes/data`` plus optional site files
named in ``papernotes.toml`` (``[taxonomy]``), which add entries or override
shipped ones field by field. Output: an immutable ``Taxonomy`` that every later
stage uses to name, order and label things. Nothing here is a constant in code:
icons, names and match rules all come from the data files.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from papernotes.phrases import PhraseIndex
from papernotes.errors import ConfigError, Diagnostic, error, text_line, toml_error_line
from papernotes.printed_venues import PrintedVenues, assemble, compile_patterns, read_printed

VENUE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")
SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_VENUE_PARTS = re.compile(r"^(?P<series>[A-Za-z][A-Za-z_.-]*?)[-_]?(?P<year>(?:19|20)\d{2})$")
FIRST_YEAR, LAST_YEAR = 1900, 2099
"""The years ``_VENUE_PARTS`` reads as a venue's year."""
_TRAILING_NUMBER = re.compile(r"\d+$")
_LISTED = "`papernotes taxonomy {kind}` lists them"
DEFAULT_VENUE_ICON = "📄"
DEFAULT_DOMAIN_ICON = "📂"
HINT_WEIGHT = 0.5
"""Weight of a domain's ``hints`` as evidence, against 1 for its ``rules``."""
VENUE_KINDS = ("conference", "journal", "preprint")
"""What a series publishes (its ``kind``): how a citation names it (``cite.py``)."""


@dataclass(frozen=True, slots=True)
class Venue:
    id: str
    """Identifier used in front matter and URLs, e.g. ``ICML2026``."""
    name: str
    """Series display name, e.g. ``ICML``."""
    year: int | None
    icon: str
    date: dt.date
    """Conference date used for ordering venues, newest first."""
    zh: str = ""
    en: str = ""
    known: bool = True
    """False when the series is not in the taxonomy (the page still builds)."""
    kind: str = "conference"
    """The series' ``kind``: ``conference``, ``journal`` or ``preprint`` (citations name it by it)."""

    @property
    def sort_key(self) -> tuple[int, str]:
        return (-self.date.toordinal(), self.id)


@dataclass(frozen=True, slots=True)
class Domain:
    slug: str
    icon: str
    zh: str
    en: str
    rules: tuple[str, ...] = field(default=(), repr=False)
    """Phrases that name the domain (weight 1 as evidence for the rules classifier)."""
    order: int = 0
    """Position in the taxonomy file; ties in counts are broken by it."""
    known: bool = True
    hints: tuple[str, ...] = field(default=(), repr=False)
    """Phrases that point at the domain but also occur elsewhere (weight ``HINT_WEIGHT``)."""
    absorbs: tuple[str, ...] = field(default=(), repr=False)
    """Broader or technique domains whose evidence counts for this one when a note holds this one's own: a
    segmentation method for MRI is medical imaging, chain-of-thought for an LLM is LLM reasoning."""
    venues: tuple[str, ...] = field(default=(), repr=False)
    """Venue series (``MICCAI``) and track or workshop names whose papers are mostly of this domain."""
    arxiv: tuple[str, ...] = field(default=(), repr=False)
    """arXiv categories (``cs.CL``) whose primary papers are mostly of this domain."""

    def name(self, lang: str) -> str:
        return self.en if lang == "en" else self.zh


@dataclass(frozen=True, slots=True)
class Topic:
    slug: str
    zh: str
    en: str
    rules: tuple[str, ...] = field(default=(), repr=False)
    order: int = 0
    known: bool = True
    fields: tuple[str, ...] = field(default=(), repr=False)
    """Note fields the rules read (``title``, ``keywords``, ``summary``); empty: all three."""

    def name(self, lang: str) -> str:
        return self.en if lang == "en" else self.zh


@dataclass(frozen=True, slots=True)
class Series:
    id: str
    name: str
    icon: str
    month: int
    zh: str = ""
    en: str = ""
    kind: str = "conference"
    """``conference``, ``journal`` or ``preprint`` (``VENUE_KINDS``)."""
    printed: tuple[str, ...] = ()  # regexes naming the series in a printed venue line (printed_venues)


@dataclass(frozen=True)
class Taxonomy:
    series: dict[str, Series]
    """Keyed by lower-case series id."""
    venue_dates: dict[str, dt.date]
    domains: dict[str, Domain]
    topics: dict[str, Topic]
    fingerprint: str
    _topic_names: dict[str, str] = field(default_factory=dict)
    synonyms: tuple[tuple[str, ...], ...] = ()
    """Search synonym groups: a query that is one of a group's terms also finds the others."""
    whole_terms: tuple[str, ...] = ()
    """Terms that contain a rule phrase but mean something else (``位置编码`` holds ``编码``): a rule never
    matches inside one (``papernotes.phrases``)."""
    printed: PrintedVenues = PrintedVenues()
    """How papers print their venue, from the venues files' ``[printed]`` tables and series ``printed`` lists."""

    def venue(self, venue_id: str) -> Venue:
        """The venue record for an id; unknown series still get a name, year and date."""
        return self._venue(venue_id)

    @cached_property
    def _venue_cache(self) -> dict[str, Venue]:
        return {}

    def _venue(self, venue_id: str) -> Venue:
        cached = self._venue_cache.get(venue_id)
        if cached is not None:
            return cached
        m = _VENUE_PARTS.match(venue_id)
        series_id, year = (m["series"], int(m["year"])) if m else (venue_id, None)
        series = self.series.get(series_id.lower())
        month = series.month if series else 1
        date = self.venue_dates.get(venue_id) or dt.date(year or 1970, month, 1)
        venue = Venue(
            id=venue_id,
            name=series.name if series else series_id,
            year=year,
            icon=series.icon if series else DEFAULT_VENUE_ICON,
            date=date,
            zh=series.zh if series else "",
            en=series.en if series else "",
            known=series is not None and year is not None,
            kind=series.kind if series else "conference",
        )
        self._venue_cache[venue_id] = venue
        return venue

    @cached_property
    def _series_ids(self) -> frozenset[str]:
        """Series ids as their venue files spell them."""
        return frozenset(s.id for s in self.series.values())

    def venue_problem(self, venue_id: str) -> str | None:
        """Why ``venue_id`` is not a venue of this taxonomy (with the closest ones), or ``None`` when it is.

        Accepted: an id listed as a ``[[venue]]``, or a series ``id`` spelled as in
        its venue file followed by a year (``ICLR2031`` before anyone lists it).
        """
        if venue_id in self.venue_dates:
            return None
        m = _VENUE_PARTS.match(venue_id)
        exact = self._series_ids
        if m and m["series"] in exact and venue_id == f"{m['series']}{m['year']}":
            return None
        if not m:
            guesses = _did_you_mean(suggest(venue_id, sorted(self.venue_dates)))
            number = _TRAILING_NUMBER.search(venue_id)
            if number is None:
                return f"venue `{venue_id}` has no year: a venue is a series and a year such as ICLR2024{guesses}"
            if len(number[0]) != 4:
                return (f"venue `{venue_id}`: {number[0]} is not a year: a venue is a series and a four-digit year "
                        f"such as ICLR2024{guesses}")
            return (f"venue `{venue_id}`: year {number[0]} is implausible (expected {FIRST_YEAR}–{LAST_YEAR})"
                    f"{guesses}")
        spellings = {f"{series}{m['year']}" for series in exact} | set(self.venue_dates)
        return (f"unknown venue `{venue_id}`{_did_you_mean(suggest(venue_id, sorted(spellings)))} "
                f"({_LISTED.format(kind='venues')}; a new series goes in a venues file named under [taxonomy] in "
                "papernotes.toml)")

    def domain_problem(self, slug: str) -> str | None:
        """Why ``slug`` is not a domain of this taxonomy (with the closest ones), or ``None`` when it is."""
        if slug in self.domains:
            return None
        spellings: dict[str, str] = {}
        for d in self.domains.values():
            for text in (d.slug, d.en):
                spellings.setdefault(text, d.slug)
        guesses = list(dict.fromkeys(spellings[t] for t in suggest(slug, spellings, limit=6)))
        return (f"unknown domain `{slug}`{_did_you_mean(guesses[:3])} "
                f"({_LISTED.format(kind='domains')}; a new domain goes in a domains file named under [taxonomy] in "
                "papernotes.toml)")

    def domain(self, slug: str) -> Domain:
        found = self.domains.get(slug)
        if found is not None:
            return found
        return Domain(slug, DEFAULT_DOMAIN_ICON, slug, slug, order=len(self.domains), known=False)

    def topic(self, name: str) -> Topic:
        """Resolve a topic given by slug, zh or en name (case-insensitive); unknown names become ad-hoc topics."""
        slug = self._topic_names.get(name.strip().casefold())
        if slug is not None:
            return self.topics[slug]
        adhoc = slugify(name) or hashlib.sha1(name.encode()).hexdigest()[:8]
        return Topic(adhoc, name.strip(), name.strip(), order=len(self.topics), known=False)

    @cached_property
    def topic_index(self) -> PhraseIndex:
        return PhraseIndex([(rule, t.slug, 1.0) for t in self.topics.values() for rule in t.rules], self.whole_terms)

    @cached_property
    def domain_index(self) -> PhraseIndex:
        return PhraseIndex([(phrase, d.slug, weight) for d in self.domains.values()
                            for phrases, weight in ((d.rules, 1.0), (d.hints, HINT_WEIGHT)) for phrase in phrases],
                           self.whole_terms)


def edit_distance(a: str, b: str, limit: int) -> int:
    """Damerau-Levenshtein distance (a swap of two neighbours costs 1), or ``limit + 1`` once it exceeds ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, row = row, current
    return row[-1]


def suggest(word: str, candidates: Iterable[str], limit: int = 3) -> list[str]:
    """The candidates closest to ``word``: those at the smallest case-insensitive edit distance, which may be at
    most a third of its length (at least 1, at most 3); swapped letters first. ``[]`` when none is that close."""
    folded = word.casefold()
    allowed = max(1, min(3, len(folded) // 3))
    scored = []
    for candidate in candidates:
        other = candidate.casefold()
        distance = edit_distance(folded, other, allowed)
        if distance <= allowed and candidate != word:
            scored.append((distance, sorted(other) != sorted(folded), candidate))
    best = min((d for d, _, _ in scored), default=0)
    return [c for d, _, c in sorted(scored) if d == best][:limit]


def _did_you_mean(guesses: list[str]) -> str:
    if not guesses:
        return ""
    return "; did you mean " + " or ".join(f"`{g}`" for g in guesses) + "?"


_SLUG_DROP = re.compile(r"[^\w\s-]", re.UNICODE)
_SLUG_SPACE = re.compile(r"[\s_-]+")


def slugify(text: str, max_len: int = 80) -> str:
    """Lower-case, keep letters/digits of any script, join words with ``_``; cut at a word's end."""
    return cut_words(_SLUG_SPACE.sub("_", _SLUG_DROP.sub("", text.casefold())).strip("_"), max_len, "_")


def cut_words(text: str, max_len: int, sep: str) -> str:
    """``text`` cut to ``max_len`` characters at a word's end (words joined by ``sep``); one long word is cut."""
    head = text[:max_len + 1]
    return text if len(text) <= max_len else head.rsplit(sep, 1)[0].rstrip(sep) if sep in head[1:] else text[:max_len]


# ---------------------------------------------------------------- loading

def _read_toml(path: Path, label: str, problems: list[Diagnostic]) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        problems.append(error(str(path), 0, f"cannot read {label}: {exc.strerror}", "taxonomy"))
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        problems.append(error(str(path), toml_error_line(exc), f"invalid TOML in {label}: {exc}", "taxonomy"))
        return {}


def _entries(data: dict[str, Any], key: str, path: Path, problems: list[Diagnostic]) -> list[dict[str, Any]]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        problems.append(error(str(path), 0, f"`{key}` must be an array of tables ([[{key}]])", "taxonomy"))
        return []
    return value


def _str_field(entry: dict[str, Any], name: str, where: tuple[str, int], problems: list[Diagnostic],
               required: bool = True, default: str = "") -> str:
    value = entry.get(name, default)
    if isinstance(value, str) and (value or not required):
        return value
    problems.append(error(where[0], where[1], f"field `{name}` must be a non-empty string", "taxonomy"))
    return default


def _rules(entry: dict[str, Any], where: tuple[str, int], problems: list[Diagnostic],
           key: str = "rules", old: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A list of phrases; ``old`` (an overridden entry's) when the key is absent."""
    if key not in entry:
        return old
    value = entry[key]
    if isinstance(value, list) and all(isinstance(v, str) and v for v in value):
        return tuple(value)
    problems.append(error(where[0], where[1], f"`{key}` must be a list of non-empty strings", "taxonomy"))
    return ()


class _Loader:
    """Accumulates taxonomy entries from the shipped files and site overrides."""

    def __init__(self) -> None:
        self.problems: list[Diagnostic] = []
        self.series: dict[str, Series] = {}
        self.venue_dates: dict[str, dt.date] = {}
        self.domains: dict[str, Domain] = {}
        self.topics: dict[str, Topic] = {}
        self.synonyms: list[tuple[str, ...]] = []
        self.whole_terms: list[str] = []
        self.domain_where: dict[str, tuple[str, int]] = {}
        self.printed: dict[str, tuple[re.Pattern[str], ...]] = {}
        self.digest = hashlib.sha256()

    def _load(self, path: Path, label: str) -> tuple[dict[str, Any], str]:
        data = _read_toml(path, label, self.problems)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError:
            text = ""
        self.digest.update(text.encode())
        return data, text

    def venues(self, path: Path) -> None:
        data, text = self._load(path, "venue taxonomy")
        for entry in _entries(data, "series", path, self.problems):
            sid = entry.get("id")
            where = (str(path), text_line(text, f'"{sid}"'))
            if not isinstance(sid, str) or not sid:
                self.problems.append(error(str(path), 0, "a [[series]] entry has no `id`", "taxonomy"))
                continue
            old = self.series.get(sid.lower())
            month = entry.get("month", old.month if old else 1)
            if not isinstance(month, int) or not 1 <= month <= 12:
                self.problems.append(error(*where, f"series {sid}: `month` must be 1-12", "taxonomy"))
                month = 1
            kind = entry.get("kind", old.kind if old else "conference")
            if kind not in VENUE_KINDS:
                self.problems.append(error(*where, f"series {sid}: `kind` must be one of {', '.join(VENUE_KINDS)}",
                                           "taxonomy"))
                kind = "conference"
            self.series[sid.lower()] = Series(
                id=sid,
                name=_str_field(entry, "name", where, self.problems, False, old.name if old else sid),
                icon=_str_field(entry, "icon", where, self.problems, False, old.icon if old else DEFAULT_VENUE_ICON),
                month=month,
                zh=_str_field(entry, "zh", where, self.problems, False, old.zh if old else ""),
                en=_str_field(entry, "en", where, self.problems, False, old.en if old else ""),
                kind=kind,
                printed=tuple(p.pattern for p in compile_patterns(entry["printed"], where, "printed", self.problems))
                if "printed" in entry else old.printed if old else (),
            )
        for what, patterns in read_printed(data, path, text, self.problems).items():
            self.printed[what] = self.printed.get(what, ()) + patterns  # a site's patterns add to the shipped ones
        for entry in _entries(data, "venue", path, self.problems):
            vid, date = entry.get("id"), entry.get("date")
            where = (str(path), text_line(text, f'"{vid}"'))
            if not isinstance(vid, str) or not VENUE_ID.match(vid):
                self.problems.append(error(*where, f"venue id {vid!r} must look like ICML2026", "taxonomy"))
                continue
            if isinstance(date, str):
                try:
                    date = dt.date.fromisoformat(date)
                except ValueError:
                    pass
            if not isinstance(date, dt.date):
                self.problems.append(error(*where, f"venue {vid}: `date` must be YYYY-MM-DD", "taxonomy"))
                continue
            self.venue_dates[vid] = date

    def domain_file(self, path: Path) -> None:
        data, text = self._load(path, "domain taxonomy")
        for entry in _entries(data, "domain", path, self.problems):
            slug = entry.get("slug")
            where = (str(path), text_line(text, f'"{slug}"'))
            if not isinstance(slug, str) or not SLUG.match(slug):
                self.problems.append(error(*where, f"domain slug {slug!r} must be lower-case letters, digits, _ or -", "taxonomy"))
                continue
            old = self.domains.get(slug)
            self.domain_where[slug] = where
            self.domains[slug] = Domain(
                slug=slug,
                icon=_str_field(entry, "icon", where, self.problems, False, old.icon if old else DEFAULT_DOMAIN_ICON),
                zh=_str_field(entry, "zh", where, self.problems, old is None, old.zh if old else ""),
                en=_str_field(entry, "en", where, self.problems, old is None, old.en if old else ""),
                rules=_rules(entry, where, self.problems, "rules", old.rules if old else ()),
                order=old.order if old else len(self.domains),
                hints=_rules(entry, where, self.problems, "hints", old.hints if old else ()),
                absorbs=_rules(entry, where, self.problems, "absorbs", old.absorbs if old else ()),
                venues=_rules(entry, where, self.problems, "venues", old.venues if old else ()),
                arxiv=_rules(entry, where, self.problems, "arxiv", old.arxiv if old else ()),
            )

    def topic_file(self, path: Path) -> None:
        data, text = self._load(path, "topic taxonomy")
        for entry in _entries(data, "topic", path, self.problems):
            slug = entry.get("slug")
            where = (str(path), text_line(text, f'"{slug}"'))
            if not isinstance(slug, str) or not SLUG.match(slug):
                self.problems.append(error(*where, f"topic slug {slug!r} must be lower-case letters, digits, _ or -", "taxonomy"))
                continue
            old = self.topics.get(slug)
            self.topics[slug] = Topic(
                slug=slug,
                zh=_str_field(entry, "zh", where, self.problems, old is None, old.zh if old else ""),
                en=_str_field(entry, "en", where, self.problems, old is None, old.en if old else ""),
                rules=_rules(entry, where, self.problems, "rules", old.rules if old else ()),
                order=old.order if old else len(self.topics),
                fields=_rules(entry, where, self.problems, "fields", old.fields if old else ()),
            )
            if unknown := set(self.topics[slug].fields) - {"title", "keywords", "summary"}:
                self.problems.append(error(*where, f"topic {slug}: `fields` may name title, keywords and summary, "
                                                   f"not {', '.join(sorted(unknown))}", "taxonomy"))
        self.whole_terms.extend(_rules(data, (str(path), text_line(text, "whole_terms")), self.problems,
                                       "whole_terms"))

    def synonym_file(self, path: Path) -> None:
        data, text = self._load(path, "search synonyms")
        for k, entry in enumerate(_entries(data, "synonyms", path, self.problems)):
            terms = entry.get("terms")
            if isinstance(terms, list) and len(terms) >= 2 and all(isinstance(t, str) and t.strip() for t in terms):
                self.synonyms.append(tuple(terms))
            else:  # the line of the k-th [[synonyms]] table
                starts = [m.start() for m in re.finditer(r"^[ \t]*\[\[[ \t]*synonyms[ \t]*\]\]", text, re.M)]
                line = text.count("\n", 0, starts[k]) + 1 if k < len(starts) else 0
                self.problems.append(error(str(path), line, "`terms` of a [[synonyms]] table must list two or more "
                                                            "non-empty strings", "taxonomy"))

    def result(self) -> Taxonomy:
        for d in self.domains.values():
            for slug in d.absorbs:
                if slug not in self.domains:
                    self.problems.append(error(*self.domain_where[d.slug], f"domain {d.slug}: `absorbs` names an unknown domain "
                                                             f"`{slug}`", "taxonomy"))
        if self.problems:
            raise ConfigError(self.problems)
        names: dict[str, str] = {}
        for topic in self.topics.values():
            for name in (topic.en, topic.zh, topic.slug):
                names[name.casefold()] = topic.slug
        printed = assemble(self.printed, ((s.id, s.printed) for s in self.series.values()))
        return Taxonomy(self.series, self.venue_dates, self.domains, self.topics,
                        self.digest.hexdigest()[:16], names, tuple(self.synonyms), tuple(self.whole_terms),
                        printed)


def shipped_file(name: str) -> Path:
    return Path(str(resources.files("papernotes") / "data" / name))


def load_taxonomy(venues: list[Path] = (), domains: list[Path] = (), topics: list[Path] = (),  # type: ignore[assignment]
                  synonyms: list[Path] = ()) -> Taxonomy:  # type: ignore[assignment]
    """Shipped taxonomy overlaid with site files; every problem is reported at once."""
    loader = _Loader()
    for path in [shipped_file("venues.toml"), *venues]:
        loader.venues(path)
    for path in [shipped_file("domains.toml"), *domains]:
        loader.domain_file(path)
    for path in [shipped_file("topics.toml"), *topics]:
        loader.topic_file(path)
    for path in [shipped_file("synonyms.toml"), *synonyms]:
        loader.synonym_file(path)
    return loader.result()
