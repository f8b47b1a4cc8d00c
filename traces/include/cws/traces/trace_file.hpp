#pragma once
// cws::traces — trace files (DESIGN §7).
//
//   cws::runtime rt;
//   ... rt.run(step, ...) ...
//   rt.save_traces("stencil.cwst");                        // = write(path, capture(rt))
//   cws::traces::trace_file f = cws::traces::read("stencil.cwst");
//
// A trace file holds a header (producer, host, topology, worker placement, the
// runtime options, the place tree) and every phase run the steal-tree recorder kept (schedule,
// iteration, policy, wall time, per-worker statistics, the steal tree with its
// audit records when audit mode was on, the locality report and the
// relocalizations of the run when its tasks declared touches).
//
// On disk
// -------
// A fixed 32-byte envelope, all integers little-endian, followed by the payload:
//
//   offset  size  field
//        0     8  magic "\x89CWST\r\n\x1a" (the 0x89 and CR LF / ^Z catch 7-bit,
//                 text-mode and truncating transfers, as PNG does)
//        8     4  format version (this library writes format_version and reads
//                 oldest_readable_version .. format_version)
//       12     4  archive kind of the payload (1 text, 2 xml, 3 binary)
//       16     8  payload length in bytes (the file is exactly 32 + this long)
//       24     4  CRC-32 (IEEE 802.3, as zlib's crc32) of the payload
//       28     4  CRC-32 of bytes 0..27 (the envelope itself)
//
// The envelope layout is the same in every format version; a format that
// needs another envelope gets another magic. Up to version 3 the payload is a
// Boost.Serialization archive of {header, phases} (see traces/README.md for
// the field order of each version). Boost's own archive header is kept, so a
// later Boost still knows which of its library versions wrote it.
//
// From version 4 on, a file is a record stream, so that it can be written
// while the program runs and survive the program being killed at any moment:
// the envelope's payload is the archive of the trace_header alone, and after
// it come records, each a 24-byte frame and its own payload:
//
//   offset  size  field (relative to the record)
//        0     4  record magic "\x89REC"
//        4     4  record kind: 1 phase run, 2 relocalization, 3 end
//        8     8  payload length in bytes
//       16     4  CRC-32 of the payload
//       20     4  CRC-32 of bytes 0..19 (the frame itself)
//
// A phase record's payload is an archive of one phase_record (the file's
// archive kind); a relocalization record's, one relocalization_report,
// attached on reading to the nearest earlier phase record of its (schedule,
// iteration); the end record's, the number of records before it (u64 LE). A
// writer that finished writes the end record; without it the file is a torn
// or unfinished stream whose complete records still read (read_with_report).
//
// Reading never trusts the file: the envelope is checked first (magic, its
// CRC, version, kind, length, payload CRC), every count read from the payload
// is checked against a limit and against the payload size before anything is
// allocated for it, and the loaded data is validated (indices in range, parent
// links and steal lists consistent, per-worker lists consistent with the
// segments). Any problem throws cws::error with one line naming the file and
// what is wrong, e.g.
//   trace.cwst: checksum mismatch (file damaged)
//   x.cwst: not a cws trace file
//   y.cwst: format version 7 is newer than this cws (reads up to 4)
//   z.cwst: file ends inside record 1234; 1233 complete records

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cws/error.hpp"
#include "cws/extension.hpp"
#include "cws/steal_tree/tree.hpp"
#include "cws/topology.hpp"

namespace cws {
class runtime;
}

namespace cws::traces {

// The format version this library writes, and the newest it reads.
//   1  the first released format
//   2  worker_stats gains `designated` and `taken_back` (0 when reading a version-1 file)
//   3  phase_record gains `locality` and `relocalizations` (none when reading an older file)
//   4  the file is a record stream (header, then one checksummed record per phase run or
//      relocalization, then an end record): written by save_traces and by streaming
//      (runtime::trace_to, CWS_TRACE); the archive of each record is that of version 3
//   5  steal points gain their pedigree (steal_point::path into tree::paths) and worker_stats
//      gains `elided`; an older file reads with unknown pedigrees (no serial elision from it)
//      and 0 elided spawns
//   6  the header gains the place tree of the hinted policies (places_info) and worker_stats the
//      hinted counters (hinted_leaf, hinted_node, hinted_root, het_inlined, place_steals,
//      reclaimed); an older file reads with an empty places_info and 0 for each counter
inline constexpr std::uint32_t format_version = 6;
// The oldest format version this library still reads.
inline constexpr std::uint32_t oldest_readable_version = 1;

// How the payload is encoded.
//   text    Boost text archive: the default. Portable across machines
//           (decimal numbers, no endianness or type-size assumptions), compact,
//           and a damaged number fails to parse instead of turning into a
//           different value.
//   xml     Boost XML archive: self-describing, readable, about 8x larger than text.
//   binary  Boost binary archive: smallest and fastest, but NOT portable (native
//           endianness and type sizes) and silently reads damaged bytes as
//           other values; only the envelope's checksum protects it. For local
//           scratch files; convert to text before moving a trace elsewhere.
enum class archive_kind : std::uint32_t { text = 1, xml = 2, binary = 3 };
inline constexpr archive_kind default_archive = archive_kind::text;
std::string_view to_string(archive_kind k) noexcept;
// "text" | "xml" | "binary"; throws cws::error otherwise.
archive_kind parse_archive_kind(std::string_view name);

// Limits enforced on reading (and writing): a count beyond them is refused
// before anything is allocated for it.
struct limits {
  static constexpr std::uint64_t file_bytes = std::uint64_t{1} << 32;     // 4 GiB
  static constexpr std::uint64_t string_bytes = 4096;                     // any string
  static constexpr std::uint64_t phases = std::uint64_t{1} << 20;         // phase runs per file
  static constexpr std::uint64_t workers = std::uint64_t{1} << 16;        // as many as segment ids can name
  static constexpr std::uint64_t segments = std::uint64_t{1} << 28;       // per tree
  static constexpr std::uint64_t steals = std::uint64_t{1} << 28;         // per segment
  static constexpr std::uint64_t audit_records = std::uint64_t{1} << 30;  // per tree
  static constexpr std::uint64_t path_entries = std::uint64_t{1} << 30;   // pedigree ranks per tree
  // Per-node entries of a locality report: Linux builds with at most 2^10
  // NUMA nodes (CONFIG_NODES_SHIFT); 4x that leaves room without letting a
  // damaged count allocate much.
  static constexpr std::uint64_t numa_nodes = std::uint64_t{1} << 12;
  static constexpr std::uint64_t relocalizations = std::uint64_t{1} << 20;  // per phase run
  // Counters that are not sizes of something stored (tasks of a segment,
  // per-worker statistics): 2^48 is 3 days of tasks at one per nanosecond;
  // a larger count is a damaged or forged file, not a run.
  static constexpr std::uint64_t counter = std::uint64_t{1} << 48;
  static constexpr double seconds = 1e9;  // any time in a trace (31 years)
};

// The machine the trace was recorded on, as cws::topology described it.
struct topology_info {
  std::string summary;  // topology::summary(): "2 packages, 4 NUMA nodes, ..."
  std::string source;   // topology::source(): "hwloc (this system)" or "synthetic \"...\" (CWS_TOPOLOGY)"
  bool synthetic = false;
  std::uint32_t packages = 0;
  std::uint32_t numa_nodes = 0;
  std::uint32_t l3_groups = 0;
  std::uint32_t cores = 0;
  std::uint32_t pus = 0;
  friend bool operator==(const topology_info&, const topology_info&) = default;
};

// The runtime options of the recording run (cws::runtime_config, resolved).
struct run_options {
  std::uint32_t workers = 0;  // the actual worker count (never 0 in a file)
  bool pin = true;
  std::string idle = "adaptive";  // to_string(idle_mode)
  std::uint32_t max_nesting = 16;
  std::uint64_t seed = 0x5eed;
  bool record = true;
  bool audit = false;
  std::string topology_request;  // CWS_TOPOLOGY / runtime_config::topology; empty = this machine
  friend bool operator==(const run_options&, const run_options&) = default;
};

// The hierarchical place tree of the recording runtime (cws::place_tree,
// runtime::places()), from format version 6 on: where the hinted policies
// routed and stole. Empty (summary "") in files of older versions.
struct places_info {
  std::string summary;                        // place_tree::summary(): "root -> 4 nodes -> 8 L3 groups -> ..."
  std::string source;                         // place_tree::source(): "topology" or the HPT XML file's path
  std::vector<std::uint32_t> numa_of_node;    // node index -> logical NUMA node
  std::vector<std::uint32_t> node_of_worker;  // worker -> node index; one entry per worker
  std::vector<std::uint32_t> leaf_of_worker;  // worker -> leaf index (leaves numbered node by node)
  bool empty() const noexcept { return summary.empty(); }
  friend bool operator==(const places_info&, const places_info&) = default;
};

struct trace_header {
  // Filled in by read()/decode() from the envelope; write() always writes
  // traces::format_version and the kind it is given.
  std::uint32_t format_version = traces::format_version;
  archive_kind archive = default_archive;

  std::string cws_version;  // producer, e.g. "0.1.0"
  std::string host;         // host name of the recording machine
  std::string created;      // UTC, ISO 8601 ("2024-05-01T12:00:00Z")
  topology_info topology;
  std::vector<cws::worker_placement> placement;  // worker w -> core, NUMA node, PU; one entry per worker
  run_options options;
  places_info places;  // version 6; empty for older files

  // placement[w].numa_node for every worker (for schedule_distance).
  std::vector<std::uint32_t> node_of_worker() const;
};

struct trace_file {
  trace_header header;
  std::vector<steal_tree::phase_record> phases;  // in recording order
};

// ---------------------------------------------------------------- files

// Writes `f` to `path` (through an exclusive temporary file renamed into
// place, so a failed write never leaves a half-written trace under `path`;
// a symlink, FIFO, device or directory at `path` is refused: safe_file.hpp).
// Validates `f` first: nothing is written that read() would refuse. Throws
// cws::error.
void write(const std::string& path, const trace_file& f, archive_kind kind = default_archive);
// Reads and validates a trace file (a regular file only, read record by
// record: safe_file.hpp). Throws cws::error "PATH: problem"; a
// record stream (version 4) must be complete: a torn tail, a damaged record
// or a missing end record is refused (read_with_report reads what is there).
trace_file read(const std::string& path);

// The same on bytes in memory: encode() returns the complete file contents;
// decode() reads them, naming errors after `name`.
std::string encode(const trace_file& f, archive_kind kind = default_archive);
trace_file decode(std::string_view bytes, std::string_view name);

// A record of a version-4 file that could not be used.
struct record_problem {
  std::uint64_t record = 0;  // 1-based position among the file's records
  std::uint64_t offset = 0;  // byte offset of its frame in the file
  std::string problem;       // "payload checksum mismatch", "malformed payload (...)", ...
};

// What reading a possibly incomplete file found. For files of versions 1 to 3
// (one checksummed payload, all or nothing) it is always complete.
struct read_report {
  trace_file file;            // the header and every intact phase run (with its relocalizations)
  std::uint64_t records = 0;  // records whose bytes are all in the file (intact or damaged; the end record too)
  std::uint64_t intact = 0;   // of those, the ones read
  bool closed = true;         // the end record was found (the writer finished)
  std::optional<std::uint64_t> torn_record;  // the file ends inside this record (1-based): a killed writer
  std::vector<record_problem> damaged;       // complete records skipped (checksum, malformed, inconsistent)
  std::optional<record_problem> unreadable;  // a damaged frame: its length cannot be trusted, nothing after it was read
  std::uint64_t trailing_bytes = 0;          // bytes after the end record

  // Nothing torn, damaged, unreadable or trailing, and the end record present.
  bool complete() const noexcept;
  // One line (no file name) saying what is wrong, e.g. "file ends inside record
  // 1234; 1233 complete records"; empty when complete().
  std::string summary() const;
};

// Reads every intact record of a file, and reports what is missing or damaged
// instead of refusing the file. Throws cws::error "PATH: problem" only when
// nothing can be read: not a trace file, envelope or header damaged or torn,
// a file of version 1 to 3 that read() refuses.
read_report read_with_report(const std::string& path);
read_report decode_with_report(std::string_view bytes, std::string_view name);

// Throws cws::error (no file name, e.g. "phase 'fib' #0: segment 3: parent 9
// out of range (4 segments)") when `f` is not self-consistent: counts within
// limits, one placement entry per worker, every tree matching the worker
// count and valid (see validate(tree)), per-worker statistics sized to match,
// locality reports and relocalizations consistent (see validate(locality_report)),
// the place tree empty or one node and leaf per worker, each leaf in one node.
void validate(const trace_file& f);
// The parts of validate(f): the header alone, and one phase run against the
// header (worker count, NUMA nodes) including its relocalizations.
void validate(const trace_header& h);
void validate(const steal_tree::phase_record& r, const trace_header& h);
// Locality checks: at most limits::numa_nodes per-node entries (and no more
// than `numa_nodes` when that is not 0); per node and in total local_bytes <=
// touched_bytes; the totals are the per-node sums; unknown_bytes <=
// touched_bytes - local_bytes (bytes on a page without a known home are not
// local).
void validate(const cws::locality_report& l, std::uint32_t numa_nodes = 0);
// Relocalization checks: strings within limits; pages_moved + pages_failed <=
// pages_examined; bytes_moved is pages_moved times a power-of-two page size
// (0 when nothing moved); seconds finite and non-negative.
void validate(const cws::relocalization_report& r);
// Tree checks: segments[0] is the root (no parent), every other parent in
// range and the tree acyclic and connected; each steal_point matches its child
// segment (parent, level, step, thief == child's worker) and each non-root
// segment is listed exactly once in its parent's steals, sorted by (level,
// step) without duplicates; start_ns <= end_ns; worker_segments has one list
// per worker naming every segment exactly once, on the right worker, in start
// order; audit records (if any) in range, one per executed task of each
// segment, forming one spawn tree (a single root, the phase root; each
// parent ran in the record's spawning segment one level up; no cycles; no
// two records with the same (spawning segment, level, step)).
void validate(const steal_tree::tree& t);

// Bit-identical comparison (doubles compared by bit pattern).
bool identical(const steal_tree::phase_record& a, const steal_tree::phase_record& b) noexcept;
bool identical(const trace_file& a, const trace_file& b) noexcept;

// ---------------------------------------------------------------- runtime

// A trace_file holding `rt`'s description and every phase its steal-tree
// recorder kept (no phases when recording is off). A phase whose tree fails
// validate() (only possible if the recorder saw damaged events; it warns) is
// left out with a warning on stderr, so one bad phase cannot make the whole
// trace unwritable.
trace_file capture(const cws::runtime& rt);
// The header part of capture(): producer, host, creation time, topology,
// placement, options and place tree of `rt`.
trace_header capture_header(const cws::runtime& rt);

// How load_traces seeds the schedules of a file: each schedule it holds gets
// its latest run there as template (rt.load_traces(path) is load_traces(rt,
// path) with the defaults).
struct load_options {
  // The schedules start converged (schedule_store::mark_converged): evolve
  // replays them under stows (stuws for a planned template) from their first
  // run, with no relws run, for a program run that reuses the schedules of an
  // earlier one. A schedule whose latest run in the file settled starts
  // converged on it: every steal of that run was a designated one, none was
  // taken back, and it was not the schedule's first run unless it stole,
  // which a converged replay shows and a random or still-learning run does
  // not. A schedule still learning at the save (a phase that runs only a few
  // times per program run never reaches evolve's bound in one) starts
  // converged on the latest of its runs in the file that replayed a template
  // and passes evolve's balance rule (CWS_EVOLVE_BALANCE). The others learn
  // as usual, from their latest run.
  bool converged = false;
};

struct load_summary {
  std::size_t seeded = 0;     // schedules the file seeded
  std::size_t converged = 0;  // of those, started converged
};

// Reads `path` and seeds the schedules of `rt` (see load_options). Throws
// cws::error naming the file and the problem.
load_summary load_traces(cws::runtime& rt, const std::string& path, const load_options& options = {});

// The trace files rt.load_traces() accepted, oldest first (empty if none).
// Kept for the schedulers to seed templates from.
const std::vector<trace_file>& loaded_traces(const cws::runtime& rt);

// ---------------------------------------------------------------- envelope

namespace envelope {
inline constexpr std::size_t size = 32;
inline constexpr char magic[8] = {'\x89', 'C', 'W', 'S', 'T', '\r', '\n', '\x1a'};
}  // namespace envelope
// The frame of a record in a version-4 file (layout above).
namespace record_frame {
inline constexpr std::size_t size = 24;
inline constexpr char magic[4] = {'\x89', 'R', 'E', 'C'};
enum class kind : std::uint32_t { phase = 1, relocalization = 2, end = 3 };
}  // namespace record_frame
// CRC-32 (IEEE 802.3, reflected, as zlib's crc32()).
std::uint32_t crc32(std::string_view bytes, std::uint32_t crc = 0) noexcept;

namespace detail {
// Installs cws::trace_io (runtime::save_traces / load_traces / trace_to) and
// registers the extensions that keep loaded traces and stream phases
// (idempotent). Called by cws::cws's registration (components.cpp).
bool install();
}  // namespace detail

}  // namespace cws::traces
