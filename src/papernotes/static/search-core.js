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
  var CJK = /[\u3400-\u4dbf\u4e00-\u9fff]+/g, CJK_CHAR = /[\u3400-\u4dbf\u4e00-\u9fff]/;
  var L = "[0-9a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f]+";
  var COMPOUND = new RegExp(L + "(?:[-\u2010\u2011]" + L + ")+", "g");  // text-to-image, GPT-4
  var HYPHENS = /[-\u2010\u2011]/g, HYPHEN = /[-\u2010\u2011]/;
  var MARKS = /[\u0300-\u036f]/g;
  var TOPIC = "#";
  var PREFIX_MIN = 3;        // a Latin word expands to longer words from 3 letters on
  var PREFIX_TERMS = 64;     // at most this many expansions per word (most frequent first)
  var PREFIX_SHARDS = 3;     // and from at most this many shards
  var PHRASE = 1.3;          // a Chinese run or a hyphenated compound matched in full scores this much more
  var SYNONYMS = 2;          // a query is ranked with at most this many of its synonyms
  var SYNONYM = 0.99;        // a synonym's scores, relative to the typed query's: its best match ranks second
  var RELAX_BELOW = 10;      // fewer documents with every word: those missing one follow
  var DOC_SPAN = 1048576;    // document ids below 2**20 (scores below 4,000 keep 1e-6 precision in a double)

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
    (text.match(COMPOUND) || []).forEach(function (c) { var t = latinTerm(c.replace(HYPHENS, "")); if (t) out.push(t); });
    (text.match(CJK) || []).forEach(function (run) {
      if (run.length === 1) out.push(run);
      for (var i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
    });
    return out;
  }

  // What a query says, for finding it among synonyms: lower-cased, hyphens as spaces, spaces
  // collapsed and dropped between Chinese characters ("Text-to-Image" = "text to image", "知识 蒸馏" = "知识蒸馏").
  function queryKey(query) {
    return normalise(query).replace(HYPHENS, " ").replace(/\s+/g, " ").trim()
      .replace(/([\u3400-\u4dbf\u4e00-\u9fff]) (?=[\u3400-\u4dbf\u4e00-\u9fff])/g, "$1");
  }

  // A query becomes clauses, each {groups: [{term, prefix}], need, soft, cjk}. A Latin word is a
  // clause of one group (prefix-expanded from 3 letters on). A Chinese run is one clause of its
  // bigrams, of which a document needs all when there are one or two, and two thirds when there
  // are more: a run's junction bigrams (型量 in 模型量化) are rare and say little, so the papers
  // that write 模型 … 量化 apart still match, ranked after the phrase only if they are weaker.
  // Soft clauses (bare numbers, single letters, a lone Chinese character next to other words; bodies
  // do not index them) only add to the score. A hyphenated compound is one clause: its words (bare
  // numbers and single letters aside) are needed, and the compound itself, a term of the index, adds
  // to the score of the notes that write it (text-to-image: text, image, texttoimage; need 2).
  function parseQuery(query) {
    var text = normalise(query);
    var clauses = [], seen = {};
    var re = new RegExp(COMPOUND.source + "|" + L + "|[\u3400-\u4dbf\u4e00-\u9fff]+", "g");
    var m;
    while ((m = re.exec(text))) {
      var piece = m[0];
      if (seen[piece]) continue;
      seen[piece] = true;
      if (HYPHEN.test(piece)) {
        var words = [], softs = [], have = {};
        piece.split(HYPHENS).forEach(function (w) {
          var t = latinTerm(w);
          if (!t || have[t]) return;
          have[t] = true;
          if (w.length > 1 && !/^[0-9]+$/.test(w)) words.push({ term: t, prefix: t.length >= PREFIX_MIN });
          else softs.push({ groups: [{ term: t, prefix: false }], need: 1, soft: true, cjk: "" });
        });
        var parts = words.length, joined = latinTerm(piece.replace(HYPHENS, ""));
        if (joined && !have[joined]) words.push({ term: joined, prefix: joined.length >= PREFIX_MIN });
        if (words.length) clauses.push({ groups: words, need: Math.max(1, parts), soft: false, cjk: "" });
        clauses.push.apply(clauses, softs);
        continue;
      }
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
      var b = bytes[pos++];
      if (b < 0x80) return b;
      var value = b & 0x7f, scale = 128;
      do { b = bytes[pos++]; value += (b & 0x7f) * scale; scale *= 128; } while (b & 0x80);
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
    this.synonyms = {};  // query key -> the other terms of its synonym groups
    (manifest.synonyms || []).forEach(function (group) {
      var keys = group.map(queryKey);
      keys.forEach(function (k, i) {
        var others = this.synonyms[k] || (this.synonyms[k] = []);
        group.forEach(function (t, j) { if (keys[j] !== k && others.indexOf(t) < 0) others.push(t); });
      }, this);
    }, this);
    this.shards = {};   // shard number -> decoded shard (filled by the page's loader)
    this.delta = null;  // decoded delta shard, when the manifest has one
  }

  Index.prototype.idf = function (df) {
    return Math.log(1 + (this.n - df + 0.5) / (df + 0.5));
  };

  // Calls visit(doc, impact) for every posting of `term` in `shard` and in the delta (dead documents skipped).
  Index.prototype.each = function (shard, term, visit) {
    var dead = this.dead, s = shard ? shard.index[term] : undefined;
    if (s !== undefined) {
      var docs = shard.docs, imps = shard.impacts;
      for (var k = shard.starts[s], end = shard.starts[s + 1]; k < end; k++) {
        if (!dead[docs[k]]) visit(docs[k], imps[k]);
      }
    }
    var delta = this.delta, t = delta ? delta.index[term] : undefined;
    if (t !== undefined) {
      for (var j = delta.starts[t]; j < delta.starts[t + 1]; j++) visit(delta.docs[j], delta.impacts[j]);
    }
  };

  // Document frequency of `term` (dead documents are few and not subtracted).
  Index.prototype.df = function (shard, term) {
    var s = shard ? shard.index[term] : undefined, t = this.delta ? this.delta.index[term] : undefined;
    return (s === undefined ? 0 : shard.starts[s + 1] - shard.starts[s]) +
      (t === undefined ? 0 : this.delta.starts[t + 1] - this.delta.starts[t]);
  };

  // Every document of `term`, as an array (the topic facet).
  Index.prototype.docsOf = function (shard, term) {
    var out = [];
    this.each(shard, term, function (d) { out.push(d); });
    return out;
  };

  // Terms a group stands for: [[term, weight, shard or null]], the exact word first, then (for a
  // prefix) the most frequent longer terms in the loaded shards and the delta, weighted by how
  // much of them was typed.
  Index.prototype.expand = function (group, shardNumbers) {
    var term = group.term, shards = this.shards;
    var out = [[term, 1, shards[shardNumbers[0]] || null]];
    if (!group.prefix) return out;
    var found = {}, list = [];
    function scan(shard, owner) {
      var terms = shard.terms, lo = 0, hi = terms.length;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (terms[mid] <= term) lo = mid + 1; else hi = mid; }
      for (var j = lo; j < terms.length && terms[j].slice(0, term.length) === term; j++) {
        if (found[terms[j]]) continue;
        found[terms[j]] = true;
        list.push([terms[j], shard.starts[j + 1] - shard.starts[j], owner]);
      }
    }
    shardNumbers.forEach(function (n) { if (shards[n]) scan(shards[n], shards[n]); });
    if (this.delta) scan(this.delta, null);
    list.sort(function (a, b) { return b[1] - a[1]; });
    list.slice(0, PREFIX_TERMS).forEach(function (f) {
      var owner = f[2];
      if (!owner) {  // a term only the delta had in this list: its main postings, if loaded
        shardNumbers.forEach(function (n) { if (shards[n] && shards[n].index[f[0]] !== undefined) owner = shards[n]; });
      }
      out.push([f[0], term.length / f[0].length, owner]);
    });
    return out;
  };

  // Rank the documents that satisfy every hard clause. `shardsOf(group)` names the shards a group
  // was looked up in. A clause scores the sum of its groups' scores (per group, the best of its
  // expansions), times PHRASE when all of its groups match. When fewer than RELAX_BELOW documents
  // match every clause of a query of two or more, the documents that miss exactly one follow them.
  // Returns {docs, scores, full}: best first, the `full` first ones matching every clause.
  Index.prototype.rank = function (clauses, shardsOf) {
    var n = this.n, self = this;
    var hard = clauses.filter(function (c) { return !c.soft; });
    var soft = clauses.filter(function (c) { return c.soft; });
    if (!hard.length) return { docs: new Int32Array(0), scores: new Float64Array(0), full: 0 };
    var count = new Uint16Array(n), total = new Float64Array(n), touched = [];
    hard.forEach(function (clause) {
      var c = self.clauseScores(clause, shardsOf);
      for (var k = 0; k < c.docs.length; k++) {
        var d = c.docs[k];
        if (count[d] === 0) touched.push(d);
        count[d]++;
        total[d] += c.scores[k];
      }
    });
    var want = hard.length, full = [], partial = [];
    for (var t = 0; t < touched.length; t++) {
      var d = touched[t];
      if (count[d] === want) full.push(d); else if (count[d] === want - 1) partial.push(d);
    }
    var least = want > 1 && full.length < RELAX_BELOW ? want - 1 : want;
    soft.forEach(function (c) {
      var extra = self.clauseScores(c, shardsOf);
      for (var j = 0; j < extra.docs.length; j++) {
        if (count[extra.docs[j]] >= least) total[extra.docs[j]] += extra.scores[j];
      }
    });
    return ordered(full, least < want ? partial : [], total);
  };

  // The other terms of the synonym groups `query` is a term of, the first SYNONYMS of them (each
  // costs the shards of its words; more did not rank better), none when it is in no group. Only a
  // Chinese query or one of two or more words is expanded: notes are Chinese text about papers with
  // English titles, so 偏微分方程 gains the notes that write PDE, and "vision transformer" those that
  // write ViT or 视觉Transformer, while one English word or acronym is already precise (expanding
  // LoRA, SAE, PDE or Mamba let weaker notes into their top 10: BENCHMARKS.md).
  Index.prototype.alternatives = function (query) {
    var expand = CJK_CHAR.test(query) || normalise(query).trim().split(/\s+/).length > 1;
    return expand ? (this.synonyms[queryKey(query)] || []).slice(0, SYNONYMS) : [];
  };

  // Rank several queries that say the same thing (the typed one and its synonyms) as one: a document
  // scores its best score of any of them, each query's scores divided by its best one (a query of
  // three words sums three clauses); those matching every clause of one of them come first, and those
  // missing one word of one of them follow only when fewer than RELAX_BELOW match in full.
  Index.prototype.rankAll = function (queries, shardsOf) {
    if (queries.length === 1) return this.rank(queries[0], shardsOf);
    var best = new Float64Array(this.n), state = new Uint8Array(this.n), touched = [], self = this;
    queries.forEach(function (clauses, k) {
      var r = self.rank(clauses, shardsOf), weight = (k ? SYNONYM : 1) / (r.scores.length ? r.scores[0] : 1);
      for (var i = 0; i < r.docs.length; i++) {
        var d = r.docs[i], level = i < r.full ? 2 : 1, score = r.scores[i] * weight;
        if (!state[d]) touched.push(d);
        if (level > state[d] || (level === state[d] && score > best[d])) { state[d] = level; best[d] = score; }
      }
    });
    var full = touched.filter(function (d) { return state[d] === 2; });
    return ordered(full, full.length < RELAX_BELOW ? touched.filter(function (d) { return state[d] === 1; }) : [], best);
  };

  // {docs, scores, full}: `full` then `partial`, each best first, ties in site order (one numeric sort
  // of keys packing -score, to 1e-6, and the doc id).
  function ordered(full, partial, total) {
    var docs = new Int32Array(full.length + partial.length), scores = new Float64Array(docs.length);
    [full, partial].forEach(function (list, part) {
      var at = part ? full.length : 0, keys = new Float64Array(list.length);
      for (var i = 0; i < list.length; i++) keys[i] = -Math.round(total[list[i]] * 1e6) * DOC_SPAN + list[i];
      keys.sort();
      for (var j = 0; j < keys.length; j++) {
        var d = ((keys[j] % DOC_SPAN) + DOC_SPAN) % DOC_SPAN;
        docs[at + j] = d;
        scores[at + j] = total[d];
      }
    });
    return { docs: docs, scores: scores, full: full.length };
  }

  // One clause: the documents matching at least `need` of its groups, with their scores.
  Index.prototype.clauseScores = function (clause, shardsOf) {
    var n = this.n, impact = this.impact, self = this;
    var count = new Uint8Array(n), sum = new Float64Array(n), touched = [];
    var k = clause.groups.length;
    clause.groups.forEach(function (g) {
      var expansions = self.expand(g, shardsOf(g));
      var best = expansions.length > 1 ? new Float64Array(n) : null, seen = [];
      expansions.forEach(function (e) {
        var term = e[0], weight = e[1], shard = e[2];
        var idf = self.idf(self.df(shard, term)) * weight;
        self.each(shard, term, function (d, q) {
          var s = idf * impact[q];
          if (best) {
            if (best[d] === 0) seen.push(d);
            if (s > best[d]) best[d] = s;
            return;
          }
          if (count[d] === 0) touched.push(d);
          count[d]++;
          sum[d] += s;
        });
      });
      if (best) {
        for (var i = 0; i < seen.length; i++) {
          var d = seen[i];
          if (count[d] === 0) touched.push(d);
          count[d]++;
          sum[d] += best[d];
        }
      }
    });
    var docs = [], scores = [];
    for (var t = 0; t < touched.length; t++) {
      var d = touched[t];
      if (count[d] >= clause.need) {
        docs.push(d);
        scores.push(count[d] === k && k > 1 ? sum[d] * PHRASE : sum[d]);
      }
    }
    return { docs: docs, scores: scores };
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

  // One result per paper: the first (best) of each duplicate group stays, the others are listed as
  // its `also`. Returns {length, slice(from, to) -> [{doc, score, also}]}; hits are made on demand.
  Index.prototype.dedupe = function (docs, scores) {
    var groupOf = this.groupOf, leader = {}, also = {};
    var kept = new Int32Array(docs.length), keptScores = new Float64Array(docs.length), n = 0;
    for (var i = 0; i < docs.length; i++) {
      var d = docs[i], g = groupOf[d];
      if (g >= 0) {
        if (leader[g] !== undefined) { also[leader[g]].push(d); continue; }
        leader[g] = d;
        also[d] = [];
      }
      kept[n] = d;
      keptScores[n++] = scores[i];
    }
    return {
      length: n,
      docs: kept.subarray(0, n),
      slice: function (from, to) {
        var out = [];
        for (var k = from; k < Math.min(to, n); k++) out.push({ doc: kept[k], score: keptScores[k], also: also[kept[k]] || [] });
        return out;
      }
    };
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
