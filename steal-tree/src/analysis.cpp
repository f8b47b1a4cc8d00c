#include "cws/steal_tree/analysis.hpp"

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "cws/error.hpp"

namespace cws::steal_tree {

namespace {

// Depth of every segment (root = 1), validating the parent links: segments[0]
// is the root, every other segment's parent chain reaches it without a cycle.
// Into `d`, with `chain` as scratch (both keep their capacity).
void depths_into(const tree& t, std::vector<std::uint32_t>& d, std::vector<std::uint32_t>& chain) {
  const std::size_t n = t.segments.size();
  d.assign(n, 0);
  if (n == 0) return;
  if (n > no_segment_index) throw cws::error("steal tree: too many segments");
  if (t.segments[0].parent != no_parent)
    throw cws::error(
        fmt::format("steal tree: segments[0] must be the root segment (it has parent {})", t.segments[0].parent));
  d[0] = 1;
  chain.clear();
  for (std::uint32_t i = 1; i < n; ++i) {
    std::uint32_t v = i;
    chain.clear();
    while (d[v] == 0) {
      const std::uint32_t p = t.segments[v].parent;
      if (p == no_parent)
        throw cws::error(fmt::format("steal tree: segment {} has no parent but is not segments[0]", v));
      if (p >= n) throw cws::error(fmt::format("steal tree: segment {} has parent {} (only {} segments)", v, p, n));
      chain.push_back(v);
      if (chain.size() > n) throw cws::error(fmt::format("steal tree: the parent links of segment {} form a cycle", i));
      v = p;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) d[*it] = d[t.segments[*it].parent] + 1;
  }
}

std::vector<std::uint32_t> depths(const tree& t) {
  std::vector<std::uint32_t> d, chain;
  depths_into(t, d, chain);
  return d;
}

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

// ---------------------------------------------------------------- path interning

// Gives every path that occurs in the trees compared a small integer, the
// same in both trees: id 0 is the root path {}, and (parent id, level, step)
// names a longer one.
struct step_key {
  std::uint32_t parent;
  std::uint32_t level;
  std::uint32_t step;
  friend bool operator==(const step_key&, const step_key&) = default;
};
struct step_key_hash {
  std::size_t operator()(const step_key& k) const noexcept {
    std::uint64_t h = k.parent * 0x9e3779b97f4a7c15ull;
    h ^= (std::uint64_t{k.level} << 32 | k.step) + 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

class path_table {
 public:
  std::uint32_t intern(std::uint32_t parent, std::uint32_t level, std::uint32_t step) {
    auto [it, added] = ids_.try_emplace(step_key{parent, level, step}, next_);
    if (added) ++next_;
    return it->second;
  }
  std::uint32_t size() const noexcept { return next_; }

 private:
  std::unordered_map<step_key, std::uint32_t, step_key_hash> ids_;
  std::uint32_t next_ = 1;
};

constexpr std::uint32_t none = ~std::uint32_t{0};

void check_workers(const tree& t, const std::vector<std::uint32_t>& node_of_worker, const char* which) {
  auto check = [&](std::uint32_t w) {
    if (w >= node_of_worker.size())
      throw cws::error(
          fmt::format("schedule_distance: worker {} of tree {} has no NUMA node (node_of_worker "
                      "covers {} workers)",
                      w, which, node_of_worker.size()));
  };
  for (const segment& s : t.segments) check(s.worker);
  for (const audit_record& r : t.audit) check(r.worker);
}

struct one_way {
  double moved_worker = 0;
  double moved_node = 0;
};

// Segment mode: path ids in the workspace's open-addressing table (the same
// ids in both trees), without allocating once the table and arrays are large
// enough.
class segment_paths {
 public:
  // Room for `bound` paths besides the root's.
  segment_paths(distance_workspace& ws, std::size_t bound) : ws_(ws) {
    std::size_t cap = 16;
    while (cap < 2 * bound + 2) cap *= 2;
    ws_.table.assign(cap, {none, 0, 0, 0});
    mask_ = cap - 1;
  }
  std::uint32_t size() const noexcept { return next_; }

  // Path id of every segment of `t` into `id`, parents before children
  // (segments ordered by depth, a stable counting sort).
  void ids(const tree& t, std::vector<std::uint32_t>& id) {
    depths_into(t, ws_.depth, ws_.chain);
    const std::size_t n = t.segments.size();
    std::uint32_t deepest = 0;
    for (std::uint32_t x : ws_.depth) deepest = std::max(deepest, x);
    ws_.count.assign(deepest + 2, 0);
    for (std::uint32_t x : ws_.depth) ++ws_.count[x + 1];
    for (std::size_t k = 1; k < ws_.count.size(); ++k) ws_.count[k] += ws_.count[k - 1];
    ws_.order.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) ws_.order[ws_.count[ws_.depth[i]]++] = i;
    id.assign(n, 0);
    for (std::uint32_t i : ws_.order) {
      if (i == 0) continue;
      const segment& s = t.segments[i];
      id[i] = intern(id[s.parent], s.level, s.step);
    }
  }

 private:
  std::uint32_t intern(std::uint32_t parent, std::uint32_t level, std::uint32_t step) {
    std::size_t h = step_key_hash{}(step_key{parent, level, step}) & mask_;
    for (;; h = (h + 1) & mask_) {
      std::array<std::uint32_t, 4>& e = ws_.table[h];
      if (e[0] == none) {
        e = {parent, level, step, next_};
        return next_++;
      }
      if (e[0] == parent && e[1] == level && e[2] == step) return e[3];
    }
  }

  distance_workspace& ws_;
  std::size_t mask_ = 0;
  std::uint32_t next_ = 1;
};

// Segment mode, a -> b.
one_way segment_direction(const tree& a, const std::vector<std::uint32_t>& ids_a, const tree& b,
                          const std::vector<std::uint32_t>& ids_b, std::uint32_t paths,
                          const std::vector<std::uint32_t>& node, distance_workspace& ws) {
  if (a.segments.empty()) return b.segments.empty() ? one_way{} : one_way{1, 1};
  std::vector<std::uint32_t>& worker_in_b = ws.worker_in_b;
  worker_in_b.assign(paths, none);
  for (std::size_t i = 0; i < b.segments.size(); ++i)
    if (worker_in_b[ids_b[i]] == none) worker_in_b[ids_b[i]] = b.segments[i].worker;
  std::vector<std::uint32_t>& seen = ws.seen;  // first occurrence in a counts
  seen.assign(paths, 0);
  double total = 0;
  for (const segment& s : a.segments) total += static_cast<double>(s.tasks);
  const bool unit = total == 0;
  if (unit) total = static_cast<double>(a.segments.size());
  double moved_w = 0, moved_n = 0;
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    const segment& s = a.segments[i];
    const double w = unit ? 1.0 : static_cast<double>(s.tasks);
    const std::uint32_t other = seen[ids_a[i]]++ == 0 ? worker_in_b[ids_a[i]] : none;
    if (other == none) {
      moved_w += w;
      moved_n += w;
      continue;
    }
    if (other != s.worker) moved_w += w;
    if (node[other] != node[s.worker]) moved_n += w;
  }
  return {ratio(moved_w, total), ratio(moved_n, total)};
}

// ---------------------------------------------------------------- spawn paths

// Whether the audit carries parent links: non-empty, only one record (the
// phase root) without a parent.
bool linked(const tree& t) {
  if (t.audit.empty()) return false;
  std::size_t roots = 0;
  for (const audit_record& r : t.audit) roots += r.parent == no_parent;
  return roots == 1;
}

// Children of every audit record (CSR), each list in spawn order ((level,
// step), then index); validates the links. `root` receives the phase root.
struct audit_children {
  std::vector<std::uint32_t> first, kids;
  std::uint32_t root = no_parent;
};
audit_children children_of(const tree& t) {
  const std::size_t n = t.audit.size();
  if (n >= no_parent) throw cws::error("steal tree: too many audit records");
  audit_children c;
  c.first.assign(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const audit_record& r = t.audit[i];
    if (r.spawn_segment != no_parent && r.spawn_segment >= t.segments.size())
      throw cws::error(fmt::format("steal tree: audit record {} names spawn segment {} (only {} segments)", i,
                                   r.spawn_segment, t.segments.size()));
    if (r.parent == no_parent) {
      if (c.root != no_parent)
        throw cws::error(fmt::format("steal tree: audit records {} and {} both lack a parent", c.root, i));
      c.root = i;
    } else if (r.parent >= n || r.parent == i) {
      throw cws::error(fmt::format("steal tree: audit record {} has parent {} ({} records)", i, r.parent, n));
    } else {
      ++c.first[r.parent + 1];
    }
  }
  if (c.root == no_parent)
    throw cws::error("steal tree: no audit record is the phase root (parent links form a cycle)");
  for (std::size_t i = 0; i < n; ++i) c.first[i + 1] += c.first[i];
  c.kids.resize(n - 1);
  std::vector<std::uint32_t> fill(c.first.begin(), c.first.end() - 1);
  for (std::uint32_t i = 0; i < n; ++i)
    if (t.audit[i].parent != no_parent) c.kids[fill[t.audit[i].parent]++] = i;
  auto key = [&](std::uint32_t i) { return std::tuple{t.audit[i].level, t.audit[i].step, i}; };
  for (std::size_t i = 0; i < n; ++i)
    std::sort(c.kids.begin() + c.first[i], c.kids.begin() + c.first[i + 1],
              [&](std::uint32_t x, std::uint32_t y) { return key(x) < key(y); });
  return c;
}

// Spawn-path id of every audit record in `table` (0: the phase root; a child
// of rank k of a task with id p: table.intern(p, k, 0)).
std::vector<std::uint32_t> spawn_ids(const tree& t, path_table& table) {
  const audit_children c = children_of(t);
  std::vector<std::uint32_t> id(t.audit.size(), none);
  std::vector<std::uint32_t> stack{c.root};
  id[c.root] = 0;
  std::size_t reached = 1;
  while (!stack.empty()) {
    const std::uint32_t p = stack.back();
    stack.pop_back();
    for (std::uint32_t k = c.first[p]; k < c.first[p + 1]; ++k) {
      const std::uint32_t child = c.kids[k];
      id[child] = table.intern(id[p], k - c.first[p], 0);
      ++reached;
      stack.push_back(child);
    }
  }
  if (reached != t.audit.size())
    throw cws::error(
        fmt::format("steal tree: {} audit records are not reachable from the phase root (parent links "
                    "form a cycle)",
                    t.audit.size() - reached));
  return id;
}

// Exact mode, a -> b.
one_way exact_direction(const tree& a, const std::vector<std::uint32_t>& ids_a, const tree& b,
                        const std::vector<std::uint32_t>& ids_b, std::uint32_t names,
                        const std::vector<std::uint32_t>& node) {
  std::vector<std::uint32_t> worker_in_b(names, none);
  for (std::size_t i = 0; i < b.audit.size(); ++i) worker_in_b[ids_b[i]] = b.audit[i].worker;
  double moved_w = 0, moved_n = 0;
  for (std::size_t i = 0; i < a.audit.size(); ++i) {
    const std::uint32_t w = a.audit[i].worker;
    const std::uint32_t other = worker_in_b[ids_a[i]];
    if (other == none) {
      moved_w += 1;
      moved_n += 1;
      continue;
    }
    if (other != w) moved_w += 1;
    if (node[other] != node[w]) moved_n += 1;
  }
  const double total = static_cast<double>(a.audit.size());
  return {ratio(moved_w, total), ratio(moved_n, total)};
}

std::string ms(std::uint64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) * 1e-6); }

}  // namespace

// ---------------------------------------------------------------- totals

totals summarize(const tree& t) {
  totals r;
  const std::vector<std::uint32_t> d = depths(t);
  r.segments = t.segments.size();
  r.steals = r.segments > 0 ? r.segments - 1 : 0;
  for (const segment& s : t.segments) r.tasks += s.tasks;
  for (std::uint32_t x : d) r.depth = std::max(r.depth, x);
  return r;
}

std::vector<std::uint64_t> tasks_per_worker(const tree& t) {
  std::size_t n = t.workers;
  for (const segment& s : t.segments) n = std::max<std::size_t>(n, std::size_t{s.worker} + 1);
  std::vector<std::uint64_t> out(n, 0);
  for (const segment& s : t.segments) out[s.worker] += s.tasks;
  return out;
}

// ---------------------------------------------------------------- tree_index

tree_index::tree_index(const tree& t) : t_(&t), depth_(depths(t)) {
  const std::uint32_t n = static_cast<std::uint32_t>(t.segments.size());
  first_.assign(n + 1, 0);
  for (std::uint32_t i = 1; i < n; ++i) ++first_[t.segments[i].parent + 1];
  for (std::uint32_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
  kids_.resize(n > 0 ? n - 1 : 0);
  std::vector<std::uint32_t> fill(first_.begin(), first_.end() - 1);
  for (std::uint32_t i = 1; i < n; ++i) kids_[fill[t.segments[i].parent]++] = i;
  auto key = [&](std::uint32_t i) { return std::tuple{t.segments[i].level, t.segments[i].step, i}; };
  for (std::uint32_t i = 0; i < n; ++i)
    std::sort(kids_.begin() + first_[i], kids_.begin() + first_[i + 1],
              [&](std::uint32_t x, std::uint32_t y) { return key(x) < key(y); });
}

std::uint32_t tree_index::child(std::uint32_t seg, position at) const {
  if (seg >= depth_.size()) return no_segment_index;
  const auto b = kids_.begin() + first_[seg], e = kids_.begin() + first_[seg + 1];
  auto it = std::lower_bound(b, e, at, [&](std::uint32_t k, const position& p) {
    return position{t_->segments[k].level, t_->segments[k].step} < p;
  });
  if (it == e || position{t_->segments[*it].level, t_->segments[*it].step} != at) return no_segment_index;
  return *it;
}

std::span<const std::uint32_t> tree_index::children(std::uint32_t seg) const {
  if (seg >= depth_.size()) return {};
  return std::span<const std::uint32_t>(kids_).subspan(first_[seg], first_[seg + 1] - first_[seg]);
}

std::uint32_t tree_index::find(const std::vector<position>& path) const {
  if (depth_.empty()) return no_segment_index;
  std::uint32_t s = 0;
  for (const position& p : path)
    if ((s = child(s, p)) == no_segment_index) break;
  return s;
}

std::vector<position> tree_index::path(std::uint32_t seg) const {
  if (seg >= depth_.size()) throw cws::error(fmt::format("steal tree: no segment {}", seg));
  std::vector<position> out(depth_[seg] - 1);
  for (std::uint32_t s = seg; s != 0; s = t_->segments[s].parent)
    out[depth_[s] - 2] = position{t_->segments[s].level, t_->segments[s].step};
  return out;
}

std::uint32_t tree_index::worker_of(const task_path& p) const {
  const std::uint32_t s = find(p.segment);
  if (s == no_segment_index) return no_segment_index;
  if (p.task != position{0, 0})
    if (const std::uint32_t c = child(s, p.task); c != no_segment_index) return t_->segments[c].worker;
  return t_->segments[s].worker;
}

task_path tree_index::path_of_task(const audit_record& r) const {
  if (r.spawn_segment == no_parent) return task_path{{}, position{r.level, r.step}};
  return task_path{path(r.spawn_segment), position{r.level, r.step}};
}

std::vector<position> path_of_segment(const tree& t, std::uint32_t index) { return tree_index(t).path(index); }
std::uint32_t find_segment(const tree& t, const std::vector<position>& path) { return tree_index(t).find(path); }
task_path path_of_task(const tree& t, const audit_record& r) { return tree_index(t).path_of_task(r); }
std::uint32_t worker_of(const tree& t, const task_path& p) { return tree_index(t).worker_of(p); }

// ---------------------------------------------------------------- distance

std::vector<std::uint32_t> spawn_path(const tree& t, std::uint32_t index) {
  if (index >= t.audit.size())
    throw cws::error(fmt::format("steal tree: no audit record {} ({} records)", index, t.audit.size()));
  const audit_children c = children_of(t);
  std::vector<std::uint32_t> rank(t.audit.size(), 0);
  for (std::size_t p = 0; p < t.audit.size(); ++p)
    for (std::uint32_t k = c.first[p]; k < c.first[p + 1]; ++k) rank[c.kids[k]] = k - c.first[p];
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = index; t.audit[i].parent != no_parent; i = t.audit[i].parent) {
    if (out.size() >= t.audit.size())
      throw cws::error(fmt::format("steal tree: the parent links of audit record {} form a cycle", index));
    out.push_back(rank[i]);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

distance schedule_distance(const tree& a, const tree& b, const std::vector<std::uint32_t>& node_of_worker) {
  distance_workspace ws;
  return schedule_distance(a, b, node_of_worker, ws);
}

std::size_t distance_workspace::bytes() const noexcept {
  std::size_t n = table.capacity() * sizeof(table[0]);
  for (const auto* v : {&depth, &chain, &order, &count, &ids_a, &ids_b, &worker_in_b, &seen})
    n += v->capacity() * sizeof(std::uint32_t);
  return n;
}

distance schedule_distance(const tree& a, const tree& b, const std::vector<std::uint32_t>& node_of_worker,
                           distance_workspace& ws) {
  check_workers(a, node_of_worker, "a");
  check_workers(b, node_of_worker, "b");
  distance d;
  one_way ab, ba;
  if (linked(a) && linked(b)) {
    depths(a);  // validates the segments too
    depths(b);
    path_table names;
    const std::vector<std::uint32_t> ids_a = spawn_ids(a, names);
    const std::vector<std::uint32_t> ids_b = spawn_ids(b, names);
    d.exact = true;
    d.work = a.audit.size();
    ab = exact_direction(a, ids_a, b, ids_b, names.size(), node_of_worker);
    ba = exact_direction(b, ids_b, a, ids_a, names.size(), node_of_worker);
  } else {
    segment_paths paths(ws, a.segments.size() + b.segments.size());
    paths.ids(a, ws.ids_a);
    paths.ids(b, ws.ids_b);
    for (const segment& s : a.segments) d.work += s.tasks;
    ab = segment_direction(a, ws.ids_a, b, ws.ids_b, paths.size(), node_of_worker, ws);
    ba = segment_direction(b, ws.ids_b, a, ws.ids_a, paths.size(), node_of_worker, ws);
  }
  d.moved_worker = (ab.moved_worker + ba.moved_worker) / 2;
  d.moved_node = (ab.moved_node + ba.moved_node) / 2;
  return d;
}

bool same_steals(const tree& a, const tree& b) noexcept {
  if (a.workers != b.workers || a.segments.size() != b.segments.size() || !a.audit.empty() || !b.audit.empty())
    return false;
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    const segment& x = a.segments[i];
    const segment& y = b.segments[i];
    if (x.worker != y.worker || x.parent != y.parent || x.level != y.level || x.step != y.step || x.steals != y.steals)
      return false;
  }
  return true;
}

// ---------------------------------------------------------------- rendering

std::string describe(const tree& t) {
  const tree_index index(t);
  const totals sum = summarize(t);
  std::string out = fmt::format("steal tree: {} workers, {} segments, {} steals, {} tasks, depth {}{}\n", t.workers,
                                sum.segments, sum.steals, sum.tasks, sum.depth,
                                t.audit.empty() ? "" : fmt::format(", {} audited tasks", t.audit.size()));

  // Per worker: segments, tasks, busy time (the union of its segments' spans;
  // nested segments lie inside the span of the segment they interrupted).
  const std::vector<std::uint64_t> per_worker = tasks_per_worker(t);
  std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> spans(per_worker.size());
  for (const segment& s : t.segments) spans[s.worker].emplace_back(s.start_ns, s.end_ns);
  for (std::size_t w = 0; w < per_worker.size(); ++w) {
    auto& v = spans[w];
    std::sort(v.begin(), v.end());
    std::uint64_t busy = 0, lo = 0, hi = 0;
    bool open = false;
    for (const auto& [s, e] : v) {
      if (open && s <= hi) {
        hi = std::max(hi, e);
        continue;
      }
      if (open) busy += hi - lo;
      lo = s;
      hi = e;
      open = true;
    }
    if (open) busy += hi - lo;
    out += fmt::format("worker {}: {} segment{}, {} tasks, busy {} ms\n", w, v.size(), v.size() == 1 ? "" : "s",
                       per_worker[w], ms(busy));
  }

  if (t.segments.empty()) return out;
  // Pre-order walk, children in (level, step) order.
  std::vector<std::uint32_t> stack{0};
  while (!stack.empty()) {
    const std::uint32_t v = stack.back();
    stack.pop_back();
    const segment& s = t.segments[v];
    const std::uint32_t depth = index.depth(v);
    out.append(2 * (depth - 1), ' ');
    out += fmt::format("#{} worker {}, ", v, s.worker);
    out += v == 0 ? std::string("root") : fmt::format("taken at ({},{})", s.level, s.step);
    out += fmt::format(", {} tasks, {}-{} ms\n", s.tasks, ms(s.start_ns), ms(s.end_ns));
    const std::span<const std::uint32_t> kids = index.children(v);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

}  // namespace cws::steal_tree
