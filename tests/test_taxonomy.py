"""Taxonomy data files: shipped defaults, site overrides, venue order and topic rules."""
from __future__ import annotations

from pathlib import Path

import pytest

from papernotes.classify.rules import note_topics
from papernotes.errors import ConfigError
from papernotes.corpus.parse import parse_note
from papernotes.taxonomy import load_taxonomy


def test_shipped_taxonomy_has_the_reference_domains_and_seed_icons() -> None:
    tax = load_taxonomy()
    assert tax.domain("optimization").icon == "📐" and tax.domain("optimization").zh == "优化/理论"
    for slug in ("federated_learning", "model_compression", "multimodal_vlm", "llm_reasoning", "others"):
        assert tax.domain(slug).known
    icons = {v: tax.venue(v).icon for v in ("ICML2026", "CVPR2026", "ICLR2026", "AAAI2026", "NeurIPS2025", "ICCV2025", "ACL2025")}
    assert icons == {"ICML2026": "🧪", "CVPR2026": "📷", "ICLR2026": "🔬", "AAAI2026": "🤖", "NeurIPS2025": "🧠",
                     "ICCV2025": "📹", "ACL2025": "💬"}


def test_venues_are_ordered_newest_first_as_in_the_seed() -> None:
    tax = load_taxonomy()
    seed = ["CVPR2026", "ICLR2026", "AAAI2026", "NeurIPS2025", "ICCV2025", "ICML2025"]
    assert sorted(seed[::-1], key=lambda v: tax.venue(v).sort_key) == seed


def test_unknown_venue_and_domain_still_resolve() -> None:
    tax = load_taxonomy()
    venue = tax.venue("FOOCONF2027")
    assert (venue.name, venue.year, venue.known) == ("FOOCONF", 2027, False)
    assert not tax.domain("quantum_widgets").known


def test_site_override_adds_and_replaces_fields(tmp_path: Path) -> None:
    domains = tmp_path / "domains.toml"
    domains.write_text('[[domain]]\nslug = "optimization"\nicon = "🧮"\n\n'
                       '[[domain]]\nslug = "quantum"\nicon = "⚛"\nzh = "量子"\nen = "Quantum"\nrules = ["qubit"]\n',
                       encoding="utf-8")
    venues = tmp_path / "venues.toml"
    venues.write_text('[[series]]\nid = "FOO"\nicon = "🦊"\nmonth = 3\n', encoding="utf-8")
    tax = load_taxonomy(venues=[venues], domains=[domains])
    assert tax.domain("optimization").icon == "🧮" and tax.domain("optimization").zh == "优化/理论"
    assert tax.domain("quantum").en == "Quantum"
    assert tax.venue("FOO2026").icon == "🦊" and tax.venue("FOO2026").known


def test_invalid_override_reports_every_problem_with_path(tmp_path: Path) -> None:
    bad = tmp_path / "topics.toml"
    bad.write_text('[[topic]]\nslug = "Bad Slug"\n\n[[topic]]\nslug = "ok"\nzh = 3\nen = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_taxonomy(topics=[bad])
    text = str(info.value)
    assert f"{bad}:2:" in text and "zh" in text and text.count(str(bad)) == 2


def test_broken_toml_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "venues.toml"
    bad.write_text('[[series]]\nid = "X"\nicon = \n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_taxonomy(venues=[bad])
    assert f"{bad}:3:" in str(info.value)


def _note(title: str, keywords: str = "[]", extra: str = "") -> object:
    note, _ = parse_note("v/d/n.md", f"---\ntitle: {title!r}\nvenue: ICML2026\ndomain: optimization\n"
                                     f"keywords: {keywords}\n{extra}---\n")
    return note


def test_topic_rules_match_whole_ascii_words_and_chinese_substrings() -> None:
    tax = load_taxonomy()
    slugs = {t.slug for t in note_topics(_note("Byzantine-robust Federated Learning for LLMs"), tax)}
    assert {"federated_learning", "adversarial_robustness", "llm"} <= slugs
    assert "reinforcement_learning" not in {t.slug for t in note_topics(_note("Curl and girl"), tax)}  # no "rl" inside words
    assert "federated_learning" in {t.slug for t in note_topics(_note("一种新的联邦学习框架"), tax)}


def test_listed_topics_win_over_rules_and_resolve_by_name_or_slug() -> None:
    tax = load_taxonomy()
    note = _note("Federated things", extra="topics: [压缩/编码, agent, Brand New Topic]\n")
    topics = note_topics(note, tax)
    assert [t.slug for t in topics][:2] == ["compression", "agent"]
    assert topics[2].zh == "Brand New Topic" and not topics[2].known


def test_search_synonyms_are_shipped_and_a_site_file_adds_groups(tmp_path: Path) -> None:
    shipped = load_taxonomy().synonyms
    assert len(shipped) >= 100 and ("偏微分方程", "PDE", "partial differential equation") in shipped
    extra = tmp_path / "synonyms.toml"
    extra.write_text('[[synonyms]]\nterms = ["扩散采样", "diffusion sampling"]\n', encoding="utf-8")
    loaded = load_taxonomy(synonyms=[extra])
    assert loaded.synonyms == (*shipped, ("扩散采样", "diffusion sampling"))
    assert loaded.fingerprint != load_taxonomy().fingerprint  # an edited file rebuilds the site


def test_a_bad_synonym_group_names_its_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "synonyms.toml"
    bad.write_text('[[synonyms]]\nterms = ["a", "b"]\n\n[[synonyms]]\nterms = ["only one"]\n\n'
                   '[[synonyms]]\nterms = ["x", ""]\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_taxonomy(synonyms=[bad])
    found = [(d.path, d.line) for d in caught.value.diagnostics]
    assert found == [(str(bad), 4), (str(bad), 7)]
    assert "two or more non-empty strings" in caught.value.diagnostics[0].message
