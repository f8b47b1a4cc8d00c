#pragma once
// The fork/join flavours the one cilksort recursion (recursion.hpp) is
// compiled for. Each recursion node opens a group, spawns children into it
// with their data-affinity hints and waits for them:
//
//   Group g;  g.spawn(hint, [=] { ... });  g.spawn(hint, ...);  g.wait();
//
//   cws_group      cws::spawn(hint, f) / cws::sync(): routed by the hinted
//                  policies, an ordinary spawn under the others; a child that
//                  spawns nothing records its hints as its touches.
//   serial_group   f() at once, wait() does nothing: the serial elision, the
//                  same code with no spawns (hints ignored).
//   tbb_group      tbb::task_group::run / wait (hints ignored).
//   omp_group      #pragma omp task / taskwait (hints ignored); call the
//                  recursion inside `omp parallel` + `omp single`.
//
// The groups that ignore hints never read them, so building a hint costs
// them nothing once inlined.

#include <utility>

#include <cws/cws.hpp>
#include <tbb/task_group.h>

namespace cilksort {

struct cws_group {
  template <class Hint, class F>
  void spawn(const Hint& h, F&& f) {
    cws::spawn(h, std::forward<F>(f));
  }
  void wait() { cws::sync(); }
};

struct serial_group {
  template <class Hint, class F>
  void spawn(const Hint&, F&& f) {
    std::forward<F>(f)();
  }
  void wait() {}
};

struct tbb_group {
  template <class Hint, class F>
  void spawn(const Hint&, F&& f) {
    tasks.run(std::forward<F>(f));
  }
  void wait() { tasks.wait(); }
  tbb::task_group tasks;
};

struct omp_group {
  template <class Hint, class F>
  void spawn(const Hint&, F f) {
#pragma omp task firstprivate(f)
    f();
  }
  void wait() {
#pragma omp taskwait
  }
};

}  // namespace cilksort
