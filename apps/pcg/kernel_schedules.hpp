#pragma once
// The schedules of one cws variant of the solver (cws-pcg, cws-pcg-mpi): one
// per kernel, "pcg/<suffix>/<kernel>#<key>" (schedule_file.hpp), under
// `policy` except the convergence check (random: it runs once per solve).
// Under a replaying policy init follows spmv (its pages land where spmv runs
// once spmv has a template, e.g. from the schedule file); with `follow`
// every kernel but check does, and the phases that run once per solve
// (start) or once at all (init) replay spmv's template strictly, under
// stows: too rare to learn, and an evolve schedule relocalizes after each
// of its learning runs, which would move the vectors they share with the
// per-iteration kernels (x, r) to its own mapping, solve after solve.

#include <string>
#include <vector>

#include <cws/cws.hpp>

namespace pcg {

std::vector<cws::schedule*> kernel_schedules(cws::runtime& rt, const std::string& policy, const std::string& suffix,
                                             const std::vector<std::string>& kernels, const std::string& key,
                                             bool follow);

}  // namespace pcg
