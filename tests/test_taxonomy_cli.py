"""``papernotes taxonomy``: what a note may name, from the site's taxonomy; the did-you-means point at it."""
from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from papernotes.cli import app

runner = CliRunner()


def site(tmp_path: Path) -> Path:
    """A corpus whose papernotes.toml adds a domain and renames a shipped one."""
    corpus = tmp_path / "c"
    (corpus / "tax").mkdir(parents=True)
    (corpus / "tax/d.toml").write_text('[[domain]]\nslug = "quantum"\nicon = "⚛️"\nzh = "量子"\nen = "Quantum"\n\n'
                                       '[[domain]]\nslug = "optimization"\nen = "Optimisation"\n', encoding="utf-8")
    (corpus / "papernotes.toml").write_text('[taxonomy]\ndomains = ["tax/d.toml"]\n', encoding="utf-8")
    return corpus


def test_json_lists_every_kind_from_the_site_taxonomy(tmp_path: Path) -> None:
    corpus = site(tmp_path)
    result = runner.invoke(app, ["taxonomy", "--corpus", str(corpus), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == ["venues", "domains", "topics"]
    domains = {d["slug"]: d for d in data["domains"]}
    assert domains["quantum"] == {"slug": "quantum", "icon": "⚛️", "zh": "量子", "en": "Quantum"}
    assert domains["optimization"]["en"] == "Optimisation" and domains["optimization"]["zh"] == "优化/理论"
    assert domains["federated_learning"]["icon"] == "🤝"
    icml = next(v for v in data["venues"] if v["series"] == "ICML")
    assert icml["icon"] and icml["en"] == "International Conference on Machine Learning" and "ICML2024" in icml["venues"]
    assert any(t["slug"] == "federated_learning" and t["zh"] == "联邦学习" for t in data["topics"])
    shipped = json.loads(runner.invoke(app, ["taxonomy", "domains", "--json", "-c", str(tmp_path)]).stdout)
    assert list(shipped) == ["domains"] and "quantum" not in {d["slug"] for d in shipped["domains"]}


def test_text_lists_one_kind_one_line_each(tmp_path: Path) -> None:
    corpus = site(tmp_path)
    result = runner.invoke(app, ["taxonomy", "domains", "-c", str(corpus)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    count = re.match(r"domains \((\d+); `domain:` is one slug\)$", lines[0])
    assert count is not None and int(count[1]) == len(lines) - 1
    assert any(re.fullmatch(r"⚛️ quantum +量子 · Quantum", line) for line in lines)
    assert any(re.fullmatch(r"🤝 federated_learning +联邦学习 · Federated Learning", line) for line in lines)
    venues = runner.invoke(app, ["taxonomy", "venues", "-c", str(corpus)]).stdout
    assert re.search(r"^🧪 ICML<year> +国际机器学习大会 · International Conference on Machine Learning  \(dated: .*ICML2024",
                     venues, re.M)


def test_a_bad_kind_and_a_bad_config_are_errors(tmp_path: Path) -> None:
    assert runner.invoke(app, ["taxonomy", "domian"]).exit_code == 2
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "papernotes.toml").write_text('[taxonomy]\ndomains = ["missing.toml"]\n', encoding="utf-8")
    result = runner.invoke(app, ["taxonomy", "-c", str(corpus)])
    assert result.exit_code != 0 and "missing.toml" in result.stderr and "Traceback" not in result.output


def test_new_points_a_typo_at_the_listing(tmp_path: Path) -> None:
    corpus = site(tmp_path)
    result = runner.invoke(app, ["new", str(corpus), "--title", "T", "--venue", "ICML2024", "--domain", "quantun"])
    assert result.exit_code == 2
    assert "did you mean `quantum`? (`papernotes taxonomy domains` lists them;" in result.stderr
    venue = runner.invoke(app, ["new", str(corpus), "--title", "T", "--venue", "ICMLL2024", "--domain", "quantum"])
    assert venue.exit_code == 2 and "(`papernotes taxonomy venues` lists them;" in venue.stderr


def test_an_implausible_venue_year_says_so(tmp_path: Path) -> None:
    result = runner.invoke(app, ["new", str(tmp_path / "c"), "--title", "T", "--venue", "ICLR2204", "--domain",
                                 "optimization"])
    assert result.exit_code == 2
    assert "venue `ICLR2204`: year 2204 is implausible (expected 1900–2099); did you mean `ICLR2024`?" in result.stderr
    assert "has no year" not in result.stderr
    short = runner.invoke(app, ["new", str(tmp_path / "c"), "--title", "T", "--venue", "ICLR24", "--domain",
                                "optimization"])
    assert "venue `ICLR24`: 24 is not a year: a venue is a series and a four-digit year" in short.stderr
    assert not (tmp_path / "c").exists()
