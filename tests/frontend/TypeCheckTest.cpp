// Type checking of annotated and `checked` definitions: what Bend's
// Hindley–Milner checker accepts, what it rejects, and how it is switched off.
#include "FrontendTestUtil.h"

#include <doctest/doctest.h>

using namespace bendc;
using bendc::test::runOn;

namespace {

/// The diagnostics of checking `source` (empty: it type-checks).
std::string check(llvm::StringRef source, bool typeCheck = true) {
  frontend::FrontendOptions opts;
  opts.typeCheck = typeCheck;
  opts.warnings.emplace_back("unused-definition", WarningAction::Allow);
  auto run = runOn(source, opts);
  return run->text();
}

bool contains(const std::string &s, llvm::StringRef part) {
  return llvm::StringRef(s).contains(part);
}

} // namespace

TEST_CASE("annotated definitions that type are accepted") {
  // Polymorphism across a recursive ADT, numbers, tuples and let-generalization.
  CHECK(check(R"(
type MyList(T):
  Nil
  Cons { head: T, ~tail: MyList(T) }

def len(xs: MyList(T)) -> u24:
  match xs:
    case MyList/Nil:
      return 0
    case MyList/Cons:
      return 1 + len(xs.tail)

def swap(p: (a, b)) -> (b, a):
  (x, y) = p
  return (y, x)

def twice(f: a -> a, x: a) -> a:
  return f(f(x))

def poly() -> (u24, f24):
  id = lambda x: x
  return (id(1), id(2.0))

main = ((len (MyList/Cons 1 MyList/Nil)), (swap (1, 2.0)), (twice λx (+ x 1) 3), poly)
)") == "");
}

TEST_CASE("the matched variable is the rebuilt constructor in each arm") {
  // `first` in the Err arm is `Result/Err(first.val)`, so it can have the
  // annotated result type even though the scrutinee's first parameter differs.
  CHECK(check(R"(
type (R o e) = (Ok (val: o)) | (Err (val: e))
def and(first: R(A, E), second: R(B, E)) -> R(B, E):
  match first:
    case R/Ok:
      return second
    case R/Err:
      return first
main = (and (R/Ok 1) (R/Err 2))
)") == "");
}

TEST_CASE("an infinite type is reported with its occurs check") {
  std::string out = check(R"(
checked (scott_concat a b) = (a λh λt λcons λnil (cons h (scott_concat t b)) b)
main = scott_concat
)");
  CHECK(contains(out, "[TypeMismatch]"));
  CHECK(contains(out, "so the type would be infinite"));
}

TEST_CASE("numbers of different kinds do not mix") {
  CHECK(contains(check("def f(x: u24, y: f24) -> f24:\n  return x + y\nmain = (f 1 2.0)\n"),
                 "[TypeMismatch]"));
  // `**` is a float operator.
  CHECK(contains(check("def f(x: u24) -> u24:\n  return x ** 2\nmain = (f 1)\n"),
                 "[TypeMismatch]"));
  // Comparisons give u24 whatever they compare.
  CHECK(contains(check("def f(x: f24) -> f24:\n  return x < 1.0\nmain = (f 1.0)\n"),
                 "[TypeMismatch]"));
  CHECK(check("def f(x: i24) -> i24:\n  return x & -1\nmain = (f -2)\n") == "");
}

TEST_CASE("a constructor's field types are checked at calls") {
  std::string out = check(R"(
type Box(T):
  Put { val: T }
def both() -> (Box(u24), Box(u24)):
  return (Box/Put(1), Box/Put(2.0))
main = both
)");
  CHECK(contains(out, "[TypeMismatch]"));
}

TEST_CASE("unannotated, unchecked and Any-typed code is not checked") {
  // Untyped: Any -> Any.
  CHECK(check("def f(x):\n  return x(x)\nmain = (f λy y)\n") == "");
  // `unchecked`: the annotation is believed.
  CHECK(check("def unchecked f(x: u24) -> u24:\n  return x(x)\nmain = (f 1)\n") == "");
  // Any in an annotation takes anything.
  CHECK(check("def f(x: Any) -> u24:\n  return x(1)\nmain = (f λy y)\n") == "");
  // A call of an unchecked definition from a checked one: its type is Any.
  CHECK(check("g x = (x x)\ndef f(y: u24) -> u24:\n  return g(y)\nmain = (f 1)\n") == "");
}

TEST_CASE("-Ono-type-check turns checking off") {
  llvm::StringRef bad = "def f(x: u24) -> f24:\n  return x\nmain = (f 1)\n";
  CHECK(contains(check(bad), "[TypeMismatch]"));
  CHECK(check(bad, /*typeCheck=*/false) == "");
}

TEST_CASE("holes are filled by inference and type variables must stay general") {
  CHECK(check("def f(x: _) -> _:\n  return x + 1\nmain = (f 1)\n") == "");
  std::string out = check("def f(x: a) -> b:\n  return x\nmain = (f 1)\n");
  CHECK(contains(out, "is more general than the inferred type"));
}

TEST_CASE("mutually recursive checked definitions are inferred together") {
  CHECK(check(R"(
def is_even(n: u24) -> u24:
  switch n:
    case 0:
      return 1
    case _:
      return is_odd(n-1)
def is_odd(n: u24) -> u24:
  switch n:
    case 0:
      return 0
    case _:
      return is_even(n-1)
main = (is_even 10)
)") == "");
}

TEST_CASE("fold and bend in a checked definition are checked") {
  CHECK(check(R"(
def sum(t: Tree(u24)) -> u24:
  fold t:
    case Tree/Node:
      return t.left + t.right
    case Tree/Leaf:
      return t.value
def make(d: u24) -> Tree(u24):
  bend x = 0:
    when x < d:
      return ![fork(x + 1), fork(x + 1)]
    else:
      return !x
main = (sum (make 3))
)") == "");
}
