// Net to term, as Bend's net_to_term reads a net: non-linear for a result
// (duplications read through), linear for a generated definition.
#pragma once

#include "readback/INet.h"
#include "readback/Term.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace bendc::readback {

enum class ReadbackError : uint8_t { InvalidNumericMatch, InvalidNumericOp, ReachedRoot, Cyclic };

/// Bend's wording of a readback problem.
const char *errorText(ReadbackError e);

class Expander;

/// Reads a net back to a term. Non-linear (what `bend run` does): a
/// duplication is read through to the value it copies, and a superposition
/// met on the way picks the side that duplication came from. Linear: a
/// duplication becomes `let {a b} = value;` above its uses.
class Reader {
public:
  Reader(const INet &net, Terms &terms, Expander &expander, bool linear)
      : net(net), terms(terms), expander(expander), linear(linear) {
    if (!linear)
      visits.assign(net.nodes.size() * 4, 0);
  }

  /// Reading a generated definition for Expander: Bend inserts such a
  /// definition as the term its book holds, where a switch names no
  /// variable and its successor arm is still `λp body`.
  bool definitionForm = false;

  /// The whole term: the root, the duplications found on the way (linear),
  /// then variables used outside their binder become unscoped `$x`.
  TermId readNet();
  const std::vector<ReadbackError> &errors() const { return errs; }

private:
  enum class FK : uint8_t { Lam, Tup, App, DupAux, SupPaired, Decay, Opr, Swi };
  struct Frame {
    FK kind;
    uint8_t step = 0;
    uint8_t slot = 0;  // with node: the port this frame reads
    Pat pat = Pat::Erased;
    uint32_t node = 0;
    uint32_t aux = 0;  // Lam: binder name; Opr: state index; Swi: switch name;
                       // SupPaired: the DUP slot it answers
    uint32_t aux2 = 0; // Swi: the node holding both arms
    TermId t0 = NoTerm, t1 = NoTerm;
    uint64_t state = 0; // non-linear: the DUP path when the read began (dupState)
  };
  static_assert(sizeof(Frame) == 32, "one frame per level of a deep term");
  /// The arguments of a numeric operation, gathered in order as Bend does.
  struct OprState {
    Port ports[3];
    uint8_t nPorts = 0, next = 0, nArgs = 0, nTypes = 0, nOps = 0;
    bool flipped = false, partial = false;
    bool argIsNum[3] = {};
    uint32_t argVal[3] = {};
    TermId argTerm[3] = {};
    uint32_t types[3] = {}, ops[3] = {};
  };
  struct Action {
    bool read;
    Port port;
    TermId term;
  };
  static Action readAt(Port p) { return {true, p, NoTerm}; }
  static Action done(TermId t) { return {false, 0, t}; }

  TermId read(Port start);
  bool begin(Port p, std::vector<Frame> &stack, TermId &out);
  Action step(std::vector<Frame> &stack, TermId in);
  Action finish(std::vector<Frame> &stack, TermId t);
  Action stepOpr(std::vector<Frame> &stack, TermId in);
  Action stepSwi(std::vector<Frame> &stack, TermId in);
  TermId oprTerm(const OprState &s);

  void error(ReadbackError e) { errs.push_back(e); }
  NameId varName(Port p) {
    auto [it, inserted] = portNames.try_emplace(p, NameId(0));
    if (inserted)
      it->second = NameTable::fresh(nextName++);
    return it->second;
  }
  /// A binder's name; none when the variable goes to an eraser.
  std::pair<Pat, NameId> declName(Port p) {
    if (net.kindAt(net.enter(p)) == NodeKind::Era)
      return {Pat::Erased, NoName};
    return {Pat::Var, varName(p)};
  }
  NameId refName(uint32_t index) {
    auto [it, inserted] = refNames.try_emplace(index, NoName);
    if (inserted)
      it->second = terms.names.intern((*net.names)[index]);
    return it->second;
  }
  /// Whether `p` is a port a value comes out of for certain: a number, a
  /// reference or an eraser, the result of an operator or a switch, or that
  /// of a definition's call.
  bool producer(Port p) const {
    NodeKind k = net.kindAt(p);
    if (slotOf(p) == 0)
      return k == NodeKind::Num || k == NodeKind::Ref || k == NodeKind::Era;
    if (slotOf(p) != 2)
      return false;
    if (k == NodeKind::Opr || k == NodeKind::Swi)
      return true;
    Port fun = net.enter(portOf(nodeOf(p), 0));
    return k == NodeKind::Con && slotOf(fun) == 0 && net.kindAt(fun) == NodeKind::Ref;
  }
  bool isTup(uint32_t node, bool followLets = true) const {
    Port p = net.enter(portOf(node, 1));
    if (net.kindAt(p) == NodeKind::Era)
      return false;
    // In a definition, a λ's variable goes where it is used, never to an
    // operator's or a switch's result: there the node holds that result as
    // its first element. (A result's net reads as Bend reads it: a λ.)
    if (definitionForm && slotOf(p) == 2 &&
        (net.kindAt(p) == NodeKind::Opr || net.kindAt(p) == NodeKind::Swi))
      return true;
    // Nor is a tree that feeds an operator or a switch ever a pair's
    // element: there the λ's variable is read (and perhaps duplicated first)
    // by a computation whose result is dropped (`λa let * = (& a 0); ...`),
    // which a pure program may leave out.
    if (definitionForm && slotOf(p) == 0 && net.consumes[nodeOf(p)])
      return false;
    // Two first ports joined are a variable's binder and its use: where the
    // other node was read as a λ, or takes a pair apart, this one holds that
    // variable as an element.
    if (definitionForm && slotOf(p) == 1 && net.kindAt(p) == NodeKind::Con &&
        (lambdas.count(nodeOf(p)) || (followLets && tupleLet(nodeOf(p)))))
      return true;
    if (slotOf(p) != 0)
      return p == portOf(node, 1);
    return net.closed[nodeOf(p)];
  }
  /// A CON whose principal port meets a pair's: in a definition's net,
  /// `let (a, b) = pair` (a CON taking the pair apart). Met by a λ instead,
  /// it stays an application.
  bool tupleLet(uint32_t node) const {
    Port other = net.enter(portOf(node, 0));
    return linear && slotOf(other) == 0 && net.kindAt(other) == NodeKind::Con &&
           isTup(nodeOf(other), /*followLets=*/false);
  }
  bool erasedFirst(uint32_t node) const {
    return net.kindAt(net.enter(portOf(node, 1))) == NodeKind::Era;
  }
  void insertSplit(TermId root, FanKind fan, Pat p1, NameId n1, Pat p2, NameId n2, TermId val);
  void fixUnscoped(TermId root);

  const INet &net;
  Terms &terms;
  Expander &expander;
  bool linear;

  llvm::DenseMap<Port, NameId> portNames;
  uint64_t nextName = 0;
  llvm::DenseMap<uint32_t, NameId> refNames;
  std::vector<ReadbackError> errs;
  std::vector<uint8_t> dupPath;         // non-linear: the DUP slots we came through
  std::vector<uint64_t> dupHashes{0};   // non-linear: a hash of each prefix of dupPath
  std::vector<uint32_t> visits;         // non-linear: reads of each port on the current path
  uint64_t reads = 0;                   // non-linear: ports read so far
  std::vector<OprState> oprStates;      // one per Opr frame on the stack
  std::set<uint32_t> scope;             // linear: DUP and tuple-let nodes to bind, by node index
  llvm::DenseSet<uint32_t> seenFans;    // linear
  // linear: CON nodes read as a λ or pair, as an application, and those
  // whose first variable was read. One of the last that is neither may take
  // a value apart: `let (a, b) = value` (see readNet).
  llvm::DenseSet<uint32_t> built, applied;
  llvm::DenseSet<uint32_t> lambdas;     // linear: CON nodes read as a λ
  std::set<uint32_t> firstBinders;
  llvm::DenseSet<Port> seen;            // linear
  // A port read again inside its own reading, with the same DUP path, means
  // the read never ends (it is a function of the two): Bend's non-linear
  // readback loops forever there; here it gives a cyclic term. Read again
  // with another path, it may end (a Church numeral's duplications are read
  // through once per application), so it goes on, within bounds for nets
  // whose reading grows without end: a DUP path (a loop through a
  // duplication that never meets its superposition makes it grow each
  // turn), and a budget of reads (beyond any printable size).
  static constexpr size_t MaxDupPath = size_t(1) << 12;
  static constexpr uint64_t MaxReads = uint64_t(1) << 26;

  uint64_t dupState() const { return dupHashes.back() ^ (uint64_t(dupPath.size()) << 56); }
  void pushDup(uint8_t slot) {
    dupPath.push_back(slot);
    uint64_t h = (dupHashes.back() ^ (slot + 1)) * 0x9E3779B97F4A7C15ull;
    dupHashes.push_back(h ^ (h >> 29));
  }
  uint8_t popDup() {
    uint8_t slot = dupPath.back();
    dupPath.pop_back();
    dupHashes.pop_back();
    return slot;
  }
  /// The reads under way (port and DUP path, hashed), to find one begun
  /// again inside itself.
  llvm::DenseSet<uint64_t> active;
  static uint64_t readKey(Port p, uint64_t state) {
    uint64_t h = (state ^ uint64_t(p)) * 0xBF58476D1CE4E5B9ull;
    return (h ^ (h >> 31)) & ~uint64_t(3); // clear of DenseSet's two reserved keys
  }
};

} // namespace bendc::readback
