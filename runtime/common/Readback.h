// Reads the normal form back from net memory as a tree: what a run hands
// back. Its text is HVM2's (`(a b)`, `{a b}`, `$(a b)`, `?(a b)`, `*`, `@ref`,
// numbers, and variables x0, x1, ...: ir/NetPrinter.h prints it once the net
// IR holds it); Bend readback reads the tree itself, with no text between.
#pragma once

#include "runtime/common/Term.h"

#include <cstdint>
#include <vector>

namespace bendc::rt {

/// The normal form as a tree. Variables are numbered in the order they first
/// appear (as HVM2's own tests normalise them), so the tree is the same for
/// every thread count and backend.
struct ResultTree {
  /// The kinds of trees, in the order of the net IR's (net::TreeKind).
  enum class Kind : uint8_t { Var, Ref, Era, Num, Con, Dup, Opr, Swi };
  struct Node {
    Kind kind = Kind::Era;
    /// Var: its number; Ref: the definition's index in the Book; Num: the
    /// HVM2 number word.
    uint32_t value = 0;
    uint32_t fst = 0, snd = 0; // Con, Dup, Opr and Swi: children (indices into nodes)
  };
  std::vector<Node> nodes; // nodes[0] is the root; a parent comes before its children
  uint32_t vars = 0;       // variables, numbered 0 to vars - 1
  /// Where readback met a term that is neither a tree nor a variable (a
  /// broken net): the slot holding it, or ~0 when none was met. Such a term
  /// is read as `*`.
  Loc broken = ~Loc(0);
};

/// Reads the slots of a quiescent net: from memory, or through a function
/// (a device's memory, fetched as the reading goes). Plain C++ with no
/// library types, so that the CUDA runtime's nvcc includes it too.
class SlotReader {
public:
  using Fetch = Term (*)(void *context, Loc slot);
  SlotReader(const Term *slots) : direct(slots) {}
  SlotReader(Fetch fetch, void *context) : fetch(fetch), context(context) {}
  /// A VARAT is read as the VAR it stands for (see tag::VarAt).
  Term operator[](Loc slot) const { return plainVar(direct ? direct[slot] : fetch(context, slot)); }

private:
  const Term *direct = nullptr;
  Fetch fetch = nullptr;
  void *context = nullptr;
};

/// Reads the tree whose root is in `rootSlot`; memory must be quiescent.
ResultTree readback(SlotReader slots, Loc rootSlot = RootSlot);

} // namespace bendc::rt
