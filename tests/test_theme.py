"""Themes: a theme folder overrides templates and assets by name, and the site check reads data, not HTML."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES, REPO, example_notes
from papernotes.cli import app
from papernotes.errors import BuildError
from papernotes.site.build import build
from papernotes.layout import MANIFEST_NAME
from papernotes.site.manifest import ManifestError, read_manifest
from sitecheck import dead_links, site_files

runner = CliRunner()
THEME = REPO / "docs" / "examples" / "theme"
DOC = REPO / "docs" / "theming.md"
#: A file of the example in docs/theming.md: its bold ``mytheme/PATH`` caption, then the first code block after it.
FILE_BLOCK = re.compile(r"\*\*`mytheme/([^`]+)`\*\*.*?\n```[\w+-]*\n(.*?)```", re.S)
DOC_CONFIG = '```toml\ntheme_dir = "mytheme"\n```'


def themed_corpus(tmp: Path, theme: Path = THEME, setting: str = 'theme_dir = "mytheme"') -> Path:
    corpus = tmp / "corpus"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    if theme.exists():
        shutil.copytree(theme, corpus / "mytheme")
    with (corpus / "papernotes.toml").open("a", encoding="utf-8") as handle:
        handle.write(setting + "\n")
    return corpus


@pytest.fixture(scope="module")
def themed_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The examples built with exactly the theme docs/theming.md shows: (corpus, site)."""
    corpus = themed_corpus(tmp_path_factory.mktemp("themed"))
    site = corpus.parent / "site"
    result = build(corpus, site)
    assert result.errors == []
    return corpus, site


def check_site(corpus: Path, site: Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["check", str(corpus), "--site", str(site), "--no-formulas", "--no-classifier", "--json"])


def test_the_documented_example_is_the_tested_theme() -> None:
    text = DOC.read_text(encoding="utf-8")
    documented = {path: body for path, body in FILE_BLOCK.findall(text)}
    fixture = {p.relative_to(THEME).as_posix(): p.read_text(encoding="utf-8") for p in THEME.rglob("*") if p.is_file()}
    assert set(documented) == set(fixture) == {"templates/venue_domain.html", "static/palette.css", "static/listing.css"}
    for path, body in documented.items():
        assert body == fixture[path], f"docs/theming.md and docs/examples/theme/{path} differ"
    assert DOC_CONFIG in text and "(templates.md)" in text


def test_the_example_theme_overrides_only_what_it_names(themed_site, example_site) -> None:  # type: ignore[no-untyped-def]
    _, site = themed_site
    default, _ = example_site
    themed, plain = site_files(site), site_files(default)
    assert set(themed) == set(plain) | {"assets/listing.css"}
    listing_pages = {p.file for p in read_manifest(plain[MANIFEST_NAME]).pages if p.kind == "venue_domain"}
    assert len(listing_pages) == 17
    listing_pages |= {f"en/{rel}" for rel in listing_pages}  # the English edition's
    for rel in listing_pages:
        html = themed[rel].decode()
        assert '<ol class="paper-list">' in html and '<dl class="papers">' not in html, rel
        assert f'<link rel="stylesheet" href="{"../" * rel.count("/")}assets/listing.css">' in html
        assert '<dl class="papers">' in plain[rel].decode()
    assert themed["assets/palette.css"] == (THEME / "static/palette.css").read_bytes() != plain["assets/palette.css"]
    assert themed["assets/listing.css"] == (THEME / "static/listing.css").read_bytes()
    unchanged = set(plain) - listing_pages - {"assets/palette.css", ".papernotes-site"}
    assert [rel for rel in sorted(unchanged) if themed[rel] != plain[rel]] == []
    assert dead_links(site) == []


def test_a_theme_with_other_markup_passes_the_site_check(themed_site) -> None:  # type: ignore[no-untyped-def]
    corpus, site = themed_site
    result = check_site(corpus, site)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["errors"] == 0


def test_a_tampered_site_fails_the_site_check(themed_site, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A missing page and a wrong count in the record are both errors."""
    corpus, built = themed_site
    site = tmp_path / "site"
    shutil.copytree(built, site)
    note = next(site.glob("ICML2024/optimization/*/index.html"))
    note.unlink()
    record = site / MANIFEST_NAME
    data = json.loads(record.read_text(encoding="utf-8"))
    cell = next(p for p in data["pages"] if p["url"] == "CVPR2024/image_generation/")
    assert cell["count"] == 3
    cell["count"] = 4
    record.write_text(json.dumps(data), encoding="utf-8")
    result = check_site(corpus, site)
    assert result.exit_code == 1
    found = {(d["path"], d["code"], d["message"]) for d in json.loads(result.stdout)["diagnostics"]
             if d["code"].startswith("site-")}  # the corpus's own warnings (ratings) aside
    assert len(found) == 2
    assert (str(note), "site-missing", f"page missing: the record lists {note.parent.relative_to(site)}/ "
                                       "but its file is not there") in found
    assert (str(site / "CVPR2024/image_generation/index.html"), "site-count",
            "lists 3 note(s), says 4, the corpus has 3 for venue × domain CVPR2024 × image_generation; "
            "rebuild the site") in found


def test_a_note_left_off_its_listing_or_no_record_fails(themed_site, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    built_corpus, built = themed_site
    corpus, site = tmp_path / "corpus", tmp_path / "site"
    shutil.copytree(built_corpus, corpus)  # a note is deleted below: the shared corpus must stay as it is
    shutil.copytree(built, site)
    record = site / MANIFEST_NAME
    data = json.loads(record.read_text(encoding="utf-8"))
    cell = next(p for p in data["pages"] if p["url"] == "ICML2024/optimization/")
    dropped = data["notes"][cell["notes"].pop(0)]
    cell["count"] -= 1
    record.write_text(json.dumps(data), encoding="utf-8")
    result = check_site(corpus, site)
    assert result.exit_code == 1
    found = {(d["path"], d["message"]) for d in json.loads(result.stdout)["diagnostics"]
             if d["code"].startswith("site-")}  # the corpus's own warnings (ratings) aside
    source = next(p.relative_to(corpus).as_posix() for p in corpus.glob("ICML2024/optimization/*.md")
                  if p.stem == dropped.split("/")[-2])
    assert found == {
        (source, "not listed on its venue × domain ICML2024 × optimization page ICML2024/optimization/; "
                 "rebuild the site"),
        (str(site / "ICML2024/optimization/index.html"), "lists 5 note(s), says 5, the corpus has 6 for "
                                                          "venue × domain ICML2024 × optimization; rebuild the site"),
    }
    gone = corpus / source
    gone.unlink()
    stale = check_site(corpus, site)
    assert {(d["path"], d["message"]) for d in json.loads(stale.stdout)["diagnostics"]} >= {
        (str(site / dropped / "index.html"), f"note page {dropped} has no note in the corpus; rebuild the site")}
    record.unlink()
    missing = check_site(corpus, site)
    assert missing.exit_code == 1 and "no record of the published pages" in missing.stdout


def test_incremental_builds_keep_the_record_current(tmp_path: Path) -> None:
    """A note removed, one moved to another domain and one edited: the rebuilt site still passes the check."""
    corpus = themed_corpus(tmp_path)
    config = corpus / "papernotes.toml"  # one edition: a body edit then re-renders the note's page alone
    config.write_text(re.sub(r"(?m)^languages = .*\n", "", config.read_text(encoding="utf-8")), encoding="utf-8")
    site = tmp_path / "site"
    build(corpus, site)
    notes = example_notes(corpus / "ICML2024/optimization")
    notes[0].unlink()
    for note in (notes[1], *notes[1].parent.glob(f"{notes[1].stem}.??.md")):  # a translation moves along
        note.write_text(note.read_text(encoding="utf-8").replace("domain: optimization", "domain: llm_reasoning", 1),
                        encoding="utf-8")
    notes[2].write_text(notes[2].read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    again = build(corpus, site)
    assert not again.up_to_date and again.removed >= 1
    result = check_site(corpus, site)
    assert result.exit_code == 0, result.output
    body_only = notes[2].read_text(encoding="utf-8") + "\nAnd another.\n"
    notes[2].write_text(body_only, encoding="utf-8")
    assert build(corpus, site).rendered == 1  # a body edit: the record stays as it was, and still true
    assert check_site(corpus, site).exit_code == 0


def test_read_manifest_rejects_what_it_did_not_write() -> None:
    with pytest.raises(ManifestError, match="line 1: invalid JSON"):
        read_manifest(b"{")
    with pytest.raises(ManifestError, match="format 1"):
        read_manifest(b'{"format": 2, "notes": [], "pages": []}')
    with pytest.raises(ManifestError, match=r"pages\[0\].file: '../../etc/passwd' is not a path inside the site"):
        read_manifest(b'{"format": 1, "notes": [], "pages": [{"url": "", "file": "../../etc/passwd", "kind": "home"}]}')
    with pytest.raises(ManifestError, match=r"notes\[0\]: '/etc/index.html' is not a path inside the site"):
        read_manifest(b'{"format": 1, "notes": ["/etc/"], "pages": []}')
    with pytest.raises(ManifestError, match=r"pages\[0\].count"):
        read_manifest(b'{"format": 1, "notes": [], "pages": [{"url": "", "file": "index.html", "kind": "home", "count": "7"}]}')
    with pytest.raises(ManifestError, match=r"pages\[0\].notes: expected positions"):
        read_manifest(b'{"format": 1, "notes": ["a/"], "pages": [{"url": "", "file": "i.html", "kind": "x", "notes": [1]}]}')
    record = read_manifest(b'{"format": 1, "notes": ["a/b/"], "pages": [{"url": "a/", "file": "a/index.html", '
                           b'"kind": "venue_domain", "count": 1, "notes": [0], "links": [["a/", 1]]}]}')
    assert [(p.url, p.file, p.kind, p.count, p.notes, p.links) for p in record.pages] == [
        ("a/", "a/index.html", "venue_domain", 1, ("a/b/",), (("a/", 1),)),
        ("a/b/", "a/b/index.html", "note", None, (), ())]


def test_the_record_reads_back_as_written() -> None:
    """manifest() and read_manifest() are one writer and one reader: every planned page comes back as described."""
    from papernotes.cache import BuildCache
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import load_corpus
    from papernotes.site.manifest import describe, manifest
    from papernotes.site.plan import PlanSettings, plan_site
    from papernotes.site.resolve import resolve
    from papernotes.site.strings import labels_for

    config, _ = load_config(EXAMPLES)
    taxonomy = load_site_taxonomy(EXAMPLES, config)
    with BuildCache(None) as cache:
        loaded = load_corpus(EXAMPLES, cache)
        entries, _ = resolve(list(loaded.notes), list(loaded.diagnostics), taxonomy)
    pages = plan_site(entries, PlanSettings(config, taxonomy, labels_for("zh")), "salt")
    record = read_manifest(manifest(pages))
    assert record.pages == tuple(sorted(map(describe, pages), key=lambda p: p.url))
    listing = record.by_url()["ICML2024/optimization/"]
    assert listing.kind == "venue_domain" and listing.count == len(listing.notes) == 6
    assert all(record.by_url()[url].kind == "note" for url in listing.notes)


def test_the_record_holds_no_local_path(themed_site) -> None:  # type: ignore[no-untyped-def]
    corpus, site = themed_site
    text = (site / MANIFEST_NAME).read_text(encoding="utf-8")
    assert str(corpus.parent) not in text and str(Path.home()) not in text
    record = read_manifest(text.encode())
    assert all(not Path(p.file).is_absolute() for p in record.pages)
    assert {p.kind for p in record.pages} >= {"home", "venue", "venue_domain", "note", "domain", "topic", "search", "404"}


def test_editing_the_theme_rerenders_the_pages(tmp_path: Path) -> None:
    corpus = themed_corpus(tmp_path)
    site = tmp_path / "site"
    first = build(corpus, site)
    assert build(corpus, site).up_to_date
    template = corpus / "mytheme/templates/venue_domain.html"
    template.write_text(template.read_text(encoding="utf-8").replace('<ol class="paper-list">',
                                                                     '<ol class="paper-list edited">'),
                        encoding="utf-8")
    (corpus / "mytheme/static/extra.js").write_text("// new\n", encoding="utf-8")
    second = build(corpus, site)
    assert not second.up_to_date and second.rendered == first.pages
    assert '<ol class="paper-list edited">' in (site / "ICML2024/optimization/index.html").read_text(encoding="utf-8")
    assert (site / "assets/extra.js").read_text(encoding="utf-8") == "// new\n"
    assert build(corpus, site).up_to_date


def test_a_theme_extends_the_package_template_it_overrides(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    (theme / "templates").mkdir(parents=True)
    (theme / "templates/note.html").write_text(
        '{% extends "papernotes/note.html" %}\n{% block head %}<meta name="x-theme" content="on">{% endblock %}\n',
        encoding="utf-8")
    corpus = themed_corpus(tmp_path, theme)
    site = tmp_path / "site"
    build(corpus, site)
    html = (site / "ICML2024/optimization/galore_memory-efficient_llm_training_by_gradient_low-rank_projection"
            / "index.html").read_text(encoding="utf-8")
    assert '<meta name="x-theme" content="on">' in html and '<article class="note"' in html
    assert "x-theme" not in (site / "ICML2024/optimization/index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("setting, message", [
    ('theme_dir = "nowhere"', "not found: {corpus}/nowhere"),
    ('theme_dir = "ICML2024"', "{corpus}/ICML2024 has neither templates/, static/ nor i18n.toml"),
])
def test_a_bad_theme_folder_is_a_config_error(tmp_path: Path, setting: str, message: str) -> None:
    corpus = themed_corpus(tmp_path, tmp_path / "absent", setting)
    line = (corpus / "papernotes.toml").read_text(encoding="utf-8").splitlines().index(setting) + 1
    result = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"papernotes.toml:{line}: error: theme_dir: theme folder " in result.stderr
    assert message.format(corpus=corpus) in result.stderr.replace("\n", "")


@pytest.mark.parametrize("template, line, message", [
    ("{% extends 'base.html' %}\n{% block main %}{% for %}{% endblock %}\n", 2, "Expected an expression"),
    ("{% extends 'base.html' %}\n{% block main %}\n{{ c.no_such_field.x }}\n{% endblock %}\n", 3, "no_such_field"),
])
def test_a_broken_theme_template_names_its_line_and_publishes_nothing(tmp_path: Path, template: str, line: int,
                                                                     message: str) -> None:
    theme = tmp_path / "theme"
    (theme / "templates").mkdir(parents=True)
    corpus = themed_corpus(tmp_path, theme)
    site = tmp_path / "site"
    build(corpus, site)
    before = site_files(site)
    (corpus / "mytheme/templates/venue.html").write_text(template, encoding="utf-8")
    with pytest.raises(BuildError, match=rf"^mytheme/templates/venue.html:{line}: error: template venue.html: .*{message}"):
        build(corpus, site)
    assert site_files(site) == before
    if "{% for %}" in template:  # large builds compile every template up front, before forking: same report
        from papernotes.config import load_config
        from papernotes.site.theme import Theme

        with pytest.raises(BuildError, match=rf"^mytheme/templates/venue.html:{line}: error: template venue.html"):
            Theme(load_config(corpus)[0], corpus, precompile=True)
    result = runner.invoke(app, ["build", str(corpus), "-o", str(site)])
    assert result.exit_code == 1 and f"mytheme/templates/venue.html:{line}: error:" in result.stderr
    assert "Traceback" not in result.output


def test_a_theme_overrides_interface_strings_in_each_language(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "i18n.toml").write_text('[zh]\nrelated = "延伸阅读"\n\n[en]\nrelated = "Further reading"\n',
                                     encoding="utf-8")
    corpus = themed_corpus(tmp_path, theme)  # a theme of strings alone: no templates/, no static/
    site = tmp_path / "site"
    assert build(corpus, site).errors == []
    zh = site / "ICML2024/optimization/galore_memory-efficient_llm_training_by_gradient_low-rank_projection/index.html"
    en = site / "en" / zh.relative_to(site)
    assert '<h2 id="related-heading">延伸阅读</h2>' in zh.read_text(encoding="utf-8")
    assert '<h2 id="related-heading">Further reading</h2>' in en.read_text(encoding="utf-8")
    assert "相关论文" not in zh.read_text(encoding="utf-8")
    # an edit of the strings re-renders every page, as a template edit does
    (corpus / "mytheme/i18n.toml").write_text('[en]\nrelated = "See also"\n', encoding="utf-8")
    again = build(corpus, site)
    assert not again.up_to_date and again.rendered == again.pages
    assert '<h2 id="related-heading">See also</h2>' in en.read_text(encoding="utf-8")
    assert '<h2 id="related-heading">相关论文</h2>' in zh.read_text(encoding="utf-8")


def test_bad_interface_strings_are_config_errors_with_their_lines(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "i18n.toml").write_text('[en]\nrelated = "See also"\nrelatd = "typo"\nnotes_count = "{count} notes"\n'
                                     'search_results = "{n results"\n[fr]\nrelated = "Voir aussi"\n', encoding="utf-8")
    corpus = themed_corpus(tmp_path, theme)
    result = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    shown = str(corpus / "mytheme/i18n.toml")
    assert f"{shown}:3: error: unknown interface string `relatd`" in result.stderr
    assert f"{shown}:4: error: `notes_count` must use {{n}}, as the package's does" in result.stderr
    assert f"{shown}:5: error: `search_results` must use {{n}}" in result.stderr  # a lone brace
    assert f"{shown}:6: error: `fr` is not a language table; use [zh] or [en]" in result.stderr
    assert not (tmp_path / "site").exists()
    (corpus / "mytheme/i18n.toml").write_text("[en\n", encoding="utf-8")
    broken = runner.invoke(app, ["build", str(corpus), "-o", str(tmp_path / "site")])
    assert broken.exit_code == 2 and f"{shown}:1: error: invalid TOML" in broken.stderr


def test_the_documented_strings_example_is_valid() -> None:
    from papernotes.site.strings import _package_strings, merge_strings

    doc = (Path(__file__).parents[1] / "docs/theming.md").read_text(encoding="utf-8")
    section = doc.split("## Changing interface strings", 1)[1]
    example = section.split("```toml\n", 1)[1].split("```", 1)[0]
    merged = merge_strings(_package_strings(), example, "docs/theming.md")
    assert merged["zh"]["related"] == "延伸阅读" and merged["en"]["search_results"] == "{n} notes found"
    assert merged["en"]["home"] == _package_strings()["en"]["home"]  # the rest stays the package's
