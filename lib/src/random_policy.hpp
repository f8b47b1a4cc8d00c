#pragma once
// `random`: the Cilk-like baseline. Spawned tasks stay on the spawner's deque;
// an idle worker reads its mailbox, then tries one victim chosen uniformly at
// random among the other workers.

#include "cws/policy.hpp"

namespace cws::detail {

class random_policy final : public scheduling_policy {
 public:
  std::string_view name() const noexcept override { return "random"; }
  void end_phase(run_report& report) override;
  task_handle find_work(worker_view& view) override;
};

}  // namespace cws::detail
