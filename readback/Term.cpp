#include "readback/Term.h"

namespace bendc::readback {

void substVar(Terms &terms, TermId t, NameId from, NameId to) {
  std::vector<TermId> work{t};
  while (!work.empty()) {
    TermId x = work.back();
    work.pop_back();
    TermNode &n = terms[x];
    switch (n.kind) {
    case TK::Var:
      if (n.name1 == from)
        n.name1 = to;
      break;
    case TK::Lam:
      if (!(n.pat1 == Pat::Var && n.name1 == from))
        work.push_back(n.a);
      break;
    case TK::Let:
      work.push_back(n.a);
      if (!(n.pat1 == Pat::Var && n.name1 == from) && !(n.pat2 == Pat::Var && n.name2 == from))
        work.push_back(n.b);
      break;
    case TK::Swt:
      work.push_back(n.a);
      if (n.name1 != from) {
        work.push_back(n.b);
        work.push_back(n.c);
      }
      break;
    default: terms.forEachChild(x, [&](TermId c) { work.push_back(c); }); break;
    }
  }
}

} // namespace bendc::readback
