"""A minimal HTTP/2-over-TLS server for the fake push services (needs PyPI's `h2`).

`serve(handler)` parses --cert/--key/--port, listens on 127.0.0.1 offering only `h2` through
ALPN, prints the port on stdout when ready, and calls `handler(method, path, authority,
headers, body)` for each complete request; the handler returns (status, headers, body bytes[, delay seconds]).
It exits when its stdin closes (the test process went away).
"""
import argparse
import asyncio
import os
import ssl
import sys
import threading

import h2.config
import h2.connection
import h2.events
import h2.exceptions


class H2ServerProtocol(asyncio.Protocol):
    """The HTTP/2 plumbing both test servers share (this one and h2_test_server.py): frames in,
    complete requests out. Subclasses implement `request_complete(stream_id, raw_headers,
    body)` and may override `stream_reset(stream_id)` and `window_updated()`."""

    max_concurrent_streams = None

    def connection_made(self, transport):
        self.transport = transport
        self.conn = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        if self.max_concurrent_streams:
            self.conn.local_settings.max_concurrent_streams = self.max_concurrent_streams
        self.conn.initiate_connection()
        self.requests = {}  # stream id -> (headers, bytearray)
        self.flush()

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
                    raw, body = self.requests.pop(event.stream_id)
                    self.request_complete(event.stream_id, raw, bytes(body))
            elif isinstance(event, h2.events.StreamReset):
                self.requests.pop(event.stream_id, None)
                self.stream_reset(event.stream_id)
            elif isinstance(event, h2.events.WindowUpdated):
                self.window_updated()
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.flush()
                self.transport.close()
                return
        self.flush()

    def request_complete(self, stream_id, raw_headers, body):
        raise NotImplementedError

    def stream_reset(self, stream_id):
        pass

    def window_updated(self):
        pass


def split_headers(raw):
    """(pseudo-headers dict, regular headers lower-cased) of a request."""
    pseudo = {k: v for k, v in raw if k.startswith(":")}
    return pseudo, [(k.lower(), v) for k, v in raw if not k.startswith(":")]


async def start_tls_server(protocol_factory, cert, key, port, backlog):
    """Listens on 127.0.0.1 offering only `h2` through ALPN; prints the port when ready."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["h2"])
    server = await asyncio.get_running_loop().create_server(protocol_factory, "127.0.0.1", port, ssl=context, backlog=backlog)
    print(server.sockets[0].getsockname()[1], flush=True)
    return server


class _Protocol(H2ServerProtocol):
    handler = None
    max_concurrent_streams = 1000

    def request_complete(self, stream_id, raw, body):
        self.respond(stream_id, raw, body)

    def respond(self, stream_id, raw, body):
        pseudo, headers = split_headers(raw)
        delay = 0
        try:
            answer = type(self).handler(
                pseudo.get(":method", ""), pseudo.get(":path", ""), pseudo.get(":authority", ""), headers, body)
            status, extra, out = answer[:3]
            if len(answer) > 3:
                delay = answer[3]
        except Exception as e:  # a bug in the fake: make it visible to the test
            status, extra, out = 599, [("content-type", "text/plain")], ("fake server error: %r" % (e,)).encode()
        if delay:
            asyncio.get_running_loop().call_later(delay, self.send_reply, stream_id, status, extra, out)
        else:
            self.send_reply(stream_id, status, extra, out)

    def send_reply(self, stream_id, status, extra, out):
        if self.transport.is_closing():
            return
        try:
            self.conn.send_headers(
                stream_id, [(":status", str(status)), ("content-length", str(len(out)))] + extra, end_stream=not out)
            if out:
                # Bodies are small; one frame within the default window is enough.
                self.conn.send_data(stream_id, out, end_stream=True)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError, h2.exceptions.FlowControlError):
            pass
        self.flush()


def _exit_when_stdin_closes():
    def watch():
        try:
            while sys.stdin.buffer.read(1):
                pass
        except Exception:
            pass
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


def serve(handler, extra_arguments=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--port", type=int, default=0)
    for name, kwargs in (extra_arguments or []):
        parser.add_argument(name, **kwargs)
    args = parser.parse_args()

    async def main():
        _Protocol.handler = staticmethod(handler(args))
        _exit_when_stdin_closes()
        server = await start_tls_server(_Protocol, args.cert, args.key, args.port, backlog=512)
        async with server:
            await server.serve_forever()

    asyncio.run(main())
