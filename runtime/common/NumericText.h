// Text forms of HVM2 number words: printing as HVM2 2.0.22 prints them and
// parsing the literals and bracketed symbols of a .hvm file. Host only.
#pragma once

#include "runtime/common/Numeric.h"

#include <llvm/ADT/StringRef.h>

#include <optional>
#include <string>

namespace bendc::rt::num {

/// HVM2's text for a number word: `[+]`, `[u24]`, `[?]` for symbols; `42` for
/// u24; `+5`, `-3`, `+0` for i24; for f24 `+inf`, `-inf`, `+NaN`, else the
/// shortest digits that read back to the same float, as `0.25`, `1.0`,
/// `16775936.0`, or `8.908799e-6` / `1e16` when |x| < 1e-4 or |x| >= 1e16;
/// partial operators as `[+0x0000001]` (7 upper-case hex digits of the value).
std::string showNumb(Numb n);

/// Parses a number literal of a .hvm file:
///   - text containing `.`, `inf` or `NaN` is an f24 (`1.5`, `-1.5e3`, `+inf`,
///     `-inf`, `NaN`, `+NaN`), the float read with correct rounding, then
///     rounded to f24;
///   - text starting with `+` or `-` is an i24;
///   - anything else is a u24.
/// Integers are decimal, `0x` hexadecimal or `0b` binary (lower-case prefix).
/// Integers above 2^64 - 1, trailing characters (`12ab`, `1e5`), underscores,
/// empty digit strings and other malformed text give nullopt (HVM2 ignores
/// trailing characters after the digits; we reject them).
/// Out-of-range integers wrap to 24 bits silently, as in HVM2 (16777216 -> 0,
/// +8388608 -> -8388608); when `wrapped` is given it is set to whether that
/// happened, so that a caller may warn.
std::optional<Numb> parseNumbLiteral(llvm::StringRef text, bool *wrapped = nullptr);

/// Parses the text between `[` and `]`: a cast (`u24`, `i24`, `f24`), an
/// operator (`+ - :- * / :/ % :% = ! < > & | ^ << :<< >> :>>`), or an operator
/// followed by a literal, which gives the partial operator
/// `partial(makeSym(op), literal)` (`+1`, `:- 1`, `*2.0`, `>>0x3`). Note that
/// `-1` is the operator `-` with the literal `1`. Whitespace may surround the
/// parts. `wrapped` is as for parseNumbLiteral.
std::optional<Numb> parseNumbSymbol(llvm::StringRef inside, bool *wrapped = nullptr);

} // namespace bendc::rt::num
