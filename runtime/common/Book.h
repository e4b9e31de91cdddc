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
  /// 1 + the index in Book::plans of the arithmetic a fully fused call does
  /// while copying (see planNumbers); 0 for none.
  uint32_t plan = 0;
  /// Bit r (r < 32): redex r needs the result of a redex linked after it,
  /// which runs before it (see orderRedexes). On one thread the order alone
  /// sees to that; a worker that gives such a call to another thread holds
  /// it back until the work it needs is done (runtime/cpu/WorkPool.h).
  uint32_t consumers = 0;
  /// Bit r: redex r is the first, in linking order, of the redexes some
  /// such call needs: the work above it is what the call waits for.
  uint32_t producers = 0;
};

/// What a call of a definition can compute while it copies the template,
/// from arguments that are numbers: the duplications and operators those
/// numbers reach, evaluated on the template and never built (see
/// planNumbers and expand in runtime/common/Interact.h). Values are held in
/// registers: the arguments, the literal operands, then one per result.
struct Plan {
  static constexpr unsigned MaxArgs = 8, MaxConsts = 8, MaxOps = 16, MaxNodes = 16, MaxLate = 16;
  static constexpr unsigned MaxRegs = MaxArgs + MaxConsts + MaxOps;
  static constexpr uint8_t NoReg = 0xFF;
  /// The fused chain the plan is for: its length, and the slot each level
  /// continues through (bit j: level j continues through its second slot).
  uint8_t levels = 0;
  uint16_t nextBits = 0;
  uint8_t argCount = 0, constCount = 0, opCount = 0, nodeCount = 0, lateCount = 0;
  uint8_t eras = 0, voids = 0; // interactions counted as they are, per call
  /// Register i < argCount: the argument in level arg[i] >> 1, slot arg[i] & 1.
  uint8_t arg[MaxArgs] = {};
  Term constant[MaxConsts] = {};
  struct Op {
    uint8_t dst;        // register receiving the result
    uint8_t in;         // the number reaching the operator
    uint8_t operand;    // its operand
    uint8_t throughVar; // the operand comes through a variable: one more OPER
  } op[MaxOps] = {};
  /// Evaluated template nodes, and the register each of their slots holds
  /// (NoReg: no variable points there).
  struct Node {
    uint32_t node;
    uint8_t reg[2];
  } node[MaxNodes] = {};
  /// Nodes a number reached through an evaluated node that are not evaluated
  /// themselves: built, then linked with that number.
  struct Late {
    Term node;
    uint8_t reg;
  } late[MaxLate] = {};
};

struct Book {
  std::vector<std::string> names; // by definition id
  std::vector<DefInfo> defs;
  std::vector<Term> slots;
  std::vector<Term> redexes;
  std::vector<Plan> plans; // DefInfo::plan
  uint32_t mainId = 0;
};

} // namespace bendc::rt
