// Hint homes (hint.hpp): PufferFish's find_place, first half. The second
// half, from a home to a place, is place_tree::find_place.

#include "cws/hint.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cws {

namespace {
// Offsets of the first and last byte of a hint inside its region, the end
// clamped to the region. Precondition: region set, contains begin, bytes > 0.
struct byte_span {
  std::size_t first, last;
};
byte_span span_of(const touch_hint& h) noexcept {
  const auto first = static_cast<std::size_t>(static_cast<const std::byte*>(h.begin) -
                                              static_cast<const std::byte*>(h.region->begin()));
  return {first, std::min(first + h.bytes, h.region->bytes()) - 1};
}
}  // namespace

hint_home home_of(const touch_hint& h) noexcept {
  const numa::region* r = h.region;
  if (r == nullptr || h.bytes == 0 || !r->contains(h.begin)) return {};
  const auto [first, last] = span_of(h);
  const int s = r->node_of_offset(first);
  if (s < 0) return {};  // first touch: the home is unknown
  if (s != r->node_of_offset(last)) return {hint_home::kind::spans, 0};
  // Interleaved pages alternate nodes, so first and last byte can agree on a
  // range that covers N + 1 pages or more: any range of two or more pages spans.
  const bool alternates = r->where().kind == numa::placement_kind::interleaved && r->nodes() > 1;
  if (alternates && first / r->page_size() != last / r->page_size()) return {hint_home::kind::spans, 0};
  return {hint_home::kind::node, static_cast<unsigned>(s)};
}

hint_home home_of(std::span<const touch_hint> hints, unsigned own_numa) noexcept {
  if (hints.size() == 1) return home_of(hints[0]);
  // Pages per node over the single-node hints; few hints, so a short list.
  struct tally {
    unsigned node;
    std::uint64_t pages;
  };
  constexpr std::size_t inline_hints = 16;
  tally inline_tally[inline_hints];
  std::vector<tally> heap_tally;
  tally* counts = inline_tally;
  if (hints.size() > inline_hints) {
    try {
      heap_tally.resize(hints.size());
    } catch (...) {
      return {};  // no memory for the count: no home, an ordinary spawn
    }
    counts = heap_tally.data();
  }
  std::size_t distinct = 0, homed = 0, spanning = 0;
  for (const touch_hint& h : hints) {
    const hint_home one = home_of(h);
    if (one.what == hint_home::kind::none) continue;
    ++homed;
    if (one.what == hint_home::kind::spans) {
      ++spanning;
      continue;
    }
    const std::size_t page = h.region->page_size();
    const auto [first, last] = span_of(h);
    const std::uint64_t pages = last / page - first / page + 1;
    std::size_t i = 0;
    while (i < distinct && counts[i].node != one.numa_node) ++i;
    if (i == distinct) counts[distinct++] = {one.numa_node, 0};
    counts[i].pages += pages;
  }
  if (homed == 0) return {};
  if (2 * spanning > homed) return {hint_home::kind::spans, 0};
  const tally* best = nullptr;
  for (std::size_t i = 0; i < distinct; ++i) {
    const tally& c = counts[i];
    if (best == nullptr || c.pages > best->pages ||
        (c.pages == best->pages && best->node != own_numa && (c.node == own_numa || c.node < best->node)))
      best = &c;
  }
  return {hint_home::kind::node, best->node};
}

}  // namespace cws
