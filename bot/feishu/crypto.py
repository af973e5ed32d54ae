"""Feishu's event-push cryptography, written with ``cryptography`` (not by hand).

* Encryption (Encrypt Key set): key = SHA-256(encrypt_key); body ``{"encrypt": base64(iv + AES-256-CBC
  (PKCS#7-padded JSON))}`` with a random 16-byte iv.
* Signature: hex SHA-256 over ``timestamp + nonce + encrypt_key`` (UTF-8) followed by the raw body bytes,
  sent as X-Lark-Signature with X-Lark-Request-Timestamp (seconds) and X-Lark-Request-Nonce.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def signature(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    return hashlib.sha256((timestamp + nonce + encrypt_key).encode("utf-8") + body).hexdigest()


def signature_ok(timestamp: str, nonce: str, encrypt_key: str, body: bytes, sent: str) -> bool:
    return hmac.compare_digest(signature(timestamp, nonce, encrypt_key, body).encode(), sent.encode())


def decrypt(encrypted: str, encrypt_key: str) -> bytes:
    """Raises ValueError for anything that is not a valid ciphertext under this key."""
    try:
        raw = base64.b64decode(encrypted, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ValueError("encrypt is not base64") from e
    if len(raw) < 32 or len(raw) % 16:
        raise ValueError("encrypt has the wrong length for AES-CBC")
    key = hashlib.sha256(encrypt_key.encode("utf-8")).digest()
    decryptor = Cipher(algorithms.AES(key), modes.CBC(raw[:16])).decryptor()
    padded = decryptor.update(raw[16:]) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


def decrypt_json(body: bytes, encrypt_key: str) -> dict[str, Any]:
    """The event inside an encrypted push body; ValueError when it is not one."""
    try:
        outer = json.loads(body)
    except ValueError as e:
        raise ValueError("body is not JSON") from e
    encrypted = outer.get("encrypt") if isinstance(outer, dict) else None
    if not isinstance(encrypted, str) or not encrypted:
        raise ValueError("body is not encrypted")
    inner = json.loads(decrypt(encrypted, encrypt_key))
    if not isinstance(inner, dict):
        raise ValueError("decrypted event is not a JSON object")
    return inner
