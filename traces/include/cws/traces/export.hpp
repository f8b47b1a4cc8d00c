#pragma once
// Exporters of trace files, and the selection of phase runs they work on.
//
//   auto f = cws::traces::read("stencil.cwst");
//   auto runs = cws::traces::select(f, "stencil", 3);        // stencil #3 only
//   std::ofstream("t.json") << cws::traces::chrome_trace(f, runs);
//   std::ofstream("t.dot") << cws::traces::dot(f, runs);

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cws/steal_tree/tree.hpp"
#include "cws/traces/trace_file.hpp"

namespace cws::traces {

// Indices into f.phases of the runs of schedule `phase` (any schedule if
// unset) with iteration `iteration` (any if unset), in file order.
std::vector<std::size_t> select(const trace_file& f, const std::optional<std::string>& phase = std::nullopt,
                                const std::optional<std::uint64_t>& iteration = std::nullopt);

// "stencil #3 (relws)"
std::string run_label(const steal_tree::phase_record& r);

// Chrome trace-event JSON (chrome://tracing, https://ui.perfetto.dev).
// One process ("cws: <host>"); one track per worker ("worker 3 (node 1)")
// plus a "phases" track. The selected runs are laid out one after another
// (each shifted by the previous ones' duration plus a small gap), each as a
// slice on the phases track. Every segment is a complete slice on its
// worker's track ("#5 (1,0)", args: tasks, segment, parent, level, step);
// segments a worker ran while blocked in sync nest inside the outer one.
// Every steal is a flow arrow from the parent segment's track (at the time
// the thief started, clamped into the parent's slice) to the thief's slice.
// Time stamps are microseconds. `runs` empty = every run.
std::string chrome_trace(const trace_file& f, const std::vector<std::size_t>& runs = {});

// Graphviz DOT of the steal trees of the selected runs (`runs` empty = all):
// one cluster per run, one node per segment labeled "#i / worker w / N tasks"
// and filled with a colour per worker, one edge per steal labeled "(level, step)".
std::string dot(const trace_file& f, const std::vector<std::size_t>& runs = {});
// One tree as a stand-alone digraph titled `title`.
std::string dot(const steal_tree::tree& t, std::string_view title);

}  // namespace cws::traces
