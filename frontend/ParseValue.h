// The parser's semantic values. Every value a grammar symbol carries is
// trivially copyable (AST pointers, names, ranges, and lists as `Seq`), so
// a value is a plain block of bytes: the parser moves it on its stack with
// a copy, never by asking which kind of value it holds.
#pragma once

#include "frontend/Ast.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bendc::parse {

/// A list being collected by the grammar: storage in the syntax trees'
/// arena, grown by ParseContext::append. A plain handle: copying it copies
/// no elements, and the rule that extends a list owns it from then on.
template <typename T> struct Seq {
  using value_type = T;
  T *data;
  uint32_t size;
  uint32_t capacity;

  T *begin() const { return data; }
  T *end() const { return data + size; }
  bool empty() const { return size == 0; }
  T &operator[](size_t k) const { return data[k]; }
};

/// One semantic value: `as<T>()` reads or writes it as a T.
struct Value {
  static constexpr size_t kBytes = 56;
  alignas(8) unsigned char bytes[kBytes];

  /// Uninitialized, as a rule's result before its action sets it.
  Value() = default;

  template <typename T> T &as() {
    static_assert(std::is_trivially_copy_constructible_v<T> &&
                      std::is_trivially_destructible_v<T>,
                  "semantic values are copied as bytes");
    static_assert(sizeof(T) <= kBytes && alignof(T) <= 8, "a semantic value outgrows Value");
    return *reinterpret_cast<T *>(bytes);
  }
  template <typename T> const T &as() const { return const_cast<Value *>(this)->as<T>(); }
};

} // namespace bendc::parse
