#pragma once
// The core API (cws::core): runtime, spawn/sync, parallel_for, policies,
// observers, topology, NUMA memory. Programs normally include <cws/cws.hpp>,
// which adds recording and trace files.
//
// Reminder (see spawn.hpp): a function whose spawned children use its locals
// must cws::sync() (or use cws::finish / cws::scope) before it returns.

#include "cws/config.hpp"
#include "cws/error.hpp"
#include "cws/extension.hpp"
#include "cws/hint.hpp"
#include "cws/locality.hpp"
#include "cws/numa.hpp"
#include "cws/numa_shapes.hpp"
#include "cws/page_homes.hpp"
#include "cws/observer.hpp"
#include "cws/parallel_for.hpp"
#include "cws/place_tree.hpp"
#include "cws/policy.hpp"
#include "cws/run_report.hpp"
#include "cws/runtime.hpp"
#include "cws/spawn.hpp"
#include "cws/stats.hpp"
#include "cws/topology.hpp"
#include "cws/touch.hpp"
