"""Related papers: the lists themselves, their agreement with exact cosine, and how builds keep them current."""
from __future__ import annotations

import math
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from conftest import EXAMPLES, example_notes, write_note
from papernotes.site.build import build
from papernotes.site.related import NEIGHBOURS, RelatedInput, paper_key, quantised_idf, related, terms_of
from sitecheck import clean_build, dead_links, site_contents, site_files


def note(path: str, title: str, summary: str = "", keywords: tuple[str, ...] = (), arxiv: str = "") -> RelatedInput:
    return RelatedInput(path, paper_key(arxiv, title), terms_of(title, summary, keywords))


def test_terms_are_words_and_cjk_bigrams_and_trigrams() -> None:
    assert terms_of("LoRA for LLMs", "联邦学习", ("x",)) == ("lora", "for", "llms", "联邦", "邦学", "学习", "联邦学", "邦学习")


def test_the_package_modules_import_only_those_before_them() -> None:
    """``site/related/`` has no import cycle: each module imports (anywhere in it) only the modules listed
    before it in the package docstring's order, never the package itself."""
    import ast

    import papernotes.site.related as package

    order = ["terms", "model", "exact", "pruned", "update", "lists", "store"]
    folder = Path(package.__file__).parent
    assert sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__") == sorted(order)
    for k, name in enumerate(order):
        imported = set()
        for node in ast.walk(ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "papernotes.site.related":
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("papernotes.site.related."):
                imported.add(node.module.rsplit(".", 1)[1])
            elif isinstance(node, ast.Import):
                inside = [a.name for a in node.names if a.name.startswith("papernotes.site.related.")]
                imported |= {name.rsplit(".", 1)[1] for name in inside}
            if isinstance(node, ast.ImportFrom) and node.module == "papernotes.site":
                assert "related" not in {alias.name for alias in node.names}, name  # the package: a cycle
        assert imported <= set(order[:k]), (name, imported - set(order[:k]))


def test_self_and_duplicates_of_the_same_paper_are_left_out() -> None:
    notes = [note("a.md", "Federated LoRA tuning", "federated lora adapters", arxiv="2401.00001"),
             note("b.md", "Federated LoRA tuning again", "federated lora adapters", arxiv="2401.00001"),
             note("c.md", "Federated LoRA Tuning!", "federated lora adapters"),
             note("d.md", "federated lora tuning", "federated lora"),  # same normalised title as c
             note("e.md", "Federated averaging", "federated clients"),
             note("f.md", "Diffusion models", "image generation")]
    rows = related(notes)
    assert "b.md" not in rows["a.md"] and "a.md" not in rows["b.md"]  # same arXiv id
    assert not {"c.md", "d.md"} <= set(rows["a.md"])  # one paper shown once
    assert "d.md" not in rows["c.md"] and "c.md" not in rows["d.md"]
    assert all(path not in row and len(row) <= NEIGHBOURS for path, row in rows.items())
    assert "f.md" not in rows.get("a.md", ())  # nothing in common: never listed


def test_the_cache_keeps_the_lists_packed_and_gives_back_the_same(tmp_path: Path) -> None:
    from papernotes.cache import BuildCache
    from papernotes.site.related import (
        PackedRows,
        cached_related,
        compute,
        mark_published,
        published_related,
        rows_by_path,
    )

    notes = [note(f"{i:03d}.md", f"paper {i % 7} topic {i % 5}", f"method {i % 3} 联邦学习{i % 4}") for i in range(40)]
    notes.append(note("zz-alone.md", "Quokka", "nothing shared"))  # no neighbour: left out, as by rows_by_path
    outcome = compute(notes)
    expected = rows_by_path(outcome)
    packed = PackedRows(*PackedRows.pack(outcome))
    assert dict(packed) == dict(packed.items()) == expected and len(packed) == len(expected)
    assert "zz-alone.md" not in packed and packed.get("missing.md") is None
    assert all(packed[path] == row for path, row in expected.items())
    # through the cache: a second call on the same inputs reads the packed lists back, equal
    inputs = [(n.path, n.path, n.path, (), "") for n in notes]
    with BuildCache(tmp_path / "cache.sqlite") as cache:
        first = cached_related(inputs, cache)
        again = cached_related(inputs, cache)
        assert first.computed and not again.computed and again.rows == first.rows
        assert published_related(cache, "site") is None  # never published
        mark_published(cache, "site", first.digest)
        assert dict(published_related(cache, "site") or {}) == dict(first.rows)


def test_the_lists_do_not_depend_on_input_order_or_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    notes = [note(f"{i:03d}.md", f"paper {i % 7} topic {i % 5}", f"method {i % 3} 联邦学习{i % 4}") for i in range(60)]
    rows = related(notes)
    assert related(list(reversed(notes))) == rows
    import papernotes.site.related.model as model
    import papernotes.site.related.pruned as pruned

    monkeypatch.setattr(pruned, "BLOCK_ROWS", 7)  # rows scored in many small blocks and dot-product groups
    monkeypatch.setattr(model, "DOT_ROWS", 3)
    assert related(notes) == rows


@pytest.mark.parametrize("exact_notes", [5000, 10], ids=["exact", "pruned"])
def test_rows_scored_by_a_forked_process_too_are_the_same(exact_notes: int, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Many rows: a forked process takes blocks of them too (``forks.share``); the lists are those of one
    process, and the blocks of a child that died are scored by the parent."""
    import os
    import time

    import papernotes.site.related.exact as exact
    import papernotes.site.related.lists as module
    from papernotes import forks

    monkeypatch.setattr(exact, "EXACT_NOTES", exact_notes)
    notes = [note(f"{i:03d}.md", f"paper {i % 7} topic {i % 5}", f"method {i % 3} 联邦学习{i % 4}") for i in range(60)]
    alone = related(notes)
    monkeypatch.setattr(module, "SPLIT_ROWS", 10)
    monkeypatch.setattr(module, "SPLIT_BLOCK", 7)
    monkeypatch.setattr(forks, "can_fork", lambda: True)
    parent, ran, share = os.getpid(), tmp_path / "ran", forks.share

    def noting(tasks, work, workers):  # type: ignore[no-untyped-def]
        def noted(block):  # type: ignore[no-untyped-def]
            with ran.open("a") as f:
                f.write(f"{os.getpid()} {len(block)}\n")
            deadline = time.monotonic() + 60  # each waits for the other to take a block: no sleep can be enough
            while len({line.split()[0] for line in ran.read_text().splitlines()}) < 2:  # on a busy machine
                assert time.monotonic() < deadline, "the other process took no block in 60 s"
                time.sleep(0.005)
            return work(block)
        return share(tasks, noted, workers)

    monkeypatch.setattr(forks, "share", noting)
    assert related(notes) == alone
    runs = [line.split() for line in ran.read_text().splitlines()]
    assert sum(int(n) for _, n in runs) == 60 and len({pid for pid, _ in runs}) == 2
    assert str(parent) in {pid for pid, _ in runs}

    def dying(tasks, work, workers):  # type: ignore[no-untyped-def]
        def dies_in_child(block):  # type: ignore[no-untyped-def]
            if os.getpid() != parent:
                os._exit(9)
            time.sleep(0.02)
            return work(block)
        return share(tasks, dies_in_child, workers)

    monkeypatch.setattr(forks, "share", dying)
    assert related(notes) == alone


def exact_top(notes: list[RelatedInput]) -> dict[str, list[str]]:
    """Plain TF-IDF cosine over every pair (scikit-learn's smoothed idf, no rounding, no pruning)."""
    counts = [Counter(n.terms) for n in notes]
    df = Counter(t for c in counts for t in c)
    idf = {t: math.log((1 + len(notes)) / (1 + d)) + 1 for t, d in df.items()}
    vectors = []
    for c in counts:
        w = {t: k * idf[t] for t, k in c.items()}
        norm = math.sqrt(sum(x * x for x in w.values())) or 1.0
        vectors.append({t: x / norm for t, x in w.items()})
    out = {}
    for a, va in zip(notes, vectors):
        scored = sorted(((-sum(x * vb.get(t, 0.0) for t, x in va.items()), b.path, b.paper)
                         for b, vb in zip(notes, vectors) if b.path != a.path), key=lambda s: s[:2])
        seen, row = {a.paper}, []
        for score, path, paper in scored:
            if score < 0 and paper not in seen:
                seen.add(paper)
                row.append(path)
        out[a.path] = row[:NEIGHBOURS]
    return out


def example_inputs() -> list[RelatedInput]:
    from papernotes.corpus.parse import parse_note

    notes = []
    for path in example_notes():
        parsed, _ = parse_note(path.name, path.read_text(encoding="utf-8"))
        notes.append(note(str(path), parsed.title, parsed.summary, parsed.keywords, parsed.arxiv_id))
    return notes


def test_pruned_lists_agree_with_exact_cosine_on_the_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    import papernotes.site.related.exact as exact

    notes = example_inputs()
    monkeypatch.setattr(exact, "EXACT_NOTES", 0)  # candidates pruned, as beyond EXACT_NOTES notes
    rows, truth = related(notes), exact_top(notes)
    shared = sum(len(set(rows.get(p, ())) & set(truth[p])) for p in truth)
    assert shared / sum(map(len, truth.values())) >= 0.9


def quantised_top(notes: list[RelatedInput]) -> dict[str, tuple[str, ...]]:
    """Exact cosine over every pair on the quantised integer weights, in plain Python."""
    counts = [Counter(n.terms) for n in notes]
    df = Counter(t for c in counts for t in c)
    weights = [{t: k * quantised_idf(df[t], len(notes)) for t, k in c.items()} for c in counts]
    norms = [math.sqrt(sum(w * w for w in v.values())) or 1.0 for v in weights]
    out = {}
    for i, a in enumerate(notes):
        scored = sorted((-sum(w * weights[j].get(t, 0) for t, w in weights[i].items()) / (norms[i] * norms[j]),
                         b.path, b.paper) for j, b in enumerate(notes) if j != i)
        seen, row = {a.paper}, []
        for score, path, paper in scored:
            if score < 0 and paper not in seen:
                seen.add(paper)
                row.append(path)
        if row:
            out[a.path] = tuple(row[:NEIGHBOURS])
    return out


def random_notes(seed: int, count: int) -> list[RelatedInput]:
    import random

    rng = random.Random(seed)
    words = [f"w{i}" for i in range(120)] + ["联邦学习", "模型量化", "知识蒸馏"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(count // 2)]
    papers = ["", "", "", "2401.00001", "2401.00002"]
    return [note(f"n{i:03d}.md", rng.choice(texts), rng.choice(texts), (rng.choice(words),), rng.choice(papers))
            for i in range(count)]  # repeated texts: ties and duplicate papers


@pytest.mark.parametrize("seed", range(4))
def test_exact_lists_equal_every_pair_scored_in_plain_python(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import papernotes.site.related.exact as exact

    notes = random_notes(seed, 150)
    monkeypatch.setattr(exact, "SPARE", seed)  # few spare neighbours: duplicates force whole-row sorts
    monkeypatch.setattr(exact, "BLOCK_CELLS", 150 * 7)
    assert related(notes) == quantised_top(notes)
    assert related(example_inputs()) == quantised_top(example_inputs())


def test_numpy_cosines_equal_tf_idf_weighted_in_plain_python() -> None:
    """Every pair's score from the numpy model equals TF-IDF cosine computed plainly: raw counts times
    scikit-learn's smoothed idf ``ln((1 + n) / (1 + df)) + 1`` in steps of 1/16. A change of weighting
    (tf, idf, its rounding, the norm) changes these scores even where it leaves the top five alone."""
    from papernotes.site.related.exact import Exact
    from papernotes.site.related.model import Model

    notes = sorted(random_notes(7, 80) + example_inputs(), key=lambda r: r.path)
    model = Model(notes)
    scores = Exact(model).cosines(np.arange(model.n))
    counts = [Counter(n.terms) for n in notes]
    df = Counter(t for c in counts for t in c)
    weights = [{t: k * round(16 * (math.log((1 + len(notes)) / (1 + df[t])) + 1)) for t, k in c.items()}
               for c in counts]
    norms = [math.sqrt(sum(w * w for w in v.values())) for v in weights]
    plain = np.array([[0.0 if i == j else sum(w * weights[j].get(t, 0) for t, w in weights[i].items())
                       / (norms[i] * norms[j]) for j in range(len(notes))] for i in range(len(notes))])
    assert np.count_nonzero(plain) > len(notes) * 10  # pairs that share terms, many
    np.testing.assert_allclose(scores, plain, rtol=1e-12, atol=0)
    pairs = np.flatnonzero(plain[0])  # the pruned path's exact dot products, the same numbers unnormalised
    dots = model.dots(np.array([0]), np.zeros(len(pairs), np.int64), pairs)
    np.testing.assert_allclose(dots / (norms[0] * np.array(norms)[pairs]), plain[0][pairs], rtol=1e-12)


def pruned_top(notes: list[RelatedInput], query_terms: int, postings: int, candidates: int,
               cap: float) -> dict[str, tuple[str, ...]]:
    """The pruned algorithm read plainly: candidates from truncated postings, then exact scores."""
    notes = sorted(notes, key=lambda r: r.path)
    counts = [Counter(n.terms) for n in notes]
    df = Counter(t for c in counts for t in c)
    weights = [{t: k * quantised_idf(df[t], len(notes)) for t, k in c.items()} for c in counts]
    norms = [math.sqrt(sum(w * w for w in v.values())) or 1.0 for v in weights]
    eligible = [sorted((-w, t) for t, w in v.items() if 1 < df[t] <= cap) for v in weights]
    lists: dict[str, list[tuple[int, int]]] = {}
    for i, terms in enumerate(eligible):
        for w, t in terms:
            lists.setdefault(t, []).append((w, i))
    lists = {t: sorted(found)[:postings] for t, found in lists.items()}
    out = {}
    for i, a in enumerate(notes):
        acc: Counter[int] = Counter()
        for w, t in eligible[i][:query_terms]:
            for y, b in lists[t]:
                acc[b] += w * y
        acc.pop(i, None)
        chosen = sorted((-s, b) for b, s in acc.items())[:candidates]
        scored = sorted((-sum(w * weights[b].get(t, 0) for t, w in weights[i].items()) / (norms[i] * norms[b]), b)
                        for _, b in chosen)
        seen, row = {a.paper}, []
        for score, b in scored:
            if score < 0 and notes[b].paper not in seen:
                seen.add(notes[b].paper)
                row.append(notes[b].path)
        if row:
            out[a.path] = tuple(row[:NEIGHBOURS])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_pruned_lists_equal_the_algorithm_read_plainly(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import papernotes.site.related.exact as exact
    import papernotes.site.related.pruned as module

    limits = {"QUERY_TERMS": 4 + seed, "POSTINGS": 3 + seed, "CANDIDATES": 4, "MIN_DF_CAP": 4, "MAX_DF": 0.3}
    for name, value in limits.items():
        monkeypatch.setattr(module, name, value)
    monkeypatch.setattr(exact, "EXACT_NOTES", 0)
    import papernotes.site.related.model as model

    monkeypatch.setattr(module, "BLOCK_ROWS", 9)
    monkeypatch.setattr(model, "DOT_ROWS", 4)
    notes = random_notes(seed, 150)
    assert related(notes) == pruned_top(notes, 4 + seed, 3 + seed, 4, max(0.3 * 150, 4))


def related_links(site: Path, page: str) -> list[str]:
    html = (site / page).read_text(encoding="utf-8")
    block = re.search(r'<ul class="related-list">(.*?)</ul>', html, re.S)
    return re.findall(r'<a href="([^"]+)"', block.group(1)) if block else []


def test_note_pages_list_related_notes_that_exist(example_site) -> None:
    site, _ = example_site
    pages = [p for p in site.glob("*/*/*/index.html") if p.relative_to(site).parts[0] != "en"]
    pages += list(site.glob("en/*/*/*/index.html"))  # the English edition's note pages
    with_lists = [p for p in pages if related_links(site, str(p.relative_to(site)))]
    assert len(with_lists) == len(pages)  # every example note has neighbours
    for page in with_lists:
        links = related_links(site, str(page.relative_to(site)))
        assert 0 < len(links) <= NEIGHBOURS and len(set(links)) == len(links)
        assert all((page.parent / href / "index.html").resolve().is_file() for href in links)
        assert all((page.parent / href).resolve() != page.parent.resolve() for href in links)
    assert dead_links(site) == []


def rebuilt_equals_clean(corpus: Path, site: Path, tmp: Path) -> None:
    clean = tmp / "clean"
    shutil.rmtree(clean, ignore_errors=True)
    clean_build(corpus, clean)
    assert site_contents(site) == site_contents(clean)


def test_a_body_edit_computes_nothing_and_renders_one_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import papernotes.site.related.store as store

    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    # one edition: with two, an edit plans both editions whole (and renders the pages whose fingerprint changed)
    config = corpus / "papernotes.toml"
    config.write_text(re.sub(r"(?m)^languages = .*\n", "", config.read_text(encoding="utf-8")), encoding="utf-8")
    site = tmp_path / "site"
    build(corpus, site)
    feeds = {p: p.read_bytes() for p in (site / "feeds").rglob("*.xml")}
    calls = []
    real = store.compute
    monkeypatch.setattr(store, "compute", lambda *a, **k: calls.append(1) or real(*a, **k))
    target = example_notes(corpus / "ICLR2024")[0]
    target.write_text(target.read_text(encoding="utf-8") + "\n\nOne more paragraph.\n", encoding="utf-8")
    result = build(corpus, site)
    assert calls == [] and result.rendered == 1
    assert {p: p.read_bytes() for p in (site / "feeds").rglob("*.xml")} == feeds
    rebuilt_equals_clean(corpus, site, tmp_path)


def test_a_title_edit_updates_related_lists_and_feeds_like_a_clean_build(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(EXAMPLES, corpus)
    site = tmp_path / "site"
    build(corpus, site)
    before = site_files(site)
    target = sorted(corpus.glob("ICML2024/model_compression/*.md"))[0]
    text = target.read_text(encoding="utf-8")
    target.write_text(re.sub(r"(?m)^title: .*$", "title: Federated learning with quantized LoRA adapters", text, 1),
                      encoding="utf-8")
    build(corpus, site)
    after = site_files(site)
    changed = {p for p in after if after[p] != before.get(p)}
    assert "feeds/all.xml" in changed and "feeds/venues/ICML2024.xml" in changed
    assert any(p.startswith("feeds/topics/") for p in changed)
    lists = [p for p in changed if p.count("/") == 3 and p not in before or
             (p.endswith("index.html") and p.count("/") == 3 and "related-list" in after[p].decode())]
    assert len(lists) > 1  # other notes' related lists moved with the new title
    rebuilt_equals_clean(corpus, site, tmp_path)


def test_changing_a_notes_arxiv_id_updates_duplicate_detection(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    body = "## 一句话总结\n联邦学习中的低秩适配与通信压缩。\n"
    write_note(corpus, "a.md", title="Federated LoRA", venue="ICML2024", domain="optimization",
               links={"arxiv": "2401.00001"}, keywords=["federated", "lora"], body=body)
    write_note(corpus, "b.md", title="LoRA in federated learning", venue="ICLR2024", domain="optimization",
               links={"arxiv": "2401.00001"}, keywords=["federated", "lora"], body=body)
    write_note(corpus, "c.md", title="Something else", venue="ICLR2024", domain="optimization", body=body)
    site = tmp_path / "site"
    build(corpus, site)
    assert "b/" not in " ".join(related_links(site, "ICML2024/optimization/a/index.html"))
    b = corpus / "b.md"
    b.write_text(b.read_text(encoding="utf-8").replace("2401.00001", "2402.00002"), encoding="utf-8")
    build(corpus, site)
    assert any(h.endswith("/b/") for h in related_links(site, "ICML2024/optimization/a/index.html"))
    rebuilt_equals_clean(corpus, site, tmp_path)


@pytest.mark.parametrize("exact_notes", [0, 1000])
@pytest.mark.parametrize("seed", range(6))
def test_updates_after_edits_equal_a_fresh_computation(seed: int, exact_notes: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Random title/keyword edits, additions and removals, pruned (with tiny limits so that every
    pruning step bites) and exact: the rows an update keeps and the rows it scores again are exactly
    the fresh ones."""
    import random

    import papernotes.site.related as module
    import papernotes.site.related.exact as exact
    import papernotes.site.related.pruned as pruned
    from papernotes.cache import BuildCache

    monkeypatch.setattr(exact, "EXACT_NOTES", exact_notes)
    for name, value in (("POSTINGS", 3), ("QUERY_TERMS", 6), ("CANDIDATES", 4), ("MIN_DF_CAP", 4), ("MAX_DF", 0.3)):
        monkeypatch.setattr(pruned, name, value)
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(600)] + ["联邦学习", "模型量化", "知识蒸馏", "扩散模型"]

    def text(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n))

    notes = {f"n{i:03d}.md": (text(4), text(8), tuple(text(1) for _ in range(2)), "") for i in range(200)}
    recomputed = []
    with BuildCache(None) as cache:
        module.cached_related([(p, *v) for p, v in notes.items()], cache)
        for step in range(12):
            action = rng.random()
            path = rng.choice(sorted(notes))
            if action < 0.5:
                title, summary, keywords, arxiv = notes[path]
                notes[path] = (text(4), summary, keywords, arxiv)
            elif action < 0.7:
                title, summary, _, arxiv = notes[path]
                notes[path] = (title, summary, (text(1),), rng.choice(["", "2401.00001"]))
            elif action < 0.85:
                notes[f"m{step:03d}.md"] = (text(4), text(8), (text(1),), "")
            else:
                del notes[path]
            rows = [(p, *v) for p, v in notes.items()]
            result = module.cached_related(rows, cache)
            fresh = related(RelatedInput(p, paper_key(a, t), terms_of(t, s, k)) for p, t, s, k, a in rows)
            assert result.rows == fresh, (seed, step)
            recomputed.append(result.recomputed)
    assert min(recomputed) < len(notes)  # some edit scored fewer rows than there are notes
