"""A tiny backend for the README walk-through: it checks that each call really comes from
Parley (the Standard Webhooks signature keyed by the connection's token) and answers
with an order number.

    python3 examples/order_backend.py PORT TOKEN
"""

import base64
import hashlib
import hmac
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

PORT, TOKEN = int(sys.argv[1]), sys.argv[2]


def signing_key(token: str) -> bytes:
    if token.startswith("whsec_"):
        return base64.b64decode(token[len("whsec_") :] + "==")
    return token.encode()


class OrderHook(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        signed = f"{self.headers['webhook-id']}.{self.headers['webhook-timestamp']}.".encode()
        digest = hmac.new(signing_key(TOKEN), signed + body, hashlib.sha256).digest()
        expected = "v1," + base64.b64encode(digest).decode()
        if not hmac.compare_digest(expected, self.headers.get("webhook-signature", "")):
            self.send_response(401)
            self.end_headers()
            return
        size = json.loads(body)["attributes"].get("size", "")
        answer = {
            "responses": [{"type": "text", "message": f"Order #42: one {size} pizza."}],
            "attributes": {"order": "42"},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


HTTPServer(("127.0.0.1", PORT), OrderHook).serve_forever()
