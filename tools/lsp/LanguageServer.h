// `bendc --lsp`: the language server on stdin and stdout.
#pragma once

namespace bendc::lsp {

/// Serves until the client sends `exit` or closes stdin; returns the exit
/// code (0 after a `shutdown` request, 1 otherwise). Nothing a client sends
/// ends it otherwise.
int runLanguageServer();

} // namespace bendc::lsp
