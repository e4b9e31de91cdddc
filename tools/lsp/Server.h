// The language server: documents, checks and answers, with no IO of its
// own. Messages come in through handle(); messages go out through the
// function given to the constructor. LanguageServer.h runs it on stdio.
#pragma once

#include "frontend/Index.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace bendc::lsp {

/// JSON-RPC and LSP error codes.
enum ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
};

class Server {
public:
  using Sender = std::function<void(llvm::json::Value)>;
  explicit Server(Sender send);
  ~Server();

  /// One message's JSON text; malformed JSON is answered with ParseError.
  void handleText(llvm::StringRef text);
  /// One parsed message. Whatever it holds, it is answered (requests) or
  /// ignored (notifications), never thrown.
  void handle(const llvm::json::Value &message);
  /// A message whose header could not be read.
  void badFrame(llvm::StringRef why);

  /// Whether documents changed since they were last checked, and since when.
  bool hasPending() const;
  std::chrono::steady_clock::time_point pendingSince() const;
  /// Checks every changed document at its newest text and publishes its
  /// diagnostics. The loop calls it when no message is waiting, so a burst
  /// of edits is checked once, at its last version.
  void checkPending();

  bool exitRequested() const { return exited; }
  /// 0 after `shutdown` then `exit`, 1 otherwise (as the protocol says).
  int exitCode() const { return shutdown ? 0 : 1; }
  size_t openDocuments() const { return documents.size(); }

private:
  struct Analysis;
  struct Document;

  void request(llvm::StringRef method, const llvm::json::Value &id, const llvm::json::Value *params);
  void notification(llvm::StringRef method, const llvm::json::Value *params);
  void reply(const llvm::json::Value &id, llvm::json::Value result);
  void replyError(const llvm::json::Value &id, int code, llvm::StringRef message);

  llvm::json::Value initialize();
  void didOpen(const llvm::json::Value *params);
  void didChange(const llvm::json::Value *params);
  void didClose(const llvm::json::Value *params);
  llvm::json::Value hover(const llvm::json::Value *params);
  llvm::json::Value definition(const llvm::json::Value *params);
  llvm::json::Value documentSymbol(const llvm::json::Value *params);
  llvm::json::Value completion(const llvm::json::Value *params);

  /// The document a request names, checked at its newest text; null when it
  /// is not open. Sets `offset` from the request's position when asked.
  Document *documentFor(const llvm::json::Value *params, std::optional<size_t> *offset);
  /// The name at the request's position and its document (null: none there).
  const frontend::ProgramIndex::Reference *referenceFor(const llvm::json::Value *params, Document *&doc);
  void check(Document &doc);
  void publish(Document &doc);
  std::unique_ptr<Analysis> analyze(const Document &doc) const;

  Sender send;
  std::map<std::string, Document> documents; // by URI
  bool initialized = false;
  bool shutdown = false;
  bool exited = false;
};

} // namespace bendc::lsp
