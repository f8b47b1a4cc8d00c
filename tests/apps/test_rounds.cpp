// The measurement order of the apps (apps/common/rounds.hpp): the Williams
// design of round_order, and what measure_variants calls when, in both orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <optional>
#include <mutex>
#include <condition_variable>
#include <atomic>
#include <chrono>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "common/rounds.hpp"
#include "common/settle.hpp"

namespace {

using cws_apps::round_order;

TEST(round_order, every_round_is_a_permutation_and_rounds_start_with_every_variant) {
  for (std::size_t count = 1; count <= 12; ++count) {
    std::vector<std::size_t> firsts;
    for (unsigned r = 0; r < count; ++r) {
      std::vector<std::size_t> order = round_order(count, r);
      ASSERT_EQ(order.size(), count);
      firsts.push_back(order.front());
      std::sort(order.begin(), order.end());
      std::vector<std::size_t> all(count);
      std::iota(all.begin(), all.end(), 0);
      EXPECT_EQ(order, all) << count << " variants, round " << r;
    }
    std::sort(firsts.begin(), firsts.end());
    EXPECT_EQ(std::unique(firsts.begin(), firsts.end()), firsts.end()) << count << " variants";
  }
  EXPECT_TRUE(round_order(0, 3).empty());
}

TEST(round_order, every_variant_follows_every_other_equally_often) {
  for (std::size_t count = 2; count <= 12; ++count) {
    const unsigned rounds = static_cast<unsigned>(count % 2 ? 2 * count : count);
    std::map<std::pair<std::size_t, std::size_t>, unsigned> follows;
    for (unsigned r = 0; r < rounds; ++r) {
      const std::vector<std::size_t> order = round_order(count, r);
      for (std::size_t k = 1; k < count; ++k) ++follows[{order[k - 1], order[k]}];
    }
    const unsigned each = count % 2 ? 2 : 1;
    EXPECT_EQ(follows.size(), count * (count - 1)) << count << " variants: some pair never adjacent";
    for (const auto& [pair, n] : follows)
      EXPECT_EQ(n, each) << count << " variants: " << pair.second << " after " << pair.first;
  }
}

// The calls measure_variants makes, as "<event> <variant>" strings.
std::vector<std::string> calls_of(cws_apps::run_order order, unsigned warmup, unsigned runs,
                                  std::vector<cws_apps::phase_timer>* timers = nullptr) {
  std::vector<std::string> calls;
  std::vector<cws_apps::timed_variant> variants;
  for (const char* name : {"a", "b", "c"})
    variants.push_back({name, [&calls, name] { calls.push_back(std::string("prepare ") + name); },
                        [&calls, name](cws_apps::phase_timer& t) {
                          calls.push_back((t.recording() ? "run " : "warmup ") + std::string(name));
                          t.time("phase", [] {});
                        },
                        [&calls, name](const cws_apps::phase_timer& t) {
                          calls.push_back(std::string("finish ") + name + " " + std::to_string(t["phase"].size()));
                        }});
  cws_apps::run_plan plan;
  plan.order = order;
  plan.warmup = warmup;
  plan.runs = runs;
  auto result = cws_apps::measure_variants(variants, plan);
  if (timers) *timers = std::move(result);
  return calls;
}

TEST(measure_variants, sequential_runs_one_variant_after_the_other) {
  EXPECT_EQ(calls_of(cws_apps::run_order::sequential, 1, 2),
            (std::vector<std::string>{"prepare a", "warmup a", "run a", "run a", "finish a 2", "prepare b", "warmup b",
                                      "run b", "run b", "finish b 2", "prepare c", "warmup c", "run c", "run c",
                                      "finish c 2"}));
}

TEST(measure_variants, interleaved_prepares_all_then_runs_rounds_then_finishes_all) {
  std::vector<cws_apps::phase_timer> timers;
  const std::vector<std::string> calls = calls_of(cws_apps::run_order::interleaved, 1, 3, &timers);
  std::vector<std::string> expected = {"prepare a", "prepare b", "prepare c"};
  const char* names[] = {"a", "b", "c"};
  for (std::size_t i : round_order(3, 0)) expected.push_back(std::string("warmup ") + names[i]);
  for (unsigned r = 0; r < 3; ++r)
    for (std::size_t i : round_order(3, r)) expected.push_back(std::string("run ") + names[i]);
  for (const char* n : names) expected.push_back(std::string("finish ") + n + " 3");
  EXPECT_EQ(calls, expected);
  ASSERT_EQ(timers.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(timers[i].variant(), names[i]);  // in the order of the variants, not of the rounds
    EXPECT_EQ(timers[i]["phase"].size(), 3u);  // warm-ups not recorded
  }
}

// settle (common/settle.hpp): the rule, over scripted looks (threads
// running at each look) and sleeps of exactly one interval (1 ms, two quiet
// looks in a row, give up after 10 ms).
struct scripted_threads {
  std::vector<unsigned> running;  // at each look; past the end: none
  unsigned looks = 0, sleeps = 0;
  bool settles() {
    const cws_apps::settle_limits limits{std::chrono::microseconds(1000), 2, std::chrono::milliseconds(10)};
    return cws_apps::settle_with([this] { return looks < running.size() ? running[looks++] : (++looks, 0u); },
                                 [this] {
                                   ++sleeps;
                                   return 1e-3;
                                 },
                                 limits);
  }
};

TEST(settle, returns_after_two_looks_in_a_row_find_no_other_thread_running) {
  scripted_threads idle;
  EXPECT_TRUE(idle.settles());
  EXPECT_EQ(idle.looks, 2u);
  EXPECT_EQ(idle.sleeps, 1u);

  scripted_threads spinning{{1, 1, 1}};  // an OpenMP thread spinning, then asleep
  EXPECT_TRUE(spinning.settles());
  EXPECT_EQ(spinning.looks, 5u);
}

TEST(settle, a_thread_running_again_starts_the_count_over) {
  scripted_threads woken{{0, 2, 0, 0}};
  EXPECT_TRUE(woken.settles());
  EXPECT_EQ(woken.looks, 4u);
}

TEST(settle, gives_up_when_the_other_threads_never_stop) {
  scripted_threads busy{std::vector<unsigned>(100, 1)};
  EXPECT_FALSE(busy.settles());
  EXPECT_EQ(busy.sleeps, 10u);  // give_up / interval
}

// A thread that spins is running or waiting for a core (state R) whether or
// not it has one at the moment: counted however loaded the machine is.
TEST(settle, counts_a_spinning_thread_and_not_a_sleeping_one) {
  std::atomic<bool> stop{false}, started{false};
  std::thread spinner([&] {
    started = true;
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  while (!started) std::this_thread::yield();
  const std::optional<unsigned> spinning = cws_apps::other_threads_running();
  stop = true;
  spinner.join();
  ASSERT_TRUE(spinning.has_value()) << "/proc/self/task is readable on Linux";
  EXPECT_GE(*spinning, 1u);

  std::mutex m;
  std::condition_variable cv;
  bool asleep = false, wake = false;
  std::thread sleeper([&] {
    std::unique_lock lock(m);
    asleep = true;
    cv.notify_all();
    cv.wait(lock, [&] { return wake; });
  });
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return asleep; });
  }
  // It released the mutex inside cv.wait: once we hold it, it is waiting, or
  // on its way to the futex (then R for a moment: look until it is not).
  std::optional<unsigned> waiting = cws_apps::other_threads_running();
  for (int look = 0; look < 1000 && waiting.value_or(0) != 0; ++look) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    waiting = cws_apps::other_threads_running();
  }
  EXPECT_EQ(waiting, 0u);
  EXPECT_TRUE(cws_apps::settle());
  {
    std::lock_guard lock(m);
    wake = true;
  }
  cv.notify_all();
  sleeper.join();
}

}  // namespace
