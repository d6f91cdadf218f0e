"""Benchmark: YAML front-matter parsers on the reference notes, speed and agreement.

Stage: none (a developer tool, not part of the package).
In: the front matter of a papernotes corpus: by default the reference snapshot
``../shared/corpus/paper-notes/docs`` imported into a temporary directory with
``papernotes import-mkdocs`` (in-process), or ``--corpus DIR``.
Out: a table on stdout: median seconds over ``--runs`` rounds (default 7; every
parser once per round, interleaved, so load changes hit all alike; the garbage
collector off while timed) to parse every note's front matter with

- ``yaml-rs``: ``yaml_rs.loads(raw, parse_datetime=False)`` (YAML 1.2 core);
- ``pyyaml-1.1``: PyYAML's ``CSafeLoader`` as shipped (YAML 1.1: ``yes`` is a
  bool, ``012`` is 10);
- ``pyyaml-1.2``: ``CSafeLoader`` with the 1.2 core schema's implicit resolvers
  and int constructor swapped in (what papernotes would need from PyYAML);
- ``papernotes``: ``papernotes.corpus.frontmatter.parse``, the parser every stage
  uses (yaml-rs plus text fields kept as typed);

the ratio of each to the fastest, the notes where ``pyyaml-1.2`` and ``pyyaml-1.1``
read something different from ``yaml-rs``, and the writer: ``frontmatter.dump``
against PyYAML's ``CSafeDumper`` on the same mappings.

Usage: python benchmarks/frontmatter_parsers.py [--corpus DIR | --docs DIR] [--runs N] [--json OUT]
PyYAML is benchmark-only here: pip install pyyaml
"""
from __future__ import annotations

import argparse
import gc
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DOCS = REPO.parent / "shared" / "corpus" / "paper-notes" / "docs"

try:
    from papernotes.corpus import frontmatter
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(REPO / "src"))
    from papernotes.corpus import frontmatter

import yaml  # noqa: E402
import yaml_rs  # noqa: E402


class Core12Loader(yaml.CSafeLoader):
    """PyYAML's C loader with YAML 1.2 core-schema resolution instead of 1.1's."""


def _core_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = loader.construct_scalar(node)
    sign, digits = (-1, text[1:]) if text[:1] == "-" else (1, text.lstrip("+"))
    base = {"0o": 8, "0x": 16}.get(digits[:2], 10)
    return sign * int(digits[2:] if base != 10 else digits, base)


Core12Loader.yaml_implicit_resolvers = {}
for tag, pattern, first in (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)"
              r"|\.(?:nan|NaN|NAN))$", "-+.0123456789"),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
):
    Core12Loader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", re.compile(pattern), list(first))
Core12Loader.add_constructor("tag:yaml.org,2002:int", _core_int)

PARSERS: dict[str, Callable[[str], Any]] = {
    "yaml-rs": lambda raw: yaml_rs.loads(raw, parse_datetime=False),
    "pyyaml-1.1": lambda raw: yaml.load(raw, Loader=yaml.CSafeLoader),
    "pyyaml-1.2": lambda raw: yaml.load(raw, Loader=Core12Loader),
    "papernotes": frontmatter.parse,
}


def front_matters(corpus: Path) -> list[str]:
    out = []
    for path in sorted(corpus.rglob("*.md")):
        if ".papernotes" in path.parts:
            continue
        raw, _, line = frontmatter.split_front_matter(path.read_text(encoding="utf-8"))
        if raw is not None and line > 0:
            out.append(raw)
    return out


def timed(fn: Callable[[Any], Any], items: list[Any]) -> float:
    """Seconds to call ``fn`` on every item, garbage collector off (as ``timeit`` does)."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for item in items:
            fn(item)
        return time.perf_counter() - start
    finally:
        gc.enable()


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return bool(a == b)


def _try(parser: Callable[[str], Any], raw: str) -> Any:
    try:
        return parser(raw)
    except yaml.YAMLError as exc:  # 1.1 refuses some 1.2 text (`key: <<`): that is a difference too
        return exc


def measure(raws: list[str], runs: int) -> dict[str, Any]:
    parse_times: dict[str, list[float]] = {name: [] for name in PARSERS}
    mappings = [PARSERS["yaml-rs"](raw) for raw in raws]
    writers: dict[str, Callable[[Any], Any]] = {
        "frontmatter.dump": frontmatter.dump,
        "pyyaml CSafeDumper": lambda m: yaml.dump(m, Dumper=yaml.CSafeDumper, allow_unicode=True,
                                                  sort_keys=False, width=10**9),
    }
    dump_times: dict[str, list[float]] = {name: [] for name in writers}
    for _ in range(runs):
        for name, fn in PARSERS.items():
            parse_times[name].append(timed(fn, raws))
        for name, fn in writers.items():
            dump_times[name].append(timed(fn, mappings))
    differ = {name: sum(not _same(_try(PARSERS[name], raw), m) for raw, m in zip(raws, mappings))
              for name in ("pyyaml-1.2", "pyyaml-1.1")}
    return {"notes": len(raws), "bytes": sum(len(r.encode()) for r in raws), "runs": runs,
            "parse": {k: statistics.median(v) for k, v in parse_times.items()},
            "dump": {k: statistics.median(v) for k, v in dump_times.items()},
            "differ_from_yaml_rs": differ}


def report(result: dict[str, Any]) -> None:
    n = result["notes"]
    print(f"{n} front matters, {result['bytes'] / 1e6:.2f} MB, median of {result['runs']} runs")
    for section in ("parse", "dump"):
        times = result[section]
        best = min(times.values())
        print(f"\n{section:<20} {'seconds':>9} {'µs/note':>9} {'× fastest':>10}")
        for name, seconds in times.items():
            print(f"{name:<20} {seconds:>9.3f} {seconds / n * 1e6:>9.1f} {seconds / best:>10.2f}")
    print("\nnotes read differently from yaml-rs:",
          ", ".join(f"{k}: {v}" for k, v in result["differ_from_yaml_rs"].items()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, help="a papernotes corpus (default: import --docs into a temp dir)")
    ap.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="MkDocs tree to import")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", type=Path, help="write the figures here too")
    args = ap.parse_args()
    if args.corpus is not None:
        raws = front_matters(args.corpus)
    else:
        from papernotes.migrate.tree import import_tree

        if not args.docs.is_dir():
            print(f"{args.docs}: not found; pass --docs or --corpus", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory() as tmp:
            import_tree(args.docs, Path(tmp) / "corpus")
            raws = front_matters(Path(tmp) / "corpus")
    result = measure(raws, args.runs)
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
