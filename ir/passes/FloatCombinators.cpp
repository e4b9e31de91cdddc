// Float combinators. A block's instructions form trees: an instruction's
// children are the producers of its operands in the same block (a dup or an
// untup is a binding, not a child: its outputs are variables). A term is such
// a tree together with the blocks nested in it. Terms are visited children
// first; a closed one (it uses no wire it does not define and defines none
// used elsewhere) moves to a new function when it could do work as soon as it
// is built (it is not "safe") or when its definition is large. Switch arms
// are terms too: a closed arm moves and is replaced by the new reference,
// applied to the arm's params.
#include "ir/Dataflow.h"
#include "ir/Passes.h"
#include "runtime/common/Numeric.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <cassert>
#include <memory>

namespace bendc::hir {

namespace {

constexpr unsigned kMaxSize = 64; // Bend's net size bound for floating large terms

/// Nodes an instruction becomes, counted as Bend counts a term's size.
unsigned baseSize(const Inst &i) {
  switch (i.kind) {
  case InstKind::Lam:
  case InstKind::App:
  case InstKind::Sup:
  case InstKind::Tup:
  case InstKind::Dup:
  case InstKind::Untup:
  case InstKind::Opr:
  case InstKind::OprNum: return 1;
  case InstKind::Swi: return 2;
  case InstKind::Match: return unsigned(i.blocks.size()); // expanded before floating
  case InstKind::Era:
  case InstKind::Erase:
  case InstKind::Num:
  case InstKind::Ref: return 0;
  }
  return 0;
}

/// What the floating needs to know of a term. The module is linear (each
/// wire used once), so a child's out is used by its parent alone: a term is
/// closed when each of its instructions takes all its operands from its
/// children and each nested block needs nothing from outside.
struct TermInfo {
  bool closed = true;
  unsigned size = 0;
  bool unscoped = false; // mentions an unscoped variable
};

/// Up the block tree: how many nodes a block and the blocks inside it hold,
/// and whether they mention an unscoped variable (which ties them to the
/// place its other end is, so they never float).
struct Subtree {
  struct Value {
    unsigned size = 0;
    bool unscoped = false;
    bool operator==(const Value &o) const { return size == o.size && unscoped == o.unscoped; }
  };
  static constexpr Direction direction = Direction::Up;
  Value initial() const { return Value(); }
  Value transfer(const Function &fn, const Block &b, llvm::ArrayRef<const Value *> children) const {
    Value v;
    auto mention = [&](WireId w) { v.unscoped |= fn.wires.contains(w) && fn.wires[w].unscoped; };
    for (WireId p : b.params)
      mention(p);
    mention(b.result);
    for (const Inst &i : fn.instsOf(b)) {
      v.size += baseSize(i);
      for (WireId w : i.outs)
        mention(w);
      for (WireId w : i.ins)
        mention(w);
    }
    for (const Value *c : children) {
      v.size += c->size;
      v.unscoped |= c->unscoped;
    }
    return v;
  }
};

/// Where a wire is made: an instruction of a block, and its place in the
/// block's list.
struct Site {
  Block *block = nullptr;
  uint32_t index : 31;
  uint32_t single : 1; // the instruction has one out (a term, not a binding)
  InstId inst;
  Site() : index(0), single(0) {}
  Site(Block *b, uint32_t k, bool one, InstId i) : block(b), index(k), single(one), inst(i) {}
};

/// The buffers a Floater works in, kept from one function to the next.
struct Scratch {
  BlockGraph graph;
  std::vector<OpenUses::Value> open; // by block: 0 when closed
  std::vector<Subtree::Value> subtrees; // by block, as of the start
  IdTable<WireId, Site> producer;       // by wire
  IdTable<WireId, TermInfo> infos;      // by the out wire of the instruction they are about
  IdTable<WireId, int8_t> safeMemo;     // likewise; -1: not judged yet
  // Moving a term out: the new function's wires, by old wire (NoWire: not
  // made yet), and the wire tables they are made in.
  IdTable<WireId, WireId> movedWire;
  Function movedWires;
  llvm::SmallVector<bool, 32> member; // by instruction of the term's block
};

/// What the functions of one module share while floating.
struct SharedState {
  /// Whether each function judged so far or made by floating is safe: a
  /// name being judged is unsafe to the references it reaches (a cycle).
  enum Safety : uint8_t { Unjudged, Unsafe, Safe, Judging };
  /// The judgement a reference finds: by the id it holds, where the entry
  /// for that id is about the same name (an id a pass left behind on a
  /// renamed reference finds another name there), else by name. Entries
  /// are never taken out. Judging a reference judges others, so the
  /// reference returned holds only until the next call.
  Safety &safety(llvm::StringRef name, FunctionId fid) {
    if (fid.valid()) {
      uint32_t id = fid.index;
      if (id >= byId.size())
        byId.resize(std::max<size_t>(size_t(id) + 1, byId.size() * 2));
      ById &e = byId[id];
      if (e.safety == Unjudged)
        e.name = name;
      if (e.name == name)
        return e.safety;
    }
    return byName.try_emplace(name, Unjudged).first->second;
  }
  struct ById {
    llvm::StringRef name;
    Safety safety = Unjudged;
  };
  std::vector<ById> byId;
  llvm::StringMap<Safety, llvm::BumpPtrAllocator> byName;
  /// Buffers of the probes judging other definitions, by how deep a probe
  /// is nested in others.
  std::vector<std::unique_ptr<Scratch>> probes;
  unsigned probeDepth = 0;
  FloatListener *listener = nullptr;
};

class Floater {
public:
  Floater(Module &module, Function &fn, std::vector<Function> &made, SharedState &shared,
          Scratch &scratch)
      : module(module), fn(fn), made(made), shared(shared), scratch(scratch), graph(scratch.graph),
        open(scratch.open), subtrees(scratch.subtrees), producer(scratch.producer),
        infos(scratch.infos), safeMemo(scratch.safeMemo) {}

  void run() {
    infos.assign(fn.wireCount(), TermInfo());
    graph.build(fn);
    solve(graph, OpenUses{}, open);
    solve(graph, Subtree{}, subtrees);
    defSize = subtrees[0].size; // the body's, with every block inside it
    indexAll();
    visitBlockRoots(fn.body());
  }

  void indexAll() {
    producer.assign(fn.wireCount(), Site());
    safeMemo.assign(fn.wireCount(), -1);
    forEachBlock(fn, [&](Block &b) { indexBlock(b); });
  }

private:
  // Floating an arm adds instructions to `fn`, which may move the others:
  // instructions are named by id here, and an Inst& is not kept across a
  // call that may float.
  void indexBlock(Block &b) {
    for (unsigned k = 0; k < b.insts.size(); ++k) {
      const Inst &i = fn.inst(b.insts[k]);
      for (WireId w : i.outs)
        producer[w] = Site(&b, k, i.outs.size() == 1, b.insts[k]);
    }
  }

  /// Where `w` is made, if by an instruction of this function as it was
  /// indexed (wires made since have no producer here).
  const Site *producerOf(WireId w) const {
    return producer.contains(w) && producer[w].block ? &producer[w] : nullptr;
  }

  /// Where `w` is made if it is a child's value in `b`: by an instruction
  /// of `b` with one out (a dup's or untup's outputs are variables).
  const Site *childSite(Block &b, WireId w) const {
    const Site *site = producerOf(w);
    return site && site->block == &b && site->single ? site : nullptr;
  }
  /// The place in `b` of the instruction whose one out is `w`, or -1.
  long childIndex(Block &b, WireId w) const {
    const Site *site = childSite(b, w);
    return site ? long(site->index) : -1;
  }
  InstId childProducer(Block &b, WireId w) const {
    const Site *site = childSite(b, w);
    return site ? site->inst : InstId();
  }

  /// The instructions of `b` that are no other instruction's child.
  using Roots = llvm::SmallVector<InstId, 16>;
  Roots roots(Block &b) {
    llvm::SmallVector<bool, 32> isChild(b.insts.size(), false);
    for (InstId i : b.insts)
      for (WireId w : fn.inst(i).ins)
        if (long k = childIndex(b, w); k >= 0)
          isChild[size_t(k)] = true;
    Roots out;
    for (size_t k = 0; k < b.insts.size(); ++k)
      if (!isChild[k])
        out.push_back(b.insts[k]);
    return out;
  }

  /// Visits a block's terms; values bound for later use (Bend's `let`
  /// values) may float too.
  void visitBlockRoots(Block &b) {
    Roots rs = roots(b);
    for (InstId r : rs)
      visit(b, r);
    for (InstId r : rs)
      if (const Inst &i = fn.inst(r); i.outs.size() == 1 && i.outs[0] != b.result)
        maybeFloat(b, r);
  }

  /// The children Bend floats: an application chain's head and arguments.
  using Candidates = llvm::SmallVector<std::pair<Block *, InstId>, 4>;
  void floatChildren(Block &b, InstId id, Candidates &out) {
    const Inst &i = fn.inst(id);
    if (i.kind == InstKind::App) {
      if (InstId f = childProducer(b, i.ins[0]); f.valid()) {
        if (fn.inst(f).kind == InstKind::App)
          floatChildren(b, f, out);
        else
          out.push_back({&b, f});
      }
      if (InstId a = childProducer(b, i.ins[1]); a.valid())
        out.push_back({&b, a});
      return;
    }
    for (WireId w : i.ins)
      if (InstId c = childProducer(b, w); c.valid())
        out.push_back({&b, c});
  }

  /// Computes `id`'s term facts after visiting (and maybe floating) its children.
  const TermInfo &visit(Block &b, InstId id) {
    TermInfo info;
    info.size = baseSize(fn.inst(id));
    // Operand subterms; an operand with no producer here is a variable.
    // (Visiting them leaves the operands as they are.)
    for (size_t k = 0; k < fn.inst(id).ins.size(); ++k) {
      InstId c = childProducer(b, fn.inst(id).ins[k]);
      if (!c.valid()) {
        info.closed = false;
        continue;
      }
      const TermInfo &ci = visit(b, c);
      info.closed &= ci.closed;
      info.size += ci.size;
      info.unscoped |= ci.unscoped;
    }
    // Nested blocks.
    llvm::SmallVector<BlockId, 2> nested(fn.inst(id).blocks.begin(), fn.inst(id).blocks.end());
    for (BlockId n : nested) {
      visitBlockRoots(fn.block(n));
      unsigned index = graph.indexOf(n);
      info.closed &= open[index] == 0;
      info.size += subtrees[index].size;
      info.unscoped |= subtrees[index].unscoped;
    }
    {
      const Inst &i = fn.inst(id);
      for (WireId w : i.ins)
        info.unscoped |= bool(fn.wires[w].unscoped);
      for (WireId w : i.outs)
        info.unscoped |= bool(fn.wires[w].unscoped);
    }

    // Float the closed children that would run eagerly, or all closed ones
    // once the definition is large.
    // A λ's candidates are those of its body's result term (Bend looks
    // through λs).
    Candidates candidates;
    floatChildren(b, id, candidates);
    InstKind kind = fn.inst(id).kind;
    if (kind == InstKind::Lam) {
      Block &body = fn.block(nested[0]);
      if (InstId r = childProducer(body, body.result); r.valid())
        floatChildren(body, r, candidates);
    }
    for (auto [cb, c] : candidates)
      info.size -= std::min(info.size, maybeFloat(*cb, c));
    if (kind == InstKind::Swi)
      for (BlockId arm : nested)
        maybeFloatArm(arm);
    const Inst &i = fn.inst(id);
    if (i.outs.size() != 1)
      return unnamed = info; // a binding or an erasure: no parent reads it
    return infoOf(i.outs[0]) = info;
  }

  /// Floats the term at `c` if it is a combinator that should float; returns
  /// the size that left.
  unsigned maybeFloat(Block &b, InstId c) {
    const TermInfo &ci = infoOf(fn.inst(c).outs[0]);
    if (!isCombinator(fn.inst(c), ci) || ci.size == 0)
      return 0;
    unsigned size = ci.size;
    bool safe = termSafe(b, c);
    if (safe && defSize <= kMaxSize)
      return 0;
    defSize -= std::min(defSize, size);
    floatTerm(b, c, safe);
    return size;
  }

  bool isCombinator(const Inst &i, const TermInfo &info) const {
    return i.kind != InstKind::Ref && !info.unscoped && info.closed && i.outs.size() == 1 &&
           !partialOperator(i);
  }

  /// The first half of `x op y` (`x` met by `$([op] ...)`): a number waiting
  /// for its second operand, not a term of the source. A definition of it
  /// alone would hold a value readback cannot print (Bend floats the whole
  /// operation), so only the whole operation may float.
  static bool partialOperator(const Inst &i) {
    return i.kind == InstKind::OprNum && rt::num::typeOf(i.numb) == rt::num::TySym;
  }

  /// Bend's rule for what may be built eagerly: numbers, erasers, pairs,
  /// applications, operators and switches of safe parts; safe λs; references
  /// to constructors and to safe definitions. A variable is never safe.
  /// (Judging adds no instruction to `fn`.)
  bool termSafe(Block &b, InstId id) {
    const Inst &i = fn.inst(id);
    // Asked only of instructions with one out (terms, not bindings).
    if (int8_t memo = memoOf(i.outs[0]); memo >= 0)
      return memo;
    bool safe = false;
    bool childrenSafe = llvm::all_of(i.ins, [&](WireId w) {
      InstId c = childProducer(b, w);
      return c.valid() && termSafe(b, c);
    });
    switch (i.kind) {
    case InstKind::Num:
    case InstKind::Era: safe = true; break;
    case InstKind::Sup:
    case InstKind::Tup:
    case InstKind::App:
    case InstKind::Opr:
    case InstKind::OprNum: safe = childrenSafe; break;
    case InstKind::Swi:
      safe = childrenSafe && llvm::all_of(i.blocks, [&](BlockId arm) { return blockSafe(fn.block(arm)); });
      break;
    case InstKind::Lam: safe = blockSafe(fn.block(i.blocks[0])); break;
    case InstKind::Ref: safe = refSafe(i); break;
    default: break;
    }
    memoOf(i.outs[0]) = safe;
    return safe;
  }

  /// A block as a λ chain over its params: safe when its body is one of the
  /// chain's params, a reference, or one safe term. A param the block erases
  /// is a `λ*` of the chain, not a binding; any other binding (an erased or
  /// copied value: Bend's `let`) makes the body unsafe, even where it returns
  /// a param or a reference, since the binding's value is built eagerly.
  bool blockSafe(Block &b) {
    llvm::SmallVector<WireId, 4> params(b.params.begin(), b.params.end());
    Block *body = &b;
    for (;;) {
      size_t erasures = llvm::count_if(fn.instsOf(*body), [&](const Inst &i) {
        return i.kind == InstKind::Erase && llvm::is_contained(params, i.ins[0]);
      });
      size_t insts = body->insts.size() - erasures;
      if (llvm::is_contained(params, body->result))
        return insts == 0;
      InstId r = childProducer(*body, body->result);
      if (!r.valid())
        return false;
      if (fn.inst(r).kind == InstKind::Lam && insts == 1) {
        body = &fn.block(fn.inst(r).blocks[0]);
        params.append(body->params.begin(), body->params.end());
        continue;
      }
      if (insts != countTerm(*body, r))
        return false; // bindings besides the result term
      return fn.inst(r).kind == InstKind::Ref || termSafe(*body, r);
    }
  }

  /// Whether the body of this floater's function is one safe term.
  bool bodySafe() {
    Block &body = fn.body();
    InstId r = childProducer(body, body.result);
    return r.valid() && body.insts.size() == countTerm(body, r) && termSafe(body, r);
  }

  bool refSafe(const Inst &ref) {
    llvm::StringRef name = ref.ref;
    FunctionId callee = ref.callee;
    if (SharedState::Safety known = shared.safety(name, callee); known != SharedState::Unjudged)
      return known == SharedState::Safe;
    if (module.constructors.count(name)) {
      shared.safety(name, callee) = SharedState::Safe;
      return true;
    }
    shared.safety(name, callee) = SharedState::Judging;
    bool safe = false;
    Function *f = module.target(ref);
    if (f) {
      if (f == &fn) {
        safe = bodySafe();
      } else {
        std::vector<Function> none;
        if (shared.listener)
          shared.listener->needed(*f);
        if (shared.probes.size() <= shared.probeDepth)
          shared.probes.push_back(std::make_unique<Scratch>());
        Floater probe(module, *f, none, shared, *shared.probes[shared.probeDepth++]);
        probe.indexAll();
        safe = probe.bodySafe();
        --shared.probeDepth;
      }
    }
    shared.safety(name, callee) = safe ? SharedState::Safe : SharedState::Unsafe;
    if (shared.listener && f)
      shared.listener->judged(*f);
    return safe;
  }

  unsigned countTerm(Block &b, InstId root) {
    unsigned n = 1;
    for (WireId w : fn.inst(root).ins)
      if (InstId c = childProducer(b, w); c.valid())
        n += countTerm(b, c);
    return n;
  }

  /// How many instructions block `root` and the blocks inside it list.
  size_t instructionsIn(BlockId root) {
    size_t n = 0;
    forEachBlock(fn, root, [&](const Block &b) { n += b.insts.size(); });
    return n;
  }

  /// `<name>__C<k>`, saved in the module.
  llvm::StringRef freshName() {
    llvm::SmallString<64> name(fn.name);
    name += "__C";
    name += llvm::utostr(nameCounter++);
    return module.save(name);
  }

  /// Moves the term rooted at `rootId` (in `b`) into a new function; the
  /// root becomes a reference to it.
  void floatTerm(Block &b, InstId rootId, bool safe) {
    // The term's instructions, by place in `b`: found from the root, then
    // put in block order. Only they are looked at (a block may float many
    // terms); `member` marks them meanwhile and is left all false.
    llvm::SmallVector<bool, 32> &member = scratch.member;
    if (member.size() < b.insts.size())
      member.resize(b.insts.size(), false);
    WireId out = fn.inst(rootId).outs[0];
    assert(fn.inst(rootId).outs.size() == 1 && "a floated term has one value");
    uint32_t rootIndex = uint32_t(childIndex(b, out));
    assert(b.insts[rootIndex] == rootId && "the root is an instruction of its block");
    llvm::SmallVector<uint32_t, 16> members;
    llvm::SmallVector<uint32_t, 8> stack{rootIndex};
    while (!stack.empty()) {
      uint32_t k = stack.pop_back_val();
      if (member[k])
        continue;
      member[k] = true;
      members.push_back(k);
      for (WireId w : fn.inst(b.insts[k]).ins) {
        const Site *site = producerOf(w);
        if (site && site->block == &b)
          stack.push_back(site->index);
      }
    }
    llvm::sort(members);
    // A combinator takes every operand from the term itself.
#ifndef NDEBUG
    for (uint32_t k : members)
      for (WireId w : fn.inst(b.insts[k]).ins) {
        const Site *site = producerOf(w);
        assert(site && site->block == &b && member[site->index] &&
               "a floated term reads only what it makes");
      }
#endif
    for (uint32_t k : members)
      member[k] = false;
    // What moves is made here no more (but the root's value, which the
    // reference taking its place makes).
    size_t moving = members.size();
    for (uint32_t k : members) {
      const Inst &i = fn.inst(b.insts[k]);
      for (BlockId nested : i.blocks)
        moving += instructionsIn(nested);
      if (k != rootIndex)
        for (WireId w : i.outs)
          producer[w] = Site();
    }
    Function g = newFunction();
    g.insts.reserve(moving);
    WireMap map(fn, scratch, g);
    // Moving the instructions adds their blocks to `g`: its body takes them
    // at the end.
    // (Held apart meanwhile: adding blocks may move g's body.)
    InstList insts;
    insts.reserve(members.size());
    for (uint32_t k : members)
      if (k != rootIndex)
        insts.push_back(map.moveInst(b.insts[k]));
    insts.push_back(map.moveInst(rootId));
    g.body().insts = std::move(insts);
    g.body().result = map(out);
    map.giveWires(g);
    // Tombstones: dead instructions keep no outs and are dropped at the end;
    // nothing here is made by them any more.
    for (uint32_t k : members)
      if (k != rootIndex) {
        makeTombstone(fn.inst(b.insts[k]));
        tombstones = true;
      }
    Inst ref(InstKind::Ref, g.loc);
    ref.ref = g.name; // saved by newFunction
    ref.callee = g.id;
    ref.outs = {out};
    fn.inst(rootId) = std::move(ref);
    infoOf(out) = TermInfo{/*closed=*/true, /*size=*/0};
    memoOf(out) = safe;
    shared.safety(g.name, g.id) = safe ? SharedState::Safe : SharedState::Unsafe;
    made.push_back(std::move(g));
  }

  void maybeFloatArm(BlockId armId) {
    Block &arm = fn.block(armId);
    unsigned index = graph.indexOf(armId);
    if (open[index] != 0 || subtrees[index].unscoped)
      return; // not closed
    unsigned size = subtrees[index].size;
    size += unsigned(arm.params.size()); // the λs the params become
    if (size == 0)
      return;
    bool safe = blockSafe(arm);
    if (safe && defSize <= kMaxSize)
      return;
    defSize -= std::min(defSize, size);
    Function g = newFunction();
    g.insts.reserve(instructionsIn(armId) + arm.params.size());
    WireMap map(fn, scratch, g);
    // The arm as a λ chain over its params, the outermost λ in g's body
    // (without params, the arm is the body).
    llvm::SmallVector<WireId, 4> params(arm.params.begin(), arm.params.end());
    BlockId body = map.moveBlock(armId, params.empty() ? Function::Body : BlockId());
    for (size_t k = params.size(); k-- > 0;) {
      g.block(body).params = {map(params[k])};
      Inst lam(InstKind::Lam, g.loc);
      lam.blocks.push_back(body);
      WireId f = map.newWire("f");
      lam.outs = {f};
      body = k == 0 ? Function::Body : g.newBlock();
      g.append(body, std::move(lam));
      g.block(body).result = f;
    }
    map.giveWires(g);
    // The arm applies the reference to fresh params of its own.
    Block replaced;
    Inst ref(InstKind::Ref, g.loc);
    ref.ref = g.name; // saved by newFunction
    ref.callee = g.id;
    WireId acc = fn.newWire("r");
    ref.outs = {acc};
    fn.insts.reserveMore(1 + params.size());
    replaced.insts.push_back(fn.newInst(std::move(ref)));
    for (size_t k = 0; k < params.size(); ++k) {
      WireId p = fn.newWire(fn.wires[params[k]].name);
      replaced.params.push_back(p);
      Inst app(InstKind::App, g.loc);
      app.ins = {acc, p};
      acc = fn.newWire("a");
      app.outs = {acc};
      replaced.insts.push_back(fn.newInst(std::move(app)));
    }
    replaced.result = acc;
    fn.block(armId) = std::move(replaced);
    shared.safety(g.name, g.id) = safe ? SharedState::Safe : SharedState::Unsafe;
    made.push_back(std::move(g));
  }

  Function newFunction() {
    Function g;
    g.name = freshName();
    g.id = module.newFunctionId();
    g.loc = fn.loc;
    g.builtin = fn.builtin;
    g.generated = true;
    return g;
  }

  /// Renumbers the wires of what moves out of `from` into a new function
  /// `into`, in the scratch's tables until `giveWires` hands them over; the
  /// blocks that move go straight into `into`.
  struct WireMap {
    Function &from, &to, &into;
    IdTable<WireId, WireId> &moved;
    llvm::SmallVector<WireId, 16> mapped; // the old wires `moved` has an entry for
    WireMap(Function &f, Scratch &scratch, Function &g)
        : from(f), to(scratch.movedWires), into(g), moved(scratch.movedWire) {
      to.wires.clear();
      if (moved.size() < from.wireCount())
        moved.resize(from.wireCount(), NoWire);
    }
    WireMap(const WireMap &) = delete;
    WireMap &operator=(const WireMap &) = delete;
    ~WireMap() {
      for (WireId w : mapped)
        moved[w] = NoWire;
    }
    WireId operator()(WireId w) {
      if (w == NoWire)
        return w;
      if (!moved.contains(w))
        moved.resize(w.index + 1, NoWire);
      if (moved[w] == NoWire) {
        moved[w] = to.newWire(from.wires[w].name, from.wires[w].unscoped);
        mapped.push_back(w);
      }
      return moved[w];
    }
    WireId newWire(llvm::StringRef hint) { return to.newWire(hint); }
    /// Gives the wires made so far to `g`, in a table of their size.
    void giveWires(Function &g) { g.wires.storage().assign(to.wires.begin(), to.wires.end()); }
    /// Moves instruction `id` of `from` into `into`, its wires renumbered
    /// and its blocks moved; answers its id there. The row it leaves in
    /// `from` is listed nowhere or becomes a tombstone.
    InstId moveInst(InstId id) {
      InstId placed = into.newInst(std::move(from.inst(id)));
      renumber(into.inst(placed));
      // Moving a block adds instructions to `into`: the row is found again.
      for (size_t k = 0; k < into.inst(placed).blocks.size(); ++k) {
        BlockId b = moveBlock(into.inst(placed).blocks[k]);
        into.inst(placed).blocks[k] = b;
      }
      return placed;
    }
    void renumber(Inst &i) {
      for (WireId &w : i.outs)
        w = (*this)(w);
      for (WireId &w : i.ins)
        w = (*this)(w);
    }
    /// Moves block `root` of `from`, with the blocks inside it, into
    /// `into` (as block `at`, else a new one); answers its id there. What
    /// it leaves in `from` are empty blocks.
    BlockId moveBlock(BlockId root, BlockId at = BlockId()) {
      BlockId top = at.valid() ? at : into.newBlock();
      llvm::SmallVector<std::pair<BlockId, BlockId>, 16> work{{root, top}};
      while (!work.empty()) {
        auto [source, target] = work.pop_back_val();
        // Renumbered in place, then moved once (what adding to `into` moves
        // is `into`'s, never `from`'s).
        Block &b = from.block(source);
        for (WireId &w : b.params)
          w = (*this)(w);
        b.result = (*this)(b.result);
        // Tombstones (what an earlier float left) stay behind.
        size_t kept = 0;
        for (InstId id : b.insts) {
          if (isTombstone(from.inst(id)))
            continue;
          // Its row in `from` is listed nowhere now.
          InstId placed = into.newInst(std::move(from.inst(id)));
          Inst &i = into.inst(placed);
          renumber(i);
          for (BlockId &c : i.blocks) {
            BlockId nested = into.newBlock();
            work.push_back({c, nested});
            c = nested;
          }
          b.insts[kept++] = placed;
        }
        b.insts.resize(kept);
        into.block(target) = std::move(b);
        b.params.clear(); // (moved from: already empty)
        b.insts.clear();
        b.result = NoWire;
      }
      return top;
    }
  };

public:
  void dropDead() {
    if (tombstones)
      dropTombstones(fn);
  }

  /// An instruction floating moved out of a term, left in its block until
  /// the function is done (no instruction made here is an eraser without
  /// its out).
  static bool isTombstone(const Inst &i) { return i.kind == InstKind::Era && i.outs.empty(); }
  static void makeTombstone(Inst &i) {
    i.outs.clear();
    i.ins.clear();
    i.blocks.clear();
    i.kind = InstKind::Era;
  }

  /// Removes what floating left behind: instructions whose contents moved.
  static void dropTombstones(Function &f) {
    forEachBlock(f, [&](Block &b) {
      llvm::erase_if(b.insts, [&](InstId id) { return isTombstone(f.inst(id)); });
    });
  }

private:
  Module &module;
  Function &fn;
  std::vector<Function> &made;
  SharedState &shared;
  Scratch &scratch;
  // The scratch's buffers (see Scratch); a probe uses only the last three.
  BlockGraph &graph;
  std::vector<OpenUses::Value> &open;
  std::vector<Subtree::Value> &subtrees;
  IdTable<WireId, Site> &producer;
  IdTable<WireId, TermInfo> &infos;
  IdTable<WireId, int8_t> &safeMemo;
  TermInfo unnamed; // of the last instruction without one out

  TermInfo &infoOf(WireId w) {
    if (!infos.contains(w))
      infos.resize(w.index + 1);
    return infos[w];
  }
  int8_t &memoOf(WireId w) {
    if (!safeMemo.contains(w))
      safeMemo.resize(w.index + 1, -1);
    return safeMemo[w];
  }
  unsigned defSize = 0;
  unsigned nameCounter = 0;
  bool tombstones = false; // floating a term left some in `fn`
};

} // namespace

void floatCombinators(Module &module, FloatListener *listener) {
  std::vector<Function> made;
  // Floating makes about two functions for each it looks at (100 000 from
  // the 52 000 of the 4 MB generated program).
  made.reserve(2 * module.idCount());
  SharedState shared;
  shared.listener = listener;
  Scratch scratch;
  uint32_t count = module.idCount();
  for (uint32_t k = 0; k < count; ++k) {
    Function &fn = module.function(FunctionId(k));
    if (fn.removed || fn.name == module.entry)
      continue;
    if (listener)
      listener->needed(fn);
    size_t first = made.size(); // those of `fn` follow
    Floater f(module, fn, made, shared, scratch);
    f.run();
    f.dropDead();
    if (listener) {
      listener->done(fn);
      for (size_t g = first; g < made.size(); ++g)
        listener->made(made[g]);
    }
  }
  module.reserve(made.size());
  for (Function &g : made)
    module.add(std::move(g));
}

} // namespace bendc::hir
