"""The wheel carries everything a site needs offline (the README's first command installs it, not editable)."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


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
