"""Helpers of the LLM tests: the scripted server (from :mod:`ev2r.llm.local_server`), a canned
valid answer, and a proxy that makes chosen responses slow."""

import json
import time
import urllib.error
import urllib.request

from ev2r.llm.local_server import FakeChatServer, chat_response  # noqa: F401 (re-exported for the tests)

FakeServer = FakeChatServer

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


class DelayProxy(FakeChatServer):
    """Forwards chat requests to ``upstream``; a request whose body contains ``marker`` is held for
    ``delay`` seconds and then answered 504 without reaching upstream (a slow, stuck backend)."""

    def __init__(self, upstream: str, marker: str, delay: float):
        self.upstream, self.marker, self.delay = upstream.rstrip("/"), marker, delay
        super().__init__(self._forward)

    def _forward(self, body: dict):
        data = json.dumps(body).encode()
        if self.marker in json.dumps(body, ensure_ascii=False):
            time.sleep(self.delay)
            return 504, {"error": "upstream timed out"}, 0
        req = urllib.request.Request(self.upstream + "/chat/completions", data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=600) as r:
                return r.status, json.loads(r.read()), 0
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}"), 0
