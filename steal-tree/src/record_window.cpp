#include "cws/steal_tree/record_window.hpp"

#include <algorithm>

#include "cws/steal_tree/tree_storage.hpp"

namespace cws::steal_tree {

namespace {

template <class T>
std::size_t vector_bytes(const std::vector<T>& v) noexcept {
  return v.capacity() * sizeof(T);
}

// Heap bytes of a string: none while it fits the small-string buffer.
std::size_t string_bytes(const std::string& s) noexcept {
  return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
}

}  // namespace

std::size_t record_bytes(const phase_record& r) noexcept {
  std::size_t n = string_bytes(r.schedule) + string_bytes(r.policy) + vector_bytes(r.stats) + tree_bytes(r.steals);
  // The locality report's per-node vector and the relocalization reports with
  // their strings: O(nodes + relocalizations) per record.
  n += vector_bytes(r.relocalizations);
  if (r.locality) n += vector_bytes(r.locality->per_node);
  for (const cws::relocalization_report& x : r.relocalizations) n += string_bytes(x.schedule) + string_bytes(x.backend);
  return n;
}

record_window::record_window(std::size_t per_schedule) : per_schedule_(std::max<std::size_t>(per_schedule, 1)) {}

phase_record& record_window::next(std::string_view schedule) {
  auto it = lanes_.find(schedule);
  if (it == lanes_.end()) it = lanes_.emplace(std::string(schedule), lane{}).first;  // once per schedule
  lane& l = it->second;
  std::uint32_t slot = 0;
  if (l.ring.size() < per_schedule_) {
    if (!spare_.empty()) {
      slot = spare_.back();
      spare_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    l.ring.push_back(slot);
  } else {
    // Full: the oldest run of this schedule leaves the window and its slot
    // becomes the newest (the ring position stays, the head moves on). It is
    // usually near the front of the order, where the search starts.
    slot = l.ring[l.head];
    l.head = (l.head + 1) % l.ring.size();
    order_.erase(std::find(order_.begin(), order_.end(), slot));
    ++evicted_;
  }
  order_.push_back(slot);
  return slots_[slot];
}

const phase_record* record_window::latest(std::string_view schedule) const noexcept {
  auto it = lanes_.find(schedule);
  if (it == lanes_.end() || it->second.ring.empty()) return nullptr;
  return &slots_[it->second.newest()];
}

phase_record* record_window::find(std::string_view schedule, std::uint64_t iteration) noexcept {
  auto it = lanes_.find(schedule);
  if (it == lanes_.end()) return nullptr;
  const lane& l = it->second;
  const std::size_t n = l.ring.size();
  for (std::size_t k = 0; k < n; ++k) {  // newest first
    phase_record& r = slots_[l.ring[(l.head + n - 1 - k) % n]];
    if (r.iteration == iteration) return &r;
  }
  return nullptr;
}

void record_window::clear() noexcept {
  // spare_ can take every slot without growing past slots_.size(): reserve
  // may throw, and clear() must not, so fall back to forgetting the storage.
  try {
    spare_.reserve(slots_.size());
    spare_.insert(spare_.end(), order_.begin(), order_.end());
  } catch (...) {
    spare_.clear();
    slots_.clear();
  }
  order_.clear();
  for (auto& [name, l] : lanes_) {
    l.ring.clear();
    l.head = 0;
  }
}

std::size_t record_window::bytes() const noexcept {
  std::size_t n = slots_.size() * sizeof(phase_record) + vector_bytes(order_) + vector_bytes(spare_);
  for (const phase_record& r : slots_) n += record_bytes(r);
  for (const auto& [name, l] : lanes_) n += sizeof(name) + sizeof(l) + string_bytes(name) + vector_bytes(l.ring);
  return n;
}

}  // namespace cws::steal_tree
