"""A minimal LSP client for the tests: starts `bendc --lsp`, writes framed
messages to its stdin and collects what it writes, on a thread, as parsed
messages. Waits are on conditions with a generous timeout, never on sleeps."""
import json
import os
import queue
import subprocess
import threading
import time

TIMEOUT = 30.0


class Server:
    def __init__(self, bendc):
        self.proc = subprocess.Popen([bendc, "--lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages = []  # everything received, in order
        self.cond = threading.Condition()
        self.next_id = 1
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self.cond:
                        self.cond.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = out.read(length)
            with self.cond:
                self.messages.append(json.loads(body))
                self.cond.notify_all()

    # ---- writing -------------------------------------------------------------

    def write(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    @staticmethod
    def frame(message):
        body = json.dumps(message).encode() if not isinstance(message, bytes) else message
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    def send(self, message):
        self.write(self.frame(message))

    def notify(self, method, params=None):
        self.send({"jsonrpc": "2.0", "method": method, "params": params or {}})

    def request_async(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return rid

    def request(self, method, params=None):
        rid = self.request_async(method, params)
        return self.wait_for(lambda m: m.get("id") == rid and "method" not in m)

    # ---- reading -------------------------------------------------------------

    def wait_for(self, predicate, what="a message"):
        deadline = time.monotonic() + TIMEOUT
        with self.cond:
            while True:
                for m in self.messages:
                    if predicate(m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("timed out waiting for %s; received %s" %
                                         (what, json.dumps(self.messages)[-2000:]))
                if self.proc.poll() is not None and not self.reader.is_alive():
                    raise AssertionError("the server exited (%s) while waiting for %s" %
                                         (self.proc.returncode, what))
                self.cond.wait(min(left, 0.5))

    def diagnostics(self, uri):
        with self.cond:
            return [m["params"] for m in self.messages
                    if m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == uri]

    def wait_diagnostics(self, uri, version):
        return self.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri and m["params"].get("version") == version,
            "diagnostics of %s version %d" % (uri, version))["params"]

    def initialize(self):
        reply = self.request("initialize", {"processId": os.getpid(), "rootUri": None,
                                            "capabilities": {}})
        assert "capabilities" in reply["result"], reply
        self.notify("initialized")

    def finish(self):
        """shutdown, exit, and the exit code."""
        reply = self.request("shutdown")
        assert reply["result"] is None, reply
        self.notify("exit")
        try:
            return self.proc.wait(TIMEOUT)
        finally:
            self.proc.stdin.close()


def uri_of(path):
    return "file://" + os.path.abspath(path)


def position_of(text, needle, occurrence=0, shift=0):
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(needle, at + 1)
    at += shift
    line = text.count("\n", 0, at)
    start = text.rfind("\n", 0, at) + 1
    # UTF-16 code units.
    character = len(text[start:at].encode("utf-16-le")) // 2
    return {"line": line, "character": character}
