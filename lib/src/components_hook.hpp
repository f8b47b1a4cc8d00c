#pragma once
// The components above the core, wired in on demand.
//
// cws_register_components() is defined by cws::cws (traces/src/components.cpp):
// it registers the recorder, the replay policies, their CWS_* knobs and trace
// files, once per process. Weak: a program linking only cws::core has none,
// and runs with the core's random policy and the core's variables.

extern "C" void cws_register_components() __attribute__((weak));

namespace cws::detail {

// Called before anything reads what the components register: a runtime's
// creation (policies, extensions) and the CWS_* knob registry (env_knobs.cpp).
inline void register_components() {
  if (cws_register_components != nullptr) cws_register_components();
}

}  // namespace cws::detail
