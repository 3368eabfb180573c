#!/usr/bin/env python3
"""Calls a Firebase callable function as Firebase's SDKs do, written from the published
protocol ("Protocol specification for https.onCall") and nothing else: Python's standard library
only. Works against Hearth (docs/callables.md) and any other server of the protocol.

    scripts/call.py URL NAME [--data JSON] [--token T]

URL is what the SDKs put before the function's name: `http://HOST:PORT/PROJECT/REGION` (an
emulator host) or a custom domain (`https://calls.example.com`); Hearth also answers
`http://HOST:PORT/call`. The request is `POST URL/NAME` with `Content-Type: application/json`,
the body `{"data": DATA}` (DATA defaults to null) and, with --token, `Authorization: Bearer T`
(a Firebase ID token).

Prints the result as one line of JSON and exits 0; or prints `CODE (HTTP STATUS): MESSAGE`
and, when the error has details, `details: JSON` on stderr and exits 1. A request that gets
no answer, or bad arguments, exit 2.
"""
import argparse
import json
import sys
import urllib.error
import urllib.request

# The protocol's codes, and the one a client takes from the HTTP status when the body names none.
CODES = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "UNAUTHENTICATED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
}
CODE_FOR_STATUS = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
    409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED",
    503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}
LONG_TYPES = ("type.googleapis.com/google.protobuf.Int64Value", "type.googleapis.com/google.protobuf.UInt64Value")


def decode(value):
    """The protocol's JSON encoding back to plain values: a 64-bit integer may come wrapped as
    {"@type": "...Int64Value", "value": "123"}."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if value.get("@type") in LONG_TYPES and isinstance(value.get("value"), str):
            return int(value["value"])
        return {k: decode(v) for k, v in value.items()}
    return value


def call(url, name, data, token=None, timeout=70):
    """(result, None) or (None, (code, http_status, message, details))."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    body = json.dumps({"data": data}).encode()
    request = urllib.request.Request(url.rstrip("/") + "/" + name, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        answer = json.loads(raw)
    except ValueError:
        answer = None
    code = "OK" if 200 <= status < 300 else CODE_FOR_STATUS.get(status, "UNKNOWN")
    message, details = code, None
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):
        if error.get("status") in CODES:
            code = error["status"]
            message = code
        if isinstance(error.get("message"), str):
            message = error["message"]
        details = decode(error.get("details"))
    if code != "OK":
        return None, (code, status, message, details)
    if not isinstance(answer, dict) or ("result" not in answer and "data" not in answer):
        return None, ("INTERNAL", status, "Response is missing data field.", None)
    return decode(answer["result"] if "result" in answer else answer["data"]), None


def main():
    parser = argparse.ArgumentParser(description="Call a Firebase callable function as the SDKs do.")
    parser.add_argument("url", help="http://HOST:PORT/PROJECT/REGION, a custom domain, or Hearth's http://HOST:PORT/call")
    parser.add_argument("name", help="the function's name")
    parser.add_argument("--data", default="null", help="the call's data, a JSON value (default: null)")
    parser.add_argument("--token", help="a Firebase ID token, sent as Authorization: Bearer")
    args = parser.parse_args()
    try:
        data = json.loads(args.data)
    except ValueError as error:
        parser.error(f"--data: not JSON ({error})")
    try:
        result, error = call(args.url, args.name, data, args.token)
    except (urllib.error.URLError, OSError) as error:
        print(f"call.py: no answer from {args.url}: {error}", file=sys.stderr)
        sys.exit(2)
    if error is None:
        print(json.dumps(result, ensure_ascii=False, sort_keys=True))
        return
    code, status, message, details = error
    print(f"{code} (HTTP {status}): {message}", file=sys.stderr)
    if details is not None:
        print("details: " + json.dumps(details, ensure_ascii=False, sort_keys=True), file=sys.stderr)
    sys.exit(1)


if __name__ == "__main__":
    main()
