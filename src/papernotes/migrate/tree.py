"""Import stage, I/O edge: run ``migrate.convert_note`` over a whole MkDocs tree.

In: ``DOCS/{VENUE}/{domain}/{slug}.md``. Out: the notes under ``DEST``,
``DEST/.papernotes/import-report.json`` (counts and every ``path:line`` finding,
lines of the DOCS file) and ``import-manifest.json`` (per note, the hash of its
source and of the file written). With the manifest a re-run is three-way: a note
still as last imported follows its source; a note edited (or deleted) in DEST
keeps the edit while its import is unchanged; changed on both sides is a
conflict (``force`` takes the source). Every write is atomic; ``papernotes.toml``
is created if missing. Each note says where it came from, in ``imported_from: {site, path, repo}``
(the MkDocs ``site_name``, the file under DOCS, the ``repo_url`` when mkdocs.yml has one); its page
shows it.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import posixpath
import re
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from papernotes import __version__
from papernotes.corpus.model import LANGUAGES
from papernotes.corpus.translation import translation_path
from papernotes.disk import atomic_write
from papernotes.errors import CorpusError, Diagnostic, error, warning
from papernotes.layout import CACHE_DIR, CONFIG_NAME
from papernotes.migrate.convert import (
    GENERATED,
    INFO_CODES,
    MANIFEST,
    MD_LINK,
    REPORT,
    as_original,
    as_translation,
    convert_note,
    header_lines,
    label_of,
    render_note,
)
from papernotes.taxonomy import SLUG, VENUE_ID

ORIGIN_KEY = "imported_from"
"""Front-matter key of where an imported note came from."""

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
    twin_lang: str = ""
    """Language of the twin tree (``--translation en=EN_DOCS``); ``""`` without one."""
    twin_notes: int = 0
    """Note files found in the twin tree."""
    translations: int = 0
    """Twin notes with a DOCS note of the same path: imported as its translation ``foo.en.md``."""
    twin_only: int = 0
    """Twin notes DOCS does not have: imported as originals in the twin's language."""
    untranslated: int = 0
    """DOCS notes the twin does not have: imported without a translation."""
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
                       "kept_edits": self.kept, "conflicts": self.conflicts, "skipped": self.skipped,
                       **({"twin_notes": self.twin_notes, "translations": self.translations,
                           "twin_only": self.twin_only, "untranslated": self.untranslated} if self.twin_lang else {})},
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
    text_digest: str = ""
    """With a twin: the note's ``text_digest`` (DOCS notes), or the one its translation records (twin notes)."""


@dataclass(frozen=True, slots=True)
class _Mark:
    """What a twin import adds to one converted note, in the worker that converts it."""

    lang: str
    """The note's language (``lang:`` is written)."""
    digest: bool = False
    """Take the note's ``text_digest`` (a DOCS note the twin has too: its translation records it)."""
    original: str = ""
    """For a twin note with a DOCS note: that note's ``text_digest``, making it its translation."""
    previous: tuple[str, str] = ("", "")
    """The translation's manifest entry: ``(source hash, digest recorded)`` when it was last imported."""


def _marked(item: _Converted, mark: _Mark) -> _Converted:
    """``item`` in its language: a DOCS note (its ``text_digest`` taken), a twin note as the translation
    of the DOCS note of the same path (written as ``foo.en.md``), or a twin note DOCS does not have, as an original.

    A translation records the DOCS note's digest, but keeps the one it recorded before while its twin
    source is unchanged: a DOCS note that changed since then is reported stale by ``check``, as it should be.
    """
    if item.data is None:
        return item
    text = item.data.decode("utf-8")
    if not mark.original:
        text = as_original(text, mark.lang)
        if not mark.digest:
            return replace(item, data=text.encode("utf-8"))
        # lazy: 45 ms (importtime, beside papernotes.migrate.tree): in the worker: the Markdown engine loads there
        from papernotes.corpus.parse import parse_note  # in the worker: the Markdown engine loads there

        note, _ = parse_note(item.rel, text)
        return replace(item, data=text.encode("utf-8"), text_digest=note.text_digest if note is not None else "")
    source, recorded = mark.previous
    digest = recorded if recorded and source == item.source_hash else mark.original
    return replace(item, text_digest=digest, data=as_translation(text, mark.lang, digest).encode("utf-8"))


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
    fm[ORIGIN_KEY] = _origin(str(docs), rel)
    return _Converted(rel, digest, render_note(fm, body).encode("utf-8"), tuple(problems), links, labels)


def _origin(docs: str, rel: str) -> dict[str, str]:
    """``imported_from``: the MkDocs site (its ``site_name``, and ``repo_url`` when it names one) and the file."""
    site, repo = _mkdocs_names(docs)
    return {"site": site, "path": rel, **({"repo": repo} if repo else {})}


@functools.lru_cache(maxsize=4)
def _mkdocs_names(docs: str) -> tuple[str, str]:
    """``site_name`` and ``repo_url`` (http(s) only, else ``""``) of the MkDocs config beside DOCS."""
    try:
        text = (Path(docs).parent / "mkdocs.yml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    m = re.search(r"^repo_url:\s*['\"]?(https?://[^\s'\"<>]+?)['\"]?\s*$", text, re.MULTILINE)
    return _default_title(Path(docs)), m.group(1) if m else ""


def _is_note_link(target: str) -> bool:
    path = target.split("#", 1)[0]
    return path.endswith(".md") and not path.startswith("/") and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", path)


def _convert_chunk(args: tuple[str, list[str], dict[str, _Mark]]) -> list[_Converted]:
    docs, rels, marks = args
    out = []
    for rel in rels:
        item = _convert_file(Path(docs), rel)
        out.append(_marked(item, marks[rel]) if rel in marks else item)
    return out


def _convert_all(docs: Path, rels: list[str], workers: int,
                 marks: dict[str, _Mark] | None = None) -> Iterator[_Converted]:
    """Converted notes in order, chunk by chunk as they are ready (so writing can start early)."""
    marks = marks or {}
    if len(rels) < PARALLEL_THRESHOLD or workers < 2:
        yield from _convert_chunk((str(docs), rels, marks))
        return
    chunk = max(50, len(rels) // (workers * 4) + 1)
    jobs = [(str(docs), part, {r: marks[r] for r in part if r in marks})
            for part in (rels[i:i + chunk] for i in range(0, len(rels), chunk))]
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


def _link_problems(converted: list[_Converted], imported: set[str] | None = None) -> Iterator[Diagnostic]:
    """Relative ``.md`` links that do not lead to an imported note (they will not resolve in the site either)."""
    imported = imported if imported is not None else {c.rel for c in converted if c.data is not None}
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


@dataclass(frozen=True, slots=True)
class Twin:
    """The same notes in another language, in a tree of its own with the same slugs (``--translation en=EN_DOCS``)."""

    lang: str
    docs: Path


def _twin_scan(twin: Twin, report: ImportReport) -> list[str]:
    """The twin's note paths; what is not a note is counted and reported under ``lang:path``."""
    scratch = ImportReport(twin.docs, report.dest)
    rels = _scan(twin.docs, scratch)
    report.skipped += scratch.skipped
    report.diagnostics.extend(replace(d, path=f"{twin.lang}:{d.path}") for d in scratch.diagnostics)
    return rels


def _twin_marks(twin: Twin, twin_rels: list[str], originals: set[str], digests: dict[str, str],
                manifest: dict[str, dict[str, str]], report: ImportReport) -> dict[str, _Mark]:
    """How each twin note is imported: as a translation, or as an original (reported); a note whose DOCS
    namesake was not imported is left out (reported)."""
    marks: dict[str, _Mark] = {}
    for rel in twin_rels:
        shown = f"{twin.lang}:{rel}"
        if rel not in originals:
            report.twin_only += 1
            report.diagnostics.append(warning(shown, 0, f"not in DOCS: imported as an original in {twin.lang}",
                                              "twin-only"))
            marks[rel] = _Mark(twin.lang)
        elif digests.get(rel):
            entry = manifest.get(translation_path(rel, twin.lang)) or {}
            marks[rel] = _Mark(twin.lang, original=digests[rel],
                               previous=(str(entry.get("source", "")), str(entry.get("original", ""))))
            report.translations += 1
        else:
            report.skipped += 1
            report.diagnostics.append(warning(shown, 0, f"{rel} of DOCS was not imported, so neither is its "
                                              "translation", "twin-orphan"))
    return marks


def _other(lang: str) -> str:
    return next(other for other in LANGUAGES if other != lang)


def import_tree(docs: Path, dest: Path, force: bool = False, workers: int | None = None,
                twin: Twin | None = None) -> ImportReport:
    """Import ``docs`` (and its ``twin`` as translations) into ``dest``; never overwrites a file edited since the
    last import unless ``force``."""
    started = time.perf_counter()
    docs, dest = docs.resolve(), dest.resolve()
    if not docs.is_dir():
        raise CorpusError(f"{docs}: MkDocs docs directory not found")
    if dest == docs or dest.is_relative_to(docs) or docs.is_relative_to(dest):
        raise CorpusError(f"{dest}: DEST must not be DOCS, inside it, or contain it")
    if twin is not None:
        twin = Twin(twin.lang, twin.docs.resolve())
        if not twin.docs.is_dir():
            raise CorpusError(f"{twin.docs}: MkDocs docs directory of the {twin.lang} twin not found")
        if twin.docs == docs or dest == twin.docs or dest.is_relative_to(twin.docs) or twin.docs.is_relative_to(dest):
            raise CorpusError(f"{twin.docs}: the twin must not be DOCS, and DEST must not be it, inside it, or "
                              "contain it")
    workers = workers or os.cpu_count() or 1
    report = ImportReport(docs, dest)
    rels = _scan(docs, report)
    report.notes = len(rels)
    twin_rels = _twin_scan(twin, report) if twin is not None else []
    report.twin_lang, report.twin_notes = (twin.lang if twin is not None else ""), len(twin_rels)
    originals, paired = set(rels), set(rels) & set(twin_rels)
    state = dest / CACHE_DIR
    manifest = _load_manifest(state / MANIFEST, report)
    files = dict(manifest)
    converted: list[_Converted] = []
    twin_items: list[_Converted] = []
    digests: dict[str, str] = {}
    writes = []
    with ThreadPoolExecutor(max_workers=WRITE_THREADS) as writer:

        def take(item: _Converted, extra: dict[str, str]) -> None:
            """Plan one converted note against DEST and the manifest; write it when that is the plan."""
            report.diagnostics.extend(item.problems)
            if item.data is None:
                report.skipped += 1
                return
            for label in set(item.labels):
                report.labels[label] = report.labels.get(label, 0) + 1
            action, message = _plan(item, dest, manifest.get(item.rel), force)
            if message:
                report.diagnostics.append(error(item.rel, 0, message, "conflict") if action == "conflict"
                                          else warning(item.rel, 0, message, "forced"))
            if action == "conflict":
                report.conflicts += 1
                return
            files[item.rel] = {"source": item.source_hash, "written": _sha(item.data), **extra}
            if action in ("unchanged", "kept"):
                report.unchanged += 1
                report.kept += action == "kept"
            else:
                writes.append((item.rel, writer.submit(_write, dest / item.rel, item.data)))

        # with a twin, DOCS notes are in the other language; those the twin has too give their digest
        base = {rel: _Mark(_other(twin.lang), rel in paired) for rel in rels} if twin is not None else {}
        for item in _convert_all(docs, rels, workers, base):
            converted.append(item)
            take(item, {})
            if item.rel in paired and item.data is not None:
                digests[item.rel] = item.text_digest
        if twin is not None:
            marks = _twin_marks(twin, twin_rels, originals, digests, manifest, report)
            for item in _convert_all(twin.docs, [rel for rel in twin_rels if rel in marks], workers, marks):
                twin_items.append(item)
                item = replace(item, problems=tuple(replace(d, path=f"{twin.lang}:{d.path}") for d in item.problems))
                if marks[item.rel].original:
                    take(replace(item, rel=translation_path(item.rel, twin.lang)), {"original": item.text_digest})
                else:
                    take(item, {})
    for rel, future in writes:
        if failed := future.result():
            report.diagnostics.append(error(rel, 0, failed, "io"))
            if rel in manifest:
                files[rel] = manifest[rel]  # DEST still holds what the last import wrote
            else:
                del files[rel]
        else:
            report.imported += 1
    produced = set(rels)
    report.diagnostics.extend(_link_problems(converted))
    if twin is not None:
        report.untranslated = len(originals - paired)
        report.diagnostics.extend(warning(rel, 0, f"not in the {twin.lang} twin: imported without a translation",
                                          "untranslated") for rel in sorted(originals - paired))
        imported = {c.rel for c in [*converted, *twin_items] if c.data is not None}
        report.diagnostics.extend(replace(d, path=f"{twin.lang}:{d.path}")
                                  for d in _link_problems(twin_items, imported))
        produced |= {translation_path(rel, twin.lang) if rel in originals else rel for rel in twin_rels}
    report.diagnostics.extend(warning(rel, 0, "source no longer exists; the imported file is left in DEST", "source-removed")
                              for rel in sorted(set(manifest) - produced) if (dest / rel).exists())
    if not (dest / CONFIG_NAME).exists():
        title = json.dumps(_default_title(docs), ensure_ascii=False)
        editions = f'languages = ["zh", "{twin.lang}"]\n' if twin is not None and twin.lang != "zh" else ""
        atomic_write(dest / CONFIG_NAME, f'title = {title}\nlanguage = "zh"\n{editions}')
    if files != manifest or not (state / MANIFEST).exists():
        payload = {"version": 1, "papernotes": __version__, "docs": str(docs), "files": dict(sorted(files.items()))}
        if twin is not None:
            payload["translation"] = {twin.lang: str(twin.docs)}
        atomic_write(state / MANIFEST, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")
    report.diagnostics.sort(key=lambda d: (d.path, d.line))
    report.seconds = time.perf_counter() - started
    atomic_write(state / REPORT, json.dumps(report.to_json(), ensure_ascii=False, indent=1) + "\n")
    return report
