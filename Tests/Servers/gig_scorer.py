#!/usr/bin/env python3
"""A stand-in external gig scorer for the gig-quality-score tests (standard library only).

Usage: gig_scorer.py [PORT]   (default 0: any free port)
Listens on 127.0.0.1 and prints the port on stdout, alone on a line, once it is ready.

Routes (POST, body = the gig as JSON):
  /valid        200 {"score": 42, "reasons": ["ai_unclear_role", "id:<id>", "keys:<k1,k2,...>"]}
                (415 unless Content-Type is application/json; 400 unless the body is an object)
  /slow?s=N     sleeps N seconds (default 5), then answers like /valid
  /error        500 {"error": "scorer crashed"}
  /malformed    200 with a truncated JSON body
  /out-of-range 200 {"score": 140, "reasons": []}
  /track        sleeps 0.1 s, then answers like /valid
GET /stats      {"requests": N, "inFlight": I, "maxInFlight": M}: POSTs received, POSTs not
                answered yet, and the most answered at once
"""
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

lock = threading.Lock()
stats = {"requests": 0, "inFlight": 0, "maxInFlight": 0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        if urlparse(self.path).path == "/stats":
            with lock:
                self.answer(200, dict(stats))
        else:
            self.answer(404, {"error": "not found"})

    def valid(self, body):
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            return self.answer(415, {"error": "expected application/json"})
        try:
            gig = json.loads(body)
        except ValueError:
            return self.answer(400, {"error": "body is not JSON"})
        if not isinstance(gig, dict):
            return self.answer(400, {"error": "expected a JSON object"})
        keys = ",".join(gig.keys())
        self.answer(200, {"score": 42, "reasons": ["ai_unclear_role", "id:%s" % gig.get("id"), ("keys:" + keys)[:100]]})

    def do_POST(self):
        with lock:
            stats["requests"] += 1
            stats["inFlight"] += 1
            stats["maxInFlight"] = max(stats["maxInFlight"], stats["inFlight"])
        try:
            self.route()
        finally:
            with lock:
                stats["inFlight"] -= 1

    def route(self):
        url = urlparse(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if url.path == "/valid":
            self.valid(body)
        elif url.path == "/slow":
            seconds = float(parse_qs(url.query).get("s", ["5"])[0])
            time.sleep(seconds)
            self.valid(body)
        elif url.path == "/error":
            self.answer(500, {"error": "scorer crashed"})
        elif url.path == "/malformed":
            self.answer(200, b'{"score": 88, "reasons": ["trunc')
        elif url.path == "/out-of-range":
            self.answer(200, {"score": 140, "reasons": []})
        elif url.path == "/track":
            time.sleep(0.1)
            self.valid(body)
        else:
            self.answer(404, {"error": "not found"})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def exit_with_parent(parent):
    """Exits when the process that started us is gone (a crashed test leaves no server)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


def main():
    # A child inherits the signal mask of the thread that spawned it; a test runner may have
    # blocked SIGTERM there. Unblock everything so `terminate()` works.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = Server(("127.0.0.1", port), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
