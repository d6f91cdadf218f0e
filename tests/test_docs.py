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

    from papernotes import pages

    contexts = [obj for obj in vars(pages).values()
                if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__name__.endswith("Context")]
    assert len(contexts) >= 9
    for ctx in contexts:
        assert ctx.__doc__ and ctx.__doc__.strip(), ctx
