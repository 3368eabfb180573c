#!/usr/bin/env python3
"""HTTP/2-over-TLS test server for Hearth's outbound tests (needs PyPI's `h2`).

Usage: h2_test_server.py --cert server.pem --key server.key [--port N]
Listens on 127.0.0.1 (port 0 = a free one), offers only `h2` through ALPN, prints the port on
stdout when ready, serves the routes in test_routes.py (/stats counts TLS connections), and
exits when its stdin closes (the test process went away) or on SIGTERM.
"""
import argparse
import asyncio
import time
import os
import sys

import h2.exceptions

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import push_h2_server  # noqa: E402
import test_routes  # noqa: E402

STATS = test_routes.Stats()


class H2Protocol(push_h2_server.H2ServerProtocol):
    def connection_made(self, transport):
        STATS.connection_opened()
        self.window_open = {}  # stream id -> asyncio.Event
        super().connection_made(transport)

    def connection_lost(self, exc):
        for event in self.window_open.values():
            event.set()

    def request_complete(self, stream_id, raw_headers, body):
        asyncio.get_running_loop().create_task(self.respond(stream_id, raw_headers, body))

    def stream_reset(self, stream_id):
        if stream_id in self.window_open:
            self.window_open[stream_id].set()

    def window_updated(self):
        for waiting in self.window_open.values():
            waiting.set()

    async def respond(self, stream_id, raw_headers, body):
        pseudo, headers = push_h2_server.split_headers(raw_headers)
        reply = test_routes.handle(
            pseudo.get(":method", ""), pseudo.get(":path", ""), pseudo.get(":authority", ""), headers, body, STATS
        )
        if reply.wait_until:
            deadline = time.monotonic() + 30
            while not reply.wait_until() and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
        if reply.delay_ms:
            await asyncio.sleep(reply.delay_ms / 1000.0)
        try:
            if reply.reset:
                response_headers = [(":status", "200"), ("content-length", "1000")] + reply.headers
                self.conn.send_headers(stream_id, response_headers)
                self.conn.send_data(stream_id, reply.body)
                self.conn.reset_stream(stream_id, error_code=2)  # INTERNAL_ERROR
                self.flush()
                return
            response_headers = [(":status", str(reply.status)), ("content-length", str(len(reply.body)))]
            self.conn.send_headers(stream_id, response_headers + reply.headers, end_stream=not reply.body)
            self.flush()
            await self.send_body(stream_id, reply.body)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass  # the client reset the stream (a cancelled request)

    async def send_body(self, stream_id, body):
        offset = 0
        while offset < len(body):
            if self.transport.is_closing():
                return
            window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
            if window <= 0:
                event = self.window_open.setdefault(stream_id, asyncio.Event())
                event.clear()
                await event.wait()
                continue
            chunk = body[offset:offset + window]
            offset += len(chunk)
            self.conn.send_data(stream_id, chunk, end_stream=offset >= len(body))
            self.flush()
        self.window_open.pop(stream_id, None)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    test_routes.exit_when_parent_goes(lambda: os._exit(0))
    server = await push_h2_server.start_tls_server(H2Protocol, args.cert, args.key, args.port, backlog=256)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
