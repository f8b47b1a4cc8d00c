// The streaming writer behind runtime::trace_to / CWS_TRACE (stream.hpp): an
// observer that appends one record per completed phase run (and per
// relocalization) to a version-4 trace file, and the runtime extension that
// owns it, so the stream is closed (end record written) with the runtime.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "cws/observer.hpp"
#include "cws/runtime.hpp"
#include "cws/stats.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "cws/traces/safe_file.hpp"
#include "cws/traces/stream.hpp"
#include "cws/traces/trace_file.hpp"
#include "records.hpp"
#include "write_all.hpp"

namespace cws::traces {

namespace {

constexpr std::string_view extension_name = "trace_stream";

std::string errno_text(int e) { return std::generic_category().message(e); }

using detail::write_all;

class stream_writer final : public observer {
 public:
  // Creates `path` with the envelope and header (through a temporary file
  // renamed into place: `path` never holds a torn header). Throws cws::error.
  stream_writer(runtime& rt, std::string path, archive_kind kind)
      : recorder_(*steal_tree::recorder_of(rt)), path_(std::move(path)), enc_(kind) {
    header_ = capture_header(rt);
    header_.format_version = format_version;
    header_.archive = kind;
    try {
      validate(header_);  // readers would refuse the whole file
    } catch (const error& e) {
      throw error(fmt::format("{}: cannot stream, inconsistent runtime description ({})", path_, e.what()));
    }
    // An exclusive temporary file, fsync'ed and renamed into place; `path`
    // must be absent or a regular file (safe_file.hpp). On any error the
    // temporary file is removed and nothing at `path` changed.
    output_file out(path_);
    const std::string_view head = enc_.header(header_);
    out.write(head);
    out.commit();
    fd_ = out.release();  // the records are appended to the renamed file
    bytes_ = head.size();
  }

  // The end record says the writer finished.
  ~stream_writer() override {
    if (fd_ < 0) return;
    try {
      append(enc_.end(records_), false);
    } catch (const std::exception& e) {
      warn(fmt::format("cannot write the end record ({})", e.what()));
    }
    if (fd_ >= 0) ::close(fd_);
  }

  stream_writer(const stream_writer&) = delete;
  stream_writer& operator=(const stream_writer&) = delete;

  const std::string& path() const noexcept { return path_; }
  archive_kind kind() const noexcept { return enc_.kind(); }
  stream_status status() const { return {path_, enc_.kind(), records_, phases_, bytes_, fd_ < 0}; }

  // The recorder ran its on_phase_end before this one (it was registered
  // first): its latest record of the schedule is this run.
  void on_phase_end(const phase_stats& stats) override {
    if (fd_ < 0) return;
    try {
      const steal_tree::phase_record* r = recorder_.latest(stats.phase.schedule);
      if (r == nullptr || r->iteration != stats.phase.iteration) {
        warn(fmt::format("phase '{}' #{} is not in the stream: the recorder kept no record of it", stats.phase.schedule,
                         stats.phase.iteration));
        return;
      }
      try {
        validate(*r, header_);  // what readers would refuse is not written
      } catch (const error& e) {
        warn(fmt::format("phase '{}' #{} is not in the stream: its record is inconsistent ({})", r->schedule,
                         r->iteration, e.what()));
        return;
      }
      if (phases_ >= limits::phases) {
        finish(fmt::format("{} phase runs, the limit of one file", limits::phases));
        return;
      }
      if (!append(enc_.phase(*r), true)) return;
      ++phases_;
      // Relocalizations are streamed for the runs in the stream only.
      auto it = streamed_.find(r->schedule);
      if (it == streamed_.end())
        streamed_.emplace(r->schedule, r->iteration);
      else
        it->second = r->iteration;
    } catch (const std::exception& e) {  // an observer must not throw into the scheduler
      warn(fmt::format("phase '{}' #{} is not in the stream ({})", stats.phase.schedule, stats.phase.iteration,
                       e.what()));
    }
  }

  void on_relocalize(const relocalization_report& x) override {
    if (fd_ < 0) return;
    try {
      const auto it = streamed_.find(x.schedule);
      if (it == streamed_.end() || it->second != x.iteration) return;  // its run is not in this stream
      validate(x);
      append(enc_.relocalization(x), true);
    } catch (const std::exception& e) {
      warn(fmt::format("relocalization of '{}' #{} is not in the stream ({})", x.schedule, x.iteration, e.what()));
    }
  }

 private:
  // One whole record per write(2) call (looping only if the kernel writes
  // less): a killed writer leaves complete records and at most one torn one.
  // Room is kept for the end record within limits::file_bytes.
  bool append(std::string_view record, bool keep_room_for_end) {
    const std::uint64_t end_size = record_frame::size + 8;
    if (keep_room_for_end && bytes_ + record.size() + end_size > limits::file_bytes) {
      finish(fmt::format("{} bytes, the limit of one file", limits::file_bytes));
      return false;
    }
    if (const int e = write_all(fd_, record); e != 0) {
      // Cut a partly written record off, so the file ends cleanly after the
      // last complete one; nothing more is written (the end record could
      // fail the same way: readers say the stream did not finish).
      if (::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) { /* the torn record stays; readers report it */
      }
      ::close(fd_);
      fd_ = -1;
      warn(fmt::format("write failed ({}); phases from now on are not streamed", errno_text(e)));
      return false;
    }
    bytes_ += record.size();
    ++records_;
    return true;
  }

  // Closes the stream properly when a limit is reached.
  void finish(const std::string& why) {
    warn(fmt::format("the stream reached {}; phases from now on are not streamed", why));
    append(enc_.end(records_), false);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  void warn(const std::string& what) const {
    std::fprintf(stderr, "cws: warning: trace stream %s: %s\n", path_.c_str(), what.c_str());
  }

  const steal_tree::recorder& recorder_;
  std::string path_;
  detail::record_encoder enc_;  // reuses one buffer for every record
  trace_header header_;         // what the records are validated against
  int fd_ = -1;
  std::uint64_t records_ = 0, phases_ = 0, bytes_ = 0;
  // Latest iteration streamed per schedule (a key is allocated once per schedule name).
  std::map<std::string, std::uint64_t, std::less<>> streamed_;
};

// Owns the writer of one runtime; destroyed with the runtime, which closes
// the stream.
class stream_extension final : public runtime_extension {
 public:
  explicit stream_extension(runtime& rt) : rt_(rt) {}
  ~stream_extension() override { close(); }

  void open(const std::string& path, archive_kind kind) {
    if (writer_ && writer_->path() == path && writer_->kind() == kind) return;
    if (writer_ && writer_->path() == path) close();  // the new file replaces the one being written
    auto w = std::make_unique<stream_writer>(rt_, path, kind);
    rt_.add_observer(*w);  // throws during a phase; `w` then closes its file
    close();
    writer_ = std::move(w);
  }

  void close() noexcept {
    if (!writer_) return;
    try {
      rt_.remove_observer(*writer_);
    } catch (const std::exception& e) {
      // Only during a phase, which the runtime's destructor never is; keep streaming.
      std::fprintf(stderr, "cws: warning: trace stream %s: not closed (%s)\n", writer_->path().c_str(), e.what());
      return;
    }
    writer_.reset();
  }

  const stream_writer* writer() const noexcept { return writer_.get(); }

 private:
  runtime& rt_;
  std::unique_ptr<stream_writer> writer_;
};

}  // namespace

namespace detail {
void register_stream_extension() {
  static const bool done = extension_registry::add(
      std::string(extension_name),
      [](runtime& rt) -> std::unique_ptr<runtime_extension> { return std::make_unique<stream_extension>(rt); });
  (void)done;
}
}  // namespace detail

void stream_to(runtime& rt, const std::string& path, archive_kind kind) {
  auto* ext = dynamic_cast<stream_extension*>(rt.extension(extension_name));
  if (ext == nullptr)
    throw error(fmt::format("{}: this runtime was created before cws::traces registered its trace stream",
                            path.empty() ? "trace stream" : path));
  if (path.empty()) {
    ext->close();
    return;
  }
  if (!rt.config().record || steal_tree::recorder_of(rt) == nullptr)
    throw error(
        fmt::format("{}: cannot stream phase records, recording is off (CWS_RECORD=0 or "
                    "runtime_config::record)",
                    path));
  ext->open(path, kind);
}

std::optional<stream_status> streaming(const runtime& rt) {
  const auto* ext = dynamic_cast<const stream_extension*>(rt.extension(extension_name));
  if (ext == nullptr || ext->writer() == nullptr) return std::nullopt;
  return ext->writer()->status();
}

}  // namespace cws::traces
