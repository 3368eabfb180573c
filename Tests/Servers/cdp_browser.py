"""Drives headless Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe):
no websocket library, no driver binary. Reads a JSON list of steps on stdin, prints a JSON
list of results (one per step) on stdout.

Steps:
  {"go": URL}                         navigate, wait for the load
  {"fill": SELECTOR, "value": TEXT}   set an input's value (as typing would)
  {"click": SELECTOR}                 click an element, wait for the page it loads
  {"eval": EXPRESSION}                the expression's value
  {"text": true}                      the page's URL, status-free text and HTML
  {"screenshot": PATH, "width": W}    a PNG of the whole page, W CSS pixels wide
  {"waitText": TEXT, "go": URL, "timeout": S}  reload URL until its text contains TEXT
Used by Tests/EndToEndTests/OperationsEndToEndTests.swift."""
import json, os, subprocess, sys, time

browser, profile = sys.argv[1], sys.argv[2]
steps = json.load(sys.stdin)

to_child_r, to_child_w = os.pipe()
from_child_r, from_child_w = os.pipe()

def child_fds():
    os.dup2(to_child_r, 3)
    os.dup2(from_child_w, 4)

proc = subprocess.Popen(
    [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
     "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
    pass_fds=(3, 4), preexec_fn=child_fds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_child_r)
os.close(from_child_w)
out = os.fdopen(to_child_w, "wb", buffering=0)
inp = os.fdopen(from_child_r, "rb", buffering=0)
buf = b""
next_id = 0
events = []

def read_message():
    global buf
    while b"\0" not in buf:
        chunk = inp.read(65536)
        if not chunk:
            raise RuntimeError("chromium closed the pipe")
        buf += chunk
    msg, buf = buf.split(b"\0", 1)
    return json.loads(msg)

def call(method, params=None, session=None):
    global next_id
    next_id += 1
    m = {"id": next_id, "method": method, "params": params or {}}
    if session:
        m["sessionId"] = session
    out.write(json.dumps(m).encode() + b"\0")
    while True:
        r = read_message()
        if r.get("id") == next_id:
            if "error" in r:
                raise RuntimeError(method + ": " + json.dumps(r["error"]))
            return r.get("result", {})
        events.append(r)

def wait_event(name, session, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for i, e in enumerate(events):
            if e.get("method") == name and e.get("sessionId") == session:
                del events[: i + 1]
                return e
        events.append(read_message())
    raise RuntimeError("timed out waiting for " + name)

results = []
try:
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    call("Page.enable", session=session)

    def evaluate(expr):
        r = call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True}, session)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate " + expr + ": " + json.dumps(r["exceptionDetails"]))
        return r["result"].get("value")

    def go(url):
        events.clear()
        call("Page.navigate", {"url": url}, session)
        wait_event("Page.loadEventFired", session)

    def page():
        return {"url": evaluate("location.href"), "text": evaluate("document.body ? document.body.innerText : ''"),
                "html": evaluate("document.documentElement.outerHTML")}

    for step in steps:
        if "waitText" in step:
            deadline = time.time() + step.get("timeout", 30)
            while True:
                go(step["go"])
                p = page()
                if step["waitText"] in p["text"] or time.time() > deadline:
                    results.append(p)
                    break
                time.sleep(0.3)
        elif "go" in step:
            go(step["go"])
            results.append(page())
        elif "fill" in step:
            results.append(evaluate("(() => { const e = document.querySelector(%s); e.value = %s; return e.value; })()"
                                    % (json.dumps(step["fill"]), json.dumps(step["value"]))))
        elif "click" in step:
            events.clear()
            evaluate("document.querySelector(%s).click()" % json.dumps(step["click"]))
            wait_event("Page.loadEventFired", session)
            results.append(page())
        elif "eval" in step:
            results.append(evaluate(step["eval"]))
        elif "text" in step:
            results.append(page())
        elif "screenshot" in step:
            import base64
            height = evaluate("document.documentElement.scrollHeight")
            call("Emulation.setDeviceMetricsOverride", {"width": step.get("width", 800), "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
            shot = call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session)
            with open(step["screenshot"], "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            results.append(step["screenshot"])
    print(json.dumps(results))
finally:
    try:
        call("Browser.close")
    except Exception:
        pass
    try:
        proc.wait(timeout=10)
    except Exception:
        proc.kill()
