// cws-pagemove: how fast the kernel page-home backend moves pages between two
// NUMA nodes with each page_mover (move_pages batches, mbind runs, automatic),
// next to a memcpy of the same bytes (pagemove/movers.hpp). It picks
// page_mover::automatic's threshold (page_homes_kernel.cpp): besides moving
// every page of the array (one run), it moves every other run of L
// consecutive pages, so mbind pays one call per L pages while move_pages pays
// per page. Single-threaded, like the kernel's migration of one call; the
// movers take turns round by round. With one NUMA node only memcpy is measured.

#include <numa.h>
#include <unistd.h>

#include "common/bench_env.hpp"
#include "common/bounded_option.hpp"
#include "pagemove/movers.hpp"
#include "pagemove/table.hpp"

using json = nlohmann::ordered_json;
namespace numa = cws::numa;

int main(int argc, char** argv) {
  CLI::App app{"Page migration between two NUMA nodes: move_pages vs mbind vs memcpy", "cws-pagemove"};
  std::size_t mib = 64;
  unsigned runs = 5;
  bool as_json = false;
  std::vector<std::size_t> run_lengths = {1, 4, 16, 64, 256, pagemove::all_pages};
  cws_apps::add_bounded_option(app, "--mb", mib, "Array size in MiB", std::size_t{1}, std::size_t{1} << 16);
  cws_apps::add_bounded_option(app, "--runs", runs, "Measured runs (each moves there and back)", 1u, 1000u);
  app.add_option("--run-pages", run_lengths, "Run lengths L to measure (0: the whole array as one run)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_flag("--json", as_json, "One JSON object on stdout instead of a table");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const cws::topology topo = cws::topology::discover();
    const pagemove::setup s{topo, mib << 20, runs};
    const unsigned nodes = topo.numa_nodes();
    // First touch by this thread puts the arrays on node 0.
    if (numa_available() >= 0) numa_run_on_node(static_cast<int>(topo.numa_os_index(0)));
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

    json doc;
    doc["app"] = "pagemove";
    doc["params"] = {{"mb", mib}, {"runs", runs}, {"pages", s.bytes / page}, {"page_size", page}};
    doc["topology"] = {{"summary", topo.summary()}, {"source", topo.source()}, {"numa_nodes", nodes}};
    json results = json::array();
    const cws_apps::samples copy = pagemove::time_memcpy(s, nodes > 1 ? 1 : 0);
    const double memcpy_gbps = static_cast<double>(s.bytes) / copy.median() / 1e9;
    results.push_back({{"variant", "memcpy"},
                       {"run_pages", nullptr},
                       {"pages", s.bytes / page},
                       {"median_s", copy.median()},
                       {"gbps", memcpy_gbps},
                       {"best_gbps", static_cast<double>(s.bytes) / copy.min() / 1e9},
                       {"ratio_vs_memcpy", 1.0}});

    const std::vector<numa::page_mover> movers = {numa::page_mover::move_pages, numa::page_mover::mbind,
                                                  numa::page_mover::automatic};
    for (std::size_t run : nodes >= 2 ? run_lengths : std::vector<std::size_t>{}) {
      // The movers take turns round by round, so that a busy host (or TCG's
      // uneven pace) slows them alike.
      std::vector<std::unique_ptr<pagemove::mover_case>> cases;
      for (numa::page_mover m : movers) cases.push_back(std::make_unique<pagemove::mover_case>(s, m, run));
      for (unsigned r = 0; r <= runs; ++r)  // round 0 is a warm-up
        for (auto& c : cases) c->round(r > 0);
      for (std::size_t i = 0; i < movers.size(); ++i) {
        const pagemove::mover_case& c = *cases[i];
        c.check_data();
        const double moved = static_cast<double>(c.pages() * page);
        results.push_back(
            {{"variant", std::string(numa::to_string(movers[i]))},
             {"run_pages", run == pagemove::all_pages ? json("all") : json(run)},
             {"pages", c.pages()},
             {"median_s", c.seconds().median()},
             {"gbps", moved / c.seconds().median() / 1e9},
             {"best_gbps", moved / c.seconds().min() / 1e9},
             {"ratio_vs_memcpy", moved / c.seconds().median() / 1e9 / memcpy_gbps},
             {"query_mpages_per_s", static_cast<double>(s.bytes / page) / c.query_seconds().median() / 1e6}});
      }
    }

    doc["results"] = results;
    const std::string note = "one NUMA node: no page can move; only memcpy was measured";
    if (nodes < 2) doc["note"] = note;
    if (as_json) {
      fmt::print("{}\n", doc.dump(2));
      return 0;
    }
    pagemove::print_table(doc, mib, s.bytes / page, page, runs, nodes < 2 ? note : "");
    return 0;
  });
}
