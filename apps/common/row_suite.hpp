#pragma once
// The variant runner of PufferFish's row benchmarks (cws-sor, cws-srad): an
// init phase that first-touches the data, then kernel phases that recur
// --iters times per run, every phase a loop over rows (common/row_loops.hpp).
// Written once here, so that an app keeps only its kernels, what their leaves
// hint and touch, its verification and its own options:
//
//   * the variants of row_loops.hpp's table (--variants, --policy), with one
//     schedule per phase, "<app>-<phase>/<variant>", the init one under the
//     variant's init policy; under a policy that learns trees every kernel
//     phase after the first replays the first one's template;
//   * the flags that go with them (--tile, --recursion, --variants, --order,
//     the common ones);
//   * every variant's arrays of floats, placed as the variant says, first
//     touched by an untimed init run;
//   * the timing (measure_variants), the ratios, the figures of the cws
//     variants (hinted_figures.hpp, the phase breakdowns), the params every
//     row benchmark prints, the table, its footnotes and the JSON document;
//   * the verification: every variant's result equals the serial program's
//     bit for bit (the app may check more), and its checksum.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/hinted_figures.hpp"
#include "common/hinted_recursion.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/row_loops.hpp"

namespace pufferfish {

// The flags of a row benchmark beyond its own.
struct row_options {
  cws_apps::common_options common;
  std::size_t tile = 2;  // rows per leaf (PufferFish's THRESHOLD)
  std::string recursion = "regular";
  std::vector<std::string> variants;
  const CLI::Option* policy_flag = nullptr;  // set by add_row_options: was --policy given?
};

// What an app's flags say of its benchmark; `title` names it in the help of
// --recursion ("SOR": SOR's binary splitter, SOR-ir's 2-/4-way one).
struct row_help {
  std::string title;
  std::string tile;        // --tile
  unsigned iters = 1;      // --iters' default ...
  std::string iters_help;  // ... and help
  std::string footprint;   // --order: the memory each order needs
};

// Adds --tile, --recursion, --variants, the common options and --order.
void add_row_options(CLI::App& app, row_options& o, const row_help& help);

// Adds option `name` (e.g. "--size"), a count in [min, max] whose default the help shows.
void add_count_option(CLI::App& app, const std::string& name, std::size_t& value, const std::string& help,
                      std::size_t min, std::size_t max);

// The timed unit of a row benchmark: one step is every kernel phase once.
struct row_step {
  std::string name;        // "sweep": params "<name>s" = --iters
  std::string time_title;  // the headline column ("ms/sweep")
  std::string rate_key;    // the throughput of every entry ("mcups"), in millions of ...
  double items = 0;        // ... the items one step updates, per second
};

// The words of the footnotes.
struct row_words {
  std::string timed;       // what the headline time is the wall clock around ("the calls of its phases")
  std::string data;        // what init re-initialises ("grid")
  std::string phase_word;  // the measured phases are the "kernel" phases
  std::string declared;    // what a leaf declares as its touch
  std::string ok_note;     // what "ok" checks
};

// The data of every variant, and its result, which must equal the serial
// program's bit for bit.
struct row_data {
  std::size_t arrays = 1;  // arrays of ...
  std::size_t cells = 0;   // ... floats each
  std::size_t cols = 0;    // in rows of `cols` cells
  std::size_t result = 0;  // the array that holds the result
  std::string what;        // its cells in a mismatch ("cell(s)")
};

// What an app tells the runner about itself.
struct row_spec {
  std::string app;                  // "sor": program cws-sor, schedules "sor-<phase>/<variant>"
  std::vector<std::string> phases;  // [0] the init (once per run), then the kernel phases (--iters times)
  row_data data;
  row_step step;
  row_words words;
};

// One variant.
struct row_variant {
  std::string name;
  variant_kind kind;
  std::vector<cws::schedule*> schedules{};  // one per phase; nullptr outside the cws variants
  std::vector<std::uint64_t> start{};       // cws: each schedule's iterations() before the first run
  std::unique_ptr<row_loops> loops{};
  // Its data, placed as kind.placement says, from before its first run to after its verification.
  std::vector<cws::numa::array<float>> arrays{};

  bool runs_cws() const noexcept { return loops->runs_cws_phases(); }
};

// The hooks of an app: its part of one variant's life.
struct row_hooks {
  std::function<double(row_variant&)> init;  // one init run (the first one untimed: the first touch)
  std::function<double(row_variant&)> step;  // one step: every kernel phase once
  // Optional, after the variant's last run: the app's own checks on `entry`,
  // a message on `wrong` when the variant's result is not right.
  std::function<void(row_variant&, cws_apps::json& entry, std::vector<std::string>& wrong)> verify{};
};

// What the app prints beyond what every row benchmark prints.
struct row_output {
  cws_apps::json sizes;  // params after "bench": the problem's size
  cws_apps::json own;    // params after "recursion": the app's constants and flags
  // The caption: "cws-<app> (<bench>): <size> (<MiB> MiB[ each]), <iters>
  // <step>s per run (<per_step>), leaves of <tile> rows, <detail>, <runs>
  // runs (+<warmup> warm-up)", with the MiB of one array.
  std::string size, per_step, detail;
};

class row_suite {
 public:
  // Creates every variant, its schedules and its loops; an unknown variant
  // or policy throws here, before anything runs.
  row_suite(cws_apps::bench_env& env, const row_options& o, row_spec spec);
  row_suite(const row_suite&) = delete;
  row_suite& operator=(const row_suite&) = delete;

  // Measures every variant (hooks), compares its result with `expected`, the
  // serial program's (bit for bit; not when empty), adds the ratios,
  // finishes --trace-out, prints the table or the JSON document, and reports
  // every mismatch. Returns the exit code (1 when a variant is not right).
  int run(const row_hooks& hooks, const std::vector<float>& expected, const row_output& output);

 private:
  // The figures of a cws variant on its entry.
  void put_cws(const row_variant& v, cws_apps::json& entry) const;

  cws_apps::bench_env& env_;
  const row_options& opt_;
  row_spec spec_;
  cws_apps::recursion shape_;
  std::string bench_;
  cws_apps::locality_tally locality_;
  counter_tally counters_;
  std::vector<row_variant> variants_;
};

}  // namespace pufferfish
