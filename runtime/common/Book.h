// The polarized book: every definition as a template the runtime copies when a
// reference is expanded. One layout for the CPU and the CUDA runtime.
//
// Terms inside a template are local: a node term's payload is the index of the
// node within its definition, a VAR's payload is the local slot (2*node + i) of
// its negative twin. Expansion allocates the nodes and relocates those payloads.
#pragma once

#include "runtime/common/Term.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bendc::rt {

struct DefInfo {
  uint32_t firstSlot = 0;  // index of the first term in Book::slots (2 per node)
  uint32_t nodeCount = 0;
  uint32_t firstRedex = 0; // index of the first term in Book::redexes (2 per redex: negative, positive)
  uint32_t redexCount = 0;
  Term root = 0;           // positive
  /// No DUP node in this definition or in any definition it references: a DUP
  /// meeting a reference to it copies the reference instead of expanding it.
  bool safe = true;
  /// A numeric switch, `λn (switch n { 0: zero; _: succ })` with both arms
  /// closed trees: the arms as template terms (zero, succ), or 0 when the
  /// definition has another shape. A call whose number is already there
  /// selects its arm without building the switch (see interactCall).
  Term switchArm[2] = {0, 0};
  /// What erasing each arm counts: its nodes (ERAS) and its leaves and
  /// wires (VOID).
  uint8_t armNodes[2] = {0, 0};
  uint8_t armVoids[2] = {0, 0};
};

struct Book {
  std::vector<std::string> names; // by definition id
  std::vector<DefInfo> defs;
  std::vector<Term> slots;
  std::vector<Term> redexes;
  uint32_t mainId = 0;
};

} // namespace bendc::rt
