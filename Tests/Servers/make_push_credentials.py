#!/usr/bin/env python3
"""Makes throwaway push credentials for the tests (needs PyPI's `cryptography`).

Usage: make_push_credentials.py OUTDIR
Writes OUTDIR/service-account.json (a Google service account key: RSA 2048 private key as
PKCS#8 PEM, client_email, project_id, token_uri https://oauth2.googleapis.com/token),
OUTDIR/service-account-public.pem, OUTDIR/AuthKey_TESTKEY123.p8 (an APNs-style P-256 PKCS#8
key) and OUTDIR/apns-public.pem.
"""
import json
import os
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa


def pem_private(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def pem_public(key):
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_push_credentials.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    account = {
        "type": "service_account",
        "project_id": "hearth-test",
        "private_key_id": "0123456789abcdef0123456789abcdef01234567",
        "private_key": pem_private(rsa_key),
        "client_email": "hearth-push@hearth-test.iam.gserviceaccount.com",
        "client_id": "100000000000000000001",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    with open(os.path.join(out, "service-account.json"), "w") as f:
        json.dump(account, f, indent=2)
    with open(os.path.join(out, "service-account-public.pem"), "wb") as f:
        f.write(pem_public(rsa_key))
    ec_key = ec.generate_private_key(ec.SECP256R1())
    with open(os.path.join(out, "AuthKey_TESTKEY123.p8"), "w") as f:
        f.write(pem_private(ec_key))
    with open(os.path.join(out, "apns-public.pem"), "wb") as f:
        f.write(pem_public(ec_key))
    for name in ("service-account.json", "AuthKey_TESTKEY123.p8"):
        os.chmod(os.path.join(out, name), 0o600)


if __name__ == "__main__":
    main()
