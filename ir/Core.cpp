#include "ir/Core.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <initializer_list>

namespace bendc::core {

Number Number::f24(float v) {
  // Rounded as Bend rounds a literal (HVM2's Rust code: ties to even). The
  // runtime's operators follow HVM2's C code instead, whose tie rule differs.
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bool nan = v != v;
  uint32_t shifted = bits >> 8, lost = bits & 0xFF;
  shifted += uint32_t(!nan) & ((lost - ((lost >> 7) & ~shifted)) >> 7);
  shifted |= uint32_t(nan);
  return {NumKind::F24, shifted & 0xFFFFFF};
}

float Number::asFloat() const {
  uint32_t full = bits << 8;
  float v;
  std::memcpy(&v, &full, sizeof v);
  return v;
}

llvm::StringRef opSymbol(Op op) {
  switch (op) {
#define BENDC_OP_NAME(Name, Symbol)                                            \
  case Op::Name:                                                               \
    return Symbol;
    BENDC_CORE_OPS(BENDC_OP_NAME)
#undef BENDC_OP_NAME
  }
  llvm_unreachable("unknown operator");
}

const Definition *Program::find(llvm::StringRef name) const {
  for (const Definition &d : defs)
    if (d.name == name)
      return &d;
  return nullptr;
}

uint32_t Program::definitionOf(llvm::StringRef saved) const {
  assert(names.count(saved) && names.find(saved)->first().data() == saved.data() &&
         "a name the program did not save");
  if (indexedDefs != defs.size())
    indexDefinitions();
  const auto &entry = Names::value_type::GetStringMapEntryFromKeyData(saved.data());
  uint32_t k = entry.getValue();
  if (k == NoDefinition || (k < defs.size() && defs[k].name.data() == saved.data()))
    return k;
  // A definition was replaced in place since: look again.
  indexDefinitions();
  return entry.getValue();
}

void Program::indexDefinitions() const {
  for (Names::value_type *e : placed)
    e->second = NoDefinition;
  placed.clear();
  for (size_t k = 0; k < defs.size(); ++k) {
    auto it = names.find(defs[k].name);
    // Only names saved here: another text of the same name is not the one
    // references hold.
    if (it == names.end() || it->first().data() != defs[k].name.data() ||
        it->second != NoDefinition)
      continue;
    it->second = uint32_t(k);
    placed.push_back(&*it);
  }
  indexedDefs = defs.size();
}

llvm::DenseSet<const char *> Program::constructorNames() const {
  llvm::DenseSet<const char *> names;
  for (const AdtInfo &adt : adts)
    for (const AdtInfo::Ctr &c : adt.ctrs)
      names.insert(c.name.data());
  return names;
}

static void printNumber(llvm::raw_ostream &os, Number n) {
  switch (n.kind) {
  case NumKind::U24:
    os << n.bits;
    return;
  case NumKind::I24: {
    int32_t v = n.asInt();
    os << (v < 0 ? "-" : "+") << (v < 0 ? -int64_t(v) : int64_t(v));
    return;
  }
  case NumKind::F24:
    os << llvm::format("%.3f", n.asFloat());
    return;
  }
}

static llvm::StringRef binder(llvm::StringRef name) { return name.empty() ? "*" : name; }

namespace {
/// Prints a term; recursion depth follows the term's depth, so callers run
/// deep programs on a large stack (see Frontend.cpp).
class Printer {
public:
  explicit Printer(llvm::raw_ostream &os) : os(os) {}

  void print(const Term *t) {
    using llvm::cast;
    switch (t->kind) {
    case TermKind::Var:
      os << cast<VarTerm>(t)->name();
      return;
    case TermKind::Link:
      os << '$' << cast<LinkTerm>(t)->name();
      return;
    case TermKind::Ref:
      os << cast<RefTerm>(t)->name();
      return;
    case TermKind::Era:
      os << '*';
      return;
    case TermKind::Num:
      printNumber(os, cast<NumTerm>(t)->value());
      return;
    case TermKind::Lam: {
      auto *lam = cast<LamTerm>(t);
      os << "λ" << (lam->unscoped ? "$" : "") << binder(lam->var) << ' ';
      print(lam->body);
      return;
    }
    case TermKind::App:
      printApp(t);
      return;
    case TermKind::Let: {
      auto *let = cast<LetTerm>(t);
      os << "let " << (let->unscoped ? "$" : "") << binder(let->var) << " = ";
      print(let->value);
      os << "; ";
      print(let->body);
      return;
    }
    case TermKind::LetTup:
    case TermKind::Dup: {
      auto *let = cast<LetPairTerm>(t);
      bool tup = t->kind == TermKind::LetTup;
      os << "let " << (tup ? '(' : '{') << binder(let->first) << (tup ? ", " : " ")
         << binder(let->second) << (tup ? ')' : '}') << " = ";
      print(let->value);
      os << "; ";
      print(let->body);
      return;
    }
    case TermKind::Sup:
    case TermKind::Tup: {
      auto *p = cast<PairTerm>(t);
      bool tup = t->kind == TermKind::Tup;
      os << (tup ? '(' : '{');
      print(p->first);
      os << (tup ? ", " : " ");
      print(p->second);
      os << (tup ? ')' : '}');
      return;
    }
    case TermKind::Opr: {
      auto *o = cast<OprTerm>(t);
      os << '(' << opSymbol(o->op) << ' ';
      print(o->lhs);
      os << ' ';
      print(o->rhs);
      os << ')';
      return;
    }
    case TermKind::Swi: {
      auto *s = cast<SwiTerm>(t);
      os << "switch ";
      print(s->arg);
      os << " { 0: ";
      print(s->zero);
      os << "; _: ";
      print(s->succ);
      os << " }";
      return;
    }
    }
  }

private:
  void printApp(const Term *t) {
    llvm::SmallVector<const Term *, 8> args;
    while (auto *app = llvm::dyn_cast<AppTerm>(t)) {
      args.push_back(app->arg);
      t = app->fun;
    }
    os << '(';
    print(t);
    for (auto it = args.rbegin(); it != args.rend(); ++it) {
      os << ' ';
      print(*it);
    }
    os << ')';
  }

  llvm::raw_ostream &os;
};
} // namespace

void printTerm(llvm::raw_ostream &os, const Term *term) { Printer(os).print(term); }

void printProgram(llvm::raw_ostream &os, const Program &program, bool withBuiltins) {
  for (const Definition &d : program.defs) {
    if (d.builtin && !withBuiltins)
      continue;
    os << d.name << " = ";
    printTerm(os, d.body);
    os << '\n';
  }
  for (const HvmDefinition &h : program.hvmDefs)
    if (!h.builtin || withBuiltins)
      os << "hvm " << h.name << ":\n" << h.text << '\n';
}

void ProgramRefs::add(const Term *body, const llvm::DenseSet<const char *> *constructors) {
  size_t before = terms;
  uint32_t calls = 0;
  forEachTerm(body, [&](const Term *t) {
    ++terms;
    if (auto *ref = llvm::dyn_cast<RefTerm>(t)) {
      names.push_back(ref->name());
    } else if (auto *app = llvm::dyn_cast<AppTerm>(t); app && constructors &&
                                                     app->fun->kind != TermKind::App) {
      calls += isCall(app, *constructors);
    }
  });
  begin.push_back(uint32_t(names.size()));
  termsOf.push_back(uint32_t(terms - before));
  if (constructors)
    callsOf.push_back(calls);
}

void collectRefs(const Term *root, llvm::SmallVectorImpl<llvm::StringRef> &out) {
  forEachTerm(root, [&](const Term *t) {
    if (auto *ref = llvm::dyn_cast<RefTerm>(t))
      out.push_back(ref->name());
  });
}

bool decodeMatch(AdtEncoding encoding, const AppTerm *t, const MatchShape &shape,
                 DecodedMatch &out) {
  size_t n = shape.fields.size();
  std::vector<const Term *> arms;
  if (encoding == AdtEncoding::Scott) {
    // (x arm0 arm1 ... armN)
    const Term *at = t;
    for (size_t k = 0; k < n; ++k) {
      auto *a = llvm::dyn_cast<AppTerm>(at);
      if (!a)
        return false;
      arms.push_back(a->arg);
      at = a->fun;
    }
    std::reverse(arms.begin(), arms.end());
    out.scrutinee = at;
  } else {
    auto *lam = llvm::dyn_cast<LamTerm>(t->arg);
    if (!lam || lam->unscoped || n == 0)
      return false;
    out.scrutinee = t->fun;
    if (n == 1) {
      // switch tag { 0: arm; _: * }
      auto *swi = llvm::dyn_cast<SwiTerm>(lam->body);
      auto *on = swi ? llvm::dyn_cast<VarTerm>(swi->arg) : nullptr;
      if (!on || lam->var.empty() || on->name() != lam->var || !llvm::isa<EraTerm>(swi->succ))
        return false;
      arms.push_back(swi->zero);
    } else {
      // switch tag { 0: arm0; _: λp switch p { 0: arm1; _: ... λ* armN } }
      llvm::StringRef tag = lam->var;
      const Term *at = lam->body;
      for (size_t k = 0; k + 1 < n; ++k) {
        auto *swi = llvm::dyn_cast<SwiTerm>(at);
        auto *on = swi ? llvm::dyn_cast<VarTerm>(swi->arg) : nullptr;
        auto *succ = swi ? llvm::dyn_cast<LamTerm>(swi->succ) : nullptr;
        if (!on || on->name() != tag || tag.empty() || !succ || succ->unscoped)
          return false;
        arms.push_back(swi->zero);
        tag = succ->var;
        at = succ->body;
        if (k + 2 == n && !succ->var.empty())
          return false; // the last predecessor is never used
      }
      arms.push_back(at);
    }
  }
  // Each arm is a λ over its constructor's fields.
  out.arms.assign(n, {});
  for (size_t k = 0; k < n; ++k) {
    const Term *at = arms[k];
    for (unsigned f = 0; f < shape.fields[k]; ++f) {
      auto *lam = llvm::dyn_cast<LamTerm>(at);
      if (!lam || lam->unscoped)
        return false;
      out.arms[k].fields.push_back(lam);
      at = lam->body;
    }
    out.arms[k].body = at;
  }
  return true;
}

} // namespace bendc::core

// ------------------------------------------------------------- verification

namespace bendc::core {

std::vector<std::string> verify(const Program &program) {
  std::vector<std::string> problems;
  llvm::StringSet<> known;
  for (const Definition &d : program.defs)
    known.insert(d.name);
  for (const HvmDefinition &h : program.hvmDefs)
    known.insert(h.name);
  for (const Definition &d : program.defs) {
    std::string where = (llvm::Twine(" in ") + d.name).str();
    if (!d.body) {
      problems.push_back("no body" + where);
      continue;
    }
    // A walk that binds a name on the way down and unbinds it on the way
    // back up: `scope` holds the names bound around the term being looked at.
    struct Item {
      const Term *term;
      llvm::StringRef unbind; // when term is null: a name to unbind
    };
    std::vector<Item> work{{d.body, {}}};
    llvm::StringMap<unsigned> scope;
    llvm::StringSet<> linksBound, linksUsed;
    auto bindAround = [&](const Term *body, std::initializer_list<llvm::StringRef> names) {
      for (llvm::StringRef name : names) {
        work.push_back({nullptr, name});
        if (!name.empty())
          ++scope[name];
      }
      work.push_back({body, {}});
    };
    while (!work.empty()) {
      Item item = work.back();
      work.pop_back();
      if (!item.term) {
        if (!item.unbind.empty())
          --scope[item.unbind];
        continue;
      }
      const Term *t = item.term;
      auto need = [&](const Term *child) {
        if (child)
          work.push_back({child, {}});
        else
          problems.push_back((llvm::Twine("a term is missing a child") + where).str());
      };
      // `body` with `var` bound: in scope there, or (unscoped) anywhere.
      auto bindOne = [&](const Term *body, llvm::StringRef var, bool unscoped) {
        if (!body) {
          need(nullptr);
        } else if (unscoped) {
          linksBound.insert(var);
          need(body);
        } else {
          bindAround(body, {var});
        }
      };
      switch (t->kind) {
      case TermKind::Var: {
        llvm::StringRef name = llvm::cast<VarTerm>(t)->name();
        auto it = scope.find(name);
        if (it == scope.end() || it->second == 0)
          problems.push_back((llvm::Twine("unbound variable '") + name + "'" + where).str());
        break;
      }
      case TermKind::Link: linksUsed.insert(llvm::cast<LinkTerm>(t)->name()); break;
      case TermKind::Ref: {
        llvm::StringRef name = llvm::cast<RefTerm>(t)->name();
        if (!known.contains(name))
          problems.push_back((llvm::Twine("reference to unknown definition '") + name + "'" + where).str());
        break;
      }
      case TermKind::Lam: {
        auto *lam = llvm::cast<LamTerm>(t);
        bindOne(lam->body, lam->var, lam->unscoped);
        break;
      }
      case TermKind::Let: {
        auto *let = llvm::cast<LetTerm>(t);
        need(let->value);
        bindOne(let->body, let->var, let->unscoped);
        break;
      }
      case TermKind::LetTup:
      case TermKind::Dup: {
        auto *let = llvm::cast<LetPairTerm>(t);
        need(let->value);
        if (let->body)
          bindAround(let->body, {let->first, let->second});
        else
          need(nullptr);
        break;
      }
      case TermKind::App: {
        auto *app = llvm::cast<AppTerm>(t);
        need(app->fun);
        need(app->arg);
        break;
      }
      case TermKind::Sup:
      case TermKind::Tup: {
        auto *pair = llvm::cast<PairTerm>(t);
        need(pair->first);
        need(pair->second);
        break;
      }
      case TermKind::Opr: {
        auto *op = llvm::cast<OprTerm>(t);
        need(op->lhs);
        need(op->rhs);
        break;
      }
      case TermKind::Swi: {
        auto *swi = llvm::cast<SwiTerm>(t);
        need(swi->arg);
        need(swi->zero);
        need(swi->succ);
        break;
      }
      case TermKind::Era:
      case TermKind::Num: break;
      }
    }
    for (const auto &link : linksUsed)
      if (!linksBound.contains(link.getKey()))
        problems.push_back((llvm::Twine("unscoped variable '$") + link.getKey() +
                            "' is bound nowhere" + where)
                               .str());
  }
  return problems;
}

} // namespace bendc::core
