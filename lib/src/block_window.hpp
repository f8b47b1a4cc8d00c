#pragma once
// The window between phases in which a helper waits without sleeping
// (runtime_config::blocktime_us): it spins through the first half, yields
// through the second, and parks on the epoch word past it (scheduler.hpp,
// Start).
//
// The caller's phases run alone keep the window open. A phase the policy
// runs alone (scheduling_policy::runs_alone: the short phases a strict
// replay times alone, cws-cg's dot products and vector updates) does not
// move the epoch, so a helper waiting between two shared phases sees none of
// the alone ones in between. With 30-60 us of them between two sparse
// matrix-vector phases, a 50 us window ran out before many of those phases,
// and the helper had to be woken from the futex, which takes tens of
// microseconds to milliseconds on a virtual machine: the strict replay then
// took the helper's part back and ran the whole phase on the caller, several
// phases in a row (cws-cg class W under stows: bursts of 5-7 spmv phases at
// twice their usual time). So while the caller runs phases alone it bumps a
// keep-alive word, at most once a quarter window (keepalive_due), and a
// helper that sees the word change starts its window over. A helper parks
// after a whole window without a change, as it did after the last phase of
// a program section before.
//
// The word is a hint: nothing is published through it (relaxed on both
// sides), and a helper that misses a change only parks earlier, as it would
// have without it. Pure bookkeeping over the times and values the caller of
// these functions reads (test_block_window drives it with chosen ones).

#include <cstdint>

namespace cws::detail {

class block_window {
 public:
  enum class stage { spin, yield, over };

  // A window of `length_ns` opening at `start_ns`, the keep-alive word then
  // reading `keepalive`.
  block_window(std::uint64_t start_ns, std::uint64_t length_ns, std::uint64_t keepalive) noexcept
      : start_ns_(start_ns), length_ns_(length_ns), keepalive_seen_(keepalive) {}

  // Where the window stands at `now_ns` with the word reading `keepalive`: a
  // value not seen before starts the window over from `now_ns`.
  stage at(std::uint64_t now_ns, std::uint64_t keepalive) noexcept {
    if (keepalive != keepalive_seen_) {
      keepalive_seen_ = keepalive;
      start_ns_ = now_ns;
    }
    const std::uint64_t in = now_ns > start_ns_ ? now_ns - start_ns_ : 0;
    return in < length_ns_ / 2 ? stage::spin : in < length_ns_ ? stage::yield : stage::over;
  }

  // Whether the caller, starting a phase alone at `now_ns`, bumps the word,
  // last bumped (or last seen by the helpers at a shared phase's end) at
  // `last_ns`. Never with no window: the helpers park at once then.
  static constexpr bool keepalive_due(std::uint64_t now_ns, std::uint64_t last_ns, std::uint64_t length_ns) noexcept {
    return length_ns != 0 && now_ns >= last_ns + length_ns / 4;
  }

 private:
  std::uint64_t start_ns_;
  std::uint64_t length_ns_;
  std::uint64_t keepalive_seen_;
};

}  // namespace cws::detail
