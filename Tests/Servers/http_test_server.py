#!/usr/bin/env python3
"""HTTP/1.1 test server (standard library only) for Hearth's outbound tests.

Usage: http_test_server.py [--port N]
Listens on 127.0.0.1 (port 0 = a free one), prints the port on stdout when ready, serves the
routes in test_routes.py, and exits when its stdin closes (the test process went away) or on
SIGTERM.
"""
import argparse
import os
import socket
import struct
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_routes  # noqa: E402

STATS = test_routes.Stats()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        STATS.connection_opened()

    def log_message(self, format, *args):
        pass

    def _serve(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = [(name.lower(), value) for name, value in self.headers.items()]
        reply = test_routes.handle(self.command, self.path, self.headers.get("Host", ""), headers, body, STATS)
        if reply.wait_until:
            deadline = time.monotonic() + 30
            while not reply.wait_until() and time.monotonic() < deadline:
                time.sleep(0.005)
        if reply.delay_ms:
            time.sleep(reply.delay_ms / 1000.0)
        if reply.reset:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n")
            self.wfile.write(reply.body)
            self.wfile.flush()
            # SO_LINGER with a zero timeout turns close() into a TCP reset.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass  # clients that go away mid-request are part of the tests


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    test_routes.serve_until_parent_goes(Server(("127.0.0.1", args.port), Handler))


if __name__ == "__main__":
    main()
