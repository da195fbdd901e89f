// tools/browser/training_worker.js — the Web Worker that trains 10.4's model for the page
// (tools/browser/training.js), so the page stays responsive while the engine works. A page
// opened from file:// may not start a worker from a file, so this function is not run here:
// training.js turns it and the engine's factory (D2LEngine, d2l_engine.js) into the source of
// a worker (a Blob), which runs it.
//
// Messages in: {type: "start", corpus, seed, epochs, every, sentence}, then "play", "pause",
// "step" (one epoch), {type: "sentence", sentence}, {type: "epochs", epochs}. Messages out:
// "ready" (the model's sizes), "epoch" (its loss and time), "frame" (the chosen sentence's
// translation and attention, every `every` epochs), "done" (the book's four sentences
// translated, once the planned epochs are trained), "state" (playing or not), "error".
"use strict";
window.D2L_TRAINING_WORKER = function () {
  const BOOK = ["go .", "i lost .", "he's calm .", "i'm home ."];
  let engine = null, playing = false, planned = 0, every = 5, sentence = "", trained = 0, reported = 0;
  function call(name, types, args) {
    const r = JSON.parse(engine.ccall(name, "string", types, args));
    if (r.error) throw new Error(r.error);
    return r;
  }
  function frame() {
    const t0 = performance.now();
    const r = call("d2l_train_translate", ["string"], [sentence]);
    postMessage(Object.assign(r, { type: "frame", epoch: trained, sentence: sentence, ms: performance.now() - t0 }));
  }
  function finish() {
    const t0 = performance.now();
    const out = BOOK.map((s) => ({ sentence: s, translation: call("d2l_train_translate", ["string"], [s]).translation }));
    reported = trained;
    postMessage({ type: "done", epoch: trained, translations: out, ms: performance.now() - t0 });
  }
  function one() {
    const r = call("d2l_train_epoch", [], []);
    trained = r.epoch;
    postMessage(Object.assign(r, { type: "epoch" }));
    if (trained === 1 || trained % every === 0 || trained === planned) frame();
    if (trained === planned && reported !== trained) {
      finish();
      setPlaying(false);
    }
  }
  function setPlaying(on) {
    playing = on;
    postMessage({ type: "state", playing: on, epoch: trained });
  }
  function loop() {
    if (!playing) return;
    try {
      one();
    } catch (e) {
      setPlaying(false);
      postMessage({ type: "error", message: String(e.message || e) });
      return;
    }
    if (playing) setTimeout(loop, 0);  // lets "pause" in between two epochs
  }
  self.onmessage = (ev) => {
    const m = ev.data;
    try {
      if (m.type === "start") {
        planned = m.epochs;
        every = Math.max(1, m.every);
        sentence = m.sentence;
        const t0 = performance.now();
        D2LEngine().then((e) => {
          engine = e;
          engine.FS.writeFile("/fra-eng-small.txt", m.corpus);
          const r = call("d2l_train_start", ["string", "number"], ["/fra-eng-small.txt", m.seed]);
          postMessage(Object.assign(r, { type: "ready", ms: performance.now() - t0 }));
          frame();  // the untrained model's attention: the film's first picture
        }).catch((e) => postMessage({ type: "error", message: "the engine did not start: " + (e.message || e) }));
      } else if (m.type === "play") {
        if (!playing) {
          setPlaying(true);
          loop();
        }
      } else if (m.type === "pause") {
        setPlaying(false);
      } else if (m.type === "step") {
        if (!playing) one();
      } else if (m.type === "sentence") {
        sentence = m.sentence;
        frame();
      } else if (m.type === "epochs") {
        planned = m.epochs;
      }
    } catch (e) {
      postMessage({ type: "error", message: String(e.message || e) });
    }
  };
};
