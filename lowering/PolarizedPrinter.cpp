#include "lowering/PolarizedPrinter.h"

#include "runtime/common/NumericText.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"

#include <cassert>
#include <vector>

namespace bendc::lowering {

namespace {

constexpr uint64_t NoSlot = ~uint64_t(0);

/// The polarized name of a node tag, without its sign; null for a tag that
/// is neither a node of the book nor the twin of one.
const char *nodeName(uint8_t t) {
  switch (t) {
  case rt::tag::Lam: return "LAM";
  case rt::tag::Tup: return "TUP";
  case rt::tag::App: return "APP";
  case rt::tag::Unt: return "UNT";
  case rt::tag::Sup: return "SUP";
  case rt::tag::Dup: return "DUP";
  case rt::tag::Opr: return "OPR";
  case rt::tag::Swi: return "SWI";
  case rt::twinTag(rt::tag::Opr): return "OPR~";
  case rt::twinTag(rt::tag::Swi): return "SWI~";
  default: return nullptr;
  }
}

const char *plural(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

/// Work item of the printer: a term in its place, or text that closes or
/// separates a node's children. An explicit stack keeps deep trees off the
/// call stack.
struct Item {
  rt::Term term = 0;
  uint64_t slot = NoSlot; // local slot the term sits in (NoSlot: root or redex side)
  bool positive = false;  // the polarity its place expects
  const char *text = nullptr;
};

class DefPrinter {
public:
  DefPrinter(llvm::raw_ostream &os, const rt::Book &book, uint32_t id)
      : os(os), book(book), id(id), def(book.defs[id]), seen(def.nodeCount, 0) {}

  void print();

private:
  void printTree(rt::Term term, bool positive);
  void printTerm(const Item &item);
  void printVar(uint64_t slot);
  /// The term in local slot `slot`, if the book holds it.
  const rt::Term *slotAt(uint64_t slot) const {
    uint64_t at = uint64_t(def.firstSlot) + slot;
    return slot < 2 * uint64_t(def.nodeCount) && at < book.slots.size() ? &book.slots[at]
                                                                        : nullptr;
  }

  llvm::raw_ostream &os;
  const rt::Book &book;
  uint32_t id;
  const rt::DefInfo &def;
  std::vector<uint8_t> seen;                   // per local node: reached already
  llvm::DenseMap<uint64_t, unsigned> varNames; // SUB slot -> K of xK
  std::vector<Item> stack;
};

void DefPrinter::print() {
  os << "// #" << id << ": " << def.nodeCount << plural(def.nodeCount, " node, ", " nodes, ")
     << def.redexCount << plural(def.redexCount, " redex, ", " redexes, ")
     << (def.safe ? "safe" : "unsafe") << (id == book.mainId ? ", entry point" : "") << '\n';
  llvm::StringRef name = id < book.names.size() ? llvm::StringRef(book.names[id]) : "";
  os << '@' << name << " = ";
  printTree(def.root, true);
  for (uint64_t r = 0; r < def.redexCount; ++r) {
    uint64_t at = uint64_t(def.firstRedex) + 2 * r;
    os << "\n  & ";
    if (at + 1 >= book.redexes.size()) {
      os << "<redex " << r << " out of range>";
      continue;
    }
    printTree(book.redexes[at], false);
    os << " ~ ";
    printTree(book.redexes[at + 1], true);
  }
  bool first = true;
  for (uint32_t n = 0; n < def.nodeCount; ++n) {
    if (seen[n])
      continue;
    os << (first ? "\n  // unreached nodes: " : ", ") << n;
    first = false;
  }
  os << '\n';
}

void DefPrinter::printTree(rt::Term term, bool positive) {
  stack.clear();
  stack.push_back({term, NoSlot, positive});
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    if (item.text)
      os << item.text;
    else
      printTerm(item);
  }
}

void DefPrinter::printVar(uint64_t slot) {
  if (slot == NoSlot) {
    os << '?';
    return;
  }
  auto [it, inserted] = varNames.try_emplace(slot, unsigned(varNames.size()));
  os << 'x' << it->second;
}

void DefPrinter::printTerm(const Item &item) {
  uint8_t t = rt::tagOf(item.term);
  if (t == rt::tag::Free) {
    os << "<empty>";
    return;
  }
  if (t == rt::tag::Mark) {
    os << "<freed>";
    return;
  }
  if (rt::isPositiveTag(t) != item.positive)
    os << '!';
  switch (t) {
  case rt::tag::Var: os << "+VAR "; printVar(rt::payloadOf(item.term)); return;
  case rt::tag::Sub: os << "-SUB "; printVar(item.slot); return;
  case rt::tag::Nul: os << "+NUL"; return;
  case rt::tag::Era: os << "-ERA"; return;
  case rt::tag::Num: os << "+NUM " << rt::num::showNumb(rt::numOf(item.term)); return;
  case rt::tag::NumN: os << "-NUM " << rt::num::showNumb(rt::numOf(item.term)); return;
  case rt::tag::Ref: {
    uint32_t ref = rt::refOf(item.term);
    if (ref < book.names.size())
      os << "+REF @" << book.names[ref];
    else
      os << "+REF @#" << ref;
    return;
  }
  default: break;
  }
  const char *name = rt::isNodeTag(t) ? nodeName(t) : nullptr;
  if (!name) {
    os << "<tag " << llvm::format_hex(t, 4) << '>';
    return;
  }
  os << (rt::isPositiveTag(t) ? '+' : '-') << name;
  uint64_t node = rt::nodeOf(item.term);
  const rt::Term *aux0 = slotAt(2 * node), *aux1 = slotAt(2 * node + 1);
  if (node >= def.nodeCount || !aux0 || !aux1) {
    os << " <node " << node << " out of range>";
    return;
  }
  if (seen[node]) {
    os << " <node " << node << " again>";
    return;
  }
  seen[node] = 1;
  os << '(';
  stack.push_back({0, NoSlot, false, ")"});
  stack.push_back({*aux1, 2 * node + 1, rt::auxPositive(t, 1)});
  stack.push_back({0, NoSlot, false, ", "});
  stack.push_back({*aux0, 2 * node, rt::auxPositive(t, 0)});
}

} // namespace

void printPolarizedDef(llvm::raw_ostream &os, const rt::Book &book, uint32_t id) {
  assert(id < book.defs.size() && "no such definition");
  DefPrinter(os, book, id).print();
}

void printPolarizedBook(llvm::raw_ostream &os, const rt::Book &book) {
  for (uint32_t id = 0; id < book.defs.size(); ++id) {
    if (id != 0)
      os << '\n';
    printPolarizedDef(os, book, id);
  }
}

} // namespace bendc::lowering
