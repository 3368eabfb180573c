"""Scripted routes shared by the local test servers (HTTP/1.1 and HTTP/2).

Each server turns a request into `handle(...)`'s Reply and writes it in its own protocol.
Routes:
  /echo[?...]       200, JSON {method, path, authority, headers, body, bodyLength}
  /status/N         status N, body "status N"
  /slow?ms=N        waits N ms, then 200 "slow done"
  /slow?afterStatus=N&ms=M
                    waits until N /status/... requests were answered, then M ms more (for
                    their replies to be written), then 200 "slow done"; at most 30 s
  /retry-after      429 with Retry-After: 7
  /reset            starts a 200 response promising 1000 bytes, sends 100, then resets
  /redirect         302 with Location: /status/200 (must not be followed)
  /stats            200, JSON {connections, requests} seen so far by this server
anything else       404
"""
import json
import os
import threading
from urllib.parse import parse_qs, urlsplit


class Stats:
    def __init__(self):
        self._lock = threading.Lock()
        self.connections = 0
        self.requests = 0
        self.status_answered = 0

    def connection_opened(self):
        with self._lock:
            self.connections += 1

    def request_seen(self):
        with self._lock:
            self.requests += 1

    def status_answer(self):
        with self._lock:
            self.status_answered += 1


class Reply:
    def __init__(self, status, body=b"", headers=None, delay_ms=0, reset=False):
        self.status = status
        self.body = body
        self.headers = headers or []
        self.delay_ms = delay_ms
        self.reset = reset
        # A condition the server waits for (polling, at most 30 s) before delay_ms.
        self.wait_until = None


def text(status, message, headers=None):
    return Reply(status, message.encode(), [("content-type", "text/plain")] + (headers or []))


def handle(method, target, authority, headers, body, stats):
    """headers: list of (lower-case name, value) str pairs; body: bytes."""
    stats.request_seen()
    parts = urlsplit(target)
    path = parts.path
    query = parse_qs(parts.query)
    if path == "/echo":
        merged = {}
        for name, value in headers:
            merged[name] = value if name not in merged else merged[name] + ", " + value
        payload = {
            "method": method,
            "path": target,
            "authority": authority,
            "headers": merged,
            "body": body.decode("utf-8", errors="replace"),
            "bodyLength": len(body),
        }
        return Reply(200, json.dumps(payload, sort_keys=True).encode(), [("content-type", "application/json")])
    if path.startswith("/status/"):
        stats.status_answer()
        try:
            code = int(path[len("/status/"):])
        except ValueError:
            return text(400, "bad status")
        if code in (204, 304) or code < 200:
            return Reply(code)  # these statuses carry no body
        return text(code, "status %d" % code)
    if path == "/slow":
        ms = int(query.get("ms", ["1000"])[0])
        reply = text(200, "slow done")
        reply.delay_ms = ms
        if "afterStatus" in query:
            wanted = int(query["afterStatus"][0])
            reply.wait_until = lambda: stats.status_answered >= wanted
        return reply
    if path == "/retry-after":
        return text(429, "slow down", [("retry-after", "7")])
    if path == "/reset":
        return Reply(200, b"x" * 100, [("content-type", "text/plain")], reset=True)
    if path == "/redirect":
        return text(302, "moved", [("location", "/status/200")])
    if path == "/stats":
        payload = {"connections": stats.connections, "requests": stats.requests - 1}
        return Reply(200, json.dumps(payload, sort_keys=True).encode(), [("content-type", "application/json")])
    return text(404, "no route for " + path)


def exit_when_parent_goes(exit_function):
    """The test process keeps our stdin open; EOF means it is gone, so stop too."""
    import sys

    def watch():
        try:
            while sys.stdin.buffer.read(1024):
                pass
        except Exception:
            pass
        exit_function()

    threading.Thread(target=watch, daemon=True).start()


def serve_until_parent_goes(server):
    """Prints the server's port (what the test waits for), then serves until the test process
    goes away (see exit_when_parent_goes)."""
    exit_when_parent_goes(lambda: os._exit(0))
    print(server.server_address[1], flush=True)
    server.serve_forever()
