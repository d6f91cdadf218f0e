"""Generate docs/cli.md from the CLI's own definitions (run after changing a command).

    python scripts/gen_cli_docs.py          # rewrite docs/cli.md
    python scripts/gen_cli_docs.py --check  # exit 1 if docs/cli.md is stale (used by the tests)
"""
from __future__ import annotations

import sys
from pathlib import Path

import typer

from papernotes.cli import app

TARGET = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def render() -> str:
    group = typer.main.get_command(app)
    lines = ["# CLI reference", "", "Generated from the commands themselves by `python scripts/gen_cli_docs.py`;",
             "a test fails when this file is out of date.", "", f"{group.help}", ""]
    ctx = group.context_class(group, info_name="papernotes")
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        sub = command.context_class(command, info_name=name, parent=ctx)
        del sub
        pieces = ["[OPTIONS]", *(p.name.upper() + ("..." if p.nargs == -1 else "")
                                 for p in command.params if p.param_type_name == "argument")]
        lines += [f"## `papernotes {name}`", "", (command.help or "").strip(), "", "```",
                  f"papernotes {name} {' '.join(pieces)}", "```", ""]
        rows = []
        for param in command.params:
            if param.name == "help":
                continue
            if param.param_type_name == "argument":
                rows.append((f"`{param.name.upper()}`", getattr(param, "help", "") or "", "required"))
                continue
            flags = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
            default = "" if param.default in (None, "", False) or param.is_flag and not param.default else f"`{param.default}`"
            rows.append((flags, param.help or "", default))
        if rows:
            lines += ["| argument / option | meaning | default |", "|---|---|---|"]
            lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
            lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    text = render()
    if "--check" in sys.argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        sys.exit(0 if current == text else 1)
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
