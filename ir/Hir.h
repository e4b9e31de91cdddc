// HIR: the middle end's form of a program. Per definition a linear,
// continuation-passing tree of instructions:
//
//   Function ::= name Block            (the block's result is the definition's value)
//   Block    ::= params Inst* result   (params: wires the block receives)
//   Inst     ::= outs = kind ins [numb | @ref] Block*
//
// Every intermediate value is a named wire. Each wire is defined once (an
// instruction's out or a block's param) and, once the program is linear, used
// once (an instruction's in or a block's result). Duplication (`dup`) and
// erasure (`erase`) are explicit instructions; every operation names the wire
// its result goes to. A λ's body is a block whose one param is the bound
// variable; a switch's two arms are blocks whose params are the live variables
// they receive (the successor arm first takes the predecessor). Wires are not
// lexically scoped: an unscoped variable (`λ$x`, `$x`) is a wire defined in one
// place and used anywhere in the function, as in the net it becomes.
//
// Storage is flat: a function keeps its instructions in one table indexed
// by InstId, its blocks in one indexed by BlockId (the body is block 0) and
// its wires in one indexed by WireId. A block lists its instructions by id,
// in order, and an instruction names the blocks it holds by id. A reference
// names its function by FunctionId, the function's index in the module's id
// table.
//
// A constructor match (`match`) stays one instruction while variables move
// into its arms: each arm's params are the constructor's fields, then the
// variables the match passes. It is then expanded into the λs, switches and
// applications of the ADT encoding. Lowering turns each instruction into one
// net node (a switch also builds its pair of cases and one application per
// argument it passes to its arms).
#pragma once

#include "support/Id.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/StringSaver.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace bendc::hir {

/// A wire's index in its function's table (Function::wires).
using WireId = Id<struct WireTag>;
inline constexpr WireId NoWire{};
/// A function's name in its module that stays when the function moves or is
/// renamed: what a reference holds (Inst::callee). Module::withId finds it.
using FunctionId = Id<struct FunctionTag>;
/// No function's id: a reference that holds it is resolved by name.
inline constexpr FunctionId NoFunction{};
/// A block's place in its function's table (Function::blocks). An
/// instruction names the blocks it holds by these; the body is block 0.
using BlockId = Id<struct BlockTag>;
/// An instruction's place in its function's table (Function::insts). A
/// block lists its instructions by these.
using InstId = Id<struct InstTag>;

// Instruction kinds, listed once: X(Name, mnemonic, outs, fixed ins, blocks).
// `-1` ins: the switch and the match take their scrutinee and then any number
// of arguments; `-1` blocks: a match has one arm per constructor.
#define BENDC_HIR_INSTS(X)                                                     \
  X(Lam, "lam", 1, 0, 1)       /* %f = lam { ^x: ... ret %b }          */     \
  X(App, "app", 1, 2, 0)       /* %r = app %f %a                         */   \
  X(Sup, "sup", 1, 2, 0)       /* %r = sup %a %b                         */   \
  X(Dup, "dup", 2, 1, 0)       /* %a, %b = dup %v                        */   \
  X(Tup, "tup", 1, 2, 0)       /* %r = tup %a %b                         */   \
  X(Untup, "untup", 2, 1, 0)   /* %a, %b = untup %v                      */   \
  X(Era, "era", 1, 0, 0)       /* %r = era            (an eraser value)  */   \
  X(Erase, "erase", 0, 1, 0)   /* erase %v            (drops a wire)     */   \
  X(Num, "num", 1, 0, 0)       /* %r = num 3                             */   \
  X(Ref, "ref", 1, 0, 0)       /* %r = ref @name                         */   \
  X(Opr, "opr", 1, 2, 0)       /* %r = opr %x %y     (node $(y r) on x)  */   \
  X(OprNum, "oprnum", 1, 1, 0) /* %r = opr %x [+1]   (node $([+1] r))    */   \
  X(Swi, "switch", 1, -1, 2)   /* %r = switch %n (%a...) { zero; succ }  */ \
  X(Match, "match", 1, -1, -1) /* %r = match %x (%a...) { ctr arms }      */

enum class InstKind : uint8_t {
#define BENDC_HIR_ENUM(Name, Mnemonic, Outs, Ins, Blocks) Name,
  BENDC_HIR_INSTS(BENDC_HIR_ENUM)
#undef BENDC_HIR_ENUM
};

llvm::StringRef mnemonic(InstKind kind);
unsigned outCount(InstKind kind);
/// Fixed operand count; -1 for the switch and the match (scrutinee plus
/// arguments).
int inCount(InstKind kind);
/// Fixed block count; -1 for the match (one per constructor).
int blockCount(InstKind kind);

struct Inst {
  InstKind kind;
  /// Num, OprNum: an HVM2 number word. (Next to kind: no padding.)
  uint32_t numb = 0;
  /// Ref: the function `ref` names, or NoFunction; Module::target checks
  /// it against the name, so one a pass left behind costs a lookup, never a
  /// wrong target.
  FunctionId callee;
  llvm::SmallVector<WireId, 2> outs;
  llvm::SmallVector<WireId, 2> ins;
  llvm::StringRef ref;   // Ref: the definition's name
  llvm::SmallVector<BlockId, 2> blocks; // Lam: body; Swi: zero, succ; Match: arms
  llvm::SMLoc loc;

  explicit Inst(InstKind k, llvm::SMLoc l = {})
      : kind(k), loc(l) {}
  Inst(Inst &&) noexcept = default;
  Inst &operator=(Inst &&) noexcept = default;
  Inst(const Inst &) = delete;
  Inst &operator=(const Inst &) = delete;
};

/// A block's instructions, in order. Most blocks (a λ's body, an arm) hold a
/// few: they keep them inline.
using InstList = llvm::SmallVector<InstId, 4>;

struct Block {
  llvm::SmallVector<WireId, 2> params;
  InstList insts; // Function::inst gives each
  WireId result = NoWire;

  Block() = default;
  Block(Block &&) noexcept = default;
  Block &operator=(Block &&) noexcept = default;
  Block(const Block &) = delete;
  Block &operator=(const Block &) = delete;
};

struct Function {
  llvm::StringRef name;
  /// Its place in its module's table, kept when it is renamed: what
  /// references hold (Inst::callee). NoFunction until the module adds it.
  FunctionId id;
  llvm::SMLoc loc;
  bool builtin = false;
  bool generated = false; // made by a pass (a floated combinator)
  /// Taken out of its module (pruned, merged into another): only its name
  /// and id stay.
  bool removed = false;
  /// Every block of the function, the body first; an instruction holds the
  /// ids of its blocks. A block no instruction holds any more (its contents
  /// moved to another function) stays, empty, until the function goes.
  IdTable<BlockId, Block> blocks;
  /// Every instruction of the function. One no block lists any more (it
  /// moved to another function, or a pass replaced it) stays, unused,
  /// until the function goes. Adding one may move the others: an Inst&
  /// taken before does not hold across newInst (ids do).
  IdTable<InstId, Inst> insts;
  static constexpr BlockId Body{0};
  static constexpr uint32_t NoRank = ~0u;
  struct Wire {
    /// The source name or a hint; it points into the Core program the
    /// module came from, or is a literal.
    llvm::StringRef name;
    /// For a variable, the place of its binder among the definition's
    /// named binders, in Bend's order (λ before its body, a let's value
    /// before its names, arms in order); NoRank for other wires. Variables
    /// passed into match arms go in the order Bend gives them.
    uint32_t rank = NoRank;
    bool unscoped = false; // a `$x` wire
  };
  IdTable<WireId, Wire> wires;

  Function() { blocks.emplace_back(); }
  Function(Function &&) noexcept = default;
  Function &operator=(Function &&) noexcept = default;
  Function(const Function &) = delete;
  Function &operator=(const Function &) = delete;

  WireId newWire(llvm::StringRef hint, bool isUnscoped = false, uint32_t rank = NoRank) {
    return wires.push_back(Wire{hint, rank, isUnscoped});
  }
  unsigned wireCount() const { return unsigned(wires.size()); }

  /// The body: no params; its result is the definition's value.
  Block &body() { return blocks[Body]; }
  const Block &body() const { return blocks[Body]; }
  Block &block(BlockId id) { return blocks[id]; }
  const Block &block(BlockId id) const { return blocks[id]; }
  /// A new empty block. It may move the others: a Block& taken before does
  /// not hold across it (ids do).
  BlockId newBlock() { return blocks.emplace_back(); }
  Inst &inst(InstId id) { return insts[id]; }
  const Inst &inst(InstId id) const { return insts[id]; }
  /// Adds `i` to the table (no block lists it yet).
  InstId newInst(Inst &&i) { return insts.push_back(std::move(i)); }
  /// Adds `i` at the end of block `b`.
  InstId append(BlockId b, Inst &&i) {
    InstId id = newInst(std::move(i));
    blocks[b].insts.push_back(id);
    return id;
  }
  /// The instructions of `b` (a block of this function), in order.
  auto instsOf(const Block &b) {
    return llvm::map_range(b.insts, [this](InstId id) -> Inst & { return insts[id]; });
  }
  auto instsOf(const Block &b) const {
    return llvm::map_range(b.insts, [this](InstId id) -> const Inst & { return insts[id]; });
  }
  /// Lets the instructions and wires go: only the name, the id and an
  /// empty body stay.
  void release() {
    blocks.release();
    blocks.emplace_back();
    insts.release();
    wires.release();
  }
};

/// What the verifier may expect of a module, strengthened as passes run.
struct Invariants {
  bool linear = false;           // every wire used exactly once
  bool matchesLinearized = false; // switch arms use only their params (and unscoped wires)
  bool matchesExpanded = false;   // no match is left: each is λs, switches and applications
};

struct Module {
  bool scott = false; // ADTs are Scott-encoded (else NumScott)
  llvm::BumpPtrAllocator arena;
  /// The names the module keeps (those passes make): copied, not uniqued,
  /// as each is saved about once. The names of the functions Core to HIR
  /// makes point into the Core program, as wire names do.
  llvm::StringSaver strings{arena};
  llvm::StringMap<unsigned> constructors; // ADT constructors and their field counts
  /// Definitions written directly as nets (`hvm name: ...`), with the names
  /// they refer to; references to them are not to functions.
  llvm::StringMap<std::vector<llvm::StringRef>> netReferences;
  std::vector<llvm::StringRef> userNetDefinitions; // those not from the prelude
  llvm::StringRef entry = "main";
  Invariants invariants;

  llvm::StringRef save(llvm::StringRef s) { return strings.save(s); }

  /// The functions, in the order they were added (a function's id is its
  /// place in that order), without those taken out.
  auto functions() { return llvm::make_filter_range(table, [](const Function &f) { return !f.removed; }); }
  auto functions() const {
    return llvm::make_filter_range(table, [](const Function &f) { return !f.removed; });
  }
  /// How many ids have been given: every id is below it.
  uint32_t idCount() const { return table.size(); }
  /// The function with id `id`, which must be one this module gave; it may
  /// have been taken out (Function::removed).
  Function &function(FunctionId id) { return table[id]; }
  const Function &function(FunctionId id) const { return table[id]; }
  /// The id the next function added will get (Function::id); a pass that
  /// makes functions names them by it before it adds them, in that order.
  FunctionId newFunctionId() { return FunctionId(nextFunctionId++); }
  /// Adds `fn`, whose id is the next one to add (from newFunctionId, or
  /// none: it gets one); answers it in its place. It may move the others:
  /// a Function& taken before does not hold across it (ids do).
  Function &add(Function &&fn);
  /// Room for `more` functions added later (adding may move the others).
  void reserve(size_t more) { table.reserveMore(more); }
  /// Takes the function out: its place stays, empty, so that no other id
  /// changes; references to it no longer find it.
  void remove(FunctionId id);
  /// Renames a function of the module.
  void rename(Function &fn, llvm::StringRef name);

  /// The function named `name`, or null. The index by name is made when
  /// first asked for and kept up to date from then on.
  Function *find(llvm::StringRef name);
  const Function *find(llvm::StringRef name) const;
  /// The function the reference `ref` names, or null: the one its id
  /// (Inst::callee) gives when that function has the reference's name, else
  /// the one found by name.
  Function *target(const Inst &ref);
  const Function *target(const Inst &ref) const;
  /// The same by the id alone: null when the id gives no function of the
  /// reference's name (the caller may then look by name).
  Function *targetById(const Inst &ref);
  const Function *targetById(const Inst &ref) const;
  /// The function whose id is `id`, whatever its name; null if none (or
  /// taken out).
  Function *withId(FunctionId id);
  const Function *withId(FunctionId id) const;

private:
  /// Drops `fn`'s entry from the index by name, if the entry is its.
  void unindex(const Function &fn);

  /// Every function given an id, at that id's place.
  IdTable<FunctionId, Function> table;
  llvm::StringMap<FunctionId> byName; // the live functions' names, once asked for
  bool indexed = false;
  uint32_t nextFunctionId = 0;
};

/// The functions each function of a module refers to, as the module was
/// made: those of the function with id k are
/// `targets[begin[k] .. begin[k + 1])`, and the other names it refers to
/// (net definitions) `others[otherBegin[k] .. otherBegin[k + 1])`.
/// `netNamed` lists the functions whose name a net definition also has.
struct FunctionReferences {
  std::vector<uint32_t> begin{0};
  std::vector<FunctionId> targets;
  std::vector<uint32_t> otherBegin{0};
  std::vector<llvm::StringRef> others;
  std::vector<FunctionId> netNamed;
};

/// Calls `f(inst)` for every instruction of block `root` of `fn` and of the
/// blocks nested in it, parents before children. No recursion on the C++
/// stack. `f` may change instructions but not add blocks or instructions.
template <typename F> void forEachInst(Function &fn, BlockId root, F f) {
  llvm::SmallVector<BlockId, 16> work{root};
  while (!work.empty()) {
    Block &b = fn.block(work.pop_back_val());
    for (InstId id : b.insts) {
      Inst &i = fn.inst(id);
      f(i);
      work.append(i.blocks.begin(), i.blocks.end());
    }
  }
}
template <typename F> void forEachInst(Function &fn, F f) { forEachInst(fn, Function::Body, f); }
/// The same for every block: `f(block)`, parents before children.
template <typename F> void forEachBlock(Function &fn, BlockId root, F f) {
  llvm::SmallVector<BlockId, 16> work{root};
  while (!work.empty()) {
    Block &b = fn.block(work.pop_back_val());
    f(b);
    for (InstId i : b.insts)
      work.append(fn.inst(i).blocks.begin(), fn.inst(i).blocks.end());
  }
}
template <typename F> void forEachBlock(Function &fn, F f) { forEachBlock(fn, Function::Body, f); }
/// The same with each block's id: `f(id)`. `f` may add blocks.
template <typename F> void forEachBlockId(Function &fn, BlockId root, F f) {
  llvm::SmallVector<BlockId, 16> work{root};
  while (!work.empty()) {
    BlockId id = work.pop_back_val();
    f(id);
    for (InstId i : fn.block(id).insts)
      work.append(fn.inst(i).blocks.begin(), fn.inst(i).blocks.end());
  }
}
template <typename F> void forEachBlock(const Function &fn, BlockId root, F f) {
  forEachBlock(const_cast<Function &>(fn), root, [&](const Block &b) { f(b); });
}

/// Replaces every use of a wire (operands and results) in block `root` of
/// `fn` and the blocks inside it by `rename(wire)`. For passes that make one
/// wire stand for another.
void renameUses(Function &fn, BlockId root, llvm::function_ref<WireId(WireId)> rename);

/// Text form (`--emit=hir`).
void printFunction(llvm::raw_ostream &os, const Function &fn);
void printModule(llvm::raw_ostream &os, const Module &module, bool withBuiltins = false);

/// Checks the module against its invariants: each wire defined exactly once,
/// every used wire defined, instruction arities, references naming existing
/// functions, and (as `module.invariants` says) linearity, no match left once
/// matches are expanded, and switch arms that receive exactly their live
/// inputs as params. Returns the problems found, one message each; empty when
/// the module is well formed.
std::vector<std::string> verify(const Module &module);

/// What a reference instruction names, for verifying one function: a
/// message when the reference is wrong (it names no function or net
/// definition, or holds the id of another function), else nothing.
using RefCheck = llvm::function_ref<std::optional<std::string>(const Inst &ref)>;

/// The checks `verify` makes of each function, for `fn` alone, against
/// `invariants`; a pipeline that takes the module function by function runs
/// it after each pass on the functions that pass changed. Appends to
/// `problems`.
void verifyFunction(const Function &fn, const Invariants &invariants, RefCheck refs,
                    std::vector<std::string> &problems);

/// The checks `verify` makes of the module as a whole: no two functions
/// with the same name or id.
void verifyNames(const Module &module, std::vector<std::string> &problems);

/// A RefCheck for the module's own functions and net definitions; `more`
/// may know of others (functions a pass made that have not joined the
/// module yet).
std::optional<std::string> checkRef(const Module &module, const Inst &ref,
                                    llvm::function_ref<bool(llvm::StringRef)> more = nullptr);

} // namespace bendc::hir
