// cws-placement-probe: starts a runtime from the environment (CWS_*, the
// process's CPU set, an MPI launcher's local rank) and reports where its
// workers really run: one task is designated onto every worker (the `user`
// policy, so no scheduling chance is involved) and reads its thread's CPU
// set with sched_getaffinity. test_placement runs it under taskset and mpirun.
//
// Usage: cws-placement-probe OUT_DIR   writes OUT_DIR/<pid>.txt:
//   workers N
//   rule <topology().cpu_rule()>
//   worker W <cpu list>          (one line per worker)
// A cws::error is one line on stderr and exit code 1.

#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "cws/schedulers/knobs.hpp"

namespace {

std::string affinity_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "?";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) {
      if (!out.empty()) out += ',';
      out += std::to_string(c);
    }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  try {
    cws::runtime_config cfg = cws::runtime_config::from_env();
    cfg.record = true;  // the user policy records its designations
    // Every designated task runs on its worker, however late that worker
    // comes on a busy machine (CWS_REPLAY_GRACE_US would release the phase).
    cws::schedulers::knobs_of(cfg).replay.grace_us = 0;
    cws::runtime rt(cfg);
    const unsigned n = rt.workers();
    std::vector<std::string> seen(n);
    std::vector<unsigned> ran_on(n, n);
    rt.run(rt.schedule("probe", "user"), [&] {
      for (unsigned w = 1; w < n; ++w) {
        cws::designate_after_next_spawn(w);
        cws::spawn([&, w] {
          ran_on[w] = cws::this_worker();
          seen[w] = affinity_list();
        });
      }
      ran_on[0] = cws::this_worker();
      seen[0] = affinity_list();
      cws::sync();
    });
    std::ofstream out(std::string(argv[1]) + "/" + std::to_string(::getpid()) + ".txt");
    out << "workers " << n << "\nrule " << rt.topology().cpu_rule() << "\n";
    for (unsigned w = 0; w < n; ++w) {
      if (ran_on[w] != w) {
        std::fprintf(stderr, "cws-placement-probe: the task designated onto worker %u ran on %u\n", w, ran_on[w]);
        return 3;
      }
      out << "worker " << w << " " << seen[w] << "\n";
    }
    return out ? 0 : 4;
  } catch (const cws::error& e) {
    std::fprintf(stderr, "cws-placement-probe: %s\n", e.what());
    return 1;
  }
}
