#include "frontend/ParseContext.h"

namespace bendc::parse {

using namespace ast;

void ParseContext::flush() {
  if (!current)
    return;
  current->rules = ast.list(pendingRules);
  pendingRules.clear();
  current = nullptr;
}

void ParseContext::addRule(llvm::StringRef name, SourceRange nameRange, Rule rule, bool typed) {
  // `checked f ...` and `unchecked (f ...)`: the marker parsed as the name.
  if ((name == "checked" || name == "unchecked") && !rule.pats.empty()) {
    Pat *first = rule.pats.front();
    if (auto *v = llvm::dyn_cast<VarPat>(first); v && !v->name.empty()) {
      name = v->name;
      nameRange = v->range;
      rule.pats = rule.pats.drop_front();
      typed = name == "checked";
    } else if (auto *c = llvm::dyn_cast<CtrPat>(first); c && rule.pats.size() == 1) {
      name = c->name;
      nameRange = SourceRange(c->range.begin, c->range.end);
      rule.pats = c->args;
    }
  }
  bool continues = current && current->name == name;
  if (!continues) {
    flush();
    current = make<FunDecl>(rule.range, name, nameRange);
    module.decls.push_back(current);
  }
  current->range = SourceRange::join(current->range, rule.range);
  current->typed |= typed;
  // A signature alone (`name : type`) has no body: it only marks the function.
  if (rule.body)
    pendingRules.push_back(rule);
}

FunDecl *ParseContext::localDef(const std::vector<std::pair<SourceRange, Rule>> &rules) {
  const char *b = rules.front().first.begin.getPointer();
  const char *e = rules.front().first.end.getPointer();
  llvm::StringRef name(b, e - b);
  auto *def = make<FunDecl>(rules.front().second.range, name, rules.front().first);
  std::vector<Rule> list;
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
  def->rules = ast.list(list);
  return def;
}

Expr *ParseContext::app(SourceRange r, Expr *head, std::vector<Expr *> args) {
  // `(* a b)` is a multiplication: `*` is both the eraser and an operator.
  if (llvm::isa<EraExpr>(head) && args.size() == 2)
    return make<OpExpr>(r, core::Op::Mul, args[0], args[1]);
  return make<AppExpr>(r, head, ast.list(args));
}

Expr *ParseContext::callRef(SourceRange r, llvm::StringRef name, std::vector<Expr *> args) {
  Expr *fun = make<VarExpr>(r, name);
  return make<AppExpr>(r, fun, ast.list(args));
}

} // namespace bendc::parse
