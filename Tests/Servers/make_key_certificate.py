#!/usr/bin/env python3
"""Wraps a signing key's public half in a self-signed X.509 certificate, the form Google
publishes Firebase Auth's keys in (needs PyPI's `cryptography`).

Usage: make_key_certificate.py KEY_PEM
KEY_PEM is a file with an RSA or P-256 private key (PEM, PKCS#1, SEC1 or PKCS#8). Prints the
certificate (PEM) on stdout; valid from one hour ago for two days.
"""
import datetime
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import NameOID


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_key_certificate.py KEY_PEM")
    with open(sys.argv[1], "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    now = datetime.datetime.now(datetime.timezone.utc)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "securetoken.system.gserviceaccount.com")])
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .sign(key, hashes.SHA256())
    )
    sys.stdout.write(certificate.public_bytes(serialization.Encoding.PEM).decode())


if __name__ == "__main__":
    main()
