#include "prefix/pass_log.hpp"

#include <algorithm>

namespace prefix {

const char* pass_name(pass_id p) noexcept {
  switch (p) {
    case init_pass:
      return "init";
    case reduce_pass:
      return "reduce";
    case scan_pass:
      return "scan";
  }
  return "?";
}

void block_audit::resize(std::size_t blocks) {
  for (auto& r : ran_on_) r.assign(blocks, 0);
  toucher_.assign(blocks, 0);
}

std::size_t block_audit::toucher_count() const {
  std::vector<bool> seen;
  for (unsigned w : toucher_) {
    if (w >= seen.size()) seen.resize(w + 1);
    seen[w] = true;
  }
  return static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true));
}

std::size_t block_audit::on_toucher(pass_id p) const noexcept {
  std::size_t count = 0;
  for (std::size_t k = 0; k < toucher_.size(); ++k) count += ran_on_[p][k] == toucher_[k];
  return count;
}

pass_entry entry_of(const cws::schedule& s, pass_id p, const block_audit& audit, const cws_apps::locality_tally& tally,
                    std::optional<unsigned> run, bool measured) {
  pass_entry e;
  e.run = run;
  e.measured = measured;
  e.pass = p;
  e.schedule = s.name();
  e.follows = s.follows();
  e.blocks = audit.blocks();
  e.blocks_on_toucher = audit.on_toucher(p);
  if (const cws::run_report* r = s.last_report()) {
    e.schedule_iteration = r->phase.iteration;
    e.ran_as = r->ran_as;
    e.label = r->label();
    e.reason = r->reason;
    e.template_from = r->template_from;
    e.tasks = r->tasks();
    e.steals = r->steals();
    e.designated = r->designated();
    e.taken_back = r->taken_back();
    if (const cws_apps::locality_figures* l = tally.locality_of(s.name(), r->phase.iteration)) e.local_share = l->share();
  }
  return e;
}

cws_apps::json entries_json(const std::vector<pass_entry>& entries) {
  using cws_apps::json;
  json all = json::array();
  for (const pass_entry& e : entries)
    all.push_back({{"run", e.run ? json(*e.run) : json(nullptr)},
                   {"measured", e.measured},
                   {"pass", pass_name(e.pass)},
                   {"schedule", e.schedule},
                   {"schedule_iteration", e.schedule_iteration},
                   {"follows", e.follows},
                   {"ran_as", e.label},
                   {"ran_as_kind", cws::to_string(e.ran_as)},
                   {"ran_as_reason", e.reason},
                   {"template_from", e.template_from},
                   {"diverged", e.ran_as == cws::ran_as::random_diverged},
                   {"tasks", e.tasks},
                   {"steals", e.steals},
                   {"designated", e.designated},
                   {"extra_steals", e.steals - e.designated},
                   {"taken_back", e.taken_back},
                   {"local_share", e.local_share ? json(*e.local_share) : json(nullptr)},
                   {"blocks", e.blocks},
                   {"blocks_on_first_toucher", e.blocks_on_toucher}});
  return all;
}

namespace {
// A strict replay runs every designated task on the template's worker (relws
// may take tasks back and steal at random: its blocks may move by design).
bool strict_replay(cws::ran_as r) {
  return r == cws::ran_as::stows || r == cws::ran_as::stuws || r == cws::ran_as::user;
}
}  // namespace

void put_summary(cws_apps::json& e, const std::vector<pass_entry>& entries) {
  std::size_t diverged_all = 0, undetected = 0;
  for (const pass_entry& p : entries) {
    diverged_all += p.ran_as == cws::ran_as::random_diverged;
    undetected += p.measured && strict_replay(p.ran_as) && p.blocks_on_toucher != p.blocks;
  }
  for (pass_id id : {init_pass, reduce_pass, scan_pass}) {
    std::size_t blocks = 0, on = 0, diverged = 0;
    const pass_entry* last = nullptr;
    for (const pass_entry& p : entries) {
      if (!p.measured || p.pass != id) continue;
      blocks += p.blocks;
      on += p.blocks_on_toucher;
      diverged += p.ran_as == cws::ran_as::random_diverged;
      last = &p;
    }
    const std::string name = pass_name(id);
    e[name + "_on_toucher"] =
        blocks ? cws_apps::json(static_cast<double>(on) / static_cast<double>(blocks)) : cws_apps::json(nullptr);
    e[name + "_ran_as"] = last ? cws_apps::json(last->label) : cws_apps::json(nullptr);
    e[name + "_ran_as_kind"] = last ? cws_apps::json(cws::to_string(last->ran_as)) : cws_apps::json(nullptr);
    e[name + "_diverged"] = diverged;
  }
  e["diverged_passes"] = diverged_all;
  e["undetected_mismatches"] = undetected;
}

bool follow_trusted(const std::vector<pass_entry>& entries) {
  return std::all_of(entries.begin(), entries.end(), [](const pass_entry& p) {
    if (!p.measured || p.pass == init_pass) return true;
    return strict_replay(p.ran_as) && p.blocks_on_toucher == p.blocks;
  });
}

}  // namespace prefix
