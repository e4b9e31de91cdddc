#!/usr/bin/env python3
"""A scripted session with `bendc --lsp` over pipes: open a file with an
error, type a burst of keystrokes (the newest version must win and no older
check may be published after a newer one), ask hover, definition, symbols
and completion, then shut down.

usage: session_test.py BENDC INPUTS_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import Server, position_of, uri_of  # noqa: E402


def main():
    bendc, inputs = sys.argv[1], sys.argv[2]
    path = os.path.join(inputs, "main.bend")
    uri = uri_of(path)
    good = open(path, encoding="utf-8").read()
    # `double(3)` misspelled: an unbound name.
    broken = good.replace("double(3)", "doubel(3)")
    assert broken != good

    s = Server(bendc)
    s.initialize()
    s.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "bend", "version": 1, "text": broken}})
    first = s.wait_diagnostics(uri, 1)
    codes = [d["code"] for d in first["diagnostics"]]
    assert "UnboundReference" in codes or "UnboundVariable" in codes, first
    bad = first["diagnostics"][0]
    assert bad["range"]["start"] == position_of(broken, "doubel"), bad

    # Retype the name one keystroke at a time, all written at once: delete
    # "doubel" backwards, then type "double".
    start = position_of(broken, "doubel")
    line, col = start["line"], start["character"]
    changes = []
    for i in range(6, 0, -1):
        changes.append({"range": {"start": {"line": line, "character": col + i - 1},
                                  "end": {"line": line, "character": col + i}}, "text": ""})
    for i, ch in enumerate("double"):
        changes.append({"range": {"start": {"line": line, "character": col + i},
                                  "end": {"line": line, "character": col + i}}, "text": ch})
    burst = b""
    for version, change in enumerate(changes, start=2):
        burst += s.frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
    s.write(burst)
    last = len(changes) + 1
    final = s.wait_diagnostics(uri, last)
    assert final["diagnostics"] == [], final
    versions = [p["version"] for p in s.diagnostics(uri)]
    assert versions == sorted(versions), "an older check was published after a newer one: %s" % versions
    # How many of the keystrokes got a check of their own depends on timing
    # (the unit tests pin that a burst is checked once); the order does not.

    # Hover: the type of a checked definition, and its documentation.
    reply = s.request("textDocument/hover", {"textDocument": {"uri": uri},
                                             "position": position_of(good, "sum(t.left)")})
    value = reply["result"]["contents"]["value"]
    assert "sum: Bin -> u24" in value and "Adds up a tree's leaves." in value, reply
    # Definition of an imported name: the library file on disk.
    reply = s.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                  "position": position_of(good, "double(3)")})
    assert reply["result"]["uri"] == uri_of(os.path.join(inputs, "lib.bend")), reply
    assert reply["result"]["range"]["start"] == {"line": 1, "character": 0}, reply
    # Symbols and completion.
    reply = s.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [x["name"] for x in reply["result"]] == ["Bin", "sum", "main"], reply
    reply = s.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                  "position": position_of(good, "x), Bin")})
    labels = [i["label"] for i in reply["result"]["items"]]
    assert "x" in labels and "double" in labels and "List/Cons" in labels, labels[:20]
    # Something the server does not do.
    reply = s.request("textDocument/formatting", {"textDocument": {"uri": uri}, "options": {}})
    assert reply["error"]["code"] == -32601, reply

    s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    rc = s.finish()
    assert rc == 0, rc
    print("ok: %d messages, diagnostics published for versions %s" % (len(s.messages), versions))


if __name__ == "__main__":
    main()
