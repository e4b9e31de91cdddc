// Core: the term language the middle end consumes. An untyped λ-calculus with
// let, tuple and superposition binders, erasers, native numbers, operators,
// a two-armed numeric switch and references to definitions. Pattern matching,
// ADTs, strings, lists and imp statements are gone: the frontend has encoded
// them (NumScott or Scott) in these few forms.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/StringSaver.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace bendc::core {

enum class NumKind : uint8_t { U24, I24, F24 };

/// A native number: the kind and its 24-bit payload (f24 keeps the top 24
/// bits of the IEEE single, as HVM2 does).
struct Number {
  NumKind kind = NumKind::U24;
  uint32_t bits = 0;

  static Number u24(uint32_t v) { return {NumKind::U24, v & 0xffffff}; }
  static Number i24(int32_t v) { return {NumKind::I24, uint32_t(v) & 0xffffff}; }
  static Number f24(float v);
  float asFloat() const;
  int32_t asInt() const { return int32_t(bits << 8) >> 8; }
};

// Native binary operators, listed once: X(Name, Symbol).
#define BENDC_CORE_OPS(X)                                                      \
  X(Add, "+") X(Sub, "-") X(Mul, "*") X(Div, "/") X(Rem, "%") X(Eq, "==")     \
  X(Ne, "!=") X(Lt, "<") X(Gt, ">") X(And, "&") X(Or, "|") X(Xor, "^")         \
  X(Shl, "<<") X(Shr, ">>") X(Le, "<=") X(Ge, ">=") X(Pow, "**")

enum class Op : uint8_t {
#define BENDC_OP_ENUM(Name, Symbol) Name,
  BENDC_CORE_OPS(BENDC_OP_ENUM)
#undef BENDC_OP_ENUM
};
llvm::StringRef opSymbol(Op op);

enum class TermKind : uint8_t {
  Var,    // a scoped variable
  Link,   // an unscoped variable `$x`
  Lam,    // λx body (x empty: the argument is erased; unscoped: λ$x)
  App,    // (fun arg)
  Let,    // let x = value; body
  LetTup, // let (a, b) = value; body
  Dup,    // let {a b} = value; body
  Sup,    // {a b}
  Tup,    // (a, b)
  Era,    // *
  Num,    // a native number
  Opr,    // (op lhs rhs)
  Swi,    // switch arg { 0: zero; _: succ } where succ takes the predecessor
  Ref,    // a reference to a definition
};

/// Asks the processor to bring into cache the `before` 64-byte lines before
/// `at` and the `after` ones from it on: for a walk about to read what was
/// made long ago (prefetches never fault, wherever they point).
inline void prefetchAround(const void *at, int before, int after) {
  // As addresses: the lines need not be part of one object.
  uintptr_t p = reinterpret_cast<uintptr_t>(at);
  for (int line = -before; line < after; ++line)
    __builtin_prefetch(reinterpret_cast<const void *>(p + uintptr_t(intptr_t(64) * line)));
}

/// A term's header. Its location comes first, so that the header's last
/// bytes are padding that a derived term's small first field fills (a
/// large program has millions of terms: their size is compile time).
struct Term {
  llvm::SMLoc loc;
  TermKind kind;
  /// An application that encodes a match: Program::matches has its shape
  /// (Program::noteMatch sets both), so that other applications are told
  /// apart without a lookup.
  bool match = false;

protected:
  Term(TermKind kind, llvm::SMLoc loc) : loc(loc), kind(kind) {}
};

#define CORE_TERM(Name)                                                        \
  static bool classof(const Term *t) { return t->kind == TermKind::Name; }

/// A term that is a name: its length goes in the header's padding, so
/// that the term takes 24 bytes rather than 32 (variables and references
/// are a third of a program's terms).
struct NamedTerm : Term {
  llvm::StringRef name() const { return llvm::StringRef(nameData, nameLength); }

protected:
  NamedTerm(TermKind k, llvm::SMLoc l, llvm::StringRef n)
      : Term(k, l), nameLength(uint32_t(n.size())), nameData(n.data()) {}

private:
  uint32_t nameLength;
  const char *nameData;
};
struct VarTerm : NamedTerm {
  VarTerm(llvm::SMLoc l, llvm::StringRef n) : NamedTerm(TermKind::Var, l, n) {}
  CORE_TERM(Var)
};
struct LinkTerm : NamedTerm {
  LinkTerm(llvm::SMLoc l, llvm::StringRef n) : NamedTerm(TermKind::Link, l, n) {}
  CORE_TERM(Link)
};
struct LamTerm : Term {
  bool unscoped;       // first: in the header's padding
  llvm::StringRef var; // empty: erased
  Term *body;
  LamTerm(llvm::SMLoc l, llvm::StringRef v, bool u, Term *b)
      : Term(TermKind::Lam, l), unscoped(u), var(v), body(b) {}
  CORE_TERM(Lam)
};
struct AppTerm : Term {
  Term *fun, *arg;
  AppTerm(llvm::SMLoc l, Term *f, Term *a) : Term(TermKind::App, l), fun(f), arg(a) {}
  CORE_TERM(App)
};
struct LetTerm : Term {
  bool unscoped;       // first: in the header's padding
  llvm::StringRef var; // empty: erased
  Term *value, *body;
  LetTerm(llvm::SMLoc l, llvm::StringRef v, bool u, Term *val, Term *b)
      : Term(TermKind::Let, l), unscoped(u), var(v), value(val), body(b) {}
  CORE_TERM(Let)
};
/// LetTup and Dup bind two names (empty: erased).
struct LetPairTerm : Term {
  llvm::StringRef first, second;
  Term *value, *body;
  LetPairTerm(TermKind k, llvm::SMLoc l, llvm::StringRef a, llvm::StringRef b, Term *v, Term *bd)
      : Term(k, l), first(a), second(b), value(v), body(bd) {}
  static bool classof(const Term *t) {
    return t->kind == TermKind::LetTup || t->kind == TermKind::Dup;
  }
};
/// Sup and Tup: two children.
struct PairTerm : Term {
  Term *first, *second;
  PairTerm(TermKind k, llvm::SMLoc l, Term *a, Term *b) : Term(k, l), first(a), second(b) {}
  static bool classof(const Term *t) {
    return t->kind == TermKind::Sup || t->kind == TermKind::Tup;
  }
};
struct EraTerm : Term {
  explicit EraTerm(llvm::SMLoc l) : Term(TermKind::Era, l) {}
  CORE_TERM(Era)
};
/// Its number's kind and payload go in the header's padding: 16 bytes.
struct NumTerm : Term {
  NumTerm(llvm::SMLoc l, Number v) : Term(TermKind::Num, l), numKind(v.kind), bits(v.bits) {}
  Number value() const { return Number{numKind, bits}; }
  CORE_TERM(Num)

private:
  NumKind numKind;
  uint32_t bits;
};
struct OprTerm : Term {
  Op op; // in the header's padding
  Term *lhs, *rhs;
  OprTerm(llvm::SMLoc l, Op o, Term *a, Term *b) : Term(TermKind::Opr, l), op(o), lhs(a), rhs(b) {}
  CORE_TERM(Opr)
};
struct SwiTerm : Term {
  Term *arg, *zero, *succ;
  SwiTerm(llvm::SMLoc l, Term *a, Term *z, Term *s)
      : Term(TermKind::Swi, l), arg(a), zero(z), succ(s) {}
  CORE_TERM(Swi)
};
/// Its name is saved by Program::save, as definitions' names are: equal
/// names are one pointer, which maps may key by (and Program::definitionOf
/// reads).
struct RefTerm : NamedTerm {
  RefTerm(llvm::SMLoc l, llvm::StringRef n) : NamedTerm(TermKind::Ref, l, n) {}
  CORE_TERM(Ref)
};
#undef CORE_TERM
static_assert(sizeof(LamTerm) == 40 && sizeof(OprTerm) == 32 && sizeof(LetTerm) == 48 &&
                  sizeof(VarTerm) == 24 && sizeof(RefTerm) == 24 && sizeof(NumTerm) == 16,
              "small fields of terms share the header's padding");

struct Definition {
  llvm::StringRef name; // saved by Program::save (see RefTerm::name)
  Term *body = nullptr;
  llvm::SMLoc loc;
  bool builtin = false;     // from the embedded prelude
  bool constructor = false; // an ADT constructor's
  /// The type checker proved that it returns plain data (numbers, tuples,
  /// constructors, no function inside) when given all the arguments its
  /// leading λs take: sharing recovery may duplicate such values.
  bool plainResult = false;
};

/// A definition written directly as an HVM2 net (`hvm name: ...`).
struct HvmDefinition {
  llvm::StringRef name;
  llvm::StringRef text; // the net, in HVM2 text syntax
  llvm::SMLoc loc;
  llvm::SMLoc textLoc; // where the text is in the source (a copy is kept in `text`)
  bool builtin = false;
};

/// What readback needs to print constructors again.
struct AdtInfo {
  struct Ctr {
    llvm::StringRef name; // saved by Program::save (see RefTerm::name)
    std::vector<llvm::StringRef> fields;
  };
  llvm::StringRef name;
  std::vector<Ctr> ctrs;
};

enum class AdtEncoding : uint8_t { NumScott, Scott };

/// A constructor match as the encoding wrote it: the application that stands
/// for the match (NumScott: `(x λtag switch tag {...})`, Scott: `(x arm...)`)
/// and how many fields each constructor's arm takes, in tag order. The middle
/// end reads the match back out of its encoding with it.
struct MatchShape {
  std::vector<unsigned> fields;
  /// The constructors' names (saved by Program::save), in tag order; empty
  /// where the maker of the match did not say.
  std::vector<llvm::StringRef> ctrs;
};

/// The names each definition of a program refers to, once per occurrence:
/// those of `defs[k]` are `names[begin[k] .. begin[k + 1])`.
struct ProgramRefs {
  std::vector<uint32_t> begin{0};
  llvm::SmallVector<llvm::StringRef, 0> names;
  size_t terms = 0; // in the definitions walked
  std::vector<uint32_t> termsOf; // by definition: its terms, when walked
  /// By definition: its calls, the innermost applications of spines whose
  /// head is not a constructor (counted where `add` is told constructors).
  std::vector<uint32_t> callsOf;

  /// Whether these are of every definition of a program with `defs` of them.
  bool covers(size_t defs) const { return begin.size() == defs + 1; }
  llvm::ArrayRef<llvm::StringRef> of(size_t k) const {
    return llvm::ArrayRef<llvm::StringRef>(names).slice(begin[k], begin[k + 1] - begin[k]);
  }
  /// Appends the names the next definition's body refers to; with
  /// `constructors` (names by their pointer), its calls too.
  void add(const Term *body, const llvm::DenseSet<const char *> *constructors = nullptr);
};

struct Program {
  llvm::BumpPtrAllocator arena;
  std::vector<Definition> defs;
  std::vector<HvmDefinition> hvmDefs;
  std::vector<AdtInfo> adts;
  AdtEncoding encoding = AdtEncoding::NumScott;
  llvm::StringRef entry = "main";
  llvm::DenseMap<const Term *, MatchShape> matches; // by Program::noteMatch
  /// What each definition refers to, as the desugarer made it or the
  /// program check found it. The passes after the check keep each
  /// definition's set of names (sharing recovery binds one of several
  /// equal terms and drops the others), so later phases read these instead
  /// of walking every term again; they cover fewer definitions than `defs`
  /// when neither got that far.
  ProgramRefs refs;

  template <typename T, typename... Args> T *make(Args &&...args) {
    return new (arena.Allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }
  /// `s` as the program keeps it: each text once, so that equal names
  /// saved here are one pointer.
  llvm::StringRef save(llvm::StringRef s) {
    return names.try_emplace(s, NoDefinition).first->first();
  }
  /// A copy of `s` that is not looked up: for names that nothing keys by
  /// their pointer (generated variables). Definitions and references are
  /// named by `save`.
  llvm::StringRef copy(llvm::StringRef s) { return copies.save(s); }
  static constexpr uint32_t NoDefinition = ~0u;
  /// The place in `defs` of the first definition named `saved`, a name
  /// this program saved (as every definition's and reference's name is);
  /// NoDefinition when none has it. Found from the name's pointer: its
  /// saved text sits in its entry of the name table, which holds the place.
  uint32_t definitionOf(llvm::StringRef saved) const;
  /// Records that `app` encodes a match of `shape`.
  void noteMatch(Term *app, MatchShape shape) {
    app->match = true;
    matches[app] = std::move(shape);
  }
  /// The shape of the match `t` encodes, or null where it encodes none.
  const MatchShape *matchShape(const Term *t) const {
    if (!t->match)
      return nullptr;
    auto it = matches.find(t);
    return it == matches.end() ? nullptr : &it->second;
  }
  const Definition *find(llvm::StringRef name) const;
  /// Asks the processor to bring the terms of `defs[k]` (if any) into
  /// cache, for a pass about to walk it: they are made children first, in
  /// one arena, so most of them lie in the kilobyte that ends at its body.
  void prefetch(size_t k) const {
    if (k < defs.size())
      prefetchAround(defs[k].body, 15, 1);
  }
  /// The constructors' names, by their pointer (saved once, see save).
  llvm::DenseSet<const char *> constructorNames() const;

private:
  using Names = llvm::StringMap<uint32_t, llvm::BumpPtrAllocator>;
  /// Every saved name, with the place of its first definition as of the
  /// last time `defs` was indexed (NoDefinition: none).
  mutable Names names;
  llvm::StringSaver copies{arena};
  mutable size_t indexedDefs = 0;             // how many of `defs` were indexed
  mutable std::vector<Names::value_type *> placed; // the entries that hold a place
  void indexDefinitions() const;
};

/// A constructor match read back out of its encoding: the scrutinee and, per
/// constructor in tag order, the λs of its fields and the arm's body.
struct DecodedMatch {
  const Term *scrutinee = nullptr;
  struct Arm {
    llvm::SmallVector<const LamTerm *, 4> fields;
    const Term *body = nullptr;
  };
  std::vector<Arm> arms;
};

/// Decodes `app`, which the frontend recorded as a match of `shape`; false
/// when the term does not have the encoding's shape (a later pass changed it).
bool decodeMatch(AdtEncoding encoding, const AppTerm *app, const MatchShape &shape,
                 DecodedMatch &out);

/// Calls `fn` on `term` and every term inside it (through an explicit
/// stack: terms can be deeper than the call stack). A template, so that
/// `fn` is inlined: whole-program walks call it for every term.
template <typename Fn> void forEachTerm(const Term *root, Fn &&fn) {
  llvm::SmallVector<const Term *, 64> stack{root};
  while (!stack.empty()) {
    const Term *t = stack.pop_back_val();
    fn(t);
    switch (t->kind) {
    case TermKind::Lam: stack.push_back(static_cast<const LamTerm *>(t)->body); break;
    case TermKind::App:
      stack.push_back(static_cast<const AppTerm *>(t)->fun);
      stack.push_back(static_cast<const AppTerm *>(t)->arg);
      break;
    case TermKind::Let:
      stack.push_back(static_cast<const LetTerm *>(t)->value);
      stack.push_back(static_cast<const LetTerm *>(t)->body);
      break;
    case TermKind::LetTup:
    case TermKind::Dup:
      stack.push_back(static_cast<const LetPairTerm *>(t)->value);
      stack.push_back(static_cast<const LetPairTerm *>(t)->body);
      break;
    case TermKind::Sup:
    case TermKind::Tup:
      stack.push_back(static_cast<const PairTerm *>(t)->first);
      stack.push_back(static_cast<const PairTerm *>(t)->second);
      break;
    case TermKind::Opr:
      stack.push_back(static_cast<const OprTerm *>(t)->lhs);
      stack.push_back(static_cast<const OprTerm *>(t)->rhs);
      break;
    case TermKind::Swi:
      stack.push_back(static_cast<const SwiTerm *>(t)->arg);
      stack.push_back(static_cast<const SwiTerm *>(t)->zero);
      stack.push_back(static_cast<const SwiTerm *>(t)->succ);
      break;
    default: break;
    }
  }
}

/// Whether `app`, the innermost application of a spine, calls something:
/// anything but a constructor (`constructors`, names by their pointer),
/// whose nodes are in the net (no work).
inline bool isCall(const AppTerm *app, const llvm::DenseSet<const char *> &constructors) {
  auto *head = llvm::dyn_cast<RefTerm>(app->fun);
  return !head || !constructors.contains(head->name().data());
}

/// Appends the definitions `term` refers to, once per occurrence.
void collectRefs(const Term *term, llvm::SmallVectorImpl<llvm::StringRef> &out);

/// Checks a program the frontend (and sharing recovery) made: every term
/// where a child should be; every variable bound by an enclosing λ or let;
/// every unscoped `$x` bound by some `λ$x` or `let $x` of its definition;
/// every reference to a definition of the program or a net definition.
/// Returns the problems found, one message each: a failure is a bug in
/// bendc (the frontend reports a program's own unbound names), not in the
/// program.
std::vector<std::string> verify(const Program &program);

/// Bend-like text: `name = term` per definition, one per line.
void printTerm(llvm::raw_ostream &os, const Term *term);
void printProgram(llvm::raw_ostream &os, const Program &program, bool withBuiltins = false);

} // namespace bendc::core
