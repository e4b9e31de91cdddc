// The numeric operations of HVM2 2.0.22 (`cast` and `operate`), bit for bit,
// for both the host and a CUDA device.
//
// A number word reaching `operate` may be a plain number (u24, i24, f24), an
// operator or cast symbol (SYM) or a partially applied operator. The rules, in
// the order they are tried:
//
//   SYM  with SYM                 -> u24 0
//   cast with number (any side)   -> the number converted (see `cast`)
//   SYM  with anything else       -> partial(SYM, other): the other word's value
//                                    bits with the symbol's value as its type
//                                    (so a cast with a partial gives a number)
//   partial with partial          -> u24 0
//   number with number            -> u24 0
//   partial with number (any side)-> the operator applied, the partial's value
//                                    being the LEFT operand and the number the
//                                    right one, computed in the number's type.
//
// Partial values keep whatever bits they were made from; they are read back in
// the type of the number they meet (HVM2 does the same).
//
// HVM2 keeps a number in a 29-bit port payload, which drops bits 29..31 of every
// word `operate` returns (this is how 0xFFFFFF + 1 becomes 0 and how an i24
// reinterpreted as u24 loses its sign extension). Our terms carry the full 32
// bits, so the same truncation is applied here, to the inputs and to the result.
//
// Choices where HVM2's C code has undefined behaviour (division by zero traps on
// a CPU and gives a hardware-specific value on a GPU). The values below follow
// what NVIDIA GPUs give for 32-bit division by zero (an all-ones quotient, the
// dividend as remainder); they are computed explicitly, never left to the
// hardware, so that every target agrees:
//
//   u24  x / 0 = 0xFFFFFF    u24  x % 0 = x
//   i24  x / 0 = -1          i24  x % 0 = x
//
// (f24 division by zero is IEEE: +-inf, or NaN for 0/0; fmodf(x, 0) is NaN.)
// i24 -8388608 / -1 wraps to -8388608; i24 multiplication wraps modulo 2^24.
// Operations HVM2's C code does not list fall to its `default` case: i24 shifts
// (<<, >>, :<<, :>>) give i24 0; f24 :<< and :>> give f24 0.0; operator types
// 23..31 give 0 of the number's type.
#pragma once

#include "runtime/common/HostDevice.h"
#include "runtime/common/Numeric.h"

#include <math.h>
#include <stdint.h>

namespace bendc::rt::num {

/// The bits of a number word that HVM2 keeps: value:24 | type:5.
inline constexpr Numb WordMask = 0x1FFFFFFFu;

BENDC_HD constexpr Numb normalize(Numb n) { return n & WordMask; }

/// A plain number: u24, i24 or f24.
BENDC_HD constexpr bool isNum(Numb n) {
  uint32_t t = typeOf(n);
  return t >= TyU24 && t <= TyF24;
}

/// A cast symbol: [u24], [i24] or [f24].
BENDC_HD constexpr bool isCast(Numb n) {
  uint32_t s = symOf(n & WordMask);
  return typeOf(n) == TySym && s >= TyU24 && s <= TyF24;
}

namespace detail {

/// An i24 word from the low 24 bits of a two's complement value.
BENDC_HD constexpr Numb i24Bits(uint32_t bits) { return ((bits << 5) | TyI24) & WordMask; }
BENDC_HD constexpr Numb u24Word(uint32_t v) { return ((v << 5) | TyU24) & WordMask; }

/// float -> integer as HVM2 does it: NaN gives 0, otherwise clamp, then
/// truncate toward zero.
BENDC_HD float clampFloat(float x, float lo, float hi) {
  float t = x < lo ? lo : x;
  return t > hi ? hi : t;
}

BENDC_HD Numb operateU24(uint32_t op, uint32_t av, uint32_t bv) {
  switch (op) {
  case OpAdd: return u24Word(av + bv);
  case OpSub: return u24Word(av - bv);
  case FpSub: return u24Word(bv - av);
  case OpMul: return u24Word(av * bv);
  case OpDiv: return u24Word(bv == 0 ? 0xFFFFFFu : av / bv);
  case FpDiv: return u24Word(av == 0 ? 0xFFFFFFu : bv / av);
  case OpRem: return u24Word(bv == 0 ? av : av % bv);
  case FpRem: return u24Word(av == 0 ? bv : bv % av);
  case OpEq: return u24Word(av == bv);
  case OpNeq: return u24Word(av != bv);
  case OpLt: return u24Word(av < bv);
  case OpGt: return u24Word(av > bv);
  case OpAnd: return u24Word(av & bv);
  case OpOr: return u24Word(av | bv);
  case OpXor: return u24Word(av ^ bv);
  case OpShl: return u24Word(av << (bv & 31));
  case FpShl: return u24Word(bv << (av & 31));
  case OpShr: return u24Word(av >> (bv & 31));
  case FpShr: return u24Word(bv >> (av & 31));
  default: return u24Word(0);
  }
}

/// Signed division and remainder of two 24-bit values. The quotient of 24-bit
/// operands always fits in 32 bits (-8388608 / -1 = 8388608), so no overflow.
BENDC_HD uint32_t divI24(int32_t x, int32_t y) { return y == 0 ? 0xFFFFFFFFu : uint32_t(x / y); }
BENDC_HD uint32_t remI24(int32_t x, int32_t y) { return y == 0 ? uint32_t(x) : uint32_t(x % y); }

BENDC_HD Numb operateI24(uint32_t op, int32_t av, int32_t bv) {
  // Wrapping arithmetic is done on the unsigned bit patterns.
  uint32_t au = uint32_t(av), bu = uint32_t(bv);
  switch (op) {
  case OpAdd: return i24Bits(au + bu);
  case OpSub: return i24Bits(au - bu);
  case FpSub: return i24Bits(bu - au);
  case OpMul: return i24Bits(au * bu);
  case OpDiv: return i24Bits(divI24(av, bv));
  case FpDiv: return i24Bits(divI24(bv, av));
  case OpRem: return i24Bits(remI24(av, bv));
  case FpRem: return i24Bits(remI24(bv, av));
  case OpEq: return u24Word(av == bv);
  case OpNeq: return u24Word(av != bv);
  case OpLt: return u24Word(av < bv);
  case OpGt: return u24Word(av > bv);
  case OpAnd: return i24Bits(au & bu);
  case OpOr: return i24Bits(au | bu);
  case OpXor: return i24Bits(au ^ bu);
  default: return i24Bits(0);
  }
}

// atan2, log and pow: CUDA's float versions may be 2 ulp off, which the f24
// rounding turns into a different f24 number about once in a hundred
// results. On a device they are taken in double precision and rounded once,
// which gives the correctly rounded float (what the host's libm gives nearly
// always) in all but a vanishing fraction of cases: every backend prints
// the same bits.
BENDC_HD float atan2F24(float a, float b) {
#if defined(__CUDA_ARCH__)
  return float(::atan2(double(a), double(b)));
#else
  return ::atan2f(a, b);
#endif
}
BENDC_HD float logF24(float a) {
#if defined(__CUDA_ARCH__)
  return float(::log(double(a)));
#else
  return ::logf(a);
#endif
}
BENDC_HD float powF24(float a, float b) {
#if defined(__CUDA_ARCH__)
  return float(::pow(double(a), double(b)));
#else
  return ::powf(a, b);
#endif
}

BENDC_HD Numb operateF24(uint32_t op, float av, float bv) {
  switch (op) {
  case OpAdd: return makeF24(av + bv);
  case OpSub: return makeF24(av - bv);
  case FpSub: return makeF24(bv - av);
  case OpMul: return makeF24(av * bv);
  case OpDiv: return makeF24(av / bv);
  case FpDiv: return makeF24(bv / av);
  case OpRem: return makeF24(::fmodf(av, bv));
  case FpRem: return makeF24(::fmodf(bv, av));
  case OpEq: return u24Word(av == bv);
  case OpNeq: return u24Word(av != bv);
  case OpLt: return u24Word(av < bv);
  case OpGt: return u24Word(av > bv);
  case OpAnd: return makeF24(atan2F24(av, bv));
  case OpOr: return makeF24(logF24(bv) / logF24(av)); // log base av of bv
  case OpXor: return makeF24(powF24(av, bv));
  // The sum is a float; sine and tangent are taken in double precision and
  // rounded back to float before the f24 rounding, as HVM2's C code does.
  case OpShl: return makeF24(float(::sin(double(av + bv))));
  case OpShr: return makeF24(float(::tan(double(av + bv))));
  default: return makeF24(0.0f);
  }
}

} // namespace detail

/// Converts the number `value` to the type named by the cast symbol `castSym`:
/// i24 <-> u24 reinterpret the 24 bits; f24 -> u24/i24 truncate toward zero,
/// saturating, with NaN giving 0; u24/i24 -> f24 round to the nearest f24; a
/// cast to the number's own type returns it. Anything else gives u24 0.
BENDC_HD Numb cast(Numb castSym, Numb value) {
  Numb a = castSym & WordMask, b = value & WordMask;
  uint32_t to = symOf(a), from = typeOf(b);
  if (to == TyU24) {
    if (from == TyU24) return b;
    if (from == TyI24) return detail::u24Word(uint32_t(i24Of(b)));
    if (from == TyF24) {
      float v = f24Of(b);
      if (v != v) return detail::u24Word(0);
      return detail::u24Word(uint32_t(detail::clampFloat(v, 0.0f, 16777215.0f)));
    }
  }
  if (to == TyI24) {
    if (from == TyU24) return detail::i24Bits(u24Of(b));
    if (from == TyI24) return b;
    if (from == TyF24) {
      float v = f24Of(b);
      if (v != v) return detail::i24Bits(0);
      return detail::i24Bits(uint32_t(int32_t(detail::clampFloat(v, -8388608.0f, 8388607.0f))));
    }
  }
  if (to == TyF24) {
    if (from == TyU24) return makeF24(float(u24Of(b))) & WordMask;
    if (from == TyI24) return makeF24(float(i24Of(b))) & WordMask;
    if (from == TyF24) return b;
  }
  return detail::u24Word(0);
}

/// HVM2's `operate(a, b)`: `a` is the number that reached an OPR node's
/// principal port, `b` the number held in its first slot. See the file comment.
BENDC_HD Numb operate(Numb a, Numb b) {
  a &= WordMask;
  b &= WordMask;
  uint32_t at = typeOf(a), bt = typeOf(b);
  if (at == TySym && bt == TySym) return detail::u24Word(0);
  if (isCast(a) && isNum(b)) return cast(a, b);
  if (isCast(b) && isNum(a)) return cast(b, a);
  if (at == TySym) return partial(a, b) & WordMask;
  if (bt == TySym) return partial(b, a) & WordMask;
  if (at >= OpAdd && bt >= OpAdd) return detail::u24Word(0);
  if (at < OpAdd && bt < OpAdd) return detail::u24Word(0);
  // One side is a partial operator; its value is the left operand.
  uint32_t op = at, ty = bt;
  Numb x = a, y = b;
  if (at < OpAdd) {
    op = bt;
    ty = at;
    x = b;
    y = a;
  }
  switch (ty) {
  case TyU24: return detail::operateU24(op, u24Of(x), u24Of(y));
  case TyI24: return detail::operateI24(op, i24Of(x), i24Of(y));
  case TyF24: return detail::operateF24(op, f24Of(x), f24Of(y)) & WordMask;
  default: return detail::u24Word(0);
  }
}

/// `operate` with its most common case inline: an operator partially applied
/// to a u24 meeting a u24 (`$([+1] x)`, a plan's `[*2]`). The rest, and the
/// rare types, go through `operate`, out of line.
BENDC_HD_HOT Numb operateCommon(Numb a, Numb b) {
  uint32_t at = typeOf(a), bt = typeOf(b);
  if (at == TyU24 && bt >= OpAdd)
    return detail::operateU24(bt, u24Of(b & WordMask), u24Of(a & WordMask));
  if (bt == TyU24 && at >= OpAdd)
    return detail::operateU24(at, u24Of(a & WordMask), u24Of(b & WordMask));
  return operate(a, b);
}

} // namespace bendc::rt::num
