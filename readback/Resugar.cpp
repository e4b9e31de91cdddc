#include "readback/Resugar.h"

#include <string>
#include <vector>

namespace bendc::readback {

namespace {

class Resugar {
public:
  Resugar(Terms &terms, core::AdtEncoding encoding)
      : terms(terms), scott(encoding == core::AdtEncoding::Scott) {
    NameTable &n = terms.names;
    strNil = n.intern("String/Nil");
    strCons = n.intern("String/Cons");
    strConsTag = n.intern("String/Cons/tag");
    listNil = n.intern("List/Nil");
    listCons = n.intern("List/Cons");
    listConsTag = n.intern("List/Cons/tag");
  }

  void strings(TermId root) {
    std::vector<int8_t> mixedMemo(terms.nodes.size(), -1), commonMemo(terms.nodes.size(), -1);
    auto encoded = [&](TermId t, TermId &h, TermId &tl) {
      return encodedCons(t, strConsTag, h, tl) && isU24(h);
    };
    auto common = [&](TermId t, TermId &h, TermId &tl) {
      return commonCons(t, strCons, h, tl) && isU24(h);
    };
    auto either = [&](TermId t, TermId &h, TermId &tl) {
      return encoded(t, h, tl) || common(t, h, tl);
    };
    std::vector<TermId> work{root};
    while (!work.empty()) {
      TermId t = work.back();
      work.pop_back();
      if (isRef(t, strNil)) {
        makeStr(t, {});
        continue;
      }
      TermId h = NoTerm, tl = NoTerm;
      // A constructor value continues as values or calls; a call, as calls.
      if (encoded(t, h, tl) && reachesNil(tl, strNil, mixedMemo, either)) {
        makeStr(t, collectChars(h, tl, either));
        continue;
      }
      if (common(t, h, tl) && reachesNil(tl, strNil, commonMemo, common)) {
        makeStr(t, collectChars(h, tl, common));
        continue;
      }
      terms.forEachChild(t, [&](TermId c) { work.push_back(c); });
    }
  }

  void lists(TermId root) {
    std::vector<int8_t> memo(terms.nodes.size(), -1);
    auto either = [&](TermId t, TermId &h, TermId &tl) {
      return encodedCons(t, listConsTag, h, tl) || commonCons(t, listCons, h, tl);
    };
    std::vector<TermId> work{root};
    while (!work.empty()) {
      TermId t = work.back();
      work.pop_back();
      TermId h = NoTerm, tl = NoTerm;
      if (isRef(t, listNil)) {
        makeList(t, {});
      } else if (either(t, h, tl) && reachesNil(tl, listNil, memo, either)) {
        std::vector<TermId> els{h};
        for (TermId x = tl; !isRef(x, listNil);) {
          bool ok = either(x, h, x);
          assert(ok && "the chain was checked");
          (void)ok;
          els.push_back(h);
        }
        makeList(t, std::move(els));
      }
      terms.forEachChild(t, [&](TermId c) { work.push_back(c); });
    }
  }

private:
  bool isRef(TermId t, NameId name) const {
    return terms[t].kind == TK::Ref && terms[t].name1 == name;
  }
  bool isU24(TermId t) const {
    return terms[t].kind == TK::Num && terms[t].sub == uint8_t(core::NumKind::U24);
  }
  bool isApp(TermId t, TermId &fun, TermId &arg) const {
    if (terms[t].kind != TK::App)
      return false;
    fun = terms[t].a;
    arg = terms[t].b;
    return true;
  }
  bool isVar(TermId t, NameId name) const {
    return terms[t].kind == TK::Var && terms[t].name1 == name;
  }

  /// A constructor value. NumScott: `λx (x Ctr/tag head tail)`.
  /// Scott: `λ* λx (x head tail)`.
  bool encodedCons(TermId t, NameId tagRef, TermId &head, TermId &tail) const {
    const TermNode &lam = terms[t];
    if (lam.kind != TK::Lam)
      return false;
    TermId f = NoTerm, g = NoTerm, v = NoTerm;
    if (scott) {
      if (lam.pat1 != Pat::Erased)
        return false;
      const TermNode &inner = terms[lam.a];
      if (inner.kind != TK::Lam || inner.pat1 != Pat::Var)
        return false;
      return isApp(inner.a, f, tail) && isApp(f, v, head) && isVar(v, inner.name1);
    }
    TermId tag = NoTerm;
    return lam.pat1 == Pat::Var && isApp(lam.a, f, tail) && isApp(f, g, head) &&
           isApp(g, v, tag) && isVar(v, lam.name1) && isRef(tag, tagRef);
  }
  /// A constructor call: `(Ctr head tail)`.
  bool commonCons(TermId t, NameId ctr, TermId &head, TermId &tail) const {
    TermId f = NoTerm, r = NoTerm;
    return isApp(t, f, tail) && isApp(f, r, head) && isRef(r, ctr);
  }

  /// Whether following tails from `t` with `next` reaches `nil`; remembers
  /// the answer for every node on the way, so that a long chain that fails
  /// is walked once, not once per suffix.
  template <typename Next>
  bool reachesNil(TermId t, NameId nil, std::vector<int8_t> &memo, Next &&next) {
    std::vector<TermId> path;
    bool result;
    for (TermId x = t;;) {
      if (x < memo.size() && memo[x] >= 0) {
        result = memo[x] != 0;
        break;
      }
      path.push_back(x);
      TermId h = NoTerm, tl = NoTerm;
      if (isRef(x, nil)) {
        result = true;
        break;
      }
      if (!next(x, h, tl)) {
        result = false;
        break;
      }
      x = tl;
    }
    for (TermId x : path)
      if (x < memo.size())
        memo[x] = result ? 1 : 0;
    return result;
  }

  template <typename Next> std::u32string collectChars(TermId head, TermId tail, Next &&next) {
    std::u32string s;
    s += charOf(terms[head].a);
    TermId h = NoTerm;
    for (TermId x = tail; !isRef(x, strNil);) {
      bool ok = next(x, h, x);
      assert(ok && "the chain was checked");
      (void)ok;
      s += charOf(terms[h].a);
    }
    return s;
  }
  static char32_t charOf(uint32_t v) {
    bool valid = v <= 0x10FFFF && !(v >= 0xD800 && v <= 0xDFFF);
    return valid ? char32_t(v) : char32_t(0xFFFD);
  }

  void makeStr(TermId t, std::u32string s) {
    TermNode n;
    n.kind = TK::Str;
    n.a = uint32_t(terms.strs.size());
    terms.strs.push_back(std::move(s));
    terms[t] = n;
  }
  void makeList(TermId t, std::vector<TermId> els) {
    TermNode n;
    n.kind = TK::List;
    n.a = uint32_t(terms.lists.size());
    terms.lists.push_back(std::move(els));
    terms[t] = n;
  }

  Terms &terms;
  bool scott;
  NameId strNil, strCons, strConsTag, listNil, listCons, listConsTag;
};

} // namespace

void resugar(Terms &terms, TermId root, core::AdtEncoding encoding) {
  Resugar r(terms, encoding);
  r.strings(root);
  r.lists(root);
}

} // namespace bendc::readback
