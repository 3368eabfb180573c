#!/usr/bin/env python3
"""Serves signing-key documents (JWKS, certificate maps) from a directory, counting fetches,
for Hearth's ID-token tests (standard library only).

Usage: key_server.py --dir DIR [--port N]
Listens on 127.0.0.1 (port 0 = a free one), prints the port on stdout when ready, and exits when
its stdin closes (the test process went away).

  GET /NAME           200 with DIR/NAME's bytes (404 when it does not exist). DIR/NAME.cache-control,
                      when it exists, is sent as the Cache-Control header; DIR/NAME.delay-ms makes
                      the answer wait that many milliseconds. Counted as a fetch of NAME.
  GET /_fetches/NAME  200, how many times NAME was fetched so far (text)
"""
import argparse
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_routes  # noqa: E402
from http_test_server import Server  # noqa: E402

LOCK = threading.Lock()
FETCHES = {}
DIRECTORY = "."


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def answer(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        name = self.path.lstrip("/")
        if name.startswith("_fetches/"):
            with LOCK:
                count = FETCHES.get(name[len("_fetches/"):], 0)
            return self.answer(200, str(count).encode(), [("Content-Type", "text/plain")])
        if "/" in name or name.startswith("."):
            return self.answer(404, b"no such document")
        with LOCK:
            FETCHES[name] = FETCHES.get(name, 0) + 1
        base = os.path.join(DIRECTORY, name)
        delay = read(base + ".delay-ms")
        if delay:
            time.sleep(int(delay) / 1000.0)
        body = read(base)
        if body is None:
            return self.answer(404, b"no such document")
        headers = [("Content-Type", "application/json")]
        cache_control = read(base + ".cache-control")
        if cache_control is not None:
            headers.append(("Cache-Control", cache_control.decode().strip()))
        self.answer(200, body, headers)


def main():
    global DIRECTORY
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    DIRECTORY = args.dir
    test_routes.serve_until_parent_goes(Server(("127.0.0.1", args.port), Handler))


if __name__ == "__main__":
    main()
