// The term: one 64-bit word that names what sits in a slot of the net.
//
//   Term ::= payload:56 | tag:8
//
// Memory is an array of slots; a node owns two consecutive slots (its auxiliary
// ports), and a term that points to a node holds the node's index, so the net is
// not capped at 4 GB. Every term has a polarity (seed 001): positive terms are
// moved into negative locations by the atomic linker.
//
//   positive:  VAR (points to the slot of its negative twin), NUL (eraser),
//              NUM (payload = 32-bit HVM2 number), REF (payload = definition id),
//              positive nodes
//   negative:  SUB (unbound variable: the slot is waiting for a value),
//              ERA (eraser), NUMN (a number, negative twin of NUM), negative
//              nodes
//
// HVM2 has no polarities: a leaf (eraser, number) may meet any port. When a
// program puts a leaf where a value is consumed (a number applied as a
// function, a pair's field meeting a number), the leaf's negative twin stands
// there: ERA for an eraser, NUMN for a number. Each acts as HVM2's leaf does.
//
// A node tag packs the HVM2 kind (CON, DUP, OPR, SWI), the polarity of the
// principal port and the polarity of the first auxiliary slot; the second
// auxiliary slot always has the principal's polarity. With polarities named,
// CON is LAM +(-var +body), TUP +(+ +), APP -(+arg -ret) or UNT -(- -);
// DUP is SUP +{+ +} or DUP -{- -}; OPR is -(+operand -result); SWI is
// -(+branches -result). Flipping every polarity of a node gives its twin, which
// commutation places in slots of the opposite polarity.
#pragma once

#include "runtime/common/HostDevice.h"

#include <cstdint>

namespace bendc::rt {

using Term = uint64_t;
using Loc = uint64_t;  // index of a slot; a node at index n owns slots 2n and 2n+1
using Numb = uint32_t; // HVM2's number word: value:24 | type:5 (see Numeric.h)

enum class Kind : uint8_t { Con = 0, Dup = 1, Opr = 2, Swi = 3 };

namespace tag {
inline constexpr uint8_t Free = 0x00; // an empty slot; never a live term
inline constexpr uint8_t Var = 0x01;
inline constexpr uint8_t Sub = 0x02;
inline constexpr uint8_t Nul = 0x03;
inline constexpr uint8_t Era = 0x04;
inline constexpr uint8_t Num = 0x05;
inline constexpr uint8_t Ref = 0x06;
inline constexpr uint8_t Mark = 0x07; // slot 0 of a free node: the next one (NodeStock)
inline constexpr uint8_t NumN = 0x08; // payload = 32-bit HVM2 number
/// A variable written where its SUB says it is (see subTerm): only in a
/// positive slot of a node a shaped copy built, until the consumer of that
/// node takes it (detail::take in Interact.h), which reads it as a VAR. No
/// rule sees one; a value may be written in its place (see `move`).
inline constexpr uint8_t VarAt = 0x09;
inline constexpr uint8_t NodeBit = 0x10;
// A positive term waiting in a negative slot for the slot's value, the two to
// be joined as HVM2 joins two ports (see Interact.h, joinValues); the term's
// own tag with this bit set.
inline constexpr uint8_t PendBit = 0x80;
inline constexpr uint8_t PosBit = 0x02;  // principal port is positive
inline constexpr uint8_t Aux1PosBit = 0x01;

BENDC_HD constexpr uint8_t node(Kind kind, bool positive, bool aux1Positive) {
  return NodeBit | (uint8_t(kind) << 2) | (positive ? PosBit : 0) | (aux1Positive ? Aux1PosBit : 0);
}
inline constexpr uint8_t Lam = node(Kind::Con, true, false);
inline constexpr uint8_t Tup = node(Kind::Con, true, true);
inline constexpr uint8_t App = node(Kind::Con, false, true);
inline constexpr uint8_t Unt = node(Kind::Con, false, false);
inline constexpr uint8_t Sup = node(Kind::Dup, true, true);
inline constexpr uint8_t Dup = node(Kind::Dup, false, false);
inline constexpr uint8_t Opr = node(Kind::Opr, false, true);
inline constexpr uint8_t Swi = node(Kind::Swi, false, true);
// Not a node of HVM2: a value (slot 0; slot 1 is unused) put off until it
// meets what another value meets, then joined with it (see joinValues).
inline constexpr uint8_t Join = node(Kind::Swi, false, false);
inline constexpr unsigned Count = 0x20;
} // namespace tag

BENDC_HD constexpr Term makeTerm(uint8_t t, uint64_t payload) { return (payload << 8) | t; }
BENDC_HD constexpr uint8_t tagOf(Term t) { return uint8_t(t & 0xFF); }
BENDC_HD constexpr uint64_t payloadOf(Term t) { return t >> 8; }

BENDC_HD constexpr bool isNodeTag(uint8_t t) { return (t & (tag::NodeBit | tag::PendBit)) == tag::NodeBit; }
BENDC_HD constexpr bool isNode(Term t) { return isNodeTag(tagOf(t)); }
BENDC_HD constexpr Kind kindOf(uint8_t t) { return Kind((t >> 2) & 3); }
/// Polarity of the term itself (of a node: of its principal port).
BENDC_HD constexpr bool isPositiveTag(uint8_t t) {
  return isNodeTag(t) ? (t & tag::PosBit) != 0
                      : (t == tag::Var || t == tag::VarAt || t == tag::Nul || t == tag::Num || t == tag::Ref);
}
BENDC_HD constexpr bool isPositive(Term t) { return isPositiveTag(tagOf(t)); }
/// Polarity of auxiliary slot `i` (0 or 1) of a node tag.
BENDC_HD constexpr bool auxPositive(uint8_t nodeTag, unsigned i) {
  return i == 0 ? (nodeTag & tag::Aux1PosBit) != 0 : (nodeTag & tag::PosBit) != 0;
}
/// The same node kind with every polarity flipped.
BENDC_HD constexpr uint8_t twinTag(uint8_t nodeTag) {
  return nodeTag ^ (tag::PosBit | tag::Aux1PosBit);
}

BENDC_HD constexpr Term nodeTerm(uint8_t nodeTag, Loc node) { return makeTerm(nodeTag, node); }
BENDC_HD constexpr Loc nodeOf(Term t) { return payloadOf(t); }
BENDC_HD constexpr Loc slotOf(Loc node, unsigned i) { return node * 2 + i; }
BENDC_HD constexpr Term varTerm(Loc negSlot) { return makeTerm(tag::Var, negSlot); }
/// The VAR of a VARAT (see tag::VarAt), any other term as it is.
BENDC_HD constexpr Term plainVar(Term t) { return tagOf(t) == tag::VarAt ? varTerm(payloadOf(t)) : t; }
/// An unbound variable. A SUB's payload, when not 0, is the slot its VAR
/// was written to when the wire was made (a shaped copy's steps write
/// such SUBs): only a hint, see `move` in runtime/common/Interact.h. Test
/// with isSub, never against subTerm().
BENDC_HD constexpr Term subTerm() { return makeTerm(tag::Sub, 0); }
BENDC_HD constexpr bool isSub(Term t) { return tagOf(t) == tag::Sub; }
BENDC_HD constexpr Term nulTerm() { return makeTerm(tag::Nul, 0); }
BENDC_HD constexpr Term eraTerm() { return makeTerm(tag::Era, 0); }
BENDC_HD constexpr Term numTerm(Numb n) { return makeTerm(tag::Num, n); }
BENDC_HD constexpr Term numNTerm(Numb n) { return makeTerm(tag::NumN, n); }
BENDC_HD constexpr Term refTerm(uint32_t def) { return makeTerm(tag::Ref, def); }
BENDC_HD constexpr Numb numOf(Term t) { return Numb(payloadOf(t)); }

/// A number (NUM) placed where the net, built node by node, would hold a
/// variable bound to it: an operator finding it as its operand counts the
/// interaction it would have counted waiting for the variable. The mark sits
/// above the number's 32 bits, so numOf and every rule ignore it (see Plan
/// in runtime/common/Book.h).
inline constexpr Term ThroughVarBit = Term(1) << 48;
BENDC_HD constexpr bool cameThroughVar(Term num) { return (num & ThroughVarBit) != 0; }
/// A value put where the built net holds a variable bound to it (a caller's
/// value in a call that fuses): a number gets the mark.
BENDC_HD constexpr Term throughVar(Term t) { return tagOf(t) == tag::Num ? t | ThroughVarBit : t; }
BENDC_HD constexpr uint32_t refOf(Term t) { return uint32_t(payloadOf(t)); }

BENDC_HD constexpr bool isPending(Term t) { return (t & tag::PendBit) != 0; }
BENDC_HD constexpr Term pendingTerm(Term pos) { return pos | tag::PendBit; }
BENDC_HD constexpr Term unpend(Term t) { return t & ~Term(tag::PendBit); }
/// A value found where a negative term could be: a positive term, or one
/// pending (what a clash leaves in a place).
BENDC_HD constexpr bool isValueOrPending(Term t) { return isPending(t) || isPositive(t); }

/// The twin of a leaf that has one (an eraser or a number) in the opposite
/// polarity; 0 for every other term.
BENDC_HD constexpr Term flipLeaf(Term t) {
  switch (tagOf(t)) {
  case tag::Nul: return eraTerm();
  case tag::Era: return nulTerm();
  case tag::Num: return makeTerm(tag::NumN, payloadOf(t));
  case tag::NumN: return makeTerm(tag::Num, payloadOf(t));
  default: return 0;
  }
}

/// A readable name for a tag, for messages.
inline const char *tagName(uint8_t t) {
  switch (t) {
  case tag::Free: return "an empty slot";
  case tag::Var:
  case tag::VarAt: return "a variable";
  case tag::Sub: return "an unbound variable";
  case tag::Nul: return "an eraser (positive)";
  case tag::Era: return "an eraser";
  case tag::Num: return "a number";
  case tag::NumN: return "a number (negative)";
  case tag::Ref: return "a reference";
  case tag::Lam: return "a lambda (LAM)";
  case tag::Tup: return "a pair (TUP)";
  case tag::App: return "an application (APP)";
  case tag::Unt: return "a pair pattern (UNT)";
  case tag::Sup: return "a superposition (SUP)";
  case tag::Dup: return "a duplication (DUP)";
  case tag::Opr: return "an operator (OPR)";
  case tag::Swi: return "a switch (SWI)";
  case tag::Join: return "a value put off (JOIN)";
  default: return isNodeTag(t) ? (isPositiveTag(t) ? "a positive node" : "a negative node") : "an unknown term";
  }
}

/// Node 0 is reserved: slot 0 is the root (a negative location that receives the
/// result), slot 1 is never used. Allocation starts at node 1.
inline constexpr Loc RootSlot = 0;
inline constexpr Loc FirstNode = 1;

} // namespace bendc::rt
