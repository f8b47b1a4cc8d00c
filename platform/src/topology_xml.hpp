#pragma once
// A topology from an hwloc XML export (`lstopo --of xml`), treated like a
// synthetic one: its own shape and node numbers, threads pinned round-robin
// onto this machine's PUs. Private to cws::core; it exists for tests of
// machine shapes the synthetic syntax cannot express (asymmetric packages,
// memory attached at several levels).

#include <string>

#include "cws/topology.hpp"

namespace cws::detail {

// Throws cws::error when hwloc rejects the XML.
topology topology_from_xml(const std::string& xml);

}  // namespace cws::detail
