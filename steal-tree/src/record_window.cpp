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

// Room for index `slot` in a per-slot array, grown geometrically: reserving
// exactly slot + 1 reallocated the whole array for every new slot, O(slots)
// per run while a long window fills (cws-cg keeps thousands of runs per
// schedule: 17 us a phase).
template <class T>
void make_room(std::vector<T>& v, std::size_t slot) {
  if (v.capacity() <= slot) v.reserve(std::max<std::size_t>(2 * v.capacity(), slot + 1));
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

record_window::record_window(std::size_t per_schedule, std::size_t max_bytes)
    : per_schedule_(std::max<std::size_t>(per_schedule, 1)), max_bytes_(max_bytes) {}

phase_record& record_window::next(std::string_view schedule) {
  bool recycled = false;
  return next(schedule, cws::phase_info::no_schedule_index, recycled);
}

phase_record& record_window::next(std::string_view schedule, std::uint32_t key, bool& recycled) {
  if (key == cws::phase_info::no_schedule_index) return slots_[claim(lane_named(schedule), recycled)];
  if (key >= keyed_.size() || keyed_[key] == nullptr) {  // once per schedule
    lane& l = lane_named(schedule);
    if (key >= keyed_.size()) keyed_.resize(std::max<std::size_t>(key + 1, 2 * keyed_.size()), nullptr);
    keyed_[key] = &l;
  }
  return slots_[claim(*keyed_[key], recycled)];
}

record_window::lane& record_window::lane_named(std::string_view schedule) {
  auto it = lanes_.find(schedule);
  if (it == lanes_.end()) it = lanes_.emplace(std::string(schedule), lane{}).first;
  return it->second;
}

std::uint32_t record_window::claim(lane& l, bool& recycled) {
  std::uint32_t slot = 0;
  recycled = l.ring.size() >= per_schedule_;
  if (!recycled) {
    if (!spare_.empty()) {
      slot = spare_.back();
      spare_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(slots_.size());
      // The per-slot arrays first: a throw leaves no slot without them.
      make_room(lane_of_, slot);
      make_room(position_of_, slot);
      make_room(slot_bytes_, slot);
      make_room(dirty_, slot);
      make_room(written_, slot);
      slots_.emplace_back();
      lane_of_.push_back(nullptr);
      position_of_.push_back(tombstone);
      slot_bytes_.push_back(0);
      dirty_.push_back(0);
    }
    l.ring.push_back(slot);
  } else {
    // Full: the oldest run of this schedule leaves the window and its slot
    // becomes the newest (the ring position stays, the head moves on).
    slot = l.ring[l.head];
    l.head = (l.head + 1) % l.ring.size();
    order_[position_of_[slot]] = tombstone;
    ++tombstones_;
    ++evicted_;
  }
  append(slot);
  lane_of_[slot] = &l;
  touch(slot);
  return slot;
}

void record_window::append(std::uint32_t slot) {
  if (order_.size() == order_.capacity()) {
    squeeze();
    const std::size_t kept = order_.size();
    if (2 * (order_.capacity() - kept) < kept) order_.reserve(kept + kept / 2 + 16);
  }
  position_of_[slot] = static_cast<std::uint32_t>(order_.size());
  order_.push_back(slot);
}

void record_window::squeeze() const noexcept {
  if (tombstones_ == 0) return;
  std::size_t kept = 0;
  for (const std::uint32_t slot : order_) {
    if (slot == tombstone) continue;
    position_of_[slot] = static_cast<std::uint32_t>(kept);
    order_[kept++] = slot;
  }
  order_.resize(kept);
  tombstones_ = 0;
}

const phase_record* record_window::latest(std::string_view schedule) const noexcept {
  auto it = lanes_.find(schedule);
  if (it == lanes_.end() || it->second.ring.empty()) return nullptr;
  return &slots_[it->second.newest()];
}

const phase_record* record_window::latest_keyed(std::uint32_t key) const noexcept {
  if (key >= keyed_.size() || keyed_[key] == nullptr || keyed_[key]->ring.empty()) return nullptr;
  return &slots_[keyed_[key]->newest()];
}

phase_record* record_window::find(std::string_view schedule, std::uint64_t iteration) noexcept {
  auto it = lanes_.find(schedule);
  if (it == lanes_.end()) return nullptr;
  const lane& l = it->second;
  const std::size_t n = l.ring.size();
  for (std::size_t k = 0; k < n; ++k) {  // newest first
    const std::uint32_t slot = l.ring[(l.head + n - 1 - k) % n];
    if (slots_[slot].iteration == iteration) {
      touch(slot);  // the caller may add to it
      return &slots_[slot];
    }
  }
  return nullptr;
}

void record_window::clear() noexcept {
  // spare_ can take every slot without growing past slots_.size(): reserve
  // may throw, and clear() must not, so fall back to forgetting the storage.
  squeeze();
  try {
    spare_.reserve(slots_.size());
    spare_.insert(spare_.end(), order_.begin(), order_.end());
  } catch (...) {
    spare_.clear();
    slots_.clear();
    lane_of_.clear();
    position_of_.clear();
    slot_bytes_.clear();
    dirty_.clear();
    written_.clear();
    held_ = 0;
  }
  order_.clear();
  for (auto& [name, l] : lanes_) {
    l.ring.clear();
    l.head = 0;
  }
}

void record_window::trim() {
  for (const std::uint32_t slot : written_) {  // O(records written since), not O(window)
    held_ -= slot_bytes_[slot];
    slot_bytes_[slot] = sizeof(phase_record) + record_bytes(slots_[slot]);
    held_ += slot_bytes_[slot];
    dirty_[slot] = 0;
  }
  written_.clear();
  if (max_bytes_ == 0 || held_ <= max_bytes_) return;
  // Moving an empty record in releases the old one's vectors and strings.
  auto release = [&](std::uint32_t slot) {
    slots_[slot] = phase_record{};
    held_ -= slot_bytes_[slot];
    slot_bytes_[slot] = sizeof(phase_record) + record_bytes(slots_[slot]);
    held_ += slot_bytes_[slot];
  };
  for (std::uint32_t slot : spare_)
    if (held_ > max_bytes_) release(slot);
  squeeze();
  spare_.reserve(spare_.size() + order_.size());  // so that dropping cannot throw half way
  // Oldest first. A run met here that is not its schedule's latest is that
  // schedule's oldest kept run (the older ones were dropped just before, and
  // once its latest was met and kept, the schedule has no later run), so it
  // leaves the front of its lane's ring.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < order_.size(); ++i) {
    const std::uint32_t slot = order_[i];
    lane& l = *lane_of_[slot];
    if (held_ <= max_bytes_ || slot == l.newest()) {
      position_of_[slot] = static_cast<std::uint32_t>(kept);
      order_[kept++] = slot;
      continue;
    }
    std::rotate(l.ring.begin(), l.ring.begin() + static_cast<std::ptrdiff_t>(l.head), l.ring.end());
    l.ring.erase(l.ring.begin());  // ring[head] was `slot`: back to run order, head 0
    l.head = 0;
    release(slot);
    spare_.push_back(slot);
    ++trimmed_;
  }
  order_.resize(kept);
}

std::size_t record_window::bytes() const noexcept {
  std::size_t n = slots_.size() * sizeof(phase_record) + vector_bytes(order_) + vector_bytes(spare_) +
                  vector_bytes(lane_of_) + vector_bytes(position_of_) + vector_bytes(slot_bytes_) +
                  vector_bytes(dirty_) + vector_bytes(written_);
  for (const phase_record& r : slots_) n += record_bytes(r);
  n += vector_bytes(keyed_);
  for (const auto& [name, l] : lanes_) n += sizeof(name) + sizeof(l) + string_bytes(name) + vector_bytes(l.ring);
  return n;
}

}  // namespace cws::steal_tree
