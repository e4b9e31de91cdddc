// The interaction rules and the rule table. A redex always joins a negative
// term (left) and a positive term (right); the table gives the rule for each
// pair of tags. Rules and counting follow HVM2: every rule counts as one
// interaction, linking wires does not.
#pragma once

#include "runtime/common/HostDevice.h"
#include "runtime/common/Term.h"

#include <cstdint>

namespace bendc::rt {

#define BENDC_RULES(X)                                                                         \
  X(Call, "call", "a reference meets a node: the definition is expanded")                    \
  X(Void, "void", "two leaves meet (eraser, number, reference): both vanish")                \
  X(Eras, "eras", "an eraser, a number or a copyable reference meets a node: it is copied")  \
  X(Anni, "anni", "two nodes of the same kind meet: their ports are joined")                 \
  X(Comm, "comm", "two nodes of different kinds meet: each is copied past the other")        \
  X(Oper, "oper", "a number meets an operator node")                                          \
  X(Swit, "swit", "a number meets a switch node")

enum class Rule : uint8_t {
#define BENDC_RULE_ENUM(Name, Text, Doc) Name,
  BENDC_RULES(BENDC_RULE_ENUM)
#undef BENDC_RULE_ENUM
  Invalid,
};
inline constexpr unsigned RuleCount = unsigned(Rule::Invalid);

/// The rule for a redex `neg ~ pos`, from the two tags alone. Call becomes a
/// copy (counted as Eras) at run time when a DUP meets a safe definition.
BENDC_HD constexpr Rule ruleFor(uint8_t neg, uint8_t pos) {
  if (isPositiveTag(neg) || !isPositiveTag(pos) || pos == tag::Var || pos == tag::VarAt)
    return Rule::Invalid;
  bool posLeaf = !isNodeTag(pos);
  if (neg == tag::Era)
    return posLeaf ? Rule::Void : Rule::Eras;
  if (neg == tag::NumN) {
    if (posLeaf)
      return Rule::Void;
    // The positive twins of operator and switch nodes (a copy placed where a
    // value is consumed) take a number as HVM2's OPR and SWI do.
    if (kindOf(pos) == Kind::Opr)
      return Rule::Oper;
    if (kindOf(pos) == Kind::Swi)
      return Rule::Swit;
    return Rule::Eras;
  }
  if (!isNodeTag(neg))
    return Rule::Invalid; // SUB is a location, never half of a redex
  if (neg == tag::Join)
    return pos == tag::Ref ? Rule::Call : Rule::Anni; // expanded, then joined
  if (pos == tag::Nul)
    return Rule::Eras;
  if (pos == tag::Ref)
    return Rule::Call;
  if (pos == tag::Num) {
    if (kindOf(neg) == Kind::Opr)
      return Rule::Oper;
    if (kindOf(neg) == Kind::Swi)
      return Rule::Swit;
    return Rule::Eras;
  }
  return kindOf(neg) == kindOf(pos) ? Rule::Anni : Rule::Comm;
}

/// All rules at once: RuleTable::get(neg, pos), for dispatch in hot loops.
struct RuleTable {
  Rule rules[tag::Count][tag::Count];
  constexpr RuleTable() : rules{} {
    for (unsigned n = 0; n < tag::Count; ++n)
      for (unsigned p = 0; p < tag::Count; ++p)
        rules[n][p] = ruleFor(uint8_t(n), uint8_t(p));
  }
};

} // namespace bendc::rt
