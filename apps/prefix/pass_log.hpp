#pragma once
// What the cws passes of cws-prefix did, run by run: the run report of every
// init, reduce and scan pass (what it ran as, the template it replayed,
// divergence, steals, local share) and an audit of which worker ran each
// block's leaf, compared with the worker that first touched the block's pages.
//
// The audit is the app's own check that "schedule follows data" held: the
// leaves write their worker into one slot per block (no two leaves share a
// block, so no race), and a pass whose blocks did not all run on their first
// toucher is reported as such, whatever its run report says.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <cws/cws.hpp>

#include "common/locality_tally.hpp"
#include "common/report.hpp"

namespace prefix {

enum pass_id : unsigned { init_pass = 0, reduce_pass = 1, scan_pass = 2 };
inline constexpr unsigned pass_count = 3;
const char* pass_name(pass_id p) noexcept;  // "init", "reduce", "scan"

// Which worker ran each block's leaf, per pass (the latest run of it), and
// which worker first touched each block (the first init pass).
class block_audit {
 public:
  void resize(std::size_t blocks);
  // In a leaf of pass p over blocks [bl, bh), on worker w.
  void note(pass_id p, std::size_t bl, std::size_t bh, unsigned w) noexcept {
    for (std::size_t k = bl; k < bh; ++k) ran_on_[p][k] = w;
  }
  // After the first init pass: its workers are the blocks' first touchers.
  void keep_first_touch() { toucher_ = ran_on_[init_pass]; }
  // Blocks whose leaf ran on their first toucher in the latest run of pass p.
  std::size_t on_toucher(pass_id p) const noexcept;
  std::size_t blocks() const noexcept { return toucher_.size(); }
  // How many distinct workers first touched some block (1: the template
  // keeps every block on one worker, and any replay of it is trivially local).
  std::size_t toucher_count() const;

 private:
  std::vector<unsigned> ran_on_[pass_count];
  std::vector<unsigned> toucher_;
};

// One cws pass of one run.
struct pass_entry {
  std::optional<unsigned> run;  // 0-based, warm-up runs first; empty: the untimed first-touch init
  bool measured = false;
  pass_id pass = init_pass;
  std::uint64_t schedule_iteration = 0;
  std::string schedule, follows;
  cws::ran_as ran_as = cws::ran_as::other;
  std::string label, reason, template_from;
  std::uint64_t tasks = 0, steals = 0, designated = 0, taken_back = 0;
  std::optional<double> local_share;
  std::size_t blocks = 0, blocks_on_toucher = 0;
};

// The entry of the run `s` just made (its last_report), with the audit of pass p.
pass_entry entry_of(const cws::schedule& s, pass_id p, const block_audit& audit, const cws_apps::locality_tally& tally,
                    std::optional<unsigned> run, bool measured);

cws_apps::json entries_json(const std::vector<pass_entry>& entries);

// What a variant's passes add up to, over the measured runs (set on `e`):
// per pass "<pass>_on_toucher" (share of block leaves that ran on their
// first toucher), "<pass>_ran_as" (the label of the last one),
// "<pass>_diverged" (count); "diverged_passes" (all runs, warm-up included);
// "undetected_mismatches" (measured passes that replayed a template strictly
// (stows, stuws, user) without diverging, yet ran some block away from its
// first toucher).
void put_summary(cws_apps::json& e, const std::vector<pass_entry>& entries);

// For a variant whose reduce and scan passes follow init's schedule under a
// strict policy (stows, stuws): true when every measured one replayed it
// without diverging and ran every block on its first toucher. A diverged or
// mismatched follower is never trusted.
bool follow_trusted(const std::vector<pass_entry>& entries);

}  // namespace prefix
