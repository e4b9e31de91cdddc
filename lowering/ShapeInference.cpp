#include "lowering/ShapeInference.h"

#include "ir/NetGraph.h"
#include "runtime/common/Numeric.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <cassert>
#include <optional>
#include <utility>

namespace bendc::lowering {

uint32_t ShapeClasses::add(net::ConRole s) {
  uint32_t id = uint32_t(parent.size());
  parent.push_back(id);
  shapes.push_back(s);
  membersOf.emplace_back();
  return id;
}

bool ShapeClasses::merge(uint32_t a, uint32_t b) {
  a = find(a);
  b = find(b);
  if (a == b)
    return true;
  if (shapes[a] != net::ConRole::Unknown && shapes[b] != net::ConRole::Unknown && shapes[a] != shapes[b])
    return false;
  if (membersOf[a].size() < membersOf[b].size())
    std::swap(a, b);
  parent[b] = a;
  if (shapes[a] == net::ConRole::Unknown)
    shapes[a] = shapes[b];
  membersOf[a].insert(membersOf[a].end(), membersOf[b].begin(), membersOf[b].end());
  membersOf[b].clear();
  membersOf[b].shrink_to_fit();
  return true;
}

bool ShapeClasses::decide(uint32_t cls, net::ConRole s) {
  assert(s != net::ConRole::Unknown && "a decision names a shape");
  uint32_t r = find(cls);
  if (shapes[r] == net::ConRole::Unknown) {
    shapes[r] = s;
    return true;
  }
  return shapes[r] == s;
}

namespace {

using net::TreeId;
using net::TreeKind;

constexpr uint32_t None = ~0u;
/// The largest number read as a constructor's tag (types with more
/// constructors are typed without telling their tags apart).
constexpr uint32_t MaxTagKey = 64;

// HVM2's IO magic number, IO/MAGIC = (0xD0CA11, 0xFF1FF1).
constexpr uint32_t IoMagicHi = 0xD0CA11, IoMagicLo = 0xFF1FF1;

/// A type: unknown, or the type of a `(a b)` wire: its shape class and what
/// is known of what flows through it, in up to four views:
///  - generic, Con(class, A, B): a node whose first port carries anything;
///  - keyed: a node whose first port carries a known number (a constructor's
///    tag, as in `(@List/Cons/tag (h (t r)))`), with a B for each number;
///  - case: the function `(?((zero succ) r) r)`, whose result depends on the
///    number it is applied to;
///  - data: values of Bend's numbered Scott encoding, `λm. m tag f1 .. fn`,
///    with their constructors; their answer type is left open (see below).
struct TypeNode {
  uint32_t parent = 0;
  bool isCon = false;
  bool hasGen = false, isCase = false, isData = false;
  bool joined = false;  // the case's branches are tied to the generic result
  bool wide = false;    // too many keys: each is tied to the generic result
  bool match = false;   // generic: applies a switch on constructor tags
  bool foreign = false; // data: built by the host, not by a tree of the book
  uint32_t cls = 0;
  uint32_t arg = 0, res = 0;   // generic
  uint32_t zero = 0, succ = 0; // case
  uint32_t keys = None;        // index into the key lists
  uint32_t data = None;        // index into the data tables
  uint32_t others = None;      // index into the deferred lists (see Types)
};
struct Key {
  uint32_t value;  // the number's 24-bit value, as a switch reads it
  uint32_t result; // the type of the second port for that number
  bool done;       // already tied to the node's case or generic part
};
/// One constructor of a data type: `λm. m tag f1 .. fn` applies the matcher
/// with n+1 nodes, whose classes are `classes`, to the fields.
struct Ctor {
  uint32_t tag;
  std::vector<uint32_t> classes; // n + 1
  std::vector<uint32_t> fields;  // n
};
struct DataTable {
  std::vector<Ctor> ctors;
  std::vector<std::pair<uint32_t, uint32_t>> users; // generic (A, B) applied to it
};

/// A definition's final type, copied for each reference. Every node reachable
/// from the root is copied: even one without variables can still gain keys,
/// a case or users from what it meets, so none can be shared.
struct Scheme {
  std::vector<TypeNode> nodes; // type fields are indices into `nodes`
  std::vector<std::vector<Key>> keys;
  std::vector<DataTable> data;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> others;
};

/// Types of wires, unified in place (union-find).
///
/// A match (a generic view that applies a switch on constructor tags) that
/// meets another generic view on one wire is not unified with it at once, but
/// set aside (deferred). A wire that later turns out to carry data gives each
/// match its own answer type, as it does for matches that come after it (see
/// absorbData): this is what lets a function take its argument apart in two
/// places, or two branches take apart the same argument, with different
/// answer types, when the data comes from the callers. Deferred views are
/// unified when nothing more can reach the wire: when the definitions are
/// generalised, for wires their types do not reach, and at the end, for
/// definitions nothing refers to (copies of every other definition end up in
/// theirs).
class Types {
public:
  Types(ShapeClasses &classes, uint32_t funClass) : classes(classes), funClass(funClass) {}

  uint32_t fresh() {
    uint32_t id = uint32_t(nodes.size());
    nodes.emplace_back();
    nodes.back().parent = id;
    return id;
  }
  uint32_t con(uint32_t cls, uint32_t arg, uint32_t res, bool match = false) {
    uint32_t id = newCon(cls);
    nodes[id].match = match;
    nodes[id].hasGen = true;
    nodes[id].arg = arg;
    nodes[id].res = res;
    return id;
  }
  uint32_t keyed(uint32_t cls, uint32_t value, uint32_t res) {
    uint32_t id = newCon(cls);
    nodes[id].keys = uint32_t(keyLists.size());
    keyLists.push_back({Key{value, res, false}});
    return id;
  }
  uint32_t caseOf(uint32_t cls, uint32_t zero, uint32_t succ) {
    uint32_t id = newCon(cls);
    nodes[id].isCase = true;
    nodes[id].zero = zero;
    nodes[id].succ = succ;
    return id;
  }
  uint32_t data(uint32_t cls, Ctor ctor, bool foreign = false) {
    uint32_t id = newCon(cls);
    nodes[id].isData = true;
    nodes[id].foreign = foreign;
    nodes[id].data = uint32_t(tables.size());
    tables.push_back({{std::move(ctor)}, {}});
    return id;
  }

  size_t size() const { return nodes.size(); }

  /// Unifies the deferred views of the representatives among nodes
  /// [begin, end), but for those the last markReachable() marked when
  /// `keepMarked`.
  void settle(uint32_t begin, uint32_t end, bool keepMarked = false) {
    eager = true;
    for (uint32_t n = begin; n < end; ++n)
      if (find(n) == n && nodes[n].others != None &&
          !(keepMarked && n < stamp.size() && stamp[n] == generation))
        flushOthers(n);
    run();
    eager = false;
  }

  /// Marks the nodes from `first` on that are reachable from `roots` through
  /// such nodes (replacing the last marks).
  void markReachable(llvm::ArrayRef<uint32_t> roots, uint32_t first) {
    stamp.resize(nodes.size(), 0);
    ++generation;
    std::vector<uint32_t> stack;
    auto visit = [&](uint32_t x) {
      x = find(x);
      if (x >= first && stamp[x] != generation)
        stamp[x] = generation, stack.push_back(x);
    };
    for (uint32_t r : roots)
      visit(r);
    while (!stack.empty()) {
      uint32_t x = stack.back();
      stack.pop_back();
      forEachChild(x, visit);
    }
  }

  void unify(uint32_t x, uint32_t y) {
    work.push_back({x, y});
    run();
  }

private:
  void run() {
    while (!work.empty()) {
      auto [a, b] = work.back();
      work.pop_back();
      a = find(a);
      b = find(b);
      if (a == b)
        continue;
      if (!nodes[a].isCon) {
        nodes[a].parent = b;
        continue;
      }
      if (!nodes[b].isCon) {
        nodes[b].parent = a;
        continue;
      }
      if (nodes[b].isData && !nodes[a].isData)
        std::swap(a, b);
      // A data value is applied to a matcher, never to a number, and is no
      // switch: such a meeting is a type error of the program.
      bool clash =
          nodes[a].isData && !nodes[b].isData && (nodes[b].isCase || nodes[b].keys != None);
      // Data the host builds has no node in the book to share a class with,
      // and what the host answers differs from call to call (see
      // inferShapes): its uses are not tied together through it.
      bool foreignUse = nodes[a].isData && nodes[a].foreign && !nodes[b].isData;
      if (clash || (!foreignUse && !classes.merge(nodes[a].cls, nodes[b].cls))) {
        classes.noteConflict();
        continue; // a function used as a pair somewhere: learn nothing from it
      }
      nodes[b].parent = a;
      if (nodes[a].isData) {
        absorbData(a, b);
      } else {
        absorb(a, b);
        reconcile(a);
      }
    }
  }

  /// Calls `f` on every type a node refers to.
  template <class F> void forEachChild(uint32_t x, F &&f) {
    const TypeNode n = nodes[x];
    if (n.hasGen)
      f(n.arg), f(n.res);
    if (n.isCase)
      f(n.zero), f(n.succ);
    if (n.keys != None)
      for (size_t i = 0; i < keyLists[n.keys].size(); ++i)
        f(keyLists[n.keys][i].result);
    if (n.isData) {
      for (size_t c = 0; c < tables[n.data].ctors.size(); ++c)
        for (size_t i = 0; i < tables[n.data].ctors[c].fields.size(); ++i)
          f(tables[n.data].ctors[c].fields[i]);
      for (size_t i = 0; i < tables[n.data].users.size(); ++i)
        f(tables[n.data].users[i].first), f(tables[n.data].users[i].second);
    }
    if (n.others != None)
      for (size_t i = 0; i < otherLists[n.others].size(); ++i)
        f(otherLists[n.others][i].first), f(otherLists[n.others][i].second);
  }

public:
  /// The scheme of `root`, once nothing but copies of it will be unified;
  /// nothing when it would hold more than `limit` nodes.
  std::optional<Scheme> generalise(uint32_t root, size_t limit) {
    std::vector<uint32_t> order; // reachable representatives, root first
    stamp.resize(nodes.size(), 0);
    local.resize(nodes.size(), 0);
    ++generation; // marks the nodes met, `local` their index in `order`
    auto visit = [&](uint32_t x) {
      x = find(x);
      if (stamp[x] != generation) {
        stamp[x] = generation;
        local[x] = uint32_t(order.size());
        order.push_back(x);
      }
      return local[x];
    };
    visit(root);
    Scheme s;
    for (size_t i = 0; i < order.size(); ++i) {
      if (order.size() > limit)
        return std::nullopt;
      TypeNode n = nodes[order[i]];
      n.parent = uint32_t(i);
      if (n.hasGen)
        n.arg = visit(n.arg), n.res = visit(n.res);
      if (n.isCase)
        n.zero = visit(n.zero), n.succ = visit(n.succ);
      if (n.keys != None) {
        std::vector<Key> keys = keyLists[n.keys];
        for (Key &k : keys)
          k.result = visit(k.result);
        n.keys = uint32_t(s.keys.size());
        s.keys.push_back(std::move(keys));
      }
      if (n.isData) {
        DataTable t = tables[n.data];
        for (Ctor &c : t.ctors)
          for (uint32_t &f : c.fields)
            f = visit(f);
        for (auto &[a, b] : t.users)
          a = visit(a), b = visit(b);
        n.data = uint32_t(s.data.size());
        s.data.push_back(std::move(t));
      }
      if (n.others != None) {
        std::vector<std::pair<uint32_t, uint32_t>> others = otherLists[n.others];
        for (auto &[a, b] : others)
          a = visit(a), b = visit(b);
        n.others = uint32_t(s.others.size());
        s.others.push_back(std::move(others));
      }
      s.nodes.push_back(n);
    }
    return s;
  }

  /// A fresh copy of a scheme; its root.
  uint32_t instantiate(const Scheme &s) {
    uint32_t base = uint32_t(nodes.size());
    for (TypeNode n : s.nodes) {
      n.parent += base;
      if (n.hasGen)
        n.arg += base, n.res += base;
      if (n.isCase)
        n.zero += base, n.succ += base;
      if (n.keys != None) {
        std::vector<Key> keys = s.keys[n.keys];
        for (Key &k : keys)
          k.result += base;
        n.keys = uint32_t(keyLists.size());
        keyLists.push_back(std::move(keys));
      }
      if (n.isData) {
        DataTable t = s.data[n.data];
        for (Ctor &c : t.ctors)
          for (uint32_t &f : c.fields)
            f += base;
        for (auto &[a, b] : t.users)
          a += base, b += base;
        n.data = uint32_t(tables.size());
        tables.push_back(std::move(t));
      }
      if (n.others != None) {
        std::vector<std::pair<uint32_t, uint32_t>> others = s.others[n.others];
        for (auto &[a, b] : others)
          a += base, b += base;
        n.others = uint32_t(otherLists.size());
        otherLists.push_back(std::move(others));
      }
      nodes.push_back(n);
    }
    return base;
  }

  /// The data a function of a few arguments returns, or the type itself.
  uint32_t dataResult(uint32_t t) {
    for (uint32_t x = find(t), depth = 0; depth < 16; x = find(nodes[x].res), ++depth) {
      if (nodes[x].isData)
        return x;
      if (!nodes[x].hasGen || nodes[x].isCase || nodes[x].keys != None)
        break;
    }
    return t;
  }

private:
  static constexpr size_t MaxKeys = 64;

  uint32_t newCon(uint32_t cls) {
    uint32_t id = fresh();
    nodes[id].isCon = true;
    nodes[id].cls = cls;
    return id;
  }

  uint32_t find(uint32_t x) {
    while (nodes[x].parent != x) {
      nodes[x].parent = nodes[nodes[x].parent].parent;
      x = nodes[x].parent;
    }
    return x;
  }

  void resetKeys(uint32_t a) {
    if (nodes[a].keys != None)
      for (Key &k : keyLists[nodes[a].keys])
        k.done = false;
  }

  /// Moves what `b` says into `a`, its new representative.
  void absorb(uint32_t a, uint32_t b) {
    TypeNode nb = nodes[b];
    TypeNode &na = nodes[a];
    bool gained = false;
    if (nb.hasGen) {
      if (na.hasGen && (na.match || nb.match)) {
        addOther(a, nb.arg, nb.res);
      } else if (na.hasGen) {
        work.push_back({na.arg, nb.arg});
        work.push_back({na.res, nb.res});
      } else {
        na.hasGen = true, na.arg = nb.arg, na.res = nb.res, na.match = nb.match;
        gained = true;
      }
    }
    if (nb.others != None) {
      std::vector<std::pair<uint32_t, uint32_t>> moved = std::move(otherLists[nb.others]);
      otherLists[nb.others].clear();
      for (auto [arg, res] : moved)
        addOther(a, arg, res);
    }
    if (nb.isCase) {
      if (na.isCase) {
        work.push_back({na.zero, nb.zero});
        work.push_back({na.succ, nb.succ});
      } else {
        na.isCase = true, na.zero = nb.zero, na.succ = nb.succ;
        gained = true;
      }
    }
    na.joined |= nb.joined;
    na.wide |= nb.wide;
    if (gained)
      resetKeys(a);
    if (nb.keys == None)
      return;
    if (na.keys == None) {
      na.keys = nb.keys;
      resetKeys(a);
      return;
    }
    std::vector<Key> moved = std::move(keyLists[nb.keys]);
    keyLists[nb.keys].clear();
    std::vector<Key> &into = keyLists[na.keys];
    for (const Key &k : moved) {
      auto same = llvm::find_if(into, [&](const Key &o) { return o.value == k.value; });
      if (same != into.end())
        work.push_back({same->result, k.result});
      else
        into.push_back({k.value, k.result, false});
    }
  }

  /// Sets a generic view aside on `a`, or unifies it with `a`'s at once.
  void addOther(uint32_t a, uint32_t arg, uint32_t res) {
    if (eager) {
      work.push_back({nodes[a].arg, arg});
      work.push_back({nodes[a].res, res});
      return;
    }
    if (nodes[a].others == None) {
      nodes[a].others = uint32_t(otherLists.size());
      otherLists.emplace_back();
    }
    otherLists[nodes[a].others].push_back({arg, res});
  }
  void flushOthers(uint32_t a) {
    if (nodes[a].others == None)
      return;
    std::vector<std::pair<uint32_t, uint32_t>> list = std::move(otherLists[nodes[a].others]);
    otherLists[nodes[a].others].clear();
    for (auto [arg, res] : list) {
      work.push_back({nodes[a].arg, arg});
      work.push_back({nodes[a].res, res});
    }
  }

  /// Ties together what `a` now holds: its case applied to each key (the zero
  /// branch for 0, the successor branch applied to the predecessor
  /// otherwise), and its generic result to whatever a key or branch returns.
  /// Deferred views of a node that is a switch or carries numbers are unified
  /// at once: only data needs them apart.
  void reconcile(uint32_t a) {
    if (nodes[a].isCase || nodes[a].keys != None)
      flushOthers(a);
    if (nodes[a].keys != None && keyLists[nodes[a].keys].size() > MaxKeys)
      nodes[a].wide = true;
    if (nodes[a].wide && !nodes[a].hasGen) {
      uint32_t arg = fresh(), res = fresh();
      nodes[a].hasGen = true, nodes[a].arg = arg, nodes[a].res = res;
      resetKeys(a);
    }
    if (nodes[a].isCase && nodes[a].hasGen && !nodes[a].joined) {
      nodes[a].joined = true;
      uint32_t res = nodes[a].res, zero = nodes[a].zero, succ = nodes[a].succ;
      work.push_back({zero, res});
      uint32_t app = con(funClass, fresh(), res); // may move `nodes`
      work.push_back({succ, app});
    }
    uint32_t list = nodes[a].keys;
    if (list == None || !(nodes[a].isCase || nodes[a].hasGen))
      return;
    for (size_t i = 0; i < keyLists[list].size(); ++i) {
      Key k = keyLists[list][i];
      if (k.done)
        continue;
      keyLists[list][i].done = true;
      if (!nodes[a].isCase) {
        work.push_back({k.result, nodes[a].res});
      } else if (k.value == 0) {
        work.push_back({k.result, nodes[a].zero});
      } else if (k.value > MaxTagKey) {
        // Not a tag (the IO magic met a switch): no chain of predecessors.
        uint32_t app = con(funClass, fresh(), k.result); // may move `nodes`
        work.push_back({nodes[a].succ, app});
      } else {
        uint32_t succ = nodes[a].succ;
        uint32_t app = keyed(funClass, k.value - 1, k.result); // may move `nodes`
        work.push_back({succ, app});
      }
    }
    if (nodes[a].wide && !nodes[a].isCase)
      keyLists[list].clear(); // each is tied to the generic result already
  }

  // Data. A Scott-encoded value passes its matcher's answer through, so the
  // answer type is not part of the value's type: each use (a generic node
  // (A, B) that meets it: A the matcher, B the answer) gets its own copy of
  // every constructor's application chain, ending in its own B. With one
  // answer type per data type, as plain unification would give, every match
  // on a list would have to return the same type, and part of quick sort's
  // returning a pair of lists would make every list a pair.

  /// Applies a constructor to a use: A ~ (tag (f1 .. (fn B))).
  void applyCtor(const Ctor &c, uint32_t user, uint32_t answer) {
    uint32_t t = answer;
    for (size_t i = c.fields.size(); i-- > 0;)
      t = con(c.classes[i + 1], c.fields[i], t);
    uint32_t tagged = keyed(c.classes[0], c.tag, t);
    work.push_back({user, tagged});
  }

  /// IO/Call(magic, name, argument, continuation).
  bool isIoCall(const Ctor &c) {
    if (c.tag != 1 || c.fields.size() != 4)
      return false;
    uint32_t magic = find(c.fields[0]);
    return nodes[magic].keys != None && llvm::any_of(keyLists[nodes[magic].keys], [](const Key &k) {
             return k.value == IoMagicHi;
           });
  }
  static constexpr size_t IoCallArgument = 2;

  void addUser(uint32_t a, uint32_t user, uint32_t answer) {
    DataTable &t = tables[nodes[a].data];
    uint32_t u = find(user), r = find(answer);
    for (auto [ou, or_] : t.users)
      if (find(ou) == u && find(or_) == r)
        return;
    t.users.push_back({user, answer});
    for (size_t i = 0; i < tables[nodes[a].data].ctors.size(); ++i) {
      Ctor c = tables[nodes[a].data].ctors[i];
      applyCtor(c, user, answer);
    }
  }

  void absorbData(uint32_t a, uint32_t b) {
    TypeNode nb = nodes[b];
    if (!nb.isData) {
      if (nb.hasGen)
        addUser(a, nb.arg, nb.res);
      if (nb.others != None) {
        std::vector<std::pair<uint32_t, uint32_t>> moved = std::move(otherLists[nb.others]);
        otherLists[nb.others].clear();
        for (auto [arg, res] : moved)
          addUser(a, arg, res);
      }
      return;
    }
    nodes[a].foreign = nodes[a].foreign && nb.foreign;
    DataTable moved = std::move(tables[nb.data]);
    tables[nb.data] = {};
    size_t oldUsers = tables[nodes[a].data].users.size();
    for (Ctor &c : moved.ctors) {
      std::vector<Ctor> &ctors = tables[nodes[a].data].ctors;
      auto same = llvm::find_if(ctors, [&](const Ctor &o) { return o.tag == c.tag; });
      if (same == ctors.end()) {
        ctors.push_back(c);
        for (size_t i = 0; i < oldUsers; ++i) {
          auto [user, answer] = tables[nodes[a].data].users[i];
          applyCtor(c, user, answer);
        }
        continue;
      }
      if (same->fields.size() != c.fields.size())
        classes.noteConflict(); // one tag, two arities: keep the first
      bool call = isIoCall(*same);
      for (size_t i = 0; i < std::min(same->fields.size(), c.fields.size()); ++i) {
        // The host reads each IO call's argument on its own (a pair, a
        // triple, a number): two calls do not share its type.
        if (!(call && i == IoCallArgument))
          work.push_back({same->fields[i], c.fields[i]});
        if (!classes.merge(same->classes[i + 1], c.classes[i + 1]))
          classes.noteConflict();
      }
      if (!classes.merge(same->classes[0], c.classes[0]))
        classes.noteConflict();
    }
    for (auto [user, answer] : moved.users)
      addUser(a, user, answer);
  }

  ShapeClasses &classes;
  uint32_t funClass;
  std::vector<TypeNode> nodes;
  std::vector<std::vector<Key>> keyLists;
  std::vector<DataTable> tables;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> otherLists;
  std::vector<std::pair<uint32_t, uint32_t>> work;
  bool eager = false;          // unify generic views at once
  std::vector<uint32_t> stamp; // marks of markReachable and generalise
  std::vector<uint32_t> local;
  uint32_t generation = 0;
};

} // namespace

ShapeClasses inferShapes(const net::Book &book, llvm::ArrayRef<net::ConRole> known) {
  ShapeClasses classes;
  classes.resize(book.trees.size());
  uint32_t pairClass = classes.add(net::ConRole::Pair);
  uint32_t funClass = classes.add(net::ConRole::Function);
  Types types(classes, funClass);

  // References name the first definition of a name (a second one is an error
  // that polarization reports).
  llvm::DenseMap<uint32_t, uint32_t> defOfName;
  for (uint32_t id = 0; id < book.defs.size(); ++id)
    defOfName.try_emplace(book.defs[id].name, id);
  auto target = [&](const net::Tree &tree) {
    auto it = defOfName.find(tree.value);
    return it == defOfName.end() ? None : it->second;
  };
  auto inBook = [&](TreeId t) { return t.valid() && t.index < book.trees.size(); };
  auto newClass = [&](TreeId t) {
    assert(book[t].kind == TreeKind::Con && "only a (a b) tree has a shape");
    uint32_t cls = classes.add(t.index < known.size() ? known[t.index] : net::ConRole::Unknown);
    classes.setClass(t, cls);
    return cls;
  };

  // The number a tree surely is: a literal, or a reference to a definition
  // that is one (Bend's constructor tags).
  auto constantOf = [&](TreeId t) -> std::optional<uint32_t> {
    if (!inBook(t))
      return std::nullopt;
    if (book[t].kind == TreeKind::Ref) {
      uint32_t id = target(book[t]);
      if (id == None || !book.defs[id].redexes.empty())
        return std::nullopt;
      t = book.defs[id].root;
      if (!inBook(t))
        return std::nullopt;
    }
    if (book[t].kind != TreeKind::Num)
      return std::nullopt;
    return rt::num::u24Of(book[t].value);
  };
  auto isVar = [&](TreeId t) { return inBook(t) && book[t].kind == TreeKind::Var; };
  // `(?((z s) r) r)`: a function that switches on its argument.
  auto isCase = [&](const net::Tree &con) {
    if (!inBook(con.fst) || book[con.fst].kind != TreeKind::Swi)
      return false;
    const net::Tree &swi = book[con.fst];
    return inBook(swi.fst) && isVar(swi.snd) && isVar(con.snd) &&
           book[swi.snd].value == book[con.snd].value;
  };
  // A switch on constructor tags, written in place or as a reference.
  auto isMatcher = [&](TreeId t) {
    if (inBook(t) && book[t].kind == TreeKind::Ref) {
      uint32_t id = target(book[t]);
      t = id == None ? TreeId{} : book.defs[id].root;
    }
    return inBook(t) && book[t].kind == TreeKind::Con && isCase(book[t]);
  };
  // `((tag (f1 .. (fn r))) r)`: a constructed value; the chain of `(a b)`
  // nodes that applies the matcher, or nothing.
  std::vector<TreeId> chain;
  auto ctorChain = [&](const net::Tree &con) {
    chain.clear();
    if (!isVar(con.snd) || !inBook(con.fst) || book[con.fst].kind != TreeKind::Con ||
        !constantOf(book[con.fst].fst))
      return false;
    TreeId t = con.fst;
    while (inBook(t) && book[t].kind == TreeKind::Con) {
      chain.push_back(t);
      t = book[t].snd;
    }
    return isVar(t) && book[t].value == book[con.snd].value;
  };

  // `(magic (name (argument (continuation r))))`: applying IO/Call to HVM2's
  // IO magic number. The host takes the argument apart as a tuple; nothing in
  // the book says so, since no definition takes it apart.
  auto isMagic = [&](TreeId t) {
    if (inBook(t) && book[t].kind == TreeKind::Ref) {
      uint32_t id = target(book[t]);
      if (id == None || !book.defs[id].redexes.empty())
        return false;
      t = book.defs[id].root;
    }
    return inBook(t) && book[t].kind == TreeKind::Con && constantOf(book[t].fst) == IoMagicHi &&
           constantOf(book[t].snd) == IoMagicLo;
  };
  auto ioArgument = [&](const net::Tree &con) -> TreeId {
    TreeId t = con.snd;
    for (int i = 0; i < 2; ++i) {
      if (!inBook(t) || book[t].kind != TreeKind::Con)
        return TreeId{};
      t = book[t].snd;
    }
    if (!isMagic(con.fst) || !inBook(t) || book[t].kind != TreeKind::Con)
      return TreeId{};
    return book[con.snd].snd.valid() ? book[book[con.snd].snd].fst : TreeId{};
  };

  // Visits every tree of a definition once, a parent before its children.
  std::vector<TreeId> stack;
  auto forEachTree = [&](const net::Def &d, auto &&f) {
    stack.push_back(d.root);
    for (const net::Redex &r : d.redexes) {
      stack.push_back(r.rhs);
      stack.push_back(r.lhs);
    }
    while (!stack.empty()) {
      TreeId t = stack.back();
      stack.pop_back();
      if (!inBook(t))
        continue;
      f(t);
      if (net::isNodeKind(book[t].kind)) {
        stack.push_back(book[t].snd);
        stack.push_back(book[t].fst);
      }
    }
  };

  net::RefGraph graph(book);

  // One type per tree (the wire at its principal port) and per definition.
  std::vector<uint32_t> typeOf(book.trees.size());
  for (uint32_t &t : typeOf)
    t = types.fresh();
  auto typeAt = [&](TreeId t) { return inBook(t) ? typeOf[t.index] : types.fresh(); };
  std::vector<uint32_t> defType(book.defs.size());
  for (uint32_t &t : defType)
    t = types.fresh();
  // Copies cost memory and time in proportion to the size of the types; past
  // a budget, definitions are left monomorphic (one type for every use), as
  // plain unification would have them.
  std::vector<std::optional<Scheme>> schemes(book.defs.size());
  size_t budget = std::max<size_t>(size_t(1) << 20, 16 * book.trees.size());
  const size_t schemeCap = std::max<size_t>(size_t(1) << 14, book.trees.size() / 4);
  std::vector<uint8_t> monomorphic; // per component: a use shares its type
  std::vector<uint32_t> sccOf(book.defs.size(), None);
  // Trees typed as part of their parent's pattern (a case's switch, a
  // constructor's chain).
  std::vector<uint8_t> inPattern(book.trees.size(), 0);

  // Types one tree; variables are scoped to the definition.
  llvm::DenseMap<uint32_t, uint32_t> varType;
  auto typeTree = [&](TreeId t, uint32_t scc) {
    const net::Tree &tree = book[t];
    uint32_t self = typeOf[t.index];
    if (inPattern[t.index])
      return;
    switch (tree.kind) {
    case TreeKind::Var: {
      auto [it, inserted] = varType.try_emplace(tree.value, self);
      if (!inserted)
        types.unify(self, it->second);
      break;
    }
    case TreeKind::Ref: {
      // Let-polymorphism: a definition from an earlier strongly connected
      // component has its final type, and each reference takes a copy, so a
      // helper used at two shapes ties each use to the helper's own nodes,
      // not the uses to each other. Within a component (recursion) a
      // definition has one type.
      uint32_t callee = target(tree);
      if (callee == None)
        break;
      if (sccOf[callee] == scc) {
        types.unify(self, defType[callee]);
      } else if (!schemes[callee] || schemes[callee]->nodes.size() > budget) {
        monomorphic[sccOf[callee]] = 1;
        types.unify(self, defType[callee]);
      } else {
        budget -= schemes[callee]->nodes.size();
        types.unify(self, types.instantiate(*schemes[callee]));
      }
      break;
    }
    case TreeKind::Con: {
      uint32_t cls = newClass(t);
      uint32_t type;
      std::optional<uint32_t> key = constantOf(tree.fst);
      // Constructor tags are small; a larger number is a value, and keying on
      // it would unroll a switch chain once per unit (a countdown from
      // 200 000 took seconds to type). The IO magic marks calls to the host.
      if (key && (*key <= MaxTagKey || *key == IoMagicHi)) {
        type = types.keyed(cls, *key, typeAt(tree.snd));
      } else if (isCase(tree)) {
        const net::Tree &swi = book[tree.fst];
        inPattern[tree.fst.index] = 1;
        uint32_t zero = types.fresh(), succ = types.fresh();
        types.unify(typeOf[swi.fst.index], types.con(pairClass, zero, succ));
        type = types.caseOf(cls, zero, succ);
      } else if (ctorChain(tree)) {
        Ctor ctor{*constantOf(book[chain[0]].fst), {}, {}};
        for (size_t i = 0; i < chain.size(); ++i) {
          TreeId link = chain[i];
          inPattern[link.index] = 1;
          ctor.classes.push_back(newClass(link));
          if (i > 0)
            ctor.fields.push_back(typeAt(book[link].fst));
        }
        type = types.data(cls, std::move(ctor));
      } else {
        type = types.con(cls, typeAt(tree.fst), typeAt(tree.snd), isMatcher(tree.fst));
        if (TreeId argument = ioArgument(tree); inBook(argument))
          types.unify(typeOf[argument.index], types.con(pairClass, types.fresh(), types.fresh()));
      }
      types.unify(self, type);
      break;
    }
    case TreeKind::Dup:
      types.unify(self, typeAt(tree.fst));
      types.unify(self, typeAt(tree.snd));
      break;
    case TreeKind::Swi: {
      // ?((zero succ) result) on a number nothing says more about: zero has
      // the result's type, succ takes the predecessor to it.
      if (!inBook(tree.fst) || !inBook(tree.snd))
        break;
      uint32_t result = typeOf[tree.snd.index];
      uint32_t succ = types.con(funClass, types.fresh(), result);
      types.unify(typeOf[tree.fst.index], types.con(pairClass, result, succ));
      break;
    }
    case TreeKind::Num:
    case TreeKind::Era:
    case TreeKind::Opr: // numbers carry no type
      break;
    }
  };

  // Components come callees first (scc_iterator yields them in reverse
  // topological order), so a reference out of its own component always finds
  // a finished scheme.
  uint32_t scc = 0;
  std::vector<std::pair<uint32_t, uint32_t>> sccNodes; // nodes made while typing each
  for (auto it = llvm::scc_begin(&graph); !it.isAtEnd(); ++it, ++scc) {
    const std::vector<net::RefGraph::Node *> &component = *it;
    uint32_t begin = uint32_t(types.size());
    sccNodes.push_back({begin, begin});
    monomorphic.push_back(0);
    if (component.size() == 1 && component[0] == &graph.entry)
      continue;
    for (net::RefGraph::Node *node : component)
      sccOf[node->def] = scc;
    std::vector<uint32_t> roots;
    for (net::RefGraph::Node *node : component) {
      const net::Def &d = book.defs[node->def];
      varType.clear();
      forEachTree(d, [&](TreeId t) { typeTree(t, scc); });
      types.unify(typeAt(d.root), defType[node->def]);
      for (const net::Redex &r : d.redexes)
        types.unify(typeAt(r.lhs), typeAt(r.rhs));
      roots.push_back(defType[node->def]);
    }
    types.markReachable(roots, begin);
    types.settle(begin, uint32_t(types.size()), true);
    sccNodes.back().second = uint32_t(types.size());
    for (net::RefGraph::Node *node : component) {
      schemes[node->def] = types.generalise(defType[node->def], std::min(budget, schemeCap));
      if (schemes[node->def])
        budget -= schemes[node->def]->nodes.size();
    }
  }
  // An IO program (one that builds HVM2's IO magic number) has its result
  // read by the host: IO/Done(magic, value), or IO/Call(magic, name,
  // argument, continuation), whose continuation the host applies to a Result
  // it builds and whose answer it reads again. What the host builds (Result,
  // an IO error) the book never builds, yet takes apart.
  uint32_t hostBegin = uint32_t(types.size());
  auto main = book.nameIds.find(book.entry);
  bool io = llvm::any_of(book.trees, [&](const net::Tree &t) {
    return t.kind == TreeKind::Con && constantOf(t.fst) == IoMagicHi &&
           constantOf(t.snd) == IoMagicLo;
  });
  if (io && main != book.nameIds.end() && defOfName.count(main->second)) {
    auto fun = [&](uint32_t a, uint32_t b) { return types.con(funClass, a, b); };
    auto fresh = [&] { return types.fresh(); };
    // Constructors the host builds: `λm. m tag f1 .. fn`, all functions.
    auto ctor = [&](uint32_t tag, std::vector<uint32_t> fields) {
      std::vector<uint32_t> spine(fields.size() + 1, funClass);
      return types.data(funClass, Ctor{tag, std::move(spine), std::move(fields)}, true);
    };
    auto sum = [&](std::initializer_list<uint32_t> ctors) {
      uint32_t t = fresh();
      for (uint32_t c : ctors)
        types.unify(t, c);
      return t;
    };
    // A call answers a number, nothing, a pair (GET_TIME) or a list of bytes
    // (READ), which types cannot tell apart. The answer is taken to be a list
    // of bytes, so that what reads a file types; built by the host, it ties
    // none of its uses together (see Types::run), so that a pair answer taken
    // apart is not made a list.
    uint32_t bytes = fresh();
    types.unify(bytes, sum({ctor(0, {}), ctor(1, {fresh(), bytes})}));
    uint32_t error = sum({ctor(0, {}), ctor(1, {}), ctor(2, {bytes})});
    uint32_t result = sum({ctor(0, {bytes}), ctor(1, {error})});
    uint32_t host = fresh(), answer = fresh();
    uint32_t magic = types.con(pairClass, fresh(), fresh());
    uint32_t argument = types.con(pairClass, fresh(), fresh());
    uint32_t done = fun(magic, fun(fresh(), answer));
    uint32_t call =
        fun(fresh(), fun(magic, fun(fresh(), fun(argument, fun(fun(result, host), answer)))));
    types.unify(host, fun(types.caseOf(funClass, done, call), answer));
    // `main` may take the program's arguments first.
    types.unify(types.dataResult(defType[defOfName[main->second]]), host);
  }
  // Definitions nothing else refers to are never copied, nor are those used
  // monomorphically: what is deferred in them (and in the copies they hold)
  // is settled now.
  std::vector<uint8_t> referenced(scc, 0);
  for (const net::RefGraph::Node &node : graph.defs)
    for (const net::RefGraph::Node *callee : node.refs)
      if (sccOf[callee->def] != sccOf[node.def])
        referenced[sccOf[callee->def]] = 1;
  uint32_t end = uint32_t(types.size());
  for (uint32_t c = 0; c < scc; ++c)
    if (!referenced[c] || monomorphic[c])
      types.settle(sccNodes[c].first, sccNodes[c].second);
  types.settle(hostBegin, end);
  // What was certain stays so: a class never joins a function with a pair.
  assert(llvm::all_of(llvm::seq<size_t>(0, known.size()), [&](size_t t) {
    uint32_t cls = classes.classOf(TreeId{uint32_t(t)});
    return known[t] == net::ConRole::Unknown || cls == ShapeClasses::None ||
           classes.shape(cls) == known[t];
  }));
  return classes;
}

} // namespace bendc::lowering
