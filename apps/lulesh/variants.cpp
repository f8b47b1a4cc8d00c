#include "lulesh/variants.hpp"

#include <fmt/format.h>

#include <utility>

#include "common/hinted_variants.hpp"
#include "common/variant_runner.hpp"

namespace lulesh {

namespace {

struct variant_spec {
  std::string_view name;
  flavour kind;
  std::string_view policy;
  cws::numa::placement placement;
  bool follow = false;
};

const std::vector<variant_spec>& variant_table() {
  static const std::vector<variant_spec> table = [] {
    std::vector<variant_spec> t;
    for (const cws_apps::hinted_variant& h : cws_apps::hinted_cws_variants())
      t.push_back({h.name, flavour::cws, h.policy, h.placement});
    t.push_back({"cws-evolve-follow", flavour::cws, cws::policy::evolve, cws::numa::first_touch, true});
    t.push_back({"tbb", flavour::tbb, "", cws::numa::first_touch});
    t.push_back({"omp-static", flavour::omp, "", cws::numa::first_touch});
    return t;
  }();
  return table;
}

// evolve relocalizes pages after the runs that become its templates; its
// setup loops run under random, which never moves pages (as cws-heat does).
std::string setup_policy(std::string_view policy) {
  const bool evolves = policy == cws::policy::evolve || policy == cws::policy::evolve_hinted;
  return std::string(evolves ? cws::policy::random : policy);
}

// One schedule per loop; under `follow` every cycle loop but its extent's
// leader replays the leader's template strictly (stows).
std::unique_ptr<cws_runner> cws_loops(cws::runtime& rt, const problem& p, const variant& v) {
  const auto name_of = [&](loop_id id) { return fmt::format("{}/{}/{}", p.bench(), v.name, site(id).name); };
  std::vector<cws::schedule*> schedules;
  for (std::size_t i = 0; i < loop_count; ++i) {
    const auto id = loop_id(i);
    const bool setup = i < first_cycle_loop;
    const loop_id leader = site(id).over == extent::elements ? element_leader : node_leader;
    const bool follower = v.follow && !setup && id != leader;
    const std::string policy = setup ? v.init_policy : follower ? std::string(cws::policy::stows) : v.policy;
    schedules.push_back(&rt.schedule(name_of(id), policy));
    if (follower) schedules.back()->follow(name_of(leader));
  }
  return std::make_unique<cws_runner>(rt, std::move(schedules), p.shape(), p.grain);
}

}  // namespace

cws_apps::recursion problem::shape() const noexcept {
  return recursion_name == "regular" ? cws_apps::recursion::regular : cws_apps::recursion::irregular;
}

initial_conditions problem::start() const noexcept {
  return initial_name == "2.0" ? initial_conditions::lulesh2 : initial_conditions::lulesh1;
}

std::string problem::bench() const { return recursion_name == "regular" ? "lulesh" : "lulesh-ir"; }

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const variant_spec& s : variant_table()) names.emplace_back(s.name);
  return names;
}

std::vector<variant> make_variants(cws_apps::bench_env& env, const problem& p, const std::vector<std::string>& chosen) {
  std::vector<variant> variants;
  variants.push_back({.name = "serial", .kind = flavour::serial, .loops = std::make_unique<serial_runner>()});
  for (const variant_spec& s : variant_table()) {
    if (!cws_apps::is_chosen(chosen, s.name)) continue;
    variant v{.name = std::string(s.name),
              .kind = s.kind,
              .policy = std::string(s.policy),
              .init_policy = s.kind == flavour::cws ? setup_policy(s.policy) : std::string(),
              .placement = s.placement,
              .follow = s.follow};
    if (v.kind == flavour::cws) {
      auto runner = cws_loops(env.rt(), p, v);
      v.cws = runner.get();
      v.loops = std::move(runner);
    } else if (v.kind == flavour::tbb) {
      v.loops = std::make_unique<tbb_runner>(env, p.grain);
    } else {
      v.loops = std::make_unique<omp_runner>(p.grain);
    }
    variants.push_back(std::move(v));
  }
  return variants;
}

void prepare(variant& v, const problem& p) {
  v.dom = std::make_unique<domain>(p.edge, v.placement, p.start());
  if (v.follow)
    for (loop_id leader : {element_leader, node_leader})
      v.cws->declare_for(
          leader, [d = v.dom.get()](extent over, std::size_t lo, std::size_t hi) { d->declare_touches(over, lo, hi); });
}

void one_run(variant& v, const problem& p, cws_apps::phase_timer& t) {
  v.dom->setup(*v.loops);  // untimed: the initial state, written by the variant's own loops
  outcome o;
  if (v.cws) v.cws->set_measuring(t.recording());
  t.time("run", [&] { o = simulate(*v.dom, *v.loops, p.max_cycles); });
  if (v.cws) v.cws->set_measuring(false);
  if (t.recording()) v.outcomes.push_back(o);
}

}  // namespace lulesh
