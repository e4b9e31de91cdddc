// Host access to a quiescent net: what code outside the reducer (the IO
// protocol, foreign functions) needs to read values out of net memory, build
// new ones and hand redexes back to the reducer. A backend implements it over
// its own memory; between two calls of `reduce` no rule runs, so the host is
// the only one touching the net.
#pragma once

#include "runtime/common/Book.h"
#include "runtime/common/Interact.h"
#include "runtime/common/Term.h"

#include <cstdint>

namespace bendc::rt {

class NetHost {
public:
  virtual ~NetHost() = default;

  virtual const Book &book() const = 0;
  virtual Term load(Loc slot) = 0;
  virtual void store(Loc slot, Term t) = 0;
  /// Makes sure `n` nodes can be allocated; false when memory ran out (the
  /// run has then failed with OutOfMemory).
  virtual bool reserve(uint64_t n) = 0;
  virtual Loc alloc() = 0;
  /// Gives back a node whose both slots the host consumed.
  virtual void release(Loc node) = 0;
  /// The substitution entry in `slot` was read by the end of its wire: the
  /// slot is dead (its node is freed with its other slot).
  virtual void killSlot(Loc slot) = 0;
  /// Joins a negative term with a positive one; the redex, if any, waits for
  /// the next `reduce`.
  virtual void link(Term neg, Term pos) = 0;
  /// Copies definition `id` into the net (counted as a call); returns its
  /// positive root. Its redexes wait for the next `reduce`.
  virtual Term expandRef(uint32_t id) = 0;
  /// Reduces every pending redex; false when the run failed (out of memory,
  /// a fault, an interrupt).
  virtual bool reduce() = 0;
};

/// The part of NetHost every backend writes the same way: memory, nodes,
/// links and expansions through a context `Ctx` of runtime/common/Interact.h
/// that the host may use between reductions. A backend adds `reserve` and
/// `reduce`.
template <class Ctx> class CtxNetHost : public NetHost {
public:
  CtxNetHost(const Book &book, Ctx &ctx) : book_(book), ctx(ctx) {}

  const Book &book() const override { return book_; }
  Term load(Loc slot) override { return plainVar(ctx.load(slot)); } // a VARAT as its VAR
  void store(Loc slot, Term t) override { ctx.store(slot, t); }
  Loc alloc() override { return ctx.alloc(); }
  // The host reads a VARAT as its VAR without claiming it (see
  // detail::take): where values are written through, a node it consumed is
  // cleared, so that no value is ever written into it.
  void release(Loc node) override {
    if constexpr (WritesThrough<Ctx>) {
      ctx.store(slotOf(node, 0), detail::claimedTerm());
      ctx.store(slotOf(node, 1), detail::claimedTerm());
    }
    ctx.release(node);
  }
  void killSlot(Loc slot) override { detail::killSlot(ctx, slot); }
  void link(Term neg, Term pos) override { rt::link(ctx, neg, pos); }
  Term expandRef(uint32_t id) override {
    ctx.count(Rule::Call);
    return expand(ctx, id);
  }

protected:
  const Book &book_;
  Ctx &ctx;
};

/// A CtxNetHost whose context reserves nodes itself and reduces with its
/// member `Reduce` (one that reduces every pending redex, with whatever
/// threads or processes take part).
template <class Ctx, bool (Ctx::*Reduce)()> class ReducingNetHost final : public CtxNetHost<Ctx> {
public:
  using CtxNetHost<Ctx>::CtxNetHost;
  bool reserve(uint64_t n) override { return this->ctx.reserve(n); }
  bool reduce() override { return (this->ctx.*Reduce)(); }
};

} // namespace bendc::rt
