#pragma once
// The last K entries of an unbounded sequence (a schedule's iteration
// reports), oldest first, in storage that is reused: once K entries are kept,
// next() hands back the oldest one for the new entry, strings and vectors
// with their capacity, so appending allocates nothing in steady state.
//
//   bounded_history<iteration_report> h(64);
//   iteration_report& r = h.next();   // overwrite every field
//   for (const auto& x : h) ...       // oldest first; h[i], h.back(), h.size()
//
// Read like a vector (random access, oldest first) and convertible to one (a
// copy), so code written against the former unbounded vector keeps working.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "cws/detail/index_iterator.hpp"

namespace cws::schedulers {

template <class T>
class bounded_history {
 public:
  bounded_history() = default;  // 64 entries, runtime_config::history's default
  explicit bounded_history(std::size_t capacity) : cap_(std::max<std::size_t>(capacity, 1)) {}

  // Entries kept (at least 1). Changing it keeps the newest entries.
  std::size_t capacity() const noexcept { return cap_; }
  void set_capacity(std::size_t k) {
    k = std::max<std::size_t>(k, 1);
    if (k == cap_) return;
    std::vector<T> kept;
    const std::size_t n = std::min(size(), k);
    kept.reserve(n);
    for (std::size_t i = size() - n; i < size(); ++i) kept.push_back(std::move((*this)[i]));
    items_ = std::move(kept);
    head_ = 0;
    cap_ = k;
  }

  // Storage for a new newest entry: a default-constructed one while fewer
  // than capacity() are kept, else the oldest, evicted, contents in place.
  T& next() {
    if (items_.size() < cap_) return items_.emplace_back();
    T& slot = items_[head_];
    head_ = (head_ + 1) % items_.size();
    ++dropped_;
    return slot;
  }
  void clear() noexcept {
    items_.clear();
    head_ = 0;
  }
  // Entries evicted so far.
  std::uint64_t dropped() const noexcept { return dropped_; }

  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  T& operator[](std::size_t i) { return items_[(head_ + i) % items_.size()]; }
  const T& operator[](std::size_t i) const { return items_[(head_ + i) % items_.size()]; }
  const T& at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range("bounded_history::at");
    return (*this)[i];
  }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size() - 1]; }
  const T& back() const { return (*this)[size() - 1]; }

  using const_iterator = cws::detail::index_iterator<bounded_history, T>;
  using iterator = const_iterator;
  using value_type = T;
  using size_type = std::size_t;

  const_iterator begin() const noexcept { return {this, 0}; }
  const_iterator end() const noexcept { return {this, static_cast<std::ptrdiff_t>(size())}; }

  // A copy, oldest first.
  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }

  // Bytes of the entries themselves (not what they point to).
  std::size_t bytes() const noexcept { return items_.capacity() * sizeof(T); }

 private:
  std::vector<T> items_;  // a ring once full: the oldest at head_
  std::size_t head_ = 0;
  std::size_t cap_ = 64;
  std::uint64_t dropped_ = 0;
};

}  // namespace cws::schedulers
