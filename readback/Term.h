// The terms readback builds: Bend's `Term`, the subset a result needs, in
// one flat array, with the names they use.
#pragma once

#include "ir/Core.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

namespace bendc::readback {

// ---------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------

/// A variable or definition name: either a fresh one, numbered (0 is `a`, 25
/// is `z`, 26 is `ab`, 27 is `bb`: base 26, least significant letter first,
/// as Bend names readback variables), or an interned string.
using NameId = uint32_t;
constexpr NameId NoName = ~0u;
constexpr NameId InternedBit = 1u << 31;

class NameTable {
public:
  static NameId fresh(uint64_t n) {
    assert(n < InternedBit && "too many fresh names");
    return NameId(n);
  }
  NameId intern(llvm::StringRef s) {
    auto [it, inserted] = ids.try_emplace(s, NameId(strs.size()) | InternedBit);
    if (inserted)
      strs.push_back(it->first());
    return it->second;
  }
  void append(std::string &out, NameId n) const {
    if (n & InternedBit) {
      out += strs[n & ~InternedBit];
      return;
    }
    uint64_t v = n;
    do {
      out += char('a' + v % 26);
      v /= 26;
    } while (v != 0);
  }
  std::string str(NameId n) const {
    std::string s;
    append(s, n);
    return s;
  }

private:
  llvm::StringMap<NameId> ids;
  std::vector<llvm::StringRef> strs;
};

// ---------------------------------------------------------------------------
// Terms: Bend's `Term`, the subset readback produces
// ---------------------------------------------------------------------------

using TermId = uint32_t;
constexpr TermId NoTerm = ~0u;

enum class TK : uint8_t { Var, Link, Lam, App, Let, Fan, Era, Num, Str, List, Oper, Swt, Ref, Err };
/// A binder: `*`, `x` or the unscoped `$x`.
enum class Pat : uint8_t { Erased, Var, Chn };
enum class FanKind : uint8_t { Tup, Dup };

/// One term node. Fields by kind:
///   Var, Link, Ref: name1.            Lam: pat1/name1 binds in a (body).
///   App: a fun, b arg.                Let: {pat1 pat2} = a; b (sub: FanKind).
///   Fan: (a, b) or {a b} (sub).       Oper: (sub: core::Op) a b.
///   Swt: switch name1 = a { 0: b; _: c; }
///   Num: sub core::NumKind, a value (u24, i24 as int32, f24 as float bits).
///   Str: a indexes Terms::strs.       List: a indexes Terms::lists.
struct TermNode {
  TK kind = TK::Err;
  uint8_t sub = 0;
  Pat pat1 = Pat::Erased, pat2 = Pat::Erased;
  NameId name1 = NoName, name2 = NoName;
  uint32_t a = 0, b = 0, c = 0;
};
static_assert(sizeof(TermNode) == 24, "a term node is kept small: results can be huge");

struct Terms {
  std::vector<TermNode> nodes;
  std::vector<std::vector<TermId>> lists;
  std::vector<std::u32string> strs;
  NameTable names;

  TermNode &operator[](TermId t) { return nodes[t]; }
  const TermNode &operator[](TermId t) const { return nodes[t]; }

  TermId add(const TermNode &n) {
    nodes.push_back(n);
    return TermId(nodes.size() - 1);
  }
  TermId leaf(TK kind) {
    TermNode n;
    n.kind = kind;
    return add(n);
  }
  TermId named(TK kind, NameId name) {
    TermNode n;
    n.kind = kind;
    n.name1 = name;
    return add(n);
  }
  TermId lam(Pat pat, NameId name, TermId body) {
    TermNode n;
    n.kind = TK::Lam;
    n.pat1 = pat;
    n.name1 = name;
    n.a = body;
    return add(n);
  }
  TermId pair(TK kind, uint8_t sub, TermId a, TermId b) {
    TermNode n;
    n.kind = kind;
    n.sub = sub;
    n.a = a;
    n.b = b;
    return add(n);
  }
  TermId number(core::NumKind kind, uint32_t value) {
    TermNode n;
    n.kind = TK::Num;
    n.sub = uint8_t(kind);
    n.a = value;
    return add(n);
  }

  /// Calls `f` on each child, in Bend's order. `f` may add nodes.
  template <typename F> void forEachChild(TermId t, F &&f) {
    TermNode n = nodes[t];
    switch (n.kind) {
    case TK::Lam: f(n.a); return;
    case TK::App:
    case TK::Let:
    case TK::Fan:
    case TK::Oper:
      f(n.a);
      f(n.b);
      return;
    case TK::Swt:
      f(n.a);
      f(n.b);
      f(n.c);
      return;
    case TK::List:
      for (size_t i = 0; i < lists[n.a].size(); ++i)
        f(lists[n.a][i]);
      return;
    default: return;
    }
  }

  /// A deep copy of `src`.
  TermId clone(TermId src) {
    TermId root = add(nodes[src]);
    std::vector<TermId> work{root};
    auto copyChild = [&](uint32_t &slot) {
      TermId copy = add(nodes[slot]);
      slot = copy;
      work.push_back(copy);
    };
    while (!work.empty()) {
      TermId t = work.back();
      work.pop_back();
      TermNode n = nodes[t];
      switch (n.kind) {
      case TK::Lam: copyChild(n.a); break;
      case TK::App:
      case TK::Let:
      case TK::Fan:
      case TK::Oper:
        copyChild(n.a);
        copyChild(n.b);
        break;
      case TK::Swt:
        copyChild(n.a);
        copyChild(n.b);
        copyChild(n.c);
        break;
      case TK::Str: {
        std::u32string s = strs[n.a];
        n.a = uint32_t(strs.size());
        strs.push_back(std::move(s));
        break;
      }
      case TK::List: {
        std::vector<TermId> els = lists[n.a];
        for (TermId &e : els)
          copyChild(e);
        n.a = uint32_t(lists.size());
        lists.push_back(std::move(els));
        break;
      }
      default: break;
      }
      nodes[t] = n;
    }
    return root;
  }
};

/// Replaces the free occurrences of `from` in `t` by the variable `to`.
void substVar(Terms &terms, TermId t, NameId from, NameId to);

} // namespace bendc::readback
