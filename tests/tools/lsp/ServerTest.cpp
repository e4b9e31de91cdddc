// The server in-process: lifecycle, error responses, document sync,
// diagnostics and the answers about names. Documents live in a folder that
// does not exist: imports are read from the other open documents.
#include "tools/lsp/Server.h"
#include "tools/lsp/Text.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace bendc::lsp;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

const char *const kDir = "/nonexistent-bendc-lsp-test";
const std::string kMainUri = std::string("file://") + kDir + "/main.bend";
const std::string kLibUri = std::string("file://") + kDir + "/lib.bend";

const std::string kLib = R"(# Doubles a number.
double (x: u24) : u24 = (* x 2)
)";

const std::string kMain = R"(from ./lib import double

# A tree of numbers.
type Bin:
  Node { ~left, ~right }
  Leaf { value }

# Adds up a tree's leaves.
def sum(t: Bin) -> u24:
  match t:
    case Bin/Node:
      return sum(t.left) + sum(t.right)
    case Bin/Leaf:
      return t.value

add = λa λb (+ a b)

def main() -> u24:
  x = double(3)
  return sum(Bin/Node(Bin/Leaf(add(x, 1)), Bin/Leaf(2)))
)";

/// A client: sends messages to an in-process server and keeps what it says.
class Client {
public:
  Client() : server([this](Value v) { sent.push_back(std::move(v)); }) {}

  Value request(llvm::StringRef method, Value params = Object()) {
    int64_t id = nextId++;
    server.handle(Object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    for (const Value &v : sent)
      if (const Object *o = v.getAsObject(); o && o->getInteger("id") == id)
        return v;
    FAIL("no response to " << method.str());
    return nullptr;
  }
  /// The result of a request that must succeed.
  Value result(llvm::StringRef method, Value params) {
    Value r = request(method, std::move(params));
    const Object *o = r.getAsObject();
    REQUIRE(o);
    REQUIRE_MESSAGE(o->get("result"), "error: " << r);
    return *o->get("result");
  }
  void notify(llvm::StringRef method, Value params = Object()) {
    server.handle(Object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  void initialize() {
    result("initialize", Object{{"capabilities", Object()}});
    notify("initialized");
  }
  void open(const std::string &uri, const std::string &text, int64_t version = 1) {
    notify("textDocument/didOpen",
           Object{{"textDocument",
                   Object{{"uri", uri}, {"languageId", "bend"}, {"version", version}, {"text", text}}}});
  }
  void change(const std::string &uri, int64_t version, Array changes) {
    notify("textDocument/didChange",
           Object{{"textDocument", Object{{"uri", uri}, {"version", version}}},
                  {"contentChanges", std::move(changes)}});
  }
  /// Every publishDiagnostics for `uri` sent so far, oldest first; forgets them.
  std::vector<Object> published(const std::string &uri) {
    std::vector<Object> out;
    std::vector<Value> rest;
    for (Value &v : sent) {
      const Object *o = v.getAsObject();
      if (o && o->getString("method") == llvm::StringRef("textDocument/publishDiagnostics") &&
          o->getObject("params")->getString("uri") == llvm::StringRef(uri))
        out.push_back(*o->getObject("params"));
      else
        rest.push_back(std::move(v));
    }
    sent = std::move(rest);
    return out;
  }
  /// The diagnostics of the one check of `uri` since the last call.
  Array diagnostics(const std::string &uri) {
    server.checkPending();
    std::vector<Object> p = published(uri);
    REQUIRE(p.size() == 1);
    return *p.back().getArray("diagnostics");
  }
  Value at(const std::string &uri, Position p) {
    return Object{{"textDocument", Object{{"uri", uri}}},
                  {"position", Object{{"line", int64_t(p.line)}, {"character", int64_t(p.character)}}}};
  }

  Server server;
  std::vector<Value> sent;
  int64_t nextId = 1;
};

/// Where the `n`-th `needle` in `text` starts, moved `shift` bytes on.
Position find(const std::string &text, llvm::StringRef needle, unsigned n = 0, size_t shift = 0) {
  size_t at = text.find(needle.str());
  for (; n > 0; --n)
    at = text.find(needle.str(), at + 1);
  REQUIRE(at != std::string::npos);
  return positionAt(text, at + shift);
}

int64_t errorCode(const Value &response) {
  const Object *e = response.getAsObject()->getObject("error");
  REQUIRE_MESSAGE(e, "not an error: " << response);
  return *e->getInteger("code");
}

std::string hoverText(const Value &hover) {
  REQUIRE(hover.getAsObject());
  return hover.getAsObject()->getObject("contents")->getString("value")->str();
}

Position startOf(const Value &range) {
  const Object *s = range.getAsObject()->getObject("start");
  return Position{unsigned(*s->getInteger("line")), unsigned(*s->getInteger("character"))};
}

std::vector<std::string> codes(const Array &diags) {
  std::vector<std::string> out;
  for (const Value &d : diags)
    out.push_back(d.getAsObject()->getString("code")->str());
  return out;
}

} // namespace

// ---- lifecycle and errors ------------------------------------------------------

TEST_CASE("initialize announces sync, hover, definition, symbols and completion") {
  Client c;
  Value caps = *c.result("initialize", Object()).getAsObject()->get("capabilities");
  const Object &o = *caps.getAsObject();
  CHECK(o.getObject("textDocumentSync")->getInteger("change") == int64_t(2));
  CHECK(o.getBoolean("hoverProvider") == true);
  CHECK(o.getBoolean("definitionProvider") == true);
  CHECK(o.getBoolean("documentSymbolProvider") == true);
  CHECK(o.getObject("completionProvider"));
}

TEST_CASE("requests before initialize are refused; initialize only once") {
  Client c;
  CHECK(errorCode(c.request("textDocument/hover", c.at(kMainUri, {0, 0}))) == ServerNotInitialized);
  c.initialize();
  CHECK(errorCode(c.request("initialize")) == InvalidRequest);
}

TEST_CASE("shutdown then exit ends with 0; exit alone with 1") {
  Client c;
  c.initialize();
  CHECK(c.result("shutdown", nullptr) == Value(nullptr));
  CHECK(errorCode(c.request("textDocument/documentSymbol",
                            Object{{"textDocument", Object{{"uri", kMainUri}}}})) == InvalidRequest);
  CHECK(!c.server.exitRequested());
  c.notify("exit");
  CHECK(c.server.exitRequested());
  CHECK(c.server.exitCode() == 0);
  Client d;
  d.initialize();
  d.notify("exit");
  CHECK(d.server.exitCode() == 1);
}

TEST_CASE("malformed messages get error responses with a null id") {
  Client c;
  c.initialize();
  c.sent.clear();
  c.server.handleText("{\"jsonrpc\": \"2.0\", \"id\": 1, ");
  c.server.handleText("[1, 2, 3]");
  c.server.handleText(R"({"jsonrpc":"2.0","id":{"x":1},"method":"shutdown"})");
  c.server.handleText(R"({"jsonrpc":"2.0","id":7})");
  c.server.badFrame("invalid Content-Length 'x'");
  REQUIRE(c.sent.size() == 5);
  const int expected[] = {ParseError, InvalidRequest, InvalidRequest, InvalidRequest, ParseError};
  for (size_t i = 0; i < 5; ++i) {
    CHECK(errorCode(c.sent[i]) == expected[i]);
    if (i != 3)
      CHECK(*c.sent[i].getAsObject()->get("id") == Value(nullptr));
  }
  CHECK(c.sent[3].getAsObject()->getInteger("id") == int64_t(7));
}

TEST_CASE("JSON nested too deeply is refused before it is parsed") {
  Client c;
  c.initialize();
  c.sent.clear();
  c.server.handleText(std::string(1000000, '['));
  std::string deepObject;
  for (int i = 0; i < 300; ++i)
    deepObject += "{\"a\":";
  c.server.handleText(deepObject);
  // Brackets inside strings do not count.
  c.server.handleText(R"({"jsonrpc":"2.0","id":3,"method":"shutdown","params":")" +
                      std::string(1000, '[') + R"(\""})");
  REQUIRE(c.sent.size() == 3);
  CHECK(errorCode(c.sent[0]) == ParseError);
  CHECK(errorCode(c.sent[1]) == ParseError);
  CHECK(c.sent[2].getAsObject()->get("result"));
}

TEST_CASE("an unknown request is MethodNotFound; an unknown notification is ignored") {
  Client c;
  c.initialize();
  CHECK(errorCode(c.request("textDocument/rename", Object())) == MethodNotFound);
  c.sent.clear();
  c.notify("$/unknownNotification", Object{{"x", 1}});
  c.notify("workspace/didChangeConfiguration", nullptr);
  c.server.handle(Object{{"jsonrpc", "2.0"}, {"id", 99}, {"result", nullptr}}); // a response
  CHECK(c.sent.empty());
}

TEST_CASE("requests with missing or wrong parameters are InvalidParams") {
  Client c;
  c.initialize();
  CHECK(errorCode(c.request("textDocument/hover", nullptr)) == InvalidParams);
  CHECK(errorCode(c.request("textDocument/hover", Object{{"textDocument", Object{{"uri", 3}}}})) ==
        InvalidParams);
  CHECK(errorCode(c.request("textDocument/definition",
                            Object{{"textDocument", Object{{"uri", kMainUri}}},
                                   {"position", Object{{"line", -1}, {"character", 0}}}})) ==
        InvalidParams);
  // A bad notification is dropped without a word (there is no one to answer).
  c.sent.clear();
  c.notify("textDocument/didChange", Object{{"textDocument", 5}});
  c.notify("textDocument/didOpen", Array{1, 2});
  CHECK(c.sent.empty());
}

// ---- diagnostics and sync ----------------------------------------------------------

TEST_CASE("diagnostics have ranges, kind names as codes and notes as related locations") {
  Client c;
  c.initialize();
  std::string text = "def main():\n  return zz\n\ndef f():\n  return 1\n\ndef f():\n  return 2\n";
  c.open(kMainUri, text, 4);
  c.server.checkPending();
  std::vector<Object> p = c.published(kMainUri);
  REQUIRE(p.size() == 1);
  CHECK(p[0].getInteger("version") == int64_t(4));
  Array diags = *p[0].getArray("diagnostics");
  REQUIRE(diags.size() == 2);
  const Object &unbound = *diags[1].getAsObject();
  CHECK(unbound.getString("code") == llvm::StringRef("UnboundVariable"));
  CHECK(unbound.getInteger("severity") == int64_t(1));
  Position at = startOf(*unbound.get("range"));
  CHECK(at.line == 1);
  CHECK(at.character == 9);
  const Object &dup = *diags[0].getAsObject();
  CHECK(dup.getString("code") == llvm::StringRef("DuplicateDefinition"));
  const Array *related = dup.getArray("relatedInformation");
  REQUIRE(related);
  REQUIRE(related->size() == 1);
  const Object &loc = *(*related)[0].getAsObject()->getObject("location");
  CHECK(loc.getString("uri") == llvm::StringRef(kMainUri));
  CHECK(startOf(*loc.get("range")).line == 3);
  CHECK((*related)[0].getAsObject()->getString("message") == llvm::StringRef("first defined here"));
}

TEST_CASE("a burst of edits is checked once, at its newest version") {
  Client c;
  c.initialize();
  c.open(kMainUri, "def main():\n  return zz\n", 1);
  c.change(kMainUri, 2, Array{Object{{"text", "def main():\n  return yy\n"}}});
  c.change(kMainUri, 3, Array{Object{{"text", "def main():\n  return 1\n"}}});
  CHECK(c.server.hasPending());
  c.server.checkPending();
  std::vector<Object> p = c.published(kMainUri);
  REQUIRE(p.size() == 1);
  CHECK(p[0].getInteger("version") == int64_t(3));
  CHECK(p[0].getArray("diagnostics")->empty());
  CHECK(!c.server.hasPending());
  c.server.checkPending(); // nothing changed: nothing published
  CHECK(c.published(kMainUri).empty());
  c.change(kMainUri, 4,
           Array{Object{{"range", Object{{"start", Object{{"line", 1}, {"character", 9}}},
                                         {"end", Object{{"line", 1}, {"character", 10}}}}},
                        {"text", "q"}}});
  Array diags = c.diagnostics(kMainUri);
  CHECK(codes(diags) == std::vector<std::string>{"UnboundVariable"});
}

TEST_CASE("incremental edits after non-ASCII text land where the client means") {
  Client c;
  c.initialize();
  // λ is one UTF-16 unit (two bytes); 😀 two units (four bytes).
  std::string text = "def main():\n  return [\"\xCE\xBB\xF0\x9F\x98\x80\", zz]\n";
  c.open(kMainUri, text);
  Array diags = c.diagnostics(kMainUri);
  REQUIRE(diags.size() == 1);
  Position at = startOf(*diags[0].getAsObject()->get("range"));
  CHECK(at.line == 1);
  CHECK(at.character == 17);
  c.change(kMainUri, 2,
           Array{Object{{"range", Object{{"start", Object{{"line", 1}, {"character", 17}}},
                                         {"end", Object{{"line", 1}, {"character", 19}}}}},
                        {"text", "1"}}});
  CHECK(c.diagnostics(kMainUri).empty());
}

TEST_CASE("hover and definition columns count UTF-16 units after non-ASCII text") {
  Client c;
  c.initialize();
  std::string text = "def main():\n  zz = 1\n  return [\"\xCE\xBB\xF0\x9F\x98\x80\", zz]\n";
  c.open(kMainUri, text);
  // `zz` on line 2 starts at UTF-16 column 17 (byte column 20).
  Value hover = c.result("textDocument/hover", c.at(kMainUri, {2, 18}));
  CHECK(hoverText(hover) == "```bend\nzz\n```");
  Position b = startOf(*hover.getAsObject()->get("range"));
  CHECK(b.line == 2);
  CHECK(b.character == 17);
  Value d = c.result("textDocument/definition", c.at(kMainUri, {2, 17}));
  CHECK(startOf(*d.getAsObject()->get("range")).line == 1);
  CHECK(c.result("textDocument/hover", c.at(kMainUri, {2, 16})) == Value(nullptr));
}

TEST_CASE("imports are read relative to the file, from the editor's text when open") {
  Client c;
  c.initialize();
  c.open(kLibUri, kLib);
  c.open(kMainUri, kMain);
  c.server.checkPending();
  std::vector<Object> p = c.published(kMainUri);
  REQUIRE(p.size() == 1);
  CHECK(p[0].getArray("diagnostics")->empty());
  // Renaming the definition in the library breaks the import in main, which
  // is checked again.
  c.change(kLibUri, 2, Array{Object{{"text", "twice (x: u24) : u24 = (* x 2)\n"}}});
  c.server.checkPending();
  p = c.published(kMainUri);
  REQUIRE(p.size() == 1);
  std::vector<std::string> got = codes(*p[0].getArray("diagnostics"));
  REQUIRE(!got.empty());
  CHECK(got.front() == "ImportNotFound");
}

TEST_CASE("an error in an imported file shows at the import and points into the file") {
  Client c;
  c.initialize();
  c.open(kLibUri, "double (x: u24) : u24 = (* x oops)\n");
  c.open(kMainUri, kMain);
  c.server.checkPending();
  std::vector<Object> p = c.published(kMainUri);
  REQUIRE(p.size() == 1);
  Array diags = *p[0].getArray("diagnostics");
  REQUIRE(diags.size() >= 1);
  const Object &d = *diags[0].getAsObject();
  CHECK(llvm::StringRef(*d.getString("message")).startswith("in 'lib.bend': "));
  CHECK(startOf(*d.get("range")).line == 0); // the import
  const Object &loc = *(*d.getArray("relatedInformation"))[0].getAsObject()->getObject("location");
  CHECK(loc.getString("uri") == llvm::StringRef(kLibUri));
}

TEST_CASE("a file without main is no error in the editor") {
  Client c;
  c.initialize();
  c.open(kLibUri, kLib);
  CHECK(c.diagnostics(kLibUri).empty());
}

TEST_CASE("closing a document drops it and clears its diagnostics") {
  Client c;
  c.initialize();
  c.open(kMainUri, "def main():\n  return zz\n");
  c.server.checkPending();
  c.published(kMainUri);
  CHECK(c.server.openDocuments() == 1);
  c.notify("textDocument/didClose", Object{{"textDocument", Object{{"uri", kMainUri}}}});
  CHECK(c.server.openDocuments() == 0);
  std::vector<Object> p = c.published(kMainUri);
  REQUIRE(p.size() == 1);
  CHECK(p[0].getArray("diagnostics")->empty());
  CHECK(c.result("textDocument/hover", c.at(kMainUri, {0, 0})) == Value(nullptr));
}

// ---- answers about names ---------------------------------------------------------

TEST_CASE("hover shows inferred types and the comment above a definition") {
  Client c;
  c.initialize();
  c.open(kLibUri, kLib);
  c.open(kMainUri, kMain);
  std::string h = hoverText(c.result("textDocument/hover", c.at(kMainUri, find(kMain, "sum(t.left)"))));
  CHECK(h == "```bend\nsum: Bin -> u24\n```\n\n---\n\nAdds up a tree's leaves.");
  // A variable: its type where it is used.
  h = hoverText(c.result("textDocument/hover", c.at(kMainUri, find(kMain, "x, 1"))));
  CHECK(h == "```bend\nx: u24\n```");
  // An imported definition, with its documentation from its own file.
  h = hoverText(c.result("textDocument/hover", c.at(kMainUri, find(kMain, "double(3)", 0, 2))));
  CHECK(h == "```bend\nlib/double: u24 -> u24\n```\n\n---\n\nDoubles a number.");
  // A constructor.
  h = hoverText(c.result("textDocument/hover", c.at(kMainUri, find(kMain, "Bin/Leaf(2)"))));
  CHECK(llvm::StringRef(h).startswith("```bend\nBin/Leaf: Any -> Bin\n```"));
  CHECK(llvm::StringRef(h).contains("constructor of `Bin`"));
  // A type, with its constructors.
  h = hoverText(c.result("textDocument/hover", c.at(kMainUri, find(kMain, "Bin) ->"))));
  CHECK(h == "```bend\ntype Bin\n  Bin/Node: Any -> Any -> Bin\n  Bin/Leaf: Any -> Bin\n```\n\n---\n\n"
             "A tree of numbers.");
  // An unchecked definition: its signature as written.
  h = hoverText(c.result("textDocument/hover", c.at(kMainUri, find(kMain, "add ="))));
  CHECK(h == "```bend\nadd\n```");
  // A builtin.
  std::string other = "def main():\n  return List/Cons(1, List/Nil)\n";
  c.open(kMainUri, other, 2);
  h = hoverText(c.result("textDocument/hover", c.at(kMainUri, find(other, "Cons"))));
  CHECK(llvm::StringRef(h).contains("List/Cons: "));
  CHECK(llvm::StringRef(h).contains("builtin"));
}

TEST_CASE("hover where no name is, or outside the document, is null") {
  Client c;
  c.initialize();
  c.open(kMainUri, kMain);
  CHECK(c.result("textDocument/hover", c.at(kMainUri, {1, 0})) == Value(nullptr));
  CHECK(c.result("textDocument/hover", c.at(kMainUri, {500, 3})) == Value(nullptr));
  CHECK(c.result("textDocument/hover", c.at(kMainUri, {0, 4000})) == Value(nullptr));
  CHECK(c.result("textDocument/definition", c.at(kMainUri, {500, 3})) == Value(nullptr));
  CHECK(c.result("textDocument/hover", c.at("file:///not/open.bend", {0, 0})) == Value(nullptr));
}

TEST_CASE("definition finds definitions, constructors, types, imports and locals") {
  Client c;
  c.initialize();
  c.open(kLibUri, kLib);
  c.open(kMainUri, kMain);
  auto definition = [&](Position p) {
    Value r = c.result("textDocument/definition", c.at(kMainUri, p));
    REQUIRE(r.getAsObject());
    return std::make_pair(r.getAsObject()->getString("uri")->str(),
                          startOf(*r.getAsObject()->get("range")));
  };
  auto expect = [&](Position use, const std::string &uri, Position decl) {
    auto [gotUri, gotPos] = definition(use);
    CHECK(gotUri == uri);
    CHECK(gotPos.line == decl.line);
    CHECK(gotPos.character == decl.character);
  };
  expect(find(kMain, "sum(t.left)"), kMainUri, find(kMain, "sum(t: Bin)"));
  expect(find(kMain, "Bin/Leaf(2)"), kMainUri, find(kMain, "Leaf { value }"));
  expect(find(kMain, "Bin) ->"), kMainUri, find(kMain, "Bin:"));
  expect(find(kMain, "double(3)"), kLibUri, Position{1, 0});
  expect(find(kMain, "double", 0), kLibUri, Position{1, 0}); // the import itself
  expect(find(kMain, "x, 1"), kMainUri, find(kMain, "x = double"));
  expect(find(kMain, "t.left"), kMainUri, find(kMain, "Bin/Node:"));
  expect(find(kMain, "b)"), kMainUri, find(kMain, "b (+"));
}

TEST_CASE("document symbols outline types with their constructors, and definitions") {
  Client c;
  c.initialize();
  c.open(kLibUri, kLib);
  c.open(kMainUri, kMain);
  Value r = c.result("textDocument/documentSymbol", Object{{"textDocument", Object{{"uri", kMainUri}}}});
  const Array &symbols = *r.getAsArray();
  std::vector<std::string> names;
  for (const Value &s : symbols)
    names.push_back(s.getAsObject()->getString("name")->str());
  CHECK(names == std::vector<std::string>{"Bin", "sum", "add", "main"});
  const Object &bin = *symbols[0].getAsObject();
  CHECK(bin.getInteger("kind") == int64_t(10));
  const Array &ctrs = *bin.getArray("children");
  REQUIRE(ctrs.size() == 2);
  CHECK(ctrs[0].getAsObject()->getString("name") == llvm::StringRef("Bin/Node"));
  CHECK(symbols[1].getAsObject()->getString("detail") == llvm::StringRef("Bin -> u24"));
}

TEST_CASE("completion offers the locals in scope, definitions, constructors and builtins") {
  Client c;
  c.initialize();
  c.open(kLibUri, kLib);
  c.open(kMainUri, kMain);
  Value r = c.result("textDocument/completion", c.at(kMainUri, find(kMain, "x, 1")));
  std::vector<std::string> labels;
  for (const Value &item : *r.getAsObject()->getArray("items"))
    labels.push_back(item.getAsObject()->getString("label")->str());
  auto has = [&](llvm::StringRef l) { return llvm::is_contained(labels, l); };
  CHECK(has("x"));
  CHECK(has("sum"));
  CHECK(has("double"));
  CHECK(has("Bin/Leaf"));
  CHECK(has("List/Cons"));
  CHECK(!has("t")); // another definition's parameter
  CHECK(labels.front() == "x");
  // Outside the document: nothing.
  r = c.result("textDocument/completion", c.at(kMainUri, {900, 0}));
  CHECK(r.getAsArray()->empty());
}

TEST_CASE("answers survive a document broken halfway through an edit") {
  Client c;
  c.initialize();
  std::string text = kMain + "\ndef broken(:\n  return (\n";
  c.open(kMainUri, text);
  Array diags = c.diagnostics(kMainUri);
  CHECK(llvm::is_contained(codes(diags), "SyntaxError"));
  // What parsed is still known.
  std::string h = hoverText(c.result("textDocument/hover", c.at(kMainUri, find(text, "sum(t.left)"))));
  CHECK(llvm::StringRef(h).contains("sum"));
  CHECK(c.result("textDocument/documentSymbol", Object{{"textDocument", Object{{"uri", kMainUri}}}})
            .getAsArray());
}

TEST_CASE("fun-syntax locals: a switch's predecessor and the function's own name") {
  Client c;
  c.initialize();
  std::string text = "sum n = switch n { 0: 0; _: (+ n-1 (sum n-1)) }\n"
                     "main = (sum 10)\n";
  c.open(kMainUri, text);
  CHECK(c.diagnostics(kMainUri).empty());
  std::string h = hoverText(c.result("textDocument/hover", c.at(kMainUri, find(text, "n-1", 1))));
  CHECK(llvm::StringRef(h).startswith("```bend\nn-1"));
  Value d = c.result("textDocument/definition", c.at(kMainUri, find(text, "n-1", 1)));
  CHECK(startOf(*d.getAsObject()->get("range")).character == find(text, "_:").character);
  d = c.result("textDocument/definition", c.at(kMainUri, find(text, "sum 10", 0, 1)));
  CHECK(startOf(*d.getAsObject()->get("range")).character == 0);
}
