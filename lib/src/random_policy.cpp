#include "random_policy.hpp"

namespace cws::detail {

task* random_policy::find_work(worker_view& view) {
  if (task* t = view.take_mail()) return t;
  const unsigned n = view.workers();
  if (n < 2) return nullptr;
  unsigned victim = static_cast<unsigned>(view.random() % (n - 1));
  if (victim >= view.self()) ++victim;  // uniform over the others
  return view.steal(victim);
}

}  // namespace cws::detail
