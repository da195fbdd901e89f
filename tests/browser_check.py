#!/usr/bin/env python3
"""tests/browser_check.py — runs the companion pages' live panels (tools/browser/) in headless
Chromium, opened from file:// with their state in the URL fragment, as a reader's link opens them.

    python3 tests/browser_check.py BOOK_DIR SCREENSHOT_DIR PAGE#FRAGMENT=SELECTOR ...

For each argument: opens BOOK_DIR/PAGE#FRAGMENT (after about:blank, so the page loads again),
waits until the live panel holding SELECTOR (else the page's first) has finished (data-state
"done" or "error", at most 60 s), and prints one line of JSON: {"check": argument, "state",
"text": the text of SELECTOR, "error": the panel's error text, "time": its timing text,
"console": the page's console errors}. A screenshot of the panel goes to SCREENSHOT_DIR/<n>.png. Exit status 0 when every page
answered (the caller compares the texts), 1 otherwise, 77 when Chromium is not installed.
"""
import base64
import json
import os
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
        for n, check in enumerate(checks):
            url_part, _, selector = check.rpartition("=")
            browser.send("Page.navigate", {"url": "about:blank"}, session=session)
            browser.wait_event("Page.loadEventFired")
            browser.events.clear()
            url = "file://" + os.path.abspath(os.path.join(book, url_part.split("#")[0]))
            if "#" in url_part:
                url += "#" + url_part.split("#", 1)[1]
            browser.send("Page.navigate", {"url": url}, session=session)
            browser.wait_event("Page.loadEventFired", timeout=60)
            deadline, probe = time.time() + 60, {}
            while time.time() < deadline:
                res = browser.send("Runtime.evaluate", {"expression": PROBE % (json.dumps(selector), json.dumps(selector)),
                                                        "returnByValue": True}, session=session)
                probe = json.loads(res["result"]["value"])
                if probe.get("state") in ("done", "error", "no panel"):
                    break
                time.sleep(0.1)
            console = []
            for m in browser.events:
                p = m.get("params", {})
                if m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                    console.append(str(p.get("args")))
                elif m.get("method") == "Runtime.exceptionThrown":
                    console.append(str(p.get("exceptionDetails", {}).get("text")))
            if "clip" in probe:
                x, y, w, h = probe.pop("clip")
                shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                               "clip": {"x": x, "y": y, "width": max(w, 1),
                                                                        "height": max(min(h, 2400), 1), "scale": 1}},
                                    session=session)
                with open(os.path.join(shots, f"{n}.png"), "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            ok = ok and probe.get("state") in ("done", "error")
            print(json.dumps(dict(check=check, console=console, **probe), ensure_ascii=False), flush=True)
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
