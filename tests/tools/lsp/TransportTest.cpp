// Framing and document text: Content-Length messages cut from a byte stream,
// UTF-16 positions, incremental edits and file URIs.
#include "tools/lsp/Text.h"
#include "tools/lsp/Transport.h"

#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace bendc::lsp;

namespace {

std::string framed(const std::string &body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::vector<FrameReader::Frame> readAll(FrameReader &r) {
  std::vector<FrameReader::Frame> out;
  FrameReader::Frame f;
  while (r.next(f))
    out.push_back(f);
  return out;
}

} // namespace

TEST_CASE("a message fed one byte at a time comes out whole, once") {
  FrameReader r;
  std::string bytes = framed(R"({"a":1})");
  std::vector<FrameReader::Frame> got;
  for (char c : bytes) {
    r.feed(llvm::StringRef(&c, 1));
    for (auto &f : readAll(r))
      got.push_back(f);
  }
  REQUIRE(got.size() == 1);
  CHECK(got[0].error.empty());
  CHECK(got[0].body == R"({"a":1})");
  CHECK(r.pending() == 0);
}

TEST_CASE("two messages in one chunk are two frames; other headers are ignored") {
  FrameReader r;
  r.feed(framed("[1]") + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" +
         "content-length: 3\r\n\r\n[2]");
  auto frames = readAll(r);
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].body == "[1]");
  CHECK(frames[1].body == "[2]");
}

TEST_CASE("a body may hold any bytes, blank lines included") {
  FrameReader r;
  std::string body = "{\"s\":\"a\\n\\nb\"}\n\n";
  r.feed(framed(body));
  auto frames = readAll(r);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].body == body);
}

TEST_CASE("a header without Content-Length is reported and the next message still read") {
  FrameReader r;
  r.feed("Content-Type: text/plain\r\n\r\n{}" + framed("[3]"));
  auto frames = readAll(r);
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].error == "message header without Content-Length");
  CHECK(frames[1].body == "[3]");
}

TEST_CASE("after a bad header, a next header that arrives in pieces is still read") {
  FrameReader r;
  r.feed("Content-Length: x\r\n\r\nConte");
  auto frames = readAll(r);
  REQUIRE(frames.size() == 1);
  CHECK(!frames[0].error.empty());
  r.feed("nt-Length: 3\r\n\r\n[7]");
  frames = readAll(r);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].body == "[7]");
}

TEST_CASE("a Content-Length that is no number is reported") {
  FrameReader r;
  r.feed("Content-Length: twelve\r\n\r\n" + framed("[4]"));
  auto frames = readAll(r);
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].error == "invalid Content-Length 'twelve'");
  CHECK(frames[1].body == "[4]");
}

TEST_CASE("a message larger than the limit is refused, not buffered") {
  FrameReader r;
  r.feed("Content-Length: 99999999999\r\n\r\n");
  auto frames = readAll(r);
  REQUIRE(frames.size() == 1);
  CHECK(llvm::StringRef(frames[0].error).contains("larger than the limit"));
  CHECK(r.pending() == 0);
}

TEST_CASE("garbage with no header end is dropped once it is longer than a header") {
  FrameReader r;
  r.feed(std::string(FrameReader::kMaxHeader + 10, 'x'));
  auto frames = readAll(r);
  REQUIRE(frames.size() == 1);
  CHECK(!frames[0].error.empty());
  CHECK(r.pending() == 0);
  r.feed(framed("[5]"));
  frames = readAll(r);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].body == "[5]");
}

TEST_CASE("headers ended by bare line feeds are accepted") {
  FrameReader r;
  r.feed("Content-Length: 3\n\n[6]");
  auto frames = readAll(r);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].body == "[6]");
}

TEST_CASE("writeFrame writes the header and the JSON text") {
  std::string s;
  llvm::raw_string_ostream os(s);
  writeFrame(os, llvm::json::Object{{"id", 1}});
  CHECK(s == "Content-Length: 8\r\n\r\n{\"id\":1}");
}

// ---- positions ------------------------------------------------------------------

// "é" is 2 bytes and 1 UTF-16 unit; "𝔹" (U+1D539) is 4 bytes and 2 units;
// "λ" 2 bytes and 1 unit; "中" 3 bytes and 1 unit.
static const std::string kText = "a\xC3\xA9" "b\n\xF0\x9D\x94\xB9x = \xCE\xBB\n\xE4\xB8\xAD!";

TEST_CASE("UTF-16 columns count code units, not bytes") {
  CHECK(offsetAt(kText, {0, 0}) == 0);
  CHECK(offsetAt(kText, {0, 2}) == 3); // after é
  CHECK(offsetAt(kText, {0, 3}) == 4);
  CHECK(offsetAt(kText, {1, 2}) == 9); // after 𝔹
  CHECK(offsetAt(kText, {1, 3}) == 10);
  CHECK(offsetAt(kText, {2, 1}) == 19); // after 中
  Position p = positionAt(kText, 9);
  CHECK(p.line == 1);
  CHECK(p.character == 2);
  p = positionAt(kText, 19);
  CHECK(p.line == 2);
  CHECK(p.character == 1);
}

TEST_CASE("a line index gives the same positions as a scan") {
  LineIndex lines(kText);
  for (size_t off = 0; off <= kText.size(); ++off) {
    Position a = positionAt(kText, off), b = lines.position(off);
    CHECK(a.line == b.line);
    CHECK(a.character == b.character);
  }
}

TEST_CASE("a column inside a surrogate pair is the character's start") {
  CHECK(offsetAt(kText, {1, 1}) == 5);
}

TEST_CASE("positions past a line or the text are clamped, and known to be outside") {
  CHECK(offsetAt(kText, {0, 99}) == 4); // the end of line 0
  CHECK(offsetAt(kText, {9, 0}) == kText.size());
  CHECK(contains(kText, {0, 3}));
  CHECK(!contains(kText, {0, 4}));
  CHECK(contains(kText, {2, 2}));
  CHECK(!contains(kText, {3, 0}));
}

TEST_CASE("a CR before the LF is not part of the line") {
  std::string crlf = "ab\r\ncd";
  CHECK(offsetAt(crlf, {0, 9}) == 2);
  CHECK(!contains(crlf, {0, 3}));
}

TEST_CASE("incremental edits replace between UTF-16 positions") {
  std::string text = kText;
  replaceRange(text, {1, 0}, {1, 2}, "X");             // 𝔹 -> X
  CHECK(text == "a\xC3\xA9" "b\nXx = \xCE\xBB\n\xE4\xB8\xAD!");
  replaceRange(text, {0, 1}, {0, 2}, "");              // é removed
  CHECK(llvm::StringRef(text).startswith("ab\nX"));
  replaceRange(text, {2, 1}, {2, 1}, "\xF0\x9F\x98\x80"); // insert 😀 after 中
  CHECK(llvm::StringRef(text).endswith("\xE4\xB8\xAD\xF0\x9F\x98\x80!"));
  replaceRange(text, {2, 3}, {2, 4}, "?");             // the ! after the pair
  CHECK(llvm::StringRef(text).endswith("\xF0\x9F\x98\x80?"));
  replaceRange(text, {0, 0}, {99, 0}, "all");           // a range past the end
  CHECK(text == "all");
}

TEST_CASE("file URIs are percent-decoded and encoded") {
  CHECK(pathFromUri("file:///tmp/a%20b/c.bend") == std::optional<std::string>("/tmp/a b/c.bend"));
  CHECK(pathFromUri("file://localhost/x.bend") == std::optional<std::string>("/x.bend"));
  CHECK(!pathFromUri("untitled:Untitled-1"));
  CHECK(!pathFromUri("file:///bad%zz"));
  CHECK(!pathFromUri("file://elsewhere/x"));
  CHECK(uriFromPath("/tmp/a b/\xCE\xBB.bend") == "file:///tmp/a%20b/%CE%BB.bend");
  CHECK(pathFromUri(uriFromPath("/tmp/a b/\xCE\xBB.bend")) ==
        std::optional<std::string>("/tmp/a b/\xCE\xBB.bend"));
}
