// The page-home cache in front of the kernel backend: the kernel is asked
// once per page with a home, again only for pages without one, pages moved
// through the cache, and after every refresh interval. A scripted backend
// stands in for the kernel so that "asked" is counted exactly.

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "cws/platform/page_homes_cache.hpp"

namespace {

struct scripted_homes final : cws::numa::page_homes {
  std::map<std::uintptr_t, int> home;  // missing: not faulted in yet
  std::size_t asked = 0;
  std::string name() const override { return "scripted"; }
  void query(std::span<const std::uintptr_t> pages, std::span<int> homes) override {
    asked += pages.size();
    for (std::size_t i = 0; i < pages.size(); ++i) {
      auto it = home.find(pages[i]);
      homes[i] = it == home.end() ? cws::unknown_home : it->second;
    }
  }
  void first_touch(std::span<const std::uintptr_t>, std::span<const unsigned>, std::span<int>) override {}
  cws::numa::move_outcome move(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes) override {
    for (std::size_t i = 0; i < pages.size(); ++i) home[pages[i]] = static_cast<int>(nodes[i]);
    return {pages.size(), 0};
  }
  std::size_t page_size() const noexcept override { return 4096; }
};

std::vector<std::uintptr_t> pages(std::uintptr_t first, std::size_t n) {
  std::vector<std::uintptr_t> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(first + i * 4096);
  return out;
}

TEST(page_homes_cache, asks_the_kernel_once_per_placed_page) {
  auto owned = std::make_unique<scripted_homes>();
  scripted_homes& k = *owned;
  const auto p = pages(0x10000000, 2000);  // spans several 2 MiB chunks
  for (std::size_t i = 0; i < p.size(); ++i)
    if (i % 10 != 0) k.home[p[i]] = static_cast<int>(i % 3);  // every tenth not faulted in
  cws::detail::cached_page_homes cache(std::move(owned));
  std::vector<int> homes(p.size());
  cache.query(p, homes);
  EXPECT_EQ(k.asked, 2000u);
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_EQ(homes[i], i % 10 ? static_cast<int>(i % 3) : cws::unknown_home);
  k.asked = 0;
  std::fill(homes.begin(), homes.end(), 99);
  cache.query(p, homes);
  EXPECT_EQ(k.asked, 200u) << "only the pages without a home are asked again";
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_EQ(homes[i], i % 10 ? static_cast<int>(i % 3) : cws::unknown_home);
}

TEST(page_homes_cache, moved_pages_are_asked_again) {
  auto owned = std::make_unique<scripted_homes>();
  scripted_homes& k = *owned;
  const auto p = pages(0x20000000, 64);
  for (auto page : p) k.home[page] = 0;
  cws::detail::cached_page_homes cache(std::move(owned));
  std::vector<int> homes(p.size());
  cache.query(p, homes);
  const std::vector<std::uintptr_t> moved{p[3], p[40]};
  const std::vector<unsigned> to{1, 2};
  EXPECT_EQ(cache.move(moved, to).moved, 2u);
  k.asked = 0;
  cache.query(p, homes);
  EXPECT_EQ(k.asked, 2u);
  EXPECT_EQ(homes[3], 1);
  EXPECT_EQ(homes[40], 2);
  EXPECT_EQ(homes[4], 0);
}

TEST(page_homes_cache, a_move_behind_its_back_is_seen_after_the_refresh_interval) {
  auto owned = std::make_unique<scripted_homes>();
  scripted_homes& k = *owned;
  const auto p = pages(0x30000000, 8);
  for (auto page : p) k.home[page] = 0;
  cws::detail::cached_page_homes cache(std::move(owned));
  std::vector<int> homes(p.size());
  cache.query(p, homes);
  k.home[p[5]] = 3;  // moved by someone else
  unsigned queries = 1;
  while (homes[5] != 3 && queries < 2 * cws::detail::cached_page_homes::refresh_queries) {
    cache.query(p, homes);
    ++queries;
  }
  EXPECT_EQ(homes[5], 3);
  EXPECT_LE(queries, cws::detail::cached_page_homes::refresh_queries);
  EXPECT_GT(queries, 1u) << "the cache answered from the kernel every time";
}

}  // namespace
