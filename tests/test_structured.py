"""site/structured.py: one JSON-LD value per page, escaped as Jinja's ``tojson`` escaped each value."""
from __future__ import annotations

import json

import jinja2
from jinja2.utils import htmlsafe_json_dumps

from papernotes.site.structured import script_json

VALUES = ["plain", "</script><script>alert('x')</script>", "A & B <b>", "知识蒸馏 — ½ ★", "\u2028\u2029 \x00",
          ["list", "<", {"nested": ">'&"}], 3, None, True]


def test_script_json_is_what_tojson_gives_and_cannot_close_a_script() -> None:
    env = jinja2.Environment(autoescape=True)
    for value in VALUES:
        mine = str(script_json(value))
        assert mine == env.from_string("{{ v | tojson }}").render(v=value) == htmlsafe_json_dumps(value)
        assert not any(ch in mine for ch in "<>&'") and json.loads(mine) == value
    record = {"@type": "ItemList", "name": VALUES[1], "itemListElement": [{"name": VALUES[2]}]}
    assert json.loads(script_json(record)) == record  # key order kept (tojson would sort them)
    assert list(json.loads(script_json(record))) == ["@type", "name", "itemListElement"]
