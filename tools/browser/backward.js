// tools/browser/backward.js — the pages' backward view (tools/browser/panels/backward.html): the
// engine (d2l_engine.js) runs 10.3's DotProductAttention or 10.5's MultiHeadAttention on the
// reader's input and keeps every backward step (d2l_backward, tools/browser/backward.cpp); this
// draws the graph, steps through the backward in the engine's order, links each step to the
// lines of the page's own listings where its op is written, and sets the gradients beside their
// finite-difference check (d2l_backward_gradcheck). The state lives in the URL fragment
// (#bw_q=...&bw_step=3), keys prefixed bw_ so the section's other panel keeps its own.
"use strict";
(function () {
  const view = document.querySelector("section[data-view=backward]");
  if (!view) return;
  const layer = view.dataset.layer;
  let result = null, check = null, step = 0, errors = {};

  // --- numbers and tensors -----------------------------------------------------------------
  const g6 = (v) => String(Number(v.toPrecision(6)));
  const short = (v) => (v === 0 ? "0" : Math.abs(v) >= 1000 || Math.abs(v) < 0.001 ? v.toExponential(1) : v.toFixed(3));
  const shapeText = (s) => "(" + s.join(", ") + (s.length === 1 ? ",)" : ")");
  const norm = (v) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  function h(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  const s = (tag, attrs, parent, text) => window.D2L.svg(tag, attrs, parent, text);  // panels.js's
  // Signed values: red above 0, blue below, white at 0, scaled by the tensor's largest |value|.
  function shade(v, scale) {
    const t = scale > 0 ? Math.max(-1, Math.min(1, v / scale)) : 0, c = t >= 0 ? [178, 24, 43] : [33, 102, 172];
    const mix = (k) => Math.round(255 + (c[k] - 255) * Math.abs(t));
    return ["rgb(" + [0, 1, 2].map(mix).join(",") + ")", Math.abs(t) > 0.55 ? "#fff" : "#111"];
  }
  // A tensor as tables: leading 1s dropped; the last two dims one matrix, any before them one
  // matrix each, captioned by its index. Numbers in the cells when small, else colour
  // alone (tap or hover a cell for its value). masked: 1 where a score is masked, hatched.
  function tensorBox(shape, data, caption, opt) {
    opt = opt || {};
    const box = h("figure", { class: "bw-tensor" });
    const dims = shape.slice();
    while (dims.length > 2 && dims[0] === 1) dims.shift();
    const cols = dims.length ? dims[dims.length - 1] : 1, rows = dims.length > 1 ? dims[dims.length - 2] : 1;
    const parts = data.length / (rows * cols || 1), numbers = rows * cols <= 64 && cols <= 10;
    const scale = Math.max(0, ...data.map(Math.abs));
    const value = h("p", { class: "bw-value" });
    for (let p = 0; p < parts; ++p) {
      const wrap = h("div", { class: "bw-scroll" }, box);
      const t = h("table", { class: "bw-m" + (numbers ? "" : " bw-small") }, wrap);
      if (parts > 1) h("caption", {}, t, "[" + p + "]");
      for (let r = 0; r < rows; ++r) {
        const tr = h("tr", {}, t);
        for (let c = 0; c < cols; ++c) {
          const i = (p * rows + r) * cols + c, v = data[i], [bg, fg] = shade(v, scale);
          const masked = opt.masked && opt.masked[i] === 1;
          const td = h("td", { style: "background:" + bg + ";color:" + fg, title: "[" + p + ", " + r + ", " + c + "] " + g6(v) + (masked ? " (masked)" : "") }, tr,
                       numbers ? short(v) : "");
          if (masked) td.classList.add("bw-masked");
          td.addEventListener("click", () => { value.textContent = td.title; });
        }
      }
    }
    const fc = h("figcaption", {}, box, caption + " " + shapeText(shape));
    if (opt.masked && opt.masked.some((m) => m === 1)) h("span", { class: "bw-key" }, fc, " hatched: masked, exactly 0");
    box.appendChild(value);
    return box;
  }

  // --- the page's own listings: where each op is written -----------------------------------
  const fileAnchor = (path) => "src-" + path.replace(/[^A-Za-z0-9_]/g, "-");
  const listingCache = {};
  function resolve(link) {  // -> the listing line's element, or null
    const key = link.file;
    if (!(key in listingCache)) {
      const d = document.getElementById(fileAnchor(key));
      listingCache[key] = d ? Array.from(d.querySelectorAll("pre.src > span[id]")) : null;
    }
    const lines = listingCache[key];
    if (!lines) return null;
    const text = (e) => e.textContent.replace(/^\s*\d+ /, "");
    let i = 0;
    if (link.within) while (i < lines.length && !text(lines[i]).includes(link.within)) ++i;
    while (i < lines.length && !text(lines[i]).includes(link.text)) ++i;
    return i < lines.length ? lines[i] : null;
  }
  const unresolved = [];
  function linkTo(link, parent) {
    const line = resolve(link);
    if (!line) {
      unresolved.push(link.file + ": " + link.text);
      h("span", { class: "bw-missing" }, parent, link.label + ": " + link.file + " (not listed on this page)");
      return;
    }
    const n = line.id.replace(/.*-L/, "");
    const a = h("a", { href: "#" + line.id, class: "bw-src" }, parent, link.label + ": " + link.file + ":" + n);
    a.addEventListener("click", (ev) => {  // open the folded file and show the line, keeping the fragment
      ev.preventDefault();
      const d = line.closest("details");
      if (d) d.open = true;
      line.scrollIntoView({ block: "center" });
      line.classList.add("bw-here");
      setTimeout(() => line.classList.remove("bw-here"), 2500);
    });
  }

  // --- the graph ---------------------------------------------------------------------------
  const label = (n) => n.name || n.op;
  function drawGraph() {
    const nodes = result.nodes, rank = [], box = view.querySelector(".bw-graph");
    box.textContent = "";
    // Ops by their longest path from a leaf; each leaf one rank below its first reader.
    nodes.forEach((n, i) => { rank[i] = n.inputs.length ? 1 + Math.max(...n.inputs.filter((k) => k >= 0).map((k) => rank[k])) : 0; });
    const leafRank = {};
    nodes.forEach((n, i) => n.inputs.forEach((k) => {
      if (k >= 0 && !nodes[k].inputs.length) leafRank[k] = Math.min(k in leafRank ? leafRank[k] : Infinity, rank[i] - 1);
    }));
    for (const k in leafRank) rank[k] = leafRank[k];
    const top = Math.max(...rank), rows = [];
    for (let r = 0; r <= top; ++r) rows.push([]);
    const xOf = [];
    // Ops in forward order; then each leaf beside its reader.
    nodes.forEach((n, i) => { if (n.inputs.length) rows[rank[i]].push(i); });
    const reader = (k) => nodes.findIndex((n) => n.inputs.includes(k));
    nodes.forEach((n, i) => { if (!n.inputs.length) rows[rank[i]].push(i); });
    const H = 34, GX = 12, GY = 34;
    const wOf = (i) => Math.max(nodes[i].inputs.length ? 112 : 84, 7.5 * label(nodes[i]).length + 14);
    rows.forEach((row) => row.sort((a, b) => (nodes[a].inputs.length ? a : reader(a) + 0.5) - (nodes[b].inputs.length ? b : reader(b) + 0.5)));
    const width = Math.max(...rows.map((row) => row.reduce((w, i) => w + wOf(i) + GX, GX)));
    const height = (top + 1) * (H + GY) + 10;
    const svg = s("svg", { width, height, viewBox: "0 0 " + width + " " + height, class: "bw-svg", role: "img",
                           "aria-label": "The graph the forward recorded: ops as nodes, inputs as edges, the output on top" });
    rows.forEach((row, r) => {
      const rowW = row.reduce((w, i) => w + wOf(i) + GX, -GX);
      let x = (width - rowW) / 2;
      for (const i of row) {
        const w = wOf(i);
        xOf[i] = [x, (top - r) * (H + GY) + 8, w];
        x += w + GX;
      }
    });
    const stepOf = {};
    result.steps.forEach((st, k) => { stepOf[st.node] = k; });
    const edges = s("g", {}, svg);
    nodes.forEach((n, i) => n.inputs.forEach((k) => {
      if (k < 0) return;
      const [x0, y0, w0] = xOf[k], [x1, y1, w1] = xOf[i];
      const done = stepOf[i] !== undefined && stepOf[i] <= step && nodes[k].requires_grad;
      s("line", { x1: x0 + w0 / 2, y1: y0, x2: x1 + w1 / 2, y2: y1 + H, class: done ? "bw-e bw-e-done" : "bw-e" }, edges);
    }));
    nodes.forEach((n, i) => {
      const [x, y, w] = xOf[i], k = stepOf[i];
      const cls = k === step ? "bw-n bw-now" : k !== undefined && k < step ? "bw-n bw-ran" : !n.inputs.length
        ? (n.requires_grad ? "bw-n bw-leaf" : "bw-n bw-data") : n.requires_grad ? "bw-n" : "bw-n bw-data";
      const g = s("g", { class: cls, tabindex: 0, role: "button" }, svg);
      s("rect", { x, y, width: w, height: H, rx: n.inputs.length ? 3 : 12 }, g);
      s("text", { x: x + w / 2, y: y + 14, "text-anchor": "middle", class: "bw-op" }, g, label(n));
      s("text", { x: x + w / 2, y: y + 27, "text-anchor": "middle", class: "bw-shape" }, g,
        (k !== undefined ? "step " + (k + 1) + "  " : "") + shapeText(n.shape));
      s("title", {}, g, label(n) + " " + shapeText(n.shape) + (n.section ? " in " + n.section : ""));
      const open = () => {
        if (k !== undefined) { go(k); view.querySelector(".bw-step").scrollIntoView({ block: "nearest" }); }
        else { const row = view.querySelector("[data-grad='" + i + "']"); if (row) row.scrollIntoView({ block: "nearest" }); }
      };
      g.addEventListener("click", open);
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); open(); } });
    });
    const wrap = h("div", { class: "bw-scroll" }, box);
    wrap.appendChild(svg);
    // On a narrow screen the graph scrolls sideways: bring the step's node into the middle.
    const now = result.steps[step] && xOf[result.steps[step].node];
    if (now) wrap.scrollLeft = Math.max(0, now[0] + now[2] / 2 - wrap.clientWidth / 2);
    h("p", { class: "bw-legend" }, box, "The graph the forward recorded, the output on top: click an op for its step. Orange: the step shown; pale orange: steps already run; blue: inputs and weights (they receive gradients); grey: data without a gradient.");
  }

  // --- one step ----------------------------------------------------------------------------
  // The tensors on the scores' path get masked_softmax's mask: its output, the gradient it
  // sends to the scores, and the gradients arriving at the scores' ops below it.
  function maskFor(node) {
    const ms = result.nodes.findIndex((n) => n.op === "masked_softmax");
    if (ms < 0) return null;
    const below = [result.nodes[ms].inputs[0]];
    const b = result.nodes[below[0]];
    if (b && b.op === "mul_scalar") below.push(b.inputs[0]);
    return node === ms || below.includes(node) ? result.nodes[ms].masked : null;
  }
  function traceLine(st) {
    const n = result.nodes[st.node];
    const parts = n.inputs.map((k, j) => {
      if (k < 0) return "input " + j + " none";
      const inp = result.nodes[k], who = label(inp) + " " + shapeText(inp.shape);
      return "input " + j + " " + who + (st.sent[j] ? " norm " + g6(norm(st.sent[j])) : " no grad");
    });
    return "[backward] " + n.op + (n.section ? " in " + n.section : "") + ": grad " + shapeText(n.shape) + " norm " +
           g6(norm(st.grad)) + " -> " + parts.join(", ");
  }
  function drawStep() {
    const box = view.querySelector(".bw-step"), st = result.steps[step], n = result.nodes[st.node];
    box.textContent = "";
    view.querySelector(".bw-where").textContent = "step " + (step + 1) + " of " + result.steps.length;
    view.querySelector(".bw-prev").disabled = step === 0;
    view.querySelector(".bw-next").disabled = step === result.steps.length - 1;
    const title = h("h4", {}, box, "Step " + (step + 1) + ": " + n.op + " ");
    if (n.section) h("span", { class: "en" }, title, "in " + n.section);
    h("pre", { class: "bw-trace" }, box, traceLine(st));
    const links = h("p", { class: "bw-links" }, box);
    for (const l of n.links.concat(n.callers, [result.engine])) linkTo(l, links);
    const tensors = h("div", { class: "bw-tensors" }, box), mask = maskFor(st.node);
    tensors.appendChild(tensorBox(n.shape, n.value, "its output, " + n.op + " in the forward,", { masked: n.op === "masked_softmax" ? mask : null }));
    tensors.appendChild(tensorBox(n.shape, st.grad, step === 0 ? "the gradient it starts from, d " + result.target.text + " / d output," : "the gradient arriving at its output,", { masked: n.op === "masked_softmax" ? null : mask }));
    n.inputs.forEach((k, j) => {
      if (k < 0) return;
      const inp = result.nodes[k];
      if (!st.sent[j]) {
        h("p", { class: "bw-none" }, tensors, "input " + j + ", " + label(inp) + " " + shapeText(inp.shape) + ": no gradient (" +
          (inp.requires_grad ? "read at an earlier position" : "data, not differentiated") + ")");
        return;
      }
      tensors.appendChild(tensorBox(inp.shape, st.sent[j], "what it sends to input " + j + ", " + label(inp) + ",", { masked: maskFor(k) }));
    });
  }
  function go(k, keepFragment) {
    step = Math.max(0, Math.min(result.steps.length - 1, k));
    view.querySelector("[name=bw_step]").value = step + 1;
    if (!keepFragment) writeFragment();
    drawGraph();
    drawStep();
  }

  // --- the gradients and their finite-difference check --------------------------------------
  // Largest |analytic - numeric| over the largest |gradient| (0 when both are all zero).
  function relativeError(a, n) {
    let diff = 0, scale = 0;
    a.forEach((v, i) => { diff = Math.max(diff, Math.abs(v - n[i])); scale = Math.max(scale, Math.abs(v), Math.abs(n[i])); });
    return scale > 0 ? diff / scale : 0;
  }
  function drawGradients() {
    const box = view.querySelector(".bw-grads");
    box.textContent = "";
    h("p", {}, box, "Each gradient as the backward left it, beside central differences (f(x + \u03b5) \u2212 f(x \u2212 \u03b5)) / 2\u03b5 with \u03b5 = " +
      Number(check.eps.toPrecision(3)) + " through the same forward, element by element; the error is the largest |difference| over the largest |gradient|.");
    errors = {};
    result.gradients.forEach((g, i) => {
      const fd = check.gradients[i], err = relativeError(g.data, fd.data);
      errors[g.name] = err;
      const row = h("div", { class: "bw-grad", "data-grad": g.node }, box);
      const p = h("p", {}, row);
      h("b", {}, p, g.name);
      h("span", { class: err < 1e-2 ? "bw-ok" : "bw-bad" }, p, ": finite differences agree to a relative error of " +
        err.toExponential(1) + (err < 1e-2 ? " \u2713" : " \u2717"));
      row.appendChild(tensorBox(g.shape, g.data, "d " + result.target.text + " / d " + g.name));
      const zero = [], cols = g.shape[g.shape.length - 1];
      for (let r = 0; r < g.data.length / cols; ++r) if (g.data.slice(r * cols, (r + 1) * cols).every((v) => v === 0)) zero.push(r);
      if (zero.length) h("span", {}, p, "; rows exactly 0: " + zero.join(", ") + " (what is differentiated does not depend on them: a masked key, another query)");
    });
  }

  // --- the form, the fragment and the engine --------------------------------------------------
  const form = view.querySelector("form");
  const fields = Array.from(form.elements).filter((e) => e.name);
  function writeFragment() {  // the view's keys, the rest of the fragment kept
    const q = new URLSearchParams(location.hash.slice(1));
    for (const f of fields) q.set(f.name, f.value);
    history.replaceState(null, "", "#" + q.toString().replace(/\+/g, "%20"));
  }
  function run(engine) {
    const err = view.querySelector(".live-error");
    const get = (n) => (form.elements[n] ? form.elements[n].value : "0");  // 10.3's form has no head fields
    err.textContent = "";
    for (const sel of [".bw-graph", ".bw-step", ".bw-grads", ".bw-where"]) view.querySelector(sel).textContent = "";
    view.querySelector(".live-time").textContent = "";
    result = null;
    try {
      const element = get("bw_of") === "element";
      const args = [layer, get("bw_q"), get("bw_k"), get("bw_v"), get("bw_valid"), Number(get("bw_row")),
                    element ? Number(get("bw_col")) : -1, Number(get("bw_hiddens")), Number(get("bw_heads")), Number(get("bw_seed"))];
      const types = ["string", "string", "string", "string", "string", "number", "number", "number", "number", "number"];
      const t0 = performance.now();
      const r = JSON.parse(engine.ccall("d2l_backward", "string", types, args));
      if (r.error) throw new Error(r.error);
      const t1 = performance.now();
      const c = JSON.parse(engine.ccall("d2l_backward_gradcheck", "string", types, args));
      if (c.error) throw new Error(c.error);
      result = r;
      check = c;
      view.querySelector(".live-time").textContent = "Differentiating " + r.target.text + ": forward and backward in " +
        (t1 - t0).toFixed(1) + " ms, " + r.steps.length + " steps; finite differences in " + (performance.now() - t1).toFixed(1) + " ms.";
      drawGradients();
      go(Number(get("bw_step")) - 1 || 0, true);
      view.dataset.state = "done";
    } catch (e) {
      err.textContent = String(e.message || e);
      view.dataset.state = "error";
    }
  }
  // What the suite's browser check reads (tests/browser_check.py): the numbers the view shows.
  window.d2lBackwardCheck = () => {
    if (!result) return { state: view.dataset.state || "", error: view.querySelector(".live-error").textContent };
    const ms = result.nodes.findIndex((n) => n.op === "masked_softmax");
    const st = result.steps.find((x) => x.node === ms), masked = result.nodes[ms].masked;
    const sentMasked = masked.map((m, i) => (m === 1 ? st.sent[0][i] : null)).filter((v) => v !== null);
    const gradients = {};
    for (const g of result.gradients) gradients[g.name] = g.data;
    return { state: view.dataset.state, steps: result.steps.map((x) => result.nodes[x.node].op), gradients, errors,
             masked: sentMasked.length, masked_nonzero: sentMasked.filter((v) => v !== 0).length,
             links: view.querySelectorAll(".bw-step a.bw-src").length, unresolved };
  };

  function start() {
    if (layer !== "mha") for (const e of view.querySelectorAll(".bw-mha")) e.remove();
    view.classList.add("ready");
    const hash = new URLSearchParams(location.hash.slice(1));
    let own = false;
    for (const f of Array.from(form.elements).filter((e) => e.name))
      if (hash.has(f.name)) { f.value = hash.get(f.name); own = true; }
    fields.splice(0, fields.length, ...Array.from(form.elements).filter((e) => e.name));
    (window.d2lEngine = window.d2lEngine || D2LEngine()).then((engine) => {
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        form.elements.bw_step.value = 1;
        writeFragment();
        run(engine);
      });
      view.querySelector(".bw-prev").addEventListener("click", () => go(step - 1));
      view.querySelector(".bw-next").addEventListener("click", () => go(step + 1));
      run(engine);
      if (own) view.scrollIntoView();
    }, (e) => { view.querySelector(".live-error").textContent = "the engine did not start: " + e; view.dataset.state = "error"; });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
