#include "tools/lsp/Server.h"

#include "tools/lsp/Text.h"

#include "support/Diagnostic.h"
#include "frontend/Frontend.h"
#include "frontend/Index.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <exception>
#include <new>

namespace bendc::lsp {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;
using Kind = frontend::ProgramIndex::Kind;
using Clock = std::chrono::steady_clock;

/// One check of one version of a document: the sources it read (their
/// buffers are what the index's ranges point into), the index, and the
/// diagnostics as the protocol shows them.
struct Server::Analysis {
  llvm::SourceMgr sm;
  unsigned buffer = 0;
  std::unique_ptr<frontend::ProgramIndex> index;
  Array diagnostics; // until they are published
  std::unique_ptr<LineIndex> lines;
  llvm::StringSet<> files; // every file the check read, for re-checking importers

  llvm::StringRef text() const { return sm.getMemoryBuffer(buffer)->getBuffer(); }
  llvm::SMLoc locAt(size_t offset) const {
    return llvm::SMLoc::getFromPointer(text().data() + offset);
  }
};

struct Server::Document {
  std::string uri;
  std::string path; // the file, or the URI itself for other schemes
  std::string text;
  int64_t version = 0;
  bool dirty = true;
  Clock::time_point changedAt;
  std::unique_ptr<Analysis> analysis; // of `text` when not dirty
};

namespace {
/// Why a message cannot be answered as asked: thrown by the handlers,
/// turned into an error response.
struct Failure {
  int code;
  std::string message;
};
} // namespace

Server::Server(Sender send) : send(std::move(send)) {}
Server::~Server() = default;

// ---- messages ----------------------------------------------------------------

void Server::reply(const Value &id, Value result) {
  send(Object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Server::replyError(const Value &id, int code, llvm::StringRef message) {
  send(Object{{"jsonrpc", "2.0"},
              {"id", id},
              {"error", Object{{"code", code}, {"message", message.str()}}}});
}

/// Whether JSON text nests arrays and objects deeper than `limit`: the
/// parser recurses once a level, and a message of a million `[` must not
/// take the server's stack.
static bool nestsDeeperThan(llvm::StringRef text, unsigned limit) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if ((c == '[' || c == '{') && ++depth > limit)
      return true;
    else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return false;
}

void Server::handleText(llvm::StringRef text) {
  // No message of the protocol comes near this depth.
  if (nestsDeeperThan(text, 256)) {
    replyError(nullptr, ParseError, "JSON nested more than 256 levels deep");
    return;
  }
  llvm::Expected<Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    replyError(nullptr, ParseError, "invalid JSON: " + llvm::toString(parsed.takeError()));
    return;
  }
  handle(*parsed);
}

void Server::badFrame(llvm::StringRef why) { replyError(nullptr, ParseError, why); }

void Server::handle(const Value &message) {
  const Object *o = message.getAsObject();
  if (!o) {
    replyError(nullptr, InvalidRequest, "a message must be a JSON object");
    return;
  }
  const Value *id = o->get("id");
  if (id && id->kind() != Value::String && id->kind() != Value::Number) {
    replyError(nullptr, InvalidRequest, "a request id must be a number or a string");
    return;
  }
  llvm::Optional<llvm::StringRef> method = o->getString("method");
  if (!method) {
    // A response to a request of ours: the server sends none.
    if (id && (o->get("result") || o->get("error")))
      return;
    replyError(id ? *id : Value(nullptr), InvalidRequest, "a message without a method");
    return;
  }
  const Value *params = o->get("params");
  try {
    if (id)
      request(*method, *id, params);
    else
      notification(*method, params);
  } catch (const Failure &f) {
    if (id)
      replyError(*id, f.code, f.message);
  } catch (const std::bad_alloc &) {
    if (id)
      replyError(*id, InternalError, "out of memory");
  } catch (const std::exception &e) {
    if (id)
      replyError(*id, InternalError, e.what());
  }
}

void Server::request(llvm::StringRef method, const Value &id, const Value *params) {
  if (method == "initialize") {
    if (initialized)
      throw Failure{InvalidRequest, "initialize was already called"};
    initialized = true;
    reply(id, initialize());
    return;
  }
  if (!initialized)
    throw Failure{ServerNotInitialized, "the server is not initialized"};
  if (shutdown)
    throw Failure{InvalidRequest, "the server is shutting down"};
  if (method == "shutdown") {
    shutdown = true;
    reply(id, nullptr);
    return;
  }
  using Handler = Value (Server::*)(const Value *);
  static const std::pair<llvm::StringLiteral, Handler> handlers[] = {
      {"textDocument/hover", &Server::hover},
      {"textDocument/definition", &Server::definition},
      {"textDocument/documentSymbol", &Server::documentSymbol},
      {"textDocument/completion", &Server::completion},
  };
  for (const auto &[name, handler] : handlers)
    if (method == name) {
      reply(id, (this->*handler)(params));
      return;
    }
  throw Failure{MethodNotFound, "unknown method '" + method.str() + "'"};
}

void Server::notification(llvm::StringRef method, const Value *params) {
  if (method == "exit") {
    exited = true;
    return;
  }
  if (!initialized || shutdown)
    return;
  if (method == "textDocument/didOpen")
    didOpen(params);
  else if (method == "textDocument/didChange")
    didChange(params);
  else if (method == "textDocument/didClose")
    didClose(params);
  // Anything else (initialized, didSave, $/cancelRequest, ...) needs nothing.
}

// ---- parameters ----------------------------------------------------------------

namespace {

[[noreturn]] void invalid(llvm::StringRef why) { throw Failure{InvalidParams, why.str()}; }

const Object &object(const Value *v, llvm::StringRef what) {
  const Object *o = v ? v->getAsObject() : nullptr;
  if (!o)
    invalid(what.str() + " must be an object");
  return *o;
}

std::string string(const Object &o, llvm::StringRef key) {
  llvm::Optional<llvm::StringRef> s = o.getString(key);
  if (!s)
    invalid("'" + key.str() + "' must be a string");
  return s->str();
}

std::string documentUri(const Value *params) {
  const Object &p = object(params, "params");
  return string(object(p.get("textDocument"), "'textDocument'"), "uri");
}

Position position(const Value *v) {
  const Object &o = object(v, "a position");
  llvm::Optional<int64_t> line = o.getInteger("line"), character = o.getInteger("character");
  if (!line || !character || *line < 0 || *character < 0 || *line > UINT32_MAX ||
      *character > UINT32_MAX)
    invalid("a position needs a 'line' and a 'character' (non-negative integers)");
  return Position{unsigned(*line), unsigned(*character)};
}

Value toJson(Position p) {
  return Object{{"line", int64_t(p.line)}, {"character", int64_t(p.character)}};
}

Value rangeJson(Position b, Position e) { return Object{{"start", toJson(b)}, {"end", toJson(e)}}; }

std::string utf8(llvm::StringRef s) {
  return llvm::json::isUTF8(s) ? s.str() : llvm::json::fixUTF8(s);
}

/// What hover shows as the first line: the name and its type, or the
/// declaration as written when it has no type.
std::string signature(const frontend::ProgramIndex::Symbol &s, const std::string &type) {
  switch (s.kind) {
  case Kind::Type:
  case Kind::Object: return type;
  case Kind::Variable: return type.empty() ? s.name : s.name + ": " + type;
  default: return s.typed ? s.name + ": " + type : type;
  }
}

int completionKind(Kind k) {
  switch (k) {
  case Kind::Function:
  case Kind::Hvm: return 3;
  case Kind::Constructor: return 4;
  case Kind::Type: return 7;
  case Kind::Object: return 22;
  case Kind::Variable: return 6;
  }
  return 1;
}

int symbolKind(Kind k) {
  switch (k) {
  case Kind::Function:
  case Kind::Hvm: return 12;
  case Kind::Type: return 10;
  case Kind::Object: return 23;
  case Kind::Constructor: return 22;
  case Kind::Variable: return 13;
  }
  return 12;
}

} // namespace

// ---- documents -----------------------------------------------------------------

Value Server::initialize() {
  Object sync{{"openClose", true}, {"change", 2 /* incremental */}, {"save", false}};
  Object capabilities{
      {"positionEncoding", "utf-16"},
      {"textDocumentSync", std::move(sync)},
      {"hoverProvider", true},
      {"definitionProvider", true},
      {"documentSymbolProvider", true},
      {"completionProvider", Object{{"triggerCharacters", Array{"/", "."}}}},
  };
  return Object{{"capabilities", std::move(capabilities)},
                {"serverInfo", Object{{"name", "bendc"}, {"version", "0.1.0"}}}};
}

void Server::didOpen(const Value *params) {
  const Object &item = object(object(params, "params").get("textDocument"), "'textDocument'");
  Document doc;
  doc.uri = string(item, "uri");
  doc.text = string(item, "text");
  doc.version = item.getInteger("version").getValueOr(0);
  if (std::optional<std::string> path = pathFromUri(doc.uri)) {
    llvm::SmallString<256> p(*path);
    llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
    doc.path = p.str().str();
  } else {
    doc.path = doc.uri;
  }
  doc.changedAt = Clock::now();
  std::string uri = doc.uri;
  documents[uri] = std::move(doc);
}

void Server::didChange(const Value *params) {
  const Object &p = object(params, "params");
  const Object &id = object(p.get("textDocument"), "'textDocument'");
  auto it = documents.find(string(id, "uri"));
  if (it == documents.end())
    return; // a change to a document that is not open
  Document &doc = it->second;
  const Array *changes = p.getArray("contentChanges");
  if (!changes)
    invalid("'contentChanges' must be an array");
  for (const Value &c : *changes) {
    const Object &change = object(&c, "a content change");
    std::string text = string(change, "text");
    if (const Value *range = change.get("range")) {
      const Object &r = object(range, "'range'");
      replaceRange(doc.text, position(r.get("start")), position(r.get("end")), text);
    } else {
      doc.text = std::move(text);
    }
  }
  if (llvm::Optional<int64_t> v = id.getInteger("version"))
    doc.version = *v;
  if (!doc.dirty)
    doc.changedAt = Clock::now();
  doc.dirty = true;
  // Open documents that read this one are checked again against its new text.
  for (auto &[uri, other] : documents)
    if (&other != &doc && other.analysis && other.analysis->files.count(doc.path) && !other.dirty) {
      other.dirty = true;
      other.changedAt = Clock::now();
    }
}

void Server::didClose(const Value *params) {
  std::string uri = documentUri(params);
  if (!documents.erase(uri))
    return;
  // Its diagnostics go with it.
  send(Object{{"jsonrpc", "2.0"},
              {"method", "textDocument/publishDiagnostics"},
              {"params", Object{{"uri", uri}, {"diagnostics", Array()}}}});
}

bool Server::hasPending() const {
  for (const auto &[uri, doc] : documents)
    if (doc.dirty)
      return true;
  return false;
}

Clock::time_point Server::pendingSince() const {
  Clock::time_point since = Clock::time_point::max();
  for (const auto &[uri, doc] : documents)
    if (doc.dirty && doc.changedAt < since)
      since = doc.changedAt;
  return since;
}

void Server::checkPending() {
  for (auto &[uri, doc] : documents)
    if (doc.dirty)
      check(doc);
}

void Server::check(Document &doc) {
  doc.analysis = analyze(doc);
  doc.dirty = false;
  publish(doc);
}

void Server::publish(Document &doc) {
  // Published once per check: the diagnostics move into the message.
  send(Object{{"jsonrpc", "2.0"},
              {"method", "textDocument/publishDiagnostics"},
              {"params", Object{{"uri", doc.uri},
                                {"version", doc.version},
                                {"diagnostics", std::move(doc.analysis->diagnostics)}}}});
}

std::unique_ptr<Server::Analysis> Server::analyze(const Document &doc) const {
  auto a = std::make_unique<Analysis>();
  a->buffer = a->sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(doc.text, doc.path),
                                       llvm::SMLoc());
  // Imports read the editor's text of the files that are open.
  llvm::StringMap<std::string> unsaved;
  for (const auto &[uri, other] : documents)
    if (&other != &doc)
      unsaved[other.path] = other.text;
  frontend::FrontendOptions opts;
  opts.index = true;
  opts.sharing = false;
  opts.requireMain = false;
  opts.unsavedFiles = &unsaved;
  DiagnosticEngine diags(a->sm);
  frontend::FrontendResult result = frontend::runFrontendOnBuffer(a->sm, a->buffer, opts, diags);
  a->index = std::move(result.index);
  if (!a->index)
    a->index = std::make_unique<frontend::ProgramIndex>();
  a->lines = std::make_unique<LineIndex>(a->text());
  for (unsigned id = 1; id <= a->sm.getNumBuffers(); ++id)
    a->files.insert(a->sm.getMemoryBuffer(id)->getBufferIdentifier());

  const llvm::SourceMgr &sm = a->sm;
  const char *start = a->text().data();
  // A location in the document, or where the document imports the file
  // that holds it; nullopt for builtins and locations in no file.
  auto inDocument = [&](llvm::SMLoc loc) -> std::optional<size_t> {
    while (loc.isValid()) {
      unsigned id = sm.FindBufferContainingLoc(loc);
      if (id == 0)
        return std::nullopt;
      if (id == a->buffer)
        return size_t(loc.getPointer() - start);
      loc = sm.getBufferInfo(id).IncludeLoc;
    }
    return std::nullopt;
  };
  // A location as a protocol Location, when it is in a file.
  auto location = [&](llvm::SMRange r) -> std::optional<Value> {
    unsigned id = r.Start.isValid() ? sm.FindBufferContainingLoc(r.Start) : 0;
    if (id == 0)
      return std::nullopt;
    const llvm::MemoryBuffer *buf = sm.getMemoryBuffer(id);
    std::string uri = id == a->buffer ? doc.uri : uriFromPath(buf->getBufferIdentifier());
    if (id != a->buffer && !llvm::sys::path::is_absolute(buf->getBufferIdentifier()))
      return std::nullopt; // the prelude, a command-line argument
    LineIndex lines(buf->getBuffer());
    auto offset = [&](llvm::SMLoc l) { return size_t(l.getPointer() - buf->getBufferStart()); };
    size_t b = offset(r.Start);
    size_t e = r.End.isValid() && r.End.getPointer() >= r.Start.getPointer() ? offset(r.End) : b;
    return Value(Object{{"uri", uri}, {"range", rangeJson(lines.position(b), lines.position(e))}});
  };
  for (const Diagnostic &d : diags.diagnostics()) {
    std::string message = utf8(d.message);
    Array related;
    Position b, e;
    std::optional<size_t> at = inDocument(d.range.Start);
    if (at && sm.FindBufferContainingLoc(d.range.Start) == a->buffer) {
      b = a->lines->position(*at);
      e = b;
      if (d.range.End.isValid() && d.range.End.getPointer() >= d.range.Start.getPointer())
        e = a->lines->position(size_t(d.range.End.getPointer() - start));
    } else if (at) {
      // In an imported file: shown at the import, pointing to the place.
      b = e = a->lines->position(*at);
      llvm::StringRef file = sm.getMemoryBuffer(sm.FindBufferContainingLoc(d.range.Start))
                                 ->getBufferIdentifier();
      message = "in '" + utf8(llvm::sys::path::filename(file)) + "': " + message;
      if (std::optional<Value> loc = location(d.range))
        related.push_back(Object{{"location", std::move(*loc)}, {"message", utf8(d.message)}});
    }
    for (const DiagNote &n : d.notes) {
      if (std::optional<Value> loc = location(n.range))
        related.push_back(Object{{"location", std::move(*loc)}, {"message", utf8(n.message)}});
      else
        message += "\nnote: " + utf8(n.message);
    }
    Object out{{"range", rangeJson(b, e)},
               {"severity", d.severity == Severity::Error     ? 1
                            : d.severity == Severity::Warning ? 2
                                                              : 3},
               {"code", diagKindName(d.kind)},
               {"source", "bendc"},
               {"message", std::move(message)}};
    if (!related.empty())
      out["relatedInformation"] = std::move(related);
    a->diagnostics.push_back(std::move(out));
  }
  return a;
}

// ---- requests ------------------------------------------------------------------

Server::Document *Server::documentFor(const Value *params, std::optional<size_t> *offset) {
  std::string uri = documentUri(params);
  Position pos;
  if (offset)
    pos = position(params->getAsObject()->get("position"));
  auto it = documents.find(uri);
  if (it == documents.end())
    return nullptr;
  Document &doc = it->second;
  if (doc.dirty)
    check(doc); // answers are about the newest text
  if (offset && contains(doc.analysis->text(), pos))
    *offset = offsetAt(doc.analysis->text(), pos);
  return &doc;
}

const frontend::ProgramIndex::Reference *Server::referenceFor(const Value *params, Document *&doc) {
  std::optional<size_t> offset;
  doc = documentFor(params, &offset);
  if (!doc || !offset)
    return nullptr;
  return doc->analysis->index->referenceAt(doc->analysis->locAt(*offset));
}

Value Server::hover(const Value *params) {
  Document *doc;
  const frontend::ProgramIndex::Reference *ref = referenceFor(params, doc);
  if (!ref)
    return nullptr;
  const Analysis &a = *doc->analysis;
  const frontend::ProgramIndex::Symbol &s = a.index->symbols[ref->symbol];
  std::string text = "```bend\n" + utf8(signature(s, a.index->typeAt(*ref)));
  if (s.kind == Kind::Type || s.kind == Kind::Object)
    for (const auto &c : a.index->symbols) // its constructors, one a line
      if (c.parent >= 0 && &a.index->symbols[c.parent] == &s)
        text += "\n  " + utf8(signature(c, c.type));
  text += "\n```";
  if (s.kind == Kind::Constructor && s.parent >= 0)
    text += "\n\nconstructor of `" + a.index->symbols[s.parent].name + "`";
  if (s.builtin)
    text += "\n\nbuiltin";
  if (!s.doc.empty())
    text += "\n\n---\n\n" + utf8(s.doc);
  const char *start = a.text().data();
  Position b = a.lines->position(size_t(ref->range.Start.getPointer() - start));
  Position e = a.lines->position(size_t(ref->range.End.getPointer() - start));
  return Object{{"contents", Object{{"kind", "markdown"}, {"value", std::move(text)}}},
                {"range", rangeJson(b, e)}};
}

Value Server::definition(const Value *params) {
  Document *doc;
  const frontend::ProgramIndex::Reference *ref = referenceFor(params, doc);
  if (!ref)
    return nullptr;
  const Analysis &a = *doc->analysis;
  llvm::SMRange target = a.index->symbols[ref->symbol].nameRange;
  if (!target.Start.isValid())
    return nullptr; // a builtin: written in no file
  unsigned id = a.sm.FindBufferContainingLoc(target.Start);
  if (id == 0)
    return nullptr;
  const llvm::MemoryBuffer *buf = a.sm.getMemoryBuffer(id);
  if (id != a.buffer && !llvm::sys::path::is_absolute(buf->getBufferIdentifier()))
    return nullptr;
  LineIndex lines(buf->getBuffer());
  const char *base = buf->getBufferStart();
  Position b = lines.position(size_t(target.Start.getPointer() - base));
  Position e = lines.position(size_t(target.End.getPointer() - base));
  std::string uri = id == a.buffer ? doc->uri : uriFromPath(buf->getBufferIdentifier());
  return Object{{"uri", uri}, {"range", rangeJson(b, e)}};
}

Value Server::documentSymbol(const Value *params) {
  Document *doc = documentFor(params, nullptr);
  if (!doc)
    return nullptr;
  const Analysis &a = *doc->analysis;
  const auto &symbols = a.index->symbols;
  const char *start = a.text().data();
  const char *end = start + a.text().size();
  auto inDoc = [&](llvm::SMLoc l) {
    return l.isValid() && l.getPointer() >= start && l.getPointer() <= end;
  };
  auto symbolJson = [&](const frontend::ProgramIndex::Symbol &s) {
    llvm::SMRange name = inDoc(s.nameRange.Start) && inDoc(s.nameRange.End) ? s.nameRange : s.range;
    llvm::SMRange whole = inDoc(s.range.Start) && inDoc(s.range.End) ? s.range : name;
    auto pos = [&](llvm::SMLoc l) { return a.lines->position(size_t(l.getPointer() - start)); };
    // The whole range holds the name's, as the protocol requires.
    Position wb = pos(whole.Start), we = pos(whole.End), nb = pos(name.Start), ne = pos(name.End);
    if (name.Start.getPointer() < whole.Start.getPointer() || name.End.getPointer() > whole.End.getPointer())
      wb = nb, we = ne;
    Object o{{"name", utf8(s.name)},
             {"kind", symbolKind(s.kind)},
             {"range", rangeJson(wb, we)},
             {"selectionRange", rangeJson(nb, ne)}};
    if (!s.type.empty())
      o["detail"] = utf8(s.type);
    return o;
  };
  Array out;
  for (size_t i = 0; i < symbols.size(); ++i) {
    const auto &s = symbols[i];
    if (!s.mainFile || s.kind == Kind::Variable || s.parent >= 0 || !inDoc(s.range.Start))
      continue;
    Object o = symbolJson(s);
    if (s.kind == Kind::Type) {
      Array children;
      for (const auto &c : symbols)
        if (c.parent == int(i) && inDoc(c.range.Start))
          children.push_back(symbolJson(c));
      o["children"] = std::move(children);
    }
    out.push_back(std::move(o));
  }
  return out;
}

Value Server::completion(const Value *params) {
  std::optional<size_t> offset;
  Document *doc = documentFor(params, &offset);
  if (!doc || !offset)
    return Array();
  const Analysis &a = *doc->analysis;
  Array items;
  llvm::StringSet<> seen;
  auto add = [&](llvm::StringRef label, const frontend::ProgramIndex::Symbol &s) {
    if (!seen.insert(label).second)
      return;
    Object item{{"label", utf8(label)}, {"kind", completionKind(s.kind)}};
    if (!s.type.empty())
      item["detail"] = utf8(s.type);
    items.push_back(std::move(item));
  };
  std::vector<unsigned> vars = a.index->variablesAt(a.locAt(*offset));
  for (auto it = vars.rbegin(); it != vars.rend(); ++it) // innermost first
    add(a.index->symbols[*it].name, a.index->symbols[*it]);
  for (const auto &[name, symbol] : a.index->globals)
    add(name, a.index->symbols[symbol]);
  return Object{{"isIncomplete", false}, {"items", std::move(items)}};
}

} // namespace bendc::lsp
