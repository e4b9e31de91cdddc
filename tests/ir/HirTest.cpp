// The HIR, its verifier, the dataflow solver and each pass, on small programs
// run through the frontend. The verifier runs after every pass.
#include "../frontend/FrontendTestUtil.h"
#include "ir/NetPrinter.h"
#include "frontend/hvm/HvmReader.h"
#include "ir/Dataflow.h"
#include "ir/Passes.h"
#include "lowering/Compile.h"
#include "lowering/CoreToHir.h"
#include "lowering/HirToNet.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace bendc;
using namespace bendc::hir;

namespace {

size_t functionCount(const Module &m) {
  return size_t(std::distance(m.functions().begin(), m.functions().end()));
}

struct Compiled {
  std::unique_ptr<test::FrontendRun> front;
  std::unique_ptr<Module> hir;
};

frontend::FrontendOptions noPrelude() {
  frontend::FrontendOptions o;
  o.prelude = false;
  o.typeCheck = false;
  return o;
}

Compiled toHir(llvm::StringRef source) {
  Compiled c;
  c.front = test::runOn(source, noPrelude());
  REQUIRE_MESSAGE(c.front->result.program, c.front->text());
  c.hir = lowering::coreToHir(*c.front->result.program);
  REQUIRE(c.hir);
  return c;
}

void requireValid(const Module &m) {
  std::vector<std::string> problems = verify(m);
  std::string all;
  for (auto &p : problems)
    all += p + "\n";
  REQUIRE_MESSAGE(problems.empty(), all);
}

/// The passes up to (not including) floating, verified after each.
void linearize(Module &m, MatchLinearization level = MatchLinearization::Enabled) {
  requireValid(m);
  linearizeMatches(m, level);
  requireValid(m);
  expandMatches(m);
  requireValid(m);
  linearizeVariables(m);
  requireValid(m);
}

/// `--emit=hir`'s text of the module.
std::string moduleText(const Module &m, bool withBuiltins = false) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printModule(os, m, withBuiltins);
  return text;
}

unsigned countKind(Function &fn, InstKind kind) {
  unsigned n = 0;
  forEachInst(fn, [&](Inst &i) { n += i.kind == kind; });
  return n;
}

Inst *findFirst(Function &fn, InstKind kind) {
  Inst *found = nullptr;
  forEachInst(fn, [&](Inst &i) {
    if (!found && i.kind == kind)
      found = &i;
  });
  return found;
}

std::string hvmOf(Module &m, bool eta = true) {
  net::Book book;
  llvm::SourceMgr sources;
  DiagnosticEngine diags(sources);
  lowering::NetOptions options;
  options.eta = eta;
  REQUIRE(lowering::lowerToNet(m, options, book, diags));
  std::string text;
  llvm::raw_string_ostream os(text);
  net::printBook(os, book);
  return os.str();
}

/// The .hvm text of the book compileToBook makes of `front`'s program.
std::string compiledBookText(const test::FrontendRun &front, bool verifyEachPass) {
  REQUIRE(front.result.program);
  lowering::CompileOptions options;
  options.verifyEachPass = verifyEachPass;
  lowering::CompileResult r = lowering::compileToBook(*front.result.program, options, *front.diags);
  REQUIRE(r.internalErrors.empty());
  REQUIRE(r.book);
  std::string text;
  llvm::raw_string_ostream os(text);
  net::printBook(os, r.net);
  return text;
}

/// The .hvm text of the book the HIR passes make when each runs on the
/// whole module after the other, which the pipeline does function by
/// function.
std::string passByPassBookText(const test::FrontendRun &front) {
  REQUIRE(front.result.program);
  std::unique_ptr<Module> m = lowering::coreToHir(*front.result.program);
  REQUIRE(m);
  pruneDefinitions(*m, /*keepUserDefinitions=*/true);
  linearizeMatches(*m, MatchLinearization::Enabled);
  expandMatches(*m);
  linearizeVariables(*m);
  floatCombinators(*m);
  expandMain(*m);
  CHECK(verify(*m).empty());
  net::Book book;
  REQUIRE(lowering::lowerToNet(*m, lowering::NetOptions(), book, *front.diags));
  std::string text;
  llvm::raw_string_ostream os(text);
  net::printBook(os, book);
  return text;
}

} // namespace

TEST_CASE("core to HIR gives each intermediate value its own wire") {
  Compiled c = toHir("main = (λx x 1)");
  requireValid(*c.hir);
  Function &main = *c.hir->find("main");
  CHECK(countKind(main, InstKind::Lam) == 1);
  CHECK(countKind(main, InstKind::App) == 1);
  CHECK(countKind(main, InstKind::Num) == 1);
}

TEST_CASE("the verifier reports a wire used twice in a linear module") {
  Compiled c = toHir("main = λx (x x)");
  c.hir->invariants.linear = true;
  std::vector<std::string> problems = verify(*c.hir);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("used 2 times") != std::string::npos);
}

TEST_CASE("the verifier reports a wire nobody defines") {
  Compiled c = toHir("main = λx x");
  Function &main = *c.hir->find("main");
  main.body().result = main.newWire("stray");
  std::vector<std::string> problems = verify(*c.hir);
  CHECK(!problems.empty());
}

TEST_CASE("the verifier reports a block held twice, the body held, or a block that does not exist") {
  Compiled c = toHir("main = λn switch n { 0: 1; _: λp p }");
  Function &main = *c.hir->find("main");
  Inst *swi = findFirst(main, InstKind::Swi);
  REQUIRE(swi);
  auto mentionsBlocks = [&] {
    std::vector<std::string> problems = verify(*c.hir);
    return problems.size() == 1 && problems[0].find("a block is held twice") != std::string::npos;
  };
  BlockId zero = swi->blocks[0];
  SUBCASE("twice") { swi->blocks[1] = zero; }
  SUBCASE("the body") { swi->blocks[1] = Function::Body; }
  SUBCASE("missing") { swi->blocks[1] = BlockId(main.blocks.size() + 5); }
  CHECK(mentionsBlocks());
}

TEST_CASE("the verifier reports an instruction listed twice or one the function does not have") {
  Compiled c = toHir("main = λn switch n { 0: 1; _: λp p }");
  Function &main = *c.hir->find("main");
  REQUIRE(!main.body().insts.empty());
  InstId first = main.body().insts[0];
  auto mentionsInsts = [&] {
    std::vector<std::string> problems = verify(*c.hir);
    return problems.size() == 1 && problems[0].find("an instruction is listed twice") != std::string::npos;
  };
  SUBCASE("twice in one block") { main.body().insts.push_back(first); }
  SUBCASE("in two blocks") {
    Inst *swi = findFirst(main, InstKind::Swi);
    REQUIRE(swi);
    main.block(swi->blocks[0]).insts.push_back(first);
  }
  SUBCASE("missing") { main.body().insts.push_back(InstId(main.insts.size() + 3)); }
  CHECK(mentionsInsts());
}

TEST_CASE("an instruction added to a function's table keeps its id while blocks list it") {
  Function fn;
  Inst era(InstKind::Era);
  era.outs = {fn.newWire("e")};
  InstId id = fn.append(Function::Body, std::move(era));
  for (unsigned k = 0; k < 1000; ++k) // the table grows and moves its rows
    fn.newInst(Inst(InstKind::Erase));
  fn.body().result = fn.inst(id).outs[0];
  REQUIRE(fn.body().insts.size() == 1);
  CHECK(fn.body().insts[0] == id);
  CHECK(fn.inst(id).kind == InstKind::Era);
  std::vector<std::string> problems;
  verifyFunction(fn, Invariants(), [](const Inst &) { return std::optional<std::string>(); }, problems);
  CHECK(problems.empty()); // rows no block lists are not looked at
}

TEST_CASE("floating moves a term's blocks into the new function and leaves none behind held") {
  // The λ inside the pair is closed: it floats with its body block.
  Compiled c = toHir("main = (λa λb (a b), 7)\nf = λx ((λy λz (z y)) x)");
  linearize(*c.hir);
  floatCombinators(*c.hir);
  requireValid(*c.hir);
  CHECK(llvm::any_of(c.hir->functions(), [](const Function &fn) { return fn.generated; }));
  for (Function &fn : c.hir->functions()) {
    // Every block the function's table holds beside the body is either held
    // by an instruction of the function or left empty.
    std::vector<bool> held(fn.blocks.size(), false);
    forEachInst(fn, [&](Inst &i) {
      for (BlockId b : i.blocks)
        held[b.index] = true;
    });
    for (BlockId b : fn.blocks.ids())
      if (b != Function::Body && !held[b.index])
        CHECK_MESSAGE(fn.block(b).insts.empty(), fn.name.str());
    // Nor does any block list an instruction whose contents moved out.
    forEachInst(fn, [&](Inst &i) {
      CHECK_MESSAGE(!(i.kind == InstKind::Era && i.outs.empty()), fn.name.str());
    });
  }
}

TEST_CASE("the verifier reports a switch arm that uses an outer variable once matches are linear") {
  Compiled c = toHir("main = λn λy switch n { 0: y; _: λp p }");
  c.hir->invariants.matchesLinearized = true;
  std::vector<std::string> problems = verify(*c.hir);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("from outside") != std::string::npos);
}

TEST_CASE("liveness gives an arm the outer variables it uses") {
  Compiled c = toHir("main = λn λy λz switch n { 0: y; _: λp (p z) }");
  Function &main = *c.hir->find("main");
  BlockGraph graph(main);
  std::vector<Liveness::Value> live = liveInputs(graph);
  Inst *swi = findFirst(main, InstKind::Swi);
  REQUIRE(swi);
  auto &zero = live[graph.indexOf(swi->blocks[0])];
  auto &succ = live[graph.indexOf(swi->blocks[1])];
  REQUIRE(zero.size() == 1);
  CHECK(main.wires[zero[0]].name == "y");
  REQUIRE(succ.size() == 1);
  CHECK(main.wires[succ[0]].name == "z");
  CHECK(live[0].empty()); // the whole function is closed
}

TEST_CASE("use counts count every use, nested blocks included") {
  Compiled c = toHir("main = λx λf (f x λy (x y))");
  Function &main = *c.hir->find("main");
  IdTable<WireId, unsigned> uses = useCounts(main);
  for (WireId w : main.wires.ids())
    if (main.wires[w].name == "x")
      CHECK(uses[w] == 2);
}

TEST_CASE("use counts count an unscoped variable's uses outside its λ, and none for an unused one") {
  Compiled c = toHir("main = (λ$y λu 1, λa ($y a))");
  Function &main = *c.hir->find("main");
  IdTable<WireId, unsigned> uses = useCounts(main);
  bool sawY = false, sawU = false;
  for (WireId w : main.wires.ids()) {
    if (main.wires[w].unscoped && main.wires[w].name == "y") {
      CHECK(uses[w] == 1); // in the other element of the pair
      sawY = true;
    }
    if (main.wires[w].name == "u") {
      CHECK(uses[w] == 0);
      sawU = true;
    }
  }
  CHECK(sawY);
  CHECK(sawU);
}

TEST_CASE("open uses are zero exactly where a linear function's blocks have no live inputs") {
  const char *source = R"(
type Tr = (Node l r) | (Leaf v)
sum = λt match t { Tr/Node: (+ (sum t.l) (sum t.r)); Tr/Leaf: t.v }
pick = λn λa λb switch n { 0: (a b b); 1: λq (q a); _: λk (b k a) }
twice = λf λx (f (f x))
main = (sum (Tr/Node (Tr/Leaf (pick 2 3 4)) (Tr/Leaf (twice λy y 5))))
)";
  for (MatchLinearization level : {MatchLinearization::Enabled, MatchLinearization::Disabled}) {
    Compiled m = toHir(source);
    linearize(*m.hir, level);
    unsigned closed = 0, open = 0;
    for (Function &fn : m.hir->functions()) {
      BlockGraph graph(fn);
      std::vector<Liveness::Value> live = liveInputs(graph);
      std::vector<OpenUses::Value> uses = solve(graph, OpenUses{});
      for (size_t b = 0; b < graph.blocks.size(); ++b) {
        CAPTURE(fn.name.str());
        CHECK((uses[b] == 0) == live[b].empty());
        (live[b].empty() ? closed : open) += 1;
      }
    }
    CHECK(closed > 0);
    CHECK(open > 0);
  }
}

/// Depth of each block: 0 for the body, its parent's depth + 1 below.
struct Depth {
  using Value = unsigned;
  static constexpr Direction direction = Direction::Down;
  Value initial() const { return 0; }
  Value transfer(const Function &, const Block &, llvm::ArrayRef<const Value *> in) const {
    return in.empty() ? 0 : *in[0] + 1;
  }
};

TEST_CASE("a custom analysis flowing down the block tree reaches a fixpoint") {
  Compiled c = toHir("main = λa λb λc switch a { 0: b; _: λp c }");
  Function &main = *c.hir->find("main");
  BlockGraph graph(main);
  std::vector<unsigned> depth = solve(graph, Depth{});
  CHECK(depth[0] == 0);
  for (size_t b = 1; b < depth.size(); ++b)
    CHECK(depth[b] == depth[unsigned(graph.parent[b])] + 1);
  CHECK(depth.size() >= 6); // three λ bodies and two arms below the body
}

TEST_CASE("linearize variables dups a variable used three times with a chain of two dups") {
  Compiled c = toHir("main = λx (x x x)");
  linearize(*c.hir);
  Function &main = *c.hir->find("main");
  CHECK(countKind(main, InstKind::Dup) == 2);
  CHECK(countKind(main, InstKind::Erase) == 0);
}

TEST_CASE("linearize variables erases an unused variable") {
  Compiled c = toHir("main = λx λy x");
  linearize(*c.hir);
  Function &main = *c.hir->find("main");
  CHECK(countKind(main, InstKind::Erase) == 1);
  CHECK(hvmOf(*c.hir) == "@main = (a (* a))\n");
}

TEST_CASE("linearize matches passes the arms' variables as switch arguments") {
  Compiled c = toHir("main = λn λy switch n { 0: y; _: λp (+ p y) }");
  linearize(*c.hir);
  Function &main = *c.hir->find("main");
  Inst *swi = findFirst(main, InstKind::Swi);
  REQUIRE(swi);
  CHECK(swi->ins.size() == 2); // the scrutinee and y
  CHECK(main.block(swi->blocks[0]).params.size() == 1);
  CHECK(main.block(swi->blocks[1]).params.size() == 2); // the predecessor, then y
  CHECK(countKind(main, InstKind::Dup) == 0); // y is not duplicated around the switch
  CHECK(c.hir->invariants.matchesLinearized);
}

TEST_CASE("linearize matches passes variables in the order of their binders, as Bend names them") {
  // Bend sorts the variables it passes by the unique names it gave their
  // binders: binder order here (s, a, b), not alphabetical (a, b, s), so
  // the arguments pass straight through and eta reduction removes them.
  Compiled c = toHir("main = λd λs λa λb switch d { 0: (+ s (+ a b)); _: λp (+ b (+ a s)) }");
  linearize(*c.hir);
  Function &main = *c.hir->find("main");
  Inst *swi = findFirst(main, InstKind::Swi);
  REQUIRE(swi);
  REQUIRE(swi->ins.size() == 4);
  CHECK(main.wires[swi->ins[1]].name.str() == "s");
  CHECK(main.wires[swi->ins[2]].name.str() == "a");
  CHECK(main.wires[swi->ins[3]].name.str() == "b");
  // With 26 binders before it, x is `ab` in Bend's names, y is `bb`, and z,
  // bound before them, is `z`: ab < bb < z.
  std::string many = "main = λn ";
  for (int k = 0; k < 24; ++k)
    many += "λv" + std::to_string(k) + " ";
  many += "λz λx λy switch n { 0: (+ z (+ x y)); _: λp (+ p (+ z (+ x y))) }";
  Compiled d = toHir(many);
  linearize(*d.hir);
  Function &m2 = *d.hir->find("main");
  Inst *swi2 = findFirst(m2, InstKind::Swi);
  REQUIRE(swi2);
  REQUIRE(swi2->ins.size() == 4);
  CHECK(m2.wires[swi2->ins[1]].name.str() == "x");
  CHECK(m2.wires[swi2->ins[2]].name.str() == "y");
  CHECK(m2.wires[swi2->ins[3]].name.str() == "z");
}

TEST_CASE("without linearized matches a variable both arms use is duplicated") {
  Compiled c = toHir("main = λn λy switch n { 0: y; _: λp (+ p y) }");
  linearize(*c.hir, MatchLinearization::Disabled);
  Function &main = *c.hir->find("main");
  CHECK(findFirst(main, InstKind::Swi)->ins.size() == 1);
  CHECK(countKind(main, InstKind::Dup) == 1);
}

TEST_CASE("float combinators lifts a recursive arm into a new definition") {
  Compiled c = toHir("sum = λn switch n { 0: 0; _: λp (+ p (sum p)) }\nmain = (sum 3)");
  linearize(*c.hir);
  floatCombinators(*c.hir);
  requireValid(*c.hir);
  Function *lifted = c.hir->find("sum__C0");
  REQUIRE(lifted);
  CHECK(lifted->generated);
  CHECK(c.hir->find("main__C0") == nullptr); // main is left alone
  CHECK(hvmOf(*c.hir).find("@sum = (?((0 @sum__C0) a) a)") != std::string::npos);
}

TEST_CASE("float combinators leaves a λ that returns its own variable in place") {
  Compiled c = toHir("id = λx (λy y x)\nmain = (id 1)");
  linearize(*c.hir);
  floatCombinators(*c.hir);
  requireValid(*c.hir);
  CHECK(c.hir->find("id__C0") == nullptr);
}

TEST_CASE("float combinators lifts a closed application out of a λ") {
  Compiled c = toHir("f = λx (+ x (g 1))\ng = λy (+ y 1)\nmain = (f 2)");
  linearize(*c.hir);
  floatCombinators(*c.hir);
  requireValid(*c.hir);
  CHECK(c.hir->find("f__C0") != nullptr);
}

TEST_CASE("expand main inlines the definition main returns") {
  Compiled c = toHir("f = λx λy x\nmain = f");
  linearize(*c.hir);
  expandMain(*c.hir);
  requireValid(*c.hir);
  Function &main = *c.hir->find("main");
  CHECK(countKind(main, InstKind::Ref) == 0);
  CHECK(countKind(main, InstKind::Lam) == 2);
}

TEST_CASE("merge keeps one of two identical definitions and redirects references") {
  Compiled c = toHir("a = λx (x 1)\nb = λy (y 1)\nmain = (a b)");
  linearize(*c.hir);
  mergeDefinitions(*c.hir);
  requireValid(*c.hir);
  CHECK(c.hir->find("a") == nullptr);
  CHECK(c.hir->find("b") == nullptr);
  CHECK(c.hir->find("a__M_b") != nullptr);
}

TEST_CASE("prune drops what main does not reach") {
  Compiled c = toHir("used = 1\nunused = 2\nmain = used");
  linearize(*c.hir);
  pruneDefinitions(*c.hir, /*keepUserDefinitions=*/false);
  requireValid(*c.hir);
  CHECK(c.hir->find("used") != nullptr);
  CHECK(c.hir->find("unused") == nullptr);
}

TEST_CASE("prune given the references core to HIR found drops what it drops by looking") {
  // With the prelude: most of its functions go. `net` is a definition
  // written as a net, which a reference names without a function id.
  const char *source = "hvm net:\n  (a a)\nused = λx (net (List/length x))\nunused = 2\n"
                       "main = (used [1, 2])";
  for (bool keepUserDefinitions : {false, true}) {
    CAPTURE(keepUserDefinitions);
    auto front = test::runOn(source);
    REQUIRE_MESSAGE(front->result.program, front->text());
    FunctionReferences refs;
    std::unique_ptr<Module> given = lowering::coreToHir(*front->result.program, &refs);
    std::unique_ptr<Module> looked = lowering::coreToHir(*front->result.program);
    REQUIRE(given);
    REQUIRE(looked);
    REQUIRE(refs.begin.size() == given->idCount() + 1);
    size_t used = given->find("used")->id.index;
    REQUIRE(refs.otherBegin.size() == refs.begin.size());
    CHECK(refs.otherBegin[used + 1] - refs.otherBegin[used] == 1); // it names `net`
    CHECK(refs.others[refs.otherBegin[used]] == "net");
    // Read from Core without translating, the references are the same, and
    // pruning a module whose bodies are not made yet keeps the same functions.
    lowering::HirBuilder builder(*front->result.program);
    std::unique_ptr<Module> shells = builder.makeModule();
    FunctionReferences fromCore;
    CHECK(builder.references(fromCore) > 0);
    // The same per function, in another order (and perhaps more times).
    REQUIRE(fromCore.begin.size() == refs.begin.size());
    REQUIRE(fromCore.otherBegin.size() == refs.otherBegin.size());
    for (size_t k = 0; k + 1 < refs.begin.size(); ++k) {
      auto sorted = [](auto from, auto to) {
        std::vector<std::decay_t<decltype(*from)>> v(from, to);
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return v;
      };
      CHECK(sorted(fromCore.targets.begin() + fromCore.begin[k],
                   fromCore.targets.begin() + fromCore.begin[k + 1]) ==
            sorted(refs.targets.begin() + refs.begin[k], refs.targets.begin() + refs.begin[k + 1]));
      CHECK(sorted(fromCore.others.begin() + fromCore.otherBegin[k],
                   fromCore.others.begin() + fromCore.otherBegin[k + 1]) ==
            sorted(refs.others.begin() + refs.otherBegin[k], refs.others.begin() + refs.otherBegin[k + 1]));
    }
    shells->netReferences["net"] = {};
    pruneDefinitions(*shells, keepUserDefinitions, &fromCore);
    // What the compile learns from reading `net`: it refers to nothing.
    given->netReferences["net"] = {};
    looked->netReferences["net"] = {};
    size_t before = functionCount(*given);
    pruneDefinitions(*given, keepUserDefinitions, &refs);
    pruneDefinitions(*looked, keepUserDefinitions);
    requireValid(*given);
    CHECK(moduleText(*given, /*withBuiltins=*/true) == moduleText(*looked, /*withBuiltins=*/true));
    CHECK(functionCount(*given) < before);
    CHECK(given->find("List/length") != nullptr);
    CHECK((given->find("unused") != nullptr) == keepUserDefinitions);
    CHECK(given->netReferences.count("net") == 1); // reached through `used`
    // Pruned alike, at the same places.
    REQUIRE(shells->idCount() == given->idCount());
    for (uint32_t k = 0; k < given->idCount(); ++k) {
      const Function &shell = shells->function(FunctionId(k)), &fn = given->function(FunctionId(k));
      CHECK(shell.removed == fn.removed);
      CHECK(shell.name == fn.name);
    }
  }
}

TEST_CASE("pruning follows a net definition that shares a function's name") {
  const char *source = "helper = 1\nused = λx x\nmain = (used 1)";
  auto front = test::runOn(source);
  REQUIRE_MESSAGE(front->result.program, front->text());
  lowering::HirBuilder builder(*front->result.program);
  std::unique_ptr<Module> shells = builder.makeModule();
  FunctionReferences made;
  builder.references(made);
  CHECK(made.netNamed.empty()); // no function is named like a net here
  std::unique_ptr<Module> looked = lowering::coreToHir(*front->result.program);
  REQUIRE(looked);
  // A net definition named `used` that refers to `helper`: told by `made`,
  // or found by looking the reached functions' names up.
  made.netNamed.push_back(shells->find("used")->id);
  for (Module *m : {shells.get(), looked.get()}) {
    m->netReferences["used"] = {"helper"};
    pruneDefinitions(*m, /*keepUserDefinitions=*/false, m == shells.get() ? &made : nullptr);
    CHECK(m->find("helper") != nullptr);
    CHECK(m->netReferences.count("used") == 1);
  }
  // Without the net definition, `helper` goes.
  std::unique_ptr<Module> plain = lowering::coreToHir(*front->result.program);
  REQUIRE(plain);
  pruneDefinitions(*plain, /*keepUserDefinitions=*/false);
  CHECK(plain->find("helper") == nullptr);
}

TEST_CASE("references hold their function's id and find it after pruning takes others out") {
  Compiled c = toHir("unused = 2\nf = λx x\nmain = (f 1)");
  Module &m = *c.hir;
  Inst *ref = findFirst(*m.find("main"), InstKind::Ref);
  REQUIRE(ref);
  CHECK(ref->ref == "f");
  CHECK(ref->callee == m.find("f")->id);
  CHECK(m.targetById(*ref) == m.find("f"));
  FunctionId unused = m.find("unused")->id;
  pruneDefinitions(m, /*keepUserDefinitions=*/false); // `unused` leaves its place empty
  requireValid(m);
  REQUIRE(m.find("unused") == nullptr);
  CHECK(m.withId(unused) == nullptr);
  CHECK(m.function(unused).removed);
  ref = findFirst(*m.find("main"), InstKind::Ref);
  CHECK(m.targetById(*ref) == m.find("f"));
  CHECK(m.target(*ref) == m.find("f"));
}

TEST_CASE("a reference whose id names another function is found by name, and the verifier says so") {
  Compiled c = toHir("g = 7\nf = λx x\nmain = (f 1)");
  Module &m = *c.hir;
  Inst *ref = findFirst(*m.find("main"), InstKind::Ref);
  REQUIRE(ref);
  ref->callee = m.find("g")->id;
  CHECK(m.targetById(*ref) == nullptr);
  CHECK(m.target(*ref) == m.find("f"));
  std::vector<std::string> problems = verify(m);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("reference to @f holds the id of @g") != std::string::npos);
  // Pruning goes by the name too: `f` stays, `g` goes.
  pruneDefinitions(m, /*keepUserDefinitions=*/false);
  CHECK(m.find("f") != nullptr);
  CHECK(m.find("g") == nullptr);
  // A reference with no id is found by name.
  ref = findFirst(*m.find("main"), InstKind::Ref);
  ref->callee = NoFunction;
  CHECK(m.targetById(*ref) == nullptr);
  CHECK(m.target(*ref) == m.find("f"));
  requireValid(m);
}

TEST_CASE("the verifier reports a function whose id is not its place") {
  Compiled c = toHir("g = 7\nmain = g");
  c.hir->find("g")->id = c.hir->find("main")->id;
  std::vector<std::string> problems = verify(*c.hir);
  CHECK(std::any_of(problems.begin(), problems.end(),
                    [](const std::string &p) { return p.find("in place") != std::string::npos; }));
}

TEST_CASE("a module finds a function by name after it is added, renamed or taken out") {
  Module m;
  Function a;
  a.name = m.save("a");
  FunctionId idA = m.add(std::move(a)).id;
  CHECK(m.find("a") == &m.function(idA)); // the index is made here
  Function b;
  b.name = m.save("b");
  b.id = m.newFunctionId();
  FunctionId idB = m.add(std::move(b)).id;
  CHECK(idB.index == idA.index + 1);
  CHECK(m.find("b") == &m.function(idB));
  m.rename(m.function(idA), m.save("c"));
  CHECK(m.find("a") == nullptr);
  CHECK(m.find("c") == &m.function(idA));
  m.remove(idB);
  CHECK(m.find("b") == nullptr);
  CHECK(m.withId(idB) == nullptr);
  CHECK(functionCount(m) == 1);
  CHECK(m.idCount() == 2); // the place stays
}

TEST_CASE("merged and floated functions' references hold their ids") {
  Compiled c = toHir("a = λx (x 1)\nb = λy (y 1)\nh = λn switch n { 0: (a 2); _: (b n-1) }\nmain = (h 3)");
  Module &m = *c.hir;
  linearize(m);
  floatCombinators(m);
  requireValid(m);
  mergeDefinitions(m);
  requireValid(m);
  unsigned refs = 0;
  for (Function &fn : m.functions())
    forEachInst(fn, [&](Inst &i) {
      if (i.kind != InstKind::Ref)
        return;
      ++refs;
      const Function *t = m.targetById(i);
      REQUIRE_MESSAGE(t, "@" << i.ref.str() << " in @" << fn.name.str());
      CHECK(t->name == i.ref);
    });
  CHECK(refs >= 3);
  CHECK(m.find("a__M_b") != nullptr);
}

TEST_CASE("lowering: one node per instruction, HVM2's operator shapes") {
  Compiled c = toHir("main = λx λy (+ (* x 2) (- 1 y))");
  linearize(*c.hir);
  std::string text = hvmOf(*c.hir);
  CHECK(text.find("[*0x0000002]") != std::string::npos); // a literal second operand: a partial
  CHECK(text.find("[-0x0000001]") != std::string::npos); // a literal first operand
  CHECK(text.find("[+]") != std::string::npos);   // two variables: the operator symbol first
}

TEST_CASE("lowering: <= compares the other way and tests for zero") {
  Compiled c = toHir("main = λx (<= x 3)");
  linearize(*c.hir);
  std::string text = hvmOf(*c.hir);
  // x <= 3 is (x > 3) == 0; `>` with a literal second operand flips to `[<3]`.
  CHECK(text.find("[<0x0000003]") != std::string::npos);
  CHECK(text.find("[=0x0000000]") != std::string::npos);
}

TEST_CASE("eta reduction turns λx (f x) into f") {
  Compiled c = toHir("g = λz z\nf = λx (g x)\nmain = f");
  linearize(*c.hir);
  // What is left of the call is the call itself, as Bend writes it.
  CHECK(hvmOf(*c.hir).find("@f = a\n  & @g ~ a\n") != std::string::npos);
  CHECK(hvmOf(*c.hir, /*eta=*/false).find("@f = (a b)\n  & @g ~ (a b)\n") != std::string::npos);
}

TEST_CASE("a compiled book prints as .hvm text that reads back to the same text") {
  auto front = test::runOn("type L = (C h t) | N\nlen l = match l { L/C: (+ 1 (len l.t)); L/N: 0 }\n"
                           "main = (len (L/C 1 (L/C 2 L/N)))",
                           noPrelude());
  std::string first = compiledBookText(*front, /*verifyEachPass=*/true);
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(first, "book.hvm"), {});
  std::optional<net::Book> again = hvm::readBook(sm, id, diags);
  REQUIRE(again);
  std::string second;
  llvm::raw_string_ostream os2(second);
  net::printBook(os2, *again);
  CHECK(first == os2.str());
}

TEST_CASE("a 100 000-element list literal and 10 000 nested λs compile") {
  std::string list = "main = [";
  for (int k = 0; k < 100000; ++k)
    list += (k ? ", " : "") + std::to_string(k);
  list += "]\n";
  std::string nested = "main = ";
  for (int k = 0; k < 10000; ++k)
    nested += "λx" + std::to_string(k) + " ";
  nested += "x0\n";
  for (const std::string &source : {list, nested}) {
    auto front = test::runOn(source);
    REQUIRE_MESSAGE(front->result.program, front->text());
    lowering::CompileOptions options;
    options.verifyEachPass = true;
    lowering::CompileResult r = lowering::compileToBook(*front->result.program, options, *front->diags);
    CHECK(r.internalErrors.empty());
    CHECK(r.book);
  }
}

TEST_CASE("a constructor match is one instruction whose arms take the fields") {
  Compiled c = toHir("type T = (A x y) | (B z) | C\n"
                     "f = λt match t { T/A: (+ t.x t.y); T/B: t.z; T/C: 0 }\nmain = (f T/C)");
  requireValid(*c.hir);
  Function &f = *c.hir->find("f");
  Inst *m = findFirst(f, InstKind::Match);
  REQUIRE(m);
  REQUIRE(m->blocks.size() == 3);
  CHECK(f.block(m->blocks[0]).params.size() == 2);
  CHECK(f.block(m->blocks[1]).params.size() == 1);
  CHECK(f.block(m->blocks[2]).params.empty());
}

TEST_CASE("linearize matches gives a match's arms its variables after the fields") {
  Compiled c = toHir("type T = (A x) | B\nf = λt λv match t { T/A: (+ t.x v); T/B: v }\nmain = (f T/B 1)");
  linearizeMatches(*c.hir, MatchLinearization::Enabled);
  requireValid(*c.hir);
  Function &f = *c.hir->find("f");
  Inst *m = findFirst(f, InstKind::Match);
  REQUIRE(m);
  CHECK(m->ins.size() == 2); // the scrutinee and v
  REQUIRE(f.block(m->blocks[0]).params.size() == 2);
  CHECK(f.wires[f.block(m->blocks[0]).params[0]].name == "t.x"); // the field first
  CHECK(f.wires[f.block(m->blocks[0]).params[1]].name == "v");
  CHECK(f.block(m->blocks[1]).params.size() == 1);
}

TEST_CASE("expand matches builds NumScott's switch chain and applies the match to its variables") {
  Compiled c = toHir("type T = (A x) | (B y) | C\nf = λt λv match t { T/A: v; T/B: v; T/C: v }\n"
                     "main = (f T/C 1)");
  linearize(*c.hir);
  Function &f = *c.hir->find("f");
  CHECK(countKind(f, InstKind::Match) == 0);
  CHECK(countKind(f, InstKind::Swi) == 2);  // three constructors: two switches
  CHECK(countKind(f, InstKind::App) == 2);  // the scrutinee on λtag, then on v
  CHECK(countKind(f, InstKind::Dup) == 0);  // v went into the arms, not around them
}

TEST_CASE("expand matches under Scott applies the scrutinee to one λ per constructor") {
  auto front = test::runOn("type T = (A x) | B\nf = λt match t { T/A: t.x; T/B: 0 }\nmain = (f T/B)",
                           [] {
                             frontend::FrontendOptions o = noPrelude();
                             o.encoding = core::AdtEncoding::Scott;
                             return o;
                           }());
  REQUIRE(front->result.program);
  std::unique_ptr<Module> m = lowering::coreToHir(*front->result.program);
  REQUIRE(m);
  CHECK(findFirst(*m->find("f"), InstKind::Match) != nullptr);
  linearize(*m);
  Function &f = *m->find("f");
  CHECK(countKind(f, InstKind::Swi) == 0);
  CHECK(countKind(f, InstKind::App) == 2);
}

TEST_CASE("expand matches under Scott expands a match inside an arm that takes no params") {
  // The arm of T/B is no block once expanded: its instructions, the inner
  // match among them, join the block of the outer match.
  auto front = test::runOn("type T = (A x) | B\n"
                           "f = λt λu match t { T/A: t.x; T/B: match u { T/A: u.x; T/B: 0 } }\n"
                           "main = (f T/B T/B)",
                           [] {
                             frontend::FrontendOptions o = noPrelude();
                             o.encoding = core::AdtEncoding::Scott;
                             return o;
                           }());
  REQUIRE(front->result.program);
  std::unique_ptr<Module> m = lowering::coreToHir(*front->result.program);
  REQUIRE(m);
  // Unlinearized, the arm of T/B takes nothing (u comes from outside).
  linearize(*m, MatchLinearization::Disabled);
  Function &f = *m->find("f");
  CHECK(countKind(f, InstKind::Match) == 0);
  CHECK(countKind(f, InstKind::App) == 4);
}

TEST_CASE("the verifier reports a match left once matches are expanded") {
  Compiled c = toHir("type T = (A x) | B\nf = λt match t { T/A: t.x; T/B: 0 }\nmain = (f T/B)");
  c.hir->invariants.matchesExpanded = true;
  std::vector<std::string> problems = verify(*c.hir);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("a match is left") != std::string::npos);
}

TEST_CASE("float combinators leaves alone a λ that binds an unscoped variable used outside it") {
  Compiled c = toHir("f = λq (q $k λx λy (+ (y x) λ$k 2))\nmain = (f λa a)");
  linearize(*c.hir);
  floatCombinators(*c.hir);
  requireValid(*c.hir);
  CHECK(c.hir->find("f__C0") == nullptr);
}

TEST_CASE("linearizing function by function gives the module the three passes give one by one") {
  const char *source = R"(
type Tree = (Node l r) | (Leaf v)
sum = λt match t { Tree/Node: (+ (sum t.l) (sum t.r)); Tree/Leaf: t.v }
pick = λn λa λb switch n { 0: (a b b); 1: a; _: λk (b k a) }
twice = λf λx (f (f x))
main = (sum (Tree/Node (Tree/Leaf (pick 2 3 4)) (Tree/Leaf (twice λy y 5))))
)";
  for (MatchLinearization level :
       {MatchLinearization::Enabled, MatchLinearization::Alt, MatchLinearization::Disabled}) {
    CAPTURE(int(level));
    Compiled one = toHir(source), each = toHir(source);
    linearize(*one.hir, level);
    linearizeEachFunction(*each.hir, level);
    requireValid(*each.hir);
    std::string a = moduleText(*one.hir);
    CHECK(a == moduleText(*each.hir));
    CHECK(a.find("switch") != std::string::npos);
    CHECK(a.find("dup") != std::string::npos);
    CHECK(each.hir->invariants.linear);
    CHECK(each.hir->invariants.matchesLinearized == one.hir->invariants.matchesLinearized);
  }
}

TEST_CASE("after sharing recovery each definition refers to the names the program check found") {
  // Later phases read Program::refs instead of walking Core again: sharing
  // recovery, which runs after the check, must keep each definition's set.
  auto front = test::runOn("double = λn (* n 2)\n"
                           "twice = λx (+ (double x) (double x))\n"
                           "nested = λx (+ (twice (double x)) (twice (double x)))\n"
                           "main = (nested 3)");
  REQUIRE_MESSAGE(front->result.program, front->text());
  CHECK(front->result.shared >= 2);
  const core::Program &p = *front->result.program;
  REQUIRE(p.refs.covers(p.defs.size()));
  for (size_t k = 0; k < p.defs.size(); ++k) {
    CAPTURE(p.defs[k].name.str());
    llvm::SmallVector<llvm::StringRef, 8> now;
    core::collectRefs(p.defs[k].body, now);
    std::set<std::string> found(now.begin(), now.end()), kept;
    for (llvm::StringRef r : p.refs.of(k))
      kept.insert(r.str());
    CHECK(found == kept);
  }
}

TEST_CASE("the program check counts each definition's calls, constructors aside") {
  // Sharing recovery skips a definition with fewer than two calls without
  // walking it: the counts come from the program check's walk.
  auto front = test::runOn("type Tr = (A x) | (B)\n"
                           "f = λx (x 1)\n"
                           "g = λy (Tr/A (f y))\n"
                           "h = λz (f (f z))\n"
                           "k = (Tr/A Tr/B)\n"
                           "main = (h (g k))");
  REQUIRE_MESSAGE(front->result.program, front->text());
  const core::Program &p = *front->result.program;
  REQUIRE(p.refs.callsOf.size() == p.defs.size());
  std::map<std::string, uint32_t> calls;
  for (size_t d = 0; d < p.defs.size(); ++d)
    calls[p.defs[d].name.str()] = p.refs.callsOf[d];
  CHECK(calls["f"] == 1);    // a variable applied
  CHECK(calls["g"] == 1);    // the constructor's application is none
  CHECK(calls["h"] == 2);
  CHECK(calls["k"] == 0);
  CHECK(calls["main"] == 2); // k is a reference, not a call
}

TEST_CASE("functions main expands: what main returns, through what those return") {
  Compiled c = toHir("type P = (Mk a b)\n"
                     "inner = λx x\nouter = (inner, 1)\nctr = (P/Mk outer 2)\n"
                     "called = λx x\nunder = (called 1)\nnot = 3\n"
                     "named = λx (x inNamed)\ninNamed = 4\nalso = 5\n"
                     "main = (ctr, under, λy (y not), (called named also))");
  // Programs cannot name functions as floated ones (`__`); a module can.
  for (const char *name : {"named", "also"}) {
    llvm::StringRef renamed = c.hir->save(std::string(name) == "named" ? "named__C1" : "also__C2");
    for (Function &fn : c.hir->functions()) {
      if (fn.name == name)
        c.hir->rename(fn, renamed);
      forEachInst(fn, [&](Inst &i) {
        if (i.kind == InstKind::Ref && i.ref == name)
          i.ref = renamed;
      });
    }
  }
  linearize(*c.hir);
  std::vector<std::string> prepared;
  std::vector<bool> expands = functionsMainExpands(
      *c.hir, [&](Function &fn) { prepared.push_back(fn.name.str()); });
  auto expanded = [&](const char *name) {
    Function *fn = c.hir->find(name);
    REQUIRE(fn);
    return bool(expands[fn->id.index]);
  };
  CHECK(expanded("ctr"));
  CHECK(expanded("outer"));  // an argument of a returned constructor
  CHECK(expanded("inner"));  // an element of a returned tuple
  CHECK(expanded("under"));
  CHECK_FALSE(expanded("called")); // applied, not returned
  CHECK_FALSE(expanded("not"));    // an argument of an application in a λ
  CHECK_FALSE(expanded("main"));
  // Named as floated ones: inlined wherever they are in main.
  CHECK(expanded("named__C1"));
  CHECK(expanded("also__C2"));
  CHECK_FALSE(expanded("inNamed"));
  REQUIRE(!prepared.empty());
  CHECK(prepared.front() == "main");
  CHECK(prepared.size() == 7); // main and the six it expands, once each
  // What expandMain then inlines is what was found.
  expandMain(*c.hir);
  Function &main = *c.hir->find("main");
  forEachInst(main, [&](Inst &i) {
    if (i.kind == InstKind::Ref)
      CHECK_MESSAGE(!expanded(std::string(i.ref).c_str()), i.ref.str());
  });
}

TEST_CASE("compiling lets go of the instructions of functions nothing will look into again") {
  const char *source = R"(
helper = λx (+ x 1)
judgedLater = λy y
user = λx (x (judgedLater (List/length [1])))
pair = (helper, 2)
main = (pair, (user helper))
)";
  for (bool keepFunctions : {false, true}) {
    CAPTURE(keepFunctions);
    auto front = test::runOn(source);
    REQUIRE_MESSAGE(front->result.program, front->text());
    lowering::CompileOptions options;
    options.keepFunctions = keepFunctions;
    lowering::CompileResult r = lowering::compileToBook(*front->result.program, options, *front->diags);
    REQUIRE(r.book);
    auto kept = [&](const char *name) {
      Function *fn = r.hir->find(name);
      REQUIRE(fn);
      return !fn->body().insts.empty() && fn->wireCount() > 0;
    };
    CHECK(kept("main"));
    CHECK(kept("pair")); // main returns it: expanding main inlines it
    CHECK(kept("user") == keepFunctions);
    CHECK(kept("judgedLater") == keepFunctions);
    CHECK(kept("List/length") == keepFunctions); // a builtin only `user` refers to
  }
}

TEST_CASE("linearizing functions one at a time, in any order, gives the module linearized at once") {
  const char *source = "type L = (C h t) | N\n"
                       "f = λx λy switch x { 0: (y y); _: λp (+ p (g y)) }\n"
                       "g = λz match z { L/C: (+ z.h z.h); L/N: 0 }\n"
                       "main = (f 1 (L/C 2 L/N))";
  Compiled whole = toHir(source), some = toHir(source);
  linearizeEachFunction(*whole.hir, MatchLinearization::Enabled);
  FunctionLinearizer linearizer(*some.hir, MatchLinearization::Enabled);
  linearizer.run(*some.hir->find("g"));
  linearizer.run(*some.hir->find("g")); // once only
  CHECK_FALSE(some.hir->invariants.linear);
  linearizer.finish();
  CHECK(some.hir->invariants.linear);
  CHECK(some.hir->invariants.matchesLinearized);
  requireValid(*some.hir);
  std::string a = moduleText(*whole.hir);
  CHECK(a == moduleText(*some.hir));
  CHECK(a.find("dup") != std::string::npos);
}

TEST_CASE("linearizing, floating and lowering function by function gives the book the passes give one by one") {
  // The entry point returns references main's expansion inlines, and the
  // prelude is in: floated functions from many definitions, and some of
  // them referring to each other. `early` refers to `late`, which floating
  // judges before it reaches it: it must be linearized first (erasing its
  // unused variable makes it unsafe).
  const char *source = R"(
early = λx (x (late 1))
late = λy (1, 2)
first = λy y
second = λx (x (first 1))
type Tr = (Node l r) | (Leaf v)
sum = λt match t { Tr/Node: (+ (sum t.l) (sum t.r)); Tr/Leaf: t.v }
gen = λd switch d { 0: (Tr/Leaf 1); _: (Tr/Node (gen d-1) (gen d-1)) }
pair = ((sum (gen 3)), [1, 2, 3])
main = (pair, λx (x (sum (gen 2))), (early 3), (second 4))
)";
  auto front = test::runOn(source);
  std::string apart = passByPassBookText(*front), fused = compiledBookText(*front, false);
  CHECK(apart == fused);
  CHECK(fused.find("@gen__C") != std::string::npos);
  CHECK(fused.find("@main = ") != std::string::npos);
  // Verifying after every pass is the same pipeline: the same book.
  CHECK(compiledBookText(*test::runOn(source), true) == fused);
}

TEST_CASE("the verifier runs after every pass of the pipeline that ships") {
  auto front = test::runOn("type Tr = (A x) | B\n"
                           "f = λt λv match t { Tr/A: (+ t.x v); Tr/B: switch v { 0: 1; _: (f Tr/B v-1) } }\n"
                           "main = (f (Tr/A 2) 3)");
  REQUIRE(front->result.program);
  lowering::CompileOptions options;
  options.verifyEachPass = true;
  lowering::CompileResult r = lowering::compileToBook(*front->result.program, options, *front->diags);
  CHECK(r.internalErrors.empty());
  REQUIRE(r.book);
  std::vector<std::string> expected = {"core-to-hir",         "prune",
                                       "linearize-matches",   "expand-matches",
                                       "linearize-variables", "float-combinators",
                                       "expand-main",         "hir-to-net"};
  std::vector<std::string> ran = r.verifiedPasses;
  std::sort(ran.begin(), ran.end());
  std::sort(expected.begin(), expected.end());
  CHECK(ran == expected);
  // Without merging and floating, the module passes run one by one, verified too.
  options.merge = true;
  auto again = test::runOn("main = (λx (+ x 1) 2)");
  lowering::CompileResult m = lowering::compileToBook(*again->result.program, options, *again->diags);
  CHECK(m.internalErrors.empty());
  CHECK(llvm::is_contained(m.verifiedPasses, "merge"));
  CHECK(llvm::is_contained(m.verifiedPasses, "linearize-variables"));
}
