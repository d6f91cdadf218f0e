// The search page: reads search/index.json, fetches only the shards a query needs and the
// document files of the results shown, ranks with search-core.js, and keeps the query and the
// facets in the URL (?q=&venue=&domain=&year=&topic=) so a search can be shared and back/forward
// work. Note text is untrusted: results are built with text nodes only, never parsed as HTML.
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
      shardLoads[n] = bytes("t/" + n + ".bin?v=" + gen).then(function (data) { index.shards[n] = S.decodeShard(data); });
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

  function showCounts(name, counts) {
    Array.prototype.forEach.call(selects[name].options, function (o) {
      if (!o.value) return;
      var n = counts[o.value] || 0;
      o.textContent = o.getAttribute("data-label") + " (" + n + ")";
    });
  }

  // Result counts per facet value, each counted under the other facets' choices (one pass).
  function countFacets(candidates, s, topicDocs) {
    var m = index.m, venueOf = index.venueOf, domainOf = index.domainOf, groupOf = index.groupOf;
    var venue = s.venue ? m.venues.findIndex(function (v) { return v[0] === s.venue; }) : -1;
    var domain = s.domain ? m.domains.findIndex(function (v) { return v[0] === s.domain; }) : -1;
    var year = s.year ? Number(s.year) : 0;
    var counts = { venue: {}, domain: {}, year: {} }, seen = {};
    function add(name, key, g) {
      if (g >= 0) {  // a paper noted twice under one value counts once there
        var mark = name + key + "|" + g;
        if (seen[mark]) return;
        seen[mark] = true;
      }
      counts[name][key] = (counts[name][key] || 0) + 1;
    }
    for (var i = 0; i < candidates.length; i++) {
      var d = candidates[i];
      if (topicDocs && !topicDocs.has(d)) continue;
      var v = venueOf[d], dom = domainOf[d], y = m.venues[v][2], g = groupOf[d];
      var okV = venue < 0 || v === venue, okD = domain < 0 || dom === domain, okY = !year || y === year;
      if (okD && okY) add("venue", m.venues[v][0], g);
      if (okV && okY) add("domain", m.domains[dom][0], g);
      if (okV && okD) add("year", String(y), g);
    }
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
        var list = where[g.term + "|" + g.prefix] = S.shardsFor(firsts, g);
        list.forEach(function (n) { needed[n] = true; });
      });
    });
    var topicTerm = s.topic ? S.TOPIC + s.topic : "";
    var topicShard = topicTerm ? S.shardFor(firsts, topicTerm) : -1;
    if (topicShard >= 0) needed[topicShard] = true;
    return Promise.all(Object.keys(needed).map(loadShard)).then(function () {
      if (mine !== run) return;
      var topicDocs = null;
      if (topicTerm) topicDocs = new Set(index.docsOf(index.shards[topicShard], topicTerm));
      var ranked;
      if (hasQuery) {
        ranked = index.rankAll(queries, shardsOf);
      } else {
        ranked = { docs: new Int32Array(index.n), scores: new Float64Array(index.n) };
        for (var d = 0; d < index.n; d++) ranked.docs[d] = d;
      }
      countFacets(ranked.docs, s, topicDocs);
      var keep = index.filter(s, topicDocs), all = ranked.docs.length;
      var docs = new Int32Array(all), scores = new Float64Array(all), kept = 0;
      for (var i = 0; i < all; i++) {
        if (keep(ranked.docs[i])) { docs[kept] = ranked.docs[i]; scores[kept++] = ranked.scores[i]; }
      }
      shownList = index.dedupe(docs.subarray(0, kept), scores.subarray(0, kept));
      clausesShown = allClauses;
      if (!shownList.length) {
        clear();
        say("search_empty");
        return;
      }
      // documents that miss one word of the query (when few have them all) follow the others
      var complete = shownList.length;
      if (hasQuery && ranked.full < ranked.docs.length) {
        var full = new Uint8Array(index.n);
        for (var f = 0; f < ranked.full; f++) full[ranked.docs[f]] = 1;
        complete = 0;
        while (complete < shownList.length && full[shownList.docs[complete]]) complete++;
      }
      if (complete === shownList.length) say("search_results", shownList.length);
      else if (!complete) say("search_partial", shownList.length);
      else say("search_results_partial", complete, shownList.length - complete);
      shownCount = 0;
      active = -1;
      return page(mine, true);
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
      return Promise.all([doc(hit.doc), Promise.all(hit.also.map(doc))]);
    })).then(function (rows) {
      if (mine !== run) return;
      var fragment = document.createDocumentFragment();
      rows.forEach(function (row, i) { render(fragment, slice[i], row[0], row[1]); });
      if (fresh) results.textContent = "";  // the old results stay until the new ones are ready
      results.appendChild(fragment);
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

  function placeOf(d) {
    return index.m.venues[index.venueOf[d]][1] + " · " + index.m.domains[index.domainOf[d]][1];
  }

  function render(fragment, hit, row, alsoRows) {
    var dt = document.createElement("dt");
    dt.className = "result";
    dt.id = "r-" + hit.doc;
    var link = document.createElement("a");
    link.href = siteRoot + encodeURI(row[2]);
    marked(link, row[0], clausesShown);
    dt.appendChild(link);
    dt.appendChild(document.createTextNode(" "));
    var place = document.createElement("span");
    place.className = "where";
    place.textContent = placeOf(hit.doc);
    dt.appendChild(place);
    var dd = document.createElement("dd");
    marked(dd, row[1], clausesShown);
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
      return ready.then(search);
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
