"""The pure middle of the build, from in-memory notes: resolve (notes → entries) and plan (entries → pages).

No files, no templates: notes are parsed from strings, and the tests look at the
records each stage returns.
"""
from __future__ import annotations

from papernotes.config import SiteConfig
from papernotes.corpus.frontmatter import render
from papernotes.corpus.parse import parse_note
from papernotes.errors import Diagnostic
from papernotes.site.contexts import NoteContext, RedirectContext, VenueDomainContext
from papernotes.site.plan import KINDS, PlanSettings, Scope, SiteIndex, hot_topics, plan_site, resolve_local_link
from papernotes.site.resolve import resolve
from papernotes.site.strings import labels_for
from papernotes.taxonomy import load_taxonomy

TAXONOMY = load_taxonomy()


def note(path: str, body: str = "## 一句话总结\n一句话。\n", **front: object):  # type: ignore[no-untyped-def]
    front.setdefault("title", path.rsplit("/", 1)[-1].removesuffix(".md"))
    front.setdefault("venue", path.split("/")[0])
    front.setdefault("domain", path.split("/")[1])
    parsed, problems = parse_note(path, render(front, body))
    assert parsed is not None, problems
    return parsed, problems


def entries_of(*specs):  # type: ignore[no-untyped-def]
    notes, problems = [], []
    for spec in specs:
        parsed, found = spec
        notes.append(parsed)
        problems.extend(found)
    return resolve(notes, problems, TAXONOMY)


def settings(lang: str = "zh") -> PlanSettings:
    return PlanSettings(SiteConfig(language=lang), TAXONOMY, labels_for(lang))


# ---------------------------------------------------------------- resolve

def test_resolve_assigns_taxonomy_records_topics_and_urls() -> None:
    entries, problems = entries_of(note("ICML2024/optimization/a.md", topics=["optimizer"]))
    assert problems == []
    (entry,) = entries
    assert entry.url == "ICML2024/optimization/a/"
    assert entry.venue.id == "ICML2024" and entry.venue.known and entry.domain.known
    assert [t.slug for t in entry.topics] == ["optimizer"]


def test_resolve_reports_duplicates_and_keeps_the_first() -> None:
    entries, problems = entries_of(
        note("ICML2024/optimization/a.md", id="same"),
        note("ICML2024/optimization/b.md", id="same"),
        note("X/optimization/a.md", venue="ICML2024"),
    )
    assert [e.note.path for e in entries] == ["ICML2024/optimization/a.md"]
    assert sorted(d.code for d in problems) == ["duplicate-id", "duplicate-url"]
    assert all(isinstance(d, Diagnostic) and d.is_error for d in problems)


def test_resolve_refuses_unknown_venues_and_domains_with_suggestions_and_skips_notes_with_errors() -> None:
    broken, _ = note("ICML2024/optimization/z.md")
    entries, problems = resolve(
        [note("ICRL2024/optimization/a.md")[0], note("ICLR2024/optimisation/b.md")[0],
         note("ICLR2024/optimization/c.md")[0], broken],
        [Diagnostic(broken.path, 3, "bad")], TAXONOMY)
    assert [e.note.slug for e in entries] == ["c"]
    assert [(d.path, d.code) for d in problems] == [("ICRL2024/optimization/a.md", "unknown-venue"),
                                                    ("ICLR2024/optimisation/b.md", "unknown-domain")]
    assert all(d.is_error for d in problems)
    assert "unknown venue `ICRL2024`; did you mean `ICLR2024`" in problems[0].message
    assert "unknown domain `optimisation`; did you mean `optimization`?" in problems[1].message


def test_resolve_memoises_rule_topics_by_digest() -> None:
    parsed, _ = note("ICML2024/optimization/a.md", title="Federated learning with Adam")
    memo: dict[str, tuple[str, ...]] = {}
    (first,), _ = resolve([parsed], [], TAXONOMY, memo)
    assert memo[parsed.digest] == tuple(t.slug for t in first.topics) and first.topics
    memo[parsed.digest] = ("optimizer",)  # the memo wins over the rules
    (second,), _ = resolve([parsed], [], TAXONOMY, memo)
    assert [t.slug for t in second.topics] == ["optimizer"]


# ---------------------------------------------------------------- the shared index

def test_site_index_groups_and_orders() -> None:
    entries, _ = entries_of(
        note("ICML2024/optimization/b.md"), note("ICML2024/optimization/a.md"),
        note("ICLR2024/optimization/c.md"), note("NeurIPS2023/llm_reasoning/d.md"),
    )
    index = SiteIndex.of(entries)
    assert [v.id for v in index.venues] == ["ICML2024", "ICLR2024", "NeurIPS2023"]  # newest first
    assert [e.note.slug for e in index.by_cell[("ICML2024", "optimization")]] == ["a", "b"]
    assert len(index.by_domain["optimization"]) == 3
    assert {"", "ICML2024/", "ICML2024/optimization/", "domains/optimization/", "search/"} <= index.urls
    assert index.by_path["ICML2024/optimization/a.md"] == "ICML2024/optimization/a/"


def test_hot_topics_rank_by_count_then_first_appearance() -> None:
    entries, _ = entries_of(
        note("ICML2024/optimization/a.md", topics=["llm", "optimizer"]),
        note("ICML2024/optimization/b.md", topics=["optimizer", "llm"]),
        note("ICML2024/optimization/c.md", topics=["optimizer"]),
        note("ICML2024/optimization/d.md", topics=["zeroth_order"]),
    )
    hot = hot_topics(entries, "en", 5, 2)
    assert [(link.url, link.count) for link in hot] == [("topics/optimizer/", 3), ("topics/llm/", 2)]


def test_local_links_resolve_to_pages_or_none() -> None:
    by_path = {"V/d/b.md": "ICML2024/llm_reasoning/b/"}
    urls = {"", "ICML2024/", "topics/llm/"}
    assert resolve_local_link("V/e/a.md", "ICML2024/optimization/a/", "../d/b.md#x", by_path, urls) == \
        "ICML2024/llm_reasoning/b/#x"
    assert resolve_local_link("V/e/a.md", "ICML2024/optimization/a/", "../d/gone.md", by_path, urls) is None
    assert resolve_local_link("V/e/a.md", "ICML2024/optimization/a/", "/topics/llm/", by_path, urls) == "topics/llm/"
    assert resolve_local_link("V/e/a.md", "ICML2024/optimization/a/", "../../../../etc", by_path, urls) is None
    assert resolve_local_link("V/e/a.md", "ICML2024/optimization/a/", "#section", by_path, urls) == "#section"


# ---------------------------------------------------------------- planning

def test_every_registered_kind_plans_pages_with_fingerprints() -> None:
    entries, _ = entries_of(note("ICML2024/optimization/a.md", topics=["optimizer"]),
                            note("ICLR2024/optimization/b.md", topics=["optimizer"]))
    pages = plan_site(entries, settings(), "salt")
    templates = {p.template for p in pages}
    assert {"venue_domain.html", "note.html", "venue.html", "domain.html", "domains.html", "topic.html",
            "topics.html", "home.html", "search.html", "404.html"} <= templates
    assert len({p.url for p in pages}) == len(pages) and all(len(p.fingerprint) == 32 for p in pages)
    assert set(KINDS.names()) >= {"note", "venue_domain", "home", "redirect"}


def test_fingerprints_follow_what_a_page_shows() -> None:
    first, _ = entries_of(note("ICML2024/optimization/a.md"), note("ICML2024/optimization/b.md"))
    renamed, _ = entries_of(note("ICML2024/optimization/a.md", title="Renamed"), note("ICML2024/optimization/b.md"))
    before = {p.url: p.fingerprint for p in plan_site(first, settings(), "salt")}
    after = {p.url: p.fingerprint for p in plan_site(renamed, settings(), "salt")}
    changed = {url for url in before if before[url] != after[url]}
    # a's own page, its neighbour b (prev/next label), and the listings that show its title
    assert {"ICML2024/optimization/a/", "ICML2024/optimization/b/", "ICML2024/optimization/",
            "domains/optimization/"} <= changed
    assert "ICML2024/" not in changed and "domains/" not in changed  # counts only
    assert {p.url: p.fingerprint for p in plan_site(first, settings(), "other salt")} != before


def test_a_scope_limits_planning_to_its_groups() -> None:
    entries, _ = entries_of(note("ICML2024/optimization/a.md"), note("ICML2024/llm_reasoning/b.md"),
                            note("ICLR2024/optimization/c.md"))
    scope = Scope(notes=frozenset({"ICML2024/optimization/a.md"}), cells=frozenset({("ICML2024", "optimization")}))
    pages = plan_site(entries, settings(), "salt", scope)
    assert {p.url for p in pages} == {"ICML2024/optimization/a/", "ICML2024/optimization/",
                                      "bib/ICML2024-optimization.bib"}
    cell = next(p for p in pages if p.template == "venue_domain.html")
    assert isinstance(cell.context, VenueDomainContext)
    assert [(link.url, link.count) for link in cell.context.cross] == [("ICLR2024/optimization/", 1)]


def test_neighbours_and_aliases() -> None:
    entries, _ = entries_of(
        note("ICML2024/optimization/a.md", aliases=["old/a/", "ICML2024/optimization/b/", "search/"]),
        note("ICML2024/optimization/b.md"), note("ICML2024/optimization/c.md"),
    )
    pages = {p.url: p for p in plan_site(entries, settings(), "salt")}
    middle = pages["ICML2024/optimization/b/"].context
    assert isinstance(middle, NoteContext)
    assert (middle.prev.url, middle.next.url) == ("ICML2024/optimization/a/", "ICML2024/optimization/c/")
    redirect = pages["old/a/"].context
    assert isinstance(redirect, RedirectContext) and redirect.target == "ICML2024/optimization/a/"
    # an alias never takes the URL of a real page
    assert pages["ICML2024/optimization/b/"].template == "note.html" and pages["search/"].template == "search.html"
