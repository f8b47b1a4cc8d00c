#pragma once
// Streaming trace files: every phase run written to the file as it completes.
//
//   rt.trace_to("run.cwst");            // or CWS_TRACE=run.cwst, or runtime_config::trace_path
//   ... rt.run(...) ...                 // one record per phase run, one per relocalization
//   rt.trace_to("");                    // stop: writes the end record (so does destroying rt)
//
// The file is a format-version-4 trace (trace_file.hpp): the envelope and the
// header, written to a temporary file renamed into place (so `path` never
// holds a torn header), then one independently checksummed record per phase
// run, appended with write(2) of the whole record as the phase ends. Records
// are not fsync'ed: a process killed at any moment (SIGKILL, abort, a crash)
// loses nothing that was written, because the bytes are in the kernel's page
// cache; a kernel crash or power loss may lose what the kernel had not yet
// written back. The last record of a killed writer may be torn; readers keep
// every complete one (read_with_report, cws-trace validate says which).
//
// Streaming needs the steal-tree recorder (recording on): the streamer is an
// observer registered after it, and writes at on_phase_end the record the
// recorder just made. A relocalization of a run in the stream gets its own
// record. A phase whose tree fails validation is left out with a warning, as
// capture() does; a write error (disk full) or reaching limits::file_bytes or
// limits::phases stops the stream with one warning on stderr (the phase
// itself never fails because of its trace).
//
// Threading: like everything on the runtime, between phases, from the thread
// that runs them.
#include <cstdint>
#include <optional>
#include <string>

#include "cws/traces/trace_file.hpp"

namespace cws {
class runtime;
}

namespace cws::traces {

// Starts streaming the phases `rt` completes from now on to `path`, in
// archive kind `kind` (runtime::trace_to uses the default, text: portable and
// the smallest, see traces/README.md for sizes). A stream already open to
// another path is closed first (it gets its end record); the same path and
// kind again changes nothing. An empty path stops streaming. Throws cws::error
// "PATH: problem" when the file cannot be created, when recording is off, or
// during a phase.
void stream_to(cws::runtime& rt, const std::string& path, archive_kind kind = default_archive);

struct stream_status {
  std::string path;
  archive_kind archive = default_archive;
  std::uint64_t records = 0;  // written so far (phase runs and relocalizations)
  std::uint64_t phases = 0;   // of which phase runs
  std::uint64_t bytes = 0;    // file size so far
  bool stopped = false;       // a write failed or a limit was reached: nothing more is written
};

// The stream `rt` writes to, or nothing.
std::optional<stream_status> streaming(const cws::runtime& rt);

}  // namespace cws::traces
