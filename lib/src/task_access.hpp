#pragma once
// The core's side of cws::task_handle: policies see handles, the workers the
// tasks behind them. Nothing outside lib/src includes this.

#include "cws/detail/task.hpp"
#include "cws/policy.hpp"

namespace cws::detail {

struct task_access {
  static task_handle wrap(task* t) noexcept { return task_handle(t); }
  static task* unwrap(task_handle h) noexcept { return h.t_; }
};

}  // namespace cws::detail
