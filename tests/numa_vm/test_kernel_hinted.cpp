// The hinted policies on this kernel's real NUMA nodes, with the kernel
// page-home backend: block-cyclic pages really are where find_place thinks
// (the kernel says so), and hinted leaves run where their pages are.

#include <gtest/gtest.h>
#include <numa.h>

#include <cstdint>
#include <string>

#include "cws/cws.hpp"

namespace {

cws::runtime_config kernel_config() {
  cws::runtime_config c;  // this machine's topology, one worker per core
  c.pages = cws::page_backend::kernel;
  return c;
}

class KernelHinted : public ::testing::Test {
 protected:
  void SetUp() override {
    if (numa_available() < 0 || numa_num_configured_nodes() < 2) GTEST_SKIP() << "needs >= 2 NUMA nodes";
  }
};

struct counted_loop {
  cws::numa::array<std::uint64_t>* data;
  std::size_t tile;
  void operator()(std::size_t lo, std::size_t hi) const {
    if (hi - lo <= tile) {
      for (std::size_t i = lo; i < hi; ++i) (*data)[i] += i;
      return;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    cws::spawn(cws::hint(*data, lo, mid), [this, lo, mid] { (*this)(lo, mid); });
    cws::spawn(cws::hint(*data, mid, hi), [this, mid, hi] { (*this)(mid, hi); });
    cws::sync();
  }
};

TEST_F(KernelHinted, HintedLeavesRunOnTheirPagesKernelNode) {
  cws::runtime rt(kernel_config());
  ASSERT_GE(rt.places().nodes(), 2u) << rt.describe();
  auto data = cws::numa::allocate<std::uint64_t>(std::size_t{1} << 20, cws::numa::block_cyclic);  // 8 MiB
  ASSERT_TRUE(data.memory()->kernel_placed()) << data.memory()->kernel_note();
  cws::numa::prefault_zero(data);
  const counted_loop loop{&data, 1024};
  for (std::string_view policy : {cws::policy::hinted, cws::policy::hinted_hpt}) {
    cws::schedule& s = rt.schedule(std::string(policy), policy);
    double best = 0;
    for (int run = 0; run < 3; ++run) {
      const cws::run_report& r = rt.run(s, [&] { loop(0, data.size()); });
      ASSERT_TRUE(r.locality);
      EXPECT_EQ(r.locality->unknown_bytes, 0u) << "the kernel knows every page's home";
      best = std::max(best, r.locality->share());
    }
    EXPECT_GE(best, 0.95) << policy << " on " << rt.places().summary();
  }
  for (std::size_t i = 0; i < data.size(); i += 4097) ASSERT_EQ(data[i], 6 * i) << i;  // 6 runs, each added i
}

}  // namespace
