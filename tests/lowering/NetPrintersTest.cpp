// The printers of the net stages: Graphviz drawings of the net IR and the
// polarized runtime book as text.
#include "lowering/NetDot.h"
#include "lowering/PolarizedPrinter.h"

#include "frontend/hvm/HvmReader.h"
#include "lowering/Polarize.h"
#include "runtime/common/Numeric.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "tests/lowering/ReadBookText.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

using namespace bendc;

namespace {

net::Book readBook(llvm::StringRef text) { return test::readBookText(text); }

rt::Book polarized(llvm::StringRef text) {
  net::Book book = readBook(text);
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  std::optional<rt::Book> out = lowering::polarize(book, diags);
  REQUIRE(out);
  return std::move(*out);
}

std::string dot(const net::Book &book, llvm::ArrayRef<llvm::StringRef> only = {}) {
  std::string text;
  llvm::raw_string_ostream os(text);
  lowering::printDot(os, book, only);
  return text;
}

std::string dot(llvm::StringRef hvm) { return dot(readBook(hvm)); }

std::string showPolarized(llvm::StringRef hvm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  lowering::printPolarizedBook(os, polarized(hvm));
  return text;
}

/// How many times `needle` occurs in `haystack`.
size_t count(llvm::StringRef haystack, llvm::StringRef needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != llvm::StringRef::npos;
       at = haystack.find(needle, at + needle.size()))
    ++n;
  return n;
}

/// A tree built by hand, for books the reader would reject.
net::TreeId addTree(net::Book &book, net::TreeKind kind, uint32_t value = 0, net::TreeId fst = {},
                    net::TreeId snd = {}) {
  net::Tree tree{};
  tree.kind = kind;
  tree.value = value;
  tree.fst = fst;
  tree.snd = snd;
  return book.add(tree);
}

void addDef(net::Book &book, uint32_t name, net::TreeId root) {
  net::Def def{};
  def.name = name;
  def.root = root;
  book.defs.push_back(def);
}

/// `(* (* ... (* 1)))`, `depth` nodes deep.
std::string deepLambdas(size_t depth) {
  std::string text = "@main = ";
  for (size_t i = 0; i < depth; ++i)
    text += "(* ";
  text += "1";
  text.append(depth, ')');
  return text;
}

} // namespace

TEST_CASE("dot: the identity is drawn as a root, one node and a variable edge") {
  CHECK(dot("@main = (a a)") == "digraph net {\n"
                                "  subgraph cluster_0 {\n"
                                "    label=\"@main\";\n"
                                "    n0 [label=\"root\", shape=plaintext];\n"
                                "    n1 [label=\"( )\", shape=circle];\n"
                                "    n0 -> n1;\n"
                                "    n1 -> n1 [dir=none, style=dashed, label=\"a\", "
                                "taillabel=\"1\", tailport=sw, headlabel=\"2\", headport=se];\n"
                                "  }\n"
                                "}\n");
}

TEST_CASE("dot: each definition is a cluster labelled with its name") {
  std::string out = dot("@main = @id\n@id = (a a)");
  CHECK(out.find("subgraph cluster_0 {\n    label=\"@main\";") != std::string::npos);
  CHECK(out.find("subgraph cluster_1 {\n    label=\"@id\";") != std::string::npos);
}

TEST_CASE("dot: a list of names draws only those definitions") {
  net::Book book = readBook("@main = @id\n@id = (a a)\n@other = *");
  llvm::StringRef only[] = {"id"};
  std::string out = dot(book, only);
  CHECK(count(out, "subgraph") == 1);
  CHECK(out.find("label=\"@id\"") != std::string::npos);
  CHECK(out.find("@main") == std::string::npos);
}

TEST_CASE("dot: every kind of tree node has its label") {
  std::string out = dot("@main = ({* $(1 r)} ?((@main [+1]) r))\n");
  CHECK(out.find("[label=\"( )\", shape=circle]") != std::string::npos);
  CHECK(out.find("[label=\"{ }\", shape=circle]") != std::string::npos);
  CHECK(out.find("[label=\"*\", shape=circle]") != std::string::npos);
  CHECK(out.find("[label=\"$\", shape=circle]") != std::string::npos);
  CHECK(out.find("[label=\"?\", shape=circle]") != std::string::npos);
  CHECK(out.find("[label=\"1\", shape=box]") != std::string::npos);
  CHECK(out.find("[label=\"@main\", shape=box]") != std::string::npos);
  CHECK(out.find("[label=\"[+0x0000001]\", shape=box]") != std::string::npos);
}

TEST_CASE("dot: numbers are labelled as HVM2 prints them") {
  std::string out = dot("@main = (+5 (-3 (1.5 [u24])))");
  CHECK(out.find("[label=\"+5\", shape=box]") != std::string::npos);
  CHECK(out.find("[label=\"-3\", shape=box]") != std::string::npos);
  CHECK(out.find("[label=\"1.5\", shape=box]") != std::string::npos);
  CHECK(out.find("[label=\"[u24]\", shape=box]") != std::string::npos);
}

TEST_CASE("dot: a child edge is labelled with its port") {
  std::string out = dot("@main = (1 2)");
  CHECK(out.find("n1 -> n2 [label=\"1\", tailport=sw];") != std::string::npos);
  CHECK(out.find("n1 -> n3 [label=\"2\", tailport=se];") != std::string::npos);
}

TEST_CASE("dot: a variable's two occurrences share one dashed undirected edge") {
  std::string out = dot("@main = (a (* a))");
  CHECK(count(out, "style=dashed") == 1);
  CHECK(out.find("n1 -> n2 [dir=none, style=dashed, label=\"a\", taillabel=\"1\", "
                 "tailport=sw, headlabel=\"2\", headport=se];") != std::string::npos);
}

TEST_CASE("dot: a redex is a bold red edge between the principal ports") {
  std::string out = dot("@main = r & @main ~ (1 r)");
  CHECK(out.find("n1 [label=\"@main\", shape=box]") != std::string::npos);
  CHECK(out.find("n2 [label=\"( )\", shape=circle]") != std::string::npos);
  CHECK(out.find("n1 -> n2 [dir=none, color=red, style=bold];") != std::string::npos);
}

TEST_CASE("dot: a parallel redex is labelled &!") {
  std::string out = dot("@main = r &! @main ~ (1 r)");
  CHECK(out.find("[dir=none, color=red, style=bold, label=\"&!\", fontcolor=red];") !=
        std::string::npos);
}

TEST_CASE("dot: a redex side that is a variable is a point") {
  std::string out = dot("@main = (a b) & a ~ b");
  CHECK(out.find("n2 [label=\"\", shape=point];") != std::string::npos);
  CHECK(out.find("n3 [label=\"\", shape=point];") != std::string::npos);
  CHECK(out.find("n2 -> n3 [dir=none, color=red, style=bold];") != std::string::npos);
  CHECK(out.find("n1 -> n2 [dir=none, style=dashed, label=\"a\", taillabel=\"1\", tailport=sw];") !=
        std::string::npos);
}

namespace {

/// A book with a quote and a backslash in its names, and a variable that
/// occurs once: the reader would reject it.
net::Book oddBook() {
  net::Book book;
  uint32_t name = book.intern("we\"ird\\name");
  uint32_t var = book.intern("x\"y");
  net::TreeId a = addTree(book, net::TreeKind::Var, var);
  net::TreeId b = addTree(book, net::TreeKind::Var, var);
  net::TreeId ref = addTree(book, net::TreeKind::Ref, name);
  net::TreeId con = addTree(book, net::TreeKind::Con, 0, a, ref);
  net::TreeId lonely = addTree(book, net::TreeKind::Var, book.intern("lonely"));
  net::TreeId pair = addTree(book, net::TreeKind::Con, 0, b, lonely);
  net::TreeId root = addTree(book, net::TreeKind::Con, 0, con, pair);
  addDef(book, name, root);
  return book;
}

} // namespace

TEST_CASE("dot: quotes and backslashes in names are escaped") {
  std::string out = dot(oddBook());
  CHECK(out.find("label=\"@we\\\"ird\\\\name\";") != std::string::npos);
  CHECK(out.find("[label=\"@we\\\"ird\\\\name\", shape=box]") != std::string::npos);
  CHECK(out.find("label=\"x\\\"y\"") != std::string::npos);
}

TEST_CASE("dot: a variable that occurs once ends at a red box") {
  std::string out = dot(oddBook());
  CHECK(out.find("n5 [label=\"lonely\", shape=box, color=red, fontcolor=red];") != std::string::npos);
  CHECK(out.find("n4 -> n5 [dir=none, style=dashed, color=red, taillabel=\"2\", tailport=se];") !=
        std::string::npos);
}

TEST_CASE("dot: the same book gives the same text") {
  const char *hvm = "@main = (a (b c)) & {a d} ~ (b *) & @f ~ (d c)\n@f = ((x y) (y x))";
  CHECK(dot(hvm) == dot(hvm));
}

TEST_CASE("dot: a tree 100000 nodes deep is drawn") {
  std::string out = dot(deepLambdas(100000));
  CHECK(count(out, "[label=\"( )\", shape=circle]") == 100000);
  CHECK(count(out, "[label=\"*\", shape=circle]") == 100000);
}

#ifdef BENDC_DOT_PROGRAM
namespace {

/// Runs Graphviz on `text`; it must write an SVG and say nothing.
void checkDotRenders(const std::string &text) {
  CAPTURE(text);
  llvm::SmallString<128> input, svg, errors;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("net", "dot", input));
  REQUIRE(!llvm::sys::fs::createTemporaryFile("net", "svg", svg));
  REQUIRE(!llvm::sys::fs::createTemporaryFile("net", "err", errors));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input, ec);
    REQUIRE(!ec);
    os << text;
  }
  std::string command = std::string("\"") + BENDC_DOT_PROGRAM + "\" -Tsvg \"" + input.str().str() +
                        "\" -o \"" + svg.str().str() + "\" 2> \"" + errors.str().str() + "\"";
  int status = std::system(command.c_str());
  auto svgText = llvm::MemoryBuffer::getFile(svg);
  auto errorText = llvm::MemoryBuffer::getFile(errors);
  llvm::sys::fs::remove(input);
  llvm::sys::fs::remove(svg);
  llvm::sys::fs::remove(errors);
  CHECK(status == 0);
  REQUIRE(svgText);
  REQUIRE(errorText);
  CHECK((*svgText)->getBuffer().contains("<svg"));
  CHECK((*errorText)->getBuffer() == "");
}

} // namespace

// Skipped in the plain run; its own ctest runs it where Graphviz is installed.
TEST_CASE("dot: Graphviz renders the drawing to SVG without a warning" * doctest::skip()) {
  checkDotRenders(dot("@main = (r (a b)) & @f ~ ({1 2} r) &! a ~ b\n"
                      "@f = ((x y) (y x))\n"
                      "@g = ?((0 (p $(p q))) q) & {x y} ~ (x y)"));
  checkDotRenders(dot(oddBook()));
}
#endif

TEST_CASE("polarized: the identity is a LAM whose variable is a SUB and a VAR") {
  CHECK(showPolarized("@main = (a a)") == "// #0: 1 node, 0 redexes, safe, entry point\n"
                                          "@main = +LAM(-SUB x0, +VAR x0)\n");
}

TEST_CASE("polarized: definitions are blocks separated by a blank line") {
  CHECK(showPolarized("@id = (a a)\n@main = @id") ==
        "// #0: 1 node, 0 redexes, safe\n"
        "@id = +LAM(-SUB x0, +VAR x0)\n"
        "\n"
        "// #1: 0 nodes, 0 redexes, safe, entry point\n"
        "@main = +REF @id\n");
}

TEST_CASE("polarized: a redex is printed negative side first") {
  std::string out = showPolarized("@main = r & @main ~ (1 r)");
  CHECK(out.find("@main = +VAR x0\n  & -APP(+NUM 1, -SUB x0) ~ +REF @main\n") != std::string::npos);
  CHECK(out.find("// #0: 1 node, 1 redex, safe, entry point\n") != std::string::npos);
}

TEST_CASE("polarized: a definition holding a DUP is marked unsafe") {
  std::string out = showPolarized("@main = (b c) & {b c} ~ 1");
  CHECK(out.find("unsafe") != std::string::npos);
  CHECK(out.find("& -DUP(-SUB x0, -SUB x1) ~ +NUM 1") != std::string::npos);
}

TEST_CASE("polarized: superpositions, pairs and erasers show their kinds") {
  CHECK(showPolarized("@main = {1 *}").find("@main = +SUP(+NUM 1, +NUL)") != std::string::npos);
  CHECK(showPolarized("@main = (* 1)").find("@main = +LAM(-ERA, +NUM 1)") != std::string::npos);
}

TEST_CASE("polarized: a switch takes a tuple of cases") {
  std::string out = showPolarized("@main = r & 0 ~ ?((5 (* 6)) r)");
  CHECK(out.find("& -SWI(+TUP(+NUM 5, +LAM(-ERA, +NUM 6)), -SUB x0) ~ +NUM 0") !=
        std::string::npos);
}

TEST_CASE("polarized: an operator node is negative with a positive operand") {
  std::string out = showPolarized("@main = r & 1 ~ $(+2 r)");
  CHECK(out.find("& -OPR(+NUM +2, -SUB x0) ~ +NUM 1") != std::string::npos);
}

TEST_CASE("polarized: variables are numbered in order of appearance") {
  std::string out = showPolarized("@main = (a (b (b a)))");
  CHECK(out.find("@main = +LAM(-SUB x0, +LAM(-SUB x1, +TUP(+VAR x1, +VAR x0)))") !=
        std::string::npos);
}

TEST_CASE("polarized: misplaced polarities, empty slots and unreached nodes are shown") {
  rt::Book book;
  book.names = {"main"};
  rt::DefInfo info;
  info.nodeCount = 2;
  info.root = rt::nodeTerm(rt::tag::Lam, 0);
  book.defs.push_back(info);
  book.slots = {rt::numTerm(rt::num::makeU24(7)), rt::makeTerm(rt::tag::Free, 0), rt::eraTerm(), rt::eraTerm()};
  std::string text;
  llvm::raw_string_ostream os(text);
  lowering::printPolarizedBook(os, book);
  CHECK(text == "// #0: 2 nodes, 0 redexes, safe, entry point\n"
                "@main = +LAM(!+NUM 7, <empty>)\n"
                "  // unreached nodes: 1\n");
}

TEST_CASE("polarized: a tree 100000 nodes deep is printed") {
  std::string out = showPolarized(deepLambdas(100000));
  CHECK(count(out, "+LAM(-ERA, ") == 100000);
  std::string tail = "+NUM 1" + std::string(100000, ')') + "\n";
  REQUIRE(out.size() > tail.size());
  CHECK(out.compare(out.size() - tail.size(), tail.size(), tail) == 0);
}
