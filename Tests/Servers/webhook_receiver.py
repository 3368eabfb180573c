#!/usr/bin/env python3
"""Standard Webhooks receiver (standard library only) for Hearth's outbox tests.

Usage: webhook_receiver.py --secret SECRET [--port N]

SECRET is the signing secret exactly as Hearth is configured with it: `whsec_<base64 key>` or
a plain secret (its UTF-8 bytes are the key). Listens on 127.0.0.1 (port 0 = a free one),
prints the port on stdout when ready, and exits when its stdin closes (the test process went
away).

Every POST is verified independently of Hearth with Python's hmac (signature over
"<webhook-id>.<webhook-timestamp>.<body>", timestamp within 5 minutes) and recorded. The
first path segment scripts the answer:

  /ok/...                  200
  /gone/...                410
  /ratelimit/...?after=S   429 with Retry-After: S (default 7)
  /ratelimit-date/...?after=S  429 with Retry-After as an HTTP date S seconds ahead
  /error/...               500
  /unavailable/...         503
  /slow/...?ms=N           waits N ms (default 1000), then 200
  /reset/...               starts a 200 promising 1000 bytes, sends 10, then resets the connection
  /redirect/...            302 to /ok/redirected (must not be followed)
  /flaky/...?fail=N        503 for the first N requests with a given webhook-id, then 200

GET /_received returns the records as a JSON array, in arrival order:
  {"path", "id", "timestamp", "signatureValid", "timestampFresh", "contentType", "type",
   "eventTimestamp", "data", "body", "receivedAt", "completedAt", "status"}
(`receivedAt` / `completedAt` are Unix times in seconds as floats; `status` is the answer
given, "reset" for a reset, null while a slow answer is still pending.)
"""
import argparse
import base64
import email.utils
import hashlib
import hmac
import json
import os
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOCK = threading.Lock()
RECORDS = []
ATTEMPTS_BY_ID = {}
KEY = b""
TOLERANCE_SECONDS = 300


def key_from_secret(secret):
    if secret.startswith("whsec_"):
        return base64.b64decode(secret[len("whsec_"):])
    return secret.encode("utf-8")


def signature_valid(msg_id, timestamp, body, header):
    if not msg_id or not timestamp or not header:
        return False
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(KEY, signed, hashlib.sha256).digest()).decode()
    for candidate in header.split(" "):
        version, _, value = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return True
    return False


def timestamp_fresh(timestamp):
    try:
        return abs(time.time() - int(timestamp)) <= TOLERANCE_SECONDS
    except (TypeError, ValueError):
        return False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def _reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if urlsplit(self.path).path == "/_received":
            with LOCK:
                body = json.dumps(RECORDS).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self._reply(404, b"not found")

    def do_POST(self):
        received = time.time()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        kind = parts.path.strip("/").split("/")[0]
        msg_id = self.headers.get("webhook-id")
        timestamp = self.headers.get("webhook-timestamp")
        record = {
            "path": self.path,
            "id": msg_id,
            "timestamp": timestamp,
            "signatureValid": signature_valid(msg_id, timestamp, body, self.headers.get("webhook-signature")),
            "timestampFresh": timestamp_fresh(timestamp),
            "contentType": self.headers.get("Content-Type"),
            "type": None,
            "eventTimestamp": None,
            "data": None,
            "body": body.decode("utf-8", errors="replace"),
            "receivedAt": received,
            "completedAt": None,
            "status": None,
        }
        try:
            event = json.loads(body)
            record["type"] = event.get("type")
            record["eventTimestamp"] = event.get("timestamp")
            record["data"] = event.get("data")
        except (ValueError, AttributeError):
            pass
        with LOCK:
            RECORDS.append(record)
            ATTEMPTS_BY_ID[(kind, msg_id)] = ATTEMPTS_BY_ID.get((kind, msg_id), 0) + 1
            attempt = ATTEMPTS_BY_ID[(kind, msg_id)]

        def done(status):
            with LOCK:
                record["status"] = str(status)
                record["completedAt"] = time.time()

        after = int(query.get("after", ["7"])[0])
        if kind == "ok":
            done(200)
            self._reply(200, b"ok")
        elif kind == "gone":
            done(410)
            self._reply(410, b"gone")
        elif kind == "ratelimit":
            done(429)
            self._reply(429, b"slow down", [("Retry-After", str(after))])
        elif kind == "ratelimit-date":
            done(429)
            self._reply(429, b"slow down", [("Retry-After", email.utils.formatdate(time.time() + after, usegmt=True))])
        elif kind == "error":
            done(500)
            self._reply(500, b"internal error")
        elif kind == "unavailable":
            done(503)
            self._reply(503, b"unavailable")
        elif kind == "slow":
            time.sleep(int(query.get("ms", ["1000"])[0]) / 1000.0)
            done(200)
            self._reply(200, b"slow ok")
        elif kind == "reset":
            done("reset")
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n0123456789")
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        elif kind == "redirect":
            done(302)
            self._reply(302, b"moved", [("Location", "/ok/redirected")])
        elif kind == "flaky":
            fail = int(query.get("fail", ["1"])[0])
            status = 503 if attempt <= fail else 200
            done(status)
            self._reply(status, b"flaky")
        else:
            done(404)
            self._reply(404, b"no route")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass  # clients that go away mid-request are part of the tests


def exit_when_parent_goes():
    def watch():
        try:
            import sys
            while sys.stdin.buffer.read(1024):
                pass
        except Exception:
            pass
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def main():
    global KEY
    parser = argparse.ArgumentParser()
    parser.add_argument("--secret", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    KEY = key_from_secret(args.secret)
    server = Server(("127.0.0.1", args.port), Handler)
    exit_when_parent_goes()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
