"""Docs generated from code cannot drift: the CLI reference and the README's promises."""
from __future__ import annotations

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


def test_every_template_context_field_is_documented() -> None:
    """Each page context dataclass documents itself and each template uses one."""
    import dataclasses

    from papernotes.site import contexts as module

    contexts = [obj for obj in vars(module).values()
                if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__name__.endswith("Context")]
    assert len(contexts) >= 9
    for ctx in contexts:
        assert ctx.__doc__ and ctx.__doc__.strip(), ctx


TEMPLATE_CONTEXTS = {
    "venue_domain.html": "VenueDomainContext", "venue.html": "VenueContext", "domain.html": "DomainContext",
    "domains.html": "DomainsIndexContext", "topic.html": "TopicContext", "topics.html": "TopicsIndexContext",
    "home.html": "HomeContext", "note.html": "NoteContext", "redirect.html": "RedirectContext",
}


def test_templates_use_only_fields_their_context_documents() -> None:
    import dataclasses
    import re

    from papernotes.site import contexts

    templates = REPO / "src" / "papernotes" / "templates"
    for name, context in TEMPLATE_CONTEXTS.items():
        fields = {f.name for f in dataclasses.fields(getattr(contexts, context))}
        used = set(re.findall(r"\bc\.(\w+)", (templates / name).read_text(encoding="utf-8")))
        assert used and used <= fields, (name, used - fields)


def test_every_setting_has_help_and_is_documented() -> None:
    from papernotes.config import LLMConfig, SiteConfig, TaxonomyFiles

    docs = (REPO / "README.md").read_text(encoding="utf-8") + (REPO / "docs" / "pipeline.md").read_text(encoding="utf-8")
    for model in (SiteConfig, TaxonomyFiles, LLMConfig):
        for name, field in model.model_fields.items():
            if name in ("taxonomy", "llm"):
                continue
            assert field.description, (model.__name__, name)
            assert name in docs, f"{model.__name__}.{name} is not documented in README.md or docs/pipeline.md"
