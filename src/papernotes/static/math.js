/* papernotes: render the page's math with the bundled KaTeX (no network).
 *
 * Stage: runs in the browser on every built page.
 * In: elements with class math-inline / math-display whose text is TeX,
 *     optionally wrapped as \(...\) or \[...\] by the build.
 * Out: the same elements holding KaTeX output; a formula KaTeX rejects keeps
 *     its TeX source, gets class "math-error" and the error message as title.
 *
 * Formulas on screen are rendered first; the rest follow in time slices so a
 * page with hundreds of formulas never blocks the main thread for long.
 * Load katex.min.js before this file (both with `defer`, or both plain).
 * When every formula is rendered, the document gets a "papernotes:math" event
 * (site.js then gives the formulas that scroll a tab stop). Pages that add
 * formulas later (the search page's results) render them with
 * window.PapernotesMath.render(elements); each element is rendered once.
 */
(function () {
  "use strict";

  var SLICE_MS = 12; /* work per slice after the first, visible, batch */

  function texOf(tex) {
    var trimmed = tex.trim();
    var open = trimmed.slice(0, 2);
    var close = trimmed.slice(-2);
    if (trimmed.length >= 4 &&
        ((open === "\\(" && close === "\\)") || (open === "\\[" && close === "\\]"))) {
      return trimmed.slice(2, -2);
    }
    return tex;
  }

  var done = typeof WeakSet === "function" ? new WeakSet() : null;

  function renderOne(el) {
    if (done) {
      if (done.has(el)) return;
      done.add(el);
    }
    var source = el.textContent || "";
    var tex = texOf(source);
    var display = el.classList.contains("math-display");
    try {
      /* throwOnError: true so that errors reach the catch below (KaTeX's own
       * error rendering would replace the TeX with a red copy of itself). */
      window.katex.render(tex, el, {
        displayMode: display,
        throwOnError: true,
        output: "htmlAndMathml",
        strict: "ignore"
      });
    } catch (err) {
      el.textContent = source; /* katex.render empties the element first */
      el.classList.add("math-error");
      el.title = String((err && err.message) || err);
    }
  }

  function onScreen(el, height) {
    var r = el.getBoundingClientRect();
    if (!r.width && !r.height) {
      return false; /* hidden (collapsed <details>, display: none): later */
    }
    return r.bottom >= 0 && r.top <= height;
  }

  function finished() {
    document.dispatchEvent(new CustomEvent("papernotes:math"));
  }

  function run() {
    if (!window.katex) {
      return; /* katex.min.js missing: the TeX source stays readable */
    }
    var all = document.querySelectorAll(".math-inline, .math-display");
    if (!all.length) {
      return;
    }
    /* Read every position before the first DOM write: one layout only. */
    var height = window.innerHeight || document.documentElement.clientHeight;
    var first = [];
    var rest = [];
    for (var i = 0; i < all.length; i++) {
      (onScreen(all[i], height) ? first : rest).push(all[i]);
    }
    for (var j = 0; j < first.length; j++) {
      renderOne(first[j]);
    }
    var next = 0;
    function flush() { /* printing: render everything now */
      while (next < rest.length) {
        renderOne(rest[next++]);
      }
    }
    window.addEventListener("beforeprint", flush);
    function slice() {
      var end = Date.now() + SLICE_MS;
      while (next < rest.length) {
        renderOne(rest[next++]);
        if (Date.now() >= end) {
          setTimeout(slice, 0);
          return;
        }
      }
      finished();
    }
    slice();
  }

  window.PapernotesMath = {
    render: function (elements) {
      if (!window.katex) return;
      for (var i = 0; i < elements.length; i++) {
        renderOne(elements[i]);
      }
      finished();
    }
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", run);
  } else {
    run();
  }
})();
