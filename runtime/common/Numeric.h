// HVM2's 32-bit number word, bit-compatible with HVM2 2.0.22:
//
//   Numb ::= value:24 | type:5    (the low 5 bits say what the word is)
//
// type 0 (SYM) holds an operator or a cast in `value` ([+], [u24]); types 1..3
// are u24, i24 and f24 values; types 4..22 are partially applied operators
// ([+1] = OP_ADD with value 1). f24 is an IEEE single with the low 8 mantissa
// bits dropped (rounded to nearest, ties to even).
#pragma once

#include "runtime/common/HostDevice.h"
#include "runtime/common/Term.h"

#include <cstdint>
#include <cstring>

namespace bendc::rt::num {

// Types (the low 5 bits).
inline constexpr uint32_t TySym = 0x00;
inline constexpr uint32_t TyU24 = 0x01;
inline constexpr uint32_t TyI24 = 0x02;
inline constexpr uint32_t TyF24 = 0x03;
// Operators; the `Fp` ("flipped") ones take their operands in the other order.
inline constexpr uint32_t OpAdd = 0x04;
inline constexpr uint32_t OpSub = 0x05;
inline constexpr uint32_t FpSub = 0x06;
inline constexpr uint32_t OpMul = 0x07;
inline constexpr uint32_t OpDiv = 0x08;
inline constexpr uint32_t FpDiv = 0x09;
inline constexpr uint32_t OpRem = 0x0A;
inline constexpr uint32_t FpRem = 0x0B;
inline constexpr uint32_t OpEq = 0x0C;
inline constexpr uint32_t OpNeq = 0x0D;
inline constexpr uint32_t OpLt = 0x0E;
inline constexpr uint32_t OpGt = 0x0F;
inline constexpr uint32_t OpAnd = 0x10;
inline constexpr uint32_t OpOr = 0x11;
inline constexpr uint32_t OpXor = 0x12;
inline constexpr uint32_t OpShl = 0x13;
inline constexpr uint32_t FpShl = 0x14;
inline constexpr uint32_t OpShr = 0x15;
inline constexpr uint32_t FpShr = 0x16;
inline constexpr uint32_t LastOp = FpShr;

BENDC_HD constexpr uint32_t typeOf(Numb n) { return n & 0x1F; }
BENDC_HD constexpr Numb makeSym(uint32_t sym) { return (sym << 5) | TySym; }
BENDC_HD constexpr uint32_t symOf(Numb n) { return n >> 5; }
BENDC_HD constexpr Numb makeU24(uint32_t v) { return (v << 5) | TyU24; }
BENDC_HD constexpr uint32_t u24Of(Numb n) { return n >> 5; }
BENDC_HD constexpr Numb makeI24(int32_t v) { return (uint32_t(v) << 5) | TyI24; }
BENDC_HD constexpr int32_t i24Of(Numb n) { return int32_t(n << 3) >> 8; }

BENDC_HD uint32_t floatBits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
BENDC_HD float bitsFloat(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
BENDC_HD Numb makeF24(float f) {
  uint32_t bits = floatBits(f);
  bool nan = f != f;
  uint32_t shifted = bits >> 8;
  uint32_t lost = bits & 0xFF;
  // Round to nearest, ties to even; a NaN keeps a mantissa bit so it stays NaN.
  shifted += uint32_t(!nan) & ((lost - ((lost >> 7) & uint32_t(!shifted))) >> 7);
  shifted |= uint32_t(nan);
  return (shifted << 5) | TyF24;
}
BENDC_HD float f24Of(Numb n) { return bitsFloat((n << 3) & 0xFFFFFF00u); }

/// A partially applied operator: the operator of `op` (a SYM) with the value of `arg`.
BENDC_HD constexpr Numb partial(Numb op, Numb arg) { return (arg & ~0x1Fu) | symOf(op); }

} // namespace bendc::rt::num
