#pragma once
// The text table of cws-pagemove: one line per method and run length, from
// the JSON document's results (the same figures --json prints).

#include <fmt/format.h>

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace pagemove {

// `note`: what to print under the table instead of the run-length legend (one NUMA node).
inline void print_table(const nlohmann::ordered_json& doc, std::size_t mib, std::size_t pages, std::size_t page,
                        unsigned runs, const std::string& note) {
  using json = nlohmann::ordered_json;
  const json& results = doc["results"];
  const json& topo = doc["topology"];
  fmt::print("cws-pagemove: {} MiB ({} pages of {} B), {} runs (medians; moves: node 0 -> 1 and back)\n", mib, pages,
             page, runs);
  fmt::print("topology: {} ({})\n", topo["summary"].get<std::string>(), topo["source"].get<std::string>());
  fmt::print("{:<12} {:>9} {:>8} {:>8} {:>9} {:>8} {:>12}\n", "method", "run pages", "pages", "GB/s", "best GB/s",
             "/memcpy", "query Mpg/s");
  for (const json& e : results) {
    const json& r = e["run_pages"];
    const std::string run = r.is_null() ? "-" : r.is_string() ? r.get<std::string>() : r.dump();
    const std::string query =
        e.contains("query_mpages_per_s") ? fmt::format("{:.2f}", e["query_mpages_per_s"].get<double>()) : "-";
    fmt::print("{:<12} {:>9} {:>8} {:>8.3f} {:>9.3f} {:>8.3f} {:>12}\n", e["variant"].get<std::string>(), run,
               e["pages"].get<std::size_t>(), e["gbps"].get<double>(), e["best_gbps"].get<double>(),
               e["ratio_vs_memcpy"].get<double>(), query);
  }
  if (!note.empty())
    fmt::print("{}\n", note);
  else
    fmt::print(
        "run pages L: every other run of L consecutive pages moves (all: the whole array, one run); "
        "memcpy copies node 0 -> node 1\n");
}

}  // namespace pagemove
