#include "FrontendTestUtil.h"

#include "llvm/Support/JSON.h"

#include <set>

#include <doctest/doctest.h>

using namespace bendc;
using namespace bendc::test;
using frontend::EmitStage;

TEST_CASE("text diagnostics show file, line, column, kind, source line and caret") {
  auto r = runOn("main = @x (+ x y)\n", emitting(EmitStage::None, false));
  CHECK(r->text() == "test.bend:1:16: error: unbound variable 'y' [UnboundVariable]\n"
                     "main = @x (+ x y)\n"
                     "               ^\n");
}

TEST_CASE("JSON diagnostics parse back as LSP diagnostics") {
  // `λ` is two bytes but one UTF-16 unit: the character column differs from
  // the byte offset.
  auto r = runOn("main = λx (+ x y)\n", emitting(EmitStage::None, false));
  std::string out = r->json();
  REQUIRE(!out.empty());
  CHECK(out.back() == '\n');
  llvm::StringRef line = llvm::StringRef(out).trim();
  CHECK(line.count('\n') == 0);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(line);
  REQUIRE(bool(parsed));
  llvm::json::Object *obj = parsed->getAsObject();
  REQUIRE(obj);
  CHECK(obj->getString("file").getValueOr("") == "test.bend");
  CHECK(obj->getString("code").getValueOr("") == "UnboundVariable");
  CHECK(obj->getInteger("severity").getValueOr(-1) == 1);
  CHECK(obj->getString("message").getValueOr("") == "unbound variable 'y'");
  llvm::json::Object *start = obj->getObject("range")->getObject("start");
  CHECK(start->getInteger("line").getValueOr(-1) == 0);
  CHECK(start->getInteger("character").getValueOr(-1) == 15);
  CHECK(obj->getObject("byteRange")->getInteger("start").getValueOr(-1) == 16);
  CHECK(obj->getObject("byteRange")->getInteger("end").getValueOr(-1) == 17);
  CHECK(obj->getArray("relatedInformation") != nullptr);
}

TEST_CASE("JSON related information carries notes") {
  auto r = runOn("f = 1\ndef f():\n  return 2\nmain = f\n", emitting(EmitStage::None, false));
  std::string all = r->json();
  llvm::StringRef first = llvm::StringRef(all).split('\n').first;
  auto parsed = llvm::json::parse(first);
  REQUIRE(bool(parsed));
  auto *related = parsed->getAsObject()->getArray("relatedInformation");
  REQUIRE(related);
  REQUIRE(related->size() == 1);
  auto *note = (*related)[0].getAsObject();
  CHECK(note->getString("message").getValueOr("") == "first defined here");
  CHECK(note->getObject("location")->getObject("range")->getObject("start")->getInteger("line").getValueOr(-1) == 0);
}

TEST_CASE("warnings can be allowed, denied and re-enabled in order") {
  frontend::FrontendOptions o = emitting(EmitStage::None, false);
  o.warnings = {{"unused-definition", WarningAction::Deny}};
  auto denied = runOn("helper = 1\nmain = 2\n", o);
  CHECK(denied->diags->hasErrors());
  o.warnings.push_back({"all", WarningAction::Allow});
  auto allowed = runOn("helper = 1\nmain = 2\n", o);
  CHECK(allowed->diags->diagnostics().empty());
}

TEST_CASE("every registered kind has a distinct name") {
  std::set<std::string> names;
  for (DiagKind k : allDiagKinds())
    CHECK(names.insert(diagKindName(k).str()).second);
}
