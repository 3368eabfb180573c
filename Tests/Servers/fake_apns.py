#!/usr/bin/env python3
"""A fake APNs provider API over HTTP/2 + TLS, for the push tests.

Usage: fake_apns.py --cert C --key K --public-key apns-public.pem --key-id KID --team-id TEAM
                    --topic BUNDLE [--max-skew S]
Serve it as api.push.apple.com with CURLOPT_CONNECT_TO. `POST /3/device/<token>` checks:
  - `authorization: bearer <JWT>`: ES256 signature (raw r||s) against the PUBLIC key, header
    exactly {"alg": "ES256", "kid": KID}, claims exactly {"iss": TEAM, "iat"} with iat within
    max-skew of now (else 403 InvalidProviderToken / MissingProviderToken);
  - apns-topic == TOPIC, apns-push-type == alert, apns-priority 5 or 10, apns-expiration a
    number, apns-id a lower-case UUID (else 400 BadTopic, InvalidPushType, BadPriority,
    BadExpirationDate, BadMessageId);
  - the body {"aps": {"alert": {"title", "body"}, "badge"?}, …string keys} (else 400 BadPayload);
then answers by device token:
    …unregistered…    410 Unregistered
    …bad-device…      400 BadDeviceToken
    …not-for-topic…   400 DeviceTokenNotForTopic
    …too-many…        429 TooManyRequests, Retry-After: 5
    …internal…        500 InternalServerError
    …unavailable…     503 ServiceUnavailable
    …expired-once…    403 ExpiredProviderToken for the first provider token it sees, 200 after
    anything else     200 with apns-id echoed
GET /_stats gives {"sends", "accepted": [{"token", "headers", "body"}], "rejected": [why],
"providerTokens": number of distinct provider tokens seen}.
"""
import base64
import json
import re
import threading
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

import push_h2_server

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def b64url_decode(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def make_handler(args):
    with open(args.public_key, "rb") as f:
        public_key = serialization.load_pem_public_key(f.read())
    lock = threading.Lock()
    state = {"sends": 0, "accepted": [], "rejected": [], "tokens": set(), "expired": set()}

    def reply(status, reason=None, headers=None):
        out = b"" if reason is None else json.dumps({"reason": reason, "timestamp": int(time.time() * 1000)}).encode()
        if reason is not None and status != 200:
            state["rejected"].append(reason)
        return status, (headers or []) + ([("content-type", "application/json")] if out else []), out

    def check_jwt(value):
        if not value.startswith("bearer "):
            return "MissingProviderToken"
        parts = value[len("bearer "):].split(".")
        if len(parts) != 3:
            return "InvalidProviderToken"
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            raw = b64url_decode(parts[2])
        except Exception:
            return "InvalidProviderToken"
        if header != {"alg": "ES256", "kid": args.key_id} or len(raw) != 64:
            return "InvalidProviderToken"
        if set(claims) != {"iss", "iat"} or claims["iss"] != args.team_id or not isinstance(claims["iat"], int):
            return "InvalidProviderToken"
        if abs(claims["iat"] - time.time()) > args.max_skew:
            return "ExpiredProviderToken"
        signature = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            public_key.verify(signature, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
        except Exception:
            return "InvalidProviderToken"
        return None

    def check_body(body):
        try:
            root = json.loads(body)
            aps = root["aps"]
            alert = aps["alert"]
        except Exception:
            return "body must be {aps: {alert: {title, body}}}"
        if set(alert) != {"title", "body"} or not all(isinstance(v, str) for v in alert.values()):
            return "aps.alert must be {title, body} strings"
        if not set(aps) <= {"alert", "badge"}:
            return "unexpected aps keys %r" % sorted(aps)
        if "badge" in aps and (not isinstance(aps["badge"], int) or isinstance(aps["badge"], bool)):
            return "aps.badge must be an integer"
        for k, v in root.items():
            if k != "aps" and not isinstance(v, str):
                return "custom key %s must be a string" % k
        return None

    def send(token, headers, body):
        h = dict(headers)
        why = check_jwt(h.get("authorization", ""))
        if why:
            return reply(403, why)
        bearer = h["authorization"]
        if h.get("apns-topic") != args.topic:
            return reply(400, "BadTopic" if h.get("apns-topic") else "MissingTopic")
        if h.get("apns-push-type") != "alert":
            return reply(400, "InvalidPushType")
        if h.get("apns-priority") not in ("5", "10"):
            return reply(400, "BadPriority")
        if not h.get("apns-expiration", "").isdigit():
            return reply(400, "BadExpirationDate")
        if not UUID.match(h.get("apns-id", "")):
            return reply(400, "BadMessageId")
        why = check_body(body)
        if why:
            state["rejected"].append(why)
            return 400, [("content-type", "application/json")], json.dumps({"reason": "BadPayload", "detail": why}).encode()
        state["sends"] += 1
        state["tokens"].add(bearer)
        if "unregistered" in token:
            return reply(410, "Unregistered")
        if "bad-device" in token:
            return reply(400, "BadDeviceToken")
        if "not-for-topic" in token:
            return reply(400, "DeviceTokenNotForTopic")
        if "too-many" in token:
            return reply(429, "TooManyRequests", [("retry-after", "5")])
        if "internal" in token:
            return reply(500, "InternalServerError")
        if "unavailable" in token:
            return reply(503, "ServiceUnavailable")
        if "expired-once" in token and (not state["expired"] or bearer in state["expired"]):
            state["expired"].add(bearer)
            return reply(403, "ExpiredProviderToken")
        state["accepted"].append({
            "token": token,
            "headers": {k: v for k, v in h.items() if k.startswith("apns-")},
            "body": json.loads(body),
        })
        return 200, [("apns-id", h["apns-id"])], b""

    def handler(method, path, authority, headers, body):
        with lock:
            if method == "POST" and path.startswith("/3/device/"):
                return send(path[len("/3/device/"):], headers, body)
            if method == "GET" and path == "/_stats":
                out = {"sends": state["sends"], "accepted": state["accepted"], "rejected": state["rejected"],
                       "providerTokens": len(state["tokens"])}
                return 200, [("content-type", "application/json")], json.dumps(out).encode()
            return reply(404, "BadPath")

    return handler


if __name__ == "__main__":
    push_h2_server.serve(make_handler, [
        ("--public-key", {"required": True}),
        ("--key-id", {"required": True}),
        ("--team-id", {"required": True}),
        ("--topic", {"required": True}),
        ("--max-skew", {"type": int, "default": 3600}),
    ])
