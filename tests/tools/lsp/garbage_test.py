#!/usr/bin/env python3
"""Throws garbage at `bendc --lsp`: broken headers, broken JSON, messages of
the wrong shape, unknown methods, bad parameters, positions far outside the
document, documents of random bytes. Each request gets an answer (a result
or an error); the server stays up and answers a last honest request, then
exits cleanly.

usage: garbage_test.py BENDC"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import Server  # noqa: E402

URI = "file:///nonexistent-bendc-garbage/main.bend"


def main():
    rng = random.Random(int(os.environ.get("BENDC_LSP_GARBAGE_SEED", "13")))
    s = Server(sys.argv[1])
    s.initialize()
    errors_expected = 0

    # Framing garbage: a bad header is answered with a parse error, and the
    # reader skips to the next Content-Length (so headers that arrive
    # together with an earlier bad one may be skipped in one go).
    for junk in [b"Content-Length: x\r\n\r\n{}",
                 b"Content-Type: text/plain\r\n\r\n",
                 b"Content-Length: 99999999999\r\n\r\n",
                 b"nonsense without a colon\r\n\r\n"]:
        s.write(junk)
    errors_expected += 1
    # Bodies that are not JSON-RPC.
    for body in [b"{", b"[]", b"42", b'"text"', b"null", b'{"id": [1], "method": "x"}',
                 b"\xff\xfe\xfd"]:
        s.write(s.frame(body))
        errors_expected += 1
    # Nesting deep enough to overflow a recursive parser's stack.
    s.write(s.frame(b"[" * 2000000))
    errors_expected += 1
    s.write(s.frame(b'{"id": 5}'))
    s.write(s.frame(json.dumps({"jsonrpc": "2.0", "id": 6, "method": 7}).encode()))
    # Unknown methods and bad parameters.
    ids = [s.request_async("no/such/method", {}),
           s.request_async("textDocument/hover", "not an object"),
           s.request_async("textDocument/hover", {"textDocument": {"uri": URI},
                                                  "position": {"line": "one", "character": 0}}),
           s.request_async("textDocument/definition", {"textDocument": {}}),
           s.request_async("textDocument/completion", None),
           s.request_async("initialize", {})]
    # Notifications of the wrong shape: ignored.
    s.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                        "contentChanges": [{"text": 5}]})
    s.notify("textDocument/didOpen", {"textDocument": None})
    s.notify("$/whatever", {"x": [1, 2, 3]})

    # A document of random text, edited at random places, some of them far
    # outside it; requests at random positions.
    alphabet = "abcxyz(){}[]:=λ😀é#\"'\n  \t$@*_-/.,0123456789defmatchcasereturnswitch"
    text = "".join(rng.choice(alphabet) for _ in range(3000))
    s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "bend",
                                                       "version": 1, "text": text}})
    version = 1
    for _ in range(150):
        version += 1
        a = {"line": rng.randrange(0, 80), "character": rng.randrange(0, 120)}
        b = {"line": a["line"] + rng.randrange(0, 3), "character": rng.randrange(0, 120)}
        insert = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        s.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": version},
                                            "contentChanges": [{"range": {"start": a, "end": b},
                                                                "text": insert}]})
        if rng.random() < 0.3:
            method = rng.choice(["textDocument/hover", "textDocument/definition",
                                 "textDocument/completion", "textDocument/documentSymbol"])
            pos = {"line": rng.randrange(0, 200), "character": rng.randrange(0, 300)}
            ids.append(s.request_async(method, {"textDocument": {"uri": URI}, "position": pos}))
    # A real program broken a little more at each edit, asked about at every
    # step: what the index makes of half-broken syntax.
    uri2 = "file:///nonexistent-bendc-garbage/program.bend"
    here = os.path.dirname(os.path.abspath(__file__))
    program = open(os.path.join(here, "inputs", "main.bend"), encoding="utf-8").read()
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri2, "languageId": "bend",
                                                       "version": 1, "text": program}})
    tokens = ["(", ")", ":", "=", "match", "case", "fold", "λ", "x", "return", "\n  ", "{", "}",
              "Bin/Node", "$y", "with", "bend", "when", "else", "def", "#", "\"", "[", "]", ","]
    lines = program.count("\n") + 1
    for v in range(2, 60):
        a = {"line": rng.randrange(0, lines), "character": rng.randrange(0, 40)}
        b = {"line": a["line"], "character": a["character"] + rng.randrange(0, 4)}
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri2, "version": v},
                                            "contentChanges": [{"range": {"start": a, "end": b},
                                                                "text": rng.choice(tokens)}]})
        for method in ["textDocument/hover", "textDocument/definition", "textDocument/completion"]:
            pos = {"line": rng.randrange(0, lines), "character": rng.randrange(0, 40)}
            ids.append(s.request_async(method, {"textDocument": {"uri": uri2}, "position": pos}))
        ids.append(s.request_async("textDocument/documentSymbol", {"textDocument": {"uri": uri2}}))

    # A NUL and a lone surrogate escape in the text.
    version += 1
    s.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": version},
                                        "contentChanges": [{"text": "def main():\u0000\n  return \ud800 1\n"}]})
    ids.append(s.request_async("textDocument/hover", {"textDocument": {"uri": URI},
                                                      "position": {"line": 1, "character": 3}}))

    # Every request is answered, with a result or an error.
    for rid in ids:
        s.wait_for(lambda m, rid=rid: m.get("id") == rid and ("result" in m or "error" in m),
                   "an answer to request %d" % rid)
    # Malformed messages are answered with errors that name no request
    # (those that had a usable id, 5 and 6, get errors with it).
    for rid in (5, 6):
        s.wait_for(lambda m, rid=rid: m.get("id") == rid and "error" in m, "an error for id %d" % rid)
    s.wait_for(lambda m: sum(1 for x in s.messages if "error" in x and x["id"] is None)
               >= errors_expected, "%d errors with a null id" % errors_expected)
    s.wait_diagnostics(URI, version)

    # Still up: an honest request is answered.
    reply = s.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    assert "result" in reply, reply
    rc = s.finish()
    assert rc == 0, rc
    print("ok: %d messages answered" % len(s.messages))


if __name__ == "__main__":
    main()
