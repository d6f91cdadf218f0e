"""Ingest: sources read recorded responses, stubs are written once, duplicates merge, edits are kept."""
from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from papernotes.cli import app
from papernotes.errors import CorpusError
from papernotes.corpus.frontmatter import KEY_ORDER, read, update
from papernotes.intake.ingest import MANIFEST, fold_duplicates, ingest
from papernotes.corpus.parse import parse_note
from papernotes.intake.sources import Paper, SourceError, SourceRequest, load_source, title_key
from papernotes.intake.sources import openreview as openreview_source
from papernotes.intake.venues import resolve_venue
from papernotes.taxonomy import load_taxonomy

FIXTURES = Path(__file__).parent / "fixtures" / "sources"
OPENREVIEW = FIXTURES / "openreview_iclr2024.json"
ATOM = FIXTURES / "arxiv_idlist.atom"
BIB = FIXTURES / "refs.bib"
CSV = FIXTURES / "papers.csv"
JSON = FIXTURES / "papers.json"

runner = CliRunner()


def notes_in(corpus: Path) -> dict[str, str]:
    return {p.relative_to(corpus).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(corpus.rglob("*.md")) if ".papernotes" not in p.parts}


def run(corpus: Path, source: str, *args: str, from_file: Path | None = None, venue: str | None = None):
    return ingest(corpus, source, SourceRequest(tuple(args), from_file, kind=source), venue=venue)


# ---------------------------------------------------------------- sources

def test_openreview_keeps_accepted_papers_only() -> None:
    asked = load_source("openreview", SourceRequest(("ICLR.cc/2024/Conference",), OPENREVIEW))
    unasked = load_source("openreview", SourceRequest((), OPENREVIEW))
    titles = [p.title for p in asked.papers]
    assert titles == [p.title for p in unasked.papers]
    assert len(titles) == 4 and "Revisiting Warmup Schedules for Adaptive Optimizers" not in titles
    swe = asked.papers[0]
    assert swe.authors[0] == "Carlos E Jimenez" and len(swe.authors) == 7
    assert dict(swe.links) == {"openreview": "https://openreview.net/forum?id=VTF8yNQM66",
                               "pdf": "https://openreview.net/pdf/vtf8ynqm660f3c9a1e2b7d4c8e9a.pdf"}
    assert swe.venue_hints == ("ICLR.cc/2024/Conference", "ICLR 2024 oral") and swe.year == 2024
    assert swe.keywords == ("Language models", "Natural language processing", "Software engineering")
    longlora = asked.papers[3]
    assert dict(longlora.links)["code"] == "https://github.com/dvlab-research/LongLoRA"


def test_openreview_venue_id_filters_a_saved_dump() -> None:
    other = load_source("openreview", SourceRequest(("ICML.cc/2024/Conference",), OPENREVIEW))
    assert other.papers == ()


def test_arxiv_atom_feed() -> None:
    result = load_source("arxiv", SourceRequest((), ATOM))
    lora, qlora, dpo = result.papers
    assert (lora.arxiv, qlora.arxiv, dpo.arxiv) == ("2106.09685", "2305.14314", "2305.18290")
    assert lora.title == "LoRA: Low-Rank Adaptation of Large Language Models"
    assert dpo.title == "Direct Preference Optimization: Your Language Model is Secretly a Reward Model"
    assert lora.abstract.startswith("An important paradigm") and "\n" not in lora.abstract
    assert dict(lora.links) == {"pdf": "https://arxiv.org/pdf/2106.09685v2", "code": "https://github.com/microsoft/LoRA"}
    assert dpo.venue_hints == ("NeurIPS 2023 (oral)",) and qlora.venue_hints == ()
    assert dpo.authors[-2:] == ("Christopher D. Manning", "Chelsea Finn")


def test_arxiv_error_entries_are_reported() -> None:
    result = load_source("arxiv", SourceRequest((), FIXTURES / "arxiv_error.atom"))
    assert result.papers == ()
    assert "incorrect id format for 2106.9999" in result.diagnostics[0].message


def test_bibtex_entries_decoded_and_problems_located() -> None:
    result = load_source("bibtex", SourceRequest((str(BIB),)))
    by_key = {p.origin[0].rsplit(":", 1)[1]: p for p in result.papers}
    lora, lora_arxiv = by_key["4"], by_key["12"]
    assert lora.title == lora_arxiv.title == "LoRA: Low-Rank Adaptation of Large Language Models"
    assert lora.venue_hints == ("International Conference on Learning Representations",)  # @string resolved
    assert lora_arxiv.authors[:2] == ("Edward J. Hu", "Yelong Shen") and lora_arxiv.arxiv == "2106.09685"
    qlora = by_key["20"]
    assert qlora.arxiv == "2305.14314" and qlora.title == "QLoRA: Efficient Finetuning of Quantized LLMs"
    assert qlora.keywords == ("quantization", "parameter-efficient fine-tuning", "LLM")
    toolformer = by_key["41"]
    assert "Roberto Dessì" in toolformer.authors and toolformer.arxiv == "2302.04761"
    assert "Q&A system" in toolformer.abstract
    assert "others" not in by_key["50"].authors
    problems = {(d.line, d.severity.value) for d in result.diagnostics}
    assert problems == {(60, "warning"), (67, "error")}  # duplicate key, unclosed entry


def test_csv_rows_with_line_numbers() -> None:
    result = load_source("csv", SourceRequest((str(CSV),), kind="csv"))
    mamba, flash, qlora = result.papers
    assert mamba.authors == ("Albert Gu", "Tri Dao") and mamba.arxiv == "2312.00752"
    assert dict(mamba.links) == {"code": "https://github.com/state-spaces/mamba"}
    assert flash.arxiv == "2307.08691"  # from the url column
    assert flash.abstract.count("FlashAttention exploits") == 1  # a cell spanning two lines
    assert dict(qlora.links)["openreview"] == "https://openreview.net/forum?id=OUIFPHEgJU"
    messages = {(d.line, d.message) for d in result.diagnostics}
    assert (5, "row 3 has no title; skipped") in messages  # the row after the two-line cell
    assert any("ignored columns: notes" in m for _, m in messages)


def test_json_objects() -> None:
    result = load_source("json", SourceRequest((), JSON, kind="json"))
    registers, tot = result.papers
    assert registers.arxiv == "2309.16588" and registers.authors[0] == "Timothée Darcet"
    assert tot.authors[:2] == ("Shunyu Yao", "Dian Yu") and tot.arxiv == "2305.10601" and tot.year == 2023
    assert result.diagnostics[0].message == "row 3 has no title; skipped"


def test_unreadable_source_files_stop_the_command(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="file not found"):
        load_source("bibtex", SourceRequest((str(tmp_path / "missing.bib"),)))
    bad = tmp_path / "bad.json"
    bad.write_text('{"notes": [\n{"id": 1,,}]}')
    with pytest.raises(SourceError, match=r"bad.json:2: invalid JSON"):
        load_source("openreview", SourceRequest((), bad))


@pytest.mark.parametrize(("hint", "year", "venue"), [
    ("ICLR.cc/2024/Conference", None, "ICLR2024"),
    ("NeurIPS.cc/2023/Conference", None, "NeurIPS2023"),
    ("aclweb.org/ACL/2024/Conference", None, "ACL2024"),
    ("ICLR 2024 oral", None, "ICLR2024"),
    ("Advances in Neural Information Processing Systems", 2023, "NeurIPS2023"),
    ("Thirty-seventh Conference on Neural Information Processing Systems", 2023, "NeurIPS2023"),
    ("Proceedings of the 40th International Conference on Machine Learning", 2023, "ICML2023"),
    ("The Twelfth International Conference on Learning Representations", 2024, "ICLR2024"),
    ("Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics (Volume 1: "
     "Long Papers)", 2024, "ACL2024"),
    ("Findings of the Association for Computational Linguistics: EMNLP 2023", None, "EMNLP2023"),
    ("arXiv preprint arXiv:2006.12345", 2020, "arxiv2020"),
    ("icml2026", None, "ICML2026"),
    ("TMLR 2024", None, "TMLR2024"),
    ("NIPS", 2017, "NeurIPS2017"),
    ("Journal of Machine Learning Research", 2024, "JMLR2024"),
    ("Journal of Machine Learning Research 21 (2020) 1-67", None, "JMLR2020"),
    ("Machine Learning Journal", 2024, ""),
    ("NeurIPS 2023 Workshop on Instruction Tuning", None, ""),
    ("ICLR.cc/2024/Workshop/ME-FoMo", None, ""),  # an OpenReview workshop group
    ("ICLR.cc/2024/Conference", None, "ICLR2024"),
    ("ICML 2024 Symposium on Safety", None, ""),
    ("ICLR 2024", None, "ICLR2024"),
    ("ICLR", None, ""),
])
def test_resolve_venue(hint: str, year: int | None, venue: str) -> None:
    assert resolve_venue((hint,), year, load_taxonomy()) == venue


def test_title_key_normalises_unicode_case_and_punctuation() -> None:
    assert title_key("LoRA: Low-Rank Adaptation") == title_key("lora — low rank  adaptation")
    assert title_key("ＱＬｏＲＡ") == title_key("QLoRA")  # NFKC folds full-width letters


def test_fold_duplicates_prefers_the_conference_venue() -> None:
    preprint = Paper("LoRA", venue="arxiv2021", venue_hints=("arXiv preprint arXiv:2106.09685",), arxiv="2106.09685")
    published = Paper("LoRA!", venue="ICLR2022", venue_hints=("ICLR",), links=(("openreview", "https://x"),))
    [merged] = fold_duplicates([preprint, published])
    assert merged.venue == "ICLR2022" and merged.arxiv == "2106.09685" and dict(merged.links) == {"openreview": "https://x"}


# ---------------------------------------------------------------- the stage

def test_bibtex_twice_gives_one_note_per_entry(tmp_path: Path) -> None:
    first = run(tmp_path, "bibtex", str(BIB))
    assert first.read == 6 and first.folded == 1  # the two LoRA entries are one paper
    assert sorted(first.created) == [
        "ICLR2022/lora_low_rank_adaptation_of_large_language_models.md",
        "ICLR2024/self_rag_learning_to_retrieve_generate_and_critique_through_self_reflection.md",
        "NeurIPS2023/qlora_efficient_finetuning_of_quantized_llms.md",
        "NeurIPS2023/toolformer_language_models_can_teach_themselves_to_use_tools.md",
    ]
    no_venue = [d for d in first.diagnostics if d.code == "no-venue"]
    assert [(d.path, d.line) for d in no_venue] == [(str(BIB), 50)]
    before = notes_in(tmp_path)
    second = run(tmp_path, "bibtex", str(BIB))
    assert second.created == () and second.updated == () and len(second.existing) == 4
    assert notes_in(tmp_path) == before


def test_stub_format(tmp_path: Path) -> None:
    run(tmp_path, "bibtex", str(BIB))
    rel = "ICLR2022/lora_low_rank_adaptation_of_large_language_models.md"
    text = (tmp_path / rel).read_text(encoding="utf-8")
    front, body, _ = read(text)
    assert front is not None and body == ""
    assert list(front) == ["id", "title", "venue", "authors", "links", "abstract", "status"]
    assert front["id"] == "iclr2022-lora-low-rank-adaptation-of-large-language-models"
    assert front["links"] == {"arxiv": "https://arxiv.org/abs/2106.09685",
                              "openreview": "https://openreview.net/forum?id=nZeVKeeFYf9",
                              "code": "https://github.com/microsoft/LoRA"}
    note, problems = parse_note(rel, text)
    assert note is not None and note.status == "stub" and note.domain == "" and note.arxiv_id == "2106.09685"
    assert note.abstract.startswith("An important paradigm")
    assert [(d.code, d.is_error) for d in problems] == [("unfiled-stub", False)]


def test_sources_merge_into_untouched_stubs(tmp_path: Path) -> None:
    run(tmp_path, "bibtex", str(BIB))
    selfrag = "ICLR2024/self_rag_learning_to_retrieve_generate_and_critique_through_self_reflection.md"
    assert "abstract" not in (read((tmp_path / selfrag).read_text())[0] or {})
    result = run(tmp_path, "openreview", "ICLR.cc/2024/Conference", from_file=OPENREVIEW)
    assert result.updated == (selfrag,) and len(result.created) == 3
    front = read((tmp_path / selfrag).read_text())[0] or {}
    assert front["abstract"].startswith("Despite their remarkable capabilities")
    assert front["links"]["pdf"].startswith("https://openreview.net/pdf/")
    assert front["keywords"][0] == "Retrieval-augmented Generation"
    # arXiv knows LoRA and QLoRA by id, without a venue: they merge, no --venue needed
    arxiv = run(tmp_path, "arxiv", from_file=ATOM)
    assert sorted(arxiv.updated) == ["ICLR2022/lora_low_rank_adaptation_of_large_language_models.md",
                                     "NeurIPS2023/qlora_efficient_finetuning_of_quantized_llms.md"]
    assert arxiv.created == ("NeurIPS2023/direct_preference_optimization_your_language_model_is_secretly_a_reward_"
                             "model.md",)
    titles = [read(t)[0]["title"] for t in notes_in(tmp_path).values()]  # type: ignore[index]
    assert len(titles) == len({title_key(t) for t in titles}) == 8


def test_edited_notes_are_never_touched(tmp_path: Path) -> None:
    run(tmp_path, "bibtex", str(BIB))
    qlora = tmp_path / "NeurIPS2023/qlora_efficient_finetuning_of_quantized_llms.md"
    edited = qlora.read_text() + "\n## 一句话总结\nMy own words.\n"
    qlora.write_text(edited)
    result = run(tmp_path, "arxiv", from_file=ATOM)
    assert qlora.read_text() == edited
    assert "NeurIPS2023/qlora_efficient_finetuning_of_quantized_llms.md" in result.existing


def test_a_stub_whose_draft_failed_still_takes_new_fields(tmp_path: Path) -> None:
    run(tmp_path, "bibtex", str(BIB))
    qlora = tmp_path / "NeurIPS2023/qlora_efficient_finetuning_of_quantized_llms.md"
    front, _, _ = read(qlora.read_text())
    assert "abstract" not in front
    qlora.write_text(update(qlora.read_text(), {"draft_error": "no abstract to extract from"}, order=KEY_ORDER))
    result = run(tmp_path, "arxiv", from_file=ATOM)
    assert "NeurIPS2023/qlora_efficient_finetuning_of_quantized_llms.md" in result.updated
    front, _, _ = read(qlora.read_text())
    assert front is not None and front["abstract"].startswith("We present QLoRA") and "draft_error" not in front


def test_hand_written_notes_count_as_existing(tmp_path: Path) -> None:
    note = tmp_path / "ICLR2022" / "nlp" / "lora.md"
    note.parent.mkdir(parents=True)
    text = "---\ntitle: LoRA (my notes)\nvenue: ICLR2022\ndomain: nlp\nlinks: {arxiv: '2106.09685'}\n---\nmine\n"
    note.write_text(text)
    result = run(tmp_path, "arxiv", from_file=ATOM, venue="arxiv2023")
    assert result.existing == ("ICLR2022/nlp/lora.md",) and note.read_text() == text
    assert len(result.created) == 2


def test_deleted_stubs_are_not_recreated(tmp_path: Path) -> None:
    first = run(tmp_path, "bibtex", str(BIB))
    (tmp_path / first.created[0]).unlink()
    again = run(tmp_path, "bibtex", str(BIB))
    assert again.created == () and not (tmp_path / first.created[0]).exists()


def test_manifest_records_written_hashes(tmp_path: Path) -> None:
    result = run(tmp_path, "csv", str(CSV))
    manifest = json.loads((tmp_path / ".papernotes" / MANIFEST).read_text())
    assert sorted(manifest["notes"]) == sorted(result.created)
    entry = manifest["notes"]["COLM2024/mamba_linear_time_sequence_modeling_with_selective_state_spaces.md"]
    assert "arxiv:2312.00752" in entry["keys"] and len(entry["sha1"]) == 40


def test_venue_option_and_slug_collisions(tmp_path: Path) -> None:
    long = "A Very Long Title About Scaling Laws for Sparse Mixture of Experts Language Models Under Fixed Compute"
    data = tmp_path / "in.json"
    data.write_text(json.dumps([{"title": long + " Budgets"}, {"title": long + " Constraints"}]))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    result = run(corpus, "json", from_file=data, venue="ICML 2024")
    assert [p.rsplit("/", 1)[0] for p in result.created] == ["ICML2024", "ICML2024"]
    assert result.created[1].endswith("_2.md") and result.created[0] != result.created[1]
    with pytest.raises(CorpusError, match="not a venue id"):
        run(corpus, "json", from_file=data, venue="not a venue!")


def test_a_missing_corpus_is_created_once_the_source_is_read(tmp_path: Path) -> None:
    result = run(tmp_path / "new" / "notes", "bibtex", str(BIB))
    assert result.new_corpus and len(result.created) == 4 and (tmp_path / "new/notes" / result.created[0]).is_file()
    assert not run(tmp_path / "new" / "notes", "bibtex", str(BIB)).new_corpus
    with pytest.raises(SourceError):  # an unreadable source leaves no empty folder behind
        run(tmp_path / "other", "bibtex", str(tmp_path / "missing.bib"))
    assert not (tmp_path / "other").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(CorpusError, match="not a directory"):
        run(tmp_path / "file", "bibtex", str(BIB))


# ---------------------------------------------------------------- real HTTP

class _Static:
    """A tiny HTTP server answering GETs with ``handler(path, query) -> (status, headers, body)``."""

    def __init__(self, handler: Any) -> None:
        self.seen: list[tuple[str, dict[str, list[str]]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                url = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(url.query)
                outer.seen.append((url.path, query))
                status, headers, body = handler(url.path, query)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> _Static:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def openreview_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Static]:
    notes = json.loads(OPENREVIEW.read_text())["notes"]
    calls = {"n": 0}

    def handler(path: str, query: dict[str, list[str]]) -> tuple[int, dict[str, str], bytes]:
        calls["n"] += 1
        if calls["n"] == 1:
            return 429, {"Retry-After": "0"}, b'{"name": "RateLimitError"}'
        venue = query["content.venueid"][0]
        offset, limit = int(query["offset"][0]), int(query["limit"][0])
        accepted = [n for n in notes if n["content"]["venueid"]["value"] == venue]
        page = {"notes": accepted[offset:offset + limit], "count": len(accepted)}
        return 200, {"Content-Type": "application/json"}, json.dumps(page).encode()

    monkeypatch.setattr(openreview_source, "PAGE", 3)
    for name in ("OPENREVIEW_TOKEN", "OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    with _Static(handler) as server:
        yield server


def test_openreview_api_v2_over_http(tmp_path: Path, openreview_api: _Static) -> None:
    result = ingest(tmp_path, "openreview", SourceRequest(("ICLR.cc/2024/Conference",),
                                                          api_url=openreview_api.url))
    assert len(result.created) == 4
    pages = [(p, q["offset"][0]) for p, q in openreview_api.seen]
    assert pages == [("/notes", "0"), ("/notes", "0"), ("/notes", "3")]  # a 429 retried, then two pages
    assert all(q["content.venueid"] == ["ICLR.cc/2024/Conference"] for _, q in openreview_api.seen)


def test_arxiv_package_over_http(tmp_path: Path) -> None:
    feed = ATOM.read_bytes()
    with _Static(lambda path, query: (200, {"Content-Type": "application/atom+xml"}, feed)) as server:
        result = ingest(tmp_path, "arxiv", SourceRequest(("2106.09685", "arXiv:2305.14314v1", "2305.18290"),
                                                         api_url=f"{server.url}/api/query"), venue="arxiv2023")
        path, query = server.seen[0]
    assert path == "/api/query" and query["id_list"] == ["2106.09685,2305.14314,2305.18290"]
    assert len(result.created) == 3 and all(p.startswith("arxiv2023/") for p in result.created)


# ---------------------------------------------------------------- CLI

def test_cli_ingest(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    result = runner.invoke(app, ["ingest", "bibtex", str(BIB), str(notes)])
    assert result.exit_code == 1, result.output  # two entries could not be added; the other papers were
    assert f"created the corpus folder {notes}" in result.stdout
    assert "6 paper(s) read (1 duplicate(s) merged): 4 new stub(s)" in result.stdout
    assert "refs.bib:67: error: cannot parse BibTeX entry" in result.stderr
    assert "refs.bib:50: error: no venue for 'Scaling Instruction-Finetuned Language Models'" in result.stderr
    assert result.stderr.count("error:") == 2
    again = runner.invoke(app, ["ingest", "bibtex", str(BIB), str(notes), "-q"])
    assert again.exit_code == 1 and again.stdout == "" and again.stderr.count("error:") == 2
    clean = runner.invoke(app, ["ingest", "bibtex", str(BIB), str(notes), "--venue", "ICLR2024", "-q"])
    assert "no venue" not in clean.stderr


def test_cli_ingest_usage_errors(tmp_path: Path) -> None:
    assert runner.invoke(app, ["ingest", "zotero", "x.bib", str(tmp_path)]).exit_code == 2
    (tmp_path / "afile").write_text("x")
    not_dir = runner.invoke(app, ["ingest", "bibtex", str(BIB), str(tmp_path / "afile")], terminal_width=300)
    assert not_dir.exit_code == 2 and "Invalid value for 'CORPUS'" in not_dir.stderr
    no_venue = runner.invoke(app, ["ingest", "openreview", str(tmp_path)])
    assert no_venue.exit_code == 1 and "needs a venue id" in no_venue.stderr
