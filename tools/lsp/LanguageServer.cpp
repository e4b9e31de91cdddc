// The stdio loop. A reader thread cuts stdin into messages and queues them;
// this thread answers them in order and checks changed documents whenever
// the queue is empty, so edits that arrive while a check runs are checked
// together, once, at their newest version.
#include "tools/lsp/LanguageServer.h"

#include "support/Heap.h"
#include "tools/lsp/Server.h"
#include "tools/lsp/Transport.h"

#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace bendc::lsp {

namespace {

/// Messages read and not yet answered. Shared with the reader thread, which
/// may outlive the loop (it can be blocked in read() when the loop ends).
struct Inbox {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<FrameReader::Frame> frames;
  bool closed = false; // end of input
  // The reader waits while this many are queued: a client that writes
  // faster than the server answers cannot grow memory without bound.
  static constexpr size_t kMaxQueued = 256;
};

void readInput(std::shared_ptr<Inbox> inbox) {
  FrameReader reader;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    reader.feed(llvm::StringRef(chunk, size_t(n)));
    FrameReader::Frame frame;
    while (reader.next(frame)) {
      std::unique_lock<std::mutex> lock(inbox->mutex);
      inbox->changed.wait(lock, [&] { return inbox->frames.size() < Inbox::kMaxQueued; });
      inbox->frames.push_back(std::move(frame));
      inbox->changed.notify_all();
    }
  }
  std::lock_guard<std::mutex> lock(inbox->mutex);
  inbox->closed = true;
  inbox->changed.notify_all();
}

/// How long a changed document may wait for a check while messages keep coming.
constexpr std::chrono::milliseconds kMaxCheckDelay(250);

} // namespace

int runLanguageServer() {
  tuneHeapForRechecking();
  // A client that goes away must not kill the server in the middle of a write.
  std::signal(SIGPIPE, SIG_IGN);
  llvm::raw_fd_ostream &out = llvm::outs();
  bool clientGone = false;
  Server server([&](llvm::json::Value message) {
    if (clientGone)
      return;
    writeFrame(out, message);
    if (out.has_error()) {
      out.clear_error();
      clientGone = true;
    }
  });
  auto inbox = std::make_shared<Inbox>();
  std::thread(readInput, inbox).detach();

  while (!server.exitRequested() && !clientGone) {
    FrameReader::Frame frame;
    {
      std::unique_lock<std::mutex> lock(inbox->mutex);
      if (inbox->frames.empty() && !inbox->closed && server.hasPending()) {
        lock.unlock();
        server.checkPending();
        continue;
      }
      inbox->changed.wait(lock, [&] { return !inbox->frames.empty() || inbox->closed; });
      if (inbox->frames.empty())
        break; // end of input
      frame = std::move(inbox->frames.front());
      inbox->frames.pop_front();
      inbox->changed.notify_all();
    }
    if (!frame.error.empty())
      server.badFrame(frame.error);
    else
      server.handleText(frame.body);
    if (server.hasPending() &&
        std::chrono::steady_clock::now() - server.pendingSince() > kMaxCheckDelay)
      server.checkPending();
  }
  out.flush();
  if (out.has_error())
    out.clear_error();
  return server.exitCode();
}

} // namespace bendc::lsp
