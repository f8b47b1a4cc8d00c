#pragma once
// Schedules that outlive the program (--schedules FILE): a trace file
// (runtime::save_traces) written at the end of a run and loaded at the start
// of the next (runtime::load_traces seeds every schedule it holds with its
// latest run as template, matched by name).
//
// The schedule names carry the problem: "pcg/<variant>/<kernel>#<key>", the
// key naming the grid, stencil, coefficients, preconditioner, block split and
// a hash of the matrix pattern ("n=64,7pt,constant,sgs,32x8192,h=1a2b3c4d"),
// so a file made for another problem simply holds no schedule this run uses.
// Before loading, the file is read and checked (cws::traces::read validates
// it): it must hold schedules of this key and come from a runtime with the
// same worker count. Otherwise one line on stderr says why and the file is
// ignored (the run learns from scratch), unless strict, which makes it a
// cws::error (exit 2). A missing file is the first run: nothing to load.
//
// Evolve's stage is not in a trace file (a phase record says which policy
// ran, not whether it had converged): the file is loaded with
// cws::traces::load_options::converged, so a schedule whose latest run there
// settled (a replay with every steal designated, nothing taken back) starts
// converged, and evolve replays it under stows from iteration 0.

#include <cstddef>
#include <string>

#include <cws/cws.hpp>

namespace pcg {

struct schedule_file_status {
  bool exists = false;
  bool loaded = false;
  std::size_t seeded = 0;        // schedules of this key the file held
  std::size_t evolve_stows = 0;  // schedules of the file that start converged (evolve: under stows)
  std::string message;           // one line: what was loaded, or why not
};

// "pcg/<variant>/<kernel>#<key>"
std::string schedule_name(const std::string& variant, const std::string& kernel, const std::string& key);

// Checks and loads `path` into `rt` (see above). Call before the schedules
// run. Throws cws::error only when strict and the file exists but is unusable.
schedule_file_status load_schedule_file(cws::runtime& rt, const std::string& path, const std::string& key, bool strict);

// Throws cws::error (one line naming the path) unless the schedule file can
// be saved at `path`: called at startup, so that a directory, a missing
// folder or a symlink is reported before the benchmark runs, not after.
void check_schedule_file_path(const std::string& path);

// Saves every phase the runtime recorded to `path` (an exclusive temporary
// file renamed into place; a symlink, FIFO, device or directory at `path` is
// refused, cws/traces/safe_file.hpp). Throws cws::error.
void save_schedule_file(const cws::runtime& rt, const std::string& path);

}  // namespace pcg
