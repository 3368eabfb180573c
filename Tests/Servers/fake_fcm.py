#!/usr/bin/env python3
"""A fake Google OAuth token endpoint + FCM HTTP v1 API over HTTP/2 + TLS, for the push tests.

Usage: fake_fcm.py --cert C --key K --public-key service-account-public.pem
                   [--client-email E] [--project P] [--audience URL] [--max-skew S]
Serve it under the production names (oauth2.googleapis.com, fcm.googleapis.com) with
CURLOPT_CONNECT_TO; it answers by path:

  POST /token      the JWT bearer grant: checks grant_type, the assertion's RS256 signature
                   against the service account's PUBLIC key, its header (alg RS256, typ JWT)
                   and claims (iss, scope, aud, iat within max-skew of now, exp = iat + 3600);
                   answers {"access_token", "expires_in": 3599, "token_type": "Bearer"} or
                   400 {"error": "invalid_grant", "error_description": why}.
  POST /v1/projects/P/messages:send
                   checks `authorization: Bearer <a token it issued and did not revoke>` (else
                   401 UNAUTHENTICATED) and the body's shape (else 400 INVALID_ARGUMENT with a
                   BadRequest field violation naming the problem), then answers by device token:
                     …unregistered…     404 NOT_FOUND, FcmError UNREGISTERED
                     …invalid-token…    400 INVALID_ARGUMENT, FcmError INVALID_ARGUMENT (the token)
                     …bad-payload…      400 INVALID_ARGUMENT, BadRequest on message.data (not the token)
                     …quota…            429 RESOURCE_EXHAUSTED, FcmError QUOTA_EXCEEDED, Retry-After: 7
                     …internal…         500 INTERNAL, FcmError INTERNAL
                     …unavailable…      503 UNAVAILABLE, FcmError UNAVAILABLE (no Retry-After)
                     …revoke-once…      the first time: revokes the access token used, 401; then 200
                     …always-401…       401 UNAUTHENTICATED every time
                     …sender-mismatch…  403 PERMISSION_DENIED, FcmError SENDER_ID_MISMATCH
                     …third-party-auth… 401 UNAUTHENTICATED, FcmError THIRD_PARTY_AUTH_ERROR
                     …slow…             200 after 2 seconds
                     anything else      200 {"name": "projects/P/messages/N"}
  GET /_stats      {"mints", "sends", "accepted": [accepted message bodies], "rejected": [why]}
"""
import base64
import json
import secrets
import threading
import time
from urllib.parse import parse_qs

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

import push_h2_server

SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
FCM_ERROR = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


def b64url_decode(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def json_reply(status, obj, headers=None):
    return status, [("content-type", "application/json; charset=UTF-8")] + (headers or []), json.dumps(obj).encode()


def fcm_error(status, code, message, canonical, fcm_code=None, violations=None, headers=None):
    details = []
    if fcm_code:
        details.append({"@type": FCM_ERROR, "errorCode": fcm_code})
    if violations:
        details.append({"@type": BAD_REQUEST, "fieldViolations": [{"field": f, "description": d} for f, d in violations]})
    err = {"code": code, "message": message, "status": canonical}
    if details:
        err["details"] = details
    return json_reply(status, {"error": err}, headers)


def make_handler(args):
    with open(args.public_key, "rb") as f:
        public_key = serialization.load_pem_public_key(f.read())
    lock = threading.Lock()
    state = {"mints": 0, "sends": 0, "accepted": [], "rejected": [], "issued": {}, "seen": set(), "counter": 0}

    def reject_grant(why):
        state["rejected"].append("token: " + why)
        return json_reply(400, {"error": "invalid_grant", "error_description": why})

    def token_endpoint(headers, body):
        if dict(headers).get("content-type", "").split(";")[0] != "application/x-www-form-urlencoded":
            return reject_grant("content-type must be application/x-www-form-urlencoded")
        form = parse_qs(body.decode(), strict_parsing=True)
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return reject_grant("bad grant_type")
        assertion = (form.get("assertion") or [""])[0]
        parts = assertion.split(".")
        if len(parts) != 3:
            return reject_grant("the assertion is not a compact JWT")
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            signature = b64url_decode(parts[2])
        except Exception:
            return reject_grant("the assertion does not decode")
        if header != {"alg": "RS256", "typ": "JWT"}:
            return reject_grant("unexpected JWT header %r" % header)
        try:
            public_key.verify(signature, (parts[0] + "." + parts[1]).encode(), padding.PKCS1v15(), hashes.SHA256())
        except Exception:
            return reject_grant("Invalid JWT Signature.")
        now = time.time()
        expected = {"iss": args.client_email, "scope": SCOPE, "aud": args.audience}
        for k, v in expected.items():
            if claims.get(k) != v:
                return reject_grant("claim %s is %r, expected %r" % (k, claims.get(k), v))
        iat, exp = claims.get("iat"), claims.get("exp")
        if not isinstance(iat, int) or not isinstance(exp, int):
            return reject_grant("iat and exp must be integers")
        if abs(iat - now) > args.max_skew:
            return reject_grant("iat is %d s away from now" % (iat - now))
        if exp != iat + 3600:
            return reject_grant("exp must be iat + 3600")
        if set(claims) != {"iss", "scope", "aud", "iat", "exp"}:
            return reject_grant("unexpected claims %r" % sorted(claims))
        state["mints"] += 1
        state["counter"] += 1
        token = "ya29.fake-%d-%s" % (state["counter"], secrets.token_urlsafe(24))
        state["issued"][token] = {"revoked": False}
        return json_reply(200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"})

    def bad_request(why, field="message"):
        state["rejected"].append("send: " + why)
        return fcm_error(400, 400, "fake-fcm: " + why, "INVALID_ARGUMENT", violations=[(field, "fake-fcm: " + why)])

    def check_message(body):
        try:
            root = json.loads(body)
        except Exception:
            return None, "body is not JSON"
        if not isinstance(root, dict) or set(root) != {"message"} or not isinstance(root["message"], dict):
            return None, "body must be {\"message\": {...}}"
        m = root["message"]
        if not set(m) <= {"token", "notification", "data", "apns"}:
            return None, "unexpected message fields %r" % sorted(m)
        if not isinstance(m.get("token"), str) or not m["token"]:
            return None, "message.token must be a non-empty string"
        n = m.get("notification")
        if not isinstance(n, dict) or set(n) != {"title", "body"} or not all(isinstance(v, str) for v in n.values()):
            return None, "message.notification must be {title, body} strings"
        if "data" in m:
            d = m["data"]
            if not isinstance(d, dict) or not d or not all(isinstance(k, str) and isinstance(v, str) for k, v in d.items()):
                return None, "message.data must be a non-empty map of strings"
        if "apns" in m:
            a = m["apns"]
            try:
                badge = a["payload"]["aps"]["badge"]
                ok = set(a) == {"payload"} and set(a["payload"]) == {"aps"} and set(a["payload"]["aps"]) == {"badge"}
            except Exception:
                ok, badge = False, None
            if not ok or not isinstance(badge, int) or isinstance(badge, bool) or badge < 0:
                return None, "message.apns must be {payload: {aps: {badge: N}}}"
        return m, None

    def send(path, headers, body):
        project = path[len("/v1/projects/"):-len("/messages:send")]
        if project != args.project:
            return fcm_error(404, 404, "Requested entity was not found.", "NOT_FOUND")
        h = dict(headers)
        auth = h.get("authorization", "")
        if not auth.startswith("Bearer "):
            return fcm_error(401, 401, "Request is missing required authentication credential.", "UNAUTHENTICATED")
        access = auth[len("Bearer "):]
        info = state["issued"].get(access)
        if info is None or info["revoked"]:
            return fcm_error(401, 401, "Request had invalid authentication credentials.", "UNAUTHENTICATED")
        if h.get("content-type", "").split(";")[0] != "application/json":
            return bad_request("content-type must be application/json")
        m, why = check_message(body)
        if why:
            return bad_request(why)
        state["sends"] += 1
        token = m["token"]
        if "unregistered" in token:
            return fcm_error(404, 404, "Requested entity was not found.", "NOT_FOUND", fcm_code="UNREGISTERED")
        if "invalid-token" in token:
            return fcm_error(400, 400, "The registration token is not a valid FCM registration token", "INVALID_ARGUMENT",
                             fcm_code="INVALID_ARGUMENT")
        if "bad-payload" in token:
            return fcm_error(400, 400, "Invalid value at 'message.data[0].value' (TYPE_STRING), 12", "INVALID_ARGUMENT",
                             violations=[("message.data[0].value", "Invalid value at 'message.data[0].value' (TYPE_STRING), 12")])
        if "quota" in token:
            return fcm_error(429, 429, "Quota exceeded for quota metric.", "RESOURCE_EXHAUSTED", fcm_code="QUOTA_EXCEEDED",
                             headers=[("retry-after", "7")])
        if "internal" in token:
            return fcm_error(500, 500, "Internal error encountered.", "INTERNAL", fcm_code="INTERNAL")
        if "unavailable" in token:
            return fcm_error(503, 503, "The service is currently unavailable.", "UNAVAILABLE", fcm_code="UNAVAILABLE")
        if "revoke-once" in token and token not in state["seen"]:
            state["seen"].add(token)
            info["revoked"] = True
            return fcm_error(401, 401, "Request had invalid authentication credentials.", "UNAUTHENTICATED")
        if "always-401" in token:
            return fcm_error(401, 401, "Request had invalid authentication credentials.", "UNAUTHENTICATED")
        if "sender-mismatch" in token:
            return fcm_error(403, 403, "SenderId mismatch", "PERMISSION_DENIED", fcm_code="SENDER_ID_MISMATCH")
        if "third-party-auth" in token:
            return fcm_error(401, 401, "Auth error from APNS or Web Push Service", "UNAUTHENTICATED", fcm_code="THIRD_PARTY_AUTH_ERROR")
        if "slow" in token:
            return json_reply(200, {"name": "projects/%s/messages/slow" % args.project}) + (2.0,)
        state["accepted"].append(json.loads(body))
        state["counter"] += 1
        return json_reply(200, {"name": "projects/%s/messages/%d" % (args.project, state["counter"])})

    def handler(method, path, authority, headers, body):
        with lock:
            if method == "POST" and path == "/token":
                return token_endpoint(headers, body)
            if method == "POST" and path.startswith("/v1/projects/") and path.endswith("/messages:send"):
                return send(path, headers, body)
            if method == "GET" and path == "/_stats":
                return json_reply(200, {k: state[k] for k in ("mints", "sends", "accepted", "rejected")})
            return json_reply(404, {"error": {"code": 404, "message": "no route " + path, "status": "NOT_FOUND"}})

    return handler


if __name__ == "__main__":
    push_h2_server.serve(make_handler, [
        ("--public-key", {"required": True}),
        ("--client-email", {"default": "hearth-push@hearth-test.iam.gserviceaccount.com"}),
        ("--project", {"default": "hearth-test"}),
        ("--audience", {"default": "https://oauth2.googleapis.com/token"}),
        ("--max-skew", {"type": int, "default": 300}),
    ])
