// Theme toggle (remembered in localStorage) and keyboard access to boxes that scroll; works offline, no dependencies.
(function () {
  var root = document.documentElement;
  var button = document.querySelector(".theme-toggle");
  if (!button) return;
  button.addEventListener("click", function () {
    var dark = root.dataset.theme ? root.dataset.theme === "dark"
      : window.matchMedia("(prefers-color-scheme: dark)").matches;
    root.dataset.theme = dark ? "light" : "dark";
    try { localStorage.setItem("pn-theme", root.dataset.theme); } catch (e) { /* private mode */ }
  });
})();

// A box that scrolls sideways (a wide table, code, a long formula: on a phone, most of them) gets a tab
// stop and a name, so that a keyboard can scroll it too. Checked again once math.js has rendered the
// formulas (they are wider than their TeX) and when the window changes size.
(function () {
  var script = document.currentScript;
  var label = (script && script.getAttribute("data-scroll-label")) || "";
  function mark() {
    var boxes = document.querySelectorAll(".table-wrap, pre, .math-display");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      if (box.hasAttribute("tabindex") || box.scrollWidth <= box.clientWidth + 1) continue;
      box.tabIndex = 0;
      box.setAttribute("role", "group");  // named, yet not a landmark: a page may have many of them
      if (label) box.setAttribute("aria-label", label);
    }
  }
  var pending = 0;
  function later() {
    clearTimeout(pending);
    pending = setTimeout(mark, 150);
  }
  mark();
  document.addEventListener("papernotes:math", mark);
  window.addEventListener("resize", later);
})();

// The Cite box's copy button: hidden without JavaScript (the BibTeX is selectable text, a click selects it
// all), shown here; copies with the Clipboard API, else by selecting the text and the copy command.
(function () {
  var buttons = document.querySelectorAll("button[data-copy]");
  for (var i = 0; i < buttons.length; i++) {
    (function (button) {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) return;
      var label = button.textContent;
      function done() {
        button.textContent = button.getAttribute("data-done") || label;
        setTimeout(function () { button.textContent = label; }, 2000);
      }
      function fallback() {
        var range = document.createRange();
        range.selectNodeContents(source);
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        try { if (document.execCommand("copy")) done(); } catch (e) { /* the text stays selected */ }
      }
      button.hidden = false;
      button.addEventListener("click", function () {
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(source.textContent).then(done, fallback);
        } else {
          fallback();
        }
      });
    })(buttons[i]);
  }
})();

// A number of a note carries its place in the paper as its title (site/places.py): a mouse shows it on hover and
// site.css on keyboard focus. A tap shows it too: the first tap on a number opens its place, a second one
// follows its link to the paper's page; a tap elsewhere closes it. Without this script a tap just follows the link.
(function () {
  var open = null;
  function close() {
    if (open) open.classList.remove("open");
    open = null;
  }
  // the place is drawn in the viewport's coordinates, under the number (a table's scrolling box would clip it)
  function pin(num) {
    var box = num.getBoundingClientRect();
    var width = Math.min(288, document.documentElement.clientWidth * 0.7);
    var left = Math.max(4, Math.min(box.left, document.documentElement.clientWidth - width - 4));
    num.style.setProperty("--tip-x", left + "px");
    num.style.setProperty("--tip-y", (box.bottom + 4) + "px");
    num.classList.add("pinned");
  }
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches(".place[title]")) pin(event.target);
  });
  window.addEventListener("scroll", function () {
    var active = document.activeElement;
    if (open) pin(open);
    else if (active && active.matches && active.matches(".place.pinned")) pin(active);
  }, {passive: true});
  document.addEventListener("click", function (event) {
    var num = event.target.closest ? event.target.closest(".place[title]") : null;
    if (!num) { close(); return; }
    if (num === open) return;  // the second tap: follow the link
    if (event.pointerType !== "touch" && !(window.matchMedia && matchMedia("(hover: none)").matches)) return;
    event.preventDefault();
    close();
    open = num;
    num.classList.add("open");
    pin(num);
  });
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") close(); });
})();
