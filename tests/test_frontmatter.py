"""Front matter (``papernotes.corpus.frontmatter``): the one parser and writer of note headers.

Property tests (hypothesis) over generated mappings: what ``dump`` writes, ``parse``
reads back equal; ``update`` changes only the keys it is given and keeps every other
byte. Example tests pin the YAML 1.1 / 1.2 traps, text fields kept as typed, the
writer's layout and the file lines of errors. ``PAPERNOTES_HYPOTHESIS_EXAMPLES=5000``
runs the properties longer than the default 200 examples each.
"""
from __future__ import annotations

import itertools
import math
import os
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from papernotes.corpus.frontmatter import (
    DELETE,
    KEY_ORDER,
    TEXT_KEYS,
    WIDTH,
    FrontMatterError,
    dump,
    parse,
    read,
    render,
    split_front_matter,
    update,
)
from papernotes.corpus.parse import parse_note

PROPERTY = settings(max_examples=int(os.environ.get("PAPERNOTES_HYPOTHESIS_EXAMPLES", "200")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def same(a: Any, b: Any) -> bool:
    """Equal with the same types all the way down: ``1``, ``1.0`` and ``True`` are three values here."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


# ------------------------------------------------------------------ generated front matter

TRAPS = [
    "yes", "No", "ON", "off", "y", "n", "true", "False", "null", "Null", "~", "", " ", "012", "0o12", "0x1F",
    "0b101", "1_000", "_0", "+_9.5", "1.10", "1e3", "+1", "-1", ".5", ".inf", "-.Inf", ".NaN", "12:30", "190:20:30.15",
    "2024-01-01", "2001-12-14t21:59:43.10-05:00", "2024-1-1 10:00:00", "<<", "=", "#x", "a #b", "C# rocks",
    "a: b", "a:", "key: value # c", "- x", "-", "--", "---", "...", "? x", ": x", "[x]", "{x: 1}", "x, y", "*ref",
    "&anchor", "!tag", "%YAML", "@at", "`tick`", "'single'", '"double"', "it's", " lead", "trail ", "\tx",
    "a\tb", "|", ">", "a\nb", "a\n", "a\n\n", "\n", "\na", "a \nb", "x\r\ny", "\x00\x07\x1b\x7f", "\x85",
    "\u2028\u2029", "\ufeff", "\xa0nbsp\xa0", "日本語 テキスト", "深度学习：综述", "emoji 🎉", "$\\beta_1$ \\ell",
    "{}", "[]", "\\", "\"'", "a\n  indented\n\tand tab\n", "  two\n", "end with spaces  \nnext",
]
words = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=" \n"), min_size=1, max_size=12)
texts = st.one_of(
    st.sampled_from(TRAPS),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=30),
    st.text(st.sampled_from("ab #:-'\"\n\t\\[]{},&*!|>%@`?"), max_size=20),
    st.lists(words, min_size=10, max_size=60).map(" ".join),  # long: the writer folds it
    st.lists(st.sampled_from(TRAPS[:40]), min_size=1, max_size=4).map("\n".join),
)
scalars = st.one_of(texts, st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False), st.booleans(), st.none())
keys = st.one_of(st.sampled_from(["id", "title", "links", "ratings", "meta", "x"]),
                 st.sampled_from([t for t in TRAPS if "\n" not in t]), st.text(max_size=10).filter(lambda k: "\n" not in k))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=4),
                      max_leaves=12)
mappings = st.dictionaries(keys, values, max_size=8)


@PROPERTY
@given(mappings)
def test_parse_reads_back_what_dump_writes(front: dict[str, Any]) -> None:
    text = dump(front)
    assert same(parse(text, text_keys=()), front), text
    again, body, _ = read(render(front, "body\n"), text_keys=())
    assert same(again, front) and body == "body\n"


@PROPERTY
@given(st.dictionaries(st.sampled_from(sorted(TEXT_KEYS)), texts, max_size=6), mappings)
def test_text_fields_read_back_as_written(text_fields: dict[str, str], rest: dict[str, Any]) -> None:
    front = {**{k: v for k, v in rest.items() if k not in TEXT_KEYS}, **text_fields}
    assert same(parse(dump(front)), front)


_YAML11_PLAIN = re.compile(r"""(?x)
    [yY]|[yY]es|YES|[nN]|[nN]o|NO|[tT]rue|TRUE|[fF]alse|FALSE|[oO]n|ON|[oO]ff|OFF          # bool
  | ~|[nN]ull|NULL|                                                                       # null
  | [-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+
  | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+                                                     # int
  | [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
  | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)    # float
  | [0-9]{4}-[0-9]{2}-[0-9]{2}
  | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
    (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?                                          # timestamp
  | <<|=                                                                                   # merge, value
""")
"""The implicit resolvers of YAML 1.1 (PyYAML's), for strings written without quotes."""


@PROPERTY
@given(texts)
def test_plain_strings_are_text_to_a_yaml_1_1_reader_too(value: str) -> None:
    line = dump({"k": value})
    if line.startswith("k: ") and line.count("\n") == 1 and line[3] not in "'\"|>":
        assert not _YAML11_PLAIN.fullmatch(line[3:-1]), line


def test_every_short_string_of_number_and_bool_characters_reads_back_as_text() -> None:
    """Exhaustive where the readers' quirks live (yaml-rs reads ``_0`` as 0, YAML 1.1 ``0b1`` and ``1:20``)."""
    alphabet = "09_.+-:eExXoObBnNiIfFaAtTyYlLuUsS~ #"
    strings = ("".join(chars) for n in (1, 2, 3) for chars in itertools.product(alphabet, repeat=n))
    assert [s for s in strings if parse(dump({"k": s}), text_keys=()) != {"k": s}] == []


def test_every_short_string_of_yaml_indicators_reads_back_in_every_context() -> None:
    """Exhaustive over indicators and blanks, as a value, a key and a flow-list item (``[a -, x]`` trips yaml-rs)."""
    alphabet = "-?:,[]{}#&*!|>'\"%@` \t\n0a"
    strings = ("".join(chars) for n in (1, 2, 3) for chars in itertools.product(alphabet, repeat=n))
    wrong = [m for s in strings for m in ({"k": s}, {s: 1}, {"k": [s, "x"]})
             if parse(dump(m), text_keys=()) != m]
    assert wrong == []


# ------------------------------------------------------------------ update: properties

comments = st.lists(st.sampled_from(["# a comment", "#", "# key: not a key", "#no space  "]), max_size=2)


@st.composite
def notes(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[str], str]:
    """A note written key by key with comment lines between: ``(text, front, blocks, body)``.

    Comments at the start of a line belong to no key; an indented one goes with the key above it.
    """
    front = draw(st.dictionaries(st.sampled_from(["id", "title", "venue", "domain", "keywords", "links", "ratings",
                                                  "status", "a", "b", "c"]), values, max_size=7))
    blocks = [dump({k: v}) for k, v in front.items()]
    lines = ["---\n"]
    for block in blocks:
        lines += [c + "\n" for c in draw(comments)] + [block]
    body = draw(st.sampled_from(["", "\n## TL;DR\nShort.\n", "body without newline", "---\nnot front matter\n"]))
    return "".join(lines) + "---\n" + body, front, blocks, body


@PROPERTY
@given(notes(), st.dictionaries(st.sampled_from(["id", "title", "venue", "keywords", "links", "status", "a", "new",
                                                 "draft_error"]),
                                st.one_of(values, st.just(DELETE)), max_size=4))
def test_update_changes_only_what_it_is_given(note: tuple[str, dict[str, Any], list[str], str],
                                              changes: dict[str, Any]) -> None:
    text, front, blocks, body = note
    new = update(text, changes, order=KEY_ORDER)
    expected = {k: v for k, v in {**front, **changes}.items() if v is not DELETE}
    got, got_body, _ = read(new, text_keys=())
    assert same(dict(sorted(got.items(), key=repr)), dict(sorted(expected.items(), key=repr)))
    assert got_body == body and new.endswith(body)
    for line in text.split("\n"):
        if line.startswith("#"):
            assert line in new.split("\n")  # every comment line survives
    untouched = [block for key, block in zip(front, blocks) if key not in changes]
    positions = [new.index("\n" + block) for block in untouched]  # byte for byte, in their old order
    assert positions == sorted(positions)
    assert [k for k in got if k in front and k not in changes] == [k for k in front if k not in changes]


@PROPERTY
@given(notes(), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_update_without_changes_is_the_identity(note: tuple[str, dict[str, Any], list[str], str],
                                                newline: str, bom: bool) -> None:
    text = ("\ufeff" if bom else "") + note[0].replace("\n", newline)
    assert update(text, {}) == text
    assert update(text, {k: v for k, v in note[1].items()}) == text  # the same values: nothing to write


# ------------------------------------------------------------------ YAML 1.1 vs 1.2, text fields

def test_yaml_1_2_core_schema() -> None:
    raw = "flag: yes\nswitch: on\nn: 012\noctal: 0o12\nhex: 0x1F\nday: 2024-01-01\nf: 1.10\nt: true\nz: ~\n"
    assert same(parse(raw), {"flag": "yes", "switch": "on", "n": 12, "octal": 10, "hex": 31, "day": "2024-01-01",
                             "f": 1.1, "t": True, "z": None})


@pytest.mark.parametrize(("line", "expected"), [
    ("id: 012", "012"),
    ("title: yes", "yes"),
    ("title: true", "true"),
    ("venue: 2024", "2024"),
    ("summary: 1.10   # as typed", "1.10"),
    ("slug: 1e3", "1e3"),
    ("status: .inf", ".inf"),
    ("domain: 0x1F", "0x1F"),
    ("lang: null", None),
    ("title: '012'", "012"),
    ("title: !!int 012", 12),  # an explicit tag is the user's word
])
def test_text_fields_keep_what_the_user_typed(line: str, expected: Any) -> None:
    key = line.split(":")[0]
    assert same(parse(line + "\nyear: 2024\n")[key], expected)
    assert parse(line + "\nyear: 2024\n")["year"] == 2024  # other keys keep YAML's types


def test_parse_note_sees_text_as_typed() -> None:
    note, problems = parse_note("V/d/n.md", "---\nid: 012\ntitle: yes\nvenue: ICML2024\ndomain: x\n---\n## TL;DR\nx\n")
    assert note is not None and not [p for p in problems if p.is_error]
    assert (note.id, note.title) == ("012", "yes")


# ------------------------------------------------------------------ the writer's layout

@pytest.mark.parametrize(("value", "written"), [
    ("plain text", "plain text"), ("3D Gaussian Splatting", "3D Gaussian Splatting"), ("C# rocks", "C# rocks"),
    ("yes", "'yes'"), ("Off", "'Off'"), ("~", "'~'"), ("012", "'012'"), ("1.10", "'1.10'"), ("2024-01-01", "'2024-01-01'"),
    ("12:30", "'12:30'"), ("#x", "'#x'"), ("a #b", "'a #b'"), ("a: b", "'a: b'"), ("- x", "'- x'"), ("[x]", "'[x]'"),
    ("{x}", "'{x}'"), ("*x", "'*x'"), ("&x", "'&x'"), ("!x", "'!x'"), ("%x", "'%x'"), ("@x", "'@x'"),
    ("`x`", "'`x`'"), ("'q'", "\"'q'\""), ('"q"', "'\"q\"'"), (" x", "' x'"), ("x ", "'x '"), ("", "''"),
    ("a\tb", '"a\\tb"'), ("\x07\x85\u2028", '"\\a\\N\\L"'), ("$\\beta$: x", "'$\\beta$: x'"),
    (12, "12"), (1.5, "1.5"), (1e16, "1.0e+16"), (float("-inf"), "-.inf"), (True, "true"), (None, "null"),
])
def test_scalars_are_quoted_only_when_a_reader_could_misread_them(value: Any, written: str) -> None:
    assert dump({"k": value}) == f"k: {written}\n"
    assert same(parse(dump({"k": value})), {"k": value})


def test_block_layout() -> None:
    front = {
        "title": "T", "keywords": ["a", "b c"], "ratings": {"novelty": 4, "value": 4.5},
        "links": {"arxiv": "2403.03507", "code": "https://github.com/x/y"},
        "notes": "line one\nline two\n", "open": "no newline\nat the end", "kept": "two\n\n",
        "authors": [f"Author Number {i}" for i in range(12)], "empty": [], "none": {},
    }
    assert dump(front) == (
        "title: T\nkeywords: [a, b c]\nratings: {novelty: 4, value: 4.5}\n"
        "links:\n  arxiv: '2403.03507'\n  code: https://github.com/x/y\n"
        "notes: |\n  line one\n  line two\nopen: |-\n  no newline\n  at the end\nkept: |+\n  two\n\n"
        "authors:\n" + "".join(f"  - Author Number {i}\n" for i in range(12)) + "empty: []\nnone: {}\n")
    assert parse(dump(front)) == front


def test_long_text_is_folded_within_the_width() -> None:
    abstract = " ".join(f"word{i}: with #signs and 'quotes'" for i in range(40))
    text = dump({"abstract": abstract})
    assert text.startswith("abstract: >-\n") and all(len(line) <= WIDTH for line in text.split("\n"))
    assert parse(text) == {"abstract": abstract}


def test_render_puts_canonical_keys_first() -> None:
    text = render({"status": "stub", "zzz": 1, "title": "T", "id": "a"}, "\nbody\n", order=KEY_ORDER)
    assert text == "---\nid: a\ntitle: T\nstatus: stub\nzzz: 1\n---\n\nbody\n"


# ------------------------------------------------------------------ errors carry the file line

@pytest.mark.parametrize(("text", "line", "message"), [
    ("---\ntitle: T\nvenue: [ICLR2025\ndomain: x\n---\n", 4, "invalid YAML front matter: "),
    ("---\na: 1\n  b: 2\n---\n", 3, "mapping values are not allowed"),
    ("---\na:\n\t- x\n---\n", 3, "tabs"),
    ("---\ntitle: a\nb: 2\ntitle: c\n---\n", 4, "duplicate mapping key: 'title'"),
    ("---\na: \"open\n---\nbody\n", 2, "invalid YAML front matter: "),
    ("---\n- a\n---\n", 2, "must be a mapping"),
    ("# Title\n", 1, "no YAML front matter"),
    ("---\ntitle: x\n", 1, "not closed"),
])
def test_errors_point_at_the_file_line(text: str, line: int, message: str) -> None:
    with pytest.raises(FrontMatterError) as info:
        read(text)
    assert info.value.line == line and message in info.value.message
    if line > 1 or "front matter" in message:
        _, problems = parse_note("n.md", text)
        assert str(problems[0]).startswith(f"n.md:{line}: error: ") and message in str(problems[0])


def test_split_front_matter_tolerates_bom_and_crlf() -> None:
    assert split_front_matter("\ufeff---\r\na: 1\r\n---\r\nbody\r\n") == ("a: 1\r\n", "body\r\n", 4)
    assert split_front_matter("---\na: 1\n...\n") == ("a: 1\n", "", 4)
    assert split_front_matter("no\n") == (None, "no\n", 1)


# ------------------------------------------------------------------ update: examples

@pytest.mark.parametrize(("text", "expected"), [
    ("---\ntitle: a\n---\nbody\n", "---\ntitle: a\ndomain: x\n---\nbody\n"),
    ("---\ntitle: a\nvenue: V\ntopics: [t]\n---\n", "---\ntitle: a\nvenue: V\ndomain: x\ntopics: [t]\n---\n"),
    ("---\r\ntitle: a\r\ndomain:\r\n---\r\n", "---\r\ntitle: a\r\ndomain: x\r\n---\r\n"),
    ("\ufeff---\ndomain: ''   # later\nvenue: V\n---\n", "\ufeff---\ndomain: x   # later\nvenue: V\n---\n"),
    ("---\ndomain: null\n...\n", "---\ndomain: x\n...\n"),
    ("---\ndomain:  # pick one\n  - a\n  - b\nlang: en\n---\n", "---\ndomain: x  # pick one\nlang: en\n---\n"),
    ("---\n# head\nvenue: V\n# before domain\ndomain: 'it''s # not a comment'\n---\n",
     "---\n# head\nvenue: V\n# before domain\ndomain: x\n---\n"),
])
def test_update_writes_a_key_in_place(text: str, expected: str) -> None:
    assert update(text, {"domain": "x"}, order=KEY_ORDER) == expected


def test_update_deletes_a_key_with_its_lines_and_keeps_comments() -> None:
    text = ("---\nid: n1\ntitle: T  # mine\nkeywords:\n  - a\n  # inside the list\n  - b\n# about venue\n"
            "venue: V\nabstract: >-\n  folded\n  text\nstatus: stub\n---\n\nbody\n")
    new = update(text, {"keywords": DELETE, "abstract": DELETE, "status": "drafted", "summary": "S."},
                 order=KEY_ORDER)
    assert new == "---\nid: n1\ntitle: T  # mine\n# about venue\nvenue: V\nsummary: S.\nstatus: drafted\n---\n\nbody\n"


def test_update_follows_hand_written_layouts() -> None:
    text = ("---\ntitle: a long\n  title continued\nkeywords:\n- a\n- b\n\n# venue next\nvenue: X\n"
            "links: {arxiv: '2401.00001',\n  code: x}\nabstract: |\n  # not a comment\n  text\nstatus: stub\n---\nbody")
    new = update(text, {"keywords": ["c"], "title": "T", "links": DELETE, "abstract": "new", "domain": "d"},
                 order=KEY_ORDER)
    assert new == ("---\ntitle: T\nkeywords: [c]\n\n# venue next\nvenue: X\ndomain: d\nabstract: new\n"
                   "status: stub\n---\nbody")


def test_update_replaces_the_body_when_asked() -> None:
    assert update("---\na: 1\n---", {"b": 2}, body="new\n") == "---\na: 1\nb: 2\n---\nnew\n"


def test_update_falls_back_to_writing_values_when_the_layout_defeats_a_line_edit() -> None:
    text = "---\nid: 012\na: &shared 1\nb: *shared\n---\nbody\n"
    new = update(text, {"a": 2})
    assert read(new, text_keys=())[0] == {"id": "012", "a": 2, "b": 1} and new.endswith("---\nbody\n")


@pytest.mark.parametrize("text", ["no front matter\n", "---\ntitle: unterminated\n", "---\na: [\n---\n"])
def test_update_refuses_text_without_readable_front_matter(text: str) -> None:
    with pytest.raises(FrontMatterError):
        update(text, {"domain": "x"})
