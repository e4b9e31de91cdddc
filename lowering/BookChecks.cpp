#include "lowering/BookChecks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace bendc::lowering {

using net::Tree;
using net::TreeId;
using net::TreeKind;

namespace {

constexpr uint32_t NoDef = ~0u;

/// The definition of each name, by name index; NoDef for names that are
/// variables or name no definition.
std::vector<uint32_t> definitionsByName(const net::Book &book) {
  std::vector<uint32_t> defOf(book.names.size(), NoDef);
  for (uint32_t d = 0; d < book.defs.size(); ++d)
    defOf[book.defs[d].name] = d;
  return defOf;
}

/// Floated combinators are named after the definition they came from; a
/// cycle is shown through the definitions a person wrote.
bool isCombinator(llvm::StringRef name) { return name.contains("__C"); }

/// What one walk over the book finds: which definitions each definition
/// refers to eagerly, as lists by definition index (each target once, in
/// the order first met), and, where asked, each definition's node count.
struct BookWalk {
  std::vector<uint32_t> begin; // defs.size() + 1 offsets into `targets`
  std::vector<uint32_t> targets;
  std::vector<size_t> sizes; // by definition, when counted

  BookWalk(const net::Book &book, const std::vector<uint32_t> &defOf, bool edges, bool count) {
    std::vector<uint32_t> seenBy(edges ? book.defs.size() : 0, NoDef);
    struct Item {
      TreeId tree;
      bool eager;
    };
    llvm::SmallVector<Item, 32> work;
    begin.reserve(book.defs.size() + 1);
    if (count)
      sizes.reserve(book.defs.size());
    for (uint32_t d = 0; d < book.defs.size(); ++d) {
      begin.push_back(uint32_t(targets.size()));
      const net::Def &def = book.defs[d];
      auto add = [&](const Tree &t) {
        uint32_t to = t.value < defOf.size() ? defOf[t.value] : NoDef;
        if (to != NoDef && seenBy[to] != d) {
          seenBy[to] = d;
          targets.push_back(to);
        }
      };
      // Lowering counted the nodes of what it made; the others are counted
      // here.
      bool countHere = count && def.nodeCount == net::Def::UnknownSize;
      // A redex whose side is a reference expands it at once; what the
      // sides hold deeper is only counted.
      for (const net::Redex &r : def.redexes)
        for (TreeId side : {r.lhs, r.rhs}) {
          if (edges && book[side].kind == TreeKind::Ref)
            add(book[side]);
          if (countHere)
            work.push_back({side, false});
        }
      // In the root, a λ's variable side (or an application's argument)
      // waits for an argument; everything else is reached eagerly.
      work.push_back({def.root, edges});
      size_t nodes = 0;
      while (!work.empty()) {
        Item item = work.pop_back_val();
        const Tree &t = book[item.tree];
        if (t.kind == TreeKind::Ref) {
          if (item.eager)
            add(t);
          continue;
        }
        if (!net::isNodeKind(t.kind))
          continue;
        ++nodes;
        if (!countHere && !item.eager)
          continue;
        work.push_back({t.snd, item.eager});
        work.push_back({t.fst, item.eager && t.kind != TreeKind::Con});
      }
      if (count)
        sizes.push_back(countHere ? nodes : def.nodeCount);
    }
    begin.push_back(uint32_t(targets.size()));
  }
};

/// The cycles a depth-first walk meets, each as the definitions on it from
/// where it was entered. Every definition is entered once, so each cycle
/// found closes through a different edge.
std::vector<std::vector<uint32_t>> findCycles(const BookWalk &g, size_t defCount) {
  std::vector<std::vector<uint32_t>> cycles;
  std::vector<bool> visited(defCount, false);
  constexpr uint32_t NotOnPath = ~0u;
  std::vector<uint32_t> pathIndex(defCount, NotOnPath);
  struct Frame {
    uint32_t def, next;
  };
  std::vector<Frame> path;
  for (uint32_t start = 0; start < defCount; ++start) {
    if (visited[start])
      continue;
    visited[start] = true;
    pathIndex[start] = 0;
    path.push_back({start, g.begin[start]});
    while (!path.empty()) {
      Frame &top = path.back();
      if (top.next == g.begin[top.def + 1]) {
        pathIndex[top.def] = NotOnPath;
        path.pop_back();
        continue;
      }
      uint32_t to = g.targets[top.next++];
      if (pathIndex[to] != NotOnPath) {
        std::vector<uint32_t> cycle;
        for (size_t k = pathIndex[to]; k < path.size(); ++k)
          cycle.push_back(path[k].def);
        cycles.push_back(std::move(cycle));
        continue;
      }
      if (visited[to])
        continue;
      visited[to] = true;
      pathIndex[to] = uint32_t(path.size());
      path.push_back({to, g.begin[to]});
    }
  }
  return cycles;
}

/// A definition's name as a person wrote it: merged definitions (-Omerge)
/// are shown as the set of their names.
std::string shownName(llvm::StringRef name) {
  constexpr llvm::StringRef Separator = "__M_";
  if (!name.contains(Separator))
    return name.str();
  std::string shown = "{";
  for (bool first = true; !name.empty(); first = false) {
    auto [part, rest] = name.split(Separator);
    shown += (first ? "" : ", ") + part.str();
    name = rest;
  }
  return shown + "}";
}

void reportCycle(const net::Book &book, const std::vector<uint32_t> &cycle, bool withHints,
                 DiagnosticEngine &diags) {
  std::vector<uint32_t> shown;
  for (uint32_t d : cycle)
    if (!isCombinator(book.names[book.defs[d].name]))
      shown.push_back(d);
  if (shown.empty())
    shown = cycle;
  std::string path;
  for (uint32_t d : shown)
    path += shownName(book.names[book.defs[d].name]) + " -> ";
  path += shownName(book.names[book.defs[shown.front()].name]);
  llvm::SMLoc at;
  for (uint32_t d : shown)
    if (book.defs[d].loc.isValid()) {
      at = book.defs[d].loc;
      break;
    }
  Diagnostic &diag =
      diags.report(DiagKind::RecursionCycle, at,
                   "recursive cycle that HVM's strict evaluation unfolds forever: " + path);
  if (!withHints)
    return;
  diag.notes.push_back(
      {llvm::SMRange(), "a reference is expanded eagerly where it is called ('(Foo x)') or used "
                        "more than once ('let x = Foo; (x x)'), and lazily where it is an argument "
                        "('(x Foo)') or used once"});
  diag.notes.push_back(
      {llvm::SMRange(), "to make the recursion lazy: recurse in the arms of 'match', 'switch', "
                        "'fold' or 'bend' (arms become definitions of their own); pass the "
                        "recursive call through a λ of its own, which becomes a lazy combinator; "
                        "or write 'use x = Foo' instead of 'let x = Foo'"});
  diag.notes.push_back(
      {llvm::SMRange(), "-Ofloat-combinators and -Olinearize-matches (both on by default) make "
                        "most recursion lazy; -Arecursion-cycle turns this check off"});
}

} // namespace

bool checkBook(const net::Book &book, const BookCheckOptions &options, DiagnosticEngine &diags) {
  bool cycles = options.recursionCycles &&
                diags.warningAction(DiagKind::RecursionCycle) != WarningAction::Allow;
  bool sizes = options.maxNetSize != 0;
  if (!cycles && !sizes)
    return true;
  BookWalk walk(book, definitionsByName(book), cycles, sizes);
  unsigned errors = diags.errors();
  if (cycles) {
    std::vector<std::vector<uint32_t>> found = findCycles(walk, book.defs.size());
    for (size_t k = 0; k < found.size(); ++k)
      reportCycle(book, found[k], /*withHints=*/k == 0, diags);
  }
  for (size_t d = 0; sizes && d < book.defs.size(); ++d) {
    if (walk.sizes[d] <= options.maxNetSize)
      continue;
    const net::Def &def = book.defs[d];
    diags.report(DiagKind::NetTooLarge, def.loc,
                 "definition '" + book.names[def.name].str() + "' is too large for " +
                     options.runtimeName.str() + " (size=" + std::to_string(walk.sizes[d]) +
                     ", max size=" + std::to_string(options.maxNetSize) +
                     "); break it into smaller definitions, or leave out -Ocheck-net-size to "
                     "run it with bendc, which has no such limit");
  }
  return diags.errors() == errors;
}

bool inlineLeafDefinitions(net::Book &book, DiagnosticEngine &diags) {
  std::vector<uint32_t> defOf = definitionsByName(book);
  auto isLeafDef = [&](uint32_t d) {
    const net::Def &def = book.defs[d];
    return def.redexes.empty() && !net::isNodeKind(book[def.root].kind) &&
           book[def.root].kind != TreeKind::Var;
  };
  // What each reference to a leaf definition becomes: the leaf at the end
  // of its chain of such definitions.
  std::vector<bool> inlined(book.names.size(), false);
  std::vector<Tree> leafOf(book.names.size());
  std::vector<bool> reported(book.defs.size(), false);
  bool ok = true;
  for (uint32_t d = 0; d < book.defs.size(); ++d) {
    if (!isLeafDef(d) || reported[d])
      continue;
    Tree leaf = book[book.defs[d].root];
    // Chains are short: the definitions on this one, in order.
    llvm::SmallVector<uint32_t, 8> chain{d};
    for (;;) {
      if (leaf.kind != TreeKind::Ref)
        break;
      uint32_t next = defOf[leaf.value];
      if (next == NoDef || !isLeafDef(next))
        break;
      if (llvm::is_contained(chain, next)) {
        // One report for the loop, at the definition it was entered from.
        for (uint32_t k : chain)
          reported[k] = true;
        diags.report(DiagKind::InfiniteReference, book.defs[d].loc,
                     "'" + book.names[book.defs[d].name].str() +
                         "' stands for a reference that stands for itself again: inlining it "
                         "never ends");
        ok = false;
        break;
      }
      chain.push_back(next);
      leaf = book[book.defs[next].root];
    }
    inlined[book.defs[d].name] = true;
    leafOf[book.defs[d].name] = leaf;
  }
  if (!ok)
    return false;
  for (const net::Def &def : book.defs)
    net::forEachTree(book, def, [&](TreeId id) {
      if (Tree &t = book[id]; t.kind == TreeKind::Ref && inlined[t.value])
        t = leafOf[t.value];
    });
  return true;
}

void pruneUnreachableDefinitions(net::Book &book, llvm::StringRef entry) {
  std::vector<uint32_t> defOf = definitionsByName(book);
  auto start = book.nameIds.find(entry);
  if (start == book.nameIds.end() || defOf[start->second] == NoDef)
    return;
  std::vector<bool> reached(book.defs.size(), false);
  std::vector<uint32_t> defs{defOf[start->second]};
  reached[defs.front()] = true;
  while (!defs.empty()) {
    const net::Def &def = book.defs[defs.back()];
    defs.pop_back();
    net::forEachTree(book, def, [&](TreeId id) {
      if (const Tree &t = book[id]; t.kind == TreeKind::Ref)
        if (uint32_t to = defOf[t.value]; to != NoDef && !reached[to]) {
          reached[to] = true;
          defs.push_back(to);
        }
    });
  }
  size_t kept = 0;
  for (size_t d = 0; d < book.defs.size(); ++d)
    if (reached[d]) {
      if (kept != d)
        book.defs[kept] = std::move(book.defs[d]);
      ++kept;
    }
  book.defs.resize(kept);
}

} // namespace bendc::lowering
