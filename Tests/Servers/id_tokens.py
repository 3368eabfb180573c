#!/usr/bin/env python3
"""Signs ID tokens for callable-function tests and benchmarks (PyPI pyjwt and cryptography,
which scripts/install-deps installs).

Usage: id_tokens.py --jwks FILE --issuer ISS --audience AUD [--hours H] UID...
       id_tokens.py --jwks FILE --issuer ISS --audience AUD [--hours H] --uids-from -   (one uid a line on stdin)

Makes a fresh 2048-bit RSA key, writes its public half to FILE as a JSON Web Key Set (kid
"test-key", RS256, use sig), and prints one JSON object on stdout, each uid to an RS256 ID
token signed with the key: header {alg, kid, typ}, claims {iss, aud, sub: uid, user_id: uid,
iat: now, auth_time: now, exp: now + H hours (default 2)}. Exit status 3: a module is missing.
"""
import argparse
import base64
import json
import sys
import time

try:
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
except ImportError as error:
    print(f"{error.name} (PyPI pyjwt / cryptography): run scripts/install-deps test", file=sys.stderr)
    sys.exit(3)

KID = "test-key"


def b64(n):
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jwks", required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--audience", required=True)
    parser.add_argument("--hours", type=float, default=2)
    parser.add_argument("--uids-from", dest="uids_from", default="")
    parser.add_argument("uids", nargs="*")
    args = parser.parse_args()
    uids = args.uids + ([line.strip() for line in sys.stdin if line.strip()] if args.uids_from == "-" else [])

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_numbers()
    with open(args.jwks, "w") as f:
        json.dump({"keys": [{"kty": "RSA", "kid": KID, "alg": "RS256", "use": "sig", "n": b64(public.n), "e": b64(public.e)}]}, f)

    now = int(time.time())
    tokens = {}
    for uid in uids:
        claims = {"iss": args.issuer, "aud": args.audience, "sub": uid, "user_id": uid, "iat": now, "auth_time": now, "exp": now + int(args.hours * 3600)}
        tokens[uid] = jwt.encode(claims, key, algorithm="RS256", headers={"kid": KID})
    json.dump(tokens, sys.stdout)
    print()


if __name__ == "__main__":
    main()
