"""Generate docs/templates.md from the code: what every template receives (run after changing a context).

    python scripts/gen_template_docs.py          # rewrite docs/templates.md
    python scripts/gen_template_docs.py --check  # exit 1 if docs/templates.md is stale or a field is undocumented

Sources: the context dataclasses of ``site/contexts/`` (read with ``ast``, so a
field's documentation is the string literal right under its declaration), the
records they reach in ``corpus/model.py`` and ``taxonomy.py``, and the tables in
``site/theme.py`` (``TEMPLATE_CONTEXTS``, ``TEMPLATE_GLOBALS``, ``NOTE_VARIABLES``,
``PARTIAL_TEMPLATES``).
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "docs" / "templates.md"
PACKAGE = REPO / "src" / "papernotes"
CONTEXTS = PACKAGE / "site" / "contexts"
"""The package of context dataclasses, one module per family of pages."""


def context_files() -> list[Path]:
    return sorted(p for p in CONTEXTS.glob("*.py") if p.name != "__init__.py")


def all_context_docs() -> list[ClassDoc]:
    """The dataclasses of every module of the contexts package."""
    return [c for path in context_files() for c in dataclass_docs(path.read_text(encoding="utf-8"))]
#: Records of other stages that templates reach through a context (``c.entry.note``, ``c.venue``): module -> names.
REACHABLE = {PACKAGE / "corpus" / "model.py": ("Entry", "Note", "SectionInfo"),
             PACKAGE / "taxonomy.py": ("Venue", "Domain", "Topic")}


@dataclass(frozen=True)
class FieldDoc:
    name: str
    annotation: str
    doc: str
    line: int


@dataclass(frozen=True)
class ClassDoc:
    name: str
    doc: str
    fields: tuple[FieldDoc, ...]
    line: int


def _is_dataclass(node: ast.ClassDef) -> bool:
    """A ``@dataclass`` or a ``NamedTuple`` record: fields declared as annotated names."""
    if any(isinstance(base, ast.Name) and base.id == "NamedTuple" for base in node.bases):
        return True
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(target, ast.Name) and target.id == "dataclass":
            return True
    return False


def _string(node: ast.stmt | None) -> str:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return " ".join(node.value.value.split()).replace("``", "`")  # reST literals -> Markdown code
    return ""


def dataclass_docs(source: str) -> list[ClassDoc]:
    """Every dataclass in ``source`` with its docstring and each field's: the string literal under it."""
    classes = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef) or not _is_dataclass(node):
            continue
        fields = []
        for i, stmt in enumerate(node.body):
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                following = node.body[i + 1] if i + 1 < len(node.body) else None
                fields.append(FieldDoc(stmt.target.id, ast.unparse(stmt.annotation), _string(following), stmt.lineno))
        classes.append(ClassDoc(node.name, _string(node.body[0]) if node.body else "", tuple(fields), node.lineno))
    return classes


def undocumented(source: str, filename: str = "contexts.py") -> list[str]:
    """``file:line: Class.field`` for every dataclass or field of ``source`` without its docstring."""
    missing = []
    for cls in dataclass_docs(source):
        if not cls.doc:
            missing.append(f"{filename}:{cls.line}: {cls.name}")
        missing += [f"{filename}:{f.line}: {cls.name}.{f.name}" for f in cls.fields if not f.doc]
    return missing


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _table(cls: ClassDoc) -> list[str]:
    lines = ["| field | type | meaning |", "|---|---|---|"]
    lines += [f"| `{f.name}` | `{_cell(f.annotation)}` | {_cell(f.doc) or '—'} |" for f in cls.fields]
    return lines


def render() -> str:
    sys.path.insert(0, str(REPO / "src"))
    from papernotes.site.theme import NOTE_VARIABLES, PARTIAL_TEMPLATES, TEMPLATE_CONTEXTS, TEMPLATE_GLOBALS

    contexts = {c.name: c for c in all_context_docs()}
    lines = [
        "# Template reference",
        "",
        "Generated from the code by `python scripts/gen_template_docs.py` (the context dataclasses of",
        "`src/papernotes/site/contexts/` and the tables in `src/papernotes/site/theme.py`); a test fails when",
        "this file is out of date or a field has no documentation. How to override templates and assets in",
        "your own theme folder: [theming.md](theming.md).",
        "",
        "## What every template receives",
        "",
        "| name | meaning |",
        "|---|---|",
        *[f"| `{name}` | {_cell(text)} |" for name, text in TEMPLATE_GLOBALS.items()],
        "",
        "`note.html` also receives:",
        "",
        "| name | meaning |",
        "|---|---|",
        *[f"| `{name}` | {_cell(text)} |" for name, text in NOTE_VARIABLES.items()],
        "",
        "## Templates and their contexts",
        "",
        "Each page template receives one context dataclass as `c`.",
        "",
        "| template | `c` is a | page |",
        "|---|---|---|",
    ]
    for template, ctx in TEMPLATE_CONTEXTS.items():
        doc = contexts[ctx.__name__].doc
        lines.append(f"| `{template}` | [`{ctx.__name__}`](#{ctx.__name__.lower()}) | {_cell(doc)} |")
    lines += ["", "Partial templates (overridable like the others):", "", "| template | role |", "|---|---|"]
    lines += [f"| `{name}` | {_cell(text)} |" for name, text in PARTIAL_TEMPLATES.items()]
    lines += ["", "## Contexts", ""]
    used = list(dict.fromkeys(ctx.__name__ for ctx in TEMPLATE_CONTEXTS.values()))
    for name in used:
        cls = contexts[name]
        templates = ", ".join(f"`{t}`" for t, c in TEMPLATE_CONTEXTS.items() if c.__name__ == name)
        lines += [f"### {name}", "", f"{cls.doc} Given to {templates}.", "", *_table(cls), ""]
    lines += ["## Records inside contexts", ""]
    for cls in contexts.values():
        if cls.name not in used:
            lines += [f"### {cls.name}", "", cls.doc, "", *_table(cls), ""]
    lines += ["## Records from other stages", "",
              "Reached through `c.entry` (note pages) and `c.venue` (venue pages); documented where they are",
              "declared, in `src/papernotes/corpus/model.py` and `src/papernotes/taxonomy.py`.", ""]
    for path, names in REACHABLE.items():
        found = {c.name: c for c in dataclass_docs(path.read_text(encoding="utf-8"))}
        for name in names:
            cls = found[name]
            lines += [f"### {name}", "", cls.doc or "—", "", *_table(cls), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    missing = [m for path in context_files()
               for m in undocumented(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))]
    for item in missing:
        print(f"{item}: no docstring", file=sys.stderr)
    text = render()
    if "--check" in sys.argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        sys.exit(0 if current == text and not missing else 1)
    if missing:
        sys.exit(1)
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
