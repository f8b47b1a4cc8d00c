#pragma once
// The hooks of an app whose suite object prepares and runs its variants
// itself (memcopy::copy_suite, prefix::scan_suite: prepare(v), one_run(v,
// t)): the runner's prepare and one_run are the suite's, finish is the app's.
//
//   runner.measure(suite.variants(), cws_apps::suite_object_hooks(suite, finish));

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/variant_runner.hpp"

namespace cws_apps {

template <class Suite, class Finish>
auto suite_object_hooks(Suite& suite, Finish finish) {
  using variant = typename std::remove_reference_t<decltype(suite.variants())>::value_type;
  return variant_hooks<variant>{.prepare = [&suite](variant& v) { suite.prepare(v); },
                                .one_run = [&suite](variant& v, phase_timer& t) { suite.one_run(v, t); },
                                .finish = std::move(finish)};
}

}  // namespace cws_apps
