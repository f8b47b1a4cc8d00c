#pragma once
// The last K entries of an unbounded sequence (a schedule's run reports),
// oldest first, in storage that is reused: the next entry is written in place
// into a spare slot, which once K entries are kept is the storage of the
// entry it evicts (strings and vectors keep their capacity), so appending
// allocates nothing in steady state. Each entry has storage of its own, so a
// reference to it stays valid until it is evicted (then it is reused).
//
//   bounded_history<run_report> h(16);
//   run_report& r = h.pending();   // overwrite every field; h does not show it yet
//   h.commit();                    // now h.back() is r, and the oldest entry left if h was full
//   for (const auto& x : h) ...    // oldest first; h[i], h.back(), h.size()
//
// Writing in two steps keeps the history whole while the new entry is being
// made: the runtime writes a run's report while its policy still reads the
// runs before it, and a run that never started commits nothing.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <vector>

#include "cws/detail/index_iterator.hpp"

namespace cws {

template <class T>
class bounded_history {
 public:
  bounded_history() = default;  // 16 entries, runtime_config::history's default
  explicit bounded_history(std::size_t capacity) : cap_(std::max<std::size_t>(capacity, 1)) {}

  // Entries kept (at least 1). Changing it keeps the newest entries.
  std::size_t capacity() const noexcept { return cap_; }
  void set_capacity(std::size_t k) {
    k = std::max<std::size_t>(k, 1);
    if (k == cap_) return;
    std::vector<std::unique_ptr<T>> kept;
    const std::size_t n = std::min(size(), k);
    kept.reserve(n);
    for (std::size_t i = size() - n; i < size(); ++i) kept.push_back(std::move(items_[slot(i)]));
    items_ = std::move(kept);
    head_ = 0;
    size_ = n;
    cap_ = k;
    pending_ = false;
  }

  // Storage for the next entry, not part of the history until commit(): a
  // default-constructed one at first, later the spare slot, which holds the
  // entry evicted last (overwrite every field). Calling it again before
  // commit() returns the same slot.
  T& pending() {
    pending_ = true;
    // While fewer than capacity() entries were ever kept, nothing was evicted
    // and head_ is 0, so the slot after the newest is at the end.
    if (items_.size() == size_) return *items_.emplace_back(std::make_unique<T>());
    return *items_[slot(size_)];
  }
  // pending() becomes the newest entry; once capacity() entries are kept,
  // the oldest one leaves (its storage is the next pending()).
  void commit() {
    if (!pending_) return;  // nothing written since the last commit
    pending_ = false;
    if (size_ < cap_) {
      ++size_;
      return;
    }
    head_ = (head_ + 1) % items_.size();
    ++dropped_;
  }
  void clear() noexcept {
    items_.clear();
    head_ = 0;
    size_ = 0;
    pending_ = false;
  }
  // Entries evicted so far.
  std::uint64_t dropped() const noexcept { return dropped_; }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) { return *items_[slot(i)]; }
  const T& operator[](std::size_t i) const { return *items_[slot(i)]; }
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

  // Bytes of the entries themselves (not what they point to), the spare included.
  std::size_t bytes() const noexcept { return items_.capacity() * sizeof(items_[0]) + items_.size() * sizeof(T); }

 private:
  std::size_t slot(std::size_t i) const noexcept { return (head_ + i) % items_.size(); }

  // The entries, and at most one spare slot: a ring once capacity() entries
  // are kept, the oldest at head_ and the spare just before it. Boxed, so
  // that growing the ring moves no entry.
  std::vector<std::unique_ptr<T>> items_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::size_t cap_ = 16;
  std::uint64_t dropped_ = 0;
  bool pending_ = false;  // pending() was called since the last commit()
};

}  // namespace cws
