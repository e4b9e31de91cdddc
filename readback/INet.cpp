#include "readback/INet.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <climits>

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

std::optional<INet> buildNet(const net::Book &book, const net::Def &def) {
  INet net;
  net.names = &book.names;
  net.nodes.push_back({NodeKind::Rot, 0, {portOf(0, 2), portOf(0, 1), portOf(0, 0)}});

  // A redex joining two variables joins their wires.
  llvm::DenseMap<uint32_t, uint32_t> joined;
  auto find = [&](uint32_t v) {
    for (auto it = joined.find(v); it != joined.end(); it = joined.find(v))
      v = it->second;
    return v;
  };
  for (const net::Redex &r : def.redexes) {
    const net::Tree &l = book[r.lhs], &rr = book[r.rhs];
    if (l.kind == net::TreeKind::Var && rr.kind == net::TreeKind::Var) {
      uint32_t a = find(l.value), b = find(rr.value);
      if (a != b)
        joined[a] = b;
    }
  }

  // Wire keys: 0 is the root; tags keep the key spaces apart.
  constexpr uint64_t RootKey = 0, VarTag = 1ull << 62, FreshTag = 2ull << 62,
                     RedexTag = 3ull << 62;
  const net::Tree &rootTree = book[def.root];
  bool rootIsVar = rootTree.kind == net::TreeKind::Var;
  uint32_t rootVar = rootIsVar ? find(rootTree.value) : ~0u;
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

  uint64_t freshCount = 0;
  bool tooLarge = false;
  std::vector<std::pair<uint64_t, net::TreeId>> stack;
  auto emit = [&](uint64_t key, net::TreeId id) {
    stack.push_back({key, id});
    while (!stack.empty()) {
      auto [k, tid] = stack.back();
      stack.pop_back();
      if (net.nodes.size() >= MaxNodes) {
        tooLarge = true;
        stack.clear();
        return;
      }
      const net::Tree &t = book[tid];
      uint32_t x = uint32_t(net.nodes.size());
      INet::Node node{nodeKind(t.kind), 0, {portOf(x, 0), portOf(x, 1), portOf(x, 2)}};
      if (t.kind == net::TreeKind::Era || t.kind == net::TreeKind::Ref ||
          t.kind == net::TreeKind::Num) {
        node.data = t.value;
        net.nodes.push_back(node);
        connect(portOf(x, 0), k);
        link(portOf(x, 1), portOf(x, 2));
        continue;
      }
      auto child = [&](net::TreeId c) -> uint64_t {
        const net::Tree &ct = book[c];
        if (ct.kind == net::TreeKind::Var)
          return varKey(ct.value);
        uint64_t fk = FreshTag | freshCount++;
        stack.push_back({fk, c});
        return fk;
      };
      uint64_t fst = child(t.fst);
      uint64_t snd = child(t.snd);
      net.nodes.push_back(node);
      connect(portOf(x, 0), k);
      connect(portOf(x, 1), fst);
      connect(portOf(x, 2), snd);
    }
  };

  if (!rootIsVar)
    emit(RootKey, def.root);
  for (size_t i = 0; i < def.redexes.size(); ++i) {
    const net::Redex &r = def.redexes[i];
    bool lv = book[r.lhs].kind == net::TreeKind::Var, rv = book[r.rhs].kind == net::TreeKind::Var;
    if (lv && rv)
      continue;
    if (lv) {
      emit(varKey(book[r.lhs].value), r.rhs);
    } else if (rv) {
      emit(varKey(book[r.rhs].value), r.lhs);
    } else {
      emit(RedexTag | i, r.lhs);
      emit(RedexTag | i, r.rhs);
    }
  }
  if (tooLarge)
    return std::nullopt;
  return net;
}

} // namespace bendc::readback
