// Offline search over search/index.json: substring match on title, summary,
// keywords, topics and authors (works for Chinese without segmentation),
// with venue and domain facets. Query and facets live in the URL (?q=&venue=&domain=).
(function () {
  var input = document.getElementById("q");
  var venueSel = document.getElementById("f-venue");
  var domainSel = document.getElementById("f-domain");
  var status = document.getElementById("status");
  var results = document.getElementById("results");
  if (!input) return;
  var data = null;
  var MAX = 200;

  function esc(s) {
    return s.replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  function mark(text, terms) {
    var out = esc(text);
    terms.forEach(function (t) {
      if (!t) return;
      var re = new RegExp(esc(t).replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi");
      out = out.replace(re, function (m) { return "<mark>" + m + "</mark>"; });
    });
    return out;
  }
  function fill(select, rows, current) {
    rows.forEach(function (row, i) {
      var opt = document.createElement("option");
      opt.value = row[0]; opt.textContent = row[1];
      if (row[0] === current) opt.selected = true;
      select.appendChild(opt);
    });
  }
  function run() {
    var q = input.value.trim().toLowerCase();
    var terms = q.split(/\s+/).filter(Boolean);
    var v = venueSel.value, d = domainSel.value;
    var params = new URLSearchParams();
    if (q) params.set("q", input.value.trim());
    if (v) params.set("venue", v);
    if (d) params.set("domain", d);
    history.replaceState(null, "", "?" + params.toString());
    if (!terms.length && !v && !d) { results.innerHTML = ""; status.textContent = ""; return; }
    var hits = [];
    for (var i = 0; i < data.notes.length; i++) {
      var n = data.notes[i];
      if (v && data.venues[n[3]][0] !== v) continue;
      if (d && data.domains[n[4]][0] !== d) continue;
      var title = n[0].toLowerCase();
      var hay = n._hay || (n._hay = [n[0], n[1], n[2], n[5], n[6]].join("\n").toLowerCase());
      var score = 0, ok = true;
      for (var j = 0; j < terms.length; j++) {
        var at = hay.indexOf(terms[j]);
        if (at < 0) { ok = false; break; }
        score += title.indexOf(terms[j]) >= 0 ? 10 : 1;
      }
      if (ok) hits.push([score, i]);
    }
    hits.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
    status.textContent = hits.length ? status.dataset.results.replace("{n}", hits.length) : status.dataset.empty;
    var html = [];
    hits.slice(0, MAX).forEach(function (h) {
      var n = data.notes[h[1]];
      html.push('<dt><a href="../' + encodeURI(n[7]) + '">' + mark(n[0], terms) + '</a> <span class="where">' +
        esc(data.venues[n[3]][1]) + " · " + esc(data.domains[n[4]][1]) + "</span></dt><dd>" + mark(n[1], terms) + "</dd>");
    });
    results.innerHTML = html.join("");
  }
  var params = new URLSearchParams(location.search);
  input.value = params.get("q") || "";
  fetch("index.json").then(function (r) { return r.json(); }).then(function (json) {
    data = json;
    fill(venueSel, data.venues, params.get("venue"));
    fill(domainSel, data.domains, params.get("domain"));
    input.addEventListener("input", run);
    venueSel.addEventListener("change", run);
    domainSel.addEventListener("change", run);
    run();
    input.focus();
  });
})();
