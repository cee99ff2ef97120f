"""A receiver of the gateway's webhooks in Python 3.9+, standard library only: both signature schemes of
docs/webhooks.md. In Django or Flask, call the function of your scheme with the raw body (request.body;
request.get_data()) and request.headers. As is, this file is an endpoint:
    WEBHOOK_SECRET='whsec_...' WEBHOOK_SIGNATURE_SCHEME=pt PORT=8099 python3 webhook.py
WEBHOOK_SECRET takes "new,old" while you move to a rotated secret: either one verifies."""
import base64
import hashlib
import hmac
import json
import os
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE_SECONDS = 300


def is_fresh(timestamp: str) -> bool:
    if re.fullmatch(r"[0-9]{1,12}", timestamp) is None:
        return False
    return abs(time.time() - int(timestamp)) <= TOLERANCE_SECONDS


def verify_pt_webhook(body: bytes, headers, secrets: list) -> bool:
    """X-PT-Signature (`pt`): `sha256=` + hex HMAC-SHA256 of "{timestamp}.{body}" with the secret as shown."""
    timestamp = headers.get("X-PT-Timestamp", "")
    if not body or not is_fresh(timestamp):
        return False
    # X-PT-Signature-Previous: the same signature made with the replaced secret, during a rotation's overlap.
    received = [headers.get("X-PT-Signature", ""), headers.get("X-PT-Signature-Previous", "")]
    for secret in secrets:
        digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
        expected = f"sha256={digest}".encode()
        if any(hmac.compare_digest(expected, signature.encode()) for signature in received):
            return True
    return False


def verify_standard_webhook(body: bytes, headers, secrets: list) -> bool:
    """Standard Webhooks: `v1,` + base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" with the key of whsec_<base64>."""
    webhook_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    if not body or not webhook_id or not is_fresh(timestamp):
        return False
    # One `v1,<base64>` per secret the gateway signs with, space-separated (two during a rotation's overlap).
    received = headers.get("webhook-signature", "").split(" ")
    for secret in secrets:
        try:
            key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
        except ValueError:
            continue
        digest = hmac.new(key, f"{webhook_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
        expected = b"v1," + base64.b64encode(digest)
        if any(hmac.compare_digest(expected, signature.encode()) for signature in received):
            return True
    return False


SECRETS = [secret for secret in os.environ.get("WEBHOOK_SECRET", "").split(",") if secret]
VERIFY = verify_standard_webhook if os.environ.get("WEBHOOK_SIGNATURE_SCHEME") == "standard-webhooks" else verify_pt_webhook


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not VERIFY(body, self.headers, SECRETS):
            return self.answer(401, b"")
        event = json.loads(body)
        # Store the event durably here, deduplicating on delivery_id (the same on every attempt), and only then
        # answer 200: any other answer makes the gateway try again later.
        print(f"verificado {event['event']} delivery={event['delivery_id']}", file=sys.stderr, flush=True)
        self.answer(200, b'{"success":true}')

    def answer(self, status: int, body: bytes):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8099"))), Receiver).serve_forever()
