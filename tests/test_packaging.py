"""The wheel carries everything a site needs offline (the README's first command installs it, not editable)."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # pip builds the wheel in an environment of its own
def test_wheel_contains_templates_data_prompts_and_katex_fonts(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path), str(REPO)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("papernotes-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    package = REPO / "src" / "papernotes"
    wanted = [p.relative_to(package.parent).as_posix() for p in package.rglob("*")
              if p.is_file() and p.suffix not in (".pyc",) and "__pycache__" not in p.parts]
    missing = [name for name in wanted if name not in names]
    assert missing == [], missing
    assert any(name.endswith(".woff2") for name in names)


def test_a_plain_install_builds_and_commands_name_the_extra_they_need(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Site commands import no optional package; pipeline commands say which extra to install."""
    import subprocess as sp

    probe = ("import sys, papernotes.cli, papernotes.site.build, papernotes.site.serve, papernotes.check.run; "
             "heavy = {'openai', 'sklearn', 'numpy', 'scipy', 'arxiv', 'bibtexparser', 'pypdf', 'pypdfium2'} & set(sys.modules); "
             "print(sorted(heavy))")
    out = sp.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"

    import papernotes.extras as extras
    from typer.testing import CliRunner

    from papernotes.cli import app

    real = extras.available
    monkeypatch.setattr(extras, "available", lambda module: False if module in extras.EXTRAS else real(module))
    corpus = REPO / "examples"
    result = CliRunner().invoke(app, ["classify", str(corpus)])
    assert result.exit_code == 2 and "pip install 'papernotes[classify]'" in result.output
    pdf = tmp_path / "p.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    result = CliRunner().invoke(app, ["read", str(pdf)])
    assert result.exit_code != 0 and "papernotes[pdf]" in result.output
