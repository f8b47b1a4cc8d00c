#include "pcg/mpi_rank.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "common/loop_flavour_names.hpp"
#include "pcg/kernel_schedules.hpp"
#include "pcg/schedule_file.hpp"

namespace pcg {

namespace {

// --loop: cws (under --policy) or a baseline's name.
cws_apps::loop_flavour flavour_of(const std::string& loop, const std::string& policy) {
  return loop == "cws" ? cws_apps::cws_flavour_of(policy) : cws_apps::flavour_named(loop);
}

}  // namespace

mpi_rank::mpi_rank(cws_apps::bench_env& env, const problem_flags& f, const slab& part, const std::string& loop,
                   const std::string& policy, int rank, int ranks, const std::string& schedule_file)
    : flavour_(flavour_of(loop, policy)),
      part_(part),
      sys_(f.prob, part, cws::numa::first_touch),
      vec_(part, cws::numa::first_touch),
      schedules_(schedules_for(env.rt(), f, policy, rank, ranks, schedule_file)),
      loops_(env, flavour_, part.blocks, 1,
             schedules_.empty() ? std::vector<cws::schedule*>(kernel_names(f.so.pc, f.prob.colours()).size())
                                : schedules_),
      local_(loops_, schedules_, spmv_kernel),
      exec_(local_, part, f.prob.reach(), rank, ranks),
      solver_(sys_, vec_, exec_, f.so) {
  solver_.init();
}

std::vector<cws::schedule*> mpi_rank::schedules_for(cws::runtime& rt, const problem_flags& f, const std::string& policy,
                                                    int rank, int ranks, const std::string& schedule_file) {
  // The pattern hash needs the filled matrix, the schedule names need the
  // hash: a serial pre-fill for it, then the real init phase refills in place.
  sys_.fill_blocks(0, part_.blocks);
  const std::string key =
      fmt::format("{},{},{}x{},h={:08x},rank={}/{}", f.prob.describe(), f.precond, part_.global_blocks,
                  part_.block_rows, sys_.pattern_hash() & 0xffffffffu, rank, ranks);
  if (!schedule_file.empty())
    std::fprintf(stderr, "rank %d: %s\n", rank, load_schedule_file(rt, schedule_file, key, false).message.c_str());
  if (!cws_apps::runs_cws_phases(flavour_)) return {};
  return kernel_schedules(rt, policy, policy, kernel_names(f.so.pc, f.prob.colours()), key, false);
}

}  // namespace pcg
