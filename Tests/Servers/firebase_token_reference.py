#!/usr/bin/env python3
"""Firebase's own ID-token verifier as the reference for Hearth's (IDTokenVerifierTests).

Usage: firebase_token_reference.py --certs-url URL --project PROJECT --now UNIX_SECONDS [--skew S]

Reads one token per line on stdin and prints one line per token on stdout:
  accept UID
  reject ERROR_CLASS
with firebase-admin's `auth.verify_id_token(token, clock_skew_seconds=S)` (PyPI firebase-admin,
which checks the header and claims itself and then calls google-auth's
`google.oauth2.id_token.verify_token` with Google's certificate-map URL).

Two test-only patches point it at the test's keys and clock, nothing else:
- `firebase_admin._token_gen.ID_TOKEN_CERT_URI` (a module constant its TokenVerifier reads when
  the auth client is made) becomes URL, a local server serving a certificate map in Google's
  format;
- `google.auth._helpers.utcnow` (what google-auth's iat/exp checks read) returns UNIX_SECONDS.
The app has a project ID and a credential that is never used (verifying needs none).
"""
import argparse
import datetime
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources

import firebase_admin  # noqa: E402
import google.auth._helpers  # noqa: E402
import google.auth.credentials  # noqa: E402
from firebase_admin import _token_gen, auth, credentials  # noqa: E402


class _NoCredential(credentials.Base):
    """Verifying an ID token calls no Google API, so no real credential is needed."""

    def get_credential(self):
        return google.auth.credentials.AnonymousCredentials()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--certs-url", required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--now", type=int, required=True)
    parser.add_argument("--skew", type=int, default=0)
    args = parser.parse_args()

    _token_gen.ID_TOKEN_CERT_URI = args.certs_url
    now = datetime.datetime.fromtimestamp(args.now, datetime.timezone.utc).replace(tzinfo=None)
    google.auth._helpers.utcnow = lambda: now
    app = firebase_admin.initialize_app(_NoCredential(), {"projectId": args.project})

    for line in sys.stdin:
        token = line.strip()
        try:
            claims = auth.verify_id_token(token, app=app, clock_skew_seconds=args.skew)
            print("accept " + claims["uid"], flush=True)
        except Exception as error:  # every refusal is an answer here
            print("reject " + type(error).__name__, flush=True)


if __name__ == "__main__":
    main()
