// The hinted engine's protocol, played exactly through a scripted worker_view
// (as the stall-watch tests do): PufferFish's steal order, that hinted-hpt
// skips sibling L3 groups, that nodes exchange work only through the root
// unless relaxed, and the HET flag (set by a backlog past the limit on a
// node-local push, cleared by a failed pass over the leaf's peers).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cws/cws.hpp"
#include "hinted_engine.hpp"
#include "task_access.hpp"

namespace cws {
// A config independent of the caller's CWS_* environment.
inline runtime_config test_config(unsigned workers, const std::string& topo) {
  runtime_config c;
  c.workers = workers;
  c.topology = topo;
  return c;
}
}  // namespace cws

namespace {

using cws::place_target;
using cws::place_tree;
using cws::schedulers::detail::hinted_engine;
using cws::schedulers::detail::hinted_mode;

// The hippo-like machine of the paper, scaled: 2 nodes x 2 L3 groups x 2 workers.
// Workers 0,1 | 2,3 on node 0; 4,5 | 6,7 on node 1.
const std::string hippo = "pack:2 numa:1 l3:2 core:2 pu:1";

// Where a scripted task sits: a worker's own deque (place = own_deque), one of
// its node places (0..), or its root place.
constexpr unsigned own_deque = 0xfffffffe;

class scripted_view final : public cws::worker_view {
 public:
  scripted_view(unsigned self, unsigned workers) : self_(self), workers_(workers) {}

  // A task named `name` waiting on (victim, place).
  void seed(unsigned victim, unsigned place, std::string name) { waiting_[{victim, place}].push_back(std::move(name)); }
  void set_backlog(std::int64_t n) { backlog_ = n; }
  // Every attempt in order, "deque v" / "place v.n" / "root v"; and what was taken.
  std::vector<std::string> attempts;
  std::string taken;

  unsigned self() const noexcept override { return self_; }
  unsigned workers() const noexcept override { return workers_; }
  cws::task_handle steal(unsigned victim) noexcept override {
    attempts.push_back("deque " + std::to_string(victim));
    return take(victim, own_deque);
  }
  cws::task_handle steal_placed(unsigned victim, unsigned node) noexcept override {
    attempts.push_back(node == root_place ? "root " + std::to_string(victim)
                                          : "place " + std::to_string(victim) + "." + std::to_string(node));
    return take(victim, node);
  }
  std::int64_t backlog() const noexcept override { return backlog_; }
  cws::task_handle take_mail() noexcept override { return nullptr; }
  std::uint64_t random() noexcept override { return 0; }
  cws::task_handle take_mail_noted(std::uint32_t) noexcept override { return nullptr; }
  cws::task_handle steal_mail(unsigned) noexcept override { return nullptr; }
  idleness idle_state() const noexcept override { return {}; }

 private:
  cws::task_handle take(unsigned victim, unsigned place) {
    auto it = waiting_.find({victim, place});
    if (it == waiting_.end() || it->second.empty()) return nullptr;
    taken = it->second.front();
    it->second.erase(it->second.begin());
    return cws::detail::task_access::wrap(&dummy_);  // the engine only tests and passes handles on
  }
  unsigned self_, workers_;
  std::int64_t backlog_ = 0;
  std::map<std::pair<unsigned, unsigned>, std::vector<std::string>> waiting_;
  cws::detail::task dummy_;
};

hinted_engine engine_for(const place_tree& places, hinted_mode mode, cws::schedulers::hinted_knobs knobs = {}) {
  hinted_engine e;
  e.attach(places, knobs, mode);
  return e;
}

// Worker 0 (node 0, leaf 0). Tasks wait everywhere it could look, and where
// it must never look; it takes them in PufferFish's order, one per pass.
TEST(HintedProtocol, PufferFishStealOrder) {
  cws::runtime rt(cws::test_config(8, hippo));
  const place_tree& places = rt.places();
  ASSERT_EQ(places.nodes(), 2u);
  ASSERT_EQ(places.leaves(), 4u);
  hinted_engine e = engine_for(places, hinted_mode::pufferfish);
  scripted_view w0(0, 8);
  w0.seed(1, own_deque, "L3 peer");
  w0.seed(5, 0, "node 1 placed on node 0");
  w0.seed(2, own_deque, "sibling L3");
  w0.seed(6, cws::worker_view::root_place, "root");
  w0.seed(4, own_deque, "other node's deque");  // never
  w0.seed(5, 1, "placed on node 1");            // never
  w0.seed(1, 1, "node 0 placed on node 1");     // never
  std::vector<std::string> order;
  for (int pass = 0; pass < 6; ++pass) {
    w0.taken.clear();
    if (e.find_work(w0)) order.push_back(w0.taken);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"L3 peer", "node 1 placed on node 0", "sibling L3", "root"}));
}

TEST(HintedProtocol, OnePassVisitsPeersThenNodePlaceThenSiblingsThenRoots) {
  cws::runtime rt(cws::test_config(8, hippo));
  hinted_engine e = engine_for(rt.places(), hinted_mode::pufferfish);
  scripted_view w2(2, 8);  // node 0, leaf 1 (workers 2, 3)
  EXPECT_FALSE(e.find_work(w2));
  const std::vector<std::string> expected{
      "deque 3",                                           // its L3 peer
      "place 4.0", "place 5.0", "place 6.0", "place 7.0",  // node 0's place, from 3 on, off-node only
      "deque 0",   "deque 1",                              // the sibling L3 group
      "root 3",    "root 4",    "root 5",    "root 6",    "root 7", "root 0", "root 1"};  // the roots, after itself
  EXPECT_EQ(w2.attempts, expected);
}

TEST(HintedProtocol, HptSkipsSiblingGroups) {
  cws::runtime rt(cws::test_config(8, hippo));
  hinted_engine e = engine_for(rt.places(), hinted_mode::hpt);
  scripted_view w2(2, 8);
  w2.seed(0, own_deque, "sibling L3");
  EXPECT_FALSE(e.find_work(w2)) << "HPT_DA starves the sibling group";
  for (const std::string& a : w2.attempts) EXPECT_NE(a, "deque 0");
}

TEST(HintedProtocol, RelaxedStealsAcrossNodesAfterTheRoot) {
  cws::runtime rt(cws::test_config(8, hippo));
  cws::schedulers::hinted_knobs relaxed;
  relaxed.relaxed = true;
  hinted_engine e = engine_for(rt.places(), hinted_mode::pufferfish, relaxed);
  scripted_view w0(0, 8);
  w0.seed(4, own_deque, "other node's deque");
  ASSERT_TRUE(e.find_work(w0));
  EXPECT_EQ(w0.taken, "other node's deque");
  const auto root_at = std::find(w0.attempts.begin(), w0.attempts.end(), "root 1");
  const auto cross_at = std::find(w0.attempts.begin(), w0.attempts.end(), "deque 4");
  EXPECT_LT(root_at, cross_at) << "the root comes first";
}

cws::hint_home on_node(unsigned n) { return {cws::hint_home::kind::node, n}; }

TEST(HintedProtocol, FindPlaceRouting) {
  cws::runtime rt(cws::test_config(8, hippo));
  hinted_engine e = engine_for(rt.places(), hinted_mode::pufferfish);
  scripted_view w5(5, 8);  // node 1
  EXPECT_EQ(e.place_for(w5, on_node(1)).where, place_target::kind::leaf);
  const place_target there = e.place_for(w5, on_node(0));
  EXPECT_EQ(there.where, place_target::kind::node);
  EXPECT_EQ(there.node, 0u);
  EXPECT_EQ(e.place_for(w5, {cws::hint_home::kind::spans, 0}).where, place_target::kind::root);
  EXPECT_EQ(e.place_for(w5, {}).where, place_target::kind::leaf);
}

TEST(HintedProtocol, HetFlagIsSetByABacklogAndClearedByAFailedLeafPass) {
  cws::runtime rt(cws::test_config(8, hippo));
  hinted_engine e = engine_for(rt.places(), hinted_mode::pufferfish);
  scripted_view w0(0, 8), w1(1, 8), w2(2, 8);
  w0.set_backlog(2);  // not more than the limit (2): pushed, no flag
  EXPECT_EQ(e.place_for(w0, on_node(0)).where, place_target::kind::leaf);
  EXPECT_FALSE(e.het_flag(0));
  w0.set_backlog(3);  // more than 2: this push sets the leaf's flag, and is still a push
  EXPECT_EQ(e.place_for(w0, on_node(0)).where, place_target::kind::leaf);
  EXPECT_TRUE(e.het_flag(0));
  // Now node-local spawns of leaf 0 (w0 and its peer w1) run inline...
  EXPECT_EQ(e.place_for(w0, on_node(0)).where, place_target::kind::inline_now);
  EXPECT_EQ(e.place_for(w1, on_node(0)).where, place_target::kind::inline_now);
  // ... but not remote, spanning, unhinted spawns, nor the other leaf's.
  EXPECT_EQ(e.place_for(w0, on_node(1)).where, place_target::kind::node);
  EXPECT_EQ(e.place_for(w0, {cws::hint_home::kind::spans, 0}).where, place_target::kind::root);
  EXPECT_EQ(e.place_for(w0, {}).where, place_target::kind::leaf);
  EXPECT_EQ(e.place_for(w2, on_node(0)).where, place_target::kind::leaf);
  // A pass over its peers that finds work leaves the flag set...
  w1.seed(0, own_deque, "work");
  EXPECT_TRUE(e.find_work(w1));
  EXPECT_TRUE(e.het_flag(0));
  // ... a failed one clears it, and spawns are pushed again.
  EXPECT_FALSE(e.find_work(w1));
  EXPECT_FALSE(e.het_flag(0));
  w0.set_backlog(0);
  EXPECT_EQ(e.place_for(w0, on_node(0)).where, place_target::kind::leaf);
}

TEST(HintedProtocol, NoHetUnderHptOrWhenSwitchedOff) {
  cws::runtime rt(cws::test_config(8, hippo));
  cws::schedulers::hinted_knobs off;
  off.het = false;
  hinted_engine hpt = engine_for(rt.places(), hinted_mode::hpt);
  hinted_engine no_het = engine_for(rt.places(), hinted_mode::pufferfish, off);
  for (hinted_engine* engine : {&hpt, &no_het}) {
    hinted_engine& e = *engine;
    scripted_view w0(0, 8);
    w0.set_backlog(100);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(e.place_for(w0, on_node(0)).where, place_target::kind::leaf);
    EXPECT_FALSE(e.het_flag(0));
  }
}

TEST(HintedProtocol, OneWorkerFindsNothingAndDoesNotLookAtItself) {
  cws::runtime rt(cws::test_config(1, hippo));
  hinted_engine e = engine_for(rt.places(), hinted_mode::pufferfish);
  scripted_view w0(0, 1);
  w0.seed(0, cws::worker_view::root_place, "own root");
  EXPECT_FALSE(e.find_work(w0));
  EXPECT_TRUE(w0.attempts.empty());
}

}  // namespace
