#include "random_policy.hpp"

#include "cws/run_report.hpp"

namespace cws::detail {

void random_policy::end_phase(run_report& report) {
  report.ran_as = ran_as::random;
  report.planned = ran_as::random;
}

task_handle random_policy::find_work(worker_view& view) {
  if (task_handle t = view.take_mail()) return t;
  const unsigned n = view.workers();
  if (n < 2) return nullptr;
  unsigned victim = static_cast<unsigned>(view.random() % (n - 1));
  if (victim >= view.self()) ++victim;  // uniform over the others
  return view.steal(victim);
}

}  // namespace cws::detail
