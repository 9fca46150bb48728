"""Agent Card signatures made and checked by the official A2A Python SDK
(a2a-sdk 1.3.0, `a2a.utils.signing`, PyJWT underneath), for the Rust tests
to hold aiproto's signatures against.

Usage:
  python3 a2a_card_signing.py keygen ALG PRIVATE.pem PUBLIC.pem
  python3 a2a_card_signing.py sign PRIVATE.pem ALG KID [JKU] < card.json
  python3 a2a_card_signing.py verify PUBLIC.pem ALG < card.json

ALG is EdDSA (Ed25519) or ES256 (P-256). `sign` prints the card with the
SDK's signature added; `verify` prints `verified` and exits 0, or prints
the SDK's error class and exits 1. The card goes through the SDK's own
types (ParseDict into `AgentCard`, MessageToDict back), as an SDK user's
card does.
"""

import json
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from google.protobuf.json_format import MessageToDict, ParseDict

from a2a.types import AgentCard
from a2a.utils.signing import (
    SignatureVerificationError,
    create_agent_card_signer,
    create_signature_verifier,
)


def keygen(alg, private_path, public_path):
    key = ed25519.Ed25519PrivateKey.generate() if alg == "EdDSA" else ec.generate_private_key(ec.SECP256R1())
    with open(private_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    with open(public_path, "wb") as f:
        f.write(key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


def read_card():
    return ParseDict(json.load(sys.stdin), AgentCard(), ignore_unknown_fields=True)


def sign(private_path, alg, kid, jku=None):
    with open(private_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    header = {"alg": alg, "typ": "JOSE", "kid": kid}
    if jku:
        header["jku"] = jku
    signed = create_agent_card_signer(key, header)(read_card())
    print(json.dumps(MessageToDict(signed), indent=2, ensure_ascii=False))


def verify(public_path, alg):
    with open(public_path, "rb") as f:
        key = serialization.load_pem_public_key(f.read())
    verifier = create_signature_verifier(lambda kid, jku: key, [alg])
    try:
        verifier(read_card())
    except SignatureVerificationError as e:
        print(type(e).__name__)
        return 1
    print("verified")
    return 0


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "keygen":
        keygen(*args)
    elif command == "sign":
        sign(*args)
    elif command == "verify":
        sys.exit(verify(*args))
    else:
        sys.exit(f"unknown command {command}")
