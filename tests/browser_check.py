#!/usr/bin/env python3
"""tests/browser_check.py — runs the companion pages' live panels (tools/browser/) in headless
Chromium, opened from file:// with their state in the URL fragment, as a reader's link opens them.

    python3 tests/browser_check.py BOOK_DIR SCREENSHOT_DIR CHECK ...

A CHECK is one of
    PAGE#FRAGMENT=SELECTOR
        opens BOOK_DIR/PAGE#FRAGMENT (after about:blank, so the page loads again) and waits until
        the live panel holding SELECTOR (else the page's first) has finished (data-state "done"
        or "error", at most 60 s);
    PAGE#FRAGMENT=SELECTOR THEN FIELDS=SELECTOR2
        the same, then fills the form's fields (FIELDS: name=value&..., URL-encoded), submits
        it as a reader does, and waits again: the engine must still answer after the first;
        in either, {{REPEAT:text:count}} is text repeated count times (a link longer than a
        command line's argument may be);
    EVAL PAGE=EXPRESSION
        opens PAGE, waits for its panel, then evaluates the JavaScript EXPRESSION (a promise is
        awaited; window.D2L calls the engine, FORGE(model, key, value) writes the page's saved
        model with one metadata setting replaced to /forged.safetensors): its value is "text",
        with "took" the ms it took;
    EARLY PAGE=SELECTOR
        opens PAGE and submits its form while the engine is still loading: the page must not
        reload (a mark set in the page survives) nor change its address; it ends "ready" (or
        "done" when the panel runs on load).
SELECTOR "@backward" probes the backward view (tools/browser/backward.js) instead of the panel.
For each it prints one line of JSON: {"check": CHECK, "state", "text": the text of SELECTOR,
"error": the panel's error text, "time": its timing text, "took": ms from request to answer,
"ready_ms": ms from navigation until the engine was ready, "notes": the panel's notes,
"console": the page's console errors}, and for THEN "then": the same for the second run. A
screenshot of the panel goes to SCREENSHOT_DIR/<n>.png. Exit status 0 when every page
answered (the caller compares the texts), 1 otherwise, 77 when Chromium is not installed.
"""
import base64
import json
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from book_check import Chromium  # noqa: E402

PROBE = """(() => {
  const own = document.querySelector(%s);  // the panel holding SELECTOR, else the page's first
  const p = (own && own.closest('section.live')) || document.querySelector('section.live[data-panel]');
  if (!p || !p.dataset.state) return JSON.stringify({state: p ? '' : 'no panel'});
  const t = (s) => { const e = p.querySelector(s) || document.querySelector(s); return e ? e.textContent : null; };
  const r = p.getBoundingClientRect();
  return JSON.stringify({state: p.dataset.state, text: t(%s), error: t('.live-error'), time: t('.live-time'),
                         notes: t('.live-notes'), took: p.dataset.took || '',
                         ready_ms: document.documentElement.dataset.engineReadyMs || '',
                         clip: [r.x, r.y + window.scrollY, r.width, r.height]});
})()"""

# Fills the panel's form from a query string and submits it as the button does.
SUBMIT = """(() => {
  const p = document.querySelector('section.live[data-panel]'), form = p.querySelector('form');
  const q = new URLSearchParams(%s);
  for (const [k, v] of q) { const f = form.elements[k]; if (f.type === 'checkbox') f.checked = v === '1'; else f.value = v; }
  p.dataset.state = 'submitted';
  form.querySelector('button').click();
  return p.dataset.state;
})()"""

# While the engine loads: mark the page, submit its form (Enter in a field, then the button).
EARLY = """(() => {
  const p = document.querySelector('section.live[data-panel]');
  if (!p || p.dataset.state !== 'loading') return p ? (p.dataset.state || 'not wired') : 'no panel';
  window.__d2l_mark = 1;
  const form = p.querySelector('form');
  form.requestSubmit();
  form.querySelector('button').click();
  return 'submitted';
})()"""


# Defines FORGE in the page: the model's safetensors (the page's own weights) with one setting
# of its metadata replaced, written into the engine's file system as /forged.safetensors.
FORGE = """window.FORGE = async (model, key, value) => {
  const m = await D2L.engine(), bin = atob(window.D2L_WEIGHTS[model]);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0)), view = new DataView(bytes.buffer);
  const n = Number(view.getBigUint64(0, true)), header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  header.__metadata__[key] = value;
  const text = new TextEncoder().encode(JSON.stringify(header)), out = new Uint8Array(8 + text.length + bytes.length - 8 - n);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(bytes.subarray(8 + n), 8 + text.length);
  m.FS.writeFile('/forged.safetensors', out);
  return '/forged.safetensors';
}; 0"""


def console_errors(events):
    out = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append(str(p.get("args")))
        elif m.get("method") == "Runtime.exceptionThrown":
            out.append(str(p.get("exceptionDetails", {}).get("text")))
    return out


# SELECTOR "@backward": the backward view (tools/browser/backward.js) instead of the panel; its
# "text" is the JSON of window.d2lBackwardCheck(), the numbers the view shows.
BACKWARD_PROBE = """(() => {
  const v = document.querySelector('section[data-view=backward]');
  if (!v || !v.dataset.state) return JSON.stringify({state: v ? '' : 'no panel'});
  const r = v.getBoundingClientRect();
  return JSON.stringify({state: v.dataset.state, text: JSON.stringify(window.d2lBackwardCheck()),
                         error: v.querySelector('.live-error').textContent, time: v.querySelector('.live-time').textContent,
                         clip: [r.x, r.y + window.scrollY, r.width, r.height]});
})()"""


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    book, shots, checks = sys.argv[1], sys.argv[2], sys.argv[3:]
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print("no chromium found (tools/scripts/install_deps.sh --browser installs it)")
        return 77
    os.makedirs(shots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="browser-check-")
    browser = Chromium(exe, profile)
    ok = True
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            browser.send(method, session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": 1100, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
        def evaluate(expr):
            res = browser.send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=session)
            return res["result"].get("value")

        def wait_panel(selector, states=("done", "error", "no panel"), timeout=60):
            deadline, probe = time.time() + timeout, {}
            while time.time() < deadline:
                probe_js = BACKWARD_PROBE if selector == "@backward" else PROBE % (json.dumps(selector), json.dumps(selector))
                probe = json.loads(evaluate(probe_js))
                if probe.get("state") in states:
                    break
                time.sleep(0.05)
            return probe

        def open_page(url_part):
            browser.send("Page.navigate", {"url": "about:blank"}, session=session)
            browser.wait_event("Page.loadEventFired")
            browser.events.clear()
            url = "file://" + os.path.abspath(os.path.join(book, url_part.split("#")[0]))
            if "#" in url_part:
                url += "#" + url_part.split("#", 1)[1]
            browser.send("Page.navigate", {"url": url}, session=session)

        for n, check in enumerate(checks):
            # {{REPEAT:text:count}}: text repeated, for inputs longer than a command line's argument
            check = re.sub(r"\{\{REPEAT:([^:}]*):(\d+)\}\}", lambda m: m.group(1) * int(m.group(2)), check)
            if check.startswith("EVAL "):
                url_part, _, expr = check[5:].partition("=")
                open_page(url_part)
                browser.wait_event("Page.loadEventFired", timeout=60)
                probe = wait_panel("body", ("ready", "done", "error", "no panel"))
                evaluate(FORGE)
                t0 = time.time()
                res = browser.send("Runtime.evaluate", {"expression": "(async () => { try { return String(await (" + expr +
                                                        ")); } catch (e) { return 'Error: ' + (e.message || e); } })()",
                                                        "returnByValue": True, "awaitPromise": True}, session=session)
                probe["took"] = "%.1f" % ((time.time() - t0) * 1000)
                probe["text"] = res["result"].get("value")
                probe["state"] = "done"
            elif check.startswith("EARLY "):
                url_part, _, selector = check[6:].rpartition("=")
                open_page(url_part)
                deadline, got = time.time() + 30, ""
                while time.time() < deadline:  # as soon as the panel is wired, before the engine
                    got = evaluate(EARLY) or ""
                    if got in ("submitted", "ready", "running", "done", "error"):
                        break
                    time.sleep(0.005)
                probe = wait_panel(selector, ("ready", "done", "error", "no panel"))
                kept = evaluate("String(window.__d2l_mark === 1) + (location.search || location.hash ? "
                                "', address now ' + location.search + location.hash : ', address unchanged')")
                probe["text"] = ("submitted while loading" if got == "submitted" else "not caught loading: " + got) + \
                    "; mark kept: " + kept
            else:
                first, _, then = check.partition(" THEN ")
                url_part, _, selector = first.rpartition("=")
                open_page(url_part)
                browser.wait_event("Page.loadEventFired", timeout=60)
                probe = wait_panel(selector)
                if then:
                    fields, _, selector2 = then.rpartition("=")
                    evaluate(SUBMIT % json.dumps(fields))
                    second = wait_panel(selector2)
                    second.pop("clip", None)
                    probe["then"] = second
            console = console_errors(browser.events)
            if "clip" in probe:
                x, y, w, h = probe.pop("clip")
                shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                               "clip": {"x": x, "y": y, "width": max(w, 1),
                                                                        "height": max(min(h, 2400), 1), "scale": 1}},
                                    session=session)
                with open(os.path.join(shots, f"{n}.png"), "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            ok = ok and probe.get("state") in (("ready", "done", "error") if check.startswith("EARLY ") else ("done", "error"))
            print(json.dumps(dict(check=sys.argv[3 + n], console=console, **probe),
                             ensure_ascii=False), flush=True)
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
