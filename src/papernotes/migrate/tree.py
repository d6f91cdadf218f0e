"""Import stage, I/O edge: run ``migrate.convert_note`` over a whole MkDocs tree.

In: ``DOCS/{VENUE}/{domain}/{slug}.md``. Out: the notes under ``DEST``,
``DEST/.papernotes/import-report.json`` (counts and every ``path:line`` finding,
lines of the DOCS file) and ``import-manifest.json`` (per note, the hash of its
source and of the file written). With the manifest a re-run is three-way: a note
still as last imported follows its source; a note edited (or deleted) in DEST
keeps the edit while its import is unchanged; changed on both sides is a
conflict (``force`` takes the source). Every write is atomic; ``papernotes.toml``
is created if missing.
"""
from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from papernotes import __version__
from papernotes.layout import CACHE_DIR, CONFIG_NAME
from papernotes.errors import CorpusError, Diagnostic, error, warning
from papernotes.migrate.convert import (
    GENERATED,
    INFO_CODES,
    MANIFEST,
    MD_LINK,
    REPORT,
    convert_note,
    header_lines,
    label_of,
    render_note,
)
from papernotes.site.publish import atomic_write
from papernotes.taxonomy import SLUG, VENUE_ID

PARALLEL_THRESHOLD = 300
WRITE_THREADS = 16
"""fsync-bound: concurrent writes share journal commits (3,248 notes: 10 s serial, under 1 s with 16)."""


@dataclass
class ImportReport:
    docs: Path
    dest: Path
    notes: int = 0
    """Note files found under ``DOCS/{VENUE}/{domain}/``."""
    imported: int = 0
    """Files written this run (new, or changed at the source and untouched in DEST)."""
    unchanged: int = 0
    """Files left as they are: DEST already holds the import, or a user edit of a note whose source did not change."""
    kept: int = 0
    """Of ``unchanged``: notes edited or deleted in DEST whose import did not change; the edit is kept."""
    conflicts: int = 0
    """Notes edited or deleted in DEST *and* changed at the source: left alone unless ``force``."""
    skipped: int = 0
    """Files not imported: generated pages, files outside ``{VENUE}/{domain}/``, empty or unreadable files."""
    seconds: float = 0.0
    labels: dict[str, int] = field(default_factory=dict)
    """How many notes carry each metadata label."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    def level(self, d: Diagnostic) -> str:
        return "info" if d.code in INFO_CODES else d.severity.value

    def line(self, d: Diagnostic) -> str:
        where = f"{d.path}:{d.line}" if d.line else d.path
        return f"{where}: {self.level(d)}: {d.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "docs": str(self.docs), "dest": str(self.dest), "papernotes": __version__,
            "counts": {"notes": self.notes, "imported": self.imported, "unchanged": self.unchanged,
                       "kept_edits": self.kept, "conflicts": self.conflicts, "skipped": self.skipped},
            "seconds": round(self.seconds, 3),
            "labels": dict(sorted(self.labels.items(), key=lambda kv: -kv[1])),
            "diagnostics": [{"path": d.path, "line": d.line, "level": self.level(d), "code": d.code,
                             "message": d.message, "text": self.line(d)} for d in self.diagnostics],
        }


@dataclass(frozen=True, slots=True)
class _Converted:
    rel: str
    source_hash: str
    data: bytes | None
    """The file to write; ``None`` when the source is skipped."""
    problems: tuple[Diagnostic, ...]
    links: tuple[tuple[int, str], ...]
    """``(line, target)`` of relative ``.md`` links in the body."""
    labels: tuple[str, ...]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _convert_file(docs: Path, rel: str) -> _Converted:
    """One file of DOCS converted; its bytes are read only from inside DOCS (``docs`` is resolved), never
    through a link that leads elsewhere, and only from a regular file."""
    try:
        real = os.path.realpath(docs / rel, strict=True)
        if not real.startswith(os.path.join(str(docs), "")):
            return _Converted(rel, "", None, (warning(rel, 0, f"symlink to {real}, outside DOCS; not imported",
                                                      "outside-docs"),), (), ())
        if not os.path.isfile(real):
            return _Converted(rel, "", None, (warning(rel, 0, "not a regular file; not imported", "io"),), (), ())
        raw = Path(real).read_bytes()
    except OSError as exc:
        return _Converted(rel, "", None, (error(rel, 0, f"cannot read file: {exc.strerror}", "io"),), (), ())
    digest = _sha(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return _Converted(rel, digest, None, (error(rel, line, "file is not valid UTF-8; not imported", "encoding"),), (), ())
    if not text.removeprefix("\ufeff").strip():
        return _Converted(rel, digest, None, (warning(rel, 0, "empty file; not imported", "empty"),), (), ())
    fm, body, problems = convert_note(rel, text)
    if any(d.code == "round-trip" for d in problems):
        return _Converted(rel, digest, None, tuple(problems), (), ())
    offset = text.replace("\r\n", "\n").count("\n") - body.count("\n")
    links = tuple((offset + i + 1, m.group(1)) for i, line in enumerate(body.split("\n")) if "](" in line
                  for m in MD_LINK.finditer(line) if _is_note_link(m.group(1)))
    labels = tuple(label for line in header_lines(fm) if (label := label_of(line)))
    return _Converted(rel, digest, render_note(fm, body).encode("utf-8"), tuple(problems), links, labels)


def _is_note_link(target: str) -> bool:
    path = target.split("#", 1)[0]
    return path.endswith(".md") and not path.startswith("/") and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", path)


def _convert_chunk(args: tuple[str, list[str]]) -> list[_Converted]:
    docs, rels = args
    return [_convert_file(Path(docs), rel) for rel in rels]


def _convert_all(docs: Path, rels: list[str], workers: int) -> Iterator[_Converted]:
    """Converted notes in order, chunk by chunk as they are ready (so writing can start early)."""
    if len(rels) < PARALLEL_THRESHOLD or workers < 2:
        yield from _convert_chunk((str(docs), rels))
        return
    chunk = max(50, len(rels) // (workers * 4) + 1)
    jobs = [(str(docs), rels[i:i + chunk]) for i in range(0, len(rels), chunk)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_convert_chunk, jobs):
            yield from part


def _scan(docs: Path, report: ImportReport) -> list[str]:
    """Note paths (``VENUE/domain/slug.md``) under ``docs``; everything else is counted or reported."""
    notes = []
    for dirpath, dirnames, filenames in os.walk(docs):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        rel_dir = Path(dirpath).relative_to(docs).as_posix()
        parts = [] if rel_dir == "." else rel_dir.split("/")
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            rel = "/".join([*parts, name])
            if name.lower() in GENERATED:
                report.skipped += 1
            elif not name.endswith(".md"):
                report.skipped += 1
                report.diagnostics.append(warning(rel, 0, "not a Markdown note; not imported", "not-a-note"))
            elif len(parts) != 2:
                report.skipped += 1
                report.diagnostics.append(warning(rel, 0, "not in a {VENUE}/{domain}/ folder; not imported", "misplaced"))
            elif not VENUE_ID.match(parts[0]) or not SLUG.match(parts[1]):
                report.skipped += 1
                report.diagnostics.append(error(rel, 0, f"folder names {parts[0]}/{parts[1]} are not a venue id "
                                                "(ICML2026) and a domain slug (optimization); the note could not keep "
                                                "its URL, not imported", "bad-folder"))
            else:
                notes.append(rel)
    return notes


def _load_manifest(path: Path, report: ImportReport) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        report.diagnostics.append(warning(str(path), 0, f"unreadable import manifest ({exc}); every existing file "
                                          "is treated as edited", "manifest"))
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {k: v for k, v in files.items() if isinstance(v, dict)} if isinstance(files, dict) else {}


def _plan(item: _Converted, dest: Path, entry: dict[str, str] | None, force: bool) -> tuple[str, str]:
    """``(action, message)``, action one of ``write``, ``unchanged``, ``kept`` or ``conflict``.

    Three-way: the manifest holds what the last import wrote. DEST untouched since then
    follows the source; DEST edited (or deleted) while the import's output is the same
    keeps the user's version; both changed is a conflict, which only ``force`` overrides.
    """
    new = _sha(item.data or b"")
    try:
        current: str | None = _sha((dest / item.rel).read_bytes())
    except FileNotFoundError:
        current = None
    if current == new:
        return "unchanged", ""
    if entry is None:
        if current is None or force:
            return "write", "" if current is None else "exists in DEST but was not imported; overwritten (--force)"
        return "conflict", "exists in DEST but was not written by the importer; kept (--force overwrites it)"
    if current == entry.get("written"):
        return "write", ""
    edit = "deleted from DEST" if current is None else "edited in DEST"
    if force:
        return "write", f"{edit} since the last import; {'recreated' if current is None else 'overwritten'} (--force)"
    if entry.get("written") == new:
        return "kept", ""
    return "conflict", f"{edit} since the last import and changed at the source; kept (--force takes the source)"


def _write(path: Path, data: bytes) -> str:
    try:
        atomic_write(path, data)
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror}"
    return ""


def _link_problems(converted: list[_Converted]) -> Iterator[Diagnostic]:
    """Relative ``.md`` links that do not lead to an imported note (they will not resolve in the site either)."""
    imported = {c.rel for c in converted if c.data is not None}
    for item in converted:
        for line, target in item.links:
            path = posixpath.normpath(posixpath.join(posixpath.dirname(item.rel), unquote(target.split("#", 1)[0])))
            if path not in imported:
                yield warning(item.rel, line, f"link to `{target}`: no imported note there", "broken-link")


def _default_title(docs: Path) -> str:
    """``site_name`` of the MkDocs config next to DOCS, if there is one."""
    try:
        text = (docs.parent / "mkdocs.yml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return "Paper Notes"
    m = re.search(r"^site_name:\s*['\"]?(.+?)['\"]?\s*$", text, re.MULTILINE)
    return m.group(1) if m else "Paper Notes"


def import_tree(docs: Path, dest: Path, force: bool = False, workers: int | None = None) -> ImportReport:
    """Import ``docs`` into ``dest``; never overwrites a file edited since the last import unless ``force``."""
    started = time.perf_counter()
    docs, dest = docs.resolve(), dest.resolve()
    if not docs.is_dir():
        raise CorpusError(f"{docs}: MkDocs docs directory not found")
    if dest == docs or dest.is_relative_to(docs) or docs.is_relative_to(dest):
        raise CorpusError(f"{dest}: DEST must not be DOCS, inside it, or contain it")
    report = ImportReport(docs, dest)
    rels = _scan(docs, report)
    report.notes = len(rels)
    state = dest / CACHE_DIR
    manifest = _load_manifest(state / MANIFEST, report)
    files = dict(manifest)
    converted: list[_Converted] = []
    writes = []
    with ThreadPoolExecutor(max_workers=WRITE_THREADS) as writer:
        for item in _convert_all(docs, rels, workers or os.cpu_count() or 1):
            converted.append(item)
            report.diagnostics.extend(item.problems)
            if item.data is None:
                report.skipped += 1
                continue
            for label in set(item.labels):
                report.labels[label] = report.labels.get(label, 0) + 1
            action, message = _plan(item, dest, manifest.get(item.rel), force)
            if message:
                report.diagnostics.append(error(item.rel, 0, message, "conflict") if action == "conflict"
                                          else warning(item.rel, 0, message, "forced"))
            if action == "conflict":
                report.conflicts += 1
                continue
            files[item.rel] = {"source": item.source_hash, "written": _sha(item.data)}
            if action in ("unchanged", "kept"):
                report.unchanged += 1
                report.kept += action == "kept"
            else:
                writes.append((item.rel, writer.submit(_write, dest / item.rel, item.data)))
    for rel, future in writes:
        if failed := future.result():
            report.diagnostics.append(error(rel, 0, failed, "io"))
            if rel in manifest:
                files[rel] = manifest[rel]  # DEST still holds what the last import wrote
            else:
                del files[rel]
        else:
            report.imported += 1
    report.diagnostics.extend(_link_problems(converted))
    report.diagnostics.extend(warning(rel, 0, "source no longer exists; the imported file is left in DEST", "source-removed")
                              for rel in sorted(set(manifest) - set(rels)) if (dest / rel).exists())
    if not (dest / CONFIG_NAME).exists():
        title = json.dumps(_default_title(docs), ensure_ascii=False)
        atomic_write(dest / CONFIG_NAME, f'title = {title}\nlanguage = "zh"\n')
    if files != manifest or not (state / MANIFEST).exists():
        payload = {"version": 1, "papernotes": __version__, "docs": str(docs), "files": dict(sorted(files.items()))}
        atomic_write(state / MANIFEST, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")
    report.diagnostics.sort(key=lambda d: (d.path, d.line))
    report.seconds = time.perf_counter() - started
    atomic_write(state / REPORT, json.dumps(report.to_json(), ensure_ascii=False, indent=1) + "\n")
    return report
