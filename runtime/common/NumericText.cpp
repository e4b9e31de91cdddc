#include "runtime/common/NumericText.h"

#include "runtime/common/Operate.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace bendc::rt::num {

namespace {

// Operator text indexed by type (OpAdd..FpShr); nullptr elsewhere.
const char *opText(uint32_t ty) {
  switch (ty) {
  case OpAdd: return "+";
  case OpSub: return "-";
  case FpSub: return ":-";
  case OpMul: return "*";
  case OpDiv: return "/";
  case FpDiv: return ":/";
  case OpRem: return "%";
  case FpRem: return ":%";
  case OpEq: return "=";
  case OpNeq: return "!";
  case OpLt: return "<";
  case OpGt: return ">";
  case OpAnd: return "&";
  case OpOr: return "|";
  case OpXor: return "^";
  case OpShl: return "<<";
  case FpShl: return ":<<";
  case OpShr: return ">>";
  case FpShr: return ":>>";
  default: return nullptr;
  }
}

// Rust's `{:?}` for a finite, non-zero f32: the shortest digits that read back
// to the same float, in plain decimal with at least one fractional digit when
// 1e-4 <= |x| < 1e16 (bounds compared as f32), otherwise as `<d>[.<ddd>]e<exp>`.
std::string showFloat(float x) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string sci(buf, res.ptr); // [-]d[.ddd]e(+|-)dd
  std::string out;
  size_t i = 0;
  if (sci[0] == '-') {
    out = "-";
    i = 1;
  }
  size_t e = sci.find('e');
  std::string digits;
  for (size_t k = i; k < e; ++k)
    if (sci[k] != '.')
      digits += sci[k];
  int exp = std::atoi(sci.c_str() + e + 1);
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();

  // When the float lies exactly halfway between two shortest candidates,
  // to_chars picks the one ending in an even digit and Rust the upper one
  // (2^-12 is 0.000244140625: to_chars gives ...062, Rust ...063). The exact
  // expansion (a float has at most 112 significant decimal digits) tells.
  if ((digits.back() - '0') % 2 == 0) {
    char exact[192];
    auto ex = std::to_chars(exact, exact + sizeof exact, std::fabs(x), std::chars_format::scientific, 120);
    std::string all;
    const char *p = exact;
    for (; p < ex.ptr && *p != 'e'; ++p)
      if (*p != '.')
        all += *p;
    int exactExp = p < ex.ptr ? std::atoi(p + 1) : exp;
    size_t n = digits.size();
    bool tie = exactExp == exp && all.size() > n && all.compare(0, n, digits) == 0 && all[n] == '5' &&
               all.find_first_not_of('0', n + 1) == std::string::npos;
    if (tie)
      digits.back() = char(digits.back() + 1);
  }

  float mag = std::fabs(x);
  if (mag < 1e-4f || mag >= 1e16f) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += std::to_string(exp);
    return out;
  }
  int point = exp + 1; // digits before the decimal point
  int n = int(digits.size());
  if (point <= 0) {
    out += "0.";
    out.append(size_t(-point), '0');
    out += digits;
  } else if (point >= n) {
    out += digits;
    out.append(size_t(point - n), '0');
    out += ".0";
  } else {
    out += digits.substr(0, size_t(point));
    out += '.';
    out += digits.substr(size_t(point));
  }
  return out;
}

std::string showF24(float x) {
  if (std::isinf(x))
    return x > 0 ? "+inf" : "-inf";
  if (std::isnan(x))
    return "+NaN";
  if (x == 0.0f)
    return std::signbit(x) ? "-0.0" : "0.0";
  return showFloat(x);
}

bool isDigitIn(char c, unsigned radix, unsigned &value) {
  unsigned v;
  if (c >= '0' && c <= '9')
    v = unsigned(c - '0');
  else if (c >= 'a' && c <= 'z')
    v = unsigned(c - 'a') + 10;
  else if (c >= 'A' && c <= 'Z')
    v = unsigned(c - 'A') + 10;
  else
    return false;
  if (v >= radix)
    return false;
  value = v;
  return true;
}

// An unsigned integer: decimal, `0x` hexadecimal or `0b` binary, every digit
// valid, the value at most 2^64 - 1.
std::optional<uint64_t> parseU64(llvm::StringRef s) {
  unsigned radix = 10;
  if (s.startswith("0x")) {
    radix = 16;
    s = s.drop_front(2);
  } else if (s.startswith("0b")) {
    radix = 2;
    s = s.drop_front(2);
  }
  if (s.empty())
    return std::nullopt;
  uint64_t value = 0;
  for (char c : s) {
    unsigned d;
    if (!isDigitIn(c, radix, d))
      return std::nullopt;
    if (value > (std::numeric_limits<uint64_t>::max() - d) / radix)
      return std::nullopt;
    value = value * radix + d;
  }
  return value;
}

bool isDec(char c) { return c >= '0' && c <= '9'; }

// Rust's `str::parse::<f32>`: [+-] then `inf`, `infinity` or `nan` (any case),
// or digits with an optional `.` and an optional exponent `e[+-]digits`, with at
// least one digit before or after the point. Rounded to nearest, ties to even;
// too large gives infinity, too small gives zero.
std::optional<float> parseF32(llvm::StringRef s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s = s.drop_front();
  }
  float value;
  if (s.equals_insensitive("inf") || s.equals_insensitive("infinity")) {
    value = std::numeric_limits<float>::infinity();
  } else if (s.equals_insensitive("nan")) {
    value = std::numeric_limits<float>::quiet_NaN();
  } else {
    // Validate the shape first: from_chars accepts more (hex, `nan(...)`).
    size_t i = 0, n = s.size();
    size_t intDigits = 0, fracDigits = 0;
    while (i < n && isDec(s[i]))
      ++i, ++intDigits;
    if (i < n && s[i] == '.') {
      ++i;
      while (i < n && isDec(s[i]))
        ++i, ++fracDigits;
    }
    if (intDigits + fracDigits == 0)
      return std::nullopt;
    size_t mantissaEnd = i;
    long long exp10 = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      bool expNeg = false;
      if (i < n && (s[i] == '+' || s[i] == '-'))
        expNeg = s[i++] == '-';
      size_t expDigits = 0;
      while (i < n && isDec(s[i])) {
        if (exp10 < 1000000000)
          exp10 = exp10 * 10 + (s[i] - '0');
        ++i, ++expDigits;
      }
      if (expDigits == 0)
        return std::nullopt;
      if (expNeg)
        exp10 = -exp10;
    }
    if (i != n)
      return std::nullopt;
    auto res = std::from_chars(s.data(), s.data() + n, value, std::chars_format::general);
    if (res.ptr != s.data() + n)
      return std::nullopt;
    if (res.ec == std::errc::result_out_of_range) {
      // Overflow or underflow: tell which by the position of the first
      // non-zero digit relative to the decimal point.
      llvm::StringRef mant = s.take_front(mantissaEnd);
      long long order = 0;
      bool seen = false, afterPoint = false;
      for (char c : mant) {
        if (c == '.') {
          afterPoint = true;
          continue;
        }
        if (!seen && c != '0') {
          seen = true;
          if (afterPoint)
            break;
        }
        if (seen && !afterPoint)
          ++order;
        if (!seen && afterPoint)
          --order;
      }
      value = seen && order + exp10 > 0 ? std::numeric_limits<float>::infinity() : 0.0f;
    } else if (res.ec != std::errc()) {
      return std::nullopt;
    }
  }
  return neg ? -value : value;
}

std::optional<Numb> parseLiteral(llvm::StringRef text, bool &wrapped) {
  wrapped = false;
  if (text.empty())
    return std::nullopt;
  if (text.contains('.') || text.contains("inf") || text.contains("NaN")) {
    auto f = parseF32(text);
    if (!f)
      return std::nullopt;
    return makeF24(*f) & WordMask;
  }
  if (text[0] == '+' || text[0] == '-') {
    auto v = parseU64(text.drop_front());
    if (!v)
      return std::nullopt;
    bool neg = text[0] == '-';
    wrapped = neg ? *v > 0x800000u : *v > 0x7FFFFFu;
    uint32_t bits = uint32_t(*v);
    if (neg)
      bits = 0u - bits;
    return ((bits << 5) | TyI24) & WordMask;
  }
  auto v = parseU64(text);
  if (!v)
    return std::nullopt;
  wrapped = *v > 0xFFFFFFu;
  return ((uint32_t(*v) << 5) | TyU24) & WordMask;
}

bool isTrivia(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

llvm::StringRef trimTrivia(llvm::StringRef s) {
  while (!s.empty() && isTrivia(s.front()))
    s = s.drop_front();
  while (!s.empty() && isTrivia(s.back()))
    s = s.drop_back();
  return s;
}

} // namespace

std::string showNumb(Numb n) {
  n &= WordMask; // what a 29-bit port payload keeps
  uint32_t ty = typeOf(n);
  switch (ty) {
  case TySym: {
    uint32_t sym = symOf(n) & 0xFF; // HVM2 reads the symbol as an 8-bit tag
    switch (sym) {
    case TyU24: return "[u24]";
    case TyI24: return "[i24]";
    case TyF24: return "[f24]";
    default: {
      const char *op = opText(sym);
      return op ? std::string("[") + op + "]" : std::string("[?]");
    }
    }
  }
  case TyU24: return std::to_string(u24Of(n));
  case TyI24: {
    int32_t v = i24Of(n);
    return (v >= 0 ? "+" : "") + std::to_string(v);
  }
  case TyF24: return showF24(f24Of(n));
  default: {
    // `[op0x...]`: the operand as 7 upper-case hex digits (books hold many).
    std::string text = "[";
    const char *op = opText(ty);
    text += op ? op : "?";
    text += "0x";
    uint32_t v = u24Of(n);
    for (int shift = 24; shift >= 0; shift -= 4)
      text += "0123456789ABCDEF"[(v >> shift) & 0xF];
    text += ']';
    return text;
  }
  }
}

std::optional<Numb> parseNumbLiteral(llvm::StringRef text, bool *wrapped) {
  bool w = false;
  auto r = parseLiteral(text, w);
  if (wrapped)
    *wrapped = r && w;
  return r;
}

std::optional<Numb> parseNumbSymbol(llvm::StringRef inside, bool *wrapped) {
  if (wrapped)
    *wrapped = false;
  llvm::StringRef s = trimTrivia(inside);
  if (s == "u24")
    return makeSym(TyU24);
  if (s == "i24")
    return makeSym(TyI24);
  if (s == "f24")
    return makeSym(TyF24);
  // Tried in this order, so that `<<` wins over `<` and `>>` over `>`.
  static const struct {
    const char *text;
    uint32_t op;
  } ops[] = {
      {"+", OpAdd},   {"-", OpSub},    {":-", FpSub}, {"*", OpMul},    {"/", OpDiv},
      {":/", FpDiv},  {"%", OpRem},    {":%", FpRem}, {"=", OpEq},     {"!", OpNeq},
      {"<<", OpShl},  {":<<", FpShl},  {">>", OpShr}, {":>>", FpShr},  {"<", OpLt},
      {">", OpGt},    {"&", OpAnd},    {"|", OpOr},   {"^", OpXor},
  };
  for (const auto &o : ops) {
    if (!s.startswith(o.text))
      continue;
    Numb sym = makeSym(o.op);
    llvm::StringRef rest = trimTrivia(s.drop_front(llvm::StringRef(o.text).size()));
    if (rest.empty())
      return sym;
    bool w = false;
    auto lit = parseLiteral(rest, w);
    if (!lit)
      return std::nullopt;
    if (wrapped)
      *wrapped = w;
    return partial(sym, *lit) & WordMask;
  }
  return std::nullopt;
}

} // namespace bendc::rt::num
