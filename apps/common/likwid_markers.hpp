#pragma once
// likwid marker regions around the timed code. Compiled in only when the build
// was configured with CWS_WITH_LIKWID=ON (apps/CMakeLists.txt then defines
// CWS_WITH_LIKWID and LIKWID_PERFMON and links liblikwid); otherwise every call
// here is empty and the apps have no likwid dependency at all.
//
// Run under `likwid-perfctr -m -C <cpus> -g <group> cws-memcopy ...`. The
// markers are called on the calling thread (worker 0 / the TBB and OpenMP
// master) only, so per-core events cover that core alone; socket-wide uncore
// groups such as MEM cover the socket of that core.

#include <string>

#if defined(CWS_WITH_LIKWID)
#include <likwid-marker.h>
#endif

namespace cws_apps::likwid {

inline constexpr bool enabled =
#if defined(CWS_WITH_LIKWID)
    true;
#else
    false;
#endif

// One per program: LIKWID_MARKER_INIT on construction, LIKWID_MARKER_CLOSE
// (which writes the results file likwid-perfctr reads) on destruction.
class session {
 public:
  session() {
#if defined(CWS_WITH_LIKWID)
    LIKWID_MARKER_INIT;
#endif
  }
  ~session() {
#if defined(CWS_WITH_LIKWID)
    LIKWID_MARKER_CLOSE;
#endif
  }
  session(const session&) = delete;
  session& operator=(const session&) = delete;
};

// A named region, open for the lifetime of the object.
class region {
 public:
  explicit region([[maybe_unused]] const std::string& name)
#if defined(CWS_WITH_LIKWID)
      : name_(name) {
    LIKWID_MARKER_START(name_.c_str());
  }
  ~region() { LIKWID_MARKER_STOP(name_.c_str()); }
#else
  {
  }
#endif
  region(const region&) = delete;
  region& operator=(const region&) = delete;

 private:
#if defined(CWS_WITH_LIKWID)
  std::string name_;
#endif
};

}  // namespace cws_apps::likwid
