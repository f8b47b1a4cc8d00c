#include "cws/schedulers/schedule_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "cws/error.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "cws/steal_tree/tree_storage.hpp"
#include "evolve_controller.hpp"
#include "template_plan.hpp"

namespace cws::schedulers {

namespace {
constexpr std::string_view extension_name = "schedules";
}

const schedule_state* schedule_store::find(std::string_view name) const noexcept {
  auto it = states_.find(name);
  return it == states_.end() ? nullptr : &it->second;
}

const schedule_state& schedule_store::at(std::string_view name) const {
  if (const schedule_state* s = find(name)) return *s;
  throw error(
      fmt::format("schedule '{}' has no replay state (it never ran under a replaying policy nor was seeded)", name));
}

schedule_state& schedule_store::state(std::string_view name) {
  auto it = states_.find(name);
  if (it == states_.end()) {
    it = states_.emplace(std::string(name), schedule_state{}).first;
    it->second.name = std::string(name);
  }
  return it->second;
}

// A template for another worker count is re-planned rather than refused:
// with audit records, the planner hands the work out to this runtime's
// workers; otherwise, for fewer workers, the steals by the missing workers
// are dropped (coarsen's rules keep the rest valid), and for more workers the
// new ones start without work (a relaxed replay or evolve gives them some).
void schedule_store::seed(std::string_view name, steal_tree::tree t, std::string from) {
  const unsigned workers = rt_.workers();
  if (t.workers != workers && !t.segments.empty()) {
    const unsigned recorded = t.workers;
    std::string how;
    if (!t.audit.empty()) {
      try {
        steal_tree::plan_options options;
        options.workers = workers;
        t = steal_tree::plan(t, options);
        how = "planner";
      } catch (const cws::error&) {
        how.clear();  // a parallel audit run cannot be planned for fewer workers: fall back below
      }
    }
    if (how.empty() && recorded > workers) {
      steal_tree::coarsen_summary dropped;
      steal_tree::coarsen_options options;
      options.workers = workers;
      t = steal_tree::coarsen(t, options, &dropped);
      how = fmt::format("{} steals dropped", dropped.steals_dropped());
    } else if (how.empty()) {
      t.workers = workers;
      t.worker_segments.resize(workers);
      how = fmt::format("workers {}..{} start without work", recorded, workers - 1);
    }
    fmt::format_to(std::back_inserter(from), ", re-planned from {} to {} workers ({})", recorded, workers, how);
  }
  check_template(t, workers);
  schedule_state& s = state(name);
  s.templ = std::make_shared<const steal_tree::tree>(std::move(t));
  s.template_from = std::move(from);
  detail::evolve_controller::relearn(s);  // evolve learns from the new template
}

void schedule_store::mark_converged(std::string_view name) {
  auto it = states_.find(name);
  schedule_state* s = it == states_.end() ? nullptr : &it->second;
  if (s == nullptr || !s->templ)
    throw error(fmt::format("schedule '{}' has no template to start converged on (seed it first)", name));
  // As evolve's own switch to stows, from a clean slate.
  detail::evolve_controller::restart(*s);
  detail::evolve_controller::converge(*s, 0);
}

steal_tree::coarsen_summary schedule_store::coarsen(std::string_view name, const steal_tree::coarsen_options& options) {
  std::shared_ptr<const steal_tree::tree> source;
  std::string from;
  if (const schedule_state* s = find(name); s != nullptr && s->templ) {
    source = s->templ;
    from = s->template_from;
  } else if (const steal_tree::recorder* rec = steal_tree::recorder_of(rt_); rec != nullptr) {
    if (const steal_tree::phase_record* r = rec->latest(name)) {
      source = std::make_shared<const steal_tree::tree>(r->steals);
      from = fmt::format("recorded run #{}", r->iteration);
    }
  }
  if (!source) throw error(fmt::format("schedule '{}' has no template and no recorded run to coarsen", name));
  steal_tree::coarsen_summary summary;
  steal_tree::tree pruned = steal_tree::coarsen(*source, options, &summary);
  std::string how;
  if (options.max_level) how = fmt::format("max level {}", *options.max_level);
  if (options.min_tasks > 0) how += fmt::format("{}min {} tasks", how.empty() ? "" : ", ", options.min_tasks);
  seed(name, std::move(pruned), fmt::format("{}, coarsened ({})", from, how));
  return summary;
}

std::shared_ptr<const steal_tree::tree> schedule_store::share(const steal_tree::tree& t) {
  // Each schedule holds a few trees at once (template, previous, followed,
  // the plan being replayed); past that, callers keep trees themselves.
  return pool_.share(t, 4 + 4 * states_.size());
}

std::optional<double> schedule_store::moved_share(const steal_tree::tree& a, const steal_tree::tree& b) {
  if (node_of_worker_.empty())
    for (const worker_placement& p : rt_.placement()) node_of_worker_.push_back(p.numa_node);
  try {
    return steal_tree::schedule_distance(a, b, node_of_worker_, distance_scratch_).moved_worker;
  } catch (const error&) {
    return std::nullopt;  // trees of another shape
  }
}

std::size_t schedule_store::bytes() const {
  std::size_t n = pool_.bytes() + distance_scratch_.bytes() + node_of_worker_.capacity() * sizeof(std::uint32_t);
  std::vector<const steal_tree::tree*> counted;  // a tree is often shared by several fields
  auto tree_once = [&](const std::shared_ptr<const steal_tree::tree>& t) {
    if (!t || pool_.holds(t.get()) || std::find(counted.begin(), counted.end(), t.get()) != counted.end()) return;
    counted.push_back(t.get());
    n += sizeof(steal_tree::tree) + steal_tree::tree_bytes(*t);
  };
  auto text = [](const std::string& x) { return x.capacity() > std::string().capacity() ? x.capacity() + 1 : 0; };
  for (const auto& [name, s] : states_) {
    n += sizeof(s) + text(name) + text(s.name) + text(s.template_from) + text(s.followed_schedule);
    tree_once(s.templ);
    tree_once(s.previous);
    tree_once(s.followed);
  }
  return n;
}

std::optional<double> moved_share(const cws::runtime& rt, const steal_tree::tree& a, const steal_tree::tree& b) {
  std::vector<std::uint32_t> node_of;
  for (const worker_placement& p : rt.placement()) node_of.push_back(p.numa_node);
  try {
    return steal_tree::schedule_distance(a, b, node_of).moved_worker;
  } catch (const error&) {
    return std::nullopt;  // trees of another shape
  }
}

void check_template(const steal_tree::tree& t, unsigned workers) {
  if (std::string why = detail::worker_count_error(t, workers); !why.empty())
    throw error(fmt::format("cannot replay this template: {}", why));
}

schedule_store& store_of(cws::runtime& rt) {
  auto* s = dynamic_cast<schedule_store*>(rt.extension(extension_name));
  if (s == nullptr)
    throw error("this runtime has no schedule store (it was created before cws::schedulers registered it)");
  return *s;
}

const schedule_store& store_of(const cws::runtime& rt) { return store_of(const_cast<cws::runtime&>(rt)); }

namespace detail {
bool register_store() {
  return extension_registry::add(std::string(extension_name), [](cws::runtime& rt) {
    return std::unique_ptr<runtime_extension>(std::make_unique<schedule_store>(rt));
  });
}
}  // namespace detail

// ---------------------------------------------------------------- planner

steal_tree::plan_summary schedule_store::plan(std::string_view name, const steal_tree::plan_options& options) {
  const steal_tree::tree* source = nullptr;
  std::shared_ptr<const steal_tree::tree> held;  // keeps a template source alive past seed()
  std::string from;
  if (const steal_tree::recorder* rec = steal_tree::recorder_of(rt_); rec != nullptr) {
    const steal_tree::record_window& runs = rec->phases();
    for (std::size_t i = runs.size(); i-- > 0 && source == nullptr;)
      if (runs[i].schedule == name && !runs[i].steals.audit.empty()) {
        source = &runs[i].steals;
        from = fmt::format("recorded run #{}", runs[i].iteration);
      }
  }
  if (const schedule_state* s = find(name); !source && s != nullptr && s->templ && !s->templ->audit.empty()) {
    held = s->templ;
    source = held.get();
    from = s->template_from;
  }
  if (!source)
    throw error(fmt::format(
        "schedule '{}' has no run with audit records to plan from (run it once in audit mode: CWS_AUDIT=1 or "
        "runtime_config::audit)",
        name));
  steal_tree::plan_options o = options;
  if (o.workers == 0) o.workers = rt_.workers();
  if (o.worker_order.empty()) {  // by NUMA node, then worker id
    std::vector<worker_placement> by_node = rt_.placement();
    std::stable_sort(by_node.begin(), by_node.end(),
                     [](const worker_placement& a, const worker_placement& b) { return a.numa_node < b.numa_node; });
    for (const worker_placement& p : by_node) o.worker_order.push_back(p.worker);
  }
  steal_tree::plan_summary summary;
  steal_tree::tree planned = steal_tree::plan(*source, o, &summary);
  seed(name, std::move(planned), fmt::format("planned from {} ({})", from, steal_tree::to_string(summary.method)));
  return summary;
}

}  // namespace cws::schedulers
