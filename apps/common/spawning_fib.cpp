#include "common/spawning_fib.hpp"

#include <tbb/task_group.h>

#include <cws/cws.hpp>

namespace cws_apps::spawning_fib {

std::uint64_t serial(unsigned n) { return n < 2 ? n : serial(n - 1) + serial(n - 2); }

std::uint64_t with_cws(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  cws::spawn([&] { a = with_cws(n - 1); });
  std::uint64_t b = with_cws(n - 2);
  cws::sync();  // a is a local the child writes: sync before using it / returning
  return a + b;
}

std::uint64_t with_tbb(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  tbb::task_group g;
  g.run([&] { a = with_tbb(n - 1); });
  std::uint64_t b = with_tbb(n - 2);
  g.wait();
  return a + b;
}

std::uint64_t value(unsigned n) {
  std::uint64_t a = 0, b = 1;  // fib(0), fib(1)
  for (unsigned i = 0; i < n; ++i) b = a + b, a = b - a;
  return a;
}

std::uint64_t spawn_count(unsigned n) { return value(n + 1) - 1; }

unsigned opaque(unsigned v) {
  asm volatile("" : "+r"(v));
  return v;
}

}  // namespace cws_apps::spawning_fib
