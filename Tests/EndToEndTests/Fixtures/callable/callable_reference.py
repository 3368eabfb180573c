#!/usr/bin/env python3
"""Firebase's own callable server, the reference of Tests/EndToEndTests/CallableProtocolTests.swift.

One function, `echo`, written with firebase-functions' `https_fn.on_call` (the Python server
library Google ships for Cloud Functions, 0.6.0) and served by Flask, as `functions-framework`
would serve it, at `/{project}/{region}/echo` and `/call/echo`. It answers as its data says:

    {"result": V}                                      returns V: 200 {"result": V}
    {"error": {"code": C, "message": M, "details": D}} raises HttpsError(C, M, D) ("details" optional)
    anything else                                      returns the data itself

Everything else — the method, Content-Type and body checks, the error shapes and statuses —
is firebase-functions' own code. `echo_function.py` beside this file is the same function as a
Hearth callable command job. The only CORS origin allowed is https://app.example.com, as in the
test's `[callable] origins`.

Listens on 127.0.0.1 on a free port and prints the port on stdout, then only logs to stderr.
Exits 3 when firebase-functions is not installed (scripts/install-deps test installs it).
"""
import sys

try:
    from firebase_functions import https_fn, options
    from flask import Flask, request
    from werkzeug.serving import make_server
except ImportError as error:
    print(f"firebase-functions is not installed ({error}): run scripts/install-deps test", file=sys.stderr)
    sys.exit(3)


@https_fn.on_call(cors=options.CorsOptions(cors_origins=["https://app.example.com"], cors_methods=["post"]))
def echo(req: https_fn.CallableRequest):
    data = req.data
    if isinstance(data, dict) and "error" in data:
        e = data["error"]
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode[e["code"]], e["message"], e.get("details"))
    if isinstance(data, dict) and "result" in data:
        return data["result"]
    return data


app = Flask(__name__)
# Every method reaches the function: its own code answers the ones it refuses (and OPTIONS,
# through flask-cors, the preflight).
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def view(**_route):
    return echo(request)


app.add_url_rule("/<project>/<region>/echo", "routed", view, methods=METHODS)
app.add_url_rule("/call/echo", "call", view, methods=METHODS)

server = make_server("127.0.0.1", 0, app, threaded=True)
print(server.port, flush=True)
sys.stdout = sys.stderr  # nothing more on stdout: the test reads only the port
server.serve_forever()
