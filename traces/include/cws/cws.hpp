#pragma once
// Umbrella header: everything a cws program needs (target cws::cws).
//
// Including it also attaches the steal-tree recorder to every runtime
// (CWS_RECORD=0 turns recording off), registers the replay policies (stows,
// stuws, relws, evolve, user) and the schedule store, and enables
// rt.save_traces / load_traces (which seeds the store's templates) and
// rt.trace_to / CWS_TRACE (streaming every phase to a trace file).
//
// Reminder (see spawn.hpp): a function whose spawned children use its locals
// must cws::sync() (or use cws::finish / cws::scope) before it returns.

#include "cws/core.hpp"
#include "cws/schedulers/owner_for.hpp"
#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/policies.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "cws/steal_tree/tree.hpp"
#include "cws/traces/export.hpp"
#include "cws/traces/trace_file.hpp"
