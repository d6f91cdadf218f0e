// The search page: reads search/index.json, fetches only the shards a query needs and the
// document files of the results shown, ranks with search-core.js, and keeps the query and the
// facets in the URL (?q=&venue=&domain=&year=&topic=) so a search can be shared and back/forward
// work. Note text is untrusted: results are built with text nodes only, never parsed as HTML; their formulas
// are rendered by the shipped KaTeX (through math.js, as on the listing pages), loaded once, when a result
// first shows one.
(function () {
  "use strict";
  var S = window.PapernotesSearch;
  var input = document.getElementById("q");
  var results = document.getElementById("results");
  if (!S || !input || !results) return;
  var status = document.getElementById("status");
  var more = document.getElementById("more");
  var selects = {
    venue: document.getElementById("f-venue"), domain: document.getElementById("f-domain"),
    year: document.getElementById("f-year"), topic: document.getElementById("f-topic")
  };
  var FACETS = ["venue", "domain", "year", "topic"];
  var strings = JSON.parse(document.getElementById("search-strings").textContent);
  var siteRoot = results.getAttribute("data-root") || "../";
  var PAGE = 10;

  var index = null, gen = "", shardLoads = {}, chunkLoads = {};
  var run = 0, shownList = [], shownCount = 0, clausesShown = [], active = -1, typing = false;

  function say(key, n, m) {
    status.textContent = (strings[key] || "").replace("{n}", String(n)).replace("{m}", String(m));
  }

  function bytes(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(url + ": " + r.status);
      return r.arrayBuffer();
    }).then(function (b) { return new Uint8Array(b); });
  }

  function loadShard(n) {
    if (!shardLoads[n]) {
      shardLoads[n] = bytes("t/" + n + ".bin?v=" + gen).then(function (data) { index.shards[n] = S.decodeShard(data); },
        function (err) { delete shardLoads[n]; throw err; });  // a later search tries again
    }
    return shardLoads[n];
  }

  function loadChunk(k) {
    if (!chunkLoads[k]) {
      chunkLoads[k] = fetch("d/" + k + ".json?v=" + gen).then(function (r) {
        if (!r.ok) throw new Error("d/" + k + ".json: " + r.status);
        return r.json();
      });
    }
    return chunkLoads[k];
  }

  function doc(d) {
    var size = index.m.chunk;
    return loadChunk(Math.floor(d / size)).then(function (rows) { return rows[d % size]; });
  }

  // ------------------------------------------------------------ URL state

  function state() {
    var s = { q: input.value.trim() };
    FACETS.forEach(function (f) { s[f] = selects[f].value; });
    return s;
  }

  function url(s) {
    var params = new URLSearchParams();
    if (s.q) params.set("q", s.q);
    FACETS.forEach(function (f) { if (s[f]) params.set(f, s[f]); });
    var query = params.toString();
    return location.pathname + (query ? "?" + query : "");
  }

  function remember(push) {
    var target = url(state());
    if (target === location.pathname + location.search) return;
    if (push) history.pushState(null, "", target); else history.replaceState(null, "", target);
  }

  function restore() {
    var params = new URLSearchParams(location.search);
    input.value = params.get("q") || "";
    FACETS.forEach(function (f) {
      var value = params.get(f) || "";
      var select = selects[f];
      if (value && !Array.prototype.some.call(select.options, function (o) { return o.value === value; })) value = "";
      select.value = value;
    });
  }

  // ------------------------------------------------------------ facets

  function option(select, value, label) {
    var o = document.createElement("option");
    o.value = value;
    o.textContent = label;
    o.setAttribute("data-label", label);
    select.appendChild(o);
  }

  function fillFacets(m) {
    m.venues.forEach(function (v) { option(selects.venue, v[0], v[1]); });
    m.domains.forEach(function (d) { option(selects.domain, d[0], d[1]); });
    var years = {};
    m.venues.forEach(function (v) { if (v[2]) years[v[2]] = true; });
    Object.keys(years).sort().reverse().forEach(function (y) { option(selects.year, y, y); });
    m.topics.forEach(function (t) { option(selects.topic, t[0], t[1] + " (" + t[2] + ")"); });
  }

  var shownCounts = new Map();  // option -> the count its label shows (labels change only when counts do)

  function showCounts(name, counts) {
    Array.prototype.forEach.call(selects[name].options, function (o) {
      if (!o.value) return;
      var n = counts[o.value] || 0;
      if (shownCounts.get(o) === n) return;
      shownCounts.set(o, n);
      o.textContent = o.getAttribute("data-label") + " (" + n + ")";
    });
  }

  // Result counts per facet value, each counted under the other facets' choices (one pass over
  // typed arrays: this runs on every keystroke over up to every document).
  function countFacets(candidates, s, topicDocs) {
    var m = index.m, venueOf = index.venueOf, domainOf = index.domainOf, groupOf = index.groupOf;
    var venue = s.venue ? m.venues.findIndex(function (v) { return v[0] === s.venue; }) : -1;
    var domain = s.domain ? m.domains.findIndex(function (v) { return v[0] === s.domain; }) : -1;
    var year = s.year ? Number(s.year) : 0;
    var nv = m.venues.length, nd = m.domains.length, yearOf = new Int32Array(nv), years = [], yearIndex = {};
    for (var v = 0; v < nv; v++) {
      var y = m.venues[v][2];
      if (yearIndex[y] === undefined) { yearIndex[y] = years.length; years.push(y); }
      yearOf[v] = yearIndex[y];
    }
    var byVenue = new Int32Array(nv), byDomain = new Int32Array(nd), byYear = new Int32Array(years.length);
    var seen = new Set();  // a paper noted twice under one value counts once there: "facet|group|value"
    function once(facet, g, value) {
      var mark = facet + "|" + g + "|" + value;
      if (seen.has(mark)) return false;
      seen.add(mark);
      return true;
    }
    for (var i = 0; i < candidates.length; i++) {
      var d = candidates[i];
      if (topicDocs && !topicDocs.has(d)) continue;
      var dv = venueOf[d], dd = domainOf[d], g = groupOf[d];
      var okV = venue < 0 || dv === venue, okD = domain < 0 || dd === domain, okY = !year || m.venues[dv][2] === year;
      if (okD && okY && (g < 0 || once(0, g, dv))) byVenue[dv]++;
      if (okV && okY && (g < 0 || once(1, g, dd))) byDomain[dd]++;
      if (okV && okD && (g < 0 || once(2, g, yearOf[dv]))) byYear[yearOf[dv]]++;
    }
    var counts = { venue: {}, domain: {}, year: {} };
    m.venues.forEach(function (row, k) { counts.venue[row[0]] = byVenue[k]; });
    m.domains.forEach(function (row, k) { counts.domain[row[0]] = byDomain[k]; });
    years.forEach(function (y, k) { counts.year[String(y)] = byYear[k]; });
    ["venue", "domain", "year"].forEach(function (name) { showCounts(name, counts[name]); });
  }

  // ------------------------------------------------------------ searching

  // Tests and benchmarks wait on this: #results gets data-done="<query>" and a "searchdone" event
  // once the results of a search are on the page (or it found none).
  function done(mine, s) {
    if (mine !== run) return;
    results.setAttribute("data-done", s.q);
    results.dispatchEvent(new CustomEvent("searchdone", { detail: { query: s.q, count: shownList.length } }));
  }

  function search() {
    var mine = ++run;
    var s = state();
    results.removeAttribute("data-done");
    var clauses = S.parseQuery(s.q);
    var hasQuery = clauses.some(function (c) { return !c.soft; });
    var hasFacet = FACETS.some(function (f) { return s[f]; });
    if (!hasQuery && !hasFacet) {
      clear();
      status.textContent = s.q ? strings.search_empty : "";
      done(mine, s);
      return Promise.resolve();
    }
    var firsts = index.m.shards;
    var where = {};
    function shardsOf(g) { return where[g.term + "|" + g.prefix]; }
    var needed = {};
    // the typed query and, when it is a term of a synonym group, the group's other terms
    var queries = [clauses].concat(hasQuery ? index.alternatives(s.q).map(S.parseQuery) : []);
    var allClauses = [].concat.apply([], queries);
    allClauses.forEach(function (c) {
      c.groups.forEach(function (g) {
        var list = where[g.term + "|" + g.prefix] = S.shardsFor(firsts, g, index.m.prefixes);
        list.forEach(function (n) { needed[n] = true; });
      });
    });
    var topicTerm = s.topic ? S.TOPIC + s.topic : "";
    var topicShard = topicTerm ? S.shardFor(firsts, topicTerm) : -1;
    if (topicShard >= 0) needed[topicShard] = true;
    var loads = Object.keys(needed).map(loadShard);
    if (hasQuery) {  // what the query may become: load the shards of its synonyms and of its last word's next letter ahead
      var ahead = S.shardsAhead(firsts, s.q);
      index.upcoming(s.q).forEach(function (alt) {
        S.parseQuery(alt).forEach(function (c) { c.groups.forEach(function (g) { ahead = ahead.concat(S.shardsFor(firsts, g, index.m.prefixes)); }); });
      });
      ahead.forEach(function (n) { loadShard(n).catch(function () {}); });
    }
    return Promise.all(loads).then(function () {
      if (mine !== run) return;
      var topicDocs = null;
      if (topicTerm) topicDocs = new Set(index.docsOf(index.shards[topicShard], topicTerm));
      var ranked;
      if (hasQuery) {
        ranked = index.rankAll(queries, shardsOf);
      } else {
        ranked = { docs: new Int32Array(index.n), scores: new Float64Array(index.n), full: index.n };
        for (var d = 0; d < index.n; d++) ranked.docs[d] = d;
      }
      // the ranking is in order only as far as ranked.order(k) says; filtering keeps the order, so it
      // puts everything in order first
      var docs = ranked.docs, scores = ranked.scores, kept = docs.length, order = ranked.order, full = ranked.full;
      if (hasFacet) {
        if (order) order(docs.length);
        var keep = index.filter(s, topicDocs), all = kept;
        docs = new Int32Array(all);
        scores = new Float64Array(all);
        kept = 0;
        full = 0;
        for (var i = 0; i < all; i++) {
          if (!keep(ranked.docs[i])) continue;
          if (i < ranked.full) full++;
          docs[kept] = ranked.docs[i];
          scores[kept++] = ranked.scores[i];
        }
        order = null;
      }
      shownList = index.dedupe(docs.subarray(0, kept), scores.subarray(0, kept), order, full);
      clausesShown = allClauses;
      if (!shownList.length) {
        countFacets(ranked.docs, s, topicDocs);
        clear();
        say("search_empty");
        return;
      }
      // documents that miss one word of the query (when few have them all) follow the others
      var complete = shownList.complete;
      if (complete === shownList.length) say("search_results", shownList.length);
      else if (!complete) say("search_partial", shownList.length);
      else say("search_results_partial", complete, shownList.length - complete);
      shownCount = 0;
      active = -1;
      var shown = page(mine, true);  // the document files are on their way while the facets are counted
      countFacets(ranked.docs, s, topicDocs);
      return shown;
    }).catch(function (err) {
      if (mine !== run) return;
      say("search_failed");
      if (window.console) console.error(err);
    }).then(function () { done(mine, s); });
  }

  function clear() {
    results.textContent = "";
    shownList = [];
    shownCount = 0;
    active = -1;
    more.hidden = true;
  }

  function page(mine, fresh) {
    var slice = shownList.slice(shownCount, shownCount + PAGE);
    shownCount += slice.length;
    more.hidden = shownCount >= shownList.length;
    return Promise.all(slice.map(function (hit) {
      return doc(hit.doc).then(function (row) {  // a row lists the URLs of its paper's other notes
        var urls = {};
        (row[3] || []).forEach(function (other) { urls[other[0]] = other[1]; });
        return Promise.all([row, Promise.all(hit.also.map(function (d) {
          return urls[d] !== undefined ? [null, null, urls[d]] : doc(d);
        }))]);
      });
    })).then(function (rows) {
      if (mine !== run) return;
      var fragment = document.createDocumentFragment();
      rows.forEach(function (row, i) { render(fragment, slice[i], row[0], row[1]); });
      if (fresh) results.textContent = "";  // the old results stay until the new ones are ready
      results.appendChild(fragment);
      typeset();
      if (active < 0 && results.querySelector("dt")) setActive(0);
    });
  }

  // ------------------------------------------------------------ rendering (text nodes only)

  function marked(parent, text, groups) {
    var at = 0;
    S.highlights(text, groups).forEach(function (r) {
      if (r[0] > at) parent.appendChild(document.createTextNode(text.slice(at, r[0])));
      var mark = document.createElement("mark");
      mark.textContent = text.slice(r[0], r[1]);
      parent.appendChild(mark);
      at = r[1];
    });
    if (at < text.length) parent.appendChild(document.createTextNode(text.slice(at)));
  }

  // A title or a summary: text, or [text, TeX, text, …] when it holds formulas (site/search/documents.py).
  function shown(parent, value, groups) {
    if (typeof value === "string") { marked(parent, value, groups); return; }
    value.forEach(function (part, i) {
      if (i % 2 === 0) { marked(parent, part, groups); return; }
      var span = document.createElement("span");
      span.className = "math math-inline";
      span.textContent = part;  // the TeX stays readable until KaTeX renders it, and where KaTeX rejects it
      parent.appendChild(span);
    });
  }

  // Renders the formulas of the results on the page (a page of results); math.js renders each once. KaTeX
  // takes ~40 ms of the main thread to start, so it is loaded when typing pauses, not between two keystrokes;
  // until then a formula shows its TeX. Its style is loaded first: its output would flash by unstyled.
  var mathLoad = null, mathTimer = 0, QUIET_MS = 400;

  function load(tag, attrs) {  // a stylesheet or a script, added to the head
    return new Promise(function (resolve, reject) {
      var el = document.createElement(tag);
      Object.keys(attrs).forEach(function (k) { el[k] = attrs[k]; });
      el.onload = resolve;
      el.onerror = function () { reject(new Error(attrs.href || attrs.src)); };
      document.head.appendChild(el);
    });
  }

  function loadMath() {
    var assets = results.getAttribute("data-assets") || "../assets/";
    mathLoad = mathLoad || Promise.all([load("link", { rel: "stylesheet", href: assets + "katex/katex.min.css" }),
      load("script", { src: assets + "katex/katex.min.js" }).then(function () { return load("script", { src: assets + "math.js" }); })
    ]).catch(function (err) { mathLoad = null; throw err; });
    return mathLoad;
  }

  function typeset() {
    if (!results.querySelector(".math")) return;
    function render() { window.PapernotesMath.render(results.querySelectorAll(".math")); }
    if (window.PapernotesMath) { render(); return; }
    clearTimeout(mathTimer);
    mathTimer = setTimeout(function () {
      loadMath().then(render, function (err) { if (window.console) console.error(err); });
    }, QUIET_MS);
  }

  function placeOf(d) {
    return index.m.venues[index.venueOf[d]][1] + " · " + index.m.domains[index.domainOf[d]][1];
  }

  function render(fragment, hit, row, alsoRows) {
    var dt = document.createElement("dt");
    dt.className = "result";
    dt.id = "r-" + hit.doc;
    var link = document.createElement("a");
    link.href = siteRoot + encodeURI(row[2]);
    shown(link, row[0], clausesShown);
    dt.appendChild(link);
    dt.appendChild(document.createTextNode(" "));
    var place = document.createElement("span");
    place.className = "where";
    place.textContent = placeOf(hit.doc);
    dt.appendChild(place);
    var dd = document.createElement("dd");
    shown(dd, row[1], clausesShown);
    if (alsoRows.length) {
      var also = document.createElement("span");
      also.className = "also";
      also.appendChild(document.createTextNode(strings.search_also + " "));
      alsoRows.forEach(function (other, i) {
        var a = document.createElement("a");
        a.href = siteRoot + encodeURI(other[2]);
        a.textContent = index.m.venues[index.venueOf[hit.also[i]]][0];
        also.appendChild(a);
        also.appendChild(document.createTextNode(" "));
      });
      dd.appendChild(also);
    }
    fragment.appendChild(dt);
    fragment.appendChild(dd);
  }

  // ------------------------------------------------------------ keyboard

  function links() {
    return results.querySelectorAll("dt > a");
  }

  function setActive(i) {
    var all = results.querySelectorAll("dt");
    if (!all.length) { active = -1; return; }
    if (active >= 0 && all[active]) {
      all[active].classList.remove("active");
      all[active].removeAttribute("aria-current");
    }
    active = Math.max(0, Math.min(i, all.length - 1));
    all[active].classList.add("active");
    all[active].setAttribute("aria-current", "true");
    if (i !== 0 || document.activeElement !== input) all[active].scrollIntoView({ block: "nearest" });
  }

  input.addEventListener("keydown", function (e) {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      setActive(active + (e.key === "ArrowDown" ? 1 : -1));
    } else if (e.key === "Enter") {
      e.preventDefault();
      remember(true);
      typing = false;
      var target = links()[active];
      if (target) target.click();
    } else if (e.key === "Escape") {
      input.value = "";
      onInput();
    }
  });

  results.addEventListener("keydown", function (e) {
    var all = Array.prototype.slice.call(links());
    var at = all.indexOf(document.activeElement);
    if (at < 0 || (e.key !== "ArrowDown" && e.key !== "ArrowUp")) return;
    e.preventDefault();
    var next = at + (e.key === "ArrowDown" ? 1 : -1);
    if (next < 0) { input.focus(); return; }
    if (all[next]) { setActive(next); all[next].focus(); }
  });

  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (e.key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey && !/^(INPUT|TEXTAREA|SELECT)$/.test(tag)) {
      e.preventDefault();
      input.focus();
      input.select();
    }
  });

  // ------------------------------------------------------------ wiring

  function onInput() {
    remember(!typing);  // the first keystroke of a query makes a history entry, the rest update it
    typing = true;
    search();
  }

  function start() {
    say("search_loading");
    (window.__searchManifest || fetch("index.json", { cache: "no-cache" })).then(function (r) {
      if (!r.ok) throw new Error("index.json: " + r.status);
      return r.json();
    }).then(function (m) {
      index = new S.Index(m);
      gen = m.gen;
      fillFacets(m);
      restore();
      status.textContent = "";
      var ready = m.delta ? bytes("t/delta.bin?v=" + gen).then(function (data) { index.delta = S.decodeShard(data); })
        : Promise.resolve();
      return ready.then(search).then(function () {
        // compile the ranking's loops while the reader has not typed yet (see Index.warm)
        (window.requestIdleCallback || setTimeout)(function () {
          index.warm();
          document.documentElement.setAttribute("data-search", "warm");  // what a test (or a theme) can wait for
        });
      });
    }).catch(function (err) {
      say("search_failed");
      if (window.console) console.error(err);
    });
    input.addEventListener("input", onInput);
    input.addEventListener("blur", function () { typing = false; });
    FACETS.forEach(function (f) {
      selects[f].addEventListener("change", function () { typing = false; remember(true); search(); });
    });
    more.addEventListener("click", function () { page(run); });
    window.addEventListener("popstate", function () {
      if (!index) return;
      typing = false;
      restore();
      search();
    });
    if (!input.value) input.focus();
  }

  start();
})();
