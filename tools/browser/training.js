// tools/browser/training.js — 10.4's page trains the section's model while the reader watches
// (panels/training.html): play, pause, one epoch at a time; the loss curve grows with each
// epoch; every few epochs the attention of the reader's sentence is drawn again, a film the
// reader scrubs back through; once the planned epochs are trained, the book's four sentences
// are translated. The engine runs in a Web Worker (training_worker.js), so the page stays
// responsive. A link with #train=N (and &sentence=...) trains N epochs on load; the losses,
// one line per epoch, end up in #live-train-losses, to the digits D2L_EPOCH_LOSS prints them.
"use strict";
(function () {
  function start() {
    const p = document.querySelector("section.live-training");
    if (!p || typeof D2LEngine !== "function" || !window.D2L_TRAINING_WORKER || !window.D2LPanels) return;
    const $ = (s) => p.querySelector(s);
    const form = $("form"), play = $("[data-act=play]"), step = $("[data-act=step]");
    const epochsField = form.elements.train, sentenceField = form.elements.sentence;
    const status = $(".live-status"), err = $(".live-error"), lossBox = $(".train-loss"), filmBox = $(".train-film");
    const scrub = $(".train-scrub"), filmCaption = $(".train-film-caption"), losses = $("#live-train-losses");
    const translations = $(".train-translations"), hover = $(".live-hover");
    const seed = Number(p.dataset.seed || 0);
    p.classList.add("ready");

    let worker = null, ready = false, playing = false, clicked = 0, started = 0;
    const epochs = [], frames = [];
    const planned = () => Math.max(1, Math.min(1000, Math.round(Number(epochsField.value) || 1)));
    const buttons = () => {
      play.disabled = step.disabled = !ready;
      play.textContent = playing ? "Pause" : "Play";
      step.disabled = !ready || playing;
    };
    const fmt = (v, d) => (v === undefined ? "" : v.toFixed(d));

    function drawLoss() {
      lossBox.textContent = "";
      if (!epochs.length) return;
      const x = epochs.map((e) => e.epoch), y = epochs.map((e) => e.loss);
      // Round axis ends, so that the four tick steps are round numbers.
      const last = Math.max(planned(), x[x.length - 1]), step = last > 20 ? 20 : 4;
      lossBox.appendChild(D2LPanels.plot([{ x, y, style: epochs.length > 1 ? "-" : "o" }],
        { xlabel: "epoch", ylabel: "loss", xlim: [0, Math.ceil(last / step) * step], ylim: [0, Math.ceil(Math.max(...y) * 10) / 10] }));
    }
    function showFrame(i) {
      const f = frames[i];
      filmBox.textContent = "";
      if (!f) return;
      if (f.attention) {
        const steps = f.target.map((t) => "\u2192 " + t);
        filmBox.appendChild(D2LPanels.heatmap([{ rows: f.attention.shape[0], cols: f.attention.shape[1], data: f.attention.data }],
          { xnames: f.source, ynames: steps, xlabel: "Key positions", ylabel: "Query positions", hover }));
      }
      filmCaption.textContent = "After epoch " + f.epoch + " of " + planned() + ": \u201c" + f.sentence + "\u201d \u2192 \u201c" +
        f.translation + "\u201d" + (f.unknown.length ? " (not in the vocabulary, read as <unk>: " + f.unknown.join(", ") + ")" : "") +
        ". Each row: one decoding step's attention over the source (frame " + (i + 1) + " of " + frames.length + ").";
    }
    function showStatus(e) {
      const trained = epochs.length, last = epochs[trained - 1];
      const mean = trained ? epochs.reduce((a, x) => a + x.seconds, 0) / trained : 0;
      status.textContent = (e ? e + " " : "") + "epoch " + trained + " of " + planned() +
        (last ? ", loss " + fmt(last.loss, 4) + ", " + fmt(mean * 1000, 0) + " ms per epoch" : "") +
        (started ? ", " + fmt((performance.now() - started) / 1000, 1) + " s since the first click" : "");
    }

    function onMessage(ev) {
      const m = ev.data;
      if (m.type === "ready") {
        ready = true;
        p.dataset.engineMs = m.ms.toFixed(0);
        status.textContent = "ready: " + m.pairs + " pairs in " + m.batches + " batches, vocabularies of " + m.src_vocab +
          " and " + m.tgt_vocab + " tokens, " + m.parameters + " parameters (engine started in " + m.ms.toFixed(0) + " ms)";
        buttons();
        if (clicked) {  // the click that started the engine
          const what = clicked;
          clicked = 0;
          act(what);
        }
      } else if (m.type === "epoch") {
        epochs.push(m);
        losses.textContent += m.epoch + " " + m.loss_text + "\n";
        drawLoss();
        showStatus("");
      } else if (m.type === "frame") {
        const follow = Number(scrub.value) >= frames.length - 1;
        frames.push(m);
        scrub.max = String(frames.length - 1);
        scrub.disabled = frames.length < 2;
        if (follow) scrub.value = scrub.max;
        showFrame(Number(scrub.value));
      } else if (m.type === "state") {
        playing = m.playing;
        buttons();
      } else if (m.type === "done") {
        translations.textContent = "";
        for (const t of m.translations) {
          const li = document.createElement("li");
          li.textContent = t.sentence + " => " + t.translation;
          translations.appendChild(li);
        }
        const waited = started ? (performance.now() - started) / 1000 : 0;
        $(".train-done").textContent = "After " + m.epoch + " epochs, the book's four sentences (translated in " +
          m.ms.toFixed(0) + " ms)" + (started ? "; " + waited.toFixed(1) + " s from the first click to here" : "") + ":";
        p.dataset.waited = waited.toFixed(2);
        p.dataset.state = "done";
        showStatus("");
      } else if (m.type === "error") {
        err.textContent = m.message;
        p.dataset.state = "error";
      }
    }
    function ensureWorker() {
      if (worker) return;
      // The worker's source: the engine's factory and the worker's function, as text (a page
      // from file:// may not load a worker's script from a file).
      const src = "var _scriptDir;\nvar D2LEngine = " + D2LEngine.toString() + ";\n(" + D2L_TRAINING_WORKER.toString() + ")();\n";
      worker = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })));
      worker.onmessage = onMessage;
      worker.onerror = (e) => { err.textContent = "the training worker failed: " + e.message; p.dataset.state = "error"; };
      status.textContent = "starting the engine\u2026";
      worker.postMessage({ type: "start", corpus: (window.D2L_DATA || {})["fra-eng-small.txt"] || "", seed,
                           epochs: planned(), every: Number(p.dataset.every || 5), sentence: sentenceField.value });
    }
    // A click before the engine is ready is kept and run once it is.
    function act(what) {
      if (!started) started = performance.now();
      ensureWorker();
      if (!ready) { clicked = what; status.textContent = "starting the engine\u2026 (" + what + " once it is ready)"; return; }
      if (!playing && epochs.length >= planned()) {  // past the plan: 50 epochs more
        epochsField.value = String(epochs.length + 50);
        worker.postMessage({ type: "epochs", epochs: planned() });
      }
      worker.postMessage({ type: what === "play" && playing ? "pause" : what });
      p.dataset.state = "running";
    }
    play.addEventListener("click", () => act("play"));
    step.addEventListener("click", () => act("step"));
    form.addEventListener("submit", (ev) => { ev.preventDefault(); act("play"); });
    epochsField.addEventListener("change", () => { if (worker) worker.postMessage({ type: "epochs", epochs: planned() }); drawLoss(); showStatus(""); });
    sentenceField.addEventListener("change", () => {
      frames.length = 0;
      scrub.value = "0";
      if (worker && ready) worker.postMessage({ type: "sentence", sentence: sentenceField.value });
    });
    scrub.addEventListener("input", () => showFrame(Number(scrub.value)));
    buttons();
    play.disabled = step.disabled = false;  // the first click starts the engine

    // #train=N[&sentence=...]: train N epochs on load.
    const hash = new URLSearchParams(location.hash.slice(1));
    if (hash.has("sentence")) sentenceField.value = hash.get("sentence");
    if (hash.has("train")) {
      epochsField.value = hash.get("train");
      p.scrollIntoView();
      act("play");
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
