#include "cws/steal_tree/tree_storage.hpp"

#include <algorithm>
#include <bit>
#include <utility>

namespace cws::steal_tree {

void resize_segments(tree& t, std::size_t n, steal_spares& spares) {
  for (std::size_t i = n; i < t.segments.size(); ++i)
    if (t.segments[i].steals.capacity() > 0) {
      t.segments[i].steals.clear();
      spares.push_back(std::move(t.segments[i].steals));
    }
  t.segments.resize(n);
}

void prepare_steals(segment& s, std::size_t n, steal_spares& spares) {
  s.steals.clear();
  if (s.steals.capacity() < n && !spares.empty()) {
    // What s held (possibly nothing) goes back in exchange.
    std::swap(s.steals, spares.back());
    if (spares.back().capacity() == 0) spares.pop_back();
  }
  // Allocates only when no parked list was large enough; then rounded up, so
  // that a list reused for other segments later rarely has to grow again.
  if (s.steals.capacity() < n) s.steals.reserve(std::max<std::size_t>(std::bit_ceil(n), 4));
}

void assign_tree(tree& dst, const tree& src, steal_spares& spares) {
  if (&dst == &src) return;
  dst.workers = src.workers;
  resize_segments(dst, src.segments.size(), spares);
  for (std::size_t i = 0; i < src.segments.size(); ++i) {
    const segment& s = src.segments[i];
    segment& d = dst.segments[i];
    d.worker = s.worker;
    d.parent = s.parent;
    d.level = s.level;
    d.step = s.step;
    d.start_ns = s.start_ns;
    d.end_ns = s.end_ns;
    d.tasks = s.tasks;
    prepare_steals(d, s.steals.size(), spares);
    d.steals.assign(s.steals.begin(), s.steals.end());
  }
  // One list per worker: the count only changes with the worker count.
  dst.worker_segments.resize(src.worker_segments.size());
  for (std::size_t w = 0; w < src.worker_segments.size(); ++w)
    dst.worker_segments[w].assign(src.worker_segments[w].begin(), src.worker_segments[w].end());
  dst.audit.assign(src.audit.begin(), src.audit.end());
  dst.paths.assign(src.paths.begin(), src.paths.end());
}

std::size_t tree_bytes(const tree& t) noexcept {
  std::size_t n = t.segments.capacity() * sizeof(segment) +
                  t.worker_segments.capacity() * sizeof(t.worker_segments[0]) +
                  t.audit.capacity() * sizeof(audit_record) + t.paths.capacity() * sizeof(std::uint32_t);
  for (const segment& s : t.segments) n += s.steals.capacity() * sizeof(steal_point);
  for (const auto& ws : t.worker_segments) n += ws.capacity() * sizeof(std::uint32_t);
  return n;
}

std::size_t spare_bytes(const steal_spares& spares) noexcept {
  std::size_t n = spares.capacity() * sizeof(spares[0]);
  for (const auto& v : spares) n += v.capacity() * sizeof(steal_point);
  return n;
}

}  // namespace cws::steal_tree
