"""Tables made to fit a phone (``tables.py``): each in a named, focusable scrolling box written after the
allow-list, its cells of numbers and of one word marked to stay on one line. The browser side (nothing wraps
at 390 px, the box scrolls by keyboard) is tests/test_browser_tables.py."""
from __future__ import annotations

from html.parser import HTMLParser

import pytest

from papernotes.markdown import markdown_body
from papernotes.tables import cell_class, fit_tables, is_number_cell


def label(n: int) -> str:
    return f"Table {n}"


class _Boxes(HTMLParser):
    """The attributes of every element that has a ``tabindex``, a ``role`` or an ``on…`` handler."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if "tabindex" in names or "role" in names or any(n.startswith("on") for n in names):
            self.found.append((tag, names))


def boxes(fragment: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Boxes()
    parser.feed(fragment)
    parser.close()
    return parser.found


@pytest.mark.parametrize(("text", "expected"), [
    ("85.3", "num"), ("85.3*", "num"), ("0.8 / 50 / 0", "num"), ("61.9 ± 0.3", "num"), ("+1.2%", "num"),
    ("-0.4%", "num"), ("7B", "num"), ("1,486", "num"), ("40ms", "num"), ("3.2×", "num"), ("~12%", "num"),
    ("63.7 (+0.5)", "num"), ("2.1e-4", "num"), ("0.673⚠", "num"), ("45.2↑", "num"), (" 12 ", "num"),
    ("IN-R", "word"), ("Llama-3.1-8B", "word"), ("GPT-4o", "word"), ("CIFAR-10", "word"), ("✓", "word"),
    ("GPT-4o mini", None), ("差分向量均衡", None), ("w/o NLI", None), ("", None), ("N" * 25, None),
    ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", None),  # a list of numbers may wrap at its spaces
])
def test_cells_of_numbers_and_of_one_word(text: str, expected: str | None) -> None:
    assert cell_class(text) == expected
    assert is_number_cell(text) == (expected == "num")


def test_each_table_gets_a_named_focusable_box_and_its_cells_their_classes() -> None:
    md = ("| Method | ImageNet | Note |\n|---|--:|---|\n| LP-FT | **81.7** | 先线性探测再微调 |\n\n"
          "| a |\n|---|\n| 0.8 / 50 / 0 |\n")
    out = markdown_body(md, table_label=label).html
    assert out.count('<section class="table-wrap" tabindex="0" aria-label="Table 1"><table>') == 1
    assert out.count('aria-label="Table 2"') == 1 and out.count("</table></section>") == 2
    assert '<td class="word">LP-FT</td>' in out
    assert '<td class="num" style="text-align: right"><strong>81.7</strong></td>' in out
    assert "<td>先线性探测再微调</td>" in out and '<td class="num">0.8 / 50 / 0</td>' in out
    assert '<th class="word">Method</th>' in out
    # without a label (no page language known), a plain box
    plain = markdown_body(md).html
    assert plain.count('<div class="table-wrap"><table>') == 2 and "tabindex" not in plain


def test_a_caption_names_the_box_escaped() -> None:
    md = ('<table><caption>Ablations "A" &amp; <b>B</b>" onfocus="alert(1)</caption>'
          "<tr><td>x</td></tr></table>\n")
    out = markdown_body(md, table_label=label).html
    found = boxes(out)
    assert len(found) == 1
    tag, attributes = found[0]
    assert tag == "section" and attributes == {"class": "table-wrap", "tabindex": "0",
                                           "aria-label": 'Ablations "A" & B" onfocus="alert(1)'}


def test_a_note_cannot_write_the_box_or_its_attributes() -> None:
    md = ('<table onfocus="alert(1)" tabindex="0" role="region" aria-label="x" class="t"><tr>'
          '<td class="num" onclick="alert(2)">1</td></tr></table>\n\n'
          '<div class="table-wrap" role="region" tabindex="0" onfocus="alert(3)">text</div>\n\n'
          '<td tabindex="0">stray</td>\n')
    out = markdown_body(md, table_label=label).html
    found = boxes(out)
    assert found == [("section", {"class": "table-wrap", "tabindex": "0", "aria-label": "Table 1"})]
    assert "alert" not in out and '<td class="num">1</td>' in out
    assert out.count("table-wrap") == 1  # the note's own div lost its class


def test_trusted_html_keeps_its_own_classes_and_stays_balanced() -> None:
    md = ('<table class="wide"><tr><td class="x">1</td><td>2</td></tr>'
          "<tr><td><table><tr><td>3</td></tr></table></td></tr></table>\n")
    out = markdown_body(md, trusted=True, table_label=label).html
    assert out.count('<section class="table-wrap"') == out.count("</table></section>") == 2
    assert '<td class="x">1</td>' in out and '<td class="num">2</td>' in out
    assert "<td><section" in out and "<td>3</td>" in out  # a cell holding a table, and the cells inside, left alone


def test_fragments_without_tables_are_unchanged() -> None:
    text = "<p>0.8 / 50 / 0 <td>not a table</td></p>"
    assert fit_tables(text, label) == text
