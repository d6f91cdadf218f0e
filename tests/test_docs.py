"""Docs generated from code cannot drift: the CLI and template references and the README's promises."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from papernotes.cli import app
import typer

REPO = Path(__file__).resolve().parents[1]


def test_cli_reference_is_up_to_date() -> None:
    result = subprocess.run([sys.executable, str(REPO / "scripts/gen_cli_docs.py"), "--check"], cwd=REPO)
    assert result.returncode == 0, "docs/cli.md is stale: run python scripts/gen_cli_docs.py"


def test_readme_mentions_every_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    group = typer.main.get_command(app)
    for name in group.list_commands(group.context_class(group)):
        assert f"papernotes {name}" in readme, name


def _script(name: str):  # type: ignore[no-untyped-def]
    """A module of scripts/ (each docs generator is the one reader of what it documents)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module



UNDOCUMENTED_SAMPLE = '''from dataclasses import dataclass

@dataclass(frozen=True)
class Documented:
    """A record."""

    title: str
    """Its title."""
    count: int = 0
    url: str = ""
    """Where."""

@dataclass
class Bare:
    name: str

class NotADataclass:
    skipped: int
'''


def test_template_reference_is_up_to_date() -> None:
    result = subprocess.run([sys.executable, str(REPO / "scripts/gen_template_docs.py"), "--check"], cwd=REPO)
    assert result.returncode == 0, "docs/templates.md is stale: run python scripts/gen_template_docs.py"


def test_every_template_context_field_is_documented() -> None:
    """Every dataclass of the contexts package, and each of its fields, has a docstring where it is declared."""
    gen = _script("gen_template_docs")
    assert len(gen.context_files()) >= 4
    classes = gen.all_context_docs()
    assert len([c for c in classes if c.name.endswith("Context")]) >= 9
    assert {"Link", "PaperItem", "Crumb", "DomainSection", "VenueCard", "Page", "SiteLabels"} <= {c.name for c in classes}
    assert [m for path in gen.context_files()
            for m in gen.undocumented(path.read_text(encoding="utf-8"), path.name)] == []


def test_the_field_checker_names_what_is_missing() -> None:
    gen = _script("gen_template_docs")
    assert gen.undocumented(UNDOCUMENTED_SAMPLE, "x.py") == [
        "x.py:9: Documented.count", "x.py:14: Bare", "x.py:15: Bare.name"]
    docs = {c.name: {f.name: f.doc for f in c.fields} for c in gen.dataclass_docs(UNDOCUMENTED_SAMPLE)}
    assert docs == {"Documented": {"title": "Its title.", "count": "", "url": "Where."}, "Bare": {"name": ""}}


def test_templates_use_only_fields_their_context_documents() -> None:
    import re

    from papernotes.site.theme import TEMPLATE_CONTEXTS

    gen = _script("gen_template_docs")
    documented = {c.name: {f.name for f in c.fields if f.doc}
                  for c in gen.all_context_docs()}
    templates = REPO / "src" / "papernotes" / "templates"
    assert {p.name for p in templates.iterdir()} >= set(TEMPLATE_CONTEXTS)
    for name, context in TEMPLATE_CONTEXTS.items():
        used = set(re.findall(r"\bc\.(\w+)", (templates / name).read_text(encoding="utf-8")))
        assert used <= documented[context.__name__], (name, used - documented[context.__name__])


def test_the_planner_gives_each_template_its_declared_context() -> None:
    """TEMPLATE_CONTEXTS (what docs/templates.md promises) is what the page kinds produce, for every kind."""
    from dataclasses import replace

    from papernotes.cache import BuildCache
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import load_corpus
    from papernotes.site.plan import KINDS, PlanSettings, plan_site
    from papernotes.site.resolve import resolve
    from papernotes.site.strings import labels_for
    from papernotes.site.theme import TEMPLATE_CONTEXTS

    corpus = REPO / "examples"
    config, _ = load_config(corpus)
    taxonomy = load_site_taxonomy(corpus, config)
    with BuildCache(None) as cache:
        loaded = load_corpus(corpus, cache)
        notes, problems = list(loaded.notes), list(loaded.diagnostics)
    notes[0] = replace(notes[0], aliases=("old/place/",))  # so that the redirect kind has a page to plan
    entries, _ = resolve(notes, problems, taxonomy)
    pages = plan_site(entries, PlanSettings(config, taxonomy, labels_for(config.language)), "salt")
    assert {p.template: type(p.context) for p in pages} == TEMPLATE_CONTEXTS
    assert len({p.template for p in pages}) == len(KINDS.names())  # one template per kind of page


def test_template_variables_are_the_documented_ones() -> None:
    """What Theme.render passes, plus the environment's own globals and filters, is what docs/templates.md lists."""
    import jinja2

    from papernotes.config import SiteConfig
    from papernotes.site.contexts import Page, SimpleContext
    from papernotes.site.theme import NOTE_VARIABLES, TEMPLATE_GLOBALS, Theme

    theme = Theme(SiteConfig(), REPO / "examples", precompile=False)
    values, _ = theme.variables(Page("search/", "search.html", "Search", SimpleContext("search")))
    plain = jinja2.Environment()
    ours = set(values) | (set(theme.env.globals) - set(plain.globals)) | (set(theme.env.filters) - set(plain.filters))
    assert ours == set(TEMPLATE_GLOBALS)
    assert set(NOTE_VARIABLES).isdisjoint(ours)


def test_every_setting_has_help_and_is_documented() -> None:
    from papernotes.config import LLMConfig, SiteConfig, TaxonomyFiles

    docs = (REPO / "README.md").read_text(encoding="utf-8") + (REPO / "docs" / "pipeline.md").read_text(encoding="utf-8")
    for model in (SiteConfig, TaxonomyFiles, LLMConfig):
        for name, field in model.model_fields.items():
            if name in ("taxonomy", "llm"):
                continue
            assert field.description, (model.__name__, name)
            # as a key in a TOML example (`name = …`, commented or not) or in backticks, not a substring
            documented = re.search(rf"^#?\s*{name}\s*=|`{name}`", docs, re.M)
            assert documented, f"{model.__name__}.{name} is not documented in README.md or docs/pipeline.md"


def test_the_publishing_guide_uses_real_commands_and_valid_config() -> None:
    """Every `papernotes …` of docs/publish.md names a command and options that exist; its TOML blocks parse."""
    import re
    import shlex
    import tomllib

    text = (REPO / "docs" / "publish.md").read_text(encoding="utf-8")
    group = typer.main.get_command(app)
    spans = re.findall(r"`([^`\n]+)`", text) + re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
    commands = [part.strip() for span in spans for part in re.split(r"&&|\n", span)
                if part.strip().startswith("papernotes ")]
    assert len(commands) >= 8, commands
    for line in commands:
        name, *args = shlex.split(line)[1:]
        command = group.commands.get(name)
        assert command is not None, line
        options = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        assert {a.split("=")[0] for a in args if a.startswith("-")} <= options, line
    blocks = re.findall(r"```toml\n(.*?)```", text, re.DOTALL)
    assert len(blocks) >= 2
    for block in blocks:
        tomllib.loads(block)
    assert "docs/publish.md" in (REPO / "README.md").read_text(encoding="utf-8")
