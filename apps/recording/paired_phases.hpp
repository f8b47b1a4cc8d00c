#pragma once
// What cws-recording measures: pairs of phases of one kernel, one of each
// pair with a steal-tree recorder attached (ABBA order, so that neither side
// always goes first), and the size of the trace file of recorded phases.

#include <cstddef>
#include <cstdint>
#include <optional>

#include <cws/cws.hpp>

#include "common/timing.hpp"

namespace recording {

struct paired {
  cws_apps::samples off, on, ratios;
};

// Runs `pairs` pairs of phases of `kernel`, one of each pair with a recorder attached.
template <class Kernel>
paired measure_pairs(cws::runtime& rt, cws::schedule& s, unsigned pairs, const Kernel& kernel) {
  paired out;
  rt.run(s, kernel);  // warm-up
  for (unsigned p = 0; p < pairs; ++p) {
    double t[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const bool record = (k == 0) == (p % 2 == 0);  // ABBA: neither side always goes first
      std::optional<cws::steal_tree::recorder> rec;
      if (record) rec.emplace(rt);
      // The wall clock around rt.run, as in every app: the recorder's work
      // after the phase (its observer call) counts too.
      t[record] = cws_apps::seconds_of([&] { rt.run(s, kernel); });
    }
    out.off.add(t[0]);
    out.on.add(t[1]);
    out.ratios.add(t[1] / t[0]);
  }
  return out;
}


// The trace file of `phases` runs of `kernel` recorded on `s`, and its size.
struct trace_size {
  cws::traces::trace_file file;
  std::size_t bytes = 0;
  std::uint64_t steals = 0;
};
template <class Kernel>
trace_size record_phases(cws::runtime& rt, cws::schedule& s, unsigned phases, const Kernel& kernel) {
  cws::steal_tree::recorder rec(rt);
  for (unsigned p = 0; p < phases; ++p) rt.run(s, kernel);
  trace_size out{cws::traces::capture(rt)};
  out.file.phases = rec.phases();
  out.bytes = cws::traces::encode(out.file).size();
  for (const auto& r : out.file.phases) out.steals += cws::steal_tree::summarize(r.steals).steals;
  return out;
}

}  // namespace recording
