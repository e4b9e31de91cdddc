// `bendc --lsp`: the language server on stdin and stdout.
#pragma once

namespace bendc::lsp {

/// Serves until the client sends `exit` or closes stdin; returns the exit
/// code (0 after a `shutdown` request, 1 otherwise). Nothing a client sends
/// ends it otherwise.
int runLanguageServer();

/// Tunes the allocator for a process that checks documents over and over:
/// freed memory is kept for the next check instead of going back to the
/// system (runLanguageServer does this itself).
void reuseFreedMemory();

} // namespace bendc::lsp
