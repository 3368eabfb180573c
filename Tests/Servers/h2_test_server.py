#!/usr/bin/env python3
"""HTTP/2-over-TLS test server for Hearth's outbound tests (needs PyPI's `h2`).

Usage: h2_test_server.py --cert server.pem --key server.key [--port N]
Listens on 127.0.0.1 (port 0 = a free one), offers only `h2` through ALPN, prints the port on
stdout when ready, serves the routes in test_routes.py (/stats counts TLS connections), and
exits when its stdin closes (the test process went away) or on SIGTERM.
"""
import argparse
import asyncio
import os
import ssl
import sys

import h2.config
import h2.connection
import h2.events
import h2.exceptions

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_routes  # noqa: E402

STATS = test_routes.Stats()


class H2Protocol(asyncio.Protocol):
    def connection_made(self, transport):
        STATS.connection_opened()
        self.transport = transport
        self.conn = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        )
        self.conn.initiate_connection()
        self.flush()
        self.requests = {}  # stream id -> (headers, bytearray)
        self.window_open = {}  # stream id -> asyncio.Event

    def connection_lost(self, exc):
        for event in self.window_open.values():
            event.set()

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.transport.is_closing():
            self.transport.write(data)

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.flush()
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.requests[event.stream_id] = (event.headers, bytearray())
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self.requests:
                    self.requests[event.stream_id][1].extend(event.data)
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                if event.stream_id in self.requests:
                    headers, body = self.requests.pop(event.stream_id)
                    asyncio.get_running_loop().create_task(self.respond(event.stream_id, headers, bytes(body)))
            elif isinstance(event, h2.events.StreamReset):
                self.requests.pop(event.stream_id, None)
                if event.stream_id in self.window_open:
                    self.window_open[event.stream_id].set()
            elif isinstance(event, h2.events.WindowUpdated):
                for waiting in self.window_open.values():
                    waiting.set()
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.flush()
                self.transport.close()
                return
        self.flush()

    async def respond(self, stream_id, raw_headers, body):
        pseudo = {name: value for name, value in raw_headers if name.startswith(":")}
        headers = [(name.lower(), value) for name, value in raw_headers if not name.startswith(":")]
        reply = test_routes.handle(
            pseudo.get(":method", ""), pseudo.get(":path", ""), pseudo.get(":authority", ""), headers, body, STATS
        )
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
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
    context.set_alpn_protocols(["h2"])
    loop = asyncio.get_running_loop()
    server = await loop.create_server(H2Protocol, "127.0.0.1", args.port, ssl=context, backlog=256)
    test_routes.exit_when_parent_goes(lambda: os._exit(0))
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
