#include "audit_log.hpp"

#include <algorithm>
#include <tuple>

namespace cws::steal_tree {

namespace {

template <class T>
std::size_t vector_bytes(const std::vector<T>& v) noexcept {
  return v.capacity() * sizeof(T);
}

}  // namespace

void audit_log::begin_phase(unsigned workers) {
  if (logs_.size() < workers) logs_.resize(workers);
  for (worker_log& b : logs_) {
    b.tasks.clear();
    b.spawns.clear();
    b.open.clear();
    b.running.clear();
    b.unseen = 0;
    b.damaged = false;
  }
}

bool audit_log::worker_log::enter(std::uint32_t segment) {
  if (!open.empty() && open.back().segment == segment) [[likely]]
    return true;
  while (!open.empty() && open.back().segment > segment) {  // resumes an outer segment: the inner ones ended
    running.resize(open.back().base);
    open.pop_back();
  }
  if (!open.empty() && open.back().segment == segment) return true;
  if (segment < unseen) return false;  // that segment already ended
  open.push_back(open_segment{segment, static_cast<std::uint32_t>(running.size())});
  unseen = segment + 1;
  return true;
}

// Temporary index of a segment: first_segment_[worker] + its sequence
// number (as the recorder's merge numbers them); segment_final_ maps it to
// the tree's index, so the per-task work is array lookups.
bool audit_log::merge(std::vector<audit_record>& out, unsigned workers,
                      const std::function<std::size_t(unsigned)>& segments_of,
                      const std::function<std::uint32_t(cws::segment_id)>& segment_index) {
  workers = std::min<unsigned>(workers, static_cast<unsigned>(logs_.size()));
  bool damaged = false;
  first_segment_.assign(workers + 1, 0);
  first_record_.assign(workers + 1, 0);
  for (unsigned w = 0; w < workers; ++w) {
    first_segment_[w + 1] = first_segment_[w] + static_cast<std::uint32_t>(segments_of(w));
    first_record_[w + 1] = first_record_[w] + static_cast<std::uint32_t>(logs_[w].tasks.size());
    damaged |= logs_[w].damaged;
  }
  const std::uint32_t segments = first_segment_[workers];
  segment_final_.resize(segments);
  for (unsigned w = 0; w < workers; ++w)
    for (std::uint32_t s = first_segment_[w]; s < first_segment_[w + 1]; ++s)
      segment_final_[s] = segment_index(cws::make_segment_id(w, s - first_segment_[w]));
  auto temp_of = [&](cws::segment_id id) -> std::uint32_t {
    if (id == cws::no_segment) return no_parent;
    const unsigned w = cws::segment_worker(id);
    const std::uint64_t seq = cws::segment_seq(id);
    if (w >= workers || seq >= first_segment_[w + 1] - first_segment_[w]) return no_parent;
    return first_segment_[w] + static_cast<std::uint32_t>(seq);
  };
  auto final_of = [&](std::uint32_t temp) { return temp == no_parent ? no_parent : segment_final_[temp]; };

  // The records, in place; a record with an unknown segment is marked
  // (segment = no_parent) and dropped at the end.
  const auto base = static_cast<std::uint32_t>(out.size());
  out.reserve(out.size() + first_record_[workers]);
  roots_.clear();
  bool dropped = false;
  for (unsigned w = 0; w < workers; ++w) {
    const std::uint32_t own_segments = first_segment_[w + 1] - first_segment_[w];
    logs_[w].tasks.for_each([&](const task_entry& e) {
      const std::uint32_t exec = e.segment < own_segments ? segment_final_[first_segment_[w] + e.segment] : no_parent;
      const std::uint32_t spawn_temp = temp_of(e.spawn_segment);
      const std::uint32_t spawn = final_of(spawn_temp);
      const auto record = static_cast<std::uint32_t>(out.size());
      const std::uint32_t parent = e.parent == no_parent ? no_parent : base + first_record_[w] + e.parent;
      out.push_back(audit_record{exec, spawn, e.level, e.step, w, parent});
      if (exec == no_parent || (spawn == no_parent && e.spawn_segment != cws::no_segment)) {
        out.back().segment = no_parent;
        dropped = true;
      } else if (parent == no_parent && e.spawn_segment != cws::no_segment) {
        roots_.push_back(stolen_root{spawn_temp, e.level, e.step, record});
      }
    });
  }

  // Parents of the segment roots, from the spawning workers' spawn logs: per
  // spawning segment, its stolen children sorted by (level, step).
  auto key = [](const stolen_root& r) { return std::tie(r.spawn_segment, r.level, r.step); };
  std::sort(roots_.begin(), roots_.end(), [&](const stolen_root& x, const stolen_root& y) { return key(x) < key(y); });
  roots_of_.assign(segments + 1, 0);
  for (const stolen_root& r : roots_) ++roots_of_[r.spawn_segment + 1];
  for (std::uint32_t s = 0; s < segments; ++s) roots_of_[s + 1] += roots_of_[s];
  for (unsigned w = 0; w < workers && !roots_.empty(); ++w) {
    if (roots_of_[first_segment_[w]] == roots_of_[first_segment_[w + 1]]) continue;  // nothing of w's was stolen
    const std::uint32_t own_segments = first_segment_[w + 1] - first_segment_[w];
    const std::size_t own_tasks = logs_[w].tasks.size();
    logs_[w].spawns.for_each([&](const spawn_entry& sp) {
      if (sp.segment >= own_segments) return;
      const std::uint32_t temp = first_segment_[w] + sp.segment;
      const auto lo = roots_.begin() + roots_of_[temp], hi = roots_.begin() + roots_of_[temp + 1];
      if (lo == hi) return;
      const stolen_root wanted{temp, sp.level, sp.step, 0};
      const auto it =
          std::lower_bound(lo, hi, wanted, [&](const stolen_root& x, const stolen_root& y) { return key(x) < key(y); });
      if (it != hi && key(*it) == key(wanted) && sp.parent < own_tasks)
        out[it->record].parent = base + first_record_[w] + sp.parent;
    });
  }
  for (const stolen_root& r : roots_) damaged |= out[r.record].parent == no_parent;

  if (dropped) {  // damaged input only: close the gaps, re-point the parents
    damaged = true;
    kept_.resize(out.size() - base);
    std::uint32_t next = base;
    for (std::uint32_t i = base; i < out.size(); ++i) {
      kept_[i - base] = out[i].segment == no_parent ? no_parent : next;
      if (out[i].segment != no_parent) out[next++] = out[i];
    }
    out.resize(next);
    for (std::uint32_t i = base; i < out.size(); ++i)
      if (std::uint32_t& p = out[i].parent; p != no_parent) {
        p = kept_[p - base];
        damaged |= p == no_parent;
      }
  }
  return damaged;
}

std::size_t audit_log::bytes() const noexcept {
  std::size_t n = vector_bytes(logs_) + vector_bytes(first_segment_) + vector_bytes(segment_final_) +
                  vector_bytes(first_record_) + vector_bytes(roots_) + vector_bytes(roots_of_) + vector_bytes(kept_);
  for (const worker_log& b : logs_)
    n += b.tasks.bytes() + b.spawns.bytes() + vector_bytes(b.open) + vector_bytes(b.running);
  return n;
}

}  // namespace cws::steal_tree
