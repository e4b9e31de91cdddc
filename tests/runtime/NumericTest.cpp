// HVM2-exact numbers: operate, cast, printing and parsing.
#include "runtime/common/NumericText.h"
#include "runtime/common/Operate.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

using bendc::rt::Numb;
using namespace bendc::rt::num;

namespace {

Numb U(uint32_t v) { return normalize(makeU24(v)); }
Numb I(int32_t v) { return normalize(makeI24(v)); }
Numb F(float f) { return normalize(makeF24(f)); }
Numb S(uint32_t s) { return makeSym(s); }
Numb P(uint32_t op, Numb value) { return partial(S(op), value); }

/// `x op y` the way a net computes `x ~ $([op] $(y r))`: the first number meets
/// the operator symbol (making a partial), then the partial meets `y`.
Numb bin(uint32_t op, Numb x, Numb y) { return operate(operate(x, S(op)), y); }

Numb lit(const char *text) {
  auto n = parseNumbLiteral(text);
  REQUIRE_MESSAGE(n.has_value(), text);
  return *n;
}
Numb sym(const char *text) {
  auto n = parseNumbSymbol(text);
  REQUIRE_MESSAGE(n.has_value(), text);
  return *n;
}

/// `x ~ $(b $(c r))` evaluated as HVM2's OPR interaction does: the number at the
/// principal port is operate's first argument, the node's first slot its second.
Numb net2(Numb x, Numb b, Numb c) { return operate(operate(x, b), c); }

uint32_t f24Bits(Numb n) { return (n << 3) & 0xFFFFFF00u; }
float floatOfBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
bool isF24NaN(Numb n) {
  float f = f24Of(n);
  return typeOf(n) == TyF24 && f != f;
}

} // namespace

TEST_CASE("u24: every operator on 10 and 2 (HVM2 numerics/u24 snapshot)") {
  struct Case {
    const char *op;
    const char *want;
  } cases[] = {{"+", "12"}, {"-", "8"},  {"*", "20"}, {"/", "5"}, {"%", "0"},   {"=", "0"},  {"!", "1"},
               {"<", "0"},  {">", "1"},  {"&", "2"},  {"|", "10"}, {"^", "8"}, {"<<", "40"}, {">>", "2"}};
  for (const auto &c : cases) {
    CAPTURE(c.op);
    CHECK(showNumb(net2(lit("10"), sym(c.op), lit("2"))) == c.want);
  }
  CHECK(showNumb(net2(lit("0"), sym("-"), lit("1"))) == "16777215");
  CHECK(showNumb(net2(lit("16777215"), sym("+"), lit("1"))) == "0");
  CHECK(showNumb(net2(lit("16777215"), sym(">>"), lit("22"))) == "3");
}

TEST_CASE("u24 arithmetic edge cases") {
  CHECK(bin(OpSub, U(0), U(1)) == U(0xFFFFFF));
  CHECK(bin(OpAdd, U(0xFFFFFF), U(1)) == U(0));
  CHECK(bin(OpAdd, U(0xFFFFFF), U(0xFFFFFF)) == U(0xFFFFFE));
  CHECK(bin(FpSub, U(10), U(2)) == U(0xFFFFF8)); // 2 - 10
  CHECK(bin(FpSub, U(2), U(10)) == U(8));
  CHECK(bin(OpMul, U(0x1000), U(0x1000)) == U(0));
  CHECK(bin(OpMul, U(4097), U(4097)) == U(8193));
  CHECK(bin(OpMul, U(0xFFFFFF), U(0xFFFFFF)) == U(1));
  CHECK(bin(OpDiv, U(7), U(2)) == U(3));
  CHECK(bin(FpDiv, U(2), U(7)) == U(3)); // 7 / 2
  CHECK(bin(OpRem, U(7), U(3)) == U(1));
  CHECK(bin(FpRem, U(3), U(7)) == U(1)); // 7 % 3
  CHECK(bin(OpDiv, U(0xFFFFFF), U(0xFFFFFF)) == U(1));
  // Division by zero (undefined in HVM2's C; defined here).
  CHECK(bin(OpDiv, U(7), U(0)) == U(0xFFFFFF));
  CHECK(bin(OpDiv, U(0), U(0)) == U(0xFFFFFF));
  CHECK(bin(FpDiv, U(0), U(7)) == U(0xFFFFFF));
  CHECK(bin(OpRem, U(7), U(0)) == U(7));
  CHECK(bin(OpRem, U(0), U(0)) == U(0));
  CHECK(bin(FpRem, U(0), U(7)) == U(7));
  // Comparisons are unsigned and give u24 0/1.
  CHECK(bin(OpLt, U(0), U(0xFFFFFF)) == U(1));
  CHECK(bin(OpGt, U(0xFFFFFF), U(0)) == U(1));
  CHECK(bin(OpGt, U(5), U(5)) == U(0));
  CHECK(bin(OpEq, U(5), U(5)) == U(1));
  CHECK(bin(OpNeq, U(5), U(5)) == U(0));
  // Bitwise.
  CHECK(bin(OpAnd, U(0xF0F0F0), U(0xFF00FF)) == U(0xF000F0));
  CHECK(bin(OpOr, U(0xF0F0F0), U(0x0F0000)) == U(0xFFF0F0));
  CHECK(bin(OpXor, U(0xFFFFFF), U(0x00FF00)) == U(0xFF00FF));
}

TEST_CASE("u24 shifts take the count modulo 32") {
  CHECK(bin(OpShl, U(1), U(0)) == U(1));
  CHECK(bin(OpShl, U(1), U(23)) == U(0x800000));
  CHECK(bin(OpShl, U(1), U(24)) == U(0));
  CHECK(bin(OpShl, U(3), U(23)) == U(0x800000));
  CHECK(bin(OpShl, U(1), U(31)) == U(0));
  CHECK(bin(OpShl, U(1), U(32)) == U(1));
  CHECK(bin(OpShl, U(5), U(33)) == U(10));
  CHECK(bin(OpShr, U(0xFFFFFF), U(0)) == U(0xFFFFFF));
  CHECK(bin(OpShr, U(0xFFFFFF), U(23)) == U(1));
  CHECK(bin(OpShr, U(0xFFFFFF), U(24)) == U(0));
  CHECK(bin(OpShr, U(0xFFFFFF), U(31)) == U(0));
  CHECK(bin(OpShr, U(0xFFFFFF), U(32)) == U(0xFFFFFF));
  // Flipped: the count is the left operand.
  CHECK(bin(FpShl, U(4), U(3)) == U(48));  // 3 << 4
  CHECK(bin(FpShr, U(1), U(48)) == U(24)); // 48 >> 1
  CHECK(bin(FpShl, U(32), U(3)) == U(3));
}

TEST_CASE("i24: every operator on +10 and +2 (HVM2 numerics/i24 snapshot)") {
  struct Case {
    const char *op;
    const char *want;
  } cases[] = {{"+", "+12"}, {"-", "+8"}, {"*", "+20"}, {"/", "+5"}, {"%", "+0"},  {"=", "0"},
               {"!", "1"},   {"<", "0"},  {">", "1"},   {"&", "+2"}, {"|", "+10"}, {"^", "+8"}};
  for (const auto &c : cases) {
    CAPTURE(c.op);
    CHECK(showNumb(net2(lit("+10"), sym(c.op), lit("+2"))) == c.want);
  }
  CHECK(showNumb(net2(lit("-8388608"), sym("-"), lit("+1"))) == "+8388607");
  CHECK(showNumb(net2(lit("+8388607"), sym("+"), lit("+1"))) == "-8388608");
  CHECK(showNumb(net2(lit("+3"), sym("%"), lit("+2"))) == "+1");
  CHECK(showNumb(net2(lit("+3"), sym("%"), lit("-2"))) == "+1");
  CHECK(showNumb(net2(lit("-3"), sym("%"), lit("+2"))) == "-1");
  CHECK(showNumb(net2(lit("-3"), sym("%"), lit("-2"))) == "-1");
}

TEST_CASE("i24 arithmetic edge cases") {
  CHECK(bin(OpAdd, I(8388607), I(1)) == I(-8388608));
  CHECK(bin(OpSub, I(-8388608), I(1)) == I(8388607));
  CHECK(bin(FpSub, I(10), I(2)) == I(-8)); // 2 - 10
  CHECK(bin(OpMul, I(4096), I(4096)) == I(0));
  CHECK(bin(OpMul, I(4096), I(2048)) == I(-8388608));
  CHECK(bin(OpMul, I(8388607), I(8388607)) == I(1));
  CHECK(bin(OpMul, I(-8388608), I(-1)) == I(-8388608));
  CHECK(bin(OpMul, I(-3), I(7)) == I(-21));
  CHECK(bin(OpMul, I(-1), I(-1)) == I(1));
  // Division truncates toward zero; the remainder has the dividend's sign.
  CHECK(bin(OpDiv, I(-7), I(2)) == I(-3));
  CHECK(bin(OpDiv, I(7), I(-2)) == I(-3));
  CHECK(bin(OpDiv, I(-7), I(-2)) == I(3));
  CHECK(bin(OpRem, I(-7), I(2)) == I(-1));
  CHECK(bin(OpRem, I(7), I(-2)) == I(1));
  CHECK(bin(FpDiv, I(2), I(-7)) == I(-3)); // -7 / 2
  CHECK(bin(FpRem, I(2), I(-7)) == I(-1)); // -7 % 2
  CHECK(bin(OpDiv, I(-8388608), I(-1)) == I(-8388608));
  CHECK(bin(OpRem, I(-8388608), I(-1)) == I(0));
  // Division by zero (undefined in HVM2's C; defined here).
  CHECK(bin(OpDiv, I(5), I(0)) == I(-1));
  CHECK(bin(OpDiv, I(-5), I(0)) == I(-1));
  CHECK(bin(OpDiv, I(0), I(0)) == I(-1));
  CHECK(bin(FpDiv, I(0), I(5)) == I(-1));
  CHECK(bin(OpRem, I(5), I(0)) == I(5));
  CHECK(bin(OpRem, I(-5), I(0)) == I(-5));
  CHECK(bin(FpRem, I(0), I(-5)) == I(-5));
  // Comparisons are signed and give u24 0/1.
  CHECK(bin(OpLt, I(-1), I(0)) == U(1));
  CHECK(bin(OpGt, I(-1), I(0)) == U(0));
  CHECK(bin(OpGt, I(8388607), I(-8388608)) == U(1));
  CHECK(bin(OpEq, I(-4), I(-4)) == U(1));
  CHECK(bin(OpNeq, I(-4), I(-4)) == U(0));
  CHECK(showNumb(bin(OpEq, I(-4), I(-4))) == "1");
  // Bitwise on two's complement.
  CHECK(bin(OpAnd, I(-1), I(5)) == I(5));
  CHECK(bin(OpOr, I(-8), I(3)) == I(-5));
  CHECK(bin(OpXor, I(-1), I(1)) == I(-2));
  // HVM2 has no i24 shifts: they fall to its default case, i24 0.
  CHECK(bin(OpShl, I(1), I(2)) == I(0));
  CHECK(bin(OpShr, I(-8), I(1)) == I(0));
  CHECK(bin(FpShl, I(1), I(2)) == I(0));
  CHECK(bin(FpShr, I(1), I(2)) == I(0));
}

TEST_CASE("f24: HVM2 numerics/f24 snapshot") {
  Numb half = net2(lit("1.0"), sym("/"), lit("2.0"));
  Numb nan = net2(lit("0.0"), sym("/"), lit("0.0"));
  CHECK(half == F(0.5f));
  CHECK(isF24NaN(nan));
  struct Case {
    Numb x;
    const char *op;
    Numb y;
    const char *want;
  } cases[] = {
      {lit("1.0"), "/", lit("0.0"), "+inf"},
      {lit("-1.0"), "/", lit("0.0"), "-inf"},
      {lit("0.0"), "/", lit("0.0"), "+NaN"},
      {half, "+", lit("2.0"), "2.5"},
      {half, "-", lit("2.0"), "-1.5"},
      {half, "*", lit("2.3"), "1.1499939"},
      {half, "/", lit("2.0"), "0.25"},
      {half, "%", lit("2.0"), "0.5"},
      {half, "=", lit("2.0"), "0"},
      {half, "!", lit("2.0"), "1"},
      {half, "<", lit("2.0"), "1"},
      {half, ">", lit("2.0"), "0"},
      {nan, "=", nan, "0"},
      {nan, "<", nan, "0"},
      {nan, ">", nan, "0"},
      {lit("+NaN"), "+", lit("0.0"), "+NaN"},
      {lit("+inf"), "+", lit("0.0"), "+inf"},
      {lit("-inf"), "+", lit("0.0"), "-inf"},
      {lit("1.02"), "+", lit("0.0"), "1.019989"},
      {lit("+1.2"), "%", lit("+1.1"), "0.1000061"},
      {lit("+1.2"), "%", lit("-1.1"), "0.1000061"},
      {lit("-1.2"), "%", lit("+1.1"), "-0.1000061"},
      {lit("-1.2"), "%", lit("-1.1"), "-0.1000061"},
      {lit("+0.0"), "<<", lit("+3.14159265"), "-8.908799e-6"},
      {lit("+1.570796325"), "<<", lit("+0.0"), "1.0"},
      {lit("+0.0"), ">>", lit("+3.14159265"), "8.908799e-6"},
      {lit("+0.785398162"), ">>", lit("+0.0"), "1.0"},
  };
  for (const auto &c : cases) {
    CAPTURE(c.op);
    CAPTURE(c.want);
    CHECK(showNumb(net2(c.x, sym(c.op), c.y)) == c.want);
  }
}

TEST_CASE("f24 operators") {
  CHECK(bin(OpAdd, F(0.5f), F(2.0f)) == F(2.5f));
  CHECK(bin(FpSub, F(0.5f), F(2.0f)) == F(1.5f)); // 2.0 - 0.5
  CHECK(bin(FpDiv, F(2.0f), F(1.0f)) == F(0.5f)); // 1.0 / 2.0
  CHECK(bin(FpRem, F(2.0f), F(5.0f)) == F(1.0f)); // fmodf(5, 2)
  CHECK(bin(OpMul, F(-3.0f), F(0.5f)) == F(-1.5f));
  // IEEE division by zero and fmodf's NaNs.
  CHECK(bin(OpDiv, F(1.0f), F(0.0f)) == F(INFINITY));
  CHECK(bin(OpDiv, F(1.0f), F(-0.0f)) == F(-INFINITY));
  CHECK(bin(OpDiv, F(-1.0f), F(0.0f)) == F(-INFINITY));
  CHECK(isF24NaN(bin(OpDiv, F(0.0f), F(0.0f))));
  CHECK(isF24NaN(bin(OpRem, F(1.0f), F(0.0f))));
  CHECK(isF24NaN(bin(OpRem, F(INFINITY), F(1.0f))));
  CHECK(bin(OpRem, F(-5.5f), F(2.0f)) == F(-1.5f));
  CHECK(bin(OpRem, F(5.5f), F(-2.0f)) == F(1.5f));
  CHECK(isF24NaN(bin(OpSub, F(INFINITY), F(INFINITY))));
  CHECK(bin(OpMul, F(1e30f), F(1e30f)) == F(INFINITY));
  // Comparisons give u24; NaN compares unequal to everything.
  Numb nan = F(NAN);
  CHECK(bin(OpEq, nan, nan) == U(0));
  CHECK(bin(OpNeq, nan, nan) == U(1));
  CHECK(bin(OpLt, nan, F(1.0f)) == U(0));
  CHECK(bin(OpGt, nan, F(1.0f)) == U(0));
  CHECK(bin(OpEq, F(1.0f), nan) == U(0));
  CHECK(bin(OpNeq, F(1.0f), nan) == U(1));
  CHECK(bin(OpEq, F(0.0f), F(-0.0f)) == U(1));
  CHECK(bin(OpLt, F(-INFINITY), F(INFINITY)) == U(1));
  // & is atan2, | is a logarithm (base: left operand), ^ is a power.
  CHECK(showNumb(bin(OpAnd, F(1.0f), F(1.0f))) == "0.7854004");
  CHECK(showNumb(bin(OpAnd, F(1.0f), F(-1.0f))) == "2.3562012");
  CHECK(bin(OpAnd, F(0.0f), F(-1.0f)) == F(3.14159265f));
  CHECK(bin(OpOr, F(2.0f), F(8.0f)) == F(3.0f));
  CHECK(bin(OpOr, F(10.0f), F(1000.0f)) == F(3.0f));
  CHECK(bin(OpOr, F(2.0f), F(0.0f)) == F(-INFINITY));
  CHECK(isF24NaN(bin(OpOr, F(2.0f), F(-1.0f))));
  CHECK(bin(OpXor, F(2.0f), F(10.0f)) == F(1024.0f));
  CHECK(bin(OpXor, F(4.0f), F(0.5f)) == F(2.0f));
  CHECK(bin(OpXor, F(NAN), F(0.0f)) == F(1.0f));
  CHECK(isF24NaN(bin(OpXor, F(-8.0f), F(0.5f))));
  // << is sin(a + b) and >> is tan(a + b), taken in double precision.
  CHECK(bin(OpShl, F(0.0f), F(0.0f)) == F(0.0f));
  CHECK(bin(OpShl, F(0.5f), F(0.5f)) == F(0.84147098f));
  CHECK(bin(OpShr, F(0.5f), F(0.5f)) == F(1.5574077f));
  // The flipped trigonometric operators are not defined: f24 0.0.
  CHECK(bin(FpShl, F(1.0f), F(2.0f)) == F(0.0f));
  CHECK(bin(FpShr, F(1.0f), F(2.0f)) == F(0.0f));
}

TEST_CASE("f24 rounding (HVM2's formula: ties round away from zero, except to 0)") {
  auto word = [](uint32_t floatBits) { return F(floatOfBits(floatBits)); };
  CHECK(f24Bits(word(0x3F800000)) == 0x3F800000);
  CHECK(f24Bits(word(0x3F80007F)) == 0x3F800000); // below half: down
  CHECK(f24Bits(word(0x3F800080)) == 0x3F800100); // tie on an even f24: still up
  CHECK(f24Bits(word(0x3F800081)) == 0x3F800100);
  CHECK(f24Bits(word(0x3F800180)) == 0x3F800200); // tie on an odd f24: up
  CHECK(f24Bits(word(0x3F8001FF)) == 0x3F800200);
  CHECK(f24Bits(word(0xBF800080)) == 0xBF800100); // negative tie: magnitude up
  CHECK(f24Bits(word(0x00000080)) == 0x00000000); // the `!shifted` term: tie to +0
  CHECK(f24Bits(word(0x00000081)) == 0x00000100);
  CHECK(f24Bits(word(0x000000FF)) == 0x00000100);
  CHECK(f24Bits(word(0x80000080)) == 0x80000100); // -0 part is non-zero: up
  CHECK(f24Bits(word(0x7F7FFF80)) == 0x7F800000); // rounds up to +inf
  CHECK(f24Bits(word(0x7F7FFF7F)) == 0x7F7FFF00);
  CHECK(isF24NaN(word(0x7F800001)));              // a NaN stays a NaN
  CHECK(isF24NaN(word(0x7FC00000)));
  CHECK(f24Of(word(0x7F800000)) == INFINITY);
  // The same rounding through operate: 1 + 2^-16 is half an f24 ulp above 1.
  CHECK(f24Bits(bin(OpAdd, F(1.0f), F(std::ldexp(1.0f, -16)))) == 0x3F800100);
  CHECK(f24Bits(bin(OpAdd, F(1.0f), F(std::ldexp(3.0f, -16)))) == 0x3F800200);
  CHECK(f24Bits(bin(OpAdd, F(1.0f), F(std::ldexp(1.0f, -17)))) == 0x3F800000);
  CHECK(f24Bits(bin(OpSub, F(1.0f), F(std::ldexp(1.0f, -17)))) == 0x3F800000);
}

TEST_CASE("casts (HVM2 numeric-casts snapshot)") {
  struct Case {
    const char *x;
    const char *to;
    const char *want;
  } cases[] = {
      {"0", "u24", "0"},
      {"1234", "u24", "1234"},
      {"+4321", "u24", "4321"},
      {"-5678", "u24", "16771538"},
      {"2.8", "u24", "2"},
      {"-12.5", "u24", "0"},
      {"16777216.0", "u24", "16777215"},
      {"+inf", "u24", "16777215"},
      {"-inf", "u24", "0"},
      {"+NaN", "u24", "0"},
      {"0", "i24", "+0"},
      {"1234", "i24", "+1234"},
      {"+4321", "i24", "+4321"},
      {"-5678", "i24", "-5678"},
      {"2.8", "i24", "+2"},
      {"-12.7", "i24", "-12"},
      {"8388610.0", "i24", "+8388607"},
      {"-8388610.0", "i24", "-8388608"},
      {"+inf", "i24", "+8388607"},
      {"-inf", "i24", "-8388608"},
      {"+NaN", "i24", "+0"},
      {"+NaN", "f24", "+NaN"},
      {"+inf", "f24", "+inf"},
      {"-inf", "f24", "-inf"},
      {"2.15", "f24", "2.1500244"},
      {"-2.15", "f24", "-2.1500244"},
      {"0.15", "f24", "0.15000153"},
      {"-1234", "f24", "-1234.0"},
      {"+1234", "f24", "1234.0"},
      {"123456", "f24", "123456.0"},
      {"16775982", "f24", "16775936.0"},
  };
  for (const auto &c : cases) {
    CAPTURE(c.x);
    CAPTURE(c.to);
    // `x ~ $([to] r)`: the number arrives at the node holding the cast...
    CHECK(showNumb(operate(lit(c.x), sym(c.to))) == c.want);
    // ...and the cast may also be the one arriving.
    CHECK(showNumb(operate(sym(c.to), lit(c.x))) == c.want);
    CHECK(showNumb(cast(sym(c.to), lit(c.x))) == c.want);
  }
  CHECK(showNumb(sym("u24")) == "[u24]");
  CHECK(showNumb(sym("i24")) == "[i24]");
  CHECK(showNumb(sym("f24")) == "[f24]");
}

TEST_CASE("more casts") {
  CHECK(cast(S(TyU24), U(0xFFFFFF)) == U(0xFFFFFF));
  CHECK(cast(S(TyI24), U(0xFFFFFF)) == I(-1));
  CHECK(cast(S(TyI24), U(0x800000)) == I(-8388608));
  CHECK(cast(S(TyI24), U(0x7FFFFF)) == I(8388607));
  CHECK(cast(S(TyU24), I(-1)) == U(0xFFFFFF));
  CHECK(cast(S(TyU24), I(-8388608)) == U(0x800000));
  CHECK(cast(S(TyI24), I(-7)) == I(-7));
  CHECK(cast(S(TyU24), F(-0.5f)) == U(0));
  CHECK(cast(S(TyU24), F(0.99f)) == U(0));
  CHECK(cast(S(TyU24), F(16777215.0f)) == U(0xFFFFFF)); // f24 rounds it to 2^24
  CHECK(cast(S(TyU24), F(1e30f)) == U(0xFFFFFF));
  CHECK(cast(S(TyI24), F(-0.5f)) == I(0));
  CHECK(cast(S(TyI24), F(-1e30f)) == I(-8388608));
  CHECK(cast(S(TyI24), F(-NAN)) == I(0));
  CHECK(cast(S(TyF24), U(16777215)) == F(16777216.0f));
  CHECK(cast(S(TyF24), U(0)) == F(0.0f));
  CHECK(cast(S(TyF24), I(-8388608)) == F(-8388608.0f));
  CHECK(cast(S(TyF24), I(-1)) == F(-1.0f));
  CHECK(cast(S(TyF24), F(1.5f)) == F(1.5f));
  Numb weirdNaN = normalize(((0x7FC000u | 1u) << 5) | TyF24);
  CHECK(cast(S(TyF24), weirdNaN) == weirdNaN);
  // Not a number: u24 0.
  CHECK(cast(S(TyU24), S(OpAdd)) == U(0));
  CHECK(cast(S(OpAdd), U(3)) == U(0));
  CHECK(isCast(S(TyU24)));
  CHECK(isCast(S(TyF24)));
  CHECK_FALSE(isCast(S(OpAdd)));
  CHECK_FALSE(isCast(S(0)));
  CHECK_FALSE(isCast(U(TyU24)));
  CHECK(isNum(U(1)));
  CHECK(isNum(I(-1)));
  CHECK(isNum(F(1.0f)));
  CHECK_FALSE(isNum(S(TyU24)));
  CHECK_FALSE(isNum(P(OpAdd, U(1))));
}

TEST_CASE("operate dispatch") {
  // A symbol meets a symbol: u24 0, casts included.
  CHECK(operate(S(OpAdd), S(OpMul)) == U(0));
  CHECK(operate(S(TyU24), S(TyI24)) == U(0));
  CHECK(operate(S(TyU24), S(OpAdd)) == U(0));
  // Two partials, or two plain numbers: u24 0.
  CHECK(operate(P(OpAdd, U(1)), P(OpMul, U(2))) == U(0));
  CHECK(operate(U(1), U(2)) == U(0));
  CHECK(operate(F(1.0f), I(2)) == U(0));
  CHECK(operate(I(-1), I(-1)) == U(0));
  // An operator symbol with a number makes a partial, whichever side it is on.
  CHECK(operate(S(OpSub), U(10)) == P(OpSub, U(10)));
  CHECK(operate(U(10), S(OpSub)) == P(OpSub, U(10)));
  CHECK(typeOf(operate(U(10), S(OpSub))) == OpSub);
  CHECK(operate(S(FpShr), F(1.5f)) == P(FpShr, F(1.5f)));
  // The partial's value is the left operand whichever side the partial is on.
  CHECK(operate(P(OpSub, U(10)), U(2)) == U(8));
  CHECK(operate(U(2), P(OpSub, U(10))) == U(8));
  CHECK(operate(P(FpSub, U(10)), U(2)) == U(0xFFFFF8));
  CHECK(operate(U(2), P(FpSub, U(10))) == U(0xFFFFF8));
  CHECK(operate(I(2), P(OpDiv, I(-9))) == I(-4));
  CHECK(operate(I(2), P(FpDiv, I(-9))) == I(0)); // 2 / -9
  CHECK(operate(F(2.0f), P(OpDiv, F(1.0f))) == F(0.5f));
  CHECK(operate(F(2.0f), P(FpDiv, F(1.0f))) == F(2.0f));
  // The partial's bits are read in the type of the number it meets.
  CHECK(operate(P(OpAdd, F(1.5f)), U(1)) == U((F(1.5f) >> 5) + 1));
  CHECK(operate(P(OpAdd, U(0xFFFFFF)), I(1)) == I(0));
  // A cast meeting a partial takes the partial's bits as a number of its type.
  CHECK(operate(S(TyU24), P(OpAdd, U(5))) == U(5));
  CHECK(operate(P(OpAdd, U(5)), S(TyI24)) == I(5));
  CHECK(operate(S(TyF24), P(OpMul, F(2.5f))) == F(2.5f));
  // An operator symbol meeting a partial takes the partial's value.
  CHECK(operate(S(OpAdd), P(OpMul, U(3))) == P(OpAdd, U(3)));
  CHECK(operate(P(OpMul, U(3)), S(FpSub)) == P(FpSub, U(3)));
  // A symbol that is neither a cast nor an operator still makes a "partial":
  // symbol 0 with u24 5 gives the symbol 5, that is [-].
  CHECK(operate(S(0), U(5)) == S(OpSub));
  // Operator types past the last operator fall to the default case.
  Numb bogus = normalize((1u << 5) | 23u);
  CHECK(operate(bogus, U(7)) == U(0));
  CHECK(operate(bogus, I(7)) == I(0));
  CHECK(operate(bogus, F(7.0f)) == F(0.0f));
  CHECK(operate(U(7), normalize((1u << 5) | 31u)) == U(0));
}

TEST_CASE("number words keep 29 bits, as in an HVM2 port") {
  // Bits 29..31 of the inputs are ignored and never set in results.
  CHECK(operate(makeU24(0x1000005), S(OpAdd)) == P(OpAdd, U(5)));
  CHECK(bin(OpAdd, U(5), makeU24(0x7000001)) == U(6));
  CHECK(cast(S(TyU24), makeI24(-1)) == U(0xFFFFFF));
  CHECK((cast(S(TyU24), makeI24(-1)) & ~WordMask) == 0);
  CHECK(normalize(makeI24(-1)) == I(-1));
  CHECK(showNumb(makeI24(-3)) == "-3");
  CHECK(showNumb(makeU24(0x1000005)) == "5");
}

TEST_CASE("operateCommon, the rules' inline path, agrees with operate") {
  // Every operator and type tag (in both places), on values that exercise
  // wrapping, shifts past 24, division by zero and the bits above 29.
  const uint32_t values[] = {0, 1, 2, 7, 23, 24, 31, 32, 0x7FFFFF, 0x800000, 0xFFFFFE, 0xFFFFFF};
  const uint32_t high[] = {0, 0x20000000u, 0xE0000000u};
  for (uint32_t ta = 0; ta < 32; ++ta)
    for (uint32_t tb = 0; tb < 32; ++tb)
      for (uint32_t va : values)
        for (uint32_t vb : values)
          for (uint32_t h : high) {
            Numb a = ((va << 5) | ta) | h, b = ((vb << 5) | tb) & WordMask;
            INFO("a = ", a, ", b = ", b);
            CHECK(operateCommon(a, b) == operate(a, b));
            CHECK(operateCommon(b, a) == operate(b, a));
          }
}

TEST_CASE("showNumb") {
  const char *ops[] = {"[+]", "[-]", "[:-]", "[*]", "[/]", "[:/]", "[%]", "[:%]", "[=]", "[!]",
                       "[<]", "[>]", "[&]", "[|]", "[^]", "[<<]", "[:<<]", "[>>]", "[:>>]"};
  for (uint32_t op = OpAdd; op <= FpShr; ++op)
    CHECK(showNumb(S(op)) == ops[op - OpAdd]);
  CHECK(showNumb(S(TyU24)) == "[u24]");
  CHECK(showNumb(S(TyI24)) == "[i24]");
  CHECK(showNumb(S(TyF24)) == "[f24]");
  CHECK(showNumb(S(0)) == "[?]");
  CHECK(showNumb(S(23)) == "[?]");
  CHECK(showNumb(S(0x104)) == "[+]"); // the symbol is read as an 8-bit tag

  CHECK(showNumb(U(0)) == "0");
  CHECK(showNumb(U(42)) == "42");
  CHECK(showNumb(U(16777215)) == "16777215");
  CHECK(showNumb(I(5)) == "+5");
  CHECK(showNumb(I(-3)) == "-3");
  CHECK(showNumb(I(0)) == "+0");
  CHECK(showNumb(I(8388607)) == "+8388607");
  CHECK(showNumb(I(-8388608)) == "-8388608");

  CHECK(showNumb(P(OpAdd, U(1))) == "[+0x0000001]");
  CHECK(showNumb(P(FpShr, U(0xFFFFFF))) == "[:>>0x0FFFFFF]");
  CHECK(showNumb(P(FpSub, I(-1))) == "[:-0x0FFFFFF]");
  CHECK(showNumb(P(OpMul, F(2.0f))) == "[*0x0400000]");
  CHECK(showNumb(normalize((0xABCu << 5) | 23u)) == "[?0x0000ABC]");
}

TEST_CASE("showNumb of f24 follows Rust's {:?} for f32") {
  struct Case {
    float value;
    const char *text;
  } cases[] = {
      {2.5f, "2.5"},
      {-1.5f, "-1.5"},
      {0.25f, "0.25"},
      {1.0f, "1.0"},
      {-1234.0f, "-1234.0"},
      {123456.0f, "123456.0"},
      {16775936.0f, "16775936.0"},
      {65536.0f, "65536.0"},
      {0.0f, "0.0"},
      {-0.0f, "-0.0"},
      {1.15f, "1.1499939"},
      {1.02f, "1.019989"},
      {2.15f, "2.1500244"},
      {0.15f, "0.15000153"},
      {0.1f, "0.10000038"},
      {1e10f, "10000007000.0"},
      {std::ldexp(1.0f, 53), "9007199000000000.0"}, // below 1e16: plain
      {std::ldexp(1.0f, 54), "1.8014399e16"},       // at least 1e16: scientific
      {1e16f, "1.0000058e16"},
      {1.5e16f, "1.5000087e16"},
      {3.0e38f, "3.0000053e38"},
      {std::ldexp(1.0f, -12), "0.00024414063"}, // exact tie: Rust rounds the digit up
      {std::ldexp(1.0f, -17), "7.6293945e-6"},
      {-std::ldexp(1.0f, -20), "-9.536743e-7"},
      {1e-5f, "1.0000076e-5"},
      {floatOfBits(0x38D1B800), "0.00010000169"}, // smallest f24 >= 1e-4
      {floatOfBits(0x38D1B700), "9.999983e-5"},   // largest f24 < 1e-4
      {1e-40f, "1.00086e-40"},
      {INFINITY, "+inf"},
      {-INFINITY, "-inf"},
      {NAN, "+NaN"},
      {-NAN, "+NaN"},
  };
  for (const auto &c : cases) {
    CAPTURE(c.text);
    CHECK(showNumb(F(c.value)) == c.text);
  }
}

TEST_CASE("parseNumbLiteral") {
  CHECK(parseNumbLiteral("0") == U(0));
  CHECK(parseNumbLiteral("42") == U(42));
  CHECK(parseNumbLiteral("16777215") == U(0xFFFFFF));
  CHECK(parseNumbLiteral("0x10") == U(16));
  CHECK(parseNumbLiteral("0xfF") == U(255));
  CHECK(parseNumbLiteral("0b101") == U(5));
  CHECK(parseNumbLiteral("007") == U(7));
  CHECK(parseNumbLiteral("+5") == I(5));
  CHECK(parseNumbLiteral("-3") == I(-3));
  CHECK(parseNumbLiteral("+0") == I(0));
  CHECK(parseNumbLiteral("-0") == I(0));
  CHECK(parseNumbLiteral("-0x10") == I(-16));
  CHECK(parseNumbLiteral("+0b11") == I(3));
  CHECK(parseNumbLiteral("-8388608") == I(-8388608));
  CHECK(parseNumbLiteral("1.5") == F(1.5f));
  CHECK(parseNumbLiteral("-1.5") == F(-1.5f));
  CHECK(parseNumbLiteral("+0.785398162") == F(0.785398162f));
  CHECK(parseNumbLiteral("1.") == F(1.0f));
  CHECK(parseNumbLiteral(".5") == F(0.5f));
  CHECK(parseNumbLiteral("1.5e3") == F(1500.0f));
  CHECK(parseNumbLiteral("2.5E-1") == F(0.25f));
  CHECK(parseNumbLiteral("1.0e39") == F(INFINITY));
  CHECK(parseNumbLiteral("-1.0e39") == F(-INFINITY));
  CHECK(parseNumbLiteral("1.0e-50") == F(0.0f));
  CHECK(parseNumbLiteral("-1.0e-50") == F(-0.0f));
  CHECK(parseNumbLiteral("1.0e-40") == F(1e-40f));
  CHECK(parseNumbLiteral("+inf") == F(INFINITY));
  CHECK(parseNumbLiteral("inf") == F(INFINITY));
  CHECK(parseNumbLiteral("-inf") == F(-INFINITY));
  CHECK(parseNumbLiteral("infinity") == F(INFINITY));
  auto nan = parseNumbLiteral("+NaN");
  REQUIRE(nan);
  CHECK(isF24NaN(*nan));
  CHECK(parseNumbLiteral("NaN") == nan);
  auto negNan = parseNumbLiteral("-NaN");
  REQUIRE(negNan);
  CHECK(isF24NaN(*negNan));

  // Out of range: wraps like HVM2, and says so.
  bool wrapped = true;
  CHECK(parseNumbLiteral("16777215", &wrapped) == U(0xFFFFFF));
  CHECK_FALSE(wrapped);
  CHECK(parseNumbLiteral("16777216", &wrapped) == U(0));
  CHECK(wrapped);
  CHECK(parseNumbLiteral("16777217", &wrapped) == U(1));
  CHECK(wrapped);
  CHECK(parseNumbLiteral("4294967297") == U(1));
  CHECK(parseNumbLiteral("18446744073709551615") == U(0xFFFFFF));
  CHECK(parseNumbLiteral("+8388607", &wrapped) == I(8388607));
  CHECK_FALSE(wrapped);
  CHECK(parseNumbLiteral("+8388608", &wrapped) == I(-8388608));
  CHECK(wrapped);
  CHECK(parseNumbLiteral("-8388608", &wrapped) == I(-8388608));
  CHECK_FALSE(wrapped);
  CHECK(parseNumbLiteral("-8388609", &wrapped) == I(8388607));
  CHECK(wrapped);
  CHECK(parseNumbLiteral("1.0e39", &wrapped) == F(INFINITY));
  CHECK_FALSE(wrapped);

  // Malformed.
  const char *bad[] = {"",      "+",        "-",     "x",      "0x",    "0b",     "0b2",     "0xg",
                       "12ab",  "1e5",      "1_000", "--1",    "+-1",   " 1",     "1 ",      "0X10",
                       ".",     "1.5.5",    "1..5",  "1.5x",   "0x1.5", "1.0e",   "1.0e+",   "1.0e1.5",
                       "nan.0", "inf.0",    "Inf",   "nan",    "INF",   "+.",     "--1.5",   "1,5",
                       "18446744073709551616", "99999999999999999999"};
  for (const char *text : bad) {
    CAPTURE(text);
    CHECK_FALSE(parseNumbLiteral(text).has_value());
  }
  // A failed parse does not claim wrapping.
  wrapped = true;
  CHECK_FALSE(parseNumbLiteral("16777216x", &wrapped).has_value());
  CHECK_FALSE(wrapped);
}

TEST_CASE("parseNumbSymbol") {
  CHECK(parseNumbSymbol("u24") == S(TyU24));
  CHECK(parseNumbSymbol("i24") == S(TyI24));
  CHECK(parseNumbSymbol("f24") == S(TyF24));
  CHECK(parseNumbSymbol(" u24 ") == S(TyU24));
  struct Case {
    const char *text;
    uint32_t op;
  } ops[] = {{"+", OpAdd},   {"-", OpSub},   {":-", FpSub},   {"*", OpMul},  {"/", OpDiv},
             {":/", FpDiv},  {"%", OpRem},   {":%", FpRem},   {"=", OpEq},   {"!", OpNeq},
             {"<", OpLt},    {">", OpGt},    {"&", OpAnd},    {"|", OpOr},   {"^", OpXor},
             {"<<", OpShl},  {":<<", FpShl}, {">>", OpShr},   {":>>", FpShr}};
  for (const auto &c : ops) {
    CAPTURE(c.text);
    CHECK(parseNumbSymbol(c.text) == S(c.op));
    CHECK(showNumb(S(c.op)) == std::string("[") + c.text + "]");
  }
  // Partial operators.
  CHECK(parseNumbSymbol("+1") == P(OpAdd, U(1)));
  CHECK(parseNumbSymbol("*2") == P(OpMul, U(2)));
  CHECK(parseNumbSymbol(":-1") == P(FpSub, U(1)));
  CHECK(parseNumbSymbol(">>3") == P(OpShr, U(3)));
  CHECK(parseNumbSymbol("<<3") == P(OpShl, U(3)));
  CHECK(parseNumbSymbol(":<<3") == P(FpShl, U(3)));
  CHECK(parseNumbSymbol("<3") == P(OpLt, U(3)));
  CHECK(parseNumbSymbol("+0x10") == P(OpAdd, U(16)));
  CHECK(parseNumbSymbol("-1") == P(OpSub, U(1))); // the operator, then 1
  CHECK(parseNumbSymbol("--1") == P(OpSub, I(-1)));
  CHECK(parseNumbSymbol("- -1") == P(OpSub, I(-1)));
  CHECK(parseNumbSymbol("-1.5") == P(OpSub, F(1.5f)));
  CHECK(parseNumbSymbol("*-1.5") == P(OpMul, F(-1.5f)));
  CHECK(parseNumbSymbol("<-1") == P(OpLt, I(-1)));
  CHECK(parseNumbSymbol("+ 1") == P(OpAdd, U(1)));
  CHECK(parseNumbSymbol(" * 2 ") == P(OpMul, U(2)));
  CHECK(parseNumbSymbol("+ ") == S(OpAdd));
  CHECK(showNumb(*parseNumbSymbol("+1")) == "[+0x0000001]");
  bool wrapped = false;
  CHECK(parseNumbSymbol("+16777217", &wrapped) == P(OpAdd, U(1)));
  CHECK(wrapped);
  CHECK(parseNumbSymbol("+1", &wrapped) == P(OpAdd, U(1)));
  CHECK_FALSE(wrapped);
  // A parsed partial computes with its literal as the left operand.
  CHECK(operate(sym(":-1"), U(5)) == U(4));
  CHECK(operate(sym("-1"), U(5)) == U(0xFFFFFC));
  CHECK(operate(U(3), sym("*2")) == U(6));
  CHECK(operate(sym(":/2.0"), F(5.0f)) == F(2.5f));

  const char *bad[] = {"",     " ",     "?",       "u24 1", "u2",   "u24x", "f32", "+1 2",
                       "+x",   "++",    "+1]",     ":",     "::-",  "~",    "+-", "*1.5.5",
                       "[+]",  "+ 1 1", "<<< 1",   "=>"};
  for (const char *text : bad) {
    CAPTURE(text);
    CHECK_FALSE(parseNumbSymbol(text).has_value());
  }
}

TEST_CASE("show and parse agree") {
  for (const char *text : {"0", "16777215", "+0", "-1", "+8388607", "-8388608", "1.5", "-0.25", "+inf", "-inf",
                           "1.019989", "123456.0", "0.00010000169", "9.999983e-5"}) {
    auto n = parseNumbLiteral(text);
    REQUIRE(n);
    auto again = parseNumbLiteral(showNumb(*n));
    REQUIRE(again);
    CHECK(*again == *n);
  }
}
