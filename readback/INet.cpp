#include "readback/INet.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace bendc::readback {

namespace {

NodeKind nodeKind(net::TreeKind k) {
  switch (k) {
  case net::TreeKind::Era: return NodeKind::Era;
  case net::TreeKind::Ref: return NodeKind::Ref;
  case net::TreeKind::Num: return NodeKind::Num;
  case net::TreeKind::Con: return NodeKind::Con;
  case net::TreeKind::Dup: return NodeKind::Dup;
  case net::TreeKind::Opr: return NodeKind::Opr;
  case net::TreeKind::Swi: return NodeKind::Swi;
  case net::TreeKind::Var: break;
  }
  llvm_unreachable("variables are wires, not nodes");
}

} // namespace

void computeClosed(INet &net) {
  size_t n = net.nodes.size();
  std::vector<int32_t> tin(n, -1), tout(n, -1), lo(n, INT32_MAX), hi(n, INT32_MIN);
  std::vector<uint32_t> order;
  order.reserve(n);
  net.consumes.assign(n, false);
  auto childAt = [&](uint32_t x, uint32_t slot) -> uint32_t {
    Port q = net.nodes[x].ports[slot];
    if (slotOf(q) != 0 || nodeOf(q) == 0 || nodeOf(q) == x)
      return 0;
    return nodeOf(q);
  };
  std::vector<uint32_t> stack;
  for (uint32_t x = 1; x < n; ++x) {
    Port up = net.nodes[x].ports[0];
    if (slotOf(up) != 0 && nodeOf(up) != 0 && nodeOf(up) != x)
      continue; // hangs from another node's auxiliary port
    stack.push_back(x);
    while (!stack.empty()) {
      uint32_t y = stack.back();
      stack.pop_back();
      tin[y] = int32_t(order.size());
      order.push_back(y);
      for (uint32_t slot : {2u, 1u})
        if (uint32_t c = childAt(y, slot); c != 0 && tin[c] < 0)
          stack.push_back(c);
    }
  }
  for (size_t k = order.size(); k-- > 0;) {
    uint32_t y = order[k];
    int32_t last = tin[y], l = INT32_MAX, h = INT32_MIN;
    NodeKind kind = net.nodes[y].kind;
    bool feeds = kind == NodeKind::Opr || kind == NodeKind::Swi;
    for (uint32_t slot : {1u, 2u}) {
      Port q = net.nodes[y].ports[slot];
      if (q == portOf(y, slot))
        continue; // a wire with one end: it loops on itself
      if (uint32_t c = childAt(y, slot); c != 0 && tin[c] > tin[y]) {
        feeds = feeds || net.consumes[c];
        last = std::max(last, tout[c]);
        l = std::min(l, lo[c]);
        h = std::max(h, hi[c]);
        continue;
      }
      int32_t other = nodeOf(q) == 0 ? -1 : tin[nodeOf(q)];
      l = std::min(l, other);
      h = std::max(h, other);
    }
    tout[y] = last;
    net.consumes[y] = feeds;
    lo[y] = l;
    hi[y] = h;
  }
  net.closed.assign(n, false);
  for (uint32_t y : order)
    net.closed[y] = lo[y] >= tin[y] && hi[y] <= tout[y];
}

namespace {

/// A definition of a net book, as buildFrom reads it.
struct DefSource : net::BookTrees {
  const net::Def &def;

  const std::vector<llvm::StringRef> *names() const { return &book.names; }
  Id root() const { return def.root; }
  size_t redexCount() const { return def.redexes.size(); }
  std::pair<Id, Id> redex(size_t i) const { return {def.redexes[i].lhs, def.redexes[i].rhs}; }
};

/// A run's result tree (no redexes; a reference's value is its definition's
/// id, which indexes `defNames`).
struct ResultSource : net::ResultTrees {
  const std::vector<llvm::StringRef> &defNames;

  const std::vector<llvm::StringRef> *names() const { return &defNames; }
  Id root() const { return 0; }
  size_t redexCount() const { return 0; }
  std::pair<Id, Id> redex(size_t) const { return {0, 0}; } // never asked: no redexes
};

template <class Source> std::optional<INet> buildFrom(const Source &src) {
  using Id = typename Source::Id;
  INet net;
  net.names = src.names();
  net.nodes.push_back({NodeKind::Rot, 0, {portOf(0, 2), portOf(0, 1), portOf(0, 0)}});

  // A redex joining two variables joins their wires.
  llvm::DenseMap<uint32_t, uint32_t> joined;
  auto find = [&](uint32_t v) {
    for (auto it = joined.find(v); it != joined.end(); it = joined.find(v))
      v = it->second;
    return v;
  };
  for (size_t i = 0; i < src.redexCount(); ++i) {
    auto [lhs, rhs] = src.redex(i);
    if (src.kind(lhs) == net::TreeKind::Var && src.kind(rhs) == net::TreeKind::Var) {
      uint32_t a = find(src.value(lhs)), b = find(src.value(rhs));
      if (a != b)
        joined[a] = b;
    }
  }

  // Wire keys: 0 is the root; tags keep the key spaces apart.
  constexpr uint64_t RootKey = 0, VarTag = 1ull << 62, RedexTag = 3ull << 62;
  bool rootIsVar = src.kind(src.root()) == net::TreeKind::Var;
  uint32_t rootVar = rootIsVar ? find(src.value(src.root())) : ~0u;
  auto varKey = [&](uint32_t v) -> uint64_t {
    v = find(v);
    return v == rootVar ? RootKey : VarTag | v;
  };

  llvm::DenseMap<uint64_t, Port> open;
  auto link = [&](Port a, Port b) {
    net.nodes[nodeOf(a)].ports[slotOf(a)] = b;
    net.nodes[nodeOf(b)].ports[slotOf(b)] = a;
  };
  auto connect = [&](Port p, uint64_t key) {
    if (key == RootKey)
      return link(p, RootPort);
    auto [it, inserted] = open.try_emplace(key, p);
    if (!inserted) {
      link(p, it->second);
      open.erase(it);
    }
  };

  // Where a tree's principal port goes: a wire (by key), or straight to its
  // parent's auxiliary port, which exists by then.
  struct Item {
    Id tree;
    uint64_t key;
    Port parent; // 0: by key (port 0 of node 0 is never a parent's)
  };
  bool tooLarge = false;
  std::vector<Item> stack;
  auto emit = [&](uint64_t key, Id id) {
    stack.push_back({id, key, 0});
    while (!stack.empty()) {
      Item item = stack.back();
      stack.pop_back();
      if (net.nodes.size() >= MaxNodes) {
        tooLarge = true;
        stack.clear();
        return;
      }
      net::TreeKind kind = src.kind(item.tree);
      uint32_t x = uint32_t(net.nodes.size());
      net.nodes.push_back({nodeKind(kind), 0, {portOf(x, 0), portOf(x, 1), portOf(x, 2)}});
      if (item.parent != 0)
        link(portOf(x, 0), item.parent);
      else
        connect(portOf(x, 0), item.key);
      if (kind == net::TreeKind::Era || kind == net::TreeKind::Ref || kind == net::TreeKind::Num) {
        net.nodes[x].data = src.value(item.tree);
        link(portOf(x, 1), portOf(x, 2));
        continue;
      }
      // Children: the second is numbered before the first, as Bend's
      // hvm_to_net numbers them.
      Id children[2] = {src.fst(item.tree), src.snd(item.tree)};
      for (uint32_t slot : {1u, 2u}) {
        Id c = children[slot - 1];
        if (src.kind(c) == net::TreeKind::Var)
          connect(portOf(x, slot), varKey(src.value(c)));
        else
          stack.push_back({c, 0, portOf(x, slot)});
      }
    }
  };

  if (!rootIsVar)
    emit(RootKey, src.root());
  for (size_t i = 0; i < src.redexCount(); ++i) {
    auto [lhs, rhs] = src.redex(i);
    bool lv = src.kind(lhs) == net::TreeKind::Var, rv = src.kind(rhs) == net::TreeKind::Var;
    if (lv && rv)
      continue;
    if (lv) {
      emit(varKey(src.value(lhs)), rhs);
    } else if (rv) {
      emit(varKey(src.value(rhs)), lhs);
    } else {
      emit(RedexTag | i, lhs);
      emit(RedexTag | i, rhs);
    }
  }
  if (tooLarge)
    return std::nullopt;
  return net;
}

} // namespace

std::optional<INet> buildNet(const net::Book &book, const net::Def &def) {
  return buildFrom(DefSource{{book}, def});
}

std::optional<INet> buildNet(const rt::ResultTree &tree,
                             const std::vector<llvm::StringRef> &defNames) {
  if (tree.nodes.empty())
    return std::nullopt; // no root
  return buildFrom(ResultSource{{tree}, defNames});
}

} // namespace bendc::readback
