"""WeCom (企业微信) callback encryption, as WeCom documents it (加解密方案, the WXBizMsgCrypt samples).

* msg_signature = SHA1 of the sorted concatenation of [token, timestamp, nonce, encrypt], hex.
* AESKey = Base64_Decode(EncodingAESKey + "="): 43 characters -> 32 bytes; AES-256-CBC, IV = AESKey[:16].
* Plaintext = 16 random bytes + 4-byte big-endian length of msg + msg + ReceiveId (the CorpID for a
  self-built app), PKCS#7-padded to a multiple of 32 bytes (WeCom pads to 32, not AES's 16).

AES and the padding come from ``cryptography``; nothing here is a hand-rolled primitive. Every check
(signature, padding, length, ReceiveId) raises WeComCryptoError naming what failed, and the signature
is compared in constant time.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import struct
from dataclasses import dataclass, field

import defusedxml.ElementTree as SafeET
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

BLOCK_BITS = 32 * 8
MAX_OUTER_XML_BYTES = 256 * 1024


class WeComCryptoError(ValueError):
    """A callback that failed a check; the message says which (never the key or token)."""


class SignatureError(WeComCryptoError):
    """msg_signature does not match: the request was not made by WeCom with our Token."""


def signature(token: str, timestamp: str, nonce: str, encrypt: str) -> str:
    return hashlib.sha1("".join(sorted([token, timestamp, nonce, encrypt])).encode("utf-8")).hexdigest()


def aes_key(encoding_aes_key: str) -> bytes:
    if len(encoding_aes_key) != 43:
        raise WeComCryptoError(f"EncodingAESKey must be 43 characters, got {len(encoding_aes_key)}")
    try:
        key = base64.b64decode(encoding_aes_key + "=", validate=True)
    except binascii.Error:
        raise WeComCryptoError("EncodingAESKey is not base64") from None
    if len(key) != 32:
        raise WeComCryptoError("EncodingAESKey does not decode to 32 bytes")
    return key


@dataclass(frozen=True)
class WeComCrypto:
    """The Token / EncodingAESKey / ReceiveId (CorpID) of one app's callback."""

    token: str = field(repr=False)
    encoding_aes_key: str = field(repr=False)
    receive_id: str

    def __post_init__(self) -> None:
        if not self.token:
            raise WeComCryptoError("the callback Token is empty")
        if not self.receive_id:
            raise WeComCryptoError("the ReceiveId (CorpID) is empty")
        aes_key(self.encoding_aes_key)

    @property
    def _key(self) -> bytes:
        return aes_key(self.encoding_aes_key)

    # ---- signature --------------------------------------------------------------------------------------
    def sign(self, timestamp: str, nonce: str, encrypt: str) -> str:
        return signature(self.token, timestamp, nonce, encrypt)

    def check_signature(self, msg_signature: str, timestamp: str, nonce: str, encrypt: str) -> None:
        expected = self.sign(timestamp, nonce, encrypt)
        if not hmac.compare_digest(expected.encode(), msg_signature.lower().encode()):
            raise SignatureError("msg_signature does not match the Token, timestamp, nonce and ciphertext")

    # ---- AES --------------------------------------------------------------------------------------------
    def encrypt(self, message: str, random_prefix: bytes | None = None) -> str:
        """What WeCom does to a message (tests use it for the passive-reply direction and the fake's peer)."""
        prefix = os.urandom(16) if random_prefix is None else random_prefix
        if len(prefix) != 16:
            raise WeComCryptoError("the random prefix must be 16 bytes")
        body = message.encode("utf-8")
        plain = prefix + struct.pack(">I", len(body)) + body + self.receive_id.encode("utf-8")
        padder = padding.PKCS7(BLOCK_BITS).padder()
        padded = padder.update(plain) + padder.finalize()
        key = self._key
        encryptor = Cipher(algorithms.AES(key), modes.CBC(key[:16])).encryptor()
        return base64.b64encode(encryptor.update(padded) + encryptor.finalize()).decode("ascii")

    def decrypt(self, encrypt: str) -> str:
        """The message inside ``encrypt``, after checking the padding, the length and the ReceiveId."""
        try:
            raw = base64.b64decode(encrypt, validate=True)
        except (binascii.Error, ValueError):
            raise WeComCryptoError("the ciphertext is not base64") from None
        if not raw or len(raw) % 32:
            raise WeComCryptoError(f"the ciphertext is {len(raw)} bytes, not a positive multiple of 32")
        key = self._key
        decryptor = Cipher(algorithms.AES(key), modes.CBC(key[:16])).decryptor()
        padded = decryptor.update(raw) + decryptor.finalize()
        unpadder = padding.PKCS7(BLOCK_BITS).unpadder()
        try:
            plain = unpadder.update(padded) + unpadder.finalize()
        except ValueError:
            raise WeComCryptoError("bad padding after decryption (wrong EncodingAESKey?)") from None
        if len(plain) < 20:
            raise WeComCryptoError("the decrypted message is shorter than its header")
        (length,) = struct.unpack(">I", plain[16:20])
        if 20 + length > len(plain):
            raise WeComCryptoError("the decrypted length field is larger than the message")
        message, receive_id = plain[20:20 + length], plain[20 + length:]
        if receive_id.decode("utf-8", "replace") != self.receive_id:
            raise WeComCryptoError("the ReceiveId in the message is not our CorpID")
        try:
            return message.decode("utf-8")
        except UnicodeDecodeError:
            raise WeComCryptoError("the decrypted message is not UTF-8") from None

    # ---- the two callback shapes ------------------------------------------------------------------------
    def verify_url(self, msg_signature: str, timestamp: str, nonce: str, echostr: str) -> str:
        """URL verification (GET): check the signature over echostr, return its plaintext for the answer."""
        self.check_signature(msg_signature, timestamp, nonce, echostr)
        return self.decrypt(echostr)

    def decrypt_callback(self, msg_signature: str, timestamp: str, nonce: str, body: bytes) -> str:
        """A callback POST: the outer XML's Encrypt, signature checked, decrypted; returns the inner XML."""
        encrypt = outer_encrypt(body)
        self.check_signature(msg_signature, timestamp, nonce, encrypt)
        return self.decrypt(encrypt)

    def encrypt_reply(self, message: str, timestamp: str, nonce: str) -> str:
        """A passive reply as WeCom expects it (Encrypt, MsgSignature, TimeStamp, Nonce)."""
        encrypt = self.encrypt(message)
        sig = self.sign(timestamp, nonce, encrypt)
        return (f"<xml><Encrypt><![CDATA[{encrypt}]]></Encrypt><MsgSignature><![CDATA[{sig}]]></MsgSignature>"
                f"<TimeStamp>{timestamp}</TimeStamp><Nonce><![CDATA[{nonce}]]></Nonce></xml>")


def outer_encrypt(body: bytes) -> str:
    """The Encrypt element of a callback body; defusedxml refuses DTDs and entities (the body is untrusted)."""
    if len(body) > MAX_OUTER_XML_BYTES:
        raise WeComCryptoError(f"callback body of {len(body)} bytes is too large")
    try:
        root = SafeET.fromstring(body)
    except Exception as exc:  # ParseError and defusedxml's DTD/entity refusals
        raise WeComCryptoError(f"callback body is not acceptable XML ({type(exc).__name__})") from None
    node = root.find("Encrypt")
    if node is None or not (node.text or "").strip():
        raise WeComCryptoError("callback body has no Encrypt element")
    return (node.text or "").strip()
