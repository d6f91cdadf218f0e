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
  var UPCOMING = 2;          // the synonyms of at most this many terms a query is the beginning of are loaded ahead
  var SYNONYM = 0.99;        // a synonym's scores, relative to the typed query's: its best match ranks second
  var RELAX_BELOW = 10;      // fewer documents with every word: those missing one follow
  var HEAD = 100;            // results put in order at once (ten pages), the others when a page past them is asked for
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

  var UTF8 = typeof TextDecoder !== "undefined" ? new TextDecoder() : null;  // QuickJS (the tests) has none

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
    var text = bytes.subarray(pos, pos + length);
    var terms = count ? (UTF8 ? UTF8.decode(text) : utf8(text)).split("\n") : [];
    pos += length;
    var starts = new Int32Array(count + 1);
    for (var i = 0; i < count; i++) starts[i + 1] = starts[i] + read();
    var total = starts[count];
    var docs = new Int32Array(total);
    for (var t = 0; t < count; t++) {  // gaps between document ids, as varints (inlined: the hot loop)
      var doc = 0;
      for (var k = starts[t], end = starts[t + 1]; k < end; k++) {
        var b = bytes[pos++];
        if (b < 0x80) doc += b;
        else {
          var value = b & 0x7f, scale = 128;
          do { b = bytes[pos++]; value += (b & 0x7f) * scale; scale *= 128; } while (b & 0x80);
          doc += value;
        }
        docs[k] = doc;
      }
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
  // `wide` (the manifest's `prefixes`) names them for a prefix whose terms fill more than PREFIX_SHARDS
  // shards: those holding most of its frequent terms, not the first in order (encode.wide_prefixes).
  function shardsFor(firsts, group, wide) {
    var term = group.term, first = shardFor(firsts, term), out = [];
    if (first < 0) return out;
    if (group.prefix && wide && Object.prototype.hasOwnProperty.call(wide, term)) return wide[term].slice();
    out.push(first);
    if (group.prefix) {
      for (var i = first + 1; i < firsts.length && out.length < PREFIX_SHARDS; i++) {
        if (firsts[i].slice(0, term.length) !== term) break;
        out.push(i);
      }
    }
    return out;
  }

  // The shards the word being typed may need at its next letter: while the query ends in a Latin word
  // of PREFIX_MIN - 1 letters (looked up whole), those where longer words beginning with it are, when
  // they are at most PREFIX_SHARDS + 1. The page loads them ahead, so the letter that makes the word
  // a prefix ("knowledge di" → "knowledge dis") does not wait for its shards.
  function shardsAhead(firsts, query) {
    var m = /[0-9a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f]+$/.exec(normalise(query));
    if (!m || m[0].length !== PREFIX_MIN - 1 || /^[0-9]+$/.test(m[0])) return [];
    var word = /[^\x00-\x7f]/.test(m[0]) ? m[0].normalize("NFD").replace(MARKS, "") : m[0];
    var first = shardFor(firsts, word), out = [];
    if (first < 0) return out;
    out.push(first);
    for (var i = first + 1; i < firsts.length && firsts[i].slice(0, word.length) === word; i++) {
      if (out.length === PREFIX_SHARDS + 1) return [];
      out.push(i);
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

  // Document frequency of `term` (dead documents are few and not subtracted).
  Index.prototype.df = function (shard, term) {
    var s = shard ? shard.index[term] : undefined, t = this.delta ? this.delta.index[term] : undefined;
    return (s === undefined ? 0 : shard.starts[s + 1] - shard.starts[s]) +
      (t === undefined ? 0 : this.delta.starts[t + 1] - this.delta.starts[t]);
  };

  // Every document of `term` in `shard` and in the delta, dead ones skipped, as an array (the topic facet).
  Index.prototype.docsOf = function (shard, term) {
    var out = [], dead = this.dead, delta = this.delta, k;
    var s = shard ? shard.index[term] : undefined, t = delta ? delta.index[term] : undefined;
    if (s !== undefined) {
      for (k = shard.starts[s]; k < shard.starts[s + 1]; k++) if (!dead[shard.docs[k]]) out.push(shard.docs[k]);
    }
    if (t !== undefined) for (k = delta.starts[t]; k < delta.starts[t + 1]; k++) out.push(delta.docs[k]);
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
  // Returns a ranking (see `ordered`): best first, the `full` first ones matching every clause.
  //
  // Ranking runs once per keystroke over postings of up to the whole corpus, mostly before the JIT
  // has warmed up: the loops below are plain loops over typed arrays (no callback per posting), and
  // the per-document arrays are allocated once per index and cleared through the lists of the
  // documents they touched.
  Index.prototype.rank = function (clauses, shardsOf) {
    var m = this.matches(clauses, shardsOf), total = this.scratch().total, i;
    for (i = 0; i < m.docs.length; i++) total[m.docs[i]] = m.scores[i];
    var out = ordered(m.docs.subarray(0, m.full), m.docs.subarray(m.full), total);
    for (i = 0; i < m.docs.length; i++) total[m.docs[i]] = 0;
    return out;
  };

  // What `rank` orders, unordered: {docs, scores, full, top}: the `full` documents matching every
  // clause, then those missing one (when they follow), and `top`, the score `rank` would put first.
  Index.prototype.matches = function (clauses, shardsOf) {
    var hard = [], soft = [];
    for (var c = 0; c < clauses.length; c++) (clauses[c].soft ? soft : hard).push(clauses[c]);
    if (!hard.length) return { docs: new Int32Array(0), scores: new Float64Array(0), full: 0, top: 0 };
    var w = this.scratch(), count = w.clauses, total = w.total, touched = w.ranked, nt = 0, h, k, d;
    for (h = 0; h < hard.length; h++) {
      var found = this.clauseScores(hard[h], shardsOf);
      for (k = 0; k < found.docs.length; k++) {
        d = found.docs[k];
        if (count[d] === 0) touched[nt++] = d;
        count[d]++;
        total[d] += found.scores[k];
      }
    }
    var want = hard.length, nf = 0;
    for (k = 0; k < nt; k++) if (count[touched[k]] === want) nf++;
    var least = want > 1 && nf < RELAX_BELOW ? want - 1 : want;
    for (h = 0; h < soft.length; h++) {
      var extra = this.clauseScores(soft[h], shardsOf);
      for (k = 0; k < extra.docs.length; k++) {
        if (count[extra.docs[k]] >= least) total[extra.docs[k]] += extra.scores[k];
      }
    }
    var docs = new Int32Array(nt), scores = new Float64Array(nt), at = 0, part = nf, first = Infinity, top = 0;
    for (k = 0; k < nt; k++) {
      d = touched[k];
      var i = count[d] === want ? at++ : count[d] >= least ? part++ : -1;
      if (i >= 0) {
        docs[i] = d;
        scores[i] = total[d];
        if (i < nf || !nf) {  // the first of `rank`'s order: the least key (-score to 1e-6, then doc)
          var key = -Math.round(total[d] * 1e6) * DOC_SPAN + d;
          if (key < first) { first = key; top = total[d]; }
        }
      }
      count[d] = 0;
      total[d] = 0;
    }
    return { docs: docs.subarray(0, part), scores: scores.subarray(0, part), full: nf, top: top };
  };

  // Per-document working arrays, made once per index (ranking is not re-entered).
  Index.prototype.scratch = function () {
    var n = this.n;
    return this.work || (this.work = {
      groups: new Uint8Array(n), sums: new Float64Array(n), best: new Float64Array(n), listed: new Int32Array(n),
      seen: new Int32Array(n), clauses: new Uint16Array(n), total: new Float64Array(n), ranked: new Int32Array(n),
      clauseDocs: new Int32Array(n), clauseScores: new Float64Array(n)
    });
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

  // The synonyms a query is on its way to: while "knowledge dis" is typed, those of "knowledge
  // distillation" (知识蒸馏), when the typed text begins at most UPCOMING longer terms of synonym
  // groups that alternatives() would expand. The page loads their shards while the rest is typed,
  // so the keystroke that completes the term does not wait for them.
  Index.prototype.upcoming = function (query) {
    var key = queryKey(query), found = [];
    if (key.length < PREFIX_MIN) return [];
    for (var other in this.synonyms) {
      if (other.length > key.length && other.slice(0, key.length) === key && this.alternatives(other).length) {
        if (found.length === UPCOMING) return [];
        found.push(other);
      }
    }
    var out = [];
    found.forEach(function (k) { out.push.apply(out, this.alternatives(k)); }, this);
    return out;
  };

  // Rank several queries that say the same thing (the typed one and its synonyms) as one: a document
  // scores its best score of any of them, each query's scores divided by its best one (a query of
  // three words sums three clauses); those matching every clause of one of them come first, and those
  // missing one word of one of them follow only when fewer than RELAX_BELOW match in full.
  Index.prototype.rankAll = function (queries, shardsOf) {
    if (queries.length === 1) return this.rank(queries[0], shardsOf);
    var n = this.n, best = new Float64Array(n), state = new Uint8Array(n), touched = new Int32Array(n), nt = 0;
    for (var q = 0; q < queries.length; q++) {
      var r = this.matches(queries[q], shardsOf), weight = (q ? SYNONYM : 1) / (r.docs.length ? r.top : 1);
      for (var i = 0; i < r.docs.length; i++) {
        var d = r.docs[i], level = i < r.full ? 2 : 1, score = r.scores[i] * weight;
        if (!state[d]) touched[nt++] = d;
        if (level > state[d] || (level === state[d] && score > best[d])) { state[d] = level; best[d] = score; }
      }
    }
    var full = new Int32Array(nt), partial = new Int32Array(nt), nf = 0, np = 0;
    for (var k = 0; k < nt; k++) {
      if (state[touched[k]] === 2) full[nf++] = touched[k]; else partial[np++] = touched[k];
    }
    return ordered(full.subarray(0, nf), partial.subarray(0, nf < RELAX_BELOW ? np : 0), best);
  };

  // A ranking of `full` then `partial`, each best first, ties in site order (the order of keys packing
  // -score, to 1e-6, and the doc id): {docs, scores, full, order}. `docs` and `scores` hold every
  // document, but in order only as far as `order(k)` says: it puts at least the first k in order and
  // returns how many are. A part of more than 4 × HEAD documents is first put in order only as far
  // as its HEAD best (found by a sample of its keys), the rest when a page past them is asked for:
  // sorting and decoding every candidate of a prefix like 模 was a fifth of a keystroke at 50,000 notes.
  function ordered(full, partial, total) {
    var docs = new Int32Array(full.length + partial.length), scores = new Float64Array(docs.length);
    var parts = [];
    for (var part = 0; part < 2; part++) {
      var list = part ? partial : full, at = part ? full.length : 0, keys = new Float64Array(list.length), i;
      for (i = 0; i < list.length; i++) keys[i] = -Math.round(total[list[i]] * 1e6) * DOC_SPAN + list[i];
      var rest = list.length > 4 * HEAD ? best(keys, HEAD, list, total, docs, scores, at) : null;
      if (!rest) {
        keys.sort();
        decode(keys, docs, scores, at, total);
        parts.push({ at: at, end: at + keys.length, sorted: keys.length, rest: null });
        continue;
      }
      parts.push({ at: at, end: at + keys.length, sorted: keys.length - rest.length, rest: rest });
    }
    return {
      docs: docs, scores: scores, full: full.length,
      order: function (k) {
        for (var j = 0; j < parts.length; j++) {
          var p = parts[j];
          if (p.rest && p.at + p.sorted < Math.min(k, p.end)) {
            // `total` may be working memory reused since: the scores of the rest are the ones decoded with it
            var from = p.at + p.sorted, top = 0, i;
            for (i = from; i < p.end; i++) if (docs[i] > top) top = docs[i];
            var saved = new Float64Array(top + 1);
            for (i = from; i < p.end; i++) saved[docs[i]] = scores[i];
            p.rest.sort();
            decode(p.rest, docs, scores, from, saved);
            p.sorted = p.end - p.at;
            p.rest = null;
          }
          if (p.at + p.sorted < p.end) return p.at + p.sorted;
        }
        return docs.length;
      }
    };
  }

  // Documents and scores of `keys`, in their order, from `at` on.
  function decode(keys, docs, scores, at, total) {
    for (var i = 0; i < keys.length; i++) {
      var d = ((keys[i] % DOC_SPAN) + DOC_SPAN) % DOC_SPAN;
      docs[at + i] = d;
      scores[at + i] = total[d];
    }
  }

  // Puts in docs and scores, from `at` on, at least the `k` documents of the least `keys` in order,
  // then the others (of `list`, whose keys they are) in no order; returns the keys of those others.
  // Null, and nothing written, when a sample of 256 keys misjudged where the k-th falls (sort all).
  function best(keys, k, list, total, docs, scores, at) {
    var n = keys.length, sample = new Float64Array(256), step = n / 256, i;
    for (i = 0; i < 256; i++) sample[i] = keys[Math.floor(i * step)];
    sample.sort();
    var limit = sample[Math.min(255, Math.ceil(256 * 2 * k / n) + 2)];  // about 2k + 3 × n/256 keys
    var head = 0;
    for (i = 0; i < n; i++) if (keys[i] <= limit) head++;
    if (head < k) return null;
    var top = new Float64Array(head), rest = new Float64Array(n - head), a = 0, b = 0;
    for (i = 0; i < n; i++) {
      if (keys[i] <= limit) { top[a++] = keys[i]; continue; }
      docs[at + head + b] = list[i];
      scores[at + head + b] = total[list[i]];
      rest[b++] = keys[i];
    }
    top.sort();
    decode(top, docs, scores, at, total);
    return rest;
  }

  // Adds idf × impact of the postings [from, to) to `sums`, counting each document once in `groups`
  // and listing it in `listed` the first time; returns the new length of `listed`.
  function addPostings(docs, impacts, from, to, dead, idf, impact, groups, sums, listed, nl) {
    for (var k = from; k < to; k++) {
      var d = docs[k];
      if (dead !== null && dead[d]) continue;
      if (groups[d] === 0) listed[nl++] = d;
      groups[d]++;
      sums[d] += idf * impact[impacts[k]];
    }
    return nl;
  }

  // Keeps in `best` each document's best idf × impact over the postings [from, to), listing it in
  // `seen` the first time; returns the new length of `seen`.
  function bestPostings(docs, impacts, from, to, dead, idf, impact, best, seen, ns) {
    for (var k = from; k < to; k++) {
      var d = docs[k];
      if (dead !== null && dead[d]) continue;
      var s = idf * impact[impacts[k]];
      if (best[d] === 0) seen[ns++] = d;
      if (s > best[d]) best[d] = s;
    }
    return ns;
  }

  // One clause: the documents matching at least `need` of its groups, with their scores (views of
  // working arrays, valid until the next call).
  Index.prototype.clauseScores = function (clause, shardsOf) {
    var impact = this.impact, dead = this.dead, delta = this.delta, w = this.scratch();
    var groups = w.groups, sums = w.sums, best = w.best, listed = w.listed, seen = w.seen, nl = 0;
    var k = clause.groups.length, i, d;
    for (var g = 0; g < k; g++) {
      var expansions = this.expand(clause.groups[g], shardsOf(clause.groups[g]));
      var one = expansions.length === 1, ns = 0;
      for (var e = 0; e < expansions.length; e++) {
        var term = expansions[e][0], shard = expansions[e][2];
        var idf = this.idf(this.df(shard, term)) * expansions[e][1];
        var s = shard ? shard.index[term] : undefined, t = delta ? delta.index[term] : undefined;
        if (one) {
          if (s !== undefined) nl = addPostings(shard.docs, shard.impacts, shard.starts[s], shard.starts[s + 1], dead, idf, impact, groups, sums, listed, nl);
          if (t !== undefined) nl = addPostings(delta.docs, delta.impacts, delta.starts[t], delta.starts[t + 1], null, idf, impact, groups, sums, listed, nl);
        } else {
          if (s !== undefined) ns = bestPostings(shard.docs, shard.impacts, shard.starts[s], shard.starts[s + 1], dead, idf, impact, best, seen, ns);
          if (t !== undefined) ns = bestPostings(delta.docs, delta.impacts, delta.starts[t], delta.starts[t + 1], null, idf, impact, best, seen, ns);
        }
      }
      for (i = 0; i < ns; i++) {
        d = seen[i];
        if (groups[d] === 0) listed[nl++] = d;
        groups[d]++;
        sums[d] += best[d];
        best[d] = 0;
      }
    }
    var docs = w.clauseDocs, scores = w.clauseScores, m = 0;  // read by the caller before the next clause
    for (i = 0; i < nl; i++) {
      d = listed[i];
      if (groups[d] >= clause.need) {
        docs[m] = d;
        scores[m++] = groups[d] === k && k > 1 ? sums[d] * PHRASE : sums[d];
      }
      groups[d] = 0;
      sums[d] = 0;
    }
    return { docs: docs.subarray(0, m), scores: scores.subarray(0, m) };
  };

  // Runs the ranking once on made-up postings the size of a common term's, so the browser has compiled
  // its loops before the first keystroke does: typed into cold, "knowledge dis" took 58–68 ms at 50,000
  // notes instead of 33–48 ms (BENCHMARKS.md). Leaves the index as it was.
  Index.prototype.warm = function () {
    var n = this.n, size = Math.min(n, 20000), docs = new Int32Array(2 * size), impacts = new Uint8Array(2 * size);
    if (!size) return;
    for (var i = 0; i < 2 * size; i++) { docs[i] = Math.floor((i % size) * n / size); impacts[i] = 1 + (i * 7) % 250; }
    var shard = { terms: ["warm", "warmer"], index: { warm: 0, warmer: 1 }, starts: new Int32Array([0, size, 2 * size]),
                  docs: docs, impacts: impacts.subarray(0) };
    var shards = this.shards, delta = this.delta;
    this.shards = { 0: shard };
    this.delta = null;
    try {
      var word = { groups: [{ term: "wa", prefix: true }], need: 1, soft: false, cjk: "" };
      var run = { groups: [{ term: "warm", prefix: false }, { term: "warmer", prefix: false }], need: 1, soft: false, cjk: "" };
      var none = { groups: [{ term: "zz", prefix: false }], need: 1, soft: false, cjk: "" };
      [[[word, run]], [[word, none], [run]]].forEach(function (queries) {
        var ranked = this.rankAll(queries, function () { return [0]; });
        this.dedupe(ranked.docs, ranked.scores, ranked.order, ranked.full).slice(0, 10);
      }, this);
    } finally {
      this.shards = shards;
      this.delta = delta;
    }
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
  // its `also`. `docs` and `scores` are a ranking's: in order as far as `order(k)` puts them (no
  // `order`: all in order), the first `full` of them matching every word. Returns {length, complete
  // (how many kept documents match every word), slice(from, to) -> [{doc, score, also}]}; the
  // documents are put in order only as far as the slices asked for need.
  Index.prototype.dedupe = function (docs, scores, order, full) {
    var groupOf = this.groupOf, n = docs.length, members = {}, count = n, fullOnes = full === undefined ? n : full;
    var complete = fullOnes, i, g;
    for (i = 0; i < n; i++) {
      g = groupOf[docs[i]];
      if (g >= 0) (members[g] || (members[g] = [])).push([docs[i], scores[i], i < fullOnes]);
    }
    for (g in members) {  // best first, as the ranking orders them: full ones, then by score, then site order
      var m = members[g];
      m.sort(function (x, y) {
        return (y[2] - x[2]) || (-Math.round(x[1] * 1e6) + Math.round(y[1] * 1e6)) || x[0] - y[0];
      });
      count -= m.length - 1;
      var inFull = m.filter(function (x) { return x[2]; }).length;
      if (inFull) complete -= inFull - 1;
    }
    var kept = new Int32Array(count), keptScores = new Float64Array(count), nk = 0, next = 0, ready = order ? 0 : n;
    function fill(k) {
      while (nk < k && next < n) {
        if (next >= ready) ready = order(Math.max(next + 1, 2 * ready));
        var d = docs[next], group = groupOf[d];
        if (group < 0 || members[group][0][0] === d) { kept[nk] = d; keptScores[nk++] = scores[next]; }
        next++;
      }
    }
    return {
      length: count,
      complete: complete,
      slice: function (from, to) {
        fill(to);
        var out = [];
        for (var k = from; k < Math.min(to, nk); k++) {
          var group = groupOf[kept[k]];
          out.push({ doc: kept[k], score: keptScores[k],
                     also: group < 0 ? [] : members[group].slice(1).map(function (x) { return x[0]; }) });
        }
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
    decodeShard: decodeShard, shardFor: shardFor, shardsFor: shardsFor, shardsAhead: shardsAhead, Index: Index,
    highlights: highlights, TOPIC: TOPIC
  };
})(typeof window !== "undefined" ? window : globalThis);
