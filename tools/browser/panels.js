// tools/browser/panels.js — the live panels of the companion pages: each <section class="live"
// data-panel="..."> (tools/browser/panels/<section>.html) gets its form wired to the engine
// (d2l_engine.js, tools/browser/api.cpp) and draws its results as the figures draw theirs:
// heatmaps in matplotlib's Reds/Blues with a colour bar, plots in its colour cycle. A panel's
// inputs live in the URL fragment (#translate=..., #h=1&epochs=5, ...): opening such a link runs
// the panel on load. Errors are the engine's own messages, shown beside the input.
//
// Robustness: the forms stay disabled, saying so, until the engine is ready (a submit before
// then does nothing); every string is measured against the engine's bounds (d2l_limits)
// before it is copied in, and copied into the engine's heap (never onto its small stack); a
// call that traps the engine restarts it, so the next input is answered; a result and an
// error never stand together (each run clears both first).
"use strict";
(function () {
  const SVGNS = "http://www.w3.org/2000/svg";
  const CMAPS = {
    Reds: ["#fff5f0", "#fee0d2", "#fcbba1", "#fc9272", "#fb6a4a", "#ef3b2c", "#cb181d", "#a50f15", "#67000d"],
    Blues: ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"],
  };
  const CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];

  // --- drawing ---------------------------------------------------------------------------
  function color(cmap, t) {  // linear over the nine anchors, as tools/d2l/figures/figures.cpp
    const a = CMAPS[cmap], x = Math.min(Math.max(t, 0), 1) * 8, i = Math.min(Math.floor(x), 7), f = x - i;
    const c = (k) => parseInt(a[i].substr(k, 2), 16) * (1 - f) + parseInt(a[i + 1].substr(k, 2), 16) * f;
    return "rgb(" + [1, 3, 5].map((k) => Math.round(c(k))).join(",") + ")";
  }
  function el(tag, attrs, parent, text) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v) { return Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.001) ? v.toExponential(3) : v.toFixed(4); }

  // maps: [{rows, cols, data (row-major), title}], one shared colour scale, each map its own
  // <svg> (so that on a narrow screen they wrap, one per row); opt: xnames, ynames, xlabel,
  // ylabel, cmap, hover (a <p> for the value under the pointer or the tapped cell). The cells
  // are one image (a canvas, a pixel per cell, scaled): thousands of cells draw at once.
  function heatmap(maps, opt) {
    // Square cells up to 28 px while a map fits 600 x 400 px; beyond, each axis shrinks alone.
    // On a narrow screen the room is the panel's width, so that the labels keep their size.
    const fit = (n, room) => Math.max(0.5, Math.min(28, room / n));
    const left = opt.ynames ? 14 + 6.2 * Math.max(2, ...opt.ynames.map((t) => t.length)) : 50;
    const top = opt.ynames && opt.ylabel ? 42 : 26;  // with row names, the row label goes above them
    const cw = fit(maps[0].cols, Math.max(120, Math.min(600, room - left - 80))), ch = fit(maps[0].rows, 400);
    // Room under the map for the key names, written at 60 degrees, then the axis label.
    const longest = Math.max(2, ...(opt.xnames || [String(maps[0].cols)]).map((t) => t.length));
    const w = maps[0].cols * cw, h = maps[0].rows * ch, bottom = 24 + Math.ceil(longest * 6.2 * 0.87);
    let lo = Infinity, hi = -Infinity;
    for (const m of maps) for (const v of m.data) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (!(hi > lo)) hi = lo + 1;
    // Right of the map: the colour bar and its two values, room for the longer ("3.050e-7") at
    // ~8 px a character.
    const width = Math.ceil(left + w + 40 + 8 * Math.max(fmt(hi).length, fmt(lo).length)), height = Math.ceil(top + h + bottom);
    const box = document.createElement("div");
    box.className = "live-maps";
    maps.forEach((m) => {
      const svg = el("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, class: "live-svg",
                              role: "img", "aria-label": (m.title ? m.title + ": " : "") + m.rows + " x " + m.cols + " heatmap" });
      if (m.title) el("text", { x: left + w / 2, y: 16, "text-anchor": "middle", class: "t" }, svg, m.title);
      const canvas = document.createElement("canvas");
      canvas.width = m.cols;
      canvas.height = m.rows;
      const ctx = canvas.getContext("2d"), img = ctx.createImageData(m.cols, m.rows);
      for (let i = 0; i < m.rows * m.cols; ++i) {
        const rgb = color(opt.cmap || "Reds", (m.data[i] - lo) / (hi - lo)).slice(4, -1).split(",");
        img.data.set([+rgb[0], +rgb[1], +rgb[2], 255], 4 * i);
      }
      ctx.putImageData(img, 0, 0);
      el("image", { x: left, y: top, width: w, height: h, preserveAspectRatio: "none", href: canvas.toDataURL(),
                    style: "image-rendering:pixelated" }, svg);
      const frame = el("rect", { x: left, y: top, width: w, height: h, fill: "transparent", stroke: "#000",
                                 "stroke-width": 0.8, class: "cells" }, svg);
      const mark = el("rect", { width: cw, height: ch, fill: "none", stroke: "#1f77b4", "stroke-width": 2, visibility: "hidden" }, svg);
      const show = (ev) => {  // the cell under the pointer (mouse) or the finger (tap)
        const pt = svg.createSVGPoint();
        pt.x = ev.clientX;
        pt.y = ev.clientY;
        const q = pt.matrixTransform(svg.getScreenCTM().inverse());
        const c = Math.min(m.cols - 1, Math.max(0, Math.floor((q.x - left) / cw)));
        const r = Math.min(m.rows - 1, Math.max(0, Math.floor((q.y - top) / ch)));
        mark.setAttribute("x", left + c * cw);
        mark.setAttribute("y", top + r * ch);
        mark.setAttribute("visibility", "visible");
        if (opt.hover)
          opt.hover.textContent = (m.title ? m.title + ": " : "") + (opt.ynames ? opt.ynames[r] : r) + " \u00d7 " +
                                  (opt.xnames ? opt.xnames[c] : c) + " = " + fmt(m.data[r * m.cols + c]);
      };
      frame.addEventListener("pointermove", show);
      frame.addEventListener("pointerdown", show);
      const names = (list, n, vertical) => {
        // Every name 12 px apart down the rows; along the columns, written at 60 degrees, 16 px
        // (12 px across the slanted lines), so that neighbours do not overlap.
        const cell = vertical ? ch : cw, step = Math.max(1, Math.ceil((vertical ? 12 : 16) / cell));
        for (let i = 0; i < n; i += step) {
          const t = list ? list[i] : String(i);
          if (vertical) el("text", { x: left - 4, y: top + (i + 0.5) * cell + 4, "text-anchor": "end" }, svg, t);
          else el("text", { transform: "translate(" + (left + (i + 0.5) * cell + 4) + "," + (top + h + 6) + ") rotate(-60)",
                            "text-anchor": "end" }, svg, t);
        }
      };
      names(opt.xnames, m.cols, false);
      names(opt.ynames, m.rows, true);
      if (opt.xlabel) el("text", { x: left + w / 2, y: height - 4, "text-anchor": "middle" }, svg, opt.xlabel);
      if (opt.ylabel && !opt.ynames) el("text", { transform: "translate(12," + (top + h / 2) + ") rotate(-90)", "text-anchor": "middle" }, svg, opt.ylabel);
      else if (opt.ylabel) el("text", { x: 4, y: top - 6, "font-style": "italic" }, svg, opt.ylabel + " \u2193");
      const bx = left + w + 14;  // the colour bar, the same scale on every map
      for (let i = 0; i < 50; ++i)
        el("rect", { x: bx, y: top + (h * i) / 50, width: 12, height: h / 50 + 0.5, fill: color(opt.cmap || "Reds", 1 - (i + 0.5) / 50) }, svg);
      el("text", { x: bx + 16, y: top + 8 }, svg, fmt(hi));
      el("text", { x: bx + 16, y: top + h }, svg, fmt(lo));
      box.appendChild(svg);
    });
    return box;
  }

  // series: [{x, y, style: "-" | "--" | "o", label, color}]; opt: xlabel, ylabel, xlim, ylim.
  function plot(series, opt) {
    const W = 420, H = 260, L = 48, T = 10, R = 10, B = 40, pw = W - L - R, ph = H - T - B;
    const svg = el("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, class: "live-svg" });
    const all = (k) => series.reduce((a, s) => a.concat(s[k]), []);
    const xl = opt.xlim || [Math.min(...all("x")), Math.max(...all("x"))];
    let yl = opt.ylim || [Math.min(...all("y")), Math.max(...all("y"))];
    if (!(yl[1] > yl[0])) yl = [yl[0] - 1, yl[0] + 1];
    const sx = (v) => L + ((v - xl[0]) / (xl[1] - xl[0] || 1)) * pw, sy = (v) => T + ph - ((v - yl[0]) / (yl[1] - yl[0])) * ph;
    el("rect", { x: L, y: T, width: pw, height: ph, fill: "none", stroke: "#000", "stroke-width": 0.8 }, svg);
    for (let i = 0; i <= 4; ++i) {
      const xv = xl[0] + ((xl[1] - xl[0]) * i) / 4, yv = yl[0] + ((yl[1] - yl[0]) * i) / 4;
      el("text", { x: sx(xv), y: T + ph + 14, "text-anchor": "middle" }, svg, +xv.toPrecision(3));
      el("text", { x: L - 4, y: sy(yv) + 4, "text-anchor": "end" }, svg, +yv.toPrecision(3));
    }
    if (opt.xlabel) el("text", { x: L + pw / 2, y: H - 4, "text-anchor": "middle" }, svg, opt.xlabel);
    if (opt.ylabel) el("text", { transform: "translate(12," + (T + ph / 2) + ") rotate(-90)", "text-anchor": "middle" }, svg, opt.ylabel);
    // The legend in the top right corner, as wide as its longest label (~8 px a character in DejaVu Sans, the widest usual font).
    let ly = T + 14;
    const lx = L + pw - 35 - 8 * Math.max(0, ...series.map((s) => (s.label || "").length));
    series.forEach((s, k) => {
      const c = s.color || CYCLE[k % CYCLE.length];
      if (s.style === "o") {
        s.x.forEach((x, i) => el("circle", { cx: sx(x), cy: sy(s.y[i]), r: 3, fill: c, "fill-opacity": 0.5 }, svg));
      } else {
        const d = s.x.map((x, i) => (i ? "L" : "M") + sx(x).toFixed(1) + " " + sy(s.y[i]).toFixed(1)).join("");
        el("path", { d: d, fill: "none", stroke: c, "stroke-width": 1.5, "stroke-dasharray": s.style === "--" ? "6 3" : "none" }, svg);
      }
      if (s.label) {
        el("line", { x1: lx, y1: ly - 4, x2: lx + 20, y2: ly - 4, stroke: c, "stroke-width": 2,
                     "stroke-dasharray": s.style === "--" ? "6 3" : "none" }, svg);
        el("text", { x: lx + 25, y: ly }, svg, s.label);
        ly += 15;
      }
    });
    return svg;
  }

  // --- the engine ------------------------------------------------------------------------
  let engine = null, limits = null, ready = null, loadedModels = {};
  let room = 600;  // the width the figures have (the panel's), set before each run
  // One engine for the page's views (the backward view shares it, window.d2lEngine); a restart
  // after a trap gives them a new one.
  function boot(restart) {
    if (restart || !window.d2lEngine) window.d2lEngine = D2LEngine();
    ready = window.d2lEngine.then((m) => {
      limits = JSON.parse(m.ccall("d2l_limits", "string", [], []));
      loadedModels = {};
      engine = m;
      return m;
    });
    return ready;
  }
  // A string the reader gave, refused past the engine's bound before it is copied anywhere.
  function bounded(text, bound, what) {
    const s = String(text === null || text === undefined ? "" : text);
    if (s.length > bound || engine.lengthBytesUTF8(s) > bound)
      throw new Error(what + ": " + s.length.toLocaleString("en") + " characters; the panel takes at most " + bound +
                      " bytes (UTF-8)");
    return s;
  }
  // Calls an entry point: strings go through the heap (malloc'd, freed after), numbers as they
  // are. A trap (the engine's memory or state broken) restarts the engine for the next input.
  function call(name, args) {
    const m = engine, ptrs = [];
    let text;
    const t0 = performance.now();
    try {
      const vals = args.map((a) => {
        if (typeof a !== "string") return a;
        const n = m.lengthBytesUTF8(a) + 1, p = m._malloc(n);
        if (!p) throw new Error(name + ": no memory for an input of " + n + " bytes");
        ptrs.push(p);
        m.stringToUTF8(a, p, n);
        return p;
      });
      try {
        text = m.ccall(name, "string", args.map(() => "number"), vals);
      } catch (e) {
        engine = null;
        boot(true);
        throw new Error(name + ": the engine failed on this input (" + (e.message || e) + "); it has been restarted");
      }
    } finally {
      if (engine === m) for (const p of ptrs) m._free(p);
    }
    const r = JSON.parse(text);
    r.ms = performance.now() - t0;
    if (r.error) throw new Error(r.error);
    return r;
  }
  function model(name) {
    if (loadedModels[name]) return;
    const b64 = (window.D2L_WEIGHTS || {})[name];
    if (!b64) throw new Error("the page has no weights for '" + name + "' (the run saved none)");
    const bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
    engine.FS.writeFile("/" + name + ".safetensors", bytes);
    call("d2l_load", [name, "/" + name + ".safetensors"]);
    loadedModels[name] = true;
  }
  // The vocabulary a panel's words are looked up in, listed on demand under the form.
  function vocabulary(p, name) {
    const d = p.querySelector(".live-vocab");
    if (!d || d.dataset.filled) return;
    const r = call("d2l_vocab", [name]);
    d.querySelector("summary").textContent = "The vocabulary: " + r.tokens.length + " tokens (any other word is read as <unk>)";
    d.querySelector("p").textContent = r.tokens.join("  ");
    d.dataset.filled = "1";
  }
  const quote = (w) => (w === "" ? "(an empty word: two spaces)" : "\u2018" + w + "\u2019");

  // --- the panels --------------------------------------------------------------------------
  const tensorMaps = (t, titles) => {  // (A, B, rows, cols) or (B, rows, cols) -> maps
    const s = t.shape, rows = s[s.length - 2], cols = s[s.length - 1], n = t.data.length / (rows * cols);
    const out = [];
    for (let k = 0; k < n; ++k) out.push({ rows, cols, data: t.data.slice(k * rows * cols, (k + 1) * rows * cols), title: titles ? titles[k] : "" });
    return out;
  };
  function figure(box, caption, drawing) {
    const f = document.createElement("figure");
    f.appendChild(drawing);
    const c = document.createElement("figcaption");
    c.textContent = caption;
    f.appendChild(c);
    box.appendChild(f);
  }
  const heads = (n) => Array.from({ length: n }, (_, i) => "Head " + (i + 1));

  // Notes under the form: what the engine did with the reader's input (read as <unk>, cut).
  function note(p, text) {
    const n = p.querySelector(".live-notes"), li = document.createElement("li");
    li.textContent = text;
    n.appendChild(li);
  }
  // Per decoding step, inside the forward: the five most probable tokens, and the decoder's
  // attention scores before masked_softmax over every key position with the mask.
  function stepTable(r, rowNames) {
    const d = document.createElement("details");
    d.className = "live-steps";
    const sum = document.createElement("summary");
    sum.textContent = "Inside the decoder, step by step: the top-5 tokens, and the attention scores before masked_softmax";
    d.appendChild(sum);
    const K = r.num_steps, R = r.scores.shape[1];
    const why = document.createElement("p");
    why.textContent = "The encoder reads num_steps = " + K + " positions; the source has " + Math.min(r.valid_len, K) +
      " tokens with <eos>, so masked_softmax replaces the scores from position " + Math.min(r.valid_len, K) +
      " on (the padding) by -1e6 before the softmax: their weight is 0" + (r.valid_len >= K ? " (here none is masked)." : ".");
    d.appendChild(why);
    const text = (tag, t, cls) => { const e = document.createElement(tag); e.textContent = t; if (cls) e.className = cls; return e; };
    r.top.forEach((top, t) => {
      const div = document.createElement("div");
      div.className = "live-step";
      div.appendChild(text("p", "Step " + (t + 1) + " writes \u2018" + r.target[t] + "\u2019. Top 5: " +
                               top.map(([tok, pr]) => tok + " " + pr.toFixed(4)).join(", ")));
      const wrap = document.createElement("div"), table = document.createElement("table");
      wrap.className = "live-scroll";
      const head = document.createElement("tr");
      head.appendChild(text("th", "key \u2192"));
      for (let k = 0; k < K; ++k) head.appendChild(text("th", r.keys[k], k >= r.valid_len ? "masked" : ""));
      table.appendChild(head);
      for (let i = 0; i < R; ++i) {
        const tr = document.createElement("tr");
        tr.appendChild(text("th", rowNames[i]));
        for (let k = 0; k < K; ++k) {
          const v = r.scores.data[(t * R + i) * K + k];
          tr.appendChild(text("td", v.toFixed(3), k >= r.valid_len ? "masked" : ""));
        }
        table.appendChild(tr);
      }
      const mask = document.createElement("tr");
      mask.appendChild(text("th", "mask"));
      for (let k = 0; k < K; ++k) mask.appendChild(text("td", k >= r.valid_len ? "masked" : "kept", k >= r.valid_len ? "masked" : ""));
      table.appendChild(mask);
      wrap.appendChild(table);
      div.appendChild(wrap);
      d.appendChild(div);
    });
    return d;
  }

  const PANELS = {
    translate(p, q, out, hover) {
      const name = p.dataset.model;
      const sentence = bounded(q.get("translate"), limits.sentence_bytes, "the sentence");
      model(name);
      const r = call("d2l_translate", [name, sentence]);
      document.getElementById("live-translation").textContent = r.translation;
      if (sentence !== sentence.toLowerCase()) note(p, "Capitals lowered, as the native program lowers them.");
      if (r.unknown.length)
        note(p, "Not in the vocabulary, so read as <unk> (as the native program reads them): " + r.unknown.map(quote).join(", ") + ".");
      if (r.valid_len > r.num_steps)
        note(p, "With <eos> the sentence has " + r.valid_len + " tokens; the model reads the first num_steps = " + r.num_steps +
                " (predict_seq2seq cuts it, as natively), so <eos> is cut and no key is masked.");
      const time = "translated in " + r.ms.toFixed(1) + " ms";
      const steps = r.target.map((t) => "\u2192 " + t);
      if (name === "bahdanau_attention") {
        figure(out, "The decoder's attention over the source, one row per step (the step writes the row's token).",
               heatmap(tensorMaps(r.attention), { xnames: r.source, ynames: steps, xlabel: "Key positions", ylabel: "Query positions", hover }));
        out.appendChild(stepTable(r, ["score"]));
      } else {
        const L = r.encoder.shape[0], H = r.encoder.shape[1], S = r.source.length;
        for (let l = 0; l < L; ++l)
          figure(out, "Encoder self-attention, layer " + (l + 1) + ", one map per head: row i is how source token i attends to each source token.",
                 heatmap(tensorMaps({ shape: r.encoder.shape, data: r.encoder.data.slice(l * H * S * S, (l + 1) * H * S * S) }, heads(H)),
                         { xnames: r.source, ynames: r.source, xlabel: "Key positions", ylabel: "Query positions", hover }));
        const T = r.decoder_encoder.shape[2], K = r.decoder_encoder.shape[3];
        for (let l = 0; l < L; ++l)
          figure(out, "Decoder-encoder attention, layer " + (l + 1) + ", one map per head: row t is where decoding step t looks in the source.",
                 heatmap(tensorMaps({ shape: r.decoder_encoder.shape, data: r.decoder_encoder.data.slice(l * H * T * K, (l + 1) * H * T * K) }, heads(H)),
                         { xnames: r.source, ynames: steps, xlabel: "Key positions", ylabel: "Query positions", hover }));
        const rows = [];
        for (let l = 0; l < L; ++l) for (let h = 0; h < H; ++h) rows.push("layer " + (l + 1) + ", head " + (h + 1));
        out.appendChild(stepTable(r, rows));
      }
      return time;
    },
    masked_softmax(p, q, out, hover) {
      const text = bounded(q.get("scores"), limits.list_bytes, "the scores");
      const rows = text.split(";").map((r) => r.trim()).filter((r) => r);
      if (rows.length > limits.score_rows) throw new Error("masked_softmax: the scores have " + rows.length + " rows; the panel takes at most " + limits.score_rows);
      const scores = rows.map((r) => r.split(/[\s,]+/).filter((x) => x).map(Number));
      const valid = bounded(q.get("valid"), limits.list_bytes, "the valid lengths").split(/[\s,;]+/).filter((x) => x).map(Number);
      const flat = [].concat(...scores);
      if (flat.length > limits.scores) throw new Error("masked_softmax: " + flat.length + " scores; the panel takes at most " + limits.scores);
      const bad = flat.findIndex((v) => !isFinite(v));
      if (bad >= 0) throw new Error("masked_softmax: the scores must be numbers; score " + (bad + 1) + " is not");
      const r = call("d2l_masked_softmax", [JSON.stringify(flat), rows.length, JSON.stringify(valid)]);
      const cols = r.weights.shape[2];
      const lines = [];
      for (let i = 0; i < rows.length; ++i) lines.push(r.weights.data.slice(i * cols, (i + 1) * cols).map((v) => v.toFixed(4)).join(" "));
      document.getElementById("live-softmax").textContent = lines.join("\n");
      figure(out, "masked_softmax of the scores: row i keeps its first valid[i] scores, the others get weight 0.",
             heatmap(tensorMaps(r.weights), { xlabel: "Keys", ylabel: "Queries", hover }));
      const list = (k, what) => {
        const v = bounded(q.get(k), limits.list_bytes, what).split(/[\s,;]+/).filter((x) => x).map(Number);
        const i = v.findIndex((x) => !isFinite(x));
        if (i >= 0) throw new Error("scoring: " + what + " must be numbers; number " + (i + 1) + " is not");
        return JSON.stringify(v);
      };
      const s = call("d2l_scoring", [list("keys", "the keys"), list("query", "the query"), Number(q.get("len")), 0]);
      figure(out, "The same keys scored two ways, additive and scaled dot-product: the weight each key gets; outputs " +
             s.additive_out.data.map((v) => v.toFixed(2)).join(" ") + " and " + s.dot_out.data.map((v) => v.toFixed(2)).join(" ") + ".",
             heatmap(tensorMaps(s.additive, ["additive"]).concat(tensorMaps(s.dot, ["scaled dot-product"])), { xlabel: "Keys", hover }));
      return "computed in " + (r.ms + s.ms).toFixed(1) + " ms";
    },
    positional_encoding(p, q, out, hover) {
      const n = Number(q.get("positions")), d = Number(q.get("dims"));
      const r = call("d2l_positional_encoding", [n, d]);
      const x = Array.from({ length: n }, (_, i) => i), series = [];
      for (let c = 6; c < Math.min(10, d); ++c) series.push({ x, y: x.map((i) => r.P.data[i * d + c]), label: "Col " + c, style: c % 2 ? "--" : "-" });
      if (series.length) figure(out, "Columns 6 to 9 of P against the position, as the book's plot: lower columns oscillate faster.", plot(series, { xlabel: "Row (position)" }));
      figure(out, "P: rows are positions, columns encoding dimensions; frequency falls from left to right.",
             heatmap(tensorMaps(r.P), { xlabel: "Column (encoding dimension)", ylabel: "Row (position)", cmap: "Blues", hover }));
      return "computed in " + r.ms.toFixed(1) + " ms";
    },
    nadaraya_watson(p, q, out, hover) {
      const h = Number(q.get("h")), epochs = Number(q.get("epochs") || 5);
      // The section's own code, run in the page as `nadaraya_watson --seed 0 --epochs E`.
      const r = call("d2l_nadaraya_watson", [h, epochs, 0]);
      const series = [{ x: r.x_test, y: r.y_truth, style: "-", label: "Truth" },
                      { x: r.x_test, y: r.y_hat, style: "--", label: "Pred (h = " + h + ")", color: "#bf00bf" },
                      { x: r.x_test, y: r.y_param, style: "--", label: "Trained, w = " + r.w.toFixed(3), color: "#2ca02c" },
                      { x: r.x_train, y: r.y_train, style: "o" }];
      figure(out, "Nonparametric attention pooling with bandwidth h, and the parametric model the section trained: predictions against the truth and the noisy training points.",
             plot(series, { xlabel: "x", ylabel: "y", xlim: [0, 5], ylim: [-1, 5] }));
      figure(out, "Its attention weights: each test input (row) over the training inputs (columns).", heatmap(tensorMaps(r.weights), { xlabel: "Sorted training inputs", ylabel: "Sorted testing inputs", hover }));
      // The section's lines ("epoch 1, loss 22.728777"), then what each step did to w.
      document.getElementById("live-losses").textContent = r.losses.map((l, i) => "epoch " + (i + 1) + ", loss " + l.toFixed(6)).join("\n");
      document.getElementById("live-w").textContent = ["w = " + r.w0.toFixed(6) + " at the start (U[0, 1), seed 0)"].concat(
        r.grads.map((g, i) => "epoch " + (i + 1) + ": dL/dw = " + g.toFixed(6) + ", w ← w − 0.5 · dL/dw = " + r.ws[i].toFixed(6))).join("\n");
      figure(out, "The training loss, " + epochs + " epoch" + (epochs > 1 ? "s" : "") + " of SGD (lr 0.5).",
             plot([{ x: r.losses.map((_, i) => i + 1), y: r.losses, style: "-" }], { xlabel: "epoch", ylabel: "loss" }));
      figure(out, "The trained model's attention weights, its kernel's width set by the learned w = " + r.w.toFixed(3) + ".", heatmap(tensorMaps(r.param_weights), { xlabel: "Sorted training inputs", ylabel: "Sorted testing inputs", hover }));
      return "trained in " + r.ms.toFixed(1) + " ms";
    },
    nli(p, q, out, hover) {
      const name = "natural_language_inference_attention";
      const premise = bounded(q.get("premise"), limits.nli_bytes, "the premise");
      const hypothesis = bounded(q.get("hypothesis"), limits.nli_bytes, "the hypothesis");
      model(name);
      const r = call("d2l_nli", [premise, hypothesis]);
      document.getElementById("live-label").textContent = r.label;
      document.getElementById("live-probabilities").textContent =
        r.labels.map((l, i) => l + " " + r.probabilities[i].toFixed(4)).join(", ");
      if (r.unknown.length) {
        const v = call("d2l_vocab", [name]).tokens, has = new Set(v);
        note(p, "Not in the vocabulary, so read as <unk> (as the native program reads them; it does not lower capitals): " +
                r.unknown.map((w) => quote(w) + (has.has(w.toLowerCase()) ? " (the vocabulary has \u2018" + w.toLowerCase() + "\u2019)" : "")).join(", ") + ".");
      }
      const m = r.premise.length, n = r.hypothesis.length, alphaT = [];
      for (let i = 0; i < m; ++i) for (let j = 0; j < n; ++j) alphaT.push(r.alpha.data[j * m + i]);
      figure(out, "The soft alignment: \u03b2 (each premise token over the hypothesis) and \u03b1 (each hypothesis token over the premise, transposed).",
             heatmap([{ rows: m, cols: n, data: r.beta.data, title: "beta: over hypothesis" }, { rows: m, cols: n, data: alphaT, title: "alpha: over premise" }],
                     { xnames: r.hypothesis, ynames: r.premise, xlabel: "Hypothesis", ylabel: "Premise", hover }));
      return "predicted in " + r.ms.toFixed(1) + " ms";
    },
  };

  // Runs a panel on the inputs q: results, notes and errors of the previous run go first,
  // together; an engine that is restarting is waited for.
  function run(p, q) {
    const out = p.querySelector(".live-figures"), err = p.querySelector(".live-error"), time = p.querySelector(".live-time");
    for (const e of p.querySelectorAll(".live-result, .live-clear, .live-notes, .live-time")) e.textContent = "";
    out.textContent = "";
    err.textContent = "";
    room = out.clientWidth || 600;
    p.dataset.state = "running";
    const t0 = performance.now();
    const go = () => {
      try {
        time.textContent = PANELS[p.dataset.panel](p, q, out, p.querySelector(".live-hover"));
        p.dataset.state = "done";
      } catch (e) {
        for (const x of p.querySelectorAll(".live-result, .live-clear, .live-time")) x.textContent = "";
        out.textContent = "";
        err.textContent = String(e.message || e);
        p.dataset.state = "error";
      }
      p.dataset.took = (performance.now() - t0).toFixed(1);  // ms from the request to its answer
    };
    if (engine) go();
    else ready.then(go, (e) => { err.textContent = "the engine did not start: " + e; p.dataset.state = "error"; });
  }
  // The forms are wired at once: a submit while the engine loads does nothing (no reload);
  // the fields stay disabled, the button saying so, until it is ready.
  function start() {
    const panels = document.querySelectorAll("section.live[data-panel]");
    const wired = [];
    for (const p of panels) {
      p.classList.add("ready");
      p.dataset.state = "loading";
      const form = p.querySelector("form"), button = form.querySelector("button");
      if (!p.querySelector(".live-notes")) {
        const ul = document.createElement("ul");
        ul.className = "live-notes";
        form.after(ul);
      }
      const fields = Array.from(form.elements).filter((e) => e.name);
      const label = button.textContent;
      for (const f of form.elements) f.disabled = true;
      button.textContent = "Loading the engine\u2026";
      const read = () => new URLSearchParams(fields.map((f) => [f.name, f.type === "checkbox" ? (f.checked ? "1" : "0") : f.value]));
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        if (!engine && !limits) return;  // still loading: the button says so
        const q = read();
        history.replaceState(null, "", "#" + q.toString().replace(/\+/g, "%20"));
        run(p, q);
      });
      const stepper = form.querySelector(".live-step-epoch");  // 10.2: one more epoch from the same start
      if (stepper) stepper.addEventListener("click", () => {
        form.elements.epochs.value = Math.max(0, Number(form.elements.epochs.value) || 0) + 1;
        form.requestSubmit();
      });
      const vocab = p.querySelector(".live-vocab");
      if (vocab) vocab.addEventListener("toggle", () => {
        try { vocabulary(p, p.dataset.model); } catch (e) { vocab.querySelector("p").textContent = String(e.message || e); }
      });
      wired.push({ p, form, button, label, fields, read });
    }
    boot().then(() => {
      document.documentElement.dataset.engineReadyMs = performance.now().toFixed(0);  // since navigation
      const hash = new URLSearchParams(location.hash.slice(1));
      for (const { p, form, button, label, fields, read } of wired) {
        for (const f of form.elements) f.disabled = false;
        button.textContent = label;
        p.dataset.state = "ready";
        let own = false;
        for (const f of fields) {
          if (!hash.has(f.name)) continue;
          if (f.type === "checkbox") f.checked = hash.get(f.name) === "1";
          else f.value = hash.get(f.name);
          own = true;
        }
        if (own || p.dataset.autorun === "1") run(p, read());
        if (own) p.scrollIntoView();  // a link to the panel's state shows the panel
      }
    }, (e) => {
      for (const { p, button } of wired) {
        p.querySelector(".live-error").textContent = "the engine did not start: " + e;
        button.textContent = "The engine did not start";
        p.dataset.state = "error";
      }
    });
  }
  // For the console and the browser test: D2L.call("d2l_nli", ["a man .", "a dog ."]) answers
  // the entry point's result, or its error as an Error, through the heap as the panels call it
  // (only the engine's own bounds apply, not the page's); D2L.model(name) loads a panel's model.
  window.D2L = {
    call: (name, args) => ready.then(() => call(name, args)),
    model: (name) => ready.then(() => model(name)),
    engine: () => ready,
    svg: el,  // el(tag, attrs, parent, text): one SVG element, for the backward view's graph
  };
  window.D2LPanels = { heatmap, plot };  // for the training panel (training.js)
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
