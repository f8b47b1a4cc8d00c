#include "cws/steal_tree/recorder.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <utility>

#include <fmt/format.h>

#include "audit_log.hpp"
#include "cws/error.hpp"

namespace cws::steal_tree {

namespace {

// Segments a worker buffer holds without reallocating on the hot path, at first.
constexpr std::size_t initial_segments = 256;
// Segments open at once on a worker (1 + its nesting depth), at first.
constexpr std::size_t initial_open = 16;

template <class T>
std::size_t vector_bytes(const std::vector<T>& v) noexcept {
  return v.capacity() * sizeof(T);
}

}  // namespace

// ---------------------------------------------------------------- life cycle

recorder::recorder(cws::runtime& rt)
    : rt_(rt),
      audit_(rt.config().audit),
      audit_log_(std::make_unique<audit_log>()),
      buffers_(rt.workers()),
      window_(rt.config().history, rt.config().history_bytes) {
  for (buffer& b : buffers_) {
    b.segments.reserve(initial_segments);
    b.open.reserve(initial_open);
    b.open_paths.reserve(initial_open * initial_open);
  }
  rt_.add_observer(*this);
}

recorder::~recorder() {
  try {
    rt_.remove_observer(*this);
  } catch (...) {  // only possible during a phase, which a runtime's destructor never is
  }
}

std::unique_ptr<cws::runtime_extension> recorder::make(cws::runtime& rt) {
  if (!rt.config().record) return nullptr;
  return std::make_unique<recorder>(rt);
}

recorder* recorder_of(const cws::runtime& rt) noexcept { return dynamic_cast<recorder*>(rt.extension(extension_name)); }

void recorder::clear() noexcept { window_.clear(); }

const phase_record* recorder::latest(std::string_view schedule) const noexcept { return window_.latest(schedule); }

const phase_record* recorder::latest(const cws::schedule& s) const noexcept { return window_.latest_keyed(s.index()); }

std::size_t recorder::history_bytes() const noexcept { return window_.bytes(); }

std::size_t recorder::merge_scratch::bytes() const noexcept {
  return vector_bytes(base) + vector_bytes(worker_of) + vector_bytes(parent) + vector_bytes(first) +
         vector_bytes(kids) + vector_bytes(fill) + vector_bytes(final_of) + vector_bytes(order) + vector_bytes(stack) +
         vector_bytes(raw);
}

std::size_t recorder::buffer_bytes() const noexcept {
  std::size_t n = vector_bytes(buffers_) + scratch_.bytes() + spare_bytes(spare_steals_) + audit_log_->bytes();
  for (const buffer& b : buffers_)
    n += vector_bytes(b.segments) + vector_bytes(b.paths) + vector_bytes(b.open) + vector_bytes(b.open_paths);
  return n;
}

// ---------------------------------------------------------------- events

void recorder::on_phase_begin(const cws::phase_info& info) {
  auditing_ = audit_ || std::exchange(audit_next_, false);
  if (buffers_.size() < info.workers) buffers_.resize(info.workers);
  for (buffer& b : buffers_) {
    b.segments.clear();
    b.paths.clear();
    b.overflow = false;
  }
  if (auditing_) audit_log_->begin_phase(static_cast<unsigned>(buffers_.size()));
  in_phase_ = true;
}

// Hot path (once per segment, on the worker): the worker's own part of its
// buffer only until the segment ends (buffer's comment).
void recorder::on_segment_begin(unsigned worker, cws::segment_id seg, const cws::task_tag& root,
                                std::uint64_t time_ns) {
  if (worker >= buffers_.size()) [[unlikely]]
    return;  // cannot happen: buffers_ covers every worker of the phase
  buffer& b = buffers_[worker];
  const std::uint64_t seq = cws::segment_seq(seg);
  // The core numbers a worker's segments 0, 1, 2, ... in start order, from 0
  // in every phase: the first one of a phase finds nothing open.
  if (seq == 0) [[unlikely]] {
    b.open.clear();
    b.open_paths.clear();
  }
  b.open.push_back(open_segment{seq, raw_segment{root, time_ns, time_ns, 0, no_path, false}, 0});
}

// Right after on_segment_begin of the same segment, on the same worker.
void recorder::on_segment_path(unsigned worker, cws::segment_id seg, std::span<const std::uint32_t> ranks) {
  if (worker >= buffers_.size()) [[unlikely]]
    return;
  buffer& b = buffers_[worker];
  if (b.open.empty() || b.open.back().seq != cws::segment_seq(seg) || b.open.back().path_length != 0 ||
      ranks.size() != b.open.back().raw.root.level) [[unlikely]] {
    b.overflow = true;
    return;
  }
  b.open.back().path_length = static_cast<std::uint32_t>(ranks.size());
  b.open_paths.insert(b.open_paths.end(), ranks.begin(), ranks.end());
}

// The segment moves to the part the caller reads (segments are indexed by
// their start order and end innermost first, so a slot may be filled before
// the ones below it: those are marked not ended until their own end).
void recorder::on_segment_end(unsigned worker, cws::segment_id seg, std::uint64_t tasks, std::uint64_t time_ns) {
  if (worker >= buffers_.size()) [[unlikely]]
    return;
  buffer& b = buffers_[worker];
  const std::uint64_t seq = cws::segment_seq(seg);
  if (b.open.empty() || b.open.back().seq != seq) [[unlikely]] {
    b.overflow = true;
    return;
  }
  const open_segment& o = b.open.back();
  if (seq >= b.segments.size()) b.segments.resize(seq + 1);
  raw_segment& s = b.segments[seq];
  if (s.ended) [[unlikely]]
    b.overflow = true;  // the same number twice in one phase
  s = o.raw;
  s.end_ns = time_ns;
  s.tasks = tasks;
  s.ended = true;
  if (o.raw.root.level != 0 && o.path_length == o.raw.root.level) {
    const auto first = b.open_paths.end() - o.path_length;
    s.path = static_cast<std::uint32_t>(b.paths.size());
    b.paths.insert(b.paths.end(), first, b.open_paths.end());
  }
  b.open_paths.resize(b.open_paths.size() - o.path_length);
  b.open.pop_back();
}

// Audit runs (audit_log.hpp), on the worker.
void recorder::on_task_begin(unsigned worker, cws::segment_id seg, const cws::task_tag& tag) {
  audit_log_->on_task_begin(worker, seg, tag);
}

void recorder::on_spawn(unsigned worker, const cws::task_tag& tag) { audit_log_->on_spawn(worker, tag); }

void recorder::on_phase_end(const cws::phase_stats& stats) {
  if (!in_phase_) return;
  in_phase_ = false;
  // Every field is overwritten: `r` may be the evicted oldest run of this
  // schedule, whose strings and vectors are reused (assignment keeps capacity).
  bool recycled = false;
  phase_record& r = window_.next(stats.phase.schedule, stats.phase.schedule_index, recycled);
  if (!recycled) {  // else the schedule's own evicted run: same name, same policy
    r.schedule = stats.phase.schedule;
    r.policy = stats.phase.policy;
  }
  r.iteration = stats.phase.iteration;
  r.wall_s = stats.wall_s;
  r.stats = stats.per_worker;
  if (stats.locality)
    r.locality = *stats.locality;  // assigns into an engaged one
  else
    r.locality.reset();
  r.relocalizations.clear();
  const unsigned workers = static_cast<unsigned>(std::max<std::size_t>(stats.per_worker.size(), stats.phase.workers));
  const unsigned recorded = std::min<unsigned>(workers, static_cast<unsigned>(buffers_.size()));
  phase_start_ns_ = earliest_start(recorded);
  if (merge(recorded, r.steals) && !warned_) {
    warned_ = true;
    fmt::print(stderr,
               "cws: steal-tree recorder: inconsistent segment events from the core in phase '{}'; the recorded "
               "tree may be incomplete (warning shown once)\n",
               stats.phase.schedule);
  }
  r.steals.workers = workers;
  if (r.steals.worker_segments.size() < workers) r.steals.worker_segments.resize(workers);
  window_.trim();  // the byte bound (CWS_HISTORY_MB), now that the new run's size is known
}

// Between phases, on the calling thread. Relocalize works on a schedule's
// latest run, normally the newest record of that schedule; searching by
// (schedule, iteration) also copes with a history that lost that run
// (clear(), or recording attached later): then the report is dropped.
void recorder::on_relocalize(const cws::relocalization_report& report) {
  if (phase_record* r = window_.find(report.schedule, report.iteration)) {
    r->relocalizations.push_back(report);
    window_.trim();
  }
}

// ---------------------------------------------------------------- merge

// Turns the per-worker buffers into a tree, written over `t`. Temporary index
// of a segment: base[worker] + seq; final index: its position in the
// pre-order of the tree. Every array is scratch_ storage or t's own, reused
// from the previous phase (assign / resize / clear keep capacity).
bool recorder::merge(unsigned workers, tree& t) {
  if (merge_star(workers, t)) return false;
  merge_scratch& m = scratch_;
  m.base.assign(workers + 1, 0);
  for (unsigned w = 0; w < workers; ++w)
    m.base[w + 1] = m.base[w] + static_cast<std::uint32_t>(buffers_[w].segments.size());
  const std::uint32_t n = m.base[workers];

  bool damaged = false;
  for (unsigned w = 0; w < workers; ++w) damaged |= buffers_[w].overflow;

  auto temp_of = [&](cws::segment_id id) -> std::uint32_t {
    if (id == cws::no_segment) return no_parent;
    const unsigned w = cws::segment_worker(id);
    const std::uint64_t seq = cws::segment_seq(id);
    if (w >= workers || seq >= buffers_[w].segments.size()) return no_parent;
    return m.base[w] + static_cast<std::uint32_t>(seq);
  };

  // Flat views of the temporary segments.
  m.raw.resize(n);
  m.worker_of.resize(n);
  m.parent.resize(n);
  for (unsigned w = 0; w < workers; ++w)
    for (std::size_t s = 0; s < buffers_[w].segments.size(); ++s) {
      const std::uint32_t i = m.base[w] + static_cast<std::uint32_t>(s);
      m.raw[i] = &buffers_[w].segments[s];
      m.worker_of[i] = w;
      m.parent[i] = temp_of(m.raw[i]->root.segment);
      if (m.parent[i] == no_parent && m.raw[i]->root.segment != cws::no_segment) damaged = true;
      if (!m.raw[i]->ended) damaged = true;
    }

  // Children per parent (CSR), sorted by (level, step).
  m.first.assign(n + 1, 0);
  m.kids.resize(n);
  std::uint32_t roots = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    if (m.parent[i] != no_parent)
      ++m.first[m.parent[i] + 1];
    else
      ++roots;
  for (std::uint32_t i = 0; i < n; ++i) m.first[i + 1] += m.first[i];
  m.fill.assign(m.first.begin(), m.first.end() - 1);
  for (std::uint32_t i = 0; i < n; ++i)
    if (m.parent[i] != no_parent) m.kids[m.fill[m.parent[i]]++] = i;
  auto key = [&](std::uint32_t i) { return std::pair{m.raw[i]->root.level, m.raw[i]->root.step}; };
  for (std::uint32_t i = 0; i < n; ++i)
    std::sort(m.kids.begin() + m.first[i], m.kids.begin() + m.first[i + 1],
              [&](std::uint32_t x, std::uint32_t y) { return key(x) < key(y); });
  if (roots > 1) damaged = true;

  // Pre-order numbering, starting at the phase root (worker 0's first segment).
  m.final_of.assign(n, no_parent);
  m.order.clear();
  m.stack.clear();
  auto visit_from = [&](std::uint32_t start) {
    m.stack.push_back(start);
    while (!m.stack.empty()) {
      const std::uint32_t v = m.stack.back();
      m.stack.pop_back();
      if (m.final_of[v] != no_parent) continue;
      m.final_of[v] = static_cast<std::uint32_t>(m.order.size());
      m.order.push_back(v);
      for (std::uint32_t k = m.first[v + 1]; k-- > m.first[v];) m.stack.push_back(m.kids[k]);
    }
  };
  if (n > 0) {
    std::uint32_t root = 0;
    if (m.parent[0] != no_parent) {  // worker 0's first segment should be the phase root
      damaged = true;
      for (std::uint32_t i = 0; i < n; ++i)
        if (m.parent[i] == no_parent) {
          root = i;
          break;
        }
    }
    visit_from(root);
    // Segments unreachable from the root (only with damaged input): kept, as roots of their own.
    for (std::uint32_t i = 0; i < n; ++i)
      if (m.final_of[i] == no_parent && m.parent[i] == no_parent) visit_from(i);
    for (std::uint32_t i = 0; i < n; ++i)
      if (m.final_of[i] == no_parent) {
        m.parent[i] = no_parent;
        visit_from(i);
      }
  }

  t.workers = workers;
  t.paths.clear();
  resize_segments(t, n, spare_steals_);
  for (std::uint32_t f = 0; f < n; ++f) {
    const std::uint32_t v = m.order[f];
    const raw_segment& r = *m.raw[v];
    segment& s = t.segments[f];
    write_segment(s, r, m.worker_of[v], m.parent[v] == no_parent ? no_parent : m.final_of[m.parent[v]]);
    prepare_steals(s, m.first[v + 1] - m.first[v], spare_steals_);
    for (std::uint32_t k = m.first[v]; k < m.first[v + 1]; ++k) {
      const std::uint32_t c = m.kids[k];
      steal_point p{m.raw[c]->root.level, m.raw[c]->root.step, m.worker_of[c], m.final_of[c]};
      if (const raw_segment& child = *m.raw[c]; child.path != no_path) {
        const auto& from = buffers_[m.worker_of[c]].paths;
        p.path = static_cast<std::uint32_t>(t.paths.size());
        t.paths.insert(t.paths.end(), from.begin() + child.path, from.begin() + child.path + child.root.level);
      }
      s.steals.push_back(p);
    }
  }

  t.worker_segments.resize(workers);
  for (unsigned w = 0; w < workers; ++w) {
    auto& ws = t.worker_segments[w];
    ws.clear();
    for (std::uint32_t i = m.base[w]; i < m.base[w + 1]; ++i) ws.push_back(m.final_of[i]);
  }

  t.audit.clear();
  if (auditing_)
    damaged |= merge_audit(t, workers, [&](cws::segment_id id) {
      const std::uint32_t i = temp_of(id);
      return i == no_parent ? no_parent : m.final_of[i];
    });

  return damaged;
}

// The earliest start among the phase's ended segments: the root's, which
// begins first (0 when nothing was recorded). O(segments).
std::uint64_t recorder::earliest_start(unsigned workers) const noexcept {
  std::uint64_t first = 0;
  for (unsigned w = 0; w < workers; ++w)
    for (const raw_segment& r : buffers_[w].segments)
      if (r.ended && (first == 0 || r.start_ns < first)) first = r.start_ns;
  return first;
}

// A segment's own fields (not its steals), times relative to the phase start.
void recorder::write_segment(segment& s, const raw_segment& r, std::uint32_t worker, std::uint32_t parent) const {
  s.worker = worker;
  s.parent = parent;
  s.level = r.root.level;
  s.step = r.root.step;
  s.start_ns = r.start_ns > phase_start_ns_ ? r.start_ns - phase_start_ns_ : 0;
  s.end_ns = std::max(r.end_ns > phase_start_ns_ ? r.end_ns - phase_start_ns_ : 0, s.start_ns);
  s.tasks = r.tasks;
}

// A phase whose every stolen segment was stolen from the root segment, each
// helper running at most one (a replay of a template with one steal per
// helper, as most on a few workers are), or nobody stole from (a small
// phase, a serial elision): the tree is the root, then the thieves' segments
// in (level, step) order, the same tree and numbering as merge() makes,
// written without its scratch arrays, sort and walk. Returns false, leaving
// `t` untouched, when the phase needs the general merge.
bool recorder::merge_star(unsigned workers, tree& t) {
  if (auditing_ || workers == 0) return false;
  const buffer& root_buffer = buffers_[0];
  if (root_buffer.overflow || root_buffer.segments.size() != 1) return false;
  const raw_segment& root = root_buffer.segments[0];
  if (!root.ended || root.root.segment != cws::no_segment) return false;
  const cws::segment_id root_id = cws::make_segment_id(0, 0);
  std::array<unsigned, max_star_thieves> thieves;  // workers with a segment, in (level, step) order below
  unsigned count = 0;
  for (unsigned w = 1; w < workers; ++w) {
    const buffer& b = buffers_[w];
    if (b.overflow || b.segments.size() > 1) return false;
    if (b.segments.empty()) continue;
    const raw_segment& r = b.segments[0];
    if (!r.ended || r.root.segment != root_id || count == max_star_thieves) return false;
    thieves[count++] = w;
  }
  const auto key = [&](unsigned w) {
    const cws::task_tag& tag = buffers_[w].segments[0].root;
    return std::pair{tag.level, tag.step};
  };
  // Insertion sort: a handful of thieves (no two steals of a valid phase
  // share a (level, step)).
  for (unsigned i = 1; i < count; ++i)
    for (unsigned j = i; j > 0 && key(thieves[j]) < key(thieves[j - 1]); --j) std::swap(thieves[j], thieves[j - 1]);

  t.workers = workers;
  t.paths.clear();
  t.audit.clear();
  resize_segments(t, 1 + count, spare_steals_);
  write_segment(t.segments[0], root, 0, no_parent);
  prepare_steals(t.segments[0], count, spare_steals_);
  t.worker_segments.resize(workers);
  t.worker_segments[0].assign(1, 0);
  for (unsigned w = 1; w < workers; ++w) t.worker_segments[w].clear();
  for (unsigned i = 0; i < count; ++i) {
    const unsigned w = thieves[i];
    const raw_segment& r = buffers_[w].segments[0];
    const std::uint32_t index = 1 + i;
    steal_point p{r.root.level, r.root.step, w, index};
    if (r.path != no_path) {
      const auto& from = buffers_[w].paths;
      p.path = static_cast<std::uint32_t>(t.paths.size());
      t.paths.insert(t.paths.end(), from.begin() + r.path, from.begin() + r.path + r.root.level);
    }
    t.segments[0].steals.push_back(p);
    segment& s = t.segments[index];
    write_segment(s, r, w, 0);
    prepare_steals(s, 0, spare_steals_);
    t.worker_segments[w].assign(1, index);
  }
  return true;
}

// The audit records of every worker (grouped by worker, in start order),
// with their parent links. Returns true when an event could not be placed.
bool recorder::merge_audit(tree& t, unsigned workers,
                           const std::function<std::uint32_t(cws::segment_id)>& segment_index) {
  return audit_log_->merge(
      t.audit, workers, [this](unsigned w) { return buffers_[w].segments.size(); }, segment_index);
}

void register_recorder() {
  static const bool done = cws::extension_registry::add(std::string(extension_name), &recorder::make);
  (void)done;
}

}  // namespace cws::steal_tree
