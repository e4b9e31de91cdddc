// The frontend's index for editors: which binder each name in the main file
// means, in every construct that binds names, and what it knows of types
// and documentation.
#include "frontend/Frontend.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

using namespace bendc;
using frontend::ProgramIndex;

namespace {

struct Indexed {
  explicit Indexed(const std::string &source) {
    unsigned id = sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, "/nonexistent-bendc-index/main.bend"),
        llvm::SMLoc());
    text = sm.getMemoryBuffer(id)->getBuffer();
    DiagnosticEngine diags(sm);
    frontend::FrontendOptions opts;
    opts.index = true;
    opts.sharing = false;
    opts.requireMain = false;
    index = std::move(frontend::runFrontendOnBuffer(sm, id, opts, diags).index);
    for (const Diagnostic &d : diags.diagnostics())
      messages += d.message + "\n";
  }

  /// The n-th occurrence of `needle`, moved `shift` characters on.
  llvm::SMLoc loc(llvm::StringRef needle, unsigned n = 0, size_t shift = 0) const {
    size_t at = text.find(needle);
    for (; n > 0 && at != std::string::npos; --n)
      at = text.find(needle, at + 1);
    REQUIRE_MESSAGE(at != std::string::npos, "no " << needle.str());
    return llvm::SMLoc::getFromPointer(text.data() + at + shift);
  }
  const ProgramIndex::Symbol *symbolAt(llvm::SMLoc at) const {
    const ProgramIndex::Reference *ref = index->referenceAt(at);
    return ref ? &index->symbols[ref->symbol] : nullptr;
  }
  /// Whether the name at `use` means the binder at `binder`.
  bool means(llvm::SMLoc use, llvm::SMLoc binder) const {
    const ProgramIndex::Symbol *s = symbolAt(use);
    return s && s->nameRange.Start == binder;
  }
  std::string typeAt(llvm::SMLoc at) const {
    const ProgramIndex::Reference *ref = index->referenceAt(at);
    REQUIRE(ref);
    return index->typeAt(*ref);
  }

  llvm::SourceMgr sm;
  llvm::StringRef text;
  std::unique_ptr<ProgramIndex> index;
  std::string messages;
};

} // namespace

TEST_CASE("λ binders: the innermost of two with one name wins") {
  Indexed x("main = λa λa (+ a 1)\n");
  CHECK(x.means(x.loc("a 1"), x.loc("a (", 0, 0)));
  CHECK(x.means(x.loc("a 1"), x.loc("λa", 1, 2)));
}

TEST_CASE("let and use bind in what follows, not in their value") {
  Indexed x("a = 5\nmain = let a = (+ a 1); use b = a; (* a b)\n");
  CHECK(x.symbolAt(x.loc("a 1"))->kind == ProgramIndex::Kind::Function);
  CHECK(x.means(x.loc("a b)"), x.loc("a =", 1)));
  CHECK(x.means(x.loc("b)"), x.loc("b =")));
}

TEST_CASE("fold arms see the fields, recursive ones included") {
  Indexed x("def len(xs: List(u24)) -> u24:\n"
            "  fold xs:\n"
            "    case List/Cons:\n"
            "      return 1 + xs.tail\n"
            "    case List/Nil:\n"
            "      return 0\n");
  CHECK(x.messages == "");
  const ProgramIndex::Symbol *tail = x.symbolAt(x.loc("xs.tail"));
  REQUIRE(tail);
  CHECK(tail->name == "xs.tail");
  CHECK(tail->nameRange.Start == x.loc("List/Cons"));
  CHECK(x.symbolAt(x.loc("List/Cons"))->kind == ProgramIndex::Kind::Constructor);
  // The fold's result on the tail: the checker does not type it there.
  CHECK(x.typeAt(x.loc("xs.tail")) == "");
}

TEST_CASE("what an if assigns in its branches is visible after it") {
  Indexed x("def f(n):\n"
            "  if n == 0:\n"
            "    r = 1\n"
            "  else:\n"
            "    r = 2\n"
            "  return r\n");
  CHECK(x.means(x.loc("return r", 0, 7), x.loc("r = 1")));
}

TEST_CASE("bend states, and what the when branch assigns") {
  Indexed x("def f():\n"
            "  bend d = 0:\n"
            "    when d < 3:\n"
            "      t = fork(d + 1)\n"
            "    else:\n"
            "      t = 0\n"
            "  return t\n");
  CHECK(x.messages == "");
  CHECK(x.means(x.loc("d + 1"), x.loc("d = 0")));
  CHECK(x.means(x.loc("return t", 0, 7), x.loc("t = fork")));
}

TEST_CASE("a switch's last arm binds the predecessor; a match default binds the value") {
  Indexed x("def f(n):\n"
            "  switch n:\n"
            "    case 0:\n"
            "      return 0\n"
            "    case _:\n"
            "      return n-1\n"
            "def g(xs):\n"
            "  match xs:\n"
            "    case List/Nil:\n"
            "      return 0\n"
            "    case other:\n"
            "      return 1\n");
  const ProgramIndex::Symbol *pred = x.symbolAt(x.loc("n-1"));
  REQUIRE(pred);
  CHECK(pred->name == "n-1");
  CHECK(x.symbolAt(x.loc("other"))->kind == ProgramIndex::Kind::Variable);
}

TEST_CASE("open binds the fields of an object") {
  Indexed x("object Point { x, y }\n"
            "def f(p):\n"
            "  open Point: p\n"
            "  return p.x\n");
  const ProgramIndex::Symbol *field = x.symbolAt(x.loc("p.x"));
  REQUIRE(field);
  CHECK(field->name == "p.x");
  CHECK(x.symbolAt(x.loc("Point: p"))->kind == ProgramIndex::Kind::Object);
}

TEST_CASE("local definitions, comprehensions and maps") {
  Indexed x("def f(xs):\n"
            "  def twice(y):\n"
            "    return y * 2\n"
            "  m = {}\n"
            "  m[1] = twice(3)\n"
            "  return [twice(v) for v in xs if v > m[1]]\n");
  CHECK(x.means(x.loc("twice(v)"), x.loc("twice(y)")));
  CHECK(x.means(x.loc("y * 2"), x.loc("y)")));
  CHECK(x.means(x.loc("v)"), x.loc("v in")));
  CHECK(x.means(x.loc("m[1]]"), x.loc("m = {}")));
  CHECK(x.means(x.loc("m[1] ="), x.loc("m = {}")));
}

TEST_CASE("with blocks and monadic binds") {
  Indexed x("def main():\n"
            "  with IO:\n"
            "    line <- IO/input()\n"
            "    return wrap(line)\n");
  CHECK(x.means(x.loc("line)"), x.loc("line <-")));
  CHECK(x.symbolAt(x.loc("IO:"))->kind == ProgramIndex::Kind::Type);
}

TEST_CASE("unscoped variables: a use means its binder anywhere in the definition") {
  Indexed x("main = (λ$x 1 $x)\n");
  const ProgramIndex::Symbol *s = x.symbolAt(x.loc("$x)"));
  REQUIRE(s);
  CHECK(s->name == "$x");
}

TEST_CASE("names in types: signatures and fields refer to the types") {
  Indexed x("type Shape:\n"
            "  Circle { radius: u24 }\n"
            "  Many { ~rest: Shape }\n"
            "def area(s: Shape) -> u24:\n"
            "  return 0\n");
  CHECK(x.means(x.loc("Shape }"), x.loc("Shape:")));
  CHECK(x.means(x.loc("Shape) ->"), x.loc("Shape:")));
}

TEST_CASE("types: inferred where checked, as written otherwise, with documentation") {
  Indexed x("# Adds one.\n"
            "# To anything.\n"
            "inc (n: u24) : u24 = (+ n 1)\n"
            "\n"
            "plain a b = (+ a b)\n"
            "def imp(a, b):\n"
            "  return a\n");
  const ProgramIndex::Symbol *inc = x.symbolAt(x.loc("inc"));
  REQUIRE(inc);
  CHECK(inc->type == "u24 -> u24");
  CHECK(inc->inferred);
  CHECK(inc->doc == "Adds one.\nTo anything.");
  const ProgramIndex::Symbol *plain = x.symbolAt(x.loc("plain"));
  CHECK(plain->type == "plain a b");
  CHECK(!plain->typed);
  CHECK(plain->doc == "");
  CHECK(x.symbolAt(x.loc("imp"))->type == "imp(a, b)");
  CHECK(x.typeAt(x.loc("n 1")) == "u24");
}

TEST_CASE("an index is built even when the program has errors") {
  Indexed x("def f(:\n  return 1\n\ndef g(a):\n  return a\n");
  CHECK(!x.messages.empty());
  CHECK(x.means(x.loc("a\n", 0), x.loc("a)")));
}

TEST_CASE("completion sees the variables visible at a place, and global names") {
  Indexed x("def f(a):\n"
            "  b = a\n"
            "  return b\n"
            "def g(c):\n"
            "  return c\n");
  auto names = [&](llvm::SMLoc at) {
    std::vector<std::string> out;
    for (unsigned s : x.index->variablesAt(at))
      out.push_back(x.index->symbols[s].name);
    return out;
  };
  CHECK(names(x.loc("return b")) == std::vector<std::string>{"a", "b"});
  CHECK(names(x.loc("return c")) == std::vector<std::string>{"c"});
  bool hasF = false, hasBuiltin = false;
  for (const auto &[name, symbol] : x.index->globals) {
    hasF |= name == "f";
    hasBuiltin |= name == "List/Cons";
  }
  CHECK(hasF);
  CHECK(hasBuiltin);
}

// What follows pins the scoping the index reads from the desugarer: each
// would fail if the index resolved names by rules of its own.

TEST_CASE("a match rebinds the matched variable in its arms, and a let there shadows it") {
  Indexed x("f xs = match xs {\n"
            "  List/Cons: let xs = xs.head; xs\n"
            "  List/Nil: xs\n"
            "}\n");
  CHECK(x.messages == "");
  CHECK(x.means(x.loc("xs {"), x.loc("xs =")));
  CHECK(x.means(x.loc("xs\n}"), x.loc("xs =")));
  CHECK(x.means(x.loc("xs.head"), x.loc("List/Cons")));
  CHECK(x.means(x.loc("xs\n  List/Nil"), x.loc("xs = xs.head")));
}

TEST_CASE("a match's with variables are its own, not a definition of that name") {
  Indexed x("acc = 7\n"
            "def sum(xs):\n"
            "  fold xs with acc = 0:\n"
            "    case List/Cons:\n"
            "      return xs.tail(acc + xs.head)\n"
            "    case List/Nil:\n"
            "      return acc\n");
  CHECK(x.messages == "");
  CHECK(x.means(x.loc("acc + xs"), x.loc("acc = 0")));
  CHECK(x.means(x.loc("acc\n"), x.loc("acc = 0")));
}

TEST_CASE("a bend's state is bound in its condition, its step and its base") {
  Indexed x("main = bend n = 0 {\n"
            "  when (< n 3): (fork (+ n 1))\n"
            "  else: n\n"
            "}\n");
  CHECK(x.messages == "");
  CHECK(x.means(x.loc("n 3"), x.loc("n = 0")));
  CHECK(x.means(x.loc("n 1"), x.loc("n = 0")));
  CHECK(x.means(x.loc("n\n}"), x.loc("n = 0")));
}

TEST_CASE("an unscoped variable used before its binder means that binder") {
  Indexed x("main = ($x, λ$x 1)\n");
  CHECK(x.messages == "");
  CHECK(x.means(x.loc("$x,"), x.loc("$x 1")));
}

TEST_CASE("what every branch assigns is one variable, whichever branch binds it") {
  Indexed x("def f(xs):\n"
            "  match xs:\n"
            "    case List/Cons:\n"
            "      r = 1\n"
            "    case List/Nil:\n"
            "      r = 2\n"
            "  return r\n");
  CHECK(x.messages == "");
  const ProgramIndex::Symbol *r = x.symbolAt(x.loc("return r", 0, 7));
  REQUIRE(r);
  CHECK(x.symbolAt(x.loc("r = 1")) == r);
  CHECK(x.symbolAt(x.loc("r = 2")) == r);
}

TEST_CASE("an update in place is the variable it updates") {
  Indexed x("def f():\n"
            "  x = 1\n"
            "  x += 2\n"
            "  return x\n");
  CHECK(x.messages == "");
  CHECK(x.means(x.loc("x +="), x.loc("x = 1")));
  CHECK(x.means(x.loc("return x", 0, 7), x.loc("x = 1")));
}

TEST_CASE("a default case sees the fields of what it stands for") {
  Indexed x("def f(xs):\n"
            "  match xs:\n"
            "    case List/Nil:\n"
            "      return 0\n"
            "    case _:\n"
            "      return xs.head\n");
  CHECK(x.messages == "");
  const ProgramIndex::Symbol *head = x.symbolAt(x.loc("xs.head"));
  REQUIRE(head);
  CHECK(head->kind == ProgramIndex::Kind::Variable);
  CHECK(head->name == "xs.head");
}

TEST_CASE("names are known in what the compiler gives up on after an error") {
  Indexed x("def f(t):\n"
            "  match t:\n"
            "    case List/Cons:\n"
            "      y = t.head\n"
            "  return y\n"
            "def g(n):\n"
            "  switch n:\n"
            "    case 1:\n"
            "      z = n\n"
            "    case _:\n"
            "      z = 0\n"
            "  return z\n"
            "h a b = a\n"
            "h n 0 = n\n"
            "def f(a):\n"
            "  return a\n");
  CHECK(llvm::StringRef(x.messages).contains("non-exhaustive match"));
  CHECK(llvm::StringRef(x.messages).contains("expected case 0"));
  CHECK(llvm::StringRef(x.messages).contains("redefinition"));
  CHECK(x.means(x.loc("t.head"), x.loc("List/Cons")));
  CHECK(x.means(x.loc("return y", 0, 7), x.loc("y = t")));
  CHECK(x.means(x.loc("n\n"), x.loc("n):")));
  CHECK(x.means(x.loc("return z", 0, 7), x.loc("z = n")));
  // A rule never reached, and the second definition of a name.
  CHECK(x.means(x.loc("n\n", 1), x.loc("n 0")));
  CHECK(x.means(x.loc("return a", 0, 7), x.loc("a):")));
}

TEST_CASE("indexing changes nothing the compiler reports") {
  const std::string source = "def f(t):\n"
                             "  match t:\n"
                             "    case List/Cons:\n"
                             "      y = t.head\n"
                             "  return y + w\n"
                             "main = let u = 1; (f [v])\n";
  auto messages = [&](bool index) {
    llvm::SourceMgr sm;
    unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source, "main.bend"),
                                        llvm::SMLoc());
    DiagnosticEngine diags(sm);
    frontend::FrontendOptions opts;
    opts.index = index;
    opts.sharing = false;
    frontend::runFrontendOnBuffer(sm, id, opts, diags);
    std::string out;
    for (const Diagnostic &d : diags.diagnostics())
      out += d.message + "\n";
    return out;
  };
  CHECK(messages(true) == messages(false));
  CHECK(!messages(false).empty());
}
