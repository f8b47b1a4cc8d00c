// cws::topology from hwloc: this machine, or an hwloc synthetic description.
//
// Everything hwloc-specific stays in this file; the rest of the runtime sees
// plain numbers (logical NUMA node, L3 group, package, PU OS indices).

#include "cws/topology.hpp"

#include <fmt/format.h>
#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <map>
#include <memory>

#include "cws/error.hpp"
#include "cws/platform/pinning.hpp"
#include "topology_xml.hpp"

namespace cws {

namespace {

struct topology_deleter {
  void operator()(hwloc_topology* t) const noexcept { hwloc_topology_destroy(t); }
};
using owned_topology = std::unique_ptr<hwloc_topology, topology_deleter>;

unsigned count(hwloc_topology_t t, hwloc_obj_type_t type) {
  int n = hwloc_get_nbobjs_by_type(t, type);
  return n > 0 ? static_cast<unsigned>(n) : 0;
}

// The description as shown in a one-line message: control characters become spaces.
std::string one_line(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return s;
}

std::string plural(unsigned n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// The PUs an hwloc synthetic description describes: the product of its levels'
// arities ("pack:2 numa:2 core:1024 pu:64" is 262144), saturating at `cap`.
// Computed before hwloc sees the description, whose build time grows
// quadratically (a description that size runs for minutes). Levels are
// "type:N" or a bare "N"; attributes in parentheses and memory children in
// brackets ("[numa]") add no PU. Whatever this does not understand counts as
// 1, and hwloc then rejects it with its own message.
std::uint64_t synthetic_pus(std::string_view d, std::uint64_t cap) {
  std::uint64_t product = 1;
  int depth = 0;
  bool memory_child = false;
  std::size_t i = 0;
  while (i < d.size()) {
    const char c = d[i];
    if (c == '(' || c == '[') {
      if (depth == 0 && c == '[') memory_child = true;
      ++depth, ++i;
      continue;
    }
    if (c == ')' || c == ']') {
      if (depth > 0 && --depth == 0) memory_child = false;
      ++i;
      continue;
    }
    if (depth > 0 || std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    // A level token at top level: up to the next space or attribute list.
    std::size_t end = i;
    while (end < d.size() && !std::isspace(static_cast<unsigned char>(d[end])) && d[end] != '(' && d[end] != '[')
      ++end;
    std::string_view token = d.substr(i, end - i);
    i = end;
    if (memory_child) continue;
    const std::size_t colon = token.find(':');
    std::string_view digits = colon == std::string_view::npos ? token : token.substr(colon + 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) continue;
    std::uint64_t n = 0;
    for (char ch : digits) n = std::min<std::uint64_t>(n * 10 + static_cast<std::uint64_t>(ch - '0'), cap);
    product = n == 0 ? 0 : (product > cap / n ? cap : std::min(product * n, cap));
  }
  return product;
}

}  // namespace

// Turns a loaded hwloc topology into the cws view of it.
struct topology_builder {
  static topology build(hwloc_topology_t t) {
    topology out;
    // A machine without Package objects (e.g. synthetic "core:4") is one package.
    out.packages_ = std::max(1u, count(t, HWLOC_OBJ_PACKAGE));
    out.pus_ = count(t, HWLOC_OBJ_PU);
    bool have_l3 = count(t, HWLOC_OBJ_L3CACHE) > 0;

    // Cores in hwloc logical order, collected from the PUs so that a PU with
    // no Core above it (some platforms, synthetic "pack:2 pu:2") is a core of its own.
    std::map<hwloc_obj_t, std::size_t> slot;
    std::vector<core_info> cores;
    std::vector<hwloc_obj_t> local;  // each core's local NUMA object (or nullptr)
    for (hwloc_obj_t pu = nullptr; (pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu));) {
      hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
      if (!core) core = pu;
      auto [it, fresh] = slot.try_emplace(core, cores.size());
      if (fresh) {
        cores.push_back(describe_core(t, core));
        local.push_back(local_node(t, core));
      }
      cores[it->second].pus.push_back(pu->os_index);
    }

    // The topology's NUMA nodes are the nodes some core is local to, numbered
    // in hwloc logical order. Memory-only nodes (CXL expanders, a second
    // high-bandwidth node on the same package) run no worker, so nothing
    // would ever be local to data placed there.
    std::vector<hwloc_obj_t> used;
    for (hwloc_obj_t n : local)
      if (n) used.push_back(n);
    std::sort(used.begin(), used.end(),
              [](hwloc_obj_t a, hwloc_obj_t b) { return a->logical_index < b->logical_index; });
    used.erase(std::unique(used.begin(), used.end()), used.end());
    for (hwloc_obj_t n : used) out.numa_os_.push_back(n->os_index);
    if (out.numa_os_.empty()) out.numa_os_.push_back(0);  // no NUMA information: one node
    out.numa_nodes_ = static_cast<unsigned>(out.numa_os_.size());
    out.l3_groups_ = have_l3 ? count(t, HWLOC_OBJ_L3CACHE) : out.numa_nodes_;

    for (std::size_t i = 0; i < cores.size(); ++i) {
      auto pos = std::find(used.begin(), used.end(), local[i]);
      cores[i].numa_node = pos == used.end() ? 0 : static_cast<unsigned>(pos - used.begin());
      if (!have_l3) cores[i].l3_group = cores[i].numa_node;
    }

    // Placement order: node 0's cores first, hwloc logical order inside a node.
    std::stable_sort(cores.begin(), cores.end(),
                     [](const core_info& a, const core_info& b) { return a.numa_node < b.numa_node; });
    for (std::size_t i = 0; i < cores.size(); ++i) cores[i].index = static_cast<unsigned>(i);
    out.cores_ = std::move(cores);
    return out;
  }

  // Package and L3 group of a core; its node and index are filled in later.
  static core_info describe_core(hwloc_topology_t t, hwloc_obj_t core) {
    core_info c{};
    hwloc_obj_t l3 = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_L3CACHE, core);
    c.l3_group = l3 ? l3->logical_index : 0;
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, core);
    c.package = pkg ? pkg->logical_index : 0;
    return c;
  }

  // The core's local node: the NUMA node whose cpuset contains the core. When
  // several do (e.g. DRAM plus high-bandwidth memory on one package, or a
  // machine-wide node above per-package ones), the smallest cpuset is the
  // closest; ties go to the lower logical index. nullptr when none does.
  static hwloc_obj_t local_node(hwloc_topology_t t, hwloc_obj_t core) {
    hwloc_obj_t best = nullptr;
    int best_weight = 0;
    for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n));) {
      if (!n->cpuset || !hwloc_bitmap_isincluded(core->cpuset, n->cpuset)) continue;
      int w = hwloc_bitmap_weight(n->cpuset);
      if (!best || w < best_weight) {
        best = n;
        best_weight = w;
      }
    }
    return best;
  }

  // A described machine (synthetic or XML): its own shape, this machine's PUs.
  static topology build_virtual(hwloc_topology_t t, std::string source) {
    topology out = build(t);
    if (out.cores_.empty()) throw error(fmt::format("{}: the topology has no processing units", source));
    out.synthetic_ = true;
    out.source_ = std::move(source);
    // Threads still run on this machine: keep its PUs (those the process may
    // use, see cpu_rule()) as the pinning targets.
    topology real = topology::discover();
    out.real_pus_ = std::move(real.real_pus_);
    out.cpu_rule_ = std::move(real.cpu_rule_);
    return out;
  }

  // The pin targets of a real topology in its placement order (see real_pus()).
  static std::vector<unsigned> placement_order_pus(const topology& real) {
    std::vector<unsigned> pus;
    for (const worker_placement& p : real.place_workers(real.pus())) pus.push_back(p.pin_pu);
    return pus;
  }
};

topology topology::discover() {
  hwloc_topology_t machine = detail::machine_topology();
  const detail::cpu_choice& cpus = detail::worker_cpus();
  topology t;
  if (cpus.whole_machine) {
    t = topology_builder::build(machine);
  } else {
    // This machine seen through the PUs the workers may use: a copy of it
    // restricted to them (hwloc renumbers what remains), so cores, nodes and
    // the default worker count are those of the process's share.
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_dup(&raw, machine) != 0) throw error("hwloc_topology_dup failed: cannot restrict the topology");
    owned_topology copy(raw);
    std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> set(hwloc_bitmap_alloc(), hwloc_bitmap_free);
    if (!set) throw error("cannot restrict the topology: out of memory");
    for (unsigned pu : cpus.pus) hwloc_bitmap_set(set.get(), pu);
    if (hwloc_topology_restrict(raw, set.get(), 0) != 0)
      throw error(fmt::format("hwloc could not restrict the topology to PUs {}: {}", detail::cpu_list(cpus.pus),
                              std::strerror(errno)));
    t = topology_builder::build(raw);
  }
  t.source_ = "hwloc (this system)";
  t.cpu_rule_ = cpus.rule;
  t.restricted_ = !cpus.whole_machine;
  if (t.cores_.empty()) throw error("hwloc found no processing units on this machine");
  t.real_pus_ = topology_builder::placement_order_pus(t);
  return t;
}

topology topology::synthetic(const std::string& description) {
  // hwloc says why it rejects a description only on stderr, and only when asked to.
  constexpr const char* hint =
      "the syntax is e.g. \"pack:2 numa:1 core:2 pu:1\"; HWLOC_SYNTHETIC_VERBOSE=1 prints hwloc's reason";
  const std::string shown = one_line(description);
  if (description.empty()) throw error(fmt::format("CWS_TOPOLOGY=\"\": empty synthetic description ({})", hint));
  constexpr std::uint64_t beyond = std::uint64_t{1} << 40;
  if (const std::uint64_t pus = synthetic_pus(description, beyond); pus > max_workers)
    throw error(fmt::format("CWS_TOPOLOGY=\"{}\": {}{} PUs, more than the {} workers cws runs at most (cws::max_workers)",
                            shown.substr(0, 96), pus == beyond ? "over " : "", pus, max_workers));
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw error("hwloc_topology_init failed: cannot build a synthetic topology");
  owned_topology t(raw);
  if (hwloc_topology_set_synthetic(raw, description.c_str()) != 0)
    throw error(fmt::format("CWS_TOPOLOGY=\"{}\": hwloc rejected the synthetic description ({})", shown, hint));
  if (hwloc_topology_load(raw) != 0)
    throw error(fmt::format("CWS_TOPOLOGY=\"{}\": hwloc could not load the synthetic topology: {}", shown,
                            std::strerror(errno)));

  return topology_builder::build_virtual(raw, fmt::format("synthetic \"{}\" (CWS_TOPOLOGY)", description));
}

topology detail::topology_from_xml(const std::string& xml) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw error("hwloc_topology_init failed: cannot build a topology from XML");
  owned_topology t(raw);
  if (hwloc_topology_set_xmlbuffer(raw, xml.data(), static_cast<int>(xml.size())) != 0 || hwloc_topology_load(raw) != 0)
    throw error("hwloc rejected the XML topology");
  return topology_builder::build_virtual(raw, "hwloc XML");
}

std::string topology::summary() const {
  return fmt::format("{}, {}, {}, {}, {}", plural(packages_, "package", "packages"),
                     plural(numa_nodes_, "NUMA node", "NUMA nodes"), plural(l3_groups_, "L3 group", "L3 groups"),
                     plural(static_cast<unsigned>(cores_.size()), "core", "cores"), plural(pus_, "PU", "PUs"));
}

unsigned topology::default_workers() const noexcept {
  return static_cast<unsigned>(std::min<std::size_t>(cores_.size(), max_workers));
}

std::vector<worker_placement> topology::place_workers(unsigned workers) const {
  if (workers == 0) throw error(fmt::format("cannot place 0 workers: at least one is needed ({})", summary()));
  if (workers > pus_)
    throw error(fmt::format("cannot place {} workers on a topology with {} ({}){}", workers, plural(pus_, "PU", "PUs"),
                            summary(), restricted_ ? fmt::format("; this process may use {}", cpu_rule_) : ""));
  if (synthetic_ && real_pus_.empty()) throw error("cannot pin workers: no real PU of this machine is known");

  // Round r gives every core that has an (r+1)-th PU one more worker, so all
  // cores are busy before any core runs a second hardware thread.
  std::vector<worker_placement> out;
  out.reserve(workers);
  for (std::size_t round = 0; out.size() < workers; ++round) {
    bool any = false;
    for (const core_info& c : cores_) {
      if (round >= c.pus.size()) continue;
      any = true;
      auto w = static_cast<unsigned>(out.size());
      unsigned pin = synthetic_ ? real_pus_[w % real_pus_.size()] : c.pus[round];
      out.push_back(worker_placement{w, c.index, c.numa_node, pin});
      if (out.size() == workers) break;
    }
    if (!any) break;  // cannot happen while workers <= pus_, but never loop forever
  }
  return out;
}

}  // namespace cws
