#pragma once
// Files written and read safely, for every cws writer (save_traces, trace
// streams, cws-trace outputs, apps' schedule files) and every trace reader.
//
// Writing (`output_file`, `write_file`): the bytes go to a temporary file
// created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, a fresh random name
// "F.tmp-XXXXXXXX" beside F), which is fsync'ed and renamed over F, and the
// directory is fsync'ed, so F holds the old or the whole new contents, even
// after a crash. A planted "F.tmp" (a symlink to someone's file) is never
// opened. The destination must be absent or a regular file: a symbolic link,
// FIFO, device, socket or directory at F is refused with one line
// ("F: not a regular file (a symbolic link); refusing to replace it"), never
// replaced or followed. Replacing an existing file keeps its permission bits;
// a new file gets 0666 minus the umask. The temporary file is removed on
// every error path.
//
// Reading (`open_for_reading`): opened with O_NONBLOCK (a FIFO without a
// writer cannot block the open) and refused unless it is a regular file, so
// a FIFO or a device never blocks a reader or feeds it endless bytes.
#include <cstdint>
#include <string>
#include <string_view>

namespace cws::traces {

// Throws cws::error ("PATH: problem", one line) unless PATH could be written
// by write_file / output_file now: its directory exists and is writable, and
// PATH is absent or a regular file. Programs call it before a long run whose
// result goes to PATH. Creates nothing.
void check_output_path(const std::string& path);

// An output file being written: a temporary file until commit() renames it
// into place. Destroying it uncommitted removes the temporary file.
class output_file {
 public:
  // Checks `path` (check_output_path) and creates the temporary file.
  // Throws cws::error.
  explicit output_file(std::string path);
  ~output_file();
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  // Writes all of `bytes` (looping on short writes). Throws cws::error.
  void write(std::string_view bytes);
  // fsync, then rename over the path (re-checking that it is still absent or
  // a regular file), then fsync the directory. The descriptor stays open on
  // the renamed file (a stream keeps appending to it). Throws cws::error.
  void commit();
  // The descriptor; after release() the caller owns it (and closes it).
  int fd() const noexcept { return fd_; }
  int release() noexcept;
  const std::string& path() const noexcept { return path_; }
  const std::string& temporary_path() const noexcept { return tmp_; }

 private:
  std::string path_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes `bytes` to `path` through an output_file. Throws cws::error.
void write_file(const std::string& path, std::string_view bytes);

// Opens `path` for reading: O_RDONLY|O_NONBLOCK|O_CLOEXEC, then fstat;
// refuses anything but a regular file ("PATH: not a regular file (a FIFO)").
// Returns the descriptor (the caller closes it) and its size. Throws cws::error.
struct input_file {
  int fd = -1;
  std::uint64_t size = 0;
};
input_file open_for_reading(const std::string& path);

}  // namespace cws::traces
