"""A note body's structure, said once (``corpus/sections.py``): every stage that cuts a body into ``##`` sections or
demotes headings agrees about fenced code."""
from __future__ import annotations

import json

from papernotes.corpus.model import RATING_KEYS
from papernotes.corpus.parse import parse_note
from papernotes.corpus.sections import code_blocks, demote_headings, headings, split_body
from papernotes.intake import redraft, translate_parts
from papernotes.intake.draft import SECTION_KEYS, validate_reply
from papernotes.intake.translate_guard import kept

BODY = """Intro line.

## 方法详解
  indented first line
```python
## not a heading
# a comment
```

## My notes
~~~~
## still code
~~~
~~~~
text

## Limitations
"""


def test_headings_inside_fences_are_code_for_every_stage() -> None:
    assert [m.group(1) for m in headings(BODY)] == ["方法详解", "My notes", "Limitations"]
    preamble, sections = split_body(BODY)
    assert preamble == "Intro line."
    assert [(s.key, s.heading, s.line) for s in sections] == [("method", "方法详解", 3), ("", "My notes", 10),
                                                             ("limitations", "Limitations", 17)]
    assert sections[0].content.startswith("  indented first line\n```python\n## not a heading")
    assert sections[2].content == ""
    # the redraft, the translation and the parser see the same sections
    assert [p.heading for p in translate_parts.split_body(BODY)[1]] == ["方法详解", "My notes", "Limitations"]
    assert [key for key, _ in redraft.merge(BODY, {}, ())][:1] == [""]  # nothing drafted: the body as it was
    note, _ = parse_note("A/b.md", "---\ntitle: T\nvenue: ICML2026\ndomain: optimization\n---\n" + BODY)
    assert note is not None and [s.heading for s in note.sections] == ["方法详解", "My notes", "Limitations"]


def test_demotion_leaves_code_alone() -> None:
    text = "# Title\n## Sub\n```\n# a comment\n## not a heading\n```\n#hashtag\n"
    assert demote_headings(text) == "### Title\n### Sub\n```\n# a comment\n## not a heading\n```\n#hashtag\n"
    sections = {key: "Text." for key in SECTION_KEYS} | {"method": "## Step\n```\n# keep me\n```"}
    reply = {"summary": "S", "keywords": ["k"], "sections": sections, "ratings": dict.fromkeys(RATING_KEYS, 3)}
    drafted, problems = validate_reply(json.dumps(reply))
    assert drafted is not None and "### Step\n```\n# keep me\n```" in drafted.sections["method"], problems


def test_code_blocks_and_the_translation_guard_agree() -> None:
    assert code_blocks(BODY) == ["## not a heading\n# a comment", "## still code\n~~~"]
    assert {"## not a heading\n# a comment", "## still code\n~~~"} <= kept(BODY).code
    assert code_blocks("```\nunclosed\n") == ["unclosed"]
