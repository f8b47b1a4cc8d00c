// The one place the components above the core are wired into it: the
// steal-tree recorder, the replay policies and the schedule store, trace
// files and streaming. This file is the whole of the cws::cws library; the
// runtime calls cws_register_components() when it is created (lib/src/
// runtime.cpp declares it weak), and cws::cws's link option -u makes the
// linker keep it. A program that links only cws::core runs with the random
// policy and says which target to link when asked for anything else.
//
// Order matters: extensions are created in registration order, and the
// schedule store and the trace stream read the recorder's records.

#include <mutex>

#include "cws/schedulers/policies.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "cws/traces/trace_file.hpp"

extern "C" void cws_register_components() {
  static std::once_flag once;
  std::call_once(once, [] {
    cws::steal_tree::register_recorder();
    cws::schedulers::register_policies();
    cws::traces::detail::install();
  });
}
