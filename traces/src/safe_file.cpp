// Safe output and input files (safe_file.hpp): exclusive temporary files
// renamed into place, destinations and inputs that must be regular files.
#include "cws/traces/safe_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <random>
#include <system_error>

#include "cws/error.hpp"
#include "write_all.hpp"

namespace cws::traces {

namespace {

std::string errno_text(int e) { return std::generic_category().message(e); }

// "a FIFO", ... for a mode that is not a regular file.
const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string directory_of(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? std::string(".") : dir;
}

// The destination as it is now: absent (false) or a regular file (true, its
// mode in `mode`). Anything else is refused: rename would replace a symlink,
// FIFO or device with a regular file, which is not what the user meant.
bool existing_regular(const std::string& path, mode_t* mode) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    throw error(fmt::format("{}: cannot write ({})", path, errno_text(errno)));
  }
  if (S_ISDIR(st.st_mode)) throw error(fmt::format("{}: is a directory", path));
  if (!S_ISREG(st.st_mode))
    throw error(fmt::format("{}: not a regular file ({}); refusing to replace it", path, kind_of(st.st_mode)));
  if (mode != nullptr) *mode = st.st_mode;
  return true;
}

using detail::write_all;

// A random suffix: unpredictable, so nobody can plant the name in advance
// (O_EXCL refuses it anyway; this only avoids retries).
std::string random_suffix() {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;
  std::string s(8, 'x');
  for (char& c : s) c = alphabet[rd() % (sizeof alphabet - 1)];
  return s;
}

}  // namespace

void check_output_path(const std::string& path) {
  if (path.empty()) throw error("empty output path");
  existing_regular(path, nullptr);
  const std::string dir = directory_of(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    throw error(fmt::format("{}: cannot write in {} ({})", path, dir, errno_text(errno)));
  if (!S_ISDIR(st.st_mode)) throw error(fmt::format("{}: {} is not a directory", path, dir));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw error(fmt::format("{}: cannot write in {} ({})", path, dir, errno_text(errno)));
}

output_file::output_file(std::string path) : path_(std::move(path)) {
  check_output_path(path_);
  mode_t mode = 0;
  const bool replaces = existing_regular(path_, &mode);
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    tmp_ = path_ + ".tmp-" + random_suffix();
    // 0666: the umask applies, as for any new file.
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) {
      const int e = errno;
      tmp_.clear();
      throw error(fmt::format("{}: cannot create a temporary file beside it ({})", path_, errno_text(e)));
    }
  }
  if (fd_ < 0) {
    tmp_.clear();
    throw error(fmt::format("{}: cannot create a temporary file beside it (every name taken)", path_));
  }
  if (replaces && ::fchmod(fd_, mode & 07777) != 0) {
    const int e = errno;
    ::close(fd_);  // a throwing constructor runs no destructor: clean up here
    ::unlink(tmp_.c_str());
    throw error(fmt::format("{}: cannot keep the permissions of the file ({})", path_, errno_text(e)));
  }
}

output_file::~output_file() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

void output_file::write(std::string_view bytes) {
  if (fd_ < 0) throw error(fmt::format("{}: write after the file was released", path_));
  if (const int e = write_all(fd_, bytes); e != 0)
    throw error(fmt::format("{}: write failed ({})", path_, errno_text(e)));
}

void output_file::commit() {
  if (fd_ < 0 || committed_) throw error(fmt::format("{}: committed twice", path_));
  // Durable contents before the name points at them; EINVAL: a file system
  // without fsync (nothing to wait for).
  if (::fsync(fd_) != 0 && errno != EINVAL)
    throw error(fmt::format("{}: cannot flush to disk ({})", path_, errno_text(errno)));
  existing_regular(path_, nullptr);  // a symlink planted since the check is refused too
  if (::rename(tmp_.c_str(), path_.c_str()) != 0)
    throw error(fmt::format("{}: cannot write ({})", path_, errno_text(errno)));
  committed_ = true;
  // The rename itself is durable once the directory is flushed. Best effort:
  // the file is complete and in place either way.
  const int dfd = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

int output_file::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void write_file(const std::string& path, std::string_view bytes) {
  output_file out(path);
  out.write(bytes);
  out.commit();
}

input_file open_for_reading(const std::string& path) {
  // stat first: opening some devices has side effects (a tape rewinds).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw error(fmt::format("{}: cannot open ({})", path, errno_text(errno)));
  const auto refuse = [&](mode_t mode) {
    if (S_ISDIR(mode)) throw error(fmt::format("{}: is a directory", path));
    throw error(fmt::format("{}: not a regular file ({})", path, kind_of(mode)));
  };
  if (!S_ISREG(st.st_mode)) refuse(st.st_mode);
  // O_NONBLOCK: had it become a FIFO since, the open would not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw error(fmt::format("{}: cannot open ({})", path, errno_text(errno)));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int e = errno;
    const mode_t mode = st.st_mode;
    ::close(fd);
    if (!S_ISREG(mode)) refuse(mode);
    throw error(fmt::format("{}: cannot open ({})", path, errno_text(e)));
  }
  return {fd, static_cast<std::uint64_t>(st.st_size)};
}

}  // namespace cws::traces
