#include "readback/Expander.h"
#include "readback/INet.h"
#include "readback/Reader.h"

#include "ir/NetGraph.h"

namespace bendc::readback {

namespace {

/// A definition Bend made: `f__fold0`, `main__local_0_d33`, `%ctr/tag`.
bool isGenerated(llvm::StringRef name) { return name.contains("__") || name.contains('%'); }

} // namespace

void Expander::expand(TermId root) {
  std::vector<TermId> work{root};
  while (!work.empty()) {
    TermId t = work.back();
    work.pop_back();
    // A definition whose body is a reference (bendc compiles `λa (f a)`
    // to `f`) expands to that one's body in turn; a recursive one is never
    // expanded, so this ends.
    while (terms[t].kind == TK::Ref) {
      std::optional<TermId> body = bodyFor(terms[t].name1);
      if (!body)
        break;
      TermId copy = terms.clone(*body);
      terms[t] = terms[copy];
    }
    terms.forEachChild(t, [&](TermId c) { work.push_back(c); });
  }
}

std::optional<TermId> Expander::bodyFor(NameId name) {
  auto [it, inserted] = defOf.try_emplace(name, -1);
  if (inserted)
    it->second = expandableDef(name);
  int32_t def = it->second;
  if (def < 0)
    return std::nullopt;
  if (auto b = bodies.find(uint32_t(def)); b != bodies.end())
    return b->second;
  if (!reading.insert(uint32_t(def)).second)
    return std::nullopt;
  std::optional<INet> net = buildNet(book, book.defs[def]);
  std::optional<TermId> body;
  if (net) {
    computeClosed(*net);
    Reader reader(*net, terms, *this, /*linear=*/true);
    reader.definitionForm = true;
    body = reader.readNet();
    bodies[uint32_t(def)] = *body;
  }
  reading.erase(uint32_t(def));
  return body;
}

int32_t Expander::expandableDef(NameId name) {
  std::string text = terms.names.str(name);
  if (!isGenerated(text))
    return -1;
  if (!indexed)
    indexBook();
  auto it = defIndex.find(text);
  if (it == defIndex.end() || recursive[it->second])
    return -1;
  return int32_t(it->second);
}

/// A recursive definition lies on a cycle of references.
void Expander::indexBook() {
  indexed = true;
  for (size_t i = 0; i < book.defs.size(); ++i)
    defIndex.try_emplace(book.names[book.defs[i].name], uint32_t(i));
  recursive = net::RefGraph(book).recursive();
}

} // namespace bendc::readback
