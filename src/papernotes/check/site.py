"""Check stage, built site: does a published site still show the corpus honestly?

In: a built site directory and the corpus's resolved ``Entry`` records. Out:
``Diagnostic`` records. The site is read through the record the build wrote
(``site/manifest.py``) and the files present, never through its HTML, so any
theme passes as long as the build published what the corpus holds:

- every page the record names exists, every note of the corpus has its page and
  every note page its note;
- every note is listed exactly once on its venue × domain page, which lists
  nothing else and shows the right count (likewise domain and topic pages);
- the counts on home and venue pages, and every count shown next to a link,
  are the corpus's.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from papernotes.corpus.model import Entry
from papernotes.errors import Diagnostic, error
from papernotes.layout import MANIFEST_NAME
from papernotes.site.manifest import Manifest, ManifestError, read_manifest
from papernotes.site.plan import cell_url, domain_page_url, topic_url, venue_url


def site_problems(site: Path, entries: Sequence[Entry]) -> list[Diagnostic]:
    """Compare the built ``site`` with the corpus's ``entries``; every mismatch is an error."""
    if not site.is_dir():
        return [error(str(site), 0, "built site not found", "site-missing")]
    record = site / MANIFEST_NAME
    try:
        published = read_manifest(record.read_bytes())
    except FileNotFoundError:
        return [error(str(record), 0, "no record of the published pages: not a site built by this papernotes "
                                      "version; rebuild it", "site-manifest")]
    except (OSError, ManifestError) as exc:
        return [error(str(record), 0, f"unreadable record of the published pages: {exc}", "site-manifest")]
    problems = _missing_files(site, published)
    pages = published.by_url()
    for entry in entries:
        page = pages.get(entry.url)
        if page is None or page.kind != "note":
            problems.append(error(entry.note.path, 0, f"not published: {entry.url} is not a note page of {site}; "
                                                      "rebuild the site", "site-missing"))
    known = {entry.url for entry in entries}
    for page in published.pages:
        if page.kind == "note" and page.url not in known:
            problems.append(error(str(site / page.file), 0, f"note page {page.url} has no note in the corpus; "
                                                            "rebuild the site", "site-count"))
    expected = expected_listings(entries)
    problems += _listing_problems(site, published, expected)
    problems += _count_problems(site, published, entries, expected)
    return problems


def _missing_files(site: Path, published: Manifest) -> list[Diagnostic]:
    root = site.resolve()
    problems = []
    for page in published.pages:
        path = (site / page.file).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            problems.append(error(str(site / page.file), 0, f"page missing: the record lists {page.url or '/'} "
                                                            "but its file is not there", "site-missing"))
    return problems


def expected_listings(entries: Sequence[Entry]) -> dict[str, tuple[str, str, list[Entry]]]:
    """The listing pages the corpus calls for: URL -> (kind, what it lists, the notes it must list).

    URLs come from the planner's own functions (``site/plan.py``).
    """
    listings: dict[str, tuple[str, str, list[Entry]]] = {}
    for entry in entries:
        wanted = [(cell_url(entry.venue, entry.domain), "venue_domain",
                   f"venue × domain {entry.venue.id} × {entry.domain.slug}"),
                  (domain_page_url(entry.domain), "domain", f"domain {entry.domain.slug}")]
        wanted += [(topic_url(topic), "topic", f"topic {topic.slug}") for topic in entry.topics]
        for url, kind, label in wanted:
            listings.setdefault(url, (kind, label, []))[2].append(entry)
    return listings


def _listing_problems(site: Path, published: Manifest,
                      expected: dict[str, tuple[str, str, list[Entry]]]) -> list[Diagnostic]:
    pages = published.by_url()
    problems: list[Diagnostic] = []
    for url, (kind, label, group) in expected.items():
        page = pages.get(url)
        if page is None or page.kind != kind:
            for entry in group:
                problems.append(error(entry.note.path, 0, f"not listed: {site} has no {label} page at {url}; "
                                                          "rebuild the site", "site-missing"))
            continue
        want, listed = Counter(e.url for e in group), Counter(page.notes)
        if listed == want and page.count == len(group):
            continue
        unlisted = [e for e in group if e.url not in listed]
        for entry in unlisted:
            problems.append(error(entry.note.path, 0, f"not listed on its {label} page {url}; rebuild the site",
                                  "site-count"))
        extra = [u for u in listed if listed[u] > want[u]]
        detail = f"; {extra[0]} is listed {listed[extra[0]]}× but the corpus has it {want[extra[0]]}×" if extra else ""
        shown = "no count" if page.count is None else f"says {page.count}"
        problems.append(error(str(site / page.file), 0, f"lists {len(page.notes)} note(s), {shown}, the corpus has "
                                                        f"{len(group)} for {label}{detail}; rebuild the site",
                              "site-count"))
    for page in published.pages:
        if page.kind in ("venue_domain", "domain", "topic") and page.url not in expected:
            problems.append(error(str(site / page.file), 0, f"{page.kind} page {page.url} lists no note of the "
                                                            "corpus; rebuild the site", "site-count"))
    return problems


def _count_problems(site: Path, published: Manifest, entries: Sequence[Entry],
                    expected: dict[str, tuple[str, str, list[Entry]]]) -> list[Diagnostic]:
    """Counts on pages that list no notes (home, venues) and counts shown next to links, against the corpus."""
    truth = {url: len(group) for url, (_, _, group) in expected.items()}
    truth[""] = len(entries)
    for entry in entries:
        truth[venue_url(entry.venue)] = truth.get(venue_url(entry.venue), 0) + 1
    pages = published.by_url()
    problems = []
    for page in published.pages:
        where = str(site / page.file)
        if page.kind in ("home", "venue") and page.count != truth.get(page.url):
            problems.append(error(where, 0, f"says {page.count} note(s), the corpus has {truth.get(page.url, 0)}; "
                                            "rebuild the site", "site-count"))
        for url, count in page.links:
            right = truth.get(url, pages[url].count if url in pages else None)
            if url not in pages:
                problems.append(error(where, 0, f"links to {url}, which was not published", "site-missing"))
            elif count != right:
                problems.append(error(where, 0, f"says {url} has {count} note(s), the corpus has {right}; "
                                                "rebuild the site", "site-count"))
    return problems
