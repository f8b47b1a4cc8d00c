// The page-home cache in front of the kernel backend: the kernel is asked
// once per page with a home, again only for pages without one, pages moved
// through the cache, and after every refresh interval. A scripted backend
// stands in for the kernel so that "asked" is counted exactly.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
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

// The cache in front of a scripted kernel that has page i of `p` on node
// home_of(i) (unknown_home: not faulted in yet); k counts what it is asked.
struct scripted_cache {
  scripted_cache(std::vector<std::uintptr_t> pages, const std::function<int(std::size_t)>& home_of)
      : scripted_cache(std::make_unique<scripted_homes>(), std::move(pages), home_of) {}

  // The cache's answer for every page of p, into homes.
  void query() { cache.query(p, homes); }

  scripted_homes& k;
  const std::vector<std::uintptr_t> p;
  cws::detail::cached_page_homes cache;
  std::vector<int> homes;

 private:
  scripted_cache(std::unique_ptr<scripted_homes> script, std::vector<std::uintptr_t> pages,
                 const std::function<int(std::size_t)>& home_of)
      : k(*script), p(std::move(pages)), cache(filled(std::move(script), p, home_of)), homes(p.size()) {}
  static std::unique_ptr<scripted_homes> filled(std::unique_ptr<scripted_homes> script,
                                                const std::vector<std::uintptr_t>& p,
                                                const std::function<int(std::size_t)>& home_of) {
    for (std::size_t i = 0; i < p.size(); ++i)
      if (const int home = home_of(i); home != cws::unknown_home) script->home[p[i]] = home;
    return script;
  }
};

int on_node_zero(std::size_t) { return 0; }

TEST(page_homes_cache, asks_the_kernel_once_per_placed_page) {
  // Spans several 2 MiB chunks; every tenth page not faulted in.
  const auto home_of = [](std::size_t i) { return i % 10 != 0 ? static_cast<int>(i % 3) : cws::unknown_home; };
  scripted_cache s(pages(0x10000000, 2000), home_of);
  s.query();
  EXPECT_EQ(s.k.asked, 2000u);
  for (std::size_t i = 0; i < s.p.size(); ++i) EXPECT_EQ(s.homes[i], home_of(i));
  s.k.asked = 0;
  std::fill(s.homes.begin(), s.homes.end(), 99);
  s.query();
  EXPECT_EQ(s.k.asked, 200u) << "only the pages without a home are asked again";
  for (std::size_t i = 0; i < s.p.size(); ++i) EXPECT_EQ(s.homes[i], home_of(i));
}

TEST(page_homes_cache, moved_pages_are_asked_again) {
  scripted_cache s(pages(0x20000000, 64), on_node_zero);
  s.query();
  const std::vector<std::uintptr_t> moved{s.p[3], s.p[40]};
  const std::vector<unsigned> to{1, 2};
  EXPECT_EQ(s.cache.move(moved, to).moved, 2u);
  s.k.asked = 0;
  s.query();
  EXPECT_EQ(s.k.asked, 2u);
  EXPECT_EQ(s.homes[3], 1);
  EXPECT_EQ(s.homes[40], 2);
  EXPECT_EQ(s.homes[4], 0);
}

TEST(page_homes_cache, a_move_behind_its_back_is_seen_after_the_refresh_interval) {
  scripted_cache s(pages(0x30000000, 8), on_node_zero);
  s.query();
  s.k.home[s.p[5]] = 3;  // moved by someone else
  unsigned queries = 1;
  while (s.homes[5] != 3 && queries < 2 * cws::detail::cached_page_homes::refresh_queries) {
    s.query();
    ++queries;
  }
  EXPECT_EQ(s.homes[5], 3);
  EXPECT_LE(queries, cws::detail::cached_page_homes::refresh_queries);
  EXPECT_GT(queries, 1u) << "the cache answered from the kernel every time";
}

}  // namespace
