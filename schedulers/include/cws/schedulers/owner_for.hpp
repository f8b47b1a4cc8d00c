#pragma once
// parallel_for with an owner mapping (SC14 "user-specified" schedules): block
// i of n runs on worker floor(i * P / n), the ownership OpenMP schedule(static)
// gives a loop. Built on designate_after_next_spawn, so it takes effect under
// the `user` policy (and its recorded tree is the schedule's template); under
// other policies it is an ordinary parallel_for over the same blocks.
//
//   rt.run(rt.schedule("sweep", cws::policy::user), [&] {
//     cws::parallel_for_owned(0, n, [&](std::size_t i) { a[i] = b[i]; });
//   });

#include <algorithm>
#include <cstddef>

#include "cws/parallel_for.hpp"
#include "cws/spawn.hpp"

namespace cws {

namespace detail {
// Blocks [bl, bh) of `blocks` equal blocks of [first, last), run by the
// worker owning block bl: it keeps the left part and spawns the right part,
// designated to the owner of that part's first block, so every task runs on
// the owner of its first block and every block on its owner.
//
// Where the split falls matters. While [bl, bh) spans several owners it is
// split between owners, halving them: the first spawn hands the upper half of
// the workers their blocks at once. (Halving the blocks instead put the split
// inside block 0's owner's own run whenever that owner holds the middle block,
// as worker 0 does with 55 blocks on 2 workers: the spawned half went
// undesignated to its own deque, which under `user` no other worker may
// take, and the other owners' blocks waited until it got there: the loop ran
// serially.) A range with one owner is halved as usual, with no designation.
template <class Body>
void bisect_owned(std::size_t first, std::size_t last, std::size_t blocks, std::size_t bl, std::size_t bh,
                  unsigned workers, const Body& body) {
  const auto block_begin = [&](std::size_t b) { return first + (last - first) * b / blocks; };
  const auto owner = [&](std::size_t b) { return static_cast<unsigned>(b * workers / blocks); };
  // The first block that worker w or a later one owns: ceil(w blocks / workers).
  const auto first_block_of = [&](unsigned w) { return (std::size_t{w} * blocks + workers - 1) / workers; };
  while (bh - bl > 1) {
    const unsigned low = owner(bl), high = owner(bh - 1);
    std::size_t mid = bl + (bh - bl) / 2;
    if (low != high) {
      mid = first_block_of(low + (high - low + 1) / 2);  // in (bl, bh - 1]: owner(bl) < that worker <= owner(bh - 1)
      cws::designate_after_next_spawn(owner(mid));
    }
    cws::spawn([=, &body] { bisect_owned(first, last, blocks, mid, bh, workers, body); });
    bh = mid;
  }
  body(block_begin(bl), block_begin(bh));
}
}  // namespace detail

// body(lo, hi) over `blocks` consecutive blocks of [first, last) (default: one
// per worker), block i on worker floor(i * P / blocks) under the `user` policy.
template <class Body>
void parallel_for_range_owned(std::size_t first, std::size_t last, const Body& body, std::size_t blocks = 0) {
  if (last <= first) return;
  const unsigned p = cws::num_workers();
  if (blocks == 0) blocks = p;
  blocks = std::min(blocks, last - first);
  cws::finish([&] {
    // Called on another worker than block 0's owner: hand the whole range over first.
    if (cws::this_worker() != 0) cws::designate_after_next_spawn(0);
    cws::spawn([&] { detail::bisect_owned(first, last, blocks, 0, blocks, p, body); });
  });
}

// body(i) for every i in [first, last), each exactly once, with static ownership.
template <class Body>
void parallel_for_owned(std::size_t first, std::size_t last, const Body& body, std::size_t blocks = 0) {
  parallel_for_range_owned(
      first, last,
      [&body](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) body(i);
      },
      blocks);
}

}  // namespace cws
