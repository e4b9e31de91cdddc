#include "frontend/Ast.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace bendc::ast {

Category categoryOf(NodeKind kind) {
  static constexpr Category table[] = {
#define AST_NODE(Name, Cat) Category::Cat,
#include "frontend/Ast.def"
  };
  return table[unsigned(kind)];
}

llvm::StringRef nodeKindName(NodeKind kind) {
  static constexpr const char *table[] = {
#define AST_NODE(Name, Cat) #Name #Cat,
#include "frontend/Ast.def"
  };
  return table[unsigned(kind)];
}

static bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '/' || c == '-';
}

llvm::SMRange spelledAt(llvm::SMLoc at, llvm::StringRef name) {
  if (!at.isValid() || name.empty() || std::strncmp(at.getPointer(), name.data(), name.size()) != 0 ||
      isNameChar(at.getPointer()[name.size()]))
    return {};
  return llvm::SMRange(at, llvm::SMLoc::getFromPointer(at.getPointer() + name.size()));
}

llvm::SMRange spelledIn(SourceRange within, llvm::StringRef name) {
  if (!within.begin.isValid() || !within.end.isValid() || name.empty() ||
      within.end.getPointer() < within.begin.getPointer())
    return {};
  llvm::StringRef text(within.begin.getPointer(),
                       size_t(within.end.getPointer() - within.begin.getPointer()));
  for (size_t at = text.find(name); at != llvm::StringRef::npos; at = text.find(name, at + 1)) {
    bool startOk = at == 0 || !isNameChar(text[at - 1]);
    size_t end = at + name.size();
    bool endOk = end >= text.size() || !isNameChar(text[end]);
    if (startOk && endOk)
      return spelledAt(llvm::SMLoc::getFromPointer(text.data() + at), name);
  }
  return {};
}

void printType(llvm::raw_ostream &os, const TypeExpr *t, bool nested) {
  using K = TypeExpr::Kind;
  switch (t->kind) {
  case K::Name: os << t->name; return;
  case K::Any: os << "Any"; return;
  case K::None: os << "None"; return;
  case K::Hole: os << "_"; return;
  case K::U24: os << "u24"; return;
  case K::I24: os << "i24"; return;
  case K::F24: os << "f24"; return;
  case K::Apply:
  case K::Tuple:
    os << (t->kind == K::Apply ? t->name : "") << '(';
    for (size_t i = 0; i < t->args.size(); ++i) {
      if (i)
        os << ", ";
      printType(os, t->args[i]);
    }
    os << ')';
    return;
  case K::Arrow:
    if (nested)
      os << '(';
    printType(os, t->args[0], true);
    os << " -> ";
    printType(os, t->args[1]);
    if (nested)
      os << ')';
    return;
  }
}

namespace {

class Printer {
public:
  Printer(llvm::raw_ostream &os, const llvm::SourceMgr &sm) : os(os), sm(sm) {}

  void decl(const Decl *d) {
    line(d, 0);
    if (auto *f = llvm::dyn_cast<FunDecl>(d))
      return fun(f, 1);
    if (auto *t = llvm::dyn_cast<TypeDecl>(d)) {
      for (const CtrDef &c : t->ctrs) {
        indent(1);
        os << "Ctr " << c.name;
        for (const Field &f : c.fields) {
          os << ' ' << (f.recursive ? "~" : "") << f.name;
          if (f.type) {
            os << ':';
            printType(os, f.type);
          }
        }
        os << '\n';
      }
      return;
    }
  }

private:
  void indent(unsigned depth) {
    for (unsigned i = 0; i < depth; ++i)
      os << "  ";
  }

  void where(const Node *n) {
    if (!n->range.isValid())
      return;
    auto lc = sm.getLineAndColumn(n->range.begin);
    os << " @" << lc.first << ':' << lc.second;
  }

  void line(const Node *n, unsigned depth) {
    indent(depth);
    os << nodeKindName(n->kind);
    attrs(n);
    if (llvm::isa<Decl>(n))
      where(n);
    os << '\n';
  }

  void attrs(const Node *n) {
    using llvm::dyn_cast;
    if (auto *v = dyn_cast<VarExpr>(n))
      os << ' ' << v->name;
    else if (auto *c = dyn_cast<ChnExpr>(n))
      os << " $" << c->name;
    else if (auto *num = dyn_cast<NumExpr>(n))
      number(num->value);
    else if (auto *s = dyn_cast<StrExpr>(n))
      os << " \"" << s->value << '"';
    else if (auto *op = dyn_cast<OpExpr>(n))
      os << ' ' << core::opSymbol(op->op);
    else if (auto *u = dyn_cast<UseExpr>(n))
      os << ' ' << u->name;
    else if (auto *m = dyn_cast<MatchExpr>(n))
      os << (m->fold ? " fold" : "") << (m->bind.empty() ? "" : " ") << m->bind;
    else if (auto *s = dyn_cast<SwitchExpr>(n))
      os << (s->bind.empty() ? "" : " ") << s->bind;
    else if (auto *o = dyn_cast<OpenExpr>(n))
      os << ' ' << o->type << ' ' << o->var;
    else if (auto *w = dyn_cast<WithExpr>(n))
      os << ' ' << w->type;
    else if (auto *g = dyn_cast<MapGetExpr>(n))
      os << ' ' << g->map;
    else if (auto *c = dyn_cast<ComprehensionExpr>(n))
      os << ' ' << c->bind;
    else if (auto *c = dyn_cast<CtrExpr>(n))
      os << ' ' << c->name;
    else if (auto *p = dyn_cast<VarPat>(n))
      os << ' ' << (p->name.empty() ? "*" : p->name);
    else if (auto *p = dyn_cast<ChnPat>(n))
      os << " $" << p->name;
    else if (auto *p = dyn_cast<NumPat>(n))
      number(p->value);
    else if (auto *p = dyn_cast<StrPat>(n))
      os << " \"" << p->value << '"';
    else if (auto *p = dyn_cast<CtrPat>(n))
      os << ' ' << p->name;
    else if (auto *p = dyn_cast<MapSetPat>(n))
      os << ' ' << p->map;
    else if (auto *s = dyn_cast<InPlaceStmt>(n))
      os << ' ' << (s->mapper ? "@" : core::opSymbol(s->op)) << '=';
    else if (auto *m = dyn_cast<MatchStmt>(n))
      os << (m->fold ? " fold" : "") << (m->bind.empty() ? "" : " ") << m->bind;
    else if (auto *s = dyn_cast<SwitchStmt>(n))
      os << (s->bind.empty() ? "" : " ") << s->bind;
    else if (auto *w = dyn_cast<WithStmt>(n))
      os << ' ' << w->type;
    else if (auto *o = dyn_cast<OpenStmt>(n))
      os << ' ' << o->type << ' ' << o->var;
    else if (auto *u = dyn_cast<UseStmt>(n))
      os << ' ' << u->name;
    else if (auto *f = dyn_cast<FunDecl>(n)) {
      os << ' ' << f->name << (f->imp ? " imp" : "");
      if (f->mode != CheckMode::Default)
        os << (f->mode == CheckMode::Checked ? " checked" : " unchecked");
      if (f->annotated && f->sig) {
        os << " : ";
        printType(os, f->sig);
      }
    }
    else if (auto *t = dyn_cast<TypeDecl>(n)) {
      os << ' ' << t->name << (t->object ? " object" : "");
      for (llvm::StringRef p : t->params)
        os << ' ' << p;
    } else if (auto *h = dyn_cast<HvmDecl>(n)) {
      os << ' ' << h->name;
      if (h->type) {
        os << " : ";
        printType(os, h->type);
      }
      os << " {" << h->text << '}';
    }
    else if (auto *i = dyn_cast<ImportDecl>(n)) {
      os << ' ' << i->path << (i->from ? " from" : "") << (i->star ? " *" : "");
      if (!i->alias.empty())
        os << " as " << i->alias;
      for (const ImportItem &it : i->items)
        os << ' ' << it.name << (it.alias.empty() ? "" : " as ") << it.alias;
    }
  }

  void number(core::Number n) {
    os << ' ';
    switch (n.kind) {
    case core::NumKind::U24: os << n.bits; break;
    case core::NumKind::I24: os << (n.asInt() < 0 ? "" : "+") << n.asInt(); break;
    case core::NumKind::F24: os << llvm::format("%.3f", n.asFloat()); break;
    }
  }

  void fun(const FunDecl *f, unsigned depth) {
    for (const Param &p : f->params) {
      indent(depth);
      os << "Param " << p.name << '\n';
    }
    for (const Rule &r : f->rules) {
      indent(depth);
      os << "Rule\n";
      for (Pat *p : r.pats)
        node(p, depth + 1);
      node(r.body, depth + 1);
    }
    block(f->body, depth);
  }

  void block(Block b, unsigned depth) {
    for (Stmt *s : b)
      node(s, depth);
  }

  void bindings(llvm::StringRef label, llvm::ArrayRef<Binding> bs, unsigned depth) {
    for (const Binding &b : bs) {
      indent(depth);
      os << label << ' ' << (b.name.empty() ? "_" : b.name) << '\n';
      if (b.value)
        node(b.value, depth + 1);
    }
  }

  void arms(llvm::ArrayRef<Arm> as, unsigned depth) {
    for (const Arm &a : as) {
      indent(depth);
      os << "Arm " << (a.name.empty() ? "*" : a.name) << '\n';
      if (a.body)
        node(a.body, depth + 1);
      block(a.block, depth + 1);
    }
  }

  void nodes(llvm::ArrayRef<Expr *> es, unsigned depth) {
    for (Expr *e : es)
      node(e, depth);
  }

  void node(const Node *n, unsigned depth) {
    using llvm::dyn_cast;
    if (!n)
      return;
    line(n, depth);
    ++depth;
    if (auto *s = dyn_cast<SeqExpr>(n))
      return nodes(s->elems, depth);
    if (auto *l = dyn_cast<LamExpr>(n))
      return node(l->param, depth), node(l->body, depth);
    if (auto *a = dyn_cast<AppExpr>(n))
      return node(a->fun, depth), nodes(a->args, depth);
    if (auto *c = dyn_cast<CallExpr>(n))
      return node(c->fun, depth), nodes(c->args, depth), bindings("Kwarg", c->kwargs, depth);
    if (auto *c = dyn_cast<CtrExpr>(n))
      return bindings("Field", c->fields, depth);
    if (auto *o = dyn_cast<OpExpr>(n))
      return node(o->lhs, depth), node(o->rhs, depth);
    if (auto *l = dyn_cast<LetExpr>(n))
      return node(l->pat, depth), node(l->value, depth), node(l->next, depth);
    if (auto *u = dyn_cast<UseExpr>(n))
      return node(u->value, depth), node(u->next, depth);
    if (auto *a = dyn_cast<AskExpr>(n))
      return node(a->pat, depth), node(a->value, depth), node(a->next, depth);
    if (auto *m = dyn_cast<MatchExpr>(n))
      return node(m->arg, depth), bindings("With", m->with, depth), arms(m->arms, depth);
    if (auto *s = dyn_cast<SwitchExpr>(n))
      return node(s->arg, depth), bindings("With", s->with, depth), arms(s->arms, depth);
    if (auto *i = dyn_cast<IfExpr>(n)) {
      for (size_t k = 0; k < i->conds.size(); ++k)
        node(i->conds[k], depth), node(i->thens[k], depth);
      return node(i->otherwise, depth);
    }
    if (auto *b = dyn_cast<BendExpr>(n))
      return bindings("State", b->state, depth), node(b->cond, depth), node(b->step, depth),
             node(b->base, depth);
    if (auto *o = dyn_cast<OpenExpr>(n))
      return node(o->body, depth);
    if (auto *w = dyn_cast<WithExpr>(n))
      return node(w->body, depth);
    if (auto *d = dyn_cast<LocalDefExpr>(n)) {
      line(d->def, depth);
      fun(d->def, depth + 1);
      return node(d->next, depth);
    }
    if (auto *m = dyn_cast<MapExpr>(n)) {
      for (size_t k = 0; k < m->keys.size(); ++k)
        node(m->keys[k], depth), node(m->values[k], depth);
      return;
    }
    if (auto *g = dyn_cast<MapGetExpr>(n))
      return node(g->key, depth);
    if (auto *c = dyn_cast<ComprehensionExpr>(n))
      return node(c->term, depth), node(c->iter, depth), node(c->cond, depth);
    if (auto *p = dyn_cast<CtrPat>(n)) {
      for (Pat *a : p->args)
        node(a, depth);
      return;
    }
    if (auto *p = dyn_cast<SeqPat>(n)) {
      for (Pat *a : p->elems)
        node(a, depth);
      return;
    }
    if (auto *p = dyn_cast<MapSetPat>(n))
      return node(p->key, depth);
    if (auto *s = dyn_cast<AssignStmt>(n))
      return node(s->pat, depth), node(s->value, depth);
    if (auto *s = dyn_cast<AskStmt>(n))
      return node(s->pat, depth), node(s->value, depth);
    if (auto *s = dyn_cast<InPlaceStmt>(n))
      return node(s->target, depth), node(s->value, depth);
    if (auto *s = dyn_cast<ReturnStmt>(n))
      return node(s->value, depth);
    if (auto *s = dyn_cast<IfStmt>(n)) {
      for (size_t k = 0; k < s->conds.size(); ++k) {
        node(s->conds[k], depth);
        indent(depth);
        os << "Then\n";
        block(s->thens[k], depth + 1);
      }
      indent(depth);
      os << "Else\n";
      return block(s->otherwise, depth + 1);
    }
    if (auto *s = dyn_cast<MatchStmt>(n))
      return node(s->arg, depth), bindings("With", s->with, depth), arms(s->arms, depth);
    if (auto *s = dyn_cast<SwitchStmt>(n))
      return node(s->arg, depth), bindings("With", s->with, depth), arms(s->arms, depth);
    if (auto *s = dyn_cast<BendStmt>(n)) {
      bindings("State", s->state, depth);
      node(s->cond, depth);
      indent(depth);
      os << "When\n";
      block(s->step, depth + 1);
      indent(depth);
      os << "Else\n";
      return block(s->base, depth + 1);
    }
    if (auto *s = dyn_cast<WithStmt>(n))
      return block(s->body, depth);
    if (auto *s = dyn_cast<UseStmt>(n))
      return node(s->value, depth);
    if (auto *s = dyn_cast<DefStmt>(n)) {
      line(s->def, depth);
      return fun(s->def, depth + 1);
    }
  }

  llvm::raw_ostream &os;
  const llvm::SourceMgr &sm;
};

} // namespace

void printModule(llvm::raw_ostream &os, const Module &module, const llvm::SourceMgr &sm) {
  Printer p(os, sm);
  for (const Decl *d : module.decls)
    p.decl(d);
}

} // namespace bendc::ast
