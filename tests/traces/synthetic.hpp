#pragma once
// A hand-built, deterministic 4-worker trace with audit data: the content of
// the golden files traces/golden/v<N>-synthetic-4w-audit*.cwst (written by
// make_golden) and a fixture for the round-trip and corruption tests.
//
// synthetic_trace(version) is the content as format version `version` holds
// it: from version 2 on, the per-worker statistics carry designated steals
// and taken-back tasks (version 1 has no such fields: they are 0); from
// version 3 on, both runs carry a locality report and run #0 two
// relocalizations (see synthetic_locality below); from version 5 on, every
// steal point carries its pedigree (see synthetic_pedigrees below) and run #1
// (stows) has elided spawns on workers 0 and 3; from version 6 on, the header
// carries the place tree (synthetic_places below) and run #0 the hinted
// policies' counters (see synthetic_run).
//
// Two runs of schedule "stencil" on 4 workers (workers 0, 1 on NUMA node 0;
// 2, 3 on node 1). Steal tree of run #0 (policy relws), segments in pre-order:
//
//   #0 w0 root, 5 tasks, 0-10000 ns
//     #1 w1 taken at (1,0), 4 tasks, 500-9000
//       #2 w2 taken at (1,0), 3 tasks, 1200-4000
//     #3 w2 taken at (1,1), 3 tasks, 4500-8000
//       #5 w1 taken at (2,1), 1 task, 6000-7500 (nested: w1 blocked in a sync of #1)
//     #4 w3 taken at (2,0), 2 tasks, 800-7000
//
// Run #1 (policy stows) is the same tree with segment #2 run by worker 3
// instead of 2 (nested in #4): 3 of 18 tasks moved worker, none moved node.

#include <cstdint>
#include <vector>

#include "cws/locality.hpp"
#include "cws/steal_tree/tree.hpp"
#include "cws/traces/trace_file.hpp"
#include "support/steal_tree_builders.hpp"

namespace cws::test {

// Version 3 content. Pages of 4096 bytes; node 0's workers touched 32 pages,
// node 1's 16. Run #0: 2 of node 0's pages and 1 of node 1's were not local,
// one of them without a known home (local 93.75% on node 0, 93.75% on node
// 1, 93.75% in all). Then two relocalizations of run #0: the first moved 2
// pages and failed 1, the second found nothing more to move and failed on
// the same page again. Run #1 (stows): everything local.
inline cws::locality_report synthetic_locality(std::uint64_t iteration) {
  cws::locality_report l;
  l.pages = 48;
  if (iteration % 2 == 0) {
    l.per_node = {{32 * 4096, 30 * 4096}, {16 * 4096, 15 * 4096}};
    l.unknown_bytes = 4096;
  } else {
    l.per_node = {{32 * 4096, 32 * 4096}, {16 * 4096, 16 * 4096}};
  }
  for (const cws::node_locality& n : l.per_node) {
    l.touched_bytes += n.touched_bytes;
    l.local_bytes += n.local_bytes;
  }
  return l;
}

inline std::vector<cws::relocalization_report> synthetic_relocalizations(std::uint64_t iteration) {
  if (iteration % 2 == 1) return {};
  cws::relocalization_report a;
  a.schedule = "stencil";
  a.iteration = iteration;
  a.backend = "simulated";
  a.pages_examined = 48;
  a.pages_moved = 2;
  a.pages_failed = 1;
  a.bytes_moved = 2 * 4096;
  a.seconds = 1.220703125e-4;  // 2^-13: exact in every archive kind
  cws::relocalization_report b = a;
  b.pages_moved = 0;
  b.bytes_moved = 0;
  b.seconds = 3.0517578125e-5;
  return {a, b};
}

// Version 5 content: the pedigrees of the steal points, as the recorder lays
// them out (segment by segment, each segment's steals in order, concatenated).
// The ranks follow from the audit records' parent links: the root task spawned
// #1's root, #3's root and task 1 as its ranks 0, 1, 2; task 1's first spawn
// (rank 0) is #4's root; #1's root spawned #2's root first (rank 0); in #3,
// task 14 (rank 0 of #3's root) spawned task 15, then #5's root (rank 1).
//   segment #0: (1,0) -> [0] at 0, (1,1) -> [1] at 1, (2,0) -> [2, 0] at 2
//   segment #1: (1,0) -> [0] at 4
//   segment #3: (2,1) -> [0, 1] at 5
// Both runs have the same tree shape, so the same table.
inline std::vector<std::uint32_t> synthetic_pedigrees() { return {0, 1, 2, 0, 0, 0, 1}; }

// Version 6 content: the place tree of the 4 workers, each NUMA node its own
// leaf (no L3 level), as place_tree::from_topology builds it for
// "pack:2 numa:1 core:2 pu:1".
inline cws::traces::places_info synthetic_places() {
  cws::traces::places_info p;
  p.summary = "root -> 2 nodes -> 0 L3 groups -> 4 workers (topology)";
  p.source = "topology";
  p.numa_of_node = {0, 1};
  p.node_of_worker = {0, 0, 1, 1};
  p.leaf_of_worker = {0, 0, 1, 1};
  return p;
}

inline cws::steal_tree::phase_record synthetic_run(std::uint64_t iteration,
                                                   std::uint32_t version = cws::traces::format_version) {
  namespace st = cws::steal_tree;
  const bool moved = iteration % 2 == 1;
  const std::uint32_t w_seg2 = moved ? 3 : 2;
  st::phase_record r;
  r.schedule = "stencil";
  r.iteration = iteration;
  r.policy = moved ? "stows" : "relws";
  r.wall_s = moved ? 1.0625e-5 : 1.03125e-5;

  st::tree& t = r.steals;
  t.workers = 4;
  t.segments = {
      segment_of(0, st::no_parent, 0, 0, 0, 10000, 5),
      segment_of(1, 0, 1, 0, 500, 9000, 4),
      segment_of(w_seg2, 1, 1, 0, 1200, 4000, 3),
      segment_of(2, 0, 1, 1, 4500, 8000, 3),
      segment_of(3, 0, 2, 0, 800, 7000, 2),
      segment_of(1, 3, 2, 1, 6000, 7500, 1),
  };
  t.segments[0].steals = {{1, 0, 1, 1}, {1, 1, 2, 3}, {2, 0, 3, 4}};
  t.segments[1].steals = {{1, 0, w_seg2, 2}};
  t.segments[3].steals = {{2, 1, 1, 5}};
  if (version >= 5) {
    t.paths = synthetic_pedigrees();
    t.segments[0].steals[0].path = 0;
    t.segments[0].steals[1].path = 1;
    t.segments[0].steals[2].path = 2;
    t.segments[1].steals[0].path = 4;
    t.segments[3].steals[0].path = 5;
  }
  if (moved)
    t.worker_segments = {{0}, {1, 5}, {3}, {4, 2}};
  else
    t.worker_segments = {{0}, {1, 5}, {2, 3}, {4}};

  // One record per task, with the index of the record of the task that
  // spawned it (parent): the spawn tree is root -> {#1's root, #3's root,
  // (1,2)}, (1,2) -> {(2,0) = #4's root, (2,1), (2,2)}, (2,1) -> (3,0), ...
  auto task = [](std::uint32_t segment, std::uint32_t spawn_segment, std::uint32_t level, std::uint32_t step,
                 std::uint32_t worker, std::uint32_t parent) {
    return st::audit_record{segment, spawn_segment, level, step, worker, parent};
  };
  constexpr std::uint32_t none = st::no_parent;
  t.audit = {
      // worker 0: segment #0                                   index
      task(0, none, 0, 0, 0, none),  //  0 the phase root
      task(0, 0, 1, 2, 0, 0),        //  1
      task(0, 0, 2, 1, 0, 1),        //  2
      task(0, 0, 2, 2, 0, 1),        //  3
      task(0, 0, 3, 0, 0, 2),        //  4
      // worker 1: segment #1, with the nested #5 in the middle
      task(1, 0, 1, 0, 1, 0),   //  5 root of #1
      task(1, 1, 1, 1, 1, 5),   //  6
      task(1, 1, 2, 0, 1, 6),   //  7
      task(5, 3, 2, 1, 1, 14),  //  8 root of #5
      task(1, 1, 2, 1, 1, 6),   //  9
      // segment #2 (worker 2, or 3 in odd runs)
      task(2, 1, 1, 0, w_seg2, 5),   // 10 root of #2
      task(2, 2, 1, 0, w_seg2, 10),  // 11
      task(2, 2, 1, 1, w_seg2, 10),  // 12
      // worker 2: segment #3
      task(3, 0, 1, 1, 2, 0),   // 13 root of #3
      task(3, 3, 1, 0, 2, 13),  // 14
      task(3, 3, 2, 0, 2, 14),  // 15
      // worker 3: segment #4
      task(4, 0, 2, 0, 3, 1),   // 16 root of #4
      task(4, 4, 1, 0, 3, 16),  // 17
  };

  cws::worker_stats w0{5, 1, 0, 3, 0, 0.0};
  cws::worker_stats w1{5, 2, 2, 7, 1, 1.25e-6};
  cws::worker_stats w2{6, 2, 2, 2, 0, 2.5e-6};
  cws::worker_stats w3{2, 1, 1, 11, 0, 3.0e-6};
  if (moved) {
    w2 = {3, 1, 1, 5, 0, 4.5e-6};
    w3 = {5, 2, 2, 11, 1, 1.0e-6};
  }
  if (version >= 2) {
    // relws (run #0): worker 1 got 1 of its 2 steals from its mailbox, worker
    // 2 both, worker 3 none (an extra steal); workers 0 and 2 took 1 and 3
    // routed tasks back. stows (run #1): every steal was designated, nothing
    // taken back.
    if (moved) {
      w1.designated = 2;
      w2.designated = 1;
      w3.designated = 2;
    } else {
      w0.taken_back = 1;
      w1.designated = 1;
      w2.designated = 2;
      w2.taken_back = 3;
    }
  }
  if (version >= 5 && moved) {
    // stows ran spawns with no designated steal below them as plain calls
    // (counted in `tasks`). A real audit run never elides (audit records
    // tasks); the counts are here to exercise the field.
    w0.elided = 2;
    w3.elided = 1;
  }
  if (version >= 6 && !moved) {
    // Counted as a hinted run would count them (the file's policies are not
    // hinted; the counts are here to exercise the fields): worker 0 sent 6
    // hinted spawns to its own leaf (4 of them inlined by HET), 2 to node 1's
    // place and 1 to the root, and reclaimed 1; workers 1 to 3 each took one
    // of their steals from a node or the root place; worker 2 sent 3 to node 0.
    w0.hinted_leaf = 6;
    w0.het_inlined = 4;
    w0.hinted_node = 2;
    w0.hinted_root = 1;
    w0.reclaimed = 1;
    w1.place_steals = 1;
    w2.place_steals = 1;
    w2.hinted_node = 3;
    w3.place_steals = 1;
  }
  r.stats = {w0, w1, w2, w3};
  if (version >= 3) {
    r.locality = synthetic_locality(iteration);
    r.relocalizations = synthetic_relocalizations(iteration);
  }
  return r;
}

inline cws::traces::trace_file synthetic_trace(std::uint32_t version = cws::traces::format_version) {
  cws::traces::trace_file f;
  cws::traces::trace_header& h = f.header;
  h.cws_version = "0.1.0";
  h.host = "synthetic";
  h.created = "2024-01-01T00:00:00Z";
  h.topology.summary = "2 packages, 2 NUMA nodes, 2 L3 groups, 4 cores, 4 PUs";
  h.topology.source = "synthetic \"pack:2 numa:1 core:2 pu:1\" (CWS_TOPOLOGY)";
  h.topology.synthetic = true;
  h.topology.packages = 2;
  h.topology.numa_nodes = 2;
  h.topology.l3_groups = 2;
  h.topology.cores = 4;
  h.topology.pus = 4;
  for (unsigned w = 0; w < 4; ++w) h.placement.push_back(cws::worker_placement{w, w, w / 2, w % 2});
  h.options.workers = 4;
  h.options.pin = true;
  h.options.idle = "adaptive";
  h.options.max_nesting = 16;
  h.options.seed = 0x5eed;
  h.options.record = true;
  h.options.audit = true;
  h.options.topology_request = "pack:2 numa:1 core:2 pu:1";
  if (version >= 6) h.places = synthetic_places();
  f.phases = {synthetic_run(0, version), synthetic_run(1, version)};
  return f;
}

// `n` runs of "stencil" (iterations 0..n-1), alternating the two runs of
// synthetic_trace() (the even ones with their two relocalizations): a longer
// file for the record-stream tests (format version 4 on).
inline cws::traces::trace_file synthetic_runs(std::size_t n) {
  const cws::traces::trace_file base = synthetic_trace();
  cws::traces::trace_file f;
  f.header = base.header;
  for (std::size_t i = 0; i < n; ++i) {
    cws::steal_tree::phase_record r = base.phases[i % 2];
    r.iteration = i;
    for (cws::relocalization_report& x : r.relocalizations) x.iteration = i;
    f.phases.push_back(r);
  }
  return f;
}

}  // namespace cws::test
