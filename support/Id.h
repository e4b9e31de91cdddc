// Typed indices: an id of one kind cannot stand for another, nor for a plain
// number, and a table indexed by one kind takes only that kind. The IRs that
// keep their parts in flat arrays (the HIR's functions, blocks and wires)
// name them this way.
#pragma once

#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace bendc {

/// A place in a table of `Tag`s. The default id is no place (`valid()` is
/// false).
template <typename Tag> struct Id {
  static constexpr uint32_t None = ~0u;
  uint32_t index = None;

  constexpr Id() = default;
  constexpr explicit Id(uint32_t i) : index(i) {}
  constexpr bool valid() const { return index != None; }
  friend constexpr bool operator==(Id a, Id b) { return a.index == b.index; }
  friend constexpr bool operator!=(Id a, Id b) { return a.index != b.index; }
  friend constexpr bool operator<(Id a, Id b) { return a.index < b.index; }
};

/// A table whose rows are named by one kind of id: `push_back` answers the
/// new row's id, and only that kind indexes it.
template <typename IdT, typename T> class IdTable {
public:
  IdT push_back(T value) {
    rows.push_back(std::move(value));
    return IdT(uint32_t(rows.size() - 1));
  }
  template <typename... Args> IdT emplace_back(Args &&...args) {
    rows.emplace_back(std::forward<Args>(args)...);
    return IdT(uint32_t(rows.size() - 1));
  }
  T &operator[](IdT id) { return rows[id.index]; }
  const T &operator[](IdT id) const { return rows[id.index]; }
  bool contains(IdT id) const { return id.index < rows.size(); }
  uint32_t size() const { return uint32_t(rows.size()); }
  bool empty() const { return rows.empty(); }
  void clear() { rows.clear(); }
  void reserve(size_t n) { rows.reserve(n); }
  /// Room for `n` more rows, growing by at least half again: asked for
  /// again and again, it still moves each row a bounded number of times.
  void reserveMore(size_t n) {
    if (rows.size() + n > rows.capacity())
      rows.reserve(std::max(rows.size() + n, rows.capacity() + rows.capacity() / 2));
  }
  void assign(size_t n, const T &value) { rows.assign(n, value); }
  void resize(size_t n, const T &value = T()) { rows.resize(n, value); }
  /// Every row's id, in order.
  auto ids() const {
    return llvm::map_range(llvm::seq<uint32_t>(0, size()), [](uint32_t i) { return IdT(i); });
  }
  /// The id the next row will get.
  IdT next() const { return IdT(uint32_t(rows.size())); }
  auto begin() { return rows.begin(); }
  auto end() { return rows.end(); }
  auto begin() const { return rows.begin(); }
  auto end() const { return rows.end(); }
  /// Gives the rows' memory back.
  void release() { std::vector<T>().swap(rows); }
  std::vector<T> &storage() { return rows; }
  const std::vector<T> &storage() const { return rows; }

private:
  std::vector<T> rows;
};

} // namespace bendc

template <typename Tag> struct llvm::DenseMapInfo<bendc::Id<Tag>> {
  using T = bendc::Id<Tag>;
  static T getEmptyKey() { return T(~0u - 1); }
  static T getTombstoneKey() { return T(~0u - 2); }
  static unsigned getHashValue(T id) { return llvm::DenseMapInfo<uint32_t>::getHashValue(id.index); }
  static bool isEqual(T a, T b) { return a == b; }
};
