#!/usr/bin/env python3
"""tests/book_check.py — checks the companion pages (out/book/, tools/programs/book/pages.h) as a reader
meets them: statically, then in headless Chromium.

    python3 tests/book_check.py BOOK_DIR SCREENSHOT_DIR [CHROMIUM | --static-only]

Static checks, every page: parsed by a strict XML parser (the pages are XHTML-compatible),
under 2 MB, no inline script, no external file, font or stylesheet (the live panels' scripts
and style are files in BOOK_DIR; an https link to follow, such as the book's section online,
is allowed: nothing is loaded from it), and every internal link (href="#id",
href="page.html#id", src="figures/...", src="panels.js") resolves. Then one Chromium, started
once for all pages (driven over --remote-debugging-pipe, the DevTools protocol as
NUL-terminated JSON on fds 3 and 4), opens every page: no console error, no uncaught
exception, no failed load; every <img> and every <svg> has a non-zero size; a screenshot of
the top of each page at 1280 px (<page>.png), and of its last figure (a heatmap on most pages)
(<page>-figure.png), goes to SCREENSHOT_DIR. Then each page again at a phone's width, 400 px:
it must not scroll sideways (document.documentElement.scrollWidth at most the viewport's; only
boxes that scroll by themselves, code, printed output and tables, may be wider), and the
failure names the elements that stick out; its screenshot is <page>-400.png. Exit status 0 when
all hold, 1 with one line per failure, 77 when Chromium is not installed (the suite reports
the test as skipped).
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

XHTML = "{http://www.w3.org/1999/xhtml}"
MAX_BYTES = 2 * 1024 * 1024
failures = []


def fail(msg):
    failures.append(msg)


def static_checks(book):
    pages = sorted(f for f in os.listdir(book) if f.endswith(".html"))
    if "index.html" not in pages:
        fail(f"{book}: no index.html")
    ids, links = {}, []
    for page in pages:
        path = os.path.join(book, page)
        size = os.path.getsize(path)
        if size >= MAX_BYTES:
            fail(f"{page}: {size} bytes, not under 2 MB")
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            fail(f"{page}: not well-formed: {e}")
            continue
        ids[page] = {el.get("id") for el in root.iter() if el.get("id") is not None}
        for el in root.iter():
            tag = el.tag.split("}")[-1]
            # The live panels' scripts and style (tools/browser/) are files beside the pages:
            # a <script> names one (checked below as a link), it never holds code itself.
            if tag == "script" and (not el.get("src") or (el.text or "").strip()):
                fail(f"{page}: has an inline <script>")
            if tag == "link" and el.get("href") and el.get("rel") != "stylesheet":
                fail(f"{page}: links an external file {el.get('href')}")
            for attr in ("href", "src", "{http://www.w3.org/1999/xlink}href"):
                v = el.get(attr)
                if v is None or v.startswith("data:"):
                    continue
                if tag == "a" and attr == "href" and re.match(r"^https://", v):
                    continue  # a link the reader may follow (the book's section online), nothing loaded
                if re.match(r"^[a-z]+:|^//", v):
                    fail(f"{page}: external reference {v}")
                else:
                    links.append((page, v))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if re.search(r"@import|@font-face|url\((?!#)", text):
            fail(f"{page}: the style loads an outside file")
    for page, v in links:
        target, _, frag = v.partition("#")
        target = target or page
        if not os.path.exists(os.path.join(book, target)):
            fail(f"{page}: link {v}: {target} does not exist")
        elif frag and frag not in ids.get(target, set()):
            fail(f"{page}: link {v}: no id '{frag}' in {target}")
    return pages, sum(1 for _ in links)


class Chromium:
    """One headless Chromium driven over --remote-debugging-pipe."""

    def __init__(self, exe, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()

        def child_fds():  # the protocol reads fd 3 and writes fd 4
            a, b = os.dup(cmd_r), os.dup(resp_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--hide-scrollbars", "--remote-debugging-pipe",
                f"--user-data-dir={profile}", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=child_fds, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(resp_w)
        self.buf, self.next_id, self.events = b"", 0, []

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self.resp_r, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=30):
        deadline = time.time() + timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                del self.events[i]
                return m
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


PROBE = """(() => {
  const out = {imgs: [], svgs: [], tips: 0, nav: 0};
  for (const i of document.images) out.imgs.push([i.getAttribute('src'), i.complete, i.naturalWidth, i.naturalHeight]);
  for (const s of document.querySelectorAll('body > section svg, figure > svg')) {
    const r = s.getBoundingClientRect();
    out.svgs.push([s.getAttribute('aria-label'), r.width, r.height]);
  }
  out.tips = document.querySelectorAll('svg rect > title').length;
  const all = document.querySelectorAll('figure'), f = all[all.length - 1];
  if (f) { const r = f.getBoundingClientRect(); out.fig = [r.x, r.y + window.scrollY, r.width, r.height]; }
  out.height = document.documentElement.scrollHeight;
  return JSON.stringify(out);
})()"""


# At a phone's width: how far the page scrolls sideways, and the outermost elements that
# stick out of the viewport without being inside a box that scrolls by itself.
WIDTH_PROBE = """(() => {
  const vw = document.documentElement.clientWidth, bad = [];
  const scrolls = e => { const o = getComputedStyle(e).overflowX; return o === 'auto' || o === 'scroll'; };
  for (const e of document.body.querySelectorAll('*')) {
    // its box, or its content overflowing a box that does not scroll (a line that cannot wrap)
    const right = Math.max(e.getBoundingClientRect().right, e.getBoundingClientRect().left + e.scrollWidth);
    if (right <= vw + 0.5) continue;
    let p = e.parentElement, inside = false;
    for (; p && p !== document.body; p = p.parentElement) if (scrolls(p)) { inside = true; break; }
    if (inside || scrolls(e)) continue;
    const parentOut = e.parentElement && e.parentElement !== document.body &&
                      e.parentElement.getBoundingClientRect().right > vw + 0.5;
    if (!parentOut) bad.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
                             (e.className && typeof e.className === 'string' ? '.' + e.className : '') +
                             ' (right edge ' + Math.round(right) + ' px)');
  }
  return JSON.stringify({scroll: document.documentElement.scrollWidth, view: vw, bad: bad.slice(0, 4)});
})()"""

PHONE, DESKTOP = 400, 1280


def set_width(browser, session, width):
    browser.send("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width <= PHONE},
                 session=session)


def browser_checks(book, pages, shots, exe):
    profile = tempfile.mkdtemp(prefix="book-chromium-")
    os.makedirs(shots, exist_ok=True)
    browser = Chromium(exe, profile)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            browser.send(method, session=session)
        summary = []
        for page in pages:
            set_width(browser, session, DESKTOP)
            browser.events.clear()
            url = "file://" + os.path.abspath(os.path.join(book, page))
            nav = browser.send("Page.navigate", {"url": url}, session=session)
            if nav.get("errorText"):
                fail(f"{page}: cannot open: {nav['errorText']}")
                continue
            browser.wait_event("Page.loadEventFired")
            res = browser.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=session)
            probe = json.loads(res["result"]["value"])
            for m in browser.events:  # everything the page reported while it loaded
                p = m.get("params", {})
                if m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                    fail(f"{page}: console error: {p.get('args')}")
                elif m.get("method") == "Runtime.exceptionThrown":
                    fail(f"{page}: exception: {p.get('exceptionDetails', {}).get('text')}")
                elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                    fail(f"{page}: {p['entry'].get('source')} error: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            for src, complete, w, h in probe["imgs"]:
                if not complete or w == 0 or h == 0:
                    fail(f"{page}: image {src} did not load ({w} x {h})")
            for label, w, h in probe["svgs"]:
                if w <= 0 or h <= 0:
                    fail(f"{page}: SVG {label} has no size ({w} x {h})")
            shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
            name = page[:-5]
            with open(os.path.join(shots, name + ".png"), "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            if "fig" in probe:
                x, y, w, h = probe["fig"]
                clip = {"x": x, "y": y, "width": max(w, 1), "height": max(min(h, 1400), 1), "scale": 1}
                shot = browser.send("Page.captureScreenshot", {"format": "png", "clip": clip,
                                                               "captureBeyondViewport": True}, session=session)
                with open(os.path.join(shots, name + "-figure.png"), "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            # The same page at a phone's width: nothing but a code or table box scrolls sideways.
            set_width(browser, session, PHONE)
            browser.send("Page.reload", session=session)
            browser.wait_event("Page.loadEventFired")
            res = browser.send("Runtime.evaluate", {"expression": WIDTH_PROBE, "returnByValue": True},
                               session=session)
            width = json.loads(res["result"]["value"])
            if width["scroll"] > width["view"]:
                fail(f"{page}: at {PHONE} px the page is {width['scroll']} px wide (scrolls sideways): "
                     + ", ".join(width["bad"]))
            shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
            with open(os.path.join(shots, name + f"-{PHONE}.png"), "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            summary.append(f"{page}: {len(probe['imgs'])} images, {len(probe['svgs'])} SVGs, "
                           f"{probe['tips']} cell tooltips, {probe['height']} px tall, "
                           f"{width['scroll']} px wide at {PHONE} px")
        return summary
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    book, shots = sys.argv[1], sys.argv[2]
    exe = sys.argv[3] if len(sys.argv) == 4 else (shutil.which("chromium") or shutil.which("chromium-browser"))
    if exe == "--static-only":
        exe = None
    pages, nlinks = static_checks(book)
    print(f"static: {len(pages)} pages, {nlinks} internal links and sources checked")
    if not exe:
        print("browser checks skipped: " + ("--static-only" if len(sys.argv) == 4 else
                                           "no chromium found (tools/scripts/install_deps.sh --browser installs it)"))
        for f in failures:
            print("FAIL " + f)
        return 1 if failures else 77
    for line in browser_checks(book, pages, shots, exe):
        print(line)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
