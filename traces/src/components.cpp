// The one place the components above the core are wired into it: the
// steal-tree recorder, the replay policies, their CWS_* knobs and the
// schedule store, trace files and streaming. This file is the whole of the
// cws::cws library; the core calls cws_register_components() when a runtime
// is created and before it first reads its CWS_* knob registry (lib/src/
// components_hook.hpp declares it weak), and cws::cws's link option -u makes
// the linker keep it. A program that links only cws::core runs with the random
// policy and says which target to link when asked for anything else.
//
// Order matters: extensions are created in registration order, and the
// schedule store and the trace stream read the recorder's records.

#include <mutex>

#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/policies.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "cws/traces/trace_file.hpp"

extern "C" void cws_register_components() {
  static std::once_flag once;
  std::call_once(once, [] {
    cws::steal_tree::register_recorder();
    cws::schedulers::register_policies();
    cws::schedulers::register_knobs();
    cws::traces::detail::install();
  });
}
