#include "frontend/ParseContext.h"

#include "llvm/ADT/StringSwitch.h"

namespace bendc::parse {

using namespace ast;

void ParseContext::flush() {
  if (!current)
    return;
  current->rules = ast.list(pendingRules);
  pendingRules.clear();
  current = nullptr;
}

void ParseContext::addRule(llvm::StringRef name, SourceRange nameRange, Rule rule, TypeExpr *ret) {
  // `checked f ...` and `unchecked (f ...)`: the marker parsed as the name.
  CheckMode mode = CheckMode::Default;
  if ((name == "checked" || name == "unchecked") && !rule.pats.empty()) {
    CheckMode marked = name == "checked" ? CheckMode::Checked : CheckMode::Unchecked;
    Pat *first = rule.pats.front();
    if (auto *v = llvm::dyn_cast<VarPat>(first); v && !v->name.empty()) {
      name = v->name;
      nameRange = v->range;
      rule.pats = rule.pats.drop_front();
      mode = marked;
    } else if (auto *c = llvm::dyn_cast<CtrPat>(first); c && rule.pats.size() == 1) {
      name = c->name;
      nameRange = SourceRange(c->range.begin, c->range.end);
      rule.pats = c->args;
      mode = marked;
    }
  }
  bool continues = current && current->name == name;
  if (!continues) {
    flush();
    current = make<FunDecl>(rule.range, name, nameRange);
    module.decls.push_back(current);
  }
  current->range = SourceRange::join(current->range, rule.range);
  if (mode != CheckMode::Default)
    current->mode = mode;
  if (ret && !current->sig) {
    llvm::SmallVector<TypeExpr *, 8> params;
    for (Pat *p : rule.pats) {
      auto *v = llvm::dyn_cast<VarPat>(p);
      params.push_back(v ? v->type : nullptr);
    }
    current->sig = arrows(params, ret, rule.range);
    current->annotated = true;
  }
  // A signature alone (`name : type`) has no body: it only types the function.
  if (rule.body)
    pendingRules.push_back(rule);
}

void ParseContext::setCheckMode(FunDecl *def, llvm::StringRef marker, SourceRange at) {
  if (marker == "checked")
    def->mode = CheckMode::Checked;
  else if (marker == "unchecked")
    def->mode = CheckMode::Unchecked;
  else
    diags.report(DiagKind::SyntaxError, at.toSM(),
                 "expected 'checked' or 'unchecked' before the function name");
}

void ParseContext::setImpSignature(FunDecl *def, TypeExpr *ret) {
  llvm::SmallVector<TypeExpr *, 8> params;
  SourceRange written; // from the first annotation to the last
  for (const Param &p : def->params) {
    params.push_back(p.type);
    if (p.type)
      written = SourceRange::join(written, p.type->range);
  }
  if (ret)
    written = SourceRange::join(written, ret->range);
  def->annotated = written.isValid();
  def->sig = arrows(params, ret, written.isValid() ? written : def->range);
}

void *ParseContext::storage(size_t bytes) {
  for (auto &[size, blocks] : spare)
    if (size == bytes && !blocks.empty())
      return blocks.pop_back_val();
  return ast.allocate(bytes, alignof(std::max_align_t));
}

void ParseContext::release(void *mem, size_t bytes) {
  for (auto &[size, blocks] : spare)
    if (size == bytes) {
      blocks.push_back(mem);
      return;
    }
  spare.emplace_back(bytes, llvm::SmallVector<void *, 8>{mem});
}

TypeExpr *ParseContext::type(TypeExpr::Kind kind, SourceRange r, llvm::StringRef name,
                             llvm::ArrayRef<TypeExpr *> args) {
  auto *t = make<TypeExpr>();
  t->kind = kind;
  t->range = r;
  t->name = name;
  t->args = ast.list(args);
  return t;
}

TypeExpr *ParseContext::typeName(SourceRange r, llvm::StringRef name) {
  using K = TypeExpr::Kind;
  K kind = llvm::StringSwitch<K>(name)
               .Case("Any", K::Any)
               .Case("None", K::None)
               .Case("_", K::Hole)
               .Case("u24", K::U24)
               .Case("i24", K::I24)
               .Case("f24", K::F24)
               .Default(K::Name);
  return type(kind, r, kind == K::Name ? name : llvm::StringRef());
}

TypeExpr *ParseContext::arrows(llvm::ArrayRef<TypeExpr *> from, TypeExpr *to, SourceRange r) {
  TypeExpr *t = to ? to : type(TypeExpr::Kind::Any, r);
  for (auto it = from.rbegin(); it != from.rend(); ++it)
    t = type(TypeExpr::Kind::Arrow, r, {}, {*it ? *it : type(TypeExpr::Kind::Any, r), t});
  return t;
}

FunDecl *ParseContext::localDef(Seq<std::pair<SourceRange, Rule>> rules) {
  const char *b = rules[0].first.begin.getPointer();
  const char *e = rules[0].first.end.getPointer();
  llvm::StringRef name(b, e - b);
  auto *def = make<FunDecl>(rules[0].second.range, name, rules[0].first);
  llvm::SmallVector<Rule, 8> list;
  for (const auto &r : rules) {
    const char *rb = r.first.begin.getPointer();
    llvm::StringRef rn(rb, r.first.end.getPointer() - rb);
    if (rn != name)
      diags.report(DiagKind::SyntaxError, r.first.toSM(),
                   "expected a rule of '" + name.str() + "' in this local definition, found '" +
                       rn.str() + "'");
    list.push_back(r.second);
    def->range = SourceRange::join(def->range, r.second.range);
  }
  def->rules = ast.list(llvm::ArrayRef<Rule>(list));
  return def;
}

Expr *ParseContext::app(SourceRange r, Expr *head, SourceRange headAt, Seq<Expr *> args) {
  // `*` right after `(` is the operator, as in Bend: `(* a b)` multiplies,
  // and takes two operands. A parenthesized `(*)` is the eraser.
  if (llvm::isa<EraExpr>(head) && head->range.begin == headAt.begin) {
    if (args.size == 2)
      return make<OpExpr>(r, core::Op::Mul, args[0], args[1]);
    diags.report(DiagKind::SyntaxError, head->range.begin,
                 "'*' right after '(' multiplies and takes two operands, as in '(* a b)'");
  }
  return make<AppExpr>(r, head, list(args));
}

Expr *ParseContext::callRef(SourceRange r, llvm::StringRef name, llvm::ArrayRef<Expr *> args) {
  Expr *fun = make<VarExpr>(r, name);
  return make<AppExpr>(r, fun, ast.list(args));
}

} // namespace bendc::parse
