"""Helpers of the LLM tests: a scripted OpenAI-compatible server and a canned valid answer."""

import http.server
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Callable, Optional

# -- a scripted OpenAI-compatible server ---------------------------------------------------------
def chat_response(content: str, logprobs: Optional[list] = None, prompt_tokens: int = 10,
                  completion_tokens: int = 5) -> dict:
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
    if logprobs is not None:
        choice["logprobs"] = {"content": logprobs}
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": "fake-model",
            "choices": [choice], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                           "total_tokens": prompt_tokens + completion_tokens}}


class FakeServer:
    """``responder(body) -> (http status, dict body, delay seconds)``; counts requests and the
    most requests ever in flight at once."""

    def __init__(self):
        self.responder: Callable[[dict], tuple] = lambda body: (200, chat_response("{}"), 0.0)
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(n) or b"{}")
                with server.lock:
                    server.requests.append(body)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    status, payload, delay = server.responder(body)
                    if delay:
                        time.sleep(delay)
                    data = json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if status == 429:
                        self.send_header("Retry-After", "0")
                    self.end_headers()
                    try:
                        self.wfile.write(data)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


GOOD = {
    "facts in predicted evidence": "1. The population of Kerala was 33.4 million in 2011. 2. Most people speak Malayalam.",
    "fact check predicted evidence": "1. The population of Kerala was 33.4 million in 2011. Supported. "
                                     "2. Most people speak Malayalam. Not supported.",
    "facts count predicted evidence": 2, "support predicted evidence": 1,
    "facts in reference evidence": "1. The 2011 census counted 3,33,87,677 people in Kerala.",
    "fact check reference evidence": "1. The 2011 census counted 3,33,87,677 people in Kerala. Supported.",
    "facts count reference evidence": 1, "support reference evidence": 1,
    "precision": 0.5, "recall": 1.0,
}


# -- a proxy that makes chosen responses slow ----------------------------------------------------
class DelayProxy:
    """Forwards POSTs to ``upstream``; a request whose body contains ``marker`` is held for
    ``delay`` seconds and then answered 504 without reaching upstream (a slow, stuck backend)."""

    def __init__(self, upstream: str, marker: str, delay: float):
        self.upstream, self.marker, self.delay = upstream.rstrip("/"), marker.encode(), delay
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(n)
                path = self.path[len("/v1"):] if self.path.startswith("/v1") else self.path
                req = urllib.request.Request(proxy.upstream + path, data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
                if proxy.marker in body:
                    time.sleep(proxy.delay)
                    data = b'{"error": "upstream timed out"}'
                    try:
                        self.send_response(504)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    return
                try:
                    with urllib.request.urlopen(req, timeout=600) as r:
                        status, data = r.status, r.read()
                except urllib.error.HTTPError as e:
                    status, data = e.code, e.read()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
