"""``check``'s ratings rule (``check/ratings.py``): per venue, the share of notes rated 4★ or more on each
rating key, and a warning above ``high_rating_share``; on a generated corpus, through the CLI."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from conftest import write_note
from papernotes.check.ratings import ALL, MIN_RATED, RatingShare, rating_problems
from papernotes.cli import app

runner = CliRunner()


def corpus(root: Path, config: str = "") -> Path:
    """ICML2024: 12 notes, 9 rated novelty 4★+ (75%), value 3★ each; ICLR2024: 12 notes, 3 at 4★+ (25%);
    CVPR2024: 3 notes all 5★ (too few to judge); one Chinese translation of an ICML note (not counted)."""
    for i in range(12):
        write_note(root, f"ICML2024/optimization/m{i}.md", title=f"Paper M{i}", venue="ICML2024",
                   domain="optimization", ratings={"novelty": 5 if i < 5 else (4 if i < 9 else 2), "value": 3})
        write_note(root, f"ICLR2024/optimization/l{i}.md", title=f"Paper L{i}", venue="ICLR2024",
                   domain="optimization", ratings={"novelty": 4.5 if i < 3 else 3})
    for i in range(3):
        write_note(root, f"CVPR2024/3d_vision/c{i}.md", title=f"Paper C{i}", venue="CVPR2024", domain="3d_vision",
                   ratings={"novelty": 5, "value": 5})
    write_note(root, "ICML2024/optimization/m9.zh.md", title="Paper M9", venue="ICML2024", domain="optimization",
               lang="zh", ratings={"novelty": 5, "value": 5})
    if config:
        (root / "papernotes.toml").write_text(config, encoding="utf-8")
    return root


def check_json(root: Path) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, ["check", str(root), "--json", "--no-formulas", "--no-classifier"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_check_reports_each_venues_share_and_warns_above_the_setting(tmp_path: Path) -> None:
    report = check_json(corpus(tmp_path))
    shares = {(r["venue"], r["key"]): (r["rated"], r["high"], r["share"]) for r in report["ratings"]}
    assert shares == {(ALL, "novelty"): (27, 15, 0.5556), (ALL, "value"): (15, 3, 0.2),
                      ("CVPR2024", "novelty"): (3, 3, 1.0), ("CVPR2024", "value"): (3, 3, 1.0),
                      ("ICLR2024", "novelty"): (12, 3, 0.25),
                      ("ICML2024", "novelty"): (12, 9, 0.75), ("ICML2024", "value"): (12, 0, 0.0)}
    assert [r["venue"] for r in report["ratings"]][:2] == [ALL, ALL]  # every venue together comes first
    inflated = [d for d in report["diagnostics"] if d["code"] == "rating-inflation"]
    assert [(d["path"], d["severity"]) for d in inflated] == [("ICML2024", "warning")]
    assert inflated[0]["message"].startswith("75% of 12 rated notes give novelty 4★ or more, above "
                                             "high_rating_share = 60%")


def test_the_threshold_is_a_setting(tmp_path: Path) -> None:
    report = check_json(corpus(tmp_path, "high_rating_share = 0.8\n"))
    assert not [d for d in report["diagnostics"] if d["code"] == "rating-inflation"]
    low = check_json(corpus(tmp_path / "low", "high_rating_share = 0.2\n"))
    assert sorted(d["path"] for d in low["diagnostics"] if d["code"] == "rating-inflation") == ["ICLR2024", "ICML2024"]
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "papernotes.toml").write_text("high_rating_share = 60\n", encoding="utf-8")
    result = runner.invoke(app, ["check", str(bad)])
    assert result.exit_code == 2 and "papernotes.toml:1: error: high_rating_share:" in result.stderr


def test_the_text_report_lists_every_venue(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", str(corpus(tmp_path)), "--no-formulas", "--no-classifier"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    start = lines.index("rated 4★ or more:")
    assert lines[start + 1:start + 5] == ["  all venues: novelty 56% of 27 · value 20% of 15",
                                          "  CVPR2024: novelty 100% of 3 · value 100% of 3",
                                          "  ICLR2024: novelty 25% of 12",
                                          "  ICML2024: novelty 75% of 12 · value 0% of 12"]
    assert "ICML2024: warning: 75% of 12 rated notes give novelty" in result.stderr


def test_a_share_is_judged_only_from_enough_notes() -> None:
    few = RatingShare("X2024", "novelty", MIN_RATED - 1, MIN_RATED - 1)
    enough = RatingShare("X2024", "value", MIN_RATED, MIN_RATED)
    assert [d.message.split(" give ")[1].split()[0] for d in rating_problems([few, enough], 0.6)] == ["value"]
    assert rating_problems([RatingShare(ALL, "novelty", 100, 100)], 0.6) == []
    assert rating_problems([enough], 1.0) == []
