"""SigV4 with botocore, the independent implementation the client is checked
against.

  botocore_sigv4.py sign      < request.json   -> prints the Authorization header
  botocore_sigv4.py serve KEY SECRET REGION    -> a server that verifies every
       request's signature that way and answers 200 or 403; prints its port

request.json: {"method", "url", "headers": {name: value}, "body", "access_key",
"secret_key", "token", "region", "service"}. The headers are the ones the
signed request carries (X-Amz-Date fixes the time).
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def authorization(method, url, headers, body, creds, region, service):
    request = AWSRequest(method=method, url=url, data=body, headers=headers)
    auth = SigV4Auth(creds, service, region)
    # add_auth would take the time from the clock; take it from X-Amz-Date.
    # (headers behave like an email message: setting one adds a copy, so
    # botocore's own code deletes before it sets, and so does this.)
    request.context["timestamp"] = headers["X-Amz-Date"]
    auth._modify_request_before_signing(request)
    canonical = auth.canonical_request(request)
    signature = auth.signature(auth.string_to_sign(request, canonical), request)
    auth._inject_signature_to_request(request, signature)
    return request.headers["Authorization"]


def signed_headers(auth_header):
    part = [p for p in auth_header.split(", ") if p.startswith("SignedHeaders=")][0]
    return part[len("SignedHeaders="):].split(";")


def sign():
    r = json.load(sys.stdin)
    creds = Credentials(r["access_key"], r["secret_key"], r.get("token") or None)
    print(authorization(r["method"], r["url"], r["headers"], r["body"].encode(), creds, r["region"], r.get("service", "execute-api")))


def serve(key, secret, region):
    creds = Credentials(key, secret)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def handle_any(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            got = self.headers.get("Authorization", "")
            ok = False
            if got and "X-Amz-Date" in self.headers:
                names = signed_headers(got)
                headers = {}
                for name in names:
                    value = self.headers.get(name)
                    if value is None:
                        break
                    headers[name] = value
                else:
                    headers["X-Amz-Date"] = self.headers["X-Amz-Date"]
                    url = "http://" + self.headers["Host"] + self.path
                    want = authorization(self.command, url, headers, body, creds, region, "execute-api")
                    ok = want == got
            out = json.dumps({"verified": ok, "path": self.path}).encode()
            if not ok:
                out = json.dumps({"error": {"code": "forbidden", "message": "The request signature does not match."}}).encode()
            self.send_response(200 if ok else 403)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        do_GET = do_POST = handle_any

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "sign":
        sign()
    else:
        serve(*sys.argv[2:5])
