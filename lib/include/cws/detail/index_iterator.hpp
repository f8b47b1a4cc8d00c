#pragma once
// A read-only random-access iterator over any container with a const
// operator[](std::size_t): position i yields c[i]. The bounded windows of
// recorded runs (steal_tree::record_window) and of run reports
// (cws::bounded_history) keep their elements in rings, so their
// iterators walk logical positions, not storage.

#include <compare>
#include <cstddef>
#include <iterator>

namespace cws::detail {

template <class Container, class T>
class index_iterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = const T*;
  using reference = const T&;

  index_iterator() = default;
  index_iterator(const Container* c, difference_type i) : c_(c), i_(i) {}

  reference operator*() const { return (*c_)[static_cast<std::size_t>(i_)]; }
  pointer operator->() const { return &**this; }
  reference operator[](difference_type n) const { return *(*this + n); }
  index_iterator& operator++() { return *this += 1; }
  index_iterator operator++(int) {
    auto copy = *this;
    ++i_;
    return copy;
  }
  index_iterator& operator--() { return *this -= 1; }
  index_iterator operator--(int) {
    auto copy = *this;
    --i_;
    return copy;
  }
  index_iterator& operator+=(difference_type n) {
    i_ += n;
    return *this;
  }
  index_iterator& operator-=(difference_type n) {
    i_ -= n;
    return *this;
  }
  friend index_iterator operator+(index_iterator a, difference_type n) { return a += n; }
  friend index_iterator operator+(difference_type n, index_iterator a) { return a += n; }
  friend index_iterator operator-(index_iterator a, difference_type n) { return a -= n; }
  friend difference_type operator-(const index_iterator& a, const index_iterator& b) { return a.i_ - b.i_; }
  friend bool operator==(const index_iterator& a, const index_iterator& b) { return a.i_ == b.i_; }
  friend auto operator<=>(const index_iterator& a, const index_iterator& b) { return a.i_ <=> b.i_; }

 private:
  const Container* c_ = nullptr;
  difference_type i_ = 0;
};

}  // namespace cws::detail
