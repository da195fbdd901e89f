// tools/browser/panels.js — the live panels of the companion pages: each <section class="live"
// data-panel="..."> (tools/browser/panels/<section>.html) gets its form wired to the engine
// (d2l_engine.js, tools/browser/api.cpp) and draws its results as the figures draw theirs:
// heatmaps in matplotlib's Reds/Blues with a colour bar, plots in its colour cycle. A panel's
// inputs live in the URL fragment (#translate=..., #n=50&h=1, ...): opening such a link runs
// the panel on load. Errors are the engine's own messages, shown beside the input.
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

  // maps: [{rows, cols, data (row-major), title}], one shared colour scale; opt: xnames,
  // ynames, xlabel, ylabel, cmap, hover (a <p> for the value under the pointer).
  function heatmap(maps, opt) {
    // Square cells up to 28 px while a map fits 600 x 400 px; beyond, each axis shrinks alone.
    const fit = (n, room) => Math.max(0.5, Math.min(28, room / n));
    const cw = fit(maps[0].cols, 600 / maps.length), ch = fit(maps[0].rows, 400);
    const left = opt.ynames ? 90 : 50, top = 26, gap = 30;
    // Room under the maps for the key names, written at 60 degrees, then the axis label.
    const longest = Math.max(2, ...(opt.xnames || [String(maps[0].cols)]).map((t) => t.length));
    const w = maps[0].cols * cw, h = maps[0].rows * ch, bottom = 24 + Math.ceil(longest * 6.2 * 0.87);
    const width = left + maps.length * (w + gap) + 60, height = top + h + bottom;
    const svg = el("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, class: "live-svg" });
    let lo = Infinity, hi = -Infinity;
    for (const m of maps) for (const v of m.data) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (!(hi > lo)) hi = lo + 1;
    maps.forEach((m, k) => {
      const x0 = left + k * (w + gap);
      if (m.title) el("text", { x: x0 + w / 2, y: 16, "text-anchor": "middle", class: "t" }, svg, m.title);
      for (let r = 0; r < m.rows; ++r)
        for (let c = 0; c < m.cols; ++c) {
          const v = m.data[r * m.cols + c];
          const rect = el("rect", { x: x0 + c * cw, y: top + r * ch, width: cw, height: ch,
                                    fill: color(opt.cmap || "Reds", (v - lo) / (hi - lo)) }, svg);
          const label = (opt.ynames ? opt.ynames[r] : r) + " \u00d7 " + (opt.xnames ? opt.xnames[c] : c) + ": " + fmt(v);
          el("title", {}, rect, label);
          if (opt.hover) rect.addEventListener("mouseover", () => { opt.hover.textContent = label; });
        }
      el("rect", { x: x0, y: top, width: w, height: h, fill: "none", stroke: "#000", "stroke-width": 0.8 }, svg);
      const names = (list, n, vertical) => {
        const cell = vertical ? ch : cw, step = Math.max(1, Math.ceil(12 / cell));
        for (let i = 0; i < n; i += step) {
          const t = list ? list[i] : String(i);
          if (vertical) el("text", { x: x0 - 4, y: top + (i + 0.5) * cell + 4, "text-anchor": "end" }, svg, t);
          else el("text", { transform: "translate(" + (x0 + (i + 0.5) * cell + 4) + "," + (top + h + 6) + ") rotate(-60)",
                            "text-anchor": "end" }, svg, t);
        }
      };
      names(opt.xnames, m.cols, false);
      if (k === 0) names(opt.ynames, m.rows, true);
      if (opt.xlabel) el("text", { x: x0 + w / 2, y: height - 4, "text-anchor": "middle" }, svg, opt.xlabel);
    });
    if (opt.ylabel) el("text", { transform: "translate(12," + (top + h / 2) + ") rotate(-90)", "text-anchor": "middle" }, svg, opt.ylabel);
    const bx = left + maps.length * (w + gap) - gap + 14;  // the colour bar
    for (let i = 0; i < 50; ++i)
      el("rect", { x: bx, y: top + (h * i) / 50, width: 12, height: h / 50 + 0.5, fill: color(opt.cmap || "Reds", 1 - (i + 0.5) / 50) }, svg);
    el("text", { x: bx + 16, y: top + 8 }, svg, fmt(hi));
    el("text", { x: bx + 16, y: top + h }, svg, fmt(lo));
    return svg;
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
    let ly = T + 14;
    series.forEach((s, k) => {
      const c = s.color || CYCLE[k % CYCLE.length];
      if (s.style === "o") {
        s.x.forEach((x, i) => el("circle", { cx: sx(x), cy: sy(s.y[i]), r: 3, fill: c, "fill-opacity": 0.5 }, svg));
      } else {
        const d = s.x.map((x, i) => (i ? "L" : "M") + sx(x).toFixed(1) + " " + sy(s.y[i]).toFixed(1)).join("");
        el("path", { d: d, fill: "none", stroke: c, "stroke-width": 1.5, "stroke-dasharray": s.style === "--" ? "6 3" : "none" }, svg);
      }
      if (s.label) {
        el("line", { x1: L + pw - 150, y1: ly - 4, x2: L + pw - 130, y2: ly - 4, stroke: c, "stroke-width": 2,
                     "stroke-dasharray": s.style === "--" ? "6 3" : "none" }, svg);
        el("text", { x: L + pw - 125, y: ly }, svg, s.label);
        ly += 15;
      }
    });
    return svg;
  }

  // --- the engine ------------------------------------------------------------------------
  let engine = null;
  const loadedModels = {};
  function call(name, types, args) {
    const t0 = performance.now();
    const r = JSON.parse(engine.ccall(name, "string", types, args));
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
    call("d2l_load", ["string", "string"], [name, "/" + name + ".safetensors"]);
    loadedModels[name] = true;
  }

  // --- the panels --------------------------------------------------------------------------
  const tensorMaps = (t, titles) => {  // (A, B, rows, cols) or (B, rows, cols) -> maps
    const s = t.shape, rows = s[s.length - 2], cols = s[s.length - 1], n = t.data.length / (rows * cols);
    const out = [];
    for (let k = 0; k < n; ++k) out.push({ rows, cols, data: t.data.slice(k * rows * cols, (k + 1) * rows * cols), title: titles ? titles[k] : "" });
    return out;
  };
  function figure(box, caption, svg) {
    const f = document.createElement("figure");
    f.appendChild(svg);
    const c = document.createElement("figcaption");
    c.textContent = caption;
    f.appendChild(c);
    box.appendChild(f);
  }
  const heads = (n) => Array.from({ length: n }, (_, i) => "Head " + (i + 1));

  const PANELS = {
    translate(p, q, out, hover) {
      const name = p.dataset.model, sentence = q.get("translate");
      model(name);
      const r = call("d2l_translate", ["string", "string"], [name, sentence]);
      document.getElementById("live-translation").textContent = r.translation;
      const time = "translated in " + r.ms.toFixed(1) + " ms";
      const steps = r.target.map((t, i) => "\u2192 " + t);
      if (name === "bahdanau_attention") {
        figure(out, "The decoder's attention over the source, one row per step (the step writes the row's token).",
               heatmap(tensorMaps(r.attention), { xnames: r.source, ynames: steps, xlabel: "Key positions", ylabel: "Query positions", hover }));
      } else {
        const L = r.encoder.shape[0], H = r.encoder.shape[1];
        for (let l = 0; l < L; ++l)
          figure(out, "Encoder self-attention, layer " + (l + 1) + " (queries and keys: the source tokens).",
                 heatmap(tensorMaps({ shape: r.encoder.shape, data: r.encoder.data.slice(l * H * r.source.length ** 2, (l + 1) * H * r.source.length ** 2) }, heads(H)),
                         { xnames: r.source, ynames: r.source, xlabel: "Key positions", ylabel: "Query positions", hover }));
        const T = r.decoder_encoder.shape[2], K = r.decoder_encoder.shape[3];
        for (let l = 0; l < L; ++l)
          figure(out, "Decoder-encoder attention, layer " + (l + 1) + " (one row per decoding step).",
                 heatmap(tensorMaps({ shape: r.decoder_encoder.shape, data: r.decoder_encoder.data.slice(l * H * T * K, (l + 1) * H * T * K) }, heads(H)),
                         { xnames: r.source, ynames: steps, xlabel: "Key positions", ylabel: "Query positions", hover }));
      }
      return time;
    },
    masked_softmax(p, q, out, hover) {
      const rows = q.get("scores").split(";").map((r) => r.trim()).filter((r) => r);
      const scores = rows.map((r) => r.split(/[\s,]+/).filter((x) => x).map(Number));
      const valid = q.get("valid").split(/[\s,;]+/).filter((x) => x).map(Number);
      const flat = [].concat(...scores);
      if (flat.some((v) => !isFinite(v))) throw new Error("masked_softmax: the scores must be numbers: " + q.get("scores"));
      const r = call("d2l_masked_softmax", ["string", "number", "string"], [JSON.stringify(flat), rows.length, JSON.stringify(valid)]);
      const cols = r.weights.shape[2];
      const lines = [];
      for (let i = 0; i < rows.length; ++i) lines.push(r.weights.data.slice(i * cols, (i + 1) * cols).map((v) => v.toFixed(4)).join(" "));
      document.getElementById("live-softmax").textContent = lines.join("\n");
      figure(out, "masked_softmax: row i keeps its first valid[i] scores.", heatmap(tensorMaps(r.weights), { xlabel: "Keys", ylabel: "Queries", hover }));
      const list = (k) => JSON.stringify(q.get(k).split(/[\s,;]+/).filter((x) => x).map(Number));
      const s = call("d2l_scoring", ["string", "string", "number", "number"], [list("keys"), list("query"), Number(q.get("len")), 0]);
      figure(out, "The same keys scored two ways: additive (top) and scaled dot-product (bottom); outputs " +
             s.additive_out.data.map((v) => v.toFixed(2)).join(" ") + " and " + s.dot_out.data.map((v) => v.toFixed(2)).join(" ") + ".",
             heatmap(tensorMaps(s.additive, ["additive"]).concat(tensorMaps(s.dot, ["scaled dot-product"])), { xlabel: "Keys", hover }));
      return "computed in " + (r.ms + s.ms).toFixed(1) + " ms";
    },
    positional_encoding(p, q, out, hover) {
      const n = Number(q.get("positions")), d = Number(q.get("dims"));
      const r = call("d2l_positional_encoding", ["number", "number"], [n, d]);
      const x = Array.from({ length: n }, (_, i) => i), series = [];
      for (let c = 6; c < Math.min(10, d); ++c) series.push({ x, y: x.map((i) => r.P.data[i * d + c]), label: "Col " + c, style: c % 2 ? "--" : "-" });
      if (series.length) figure(out, "Columns 6 to 9 of P against the position, as the book's plot.", plot(series, { xlabel: "Row (position)" }));
      figure(out, "P: rows are positions, columns encoding dimensions.",
             heatmap(tensorMaps(r.P), { xlabel: "Column (encoding dimension)", ylabel: "Row (position)", cmap: "Blues", hover }));
      return "computed in " + r.ms.toFixed(1) + " ms";
    },
    nadaraya_watson(p, q, out, hover) {
      const n = Number(q.get("n")), h = Number(q.get("h")), epochs = q.get("train") === "1" ? 5 : 0;
      const r = call("d2l_nadaraya_watson", ["number", "number", "number", "number"], [n, h, epochs, 0]);
      const series = [{ x: r.x_test, y: r.y_truth, style: "-", label: "Truth" },
                      { x: r.x_test, y: r.y_hat, style: "--", label: "Pred (h = " + h + ")", color: "#bf00bf" }];
      if (epochs) series.push({ x: r.x_test, y: r.y_param, style: "--", label: "Trained, w = " + r.w.toFixed(3), color: "#2ca02c" });
      series.push({ x: r.x_train, y: r.y_train, style: "o" });
      figure(out, "Nonparametric attention pooling with bandwidth h" + (epochs ? ", and the parametric model trained in the page" : "") + ".",
             plot(series, { xlabel: "x", ylabel: "y", xlim: [0, 5], ylim: [-1, 5] }));
      figure(out, "Its attention weights.", heatmap(tensorMaps(r.weights), { xlabel: "Sorted training inputs", ylabel: "Sorted testing inputs", hover }));
      if (epochs) {
        figure(out, "The training loss, 5 epochs of SGD (lr 0.5).",
               plot([{ x: r.losses.map((_, i) => i + 1), y: r.losses, style: "-" }], { xlabel: "epoch", ylabel: "loss" }));
        figure(out, "The trained model's attention weights.", heatmap(tensorMaps(r.param_weights), { xlabel: "Sorted training inputs", ylabel: "Sorted testing inputs", hover }));
      }
      return (epochs ? "trained" : "computed") + " in " + r.ms.toFixed(1) + " ms";
    },
    nli(p, q, out, hover) {
      model("natural_language_inference_attention");
      const r = call("d2l_nli", ["string", "string"], [q.get("premise"), q.get("hypothesis")]);
      document.getElementById("live-label").textContent = r.label;
      document.getElementById("live-probabilities").textContent =
        r.labels.map((l, i) => l + " " + r.probabilities[i].toFixed(4)).join(", ");
      const m = r.premise.length, n = r.hypothesis.length, alphaT = [];
      for (let i = 0; i < m; ++i) for (let j = 0; j < n; ++j) alphaT.push(r.alpha.data[j * m + i]);
      figure(out, "The soft alignment: \u03b2 (each premise token over the hypothesis) and \u03b1 (each hypothesis token over the premise, transposed).",
             heatmap([{ rows: m, cols: n, data: r.beta.data, title: "beta: over hypothesis" }, { rows: m, cols: n, data: alphaT, title: "alpha: over premise" }],
                     { xnames: r.hypothesis, ynames: r.premise, xlabel: "Hypothesis", ylabel: "Premise", hover }));
      return "predicted in " + r.ms.toFixed(1) + " ms";
    },
  };

  // The form's fields are the fragment's keys; submitting writes them into the fragment and
  // runs the panel.
  function run(p, q) {
    const out = p.querySelector(".live-figures"), err = p.querySelector(".live-error"), time = p.querySelector(".live-time");
    out.textContent = "";
    err.textContent = "";
    try {
      time.textContent = PANELS[p.dataset.panel](p, q, out, p.querySelector(".live-hover"));
      p.dataset.state = "done";
    } catch (e) {
      err.textContent = String(e.message || e);
      p.dataset.state = "error";
    }
  }
  function start() {
    const panels = document.querySelectorAll("section.live[data-panel]");
    for (const p of panels) p.classList.add("ready");
    D2LEngine().then((m) => {
      engine = m;
      const hash = new URLSearchParams(location.hash.slice(1));
      for (const p of panels) {
        const form = p.querySelector("form");
        const fields = Array.from(form.elements).filter((e) => e.name);
        let own = false;
        for (const f of fields) {
          if (!hash.has(f.name)) continue;
          if (f.type === "checkbox") f.checked = hash.get(f.name) === "1";
          else f.value = hash.get(f.name);
          own = true;
        }
        const read = () => new URLSearchParams(fields.map((f) => [f.name, f.type === "checkbox" ? (f.checked ? "1" : "0") : f.value]));
        form.addEventListener("submit", (ev) => {
          ev.preventDefault();
          const q = read();
          history.replaceState(null, "", "#" + q.toString().replace(/\+/g, "%20"));
          run(p, q);
        });
        if (own || p.dataset.autorun === "1") run(p, read());
        if (own) p.scrollIntoView();  // a link to the panel's state shows the panel
      }
    }, (e) => {
      for (const p of panels) p.querySelector(".live-error").textContent = "the engine did not start: " + e;
    });
  }
  window.D2LPanels = { heatmap, plot };  // for the training panel (training.js)
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
