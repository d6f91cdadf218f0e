"""Corpus stage, front matter: the one reader and writer of a note's YAML header, used by every stage.

In: a note's text. ``split_front_matter`` cuts it into YAML and body, ``parse``
and ``read`` turn the YAML into a mapping (or raise ``FrontMatterError`` with the
file line). Out the other way: ``dump`` writes a mapping as readable YAML,
``render`` a new note, and ``update`` rewrites chosen keys of an existing note
in place, keeping every other byte (key order, comments, line endings, body).

Semantics are YAML 1.2's core schema, read by yaml-rs (BENCHMARKS.md has the
measurement against PyYAML): ``yes``/``on`` are text, ``012`` is 12, dates are
text. Text fields (``TEXT_KEYS``) keep what the user typed where YAML would see
a number or a bool (``id: 012`` is ``'012'``, ``title: yes`` is ``'yes'``). The
writer quotes every string a YAML 1.1 *or* 1.2 reader could take for something
else, so other tools (PyYAML, MkDocs) read our notes the same way.
"""
from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import yaml_rs

TEXT_KEYS = frozenset({"id", "title", "venue", "domain", "slug", "summary", "lang", "status", "abstract",
                       "domain_label", "draft_engine", "draft_error", "draft_model"})
"""Top-level keys whose plain scalars are text as typed, never numbers or bools."""
KEY_ORDER = ("id", "title", "venue", "domain", "lang", "authors", "summary", "keywords", "topics", "ratings",
             "links", "figures", "abstract", "status", "draft_engine", "draft_error", "draft_digest")
"""Canonical order of the keys papernotes writes; other keys follow in their own order."""
WIDTH = 100
"""Lines the writer makes stay within this width where the text allows it."""


class FrontMatterError(ValueError):
    """Front matter that cannot be read (or rewritten); ``line`` is the line in the note's file."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


class _Delete:
    def __repr__(self) -> str:
        return "DELETE"


DELETE: Any = _Delete()
"""The value that removes a key in ``update``."""


# ------------------------------------------------------------------ reading

def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """``(yaml text or None, body, body's first line)``; tolerates BOM and CRLF; line -1 when unclosed."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---"):
        return None, text, 1
    first_nl = text.find("\n")
    if first_nl < 0 or text[:first_nl].rstrip() != "---":
        return None, text, 1
    pos = first_nl + 1
    line = 2
    while True:
        nl = text.find("\n", pos)
        current = text[pos:] if nl < 0 else text[pos:nl]
        if current.rstrip() in ("---", "..."):
            body = "" if nl < 0 else text[nl + 1:]
            return text[first_nl + 1:pos], body, line + 1
        if nl < 0:
            return text[first_nl + 1:], "", -1  # unterminated
        pos = nl + 1
        line += 1


_ERROR_AT = re.compile(r"line (\d+), column (\d+)")


def parse(raw: str, first_line: int = 2, text_keys: Collection[str] = TEXT_KEYS) -> dict[Any, Any]:
    """The mapping of front-matter YAML ``raw`` whose first line is file line ``first_line``."""
    try:
        data = yaml_rs.loads(raw, parse_datetime=False)  # YAML 1.2 core schema: no timestamps
    except yaml_rs.YAMLDecodeError as exc:
        text = str(exc).strip()
        where = _ERROR_AT.search(text)
        last = first_line + max(raw.count("\n"), 1) - 1  # an error at the end of input is on the last line
        line = min(first_line + int(where[1]) - 1, last) if where else first_line
        problem = text.splitlines()[-1] if text else "cannot be parsed"
        column = f" (column {where[2]})" if where else ""
        if (dup := re.match(r"duplicate mapping key: '(.*)'$", problem)) is not None:  # point at the second one
            seen = [m.start() for m in re.finditer(rf"^{re.escape(dup[1])}[ \t]*:", raw, re.MULTILINE)]
            if len(seen) > 1:
                line, column = first_line + raw.count("\n", 0, seen[1]), ""
        raise FrontMatterError(line, f"invalid YAML front matter: {problem}{column}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterError(first_line, "front matter must be a mapping of `key: value` lines")
    for key, value in data.items():
        if key in text_keys and isinstance(value, (bool, int, float)) and (token := _typed_token(raw, key, value)):
            data[key] = token
    return data


def _typed_token(raw: str, key: str, value: Any) -> str | None:
    """The plain token after ``key:`` on its line, when it is what YAML read as ``value``."""
    m = re.search(rf"^{re.escape(key)}[ \t]*:[ \t]+([^\s'\"\[\]{{}}!&*|>#,%@`][^\s#]*)[ \t]*(?:#.*)?\r?$",
                  raw, re.MULTILINE)
    if m is None:
        return None
    try:
        again = yaml_rs.loads(f"v: {m[1]}", parse_datetime=False)["v"]
    except yaml_rs.YAMLDecodeError:
        return None
    return m[1] if _same(again, value) else None


def read(text: str, text_keys: Collection[str] = TEXT_KEYS) -> tuple[dict[Any, Any], str, int]:
    """``(front matter, body, body's first line)`` of a note's text; line endings become ``\\n``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    raw, body, body_line = split_front_matter(text)
    if raw is None:
        raise FrontMatterError(1, "no YAML front matter: a note must start with a line `---`")
    if body_line < 0:
        raise FrontMatterError(1, "front matter is not closed by a `---` line")
    return parse(raw, 2, text_keys), body, body_line


_TOP_KEY = re.compile(r"""^(?:([\w][\w-]*)|"([^"\\\n]*)"|'([^'\n]*)')[ \t]*:""", re.MULTILINE)


def key_lines(raw: str, first_line: int = 2) -> dict[str, int]:
    """File line of each top-level key of front-matter YAML ``raw`` written plain or quoted without escapes."""
    return {m[1] or m[2] or m[3]: raw.count("\n", 0, m.start()) + first_line for m in _TOP_KEY.finditer(raw)}


# ------------------------------------------------------------------ writing

_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_WORDS = frozenset({"y", "n", "yes", "no", "true", "false", "on", "off", "null", "~", "<<", "="})
"""Plain words YAML 1.1 or 1.2 reads as bools, null, merge or value keys (compared lower-cased)."""
_NUMBERISH = re.compile(r"[-+]?[._]*[0-9][0-9A-Za-z_.:+-]*\Z|[-+]?\.(?:inf|nan)\Z|[0-9]{4}-[0-9]", re.IGNORECASE)
"""Numbers, times (1:20) and dates in either version, and anything that merely looks like one
(yaml-rs also reads underscores anywhere in a number: ``_0`` is 0)."""
_BAD_ANYWHERE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff"
_UNSAFE = re.compile(f"[{_BAD_ANYWHERE}\t\n]")
"""Characters that only a double-quoted scalar can carry (escaped)."""
_BLOCK_UNSAFE = re.compile(f"[{_BAD_ANYWHERE}]|[ \t]\n|[ \t]\\Z")
"""Characters and trailing blanks a block scalar cannot carry safely."""
_FLOW_UNSAFE = re.compile(r"[,\[\]{}:#]| -")
"""Quoted inside ``[…]``/``{…}`` too (yaml-rs rejects a plain ``a -`` before a ``,`` or ``]``)."""
_ESCAPE = re.compile(f"[{_BAD_ANYWHERE}\t\n\"\\\\]")
_NAMED = {"\0": "0", "\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r", "\x1b": "e",
          '"': '"', "\\": "\\", "\x85": "N", "\u2028": "L", "\u2029": "P"}


def _plain_ok(s: str, flow: bool) -> bool:
    return not (not s or s[0] in _INDICATORS or s[0] == " " or s[-1] == " " or _UNSAFE.search(s)
                or s.lower() in _WORDS or _NUMBERISH.match(s) or s.startswith("...")
                or ": " in s or " #" in s or s.endswith(":") or (flow and _FLOW_UNSAFE.search(s)))


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    if c in _NAMED:
        return "\\" + _NAMED[c]
    return f"\\x{ord(c):02X}" if ord(c) <= 0xFF else f"\\u{ord(c):04X}"


def _quoted(s: str) -> str:
    if not _UNSAFE.search(s) and ("'" not in s or '"' in s or "\\" in s):
        return "'" + s.replace("'", "''") + "'"
    return '"' + _ESCAPE.sub(_escape, s) + '"'


def _float(x: float) -> str:
    if math.isnan(x):
        return ".nan"
    if math.isinf(x):
        return ".inf" if x > 0 else "-.inf"
    text = repr(x)
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:  # 1e+16: YAML 1.1 wants a dot in the mantissa
        mantissa += ".0"
    return mantissa + e + exponent


def _scalar_text(value: Any, flow: bool) -> str:
    """A one-line scalar: plain when that reads back the same in YAML 1.1 and 1.2, else quoted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return value if _plain_ok(value, flow) else _quoted(value)
    raise TypeError(f"front matter cannot hold a {type(value).__name__}: {value!r}")


def _fold(s: str, room: int) -> list[str] | None:
    """``s`` cut at single spaces into lines of at most ``room`` characters where possible."""
    cuts = [m.start() for m in re.finditer(r"(?<=[^ \t]) (?=[^ \t])", s)]
    lines, start = [], 0
    while len(s) - start > room:
        fits = [c for c in cuts if start < c <= start + room]
        later = [c for c in cuts if c > start]
        cut = fits[-1] if fits else (later[0] if later else None)
        if cut is None:
            break
        lines.append(s[start:cut])
        start = cut + 1
    lines.append(s[start:])
    return lines if len(lines) > 1 else None


def _string_lines(s: str, indent: int, used: int) -> list[str]:
    """A string after ``key:`` / ``-``: a block scalar (``|`` or ``>``) when that reads best, else one line."""
    pad = " " * (indent + 2)
    blockable = s and s[0] not in " \t\n" and not _BLOCK_UNSAFE.search(s)
    if "\n" in s:
        if not blockable or not s.strip("\n"):
            return [_quoted(s)]
        content = s[:-1] if s.endswith("\n") else s
        chomp = "-" if not s.endswith("\n") else ("+" if s.endswith("\n\n") else "")
        return ["|" + chomp] + [pad + line if line else "" for line in content.split("\n")]
    one = _scalar_text(s, flow=False)
    if blockable and used + len(one) > WIDTH and "\t" not in s and (lines := _fold(s, WIDTH - len(pad))):
        return [">-"] + [pad + line for line in lines]
    return [one]


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str) and "\n" not in value)


def _flow(value: Any) -> str | None:
    """Flow style for short lists of scalars and for maps of numbers (ratings); ``None`` otherwise."""
    if isinstance(value, (list, tuple)) and all(_is_scalar(v) for v in value):
        return "[" + ", ".join(_scalar_text(v, flow=True) for v in value) + "]"
    if isinstance(value, Mapping) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                          for v in value.values()):
        return "{" + ", ".join(f"{_key(k, flow=True)}: {_scalar_text(v, True)}" for k, v in value.items()) + "}"
    return None


def _key(key: Any, flow: bool = False) -> str:
    if isinstance(key, str):
        return key if _plain_ok(key, flow=True) else _quoted(key)
    return _scalar_text(key, flow)


def _entry(prefix: str, value: Any, indent: int, out: list[str]) -> None:
    """Append the lines of ``prefix value`` at ``indent``; ``prefix`` is ``key:`` or ``-``."""
    head = " " * indent + prefix
    if isinstance(value, (Mapping, list, tuple)) and value:
        flow = _flow(value)
        if flow is not None and len(head) + 1 + len(flow) <= WIDTH:
            out.append(f"{head} {flow}")
        elif isinstance(value, Mapping) and prefix == "-":
            start = len(out)
            _mapping(value, indent + 2, out)
            out[start] = f"{head} {out[start][indent + 2:]}"  # compact `- key: value`
        else:
            out.append(head)
            if isinstance(value, Mapping):
                _mapping(value, indent + 2, out)
            else:
                for item in value:
                    _entry("-", item, indent + 2, out)
        return
    if isinstance(value, (Mapping, list, tuple)):
        lines = ["{}" if isinstance(value, Mapping) else "[]"]
    elif isinstance(value, str):
        lines = _string_lines(value, indent, len(head) + 1)
    else:
        lines = [_scalar_text(value, flow=False)]
    out.append(f"{head} {lines[0]}")
    out.extend(lines[1:])


def _mapping(mapping: Mapping[Any, Any], indent: int, out: list[str]) -> None:
    for key, value in mapping.items():
        _entry(_key(key) + ":", value, indent, out)


def dump(mapping: Mapping[Any, Any]) -> str:
    """``mapping`` as block YAML (no ``---`` lines), keys in their order; ``parse`` reads it back equal."""
    out: list[str] = []
    _mapping(mapping, 0, out)
    return "".join(line + "\n" for line in out)


def ordered(mapping: Mapping[Any, Any], order: Sequence[Any]) -> dict[Any, Any]:
    """``mapping`` with the keys of ``order`` first, in that order, then the others as they were."""
    out = {k: mapping[k] for k in order if k in mapping}
    out.update((k, v) for k, v in mapping.items() if k not in out)
    return out


def render(front: Mapping[Any, Any], body: str = "", order: Sequence[Any] = ()) -> str:
    """A new note's text: front matter (``order``'s keys first) between ``---`` lines, then ``body`` as is."""
    return f"---\n{dump(ordered(front, order) if order else front)}---\n{body}"


# ------------------------------------------------------------------ rewriting in place

_KEY_LINE = re.compile(r"""(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\[\]{}&*!|>%@`,?:-][^#]*?"""
                       r"""|[?:-][^\s#][^#]*?)[ \t]*:(?:[ \t]|\Z)""")


_KEEP = re.compile(r"(?:^|[\s:-])[|>](?:\+[1-9]?|[1-9]\+)[ \t]*(?:#.*)?\r?\n?\Z")
"""A block scalar header with keep chomping (``|+``, ``>2+``), which owns the blank lines after its text."""


def _key_of(token: str) -> Any:
    if re.fullmatch(r"[A-Za-z_][\w-]*", token):
        return token
    try:
        return next(iter(yaml_rs.loads(f"{token}: 0", parse_datetime=False)))
    except (yaml_rs.YAMLDecodeError, TypeError, StopIteration):
        return None


def _blocks(head: list[str]) -> dict[Any, tuple[int, int, re.Match[str]]]:
    """Each top-level key -> ``(first line, end line, match of its key line)`` in ``head``.

    A key's block runs over the indented (or ``- ``) lines after it; blank and
    comment lines belong to it only when more of its lines follow them (or,
    for blank lines, when it holds a ``|+`` block scalar).
    """
    kinds: list[str | re.Match[str]] = []
    for line in head:
        bare = line.rstrip("\r\n")
        if not bare.strip():
            kinds.append(" ")
        elif bare[0] == "#":
            kinds.append("#")
        elif bare[0] in " \t-" and (bare[0] != "-" or bare[1:2] in ("", " ", "\t")):
            kinds.append("+")
        else:
            kinds.append(_KEY_LINE.match(bare) or "+")
    blocks: dict[Any, tuple[int, int, re.Match[str]]] = {}
    for i, kind in enumerate(kinds):
        if isinstance(kind, re.Match):
            end = j = i + 1
            while j < len(kinds) and not isinstance(kinds[j], re.Match):
                if kinds[j] == "+":
                    end = j + 1
                j += 1
            if any(_KEEP.search(line) for line in head[i:end]):  # `|+`: the blank lines after it are its text
                while end < len(kinds) and kinds[end] == " ":
                    end += 1
            blocks.setdefault(_key_of(kind["key"]), (i, end, kind))
    return blocks


def _comment(line: str, start: int) -> str:
    """The trailing ``  # comment`` of a key line, blanks before it included; ``''`` when none."""
    quote, token_start, i = "", True, start
    while i < len(line):
        c = line[i]
        if quote == "'":
            if c == "'":
                if line[i + 1:i + 2] == "'":
                    i += 1
                else:
                    quote = ""
        elif quote == '"':
            if c == "\\":
                i += 1
            elif c == '"':
                quote = ""
        elif c in "'\"" and token_start:
            quote = c
        elif c == "#" and line[i - 1] in " \t":
            return line[len(line[:i].rstrip(" \t")):]
        token_start = c in " \t[{,"
        i += 1
    return ""


def _plain_data(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_data(v) for v in value]
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (``1``, ``1.0`` and ``True`` differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def update(text: str, changes: Mapping[Any, Any], order: Sequence[Any] = (), body: str | None = None) -> str:
    """``text`` with the front-matter keys of ``changes`` set (``DELETE`` removes one), and ``body`` if given.

    A changed key is rewritten where it stands, keeping a comment at the end of
    its line; a new key goes after the nearest key that ``order`` puts before
    it (else before the nearest one it puts after it, else at the end); a value
    equal to the current one leaves its lines alone. Every other byte stays as
    it was: untouched keys, comments, blank lines, BOM, line endings, the body.
    The result is read back to check it holds exactly the changes; when it does
    not (a layout the line edit cannot follow: anchors, complex keys), the
    whole front matter is written anew from its values, comments lost.
    ``FrontMatterError`` when ``text`` has no front matter or it is not valid YAML.
    """
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    parts = text[len(bom):].split("\n")
    lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    if not lines or lines[0].rstrip() != "---":
        raise FrontMatterError(1, "no YAML front matter: a note must start with a line `---`")
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if close is None:
        raise FrontMatterError(1, "front matter is not closed by a `---` line")
    newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
    head = lines[1:close]
    expected = parse("".join(head), 2, text_keys=())
    values = parse("".join(head), 2)  # as read, text fields as typed: what a rewrite from values keeps
    for key, value in changes.items():
        blocks = _blocks(head)
        if value is DELETE:
            expected.pop(key, None)
            values.pop(key, None)
            if key in blocks:
                start, end, _ = blocks[key]
                del head[start:end]
            continue
        value = _plain_data(value)
        if key in blocks and (_same(expected.get(key), value) or _same(values.get(key), value)):
            continue
        expected[key] = values[key] = value
        new: list[str] = []
        _entry(_key(key) + ":", value, 0, new)
        if key in blocks:
            start, end, match = blocks[key]
            new[0] += _comment(head[start].rstrip("\r\n"), match.end() - 1)
        else:
            start = end = _insert_at(blocks, key, order, len(head))
        head[start:end] = [line + newline for line in new]
    raw = "".join(head)
    try:
        edited = _same(parse(raw, 2, text_keys=()), expected)
    except FrontMatterError:
        edited = False
    if not edited:  # a layout the line edit cannot follow (anchors, complex keys...): write the values out
        raw = dump(values).replace("\n", newline)
    closing = lines[close] if lines[close].endswith("\n") or body is None else lines[close] + newline
    rest = "".join(lines[close + 1:]) if body is None else body
    return bom + lines[0] + raw + closing + rest


def _insert_at(blocks: dict[Any, tuple[int, int, re.Match[str]]], key: Any, order: Sequence[Any],
               default: int) -> int:
    """Line of ``head`` where a new ``key`` goes: after the nearest key ``order`` puts before it, else
    before the nearest one it puts after it, else ``default``."""
    if key not in order:
        return default
    i = list(order).index(key)
    if before := next((k for k in reversed(order[:i]) if k in blocks), None):
        return blocks[before][1]
    if after := next((k for k in order[i + 1:] if k in blocks), None):
        return blocks[after][0]
    return default
