// Private to cws-trace: how locality and relocalization reports (format
// version 3) are shown, shared by `info`, `show` and `locality` so that the
// same figure reads the same everywhere.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "cws/locality.hpp"

namespace cws::trace_cli {

// part / whole; a share of nothing is 0 here, except that locality_report::
// share() defines the local share of nothing touched as 1 (nothing was remote).
inline double share_of(std::uint64_t part, std::uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// "97.3%"
inline std::string percent(double share) { return fmt::format("{:.1f}%", share * 100.0); }

// Megabytes as the reports print them (10^6 bytes, like GB/s = 10^9 bytes/s).
inline double megabytes(std::uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }

// "n0 99.1% n1 98.7%"; a node whose workers touched nothing shows "-".
inline std::string per_node_shares(const cws::locality_report& l) {
  std::string out;
  for (std::size_t n = 0; n < l.per_node.size(); ++n) {
    const cws::node_locality& x = l.per_node[n];
    if (!out.empty()) out += ' ';
    out += fmt::format("n{} {}", n, x.touched_bytes ? percent(share_of(x.local_bytes, x.touched_bytes)) : "-");
  }
  return out;
}

// The --json shapes. Scripts and tests read these keys: part of the interface.
inline json locality_json(const cws::locality_report& l) {
  json nodes = json::array();
  for (std::size_t n = 0; n < l.per_node.size(); ++n)
    nodes.push_back({{"node", n},
                     {"touched_bytes", l.per_node[n].touched_bytes},
                     {"local_bytes", l.per_node[n].local_bytes},
                     {"local_share", l.per_node[n].touched_bytes
                                         ? json(share_of(l.per_node[n].local_bytes, l.per_node[n].touched_bytes))
                                         : json(nullptr)}});
  return {{"pages", l.pages},
          {"touched_bytes", l.touched_bytes},
          {"local_bytes", l.local_bytes},
          {"unknown_bytes", l.unknown_bytes},
          {"local_share", l.share()},
          {"unknown_share", share_of(l.unknown_bytes, l.touched_bytes)},
          {"per_node", nodes}};
}

inline json relocalization_json(const cws::relocalization_report& r) {
  return {{"backend", r.backend},
          {"pages_examined", r.pages_examined},
          {"pages_moved", r.pages_moved},
          {"pages_failed", r.pages_failed},
          {"bytes_moved", r.bytes_moved},
          {"seconds", r.seconds},
          {"gbps", r.gbps()}};
}

inline json relocalizations_json(const std::vector<cws::relocalization_report>& list) {
  json out = json::array();
  for (const cws::relocalization_report& r : list) out.push_back(relocalization_json(r));
  return out;
}

// One relocalization in a line: "48 pages examined, 2 moved, 1 failed,
// 0.008 MB in 0.0001221 s (0.067 GB/s), simulated".
inline std::string describe_relocalization(const cws::relocalization_report& r) {
  return fmt::format("{} pages examined, {} moved, {} failed, {:.3f} MB in {:.4g} s ({:.3f} GB/s), {}",
                     r.pages_examined, r.pages_moved, r.pages_failed, megabytes(r.bytes_moved), r.seconds, r.gbps(),
                     r.backend.empty() ? "unknown backend" : r.backend);
}

// The `info` table's locality cell: "-" without a report, else "local 93.8%",
// plus what the run's relocalizations moved, e.g. "local 93.8%, moved 2 pages
// in 0.0001526 s (2 relocalizations)".
inline std::string locality_cell(const cws::locality_report* l, const std::vector<cws::relocalization_report>& moves) {
  std::string out = l ? fmt::format("local {}", percent(l->share())) : std::string();
  if (moves.empty()) return out.empty() ? "-" : out;
  std::uint64_t pages = 0;
  double seconds = 0;
  for (const cws::relocalization_report& r : moves) pages += r.pages_moved, seconds += r.seconds;
  out += fmt::format("{}moved {} in {:.4g} s", out.empty() ? "" : ", ", plural(pages, "page", "pages"), seconds);
  if (moves.size() > 1) out += fmt::format(" ({} relocalizations)", moves.size());
  return out;
}

}  // namespace cws::trace_cli
