"""Regenerate the golden site: the bundled examples' built tree, normalised, under tests/golden/.

    python scripts/update_golden.py          # rebuild examples/ and rewrite tests/golden/
    python scripts/update_golden.py --check  # exit 1 with a diff if tests/golden/ is stale

``tests/golden/examples/`` holds every HTML page (one tag or text run per line,
so a change reads as a small diff) and the build's record
``papernotes-manifest.json``; ``tests/golden/examples.files`` lists every file of
the site, with a hash for the ones not copied (assets, the search index).
Volatile bits are normalised: the papernotes version, and ``.papernotes-site``
(which names the local corpus path) is left out. ``tests/test_golden.py``
compares a fresh build of examples/ with this tree.
"""
from __future__ import annotations

import difflib
import hashlib
import html
import shutil
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
GOLDEN = REPO / "tests" / "golden"
TREE = GOLDEN / "examples"
INDEX = GOLDEN / "examples.files"
LEFT_OUT = {".papernotes-site"}
"""Files of the site the golden tree ignores: the build marker names the local corpus path."""
COPIED = {"papernotes-manifest.json"}
"""Non-HTML files kept in full because their content is what the test is about."""
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
RAW = {"pre", "script", "style", "textarea"}


class _Lines(HTMLParser):
    """HTML as one tag or text run per line; whitespace outside ``pre``, ``script`` and ``style`` collapsed.

    Not indented: a change of nesting would otherwise show as a change of every line below it.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.raw = 0

    def emit(self, text: str) -> None:
        self.lines.append(text)

    def handle_decl(self, decl: str) -> None:
        self.emit(f"<!{decl}>")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        parts = [tag] + [name if value is None else f'{name}="{html.escape(value)}"' for name, value in attrs]
        self.emit(f"<{' '.join(parts)}>")
        if tag in RAW:
            self.raw += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if tag in RAW:
            self.raw = max(0, self.raw - 1)
        self.emit(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self.raw:
            for line in data.strip("\n").split("\n"):
                self.lines.append(line)  # verbatim: whitespace inside pre/script is content
            return
        text = " ".join(data.split())
        if text:
            self.emit(html.escape(text, quote=False))

    def handle_comment(self, data: str) -> None:
        self.emit(f"<!--{data}-->")


def normalise_html(text: str, version: str) -> str:
    parser = _Lines()
    parser.feed(text.replace(version, "{version}") if version else text)
    parser.close()
    return "\n".join(parser.lines) + "\n"


def snapshot(site: Path) -> dict[str, str]:
    """The golden form of a built site: relative path -> text (``examples.files`` under its own key)."""
    from papernotes import __version__

    files: dict[str, str] = {}
    index = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if rel in LEFT_OUT:
            continue
        data = path.read_bytes()
        if rel.endswith(".html"):
            files[f"examples/{rel}"] = normalise_html(data.decode("utf-8"), __version__)
            index.append(f"{rel}  (normalised copy)")
        elif rel in COPIED:
            files[f"examples/{rel}"] = data.decode("utf-8").replace(__version__, "{version}")
            index.append(f"{rel}  (copy)")
        else:
            index.append(f"{rel}  sha256:{hashlib.sha256(data).hexdigest()[:16]}")
    files["examples.files"] = "\n".join(index) + "\n"
    return files


def build_examples(work: Path) -> Path:
    """Build a copy of examples/ (its cache left behind) into ``work/site``."""
    sys.path.insert(0, str(REPO / "src"))
    from papernotes.site.build import build

    corpus = work / "corpus"
    shutil.copytree(EXAMPLES, corpus, ignore=shutil.ignore_patterns(".papernotes"))
    result = build(corpus, work / "site", use_cache=False)
    if result.errors:
        raise SystemExit("examples/ do not build cleanly: " + "; ".join(map(str, result.errors)))
    return work / "site"


def read_golden() -> dict[str, str]:
    found = {p.relative_to(GOLDEN).as_posix(): p.read_text(encoding="utf-8")
             for p in sorted(TREE.rglob("*")) if p.is_file()}
    if INDEX.exists():
        found["examples.files"] = INDEX.read_text(encoding="utf-8")
    return found


def write_golden(files: dict[str, str]) -> None:
    if TREE.exists():
        shutil.rmtree(TREE)
    for rel, text in files.items():
        target = GOLDEN / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def differences(expected: dict[str, str], actual: dict[str, str], limit: int = 80) -> str:
    """A readable account of how ``actual`` differs from the golden ``expected``: '' when they agree."""
    out: list[str] = []
    missing, extra = sorted(set(expected) - set(actual)), sorted(set(actual) - set(expected))
    if missing:
        out.append(f"{len(missing)} golden file(s) no longer built: " + ", ".join(missing[:10]))
    if extra:
        out.append(f"{len(extra)} new file(s) not in the golden tree: " + ", ".join(extra[:10]))
    changed = [rel for rel in sorted(set(expected) & set(actual)) if expected[rel] != actual[rel]]
    if changed:
        out.append(f"{len(changed)} file(s) differ: " + ", ".join(changed[:10]) + (" …" if len(changed) > 10 else ""))
    diff: list[str] = []
    for rel in changed:
        diff += difflib.unified_diff(expected[rel].splitlines(), actual[rel].splitlines(),
                                     f"tests/golden/{rel}", f"built/{rel}", n=2, lineterm="")
        if len(diff) >= limit:
            break
    if diff:
        out += diff[:limit] + (["… (diff cut; run the command below to see all of it)"] if len(diff) > limit else [])
    return "\n".join(out)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        actual = snapshot(build_examples(Path(tmp)))
    if "--check" in argv:
        report = differences(read_golden(), actual)
        if report:
            print(report + "\n\nthe golden site is stale: python scripts/update_golden.py", file=sys.stderr)
            return 1
        return 0
    write_golden(actual)
    size = sum(len(t.encode()) for t in actual.values())
    print(f"wrote {len(actual)} file(s), {size / 1024:.0f} KiB, under {GOLDEN.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
