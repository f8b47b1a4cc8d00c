// cws-pagemove: how fast the kernel page-home backend moves pages between two
// NUMA nodes with each page_mover (move_pages batches, mbind runs, automatic),
// next to a memcpy of the same bytes. It picks page_mover::automatic's
// threshold (page_homes_kernel.cpp): besides moving every page of the array
// (one run), it moves every other run of L consecutive pages, so mbind pays
// one call per L pages while move_pages pays per page.
//
// Per mover and run length: a fresh first_touch array, prefaulted by this
// thread running on node 0, filled with a pattern; each measured round moves
// the selected pages to node 1 and back (two samples, every move checked
// complete, the movers taking turns); the pattern is checked at the end. Single-threaded, like the
// kernel's migration of one call. With one NUMA node nothing can move: only
// memcpy is measured.

#include <fmt/format.h>
#include <numa.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/bounded_option.hpp"
#include "common/timing.hpp"

namespace {

using json = nlohmann::ordered_json;
namespace numa = cws::numa;

constexpr std::size_t all_pages = 0;  // run length: the whole array is one run

struct setup {
  const cws::topology& topo;
  std::size_t bytes;
  unsigned runs;
};

std::uint64_t checksum(const std::uint64_t* p, std::size_t n) {
  std::uint64_t s = 0;
  for (std::size_t i = 0; i < n; ++i) s = s * 1099511628211ull + p[i];
  return s;
}

// Seconds per memcpy of `bytes` from a buffer on node 0 to one on node `to`.
cws_apps::samples time_memcpy(const setup& s, unsigned to) {
  auto src = numa::allocate<char>(s.bytes, numa::on_node(0), s.topo);
  auto dst = numa::allocate<char>(s.bytes, numa::on_node(to), s.topo);
  numa::prefault_zero(src);
  numa::prefault_zero(dst);
  std::memset(src.data(), 0x5a, s.bytes);
  cws_apps::samples out;
  for (unsigned r = 0; r <= s.runs; ++r) {  // run 0 is a warm-up
    double t = cws_apps::seconds_of([&] { std::memcpy(dst.data(), src.data(), s.bytes); });
    if (r > 0) out.add(t);
  }
  if (std::memcmp(src.data(), dst.data(), s.bytes) != 0) throw std::runtime_error("memcpy: copy differs");
  return out;
}

// One mover on its own fresh array: every other run of `run` pages (all
// pages for all_pages) goes to node 1 and back per round.
class mover_case {
 public:
  mover_case(const setup& s, numa::page_mover mover, std::size_t run)
      : a_(numa::allocate<std::uint64_t>(s.bytes / sizeof(std::uint64_t), numa::first_touch, s.topo)),
        homes_(numa::make_kernel_page_homes(s.topo, mover)) {
    numa::prefault_zero(a_);
    std::iota(a_.begin(), a_.end(), std::uint64_t{7});
    sum_ = checksum(a_.data(), a_.size());
    const std::size_t ps = homes_->page_size(), pages = a_.memory()->pages();
    all_.resize(pages);
    for (std::size_t p = 0; p < pages; ++p) {
      all_[p] = reinterpret_cast<std::uintptr_t>(a_.data()) + p * ps;
      if (run == all_pages || (p / run) % 2 == 0) chosen_.push_back(all_[p]);
    }
    to_one_.assign(chosen_.size(), 1);
    to_zero_.assign(chosen_.size(), 0);
    all_on_zero("after prefault");
  }

  std::size_t pages() const noexcept { return chosen_.size(); }
  const cws_apps::samples& seconds() const noexcept { return seconds_; }
  const cws_apps::samples& query_seconds() const noexcept { return query_s_; }

  // There and back (two samples when recording), then a query of every page.
  void round(bool record) {
    for (const auto* targets : {&to_one_, &to_zero_}) {
      numa::move_outcome m;
      double t = cws_apps::seconds_of([&] { m = homes_->move(chosen_, *targets); });
      if (m.moved != chosen_.size() || m.failed != 0)
        throw std::runtime_error(
            fmt::format("{}: moved {} of {} pages ({} failed)", homes_->name(), m.moved, chosen_.size(), m.failed));
      if (record) seconds_.add(t);
    }
    double q = all_on_zero("after moving there and back");
    if (record) query_s_.add(q);
  }

  void check_data() const {
    if (checksum(a_.data(), a_.size()) != sum_) throw std::runtime_error(homes_->name() + ": data changed");
  }

 private:
  double all_on_zero(const char* when) {
    homes_of_.resize(all_.size());
    double t = cws_apps::seconds_of([&] { homes_->query(all_, homes_of_); });
    for (std::size_t p = 0; p < all_.size(); ++p)
      if (homes_of_[p] != 0)
        throw std::runtime_error(fmt::format("page {} is on node {}, not 0, {}", p, homes_of_[p], when));
    return t;
  }

  numa::array<std::uint64_t> a_;
  std::unique_ptr<numa::page_homes> homes_;
  std::uint64_t sum_ = 0;
  std::vector<std::uintptr_t> all_, chosen_;
  std::vector<unsigned> to_one_, to_zero_;
  std::vector<int> homes_of_;
  cws_apps::samples seconds_, query_s_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Page migration between two NUMA nodes: move_pages vs mbind vs memcpy", "cws-pagemove"};
  std::size_t mib = 64;
  unsigned runs = 5;
  bool as_json = false;
  std::vector<std::size_t> run_lengths = {1, 4, 16, 64, 256, all_pages};
  cws_apps::add_bounded_option(app, "--mb", mib, "Array size in MiB", std::size_t{1}, std::size_t{1} << 16);
  cws_apps::add_bounded_option(app, "--runs", runs, "Measured runs (each moves there and back)", 1u, 1000u);
  app.add_option("--run-pages", run_lengths, "Run lengths L to measure (0: the whole array as one run)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_flag("--json", as_json, "One JSON object on stdout instead of a table");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const cws::topology topo = cws::topology::discover();
    const setup s{topo, mib << 20, runs};
    const unsigned nodes = topo.numa_nodes();
    // First touch by this thread puts the arrays on node 0.
    if (numa_available() >= 0) numa_run_on_node(static_cast<int>(topo.numa_os_index(0)));
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

    json doc;
    doc["app"] = "pagemove";
    doc["params"] = {{"mb", mib}, {"runs", runs}, {"pages", s.bytes / page}, {"page_size", page}};
    doc["topology"] = {{"summary", topo.summary()}, {"source", topo.source()}, {"numa_nodes", nodes}};
    json results = json::array();
    const cws_apps::samples copy = time_memcpy(s, nodes > 1 ? 1 : 0);
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
      std::vector<std::unique_ptr<mover_case>> cases;
      for (numa::page_mover m : movers) cases.push_back(std::make_unique<mover_case>(s, m, run));
      for (unsigned r = 0; r <= runs; ++r)  // round 0 is a warm-up
        for (auto& c : cases) c->round(r > 0);
      for (std::size_t i = 0; i < movers.size(); ++i) {
        const mover_case& c = *cases[i];
        c.check_data();
        const double moved = static_cast<double>(c.pages() * page);
        results.push_back(
            {{"variant", std::string(numa::to_string(movers[i]))},
             {"run_pages", run == all_pages ? json("all") : json(run)},
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
    fmt::print("cws-pagemove: {} MiB ({} pages of {} B), {} runs (medians; moves: node 0 -> 1 and back)\n", mib,
               s.bytes / page, page, runs);
    fmt::print("topology: {} ({})\n", topo.summary(), topo.source());
    fmt::print("{:<12} {:>9} {:>8} {:>8} {:>9} {:>8} {:>12}\n", "method", "run pages", "pages", "GB/s", "best GB/s",
               "/memcpy", "query Mpg/s");
    for (const json& e : results) {
      const json& r = e["run_pages"];
      std::string run = r.is_null() ? "-" : r.is_string() ? r.get<std::string>() : r.dump();
      std::string query =
          e.contains("query_mpages_per_s") ? fmt::format("{:.2f}", e["query_mpages_per_s"].get<double>()) : "-";
      fmt::print("{:<12} {:>9} {:>8} {:>8.3f} {:>9.3f} {:>8.3f} {:>12}\n", e["variant"].get<std::string>(), run,
                 e["pages"].get<std::size_t>(), e["gbps"].get<double>(), e["best_gbps"].get<double>(),
                 e["ratio_vs_memcpy"].get<double>(), query);
    }
    if (nodes < 2)
      fmt::print("{}\n", note);
    else
      fmt::print(
          "run pages L: every other run of L consecutive pages moves (all: the whole array, one run); "
          "memcpy copies node 0 -> node 1\n");
    return 0;
  });
}
