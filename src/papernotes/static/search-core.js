// Search core, shared by the search page and the tests (runs in browsers and in QuickJS; no DOM).
// Tokenising mirrors papernotes/site/search/tokenize.py rule for rule; shard decoding mirrors
// site/search/encode.py. Ranking: a document must match every query group (a word, or one bigram
// of a Chinese run); its score adds, per group, idf(df) × impact, prefix expansions weighted by
// how much of the word was typed.
(function (root) {
  "use strict";

  var STOP = {};
  ("a an and are as at be been but by can for from has have in into is it its of on or our than that the " +
   "their these this those to was we were which with via").split(" ").forEach(function (w) { STOP[w] = true; });
  var FOLD = /[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\uf900-\ufaff\ufb00-\ufb06]+/g;
  var LATIN = /[0-9a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f]+/g;
  var CJK = /[\u3400-\u4dbf\u4e00-\u9fff]+/g;
  var MARKS = /[\u0300-\u036f]/g;
  var TOPIC = "#";
  var PREFIX_MIN = 3;        // a Latin word expands to longer words from 3 letters on
  var PREFIX_TERMS = 64;     // at most this many expansions per word (most frequent first)
  var PREFIX_SHARDS = 3;     // and from at most this many shards
  var PHRASE = 1.3;          // a Chinese run matched in full scores this much more

  function normalise(text) {
    return text.replace(FOLD, function (m) { return m.normalize("NFKC"); }).toLowerCase();
  }

  function stem(word) {
    var n = word.length;
    if (n > 3 && word.charAt(n - 1) === "s") {
      if (n > 4 && word.slice(-3) === "ies") return word.slice(0, -3) + "y";
      if (word.slice(-4) === "sses") return word.slice(0, -2);
      var two = word.slice(-2);
      if (two !== "ss" && two !== "us" && two !== "is") return word.slice(0, -1);
    }
    return word;
  }

  function latinTerm(word) {
    if (STOP[word]) return null;
    if (/[^\x00-\x7f]/.test(word)) word = word.normalize("NFD").replace(MARKS, "");
    return stem(word);
  }

  function isCjk(ch) {
    return (ch >= "\u3400" && ch <= "\u4dbf") || (ch >= "\u4e00" && ch <= "\u9fff");
  }

  // Terms of a short field, as tokenize.field_terms makes them (used by the parity tests).
  function fieldTerms(text) {
    text = normalise(text);
    var out = [];
    (text.match(LATIN) || []).forEach(function (w) { var t = latinTerm(w); if (t) out.push(t); });
    (text.match(CJK) || []).forEach(function (run) {
      if (run.length === 1) out.push(run);
      for (var i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
    });
    return out;
  }

  // A query becomes clauses, each {groups: [{term, prefix}], need, soft, cjk}. A Latin word is a
  // clause of one group (prefix-expanded from 3 letters on). A Chinese run is one clause of its
  // bigrams, of which a document needs all when there are one or two, and two thirds when there
  // are more: a run's junction bigrams (型量 in 模型量化) are rare and say little, so the papers
  // that write 模型 … 量化 apart still match, ranked after the phrase only if they are weaker.
  // Soft clauses (bare numbers, single letters, a lone Chinese character next to other words; bodies
  // do not index them) only add to the score.
  function parseQuery(query) {
    var text = normalise(query);
    var clauses = [], seen = {};
    var re = /[0-9a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f]+|[\u3400-\u4dbf\u4e00-\u9fff]+/g;
    var m;
    while ((m = re.exec(text))) {
      var piece = m[0];
      if (seen[piece]) continue;
      seen[piece] = true;
      if (isCjk(piece.charAt(0))) {
        if (piece.length === 1) {
          clauses.push({ groups: [{ term: piece, prefix: true }], need: 1, soft: false, cjk: piece });
          continue;
        }
        var groups = [], pairs = {};
        for (var i = 0; i + 1 < piece.length; i++) {
          var pair = piece.slice(i, i + 2);
          if (!pairs[pair]) { pairs[pair] = true; groups.push({ term: pair, prefix: false }); }
        }
        var k = groups.length;
        clauses.push({ groups: groups, need: k <= 2 ? k : Math.ceil(2 * k / 3), soft: false, cjk: piece });
        continue;
      }
      var term = latinTerm(piece);
      if (!term) continue;
      var soft = piece.length === 1 || /^[0-9]+$/.test(piece);
      clauses.push({ groups: [{ term: term, prefix: !soft && term.length >= PREFIX_MIN }], need: 1, soft: soft, cjk: "" });
    }
    var hard = clauses.filter(function (c) { return !c.soft; });
    if (hard.length > 1) {  // a lone Chinese character among other words is a particle, not a search
      clauses.forEach(function (c) { if (c.cjk.length === 1) { c.soft = true; c.groups[0].prefix = false; } });
    }
    return clauses;
  }

  // ------------------------------------------------------------ shards

  function utf8(bytes) {
    var out = "", i = 0;
    while (i < bytes.length) {
      var b = bytes[i++], c;
      if (b < 0x80) c = b;
      else if (b < 0xe0) c = (b & 0x1f) << 6 | (bytes[i++] & 0x3f);
      else if (b < 0xf0) { c = (b & 0x0f) << 12 | (bytes[i++] & 0x3f) << 6; c |= bytes[i++] & 0x3f; }
      else {
        c = (b & 0x07) << 18 | (bytes[i++] & 0x3f) << 12; c |= (bytes[i++] & 0x3f) << 6; c |= bytes[i++] & 0x3f;
        c -= 0x10000;
        out += String.fromCharCode(0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
        continue;
      }
      out += String.fromCharCode(c);
    }
    return out;
  }

  // A shard (encode.py's format) as {terms, index: term -> position, starts, docs, impacts}.
  function decodeShard(bytes) {
    if (bytes[0] !== 1) throw new Error("unknown search shard version " + bytes[0]);
    var pos = 1;
    function read() {
      var value = 0, shift = 0, b;
      do { b = bytes[pos++]; value += (b & 0x7f) * Math.pow(2, shift); shift += 7; } while (b & 0x80);
      return value;
    }
    var count = read(), length = read();
    var terms = count ? utf8(bytes.subarray(pos, pos + length)).split("\n") : [];
    pos += length;
    var starts = new Int32Array(count + 1);
    for (var i = 0; i < count; i++) starts[i + 1] = starts[i] + read();
    var total = starts[count];
    var docs = new Int32Array(total);
    for (var t = 0; t < count; t++) {
      var doc = 0;
      for (var k = starts[t]; k < starts[t + 1]; k++) { doc += read(); docs[k] = doc; }
    }
    var index = {};
    for (var j = 0; j < count; j++) index[terms[j]] = j;
    return { terms: terms, index: index, starts: starts, docs: docs, impacts: bytes.subarray(pos, pos + total) };
  }

  // Which shard holds `term`: the last one whose first term is not after it.
  function shardFor(firsts, term) {
    var lo = 0, hi = firsts.length - 1;
    if (hi < 0) return -1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (firsts[mid] <= term) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  // The shards a group needs: its term's, and for a prefix the following ones that may hold longer terms.
  function shardsFor(firsts, group) {
    var term = group.term, first = shardFor(firsts, term), out = [];
    if (first < 0) return out;
    out.push(first);
    if (group.prefix) {
      for (var i = first + 1; i < firsts.length && out.length < PREFIX_SHARDS; i++) {
        if (firsts[i].slice(0, term.length) !== term) break;
        out.push(i);
      }
    }
    return out;
  }

  // ------------------------------------------------------------ ranking

  function Index(manifest) {
    this.m = manifest;
    this.n = manifest.docs;
    var lo = manifest.impact[0], hi = manifest.impact[1];
    this.impact = new Float64Array(256);
    for (var q = 1; q < 256; q++) this.impact[q] = lo * Math.exp((q - 1) * Math.log(hi / lo) / 254);
    this.dead = new Uint8Array(this.n);
    for (var i = 0; i < manifest.dead.length; i++) this.dead[manifest.dead[i]] = 1;
    this.venueOf = new Int32Array(this.n);
    this.domainOf = new Int32Array(this.n);
    manifest.cells.forEach(function (c) {
      for (var d = c[2]; d < c[3]; d++) { this.venueOf[d] = c[0]; this.domainOf[d] = c[1]; }
    }, this);
    this.groupOf = new Int32Array(this.n).fill(-1);
    manifest.dups.forEach(function (g, k) { g.forEach(function (d) { this.groupOf[d] = k; }, this); }, this);
    this.shards = {};   // shard number -> decoded shard (filled by the page's loader)
    this.delta = null;  // decoded delta shard, when the manifest has one
  }

  Index.prototype.idf = function (df) {
    return Math.log(1 + (this.n - df + 0.5) / (df + 0.5));
  };

  // Postings of one term: [docs, impacts] (Int32Array, Uint8Array-like), dead documents dropped.
  Index.prototype.postings = function (shard, term) {
    var docs = [], imps = [];
    var s = shard && shard.index[term];
    if (s !== undefined && shard) {
      for (var k = shard.starts[s]; k < shard.starts[s + 1]; k++) {
        var d = shard.docs[k];
        if (!this.dead[d]) { docs.push(d); imps.push(shard.impacts[k]); }
      }
    }
    var delta = this.delta, t = delta && delta.index[term];
    if (t !== undefined && delta) {
      for (var j = delta.starts[t]; j < delta.starts[t + 1]; j++) { docs.push(delta.docs[j]); imps.push(delta.impacts[j]); }
    }
    return [docs, imps];
  };

  // Terms a group stands for in the loaded shards: [[term, weight]], the exact word first.
  Index.prototype.expand = function (group, shardNumbers) {
    var term = group.term, out = [[term, 1]];
    if (!group.prefix) return out;
    var found = [];
    shardNumbers.forEach(function (n) {
      var shard = this.shards[n];
      if (!shard) return;
      for (var i = 0; i < shard.terms.length; i++) {
        var t = shard.terms[i];
        if (t.length > term.length && t.slice(0, term.length) === term) {
          found.push([t, shard.starts[i + 1] - shard.starts[i]]);
        }
      }
    }, this);
    found.sort(function (a, b) { return b[1] - a[1]; });
    found.slice(0, PREFIX_TERMS).forEach(function (f) { out.push([f[0], term.length / f[0].length]); });
    return out;
  };

  // Best score of each document for one group: {docs: [...], scores: Float64Array-like}.
  Index.prototype.groupScores = function (group, shardNumbers) {
    var best = new Map();
    var main = this.shards[shardNumbers[0]];
    this.expand(group, shardNumbers).forEach(function (pair) {
      var term = pair[0], weight = pair[1];
      var shard = main && main.index[term] !== undefined ? main : null;
      if (!shard) {
        for (var i = 1; i < shardNumbers.length && !shard; i++) {
          var s = this.shards[shardNumbers[i]];
          if (s && s.index[term] !== undefined) shard = s;
        }
      }
      var p = this.postings(shard, term), docs = p[0], imps = p[1];
      var idf = this.idf(docs.length);
      for (var k = 0; k < docs.length; k++) {
        var score = weight * idf * this.impact[imps[k]];
        var old = best.get(docs[k]);
        if (old === undefined || score > old) best.set(docs[k], score);
      }
    }, this);
    return best;
  };

  // Rank the documents that satisfy every hard clause. `shardsOf(group)` names the shards a group
  // was looked up in. A clause scores the sum of its groups' scores, times PHRASE when all of its
  // groups match. Returns [[doc, score]], best first.
  Index.prototype.rank = function (clauses, shardsOf) {
    var hard = [], soft = [];
    clauses.forEach(function (clause) {
      var tally = new Map(), k = clause.groups.length;
      clause.groups.forEach(function (g) {
        this.groupScores(g, shardsOf(g)).forEach(function (s, d) {
          var t = tally.get(d);
          if (t) { t[0] += 1; t[1] += s; } else tally.set(d, [1, s]);
        });
      }, this);
      var scores = new Map();
      tally.forEach(function (t, d) {
        if (t[0] >= clause.need) scores.set(d, t[0] === k && k > 1 ? t[1] * PHRASE : t[1]);
      });
      (clause.soft ? soft : hard).push(scores);
    }, this);
    if (!hard.length) return [];
    hard.sort(function (a, b) { return a.size - b.size; });
    var scores = new Map(hard[0]);
    for (var h = 1; h < hard.length; h++) {
      var next = new Map();
      scores.forEach(function (s, d) { var o = hard[h].get(d); if (o !== undefined) next.set(d, s + o); });
      scores = next;
    }
    soft.forEach(function (g) { g.forEach(function (s, d) { if (scores.has(d)) scores.set(d, scores.get(d) + s); }); });
    var out = [];
    scores.forEach(function (s, d) { out.push([d, s]); });
    out.sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; });
    return out;
  };

  // Facet filter: {venue, domain, year, topic} -> predicate on a doc (topic needs its "#slug" postings).
  Index.prototype.filter = function (facets, topicDocs, skip) {
    var m = this.m, venueOf = this.venueOf, domainOf = this.domainOf;
    var venue = skip !== "venue" && facets.venue ? m.venues.findIndex(function (v) { return v[0] === facets.venue; }) : -2;
    var domain = skip !== "domain" && facets.domain ? m.domains.findIndex(function (v) { return v[0] === facets.domain; }) : -2;
    var year = skip !== "year" && facets.year ? Number(facets.year) : 0;
    var topic = skip !== "topic" && facets.topic ? topicDocs : null;
    return function (d) {
      if (venue !== -2 && venueOf[d] !== venue) return false;
      if (domain !== -2 && domainOf[d] !== domain) return false;
      if (year && m.venues[venueOf[d]][2] !== year) return false;
      if (topic && !topic.has(d)) return false;
      return true;
    };
  };

  // One result per paper: the first (best) of each duplicate group; the others are listed as `also`.
  Index.prototype.dedupe = function (ranked) {
    var shown = {}, out = [];
    for (var i = 0; i < ranked.length; i++) {
      var d = ranked[i][0], g = this.groupOf[d];
      if (g < 0) { out.push({ doc: d, score: ranked[i][1], also: [] }); continue; }
      if (shown[g] !== undefined) { out[shown[g]].also.push(d); continue; }
      shown[g] = out.length;
      out.push({ doc: d, score: ranked[i][1], also: [] });
    }
    return out;
  };

  // Where in `text` a query matches, as sorted, merged [start, end) ranges (for <mark>).
  function highlights(text, clauses) {
    var ranges = [], lower = text.toLowerCase();
    if (lower.length !== text.length) lower = text;  // rare case-mapping that changes length: match as is
    var words = {}, prefixes = [], runs = {};
    clauses.forEach(function (c) {
      if (c.cjk) { runs[c.cjk] = true; return; }
      var g = c.groups[0];
      if (g.prefix) prefixes.push(g.term); else words[g.term] = true;
    });
    var re = /[0-9a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]+/g, m;
    while ((m = re.exec(lower))) {
      var t = latinTerm(normalise(m[0]));
      if (!t) continue;
      var hit = words[t] || prefixes.some(function (p) { return t === p || t.slice(0, p.length) === p; });
      if (hit) ranges.push([m.index, m.index + m[0].length]);
    }
    Object.keys(runs).forEach(function (run) {
      var found = false, at = text.indexOf(run);
      while (at >= 0) { ranges.push([at, at + run.length]); found = true; at = text.indexOf(run, at + run.length); }
      if (found || run.length < 2) return;
      for (var i = 0; i + 1 < run.length; i++) {
        var pair = run.slice(i, i + 2), p = text.indexOf(pair);
        while (p >= 0) { ranges.push([p, p + 2]); p = text.indexOf(pair, p + 2); }
      }
    });
    ranges.sort(function (a, b) { return a[0] - b[0]; });
    var merged = [];
    ranges.forEach(function (r) {
      var last = merged[merged.length - 1];
      if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]); else merged.push([r[0], r[1]]);
    });
    return merged;
  }

  root.PapernotesSearch = {
    normalise: normalise, stem: stem, latinTerm: latinTerm, fieldTerms: fieldTerms, parseQuery: parseQuery,
    decodeShard: decodeShard, shardFor: shardFor, shardsFor: shardsFor, Index: Index, highlights: highlights,
    TOPIC: TOPIC
  };
})(typeof window !== "undefined" ? window : globalThis);
