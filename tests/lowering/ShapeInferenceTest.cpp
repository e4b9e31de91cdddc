// Shape inference on .hvm text: which `(a b)` is a function and which a pair
// when the text does not say, for books where one definition is used at
// several shapes, data is taken apart with different answer types, or the
// host reads what a call passes.
#include "tests/frontend/FrontendTestUtil.h"
#include "tests/lowering/ReadBookText.h"
#include "tests/runtime/RunText.h"

#include "ir/NetPrinter.h"
#include "lowering/Compile.h"
#include "lowering/Polarize.h"
#include "lowering/ShapeInference.h"

#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace bendc;
using namespace bendc::lowering;

namespace {

testing::Outcome run(const char *text) {
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.threads = 1;
  options.memBytes = 64 << 20;
  return testing::runText(text, options);
}

/// The definition named `name`.
const net::Def &def(const net::Book &book, llvm::StringRef name) {
  auto it = book.nameIds.find(name);
  REQUIRE(it != book.nameIds.end());
  for (const net::Def &d : book.defs)
    if (d.name == it->second)
      return d;
  FAIL("no definition @" << name.str());
  return book.defs.front();
}

net::ConRole shapeOf(const ShapeClasses &classes, net::TreeId t) {
  uint32_t cls = classes.classOf(t);
  REQUIRE(cls != ShapeClasses::None);
  return classes.shape(cls);
}

/// Compiles a Bend program (the compiler knows every `(a b)`), prints its book,
/// reads the text back (which does not say) and polarizes it: every term must
/// come out as the compiler made it.
void checkRoundTrip(const char *source) {
  frontend::FrontendOptions options;
  auto front = test::runOn(source, options);
  REQUIRE_MESSAGE(front->result.program, front->text());
  lowering::CompileResult compiled =
      lowering::compileToBook(*front->result.program, lowering::CompileOptions{}, *front->diags);
  REQUIRE_MESSAGE(compiled.book, front->text());

  std::string text;
  llvm::raw_string_ostream os(text);
  net::printBook(os, compiled.net);
  os.flush();
  net::Book read = test::readBookText(text);
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  std::optional<rt::Book> guessed = lowering::polarize(read, diags);
  REQUIRE(guessed);

  const rt::Book &truth = *compiled.book;
  REQUIRE(guessed->defs.size() == truth.defs.size());
  for (size_t i = 0; i < truth.defs.size(); ++i) {
    const rt::DefInfo &a = truth.defs[i], &b = guessed->defs[i];
    INFO("@" << truth.names[i]);
    REQUIRE(a.nodeCount == b.nodeCount);
    REQUIRE(a.redexCount == b.redexCount);
    CHECK(rt::tagOf(a.root) == rt::tagOf(b.root));
    for (uint32_t k = 0; k < 2 * a.nodeCount; ++k)
      CHECK(rt::tagOf(truth.slots[a.firstSlot + k]) == rt::tagOf(guessed->slots[b.firstSlot + k]));
    for (uint32_t k = 0; k < 2 * a.redexCount; ++k)
      CHECK(rt::tagOf(truth.redexes[a.firstRedex + k]) ==
            rt::tagOf(guessed->redexes[b.firstRedex + k]));
  }
}

} // namespace

TEST_CASE("a helper used at two shapes ties each use to its own nodes") {
  // @id passes on @mk (whose innermost `(a b)` is the pair @main takes apart)
  // and @k (whose innermost `(c c)` is surely a λ). With one type for @id,
  // the two would share a class and the pair would be built as a λ.
  auto o = run("@id = (x x)\n"
               "@mk = (a (b (a b)))\n"
               "@k = (* (* (c c)))\n"
               "@main = r\n"
               "  & @id ~ (@mk f)\n"
               "  & f ~ (1 (2 p))\n"
               "  & p ~ (r *)\n"
               "  & @id ~ (@k g)\n"
               "  & g ~ (3 (4 (5 *)))\n");
  CHECK_RESULT(o, "1");
}

TEST_CASE("matches on one list type return different types") {
  // @len answers a number and @head_len a pair, and @head_len's cases take
  // different numbers of fields: only the case a constructor's tag selects
  // is tied to it, so the pair (0 0) of the empty list does not make the
  // λs of the other case pairs.
  auto o = run("@Nil = ((@Nil/tag a) a)\n"
               "@Nil/tag = 0\n"
               "@Cons = (h (t ((@Cons/tag (h (t r))) r)))\n"
               "@Cons/tag = 1\n"
               "@len = ((@len__C1 a) a)\n"
               "@len__C0 = (* (* (a b)))\n"
               "  & @len ~ (a $([+0x0000001] b))\n"
               "@len__C1 = (?((0 @len__C0) a) a)\n"
               "@head_len = ((@head_len__C1 a) a)\n"
               "@head_len__C0 = (* (a (b (a c))))\n"
               "  & @len ~ (b c)\n"
               "@head_len__C1 = (?(((0 0) @head_len__C0) a) a)\n"
               "@main = (h n)\n"
               "  & @head_len ~ (l (h n))\n"
               "  & @Cons ~ (7 (t1 l))\n"
               "  & @Cons ~ (8 (t2 t1))\n"
               "  & @Cons ~ (9 (@Nil t2))\n");
  CHECK_RESULT(o, "(7 2)");
}

TEST_CASE("what a helper returns, taken apart by its caller, decides the helper's nodes") {
  // Inside @swap alone, @keep's innermost `(a b)` could be a λ; the caller
  // takes the result apart.
  net::Book book = test::readBookText("@main = r & @swap ~ (1 (5 (6 (a b)))) & (a b) ~ (r *)\n"
                                      "@swap = (?((@keep @flip) (x (y z))) (x (y z)))\n"
                                      "@keep = (a (b (a b)))\n"
                                      "@flip = (* (a (b (b a))))\n");
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  std::optional<rt::Book> polarized = lowering::polarize(book, diags);
  REQUIRE(polarized);
  const rt::DefInfo &keep = polarized->defs[2];
  REQUIRE(polarized->names[2] == "keep");
  CHECK(rt::tagOf(polarized->slots[keep.firstSlot + 2 * 1 + 1]) == rt::tag::Tup);
}

TEST_CASE("the argument of an IO call is a tuple: the host takes it apart") {
  // Nothing in the book takes `(e f)` apart; only HVM2's IO protocol says it
  // is a pair.
  net::Book book =
      test::readBookText("@IO/MAGIC = (13683217 16719857)\n"
                         "@IO/Call/tag = 1\n"
                         "@IO/Call = (a (b (c (d ((@IO/Call/tag (a (b (c (d e))))) e)))))\n"
                         "@IO/call = (a (b c))\n"
                         "  & @IO/Call ~ (@IO/MAGIC (a (b (@done c))))\n"
                         "@done = (a a)\n"
                         "@open = (e (f g))\n"
                         "  & @IO/call ~ (79 ((e f) g))\n"
                         "@main = r & @open ~ (1 (2 r))\n");
  ShapeClasses classes = inferShapes(book);
  const net::Def &open = def(book, "open");
  // `@IO/call ~ (79 ((e f) g))`: the pair is the first child of the second node.
  net::TreeId call = open.redexes[0].rhs;
  net::TreeId argument = book[book[call].snd].fst;
  CHECK(shapeOf(classes, argument) == net::ConRole::Pair);
}

TEST_CASE("each use of a definition shares the classes of its nodes") {
  // Copies of @pair's type keep the class of its `(1 2)`: both patterns that
  // take it apart are in that class.
  net::Book book = test::readBookText("@pair = (1 2)\n"
                                      "@main = (a c)\n"
                                      "  & @pair ~ (a *)\n"
                                      "  & @pair ~ (* c)\n");
  ShapeClasses classes = inferShapes(book);
  const net::Def &main = def(book, "main");
  const net::Def &pair = def(book, "pair");
  auto sameClass = [&](net::TreeId x, net::TreeId y) {
    return &classes.members(classes.classOf(x)) == &classes.members(classes.classOf(y));
  };
  CHECK(sameClass(pair.root, main.redexes[0].rhs));
  CHECK(sameClass(pair.root, main.redexes[1].rhs));
}

TEST_CASE("books written from Bend polarize from their text as the compiler made them") {
  SUBCASE("a list taken apart into a pair and into numbers") {
    checkRoundTrip("def part(p, xs):\n"
                   "  match xs:\n"
                   "    case List/Nil:\n"
                   "      return ([], [])\n"
                   "    case List/Cons:\n"
                   "      (lo, hi) = part(p, xs.tail)\n"
                   "      if xs.head < p:\n"
                   "        return (List/Cons(xs.head, lo), hi)\n"
                   "      else:\n"
                   "        return (lo, List/Cons(xs.head, hi))\n"
                   "def sum(xs):\n"
                   "  match xs:\n"
                   "    case List/Nil:\n"
                   "      return 0\n"
                   "    case List/Cons:\n"
                   "      return xs.head + sum(xs.tail)\n"
                   "def main():\n"
                   "  (lo, hi) = part(3, [5, 1, 4, 2])\n"
                   "  return sum(lo) * 100 + sum(hi)\n");
  }
  SUBCASE("a string decoded by the prelude") {
    checkRoundTrip("def main():\n"
                   "  return String/decode_utf8([104, 105, 226, 130, 172])\n");
  }
  SUBCASE("an IO program") {
    checkRoundTrip("def main():\n"
                   "  with IO:\n"
                   "    * <- IO/print(\"hi\\n\")\n"
                   "    t <- IO/get_time()\n"
                   "    (hi, lo) = t\n"
                   "    return wrap(hi + lo)\n");
  }
}
