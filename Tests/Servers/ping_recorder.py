#!/usr/bin/env python3
"""Run-monitoring test server (standard library only) for Hearth's scheduler tests.

Usage: ping_recorder.py
Listens on 127.0.0.1 on a free port, prints the port on stdout when ready, answers every
request 200 "OK" and remembers its method and path; `GET /_seen` returns them as a JSON list of
"METHOD PATH" strings (and is not itself remembered). A path starting with /down answers 503.
Exits when its stdin closes (the test process went away).
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True

SEEN = []
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def _reply(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain" if status != 200 or not body.startswith(b"[") else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_seen":
            with LOCK:
                body = json.dumps(SEEN).encode()
            self._reply(200, body)
            return
        with LOCK:
            SEEN.append(f"{self.command} {self.path}")
        self._reply(503 if self.path.startswith("/down") else 200, b"OK")

    do_POST = do_HEAD = do_GET


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # returns when the test process closes our stdin or exits


if __name__ == "__main__":
    main()
