// Encoding and decoding of trace files: the envelope, the whole-file payload
// of versions 1 to 3 (version 4 records: records.cpp), file I/O, read reports,
// and the error messages that name the file.
#include <boost/crc.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include "cws/traces/safe_file.hpp"
#include "cws/traces/trace_file.hpp"
#include "le_bytes.hpp"
#include "payload_io.hpp"
#include "records.hpp"

namespace cws::traces {

// ---------------------------------------------------------------- small pieces

std::string_view to_string(archive_kind k) noexcept {
  switch (k) {
    case archive_kind::text:
      return "text";
    case archive_kind::xml:
      return "xml";
    case archive_kind::binary:
      return "binary";
  }
  return "unknown";
}

archive_kind parse_archive_kind(std::string_view name) {
  if (name == "text") return archive_kind::text;
  if (name == "xml") return archive_kind::xml;
  if (name == "binary") return archive_kind::binary;
  throw error(fmt::format("unknown archive kind '{}' (valid: text, xml, binary)", name));
}

std::vector<std::uint32_t> trace_header::node_of_worker() const {
  std::vector<std::uint32_t> out;
  out.reserve(placement.size());
  for (const worker_placement& p : placement) out.push_back(p.numa_node);
  return out;
}

namespace {
// Bit i of x moved to bit 31 - i.
constexpr std::uint32_t reflected(std::uint32_t x) noexcept {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
  return (x >> 16) | (x << 16);
}
}  // namespace

// boost::crc_32_type is the same CRC as zlib's crc32 (reflected, init and final
// xor all ones), table-driven. Resuming from an earlier result `crc`: Boost
// takes its starting remainder unreflected and before the final xor, so the
// state `crc` stands for is reflected(~crc) (reflected(~0) = ~0: a fresh start).
std::uint32_t crc32(std::string_view bytes, std::uint32_t crc) noexcept {
  boost::crc_32_type sum(reflected(~crc));
  sum.process_bytes(bytes.data(), bytes.size());
  return sum.checksum();
}

// ---------------------------------------------------------------- identical

namespace {
bool same_double(double a, double b) noexcept {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool same_stats(const worker_stats& a, const worker_stats& b) noexcept {
  return a.tasks == b.tasks && a.segments == b.segments && a.steals == b.steals && a.failed_steals == b.failed_steals &&
         a.nested_segments == b.nested_segments && same_double(a.idle_s, b.idle_s) && a.designated == b.designated &&
         a.taken_back == b.taken_back && a.elided == b.elided && a.hinted_leaf == b.hinted_leaf &&
         a.hinted_node == b.hinted_node && a.hinted_root == b.hinted_root && a.het_inlined == b.het_inlined &&
         a.place_steals == b.place_steals && a.reclaimed == b.reclaimed;
}

// steal_point's == leaves the pedigree offset out (it is where the pedigree
// sits in its own tree's table); files are identical only with the same offsets.
bool same_paths(const steal_tree::tree& a, const steal_tree::tree& b) noexcept {
  if (a.segments.size() != b.segments.size()) return false;
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    const auto &x = a.segments[i].steals, &y = b.segments[i].steals;
    if (x.size() != y.size()) return false;
    for (std::size_t k = 0; k < x.size(); ++k)
      if (x[k].path != y[k].path) return false;
  }
  return true;
}

// locality_report holds no double: its defaulted == is already bit-exact.
bool same_locality(const std::optional<locality_report>& a, const std::optional<locality_report>& b) noexcept {
  return a.has_value() == b.has_value() && (!a || *a == *b);
}

bool same_relocalization(const relocalization_report& a, const relocalization_report& b) noexcept {
  return a.schedule == b.schedule && a.iteration == b.iteration && a.backend == b.backend &&
         a.pages_examined == b.pages_examined && a.pages_moved == b.pages_moved && a.pages_failed == b.pages_failed &&
         a.bytes_moved == b.bytes_moved && same_double(a.seconds, b.seconds);
}
}  // namespace

bool identical(const steal_tree::phase_record& a, const steal_tree::phase_record& b) noexcept {
  if (a.schedule != b.schedule || a.iteration != b.iteration || a.policy != b.policy ||
      !same_double(a.wall_s, b.wall_s))
    return false;
  if (a.stats.size() != b.stats.size()) return false;
  for (std::size_t i = 0; i < a.stats.size(); ++i)
    if (!same_stats(a.stats[i], b.stats[i])) return false;
  if (!same_locality(a.locality, b.locality) || a.relocalizations.size() != b.relocalizations.size()) return false;
  for (std::size_t i = 0; i < a.relocalizations.size(); ++i)
    if (!same_relocalization(a.relocalizations[i], b.relocalizations[i])) return false;
  return a.steals == b.steals && same_paths(a.steals, b.steals);
}

bool identical(const trace_file& a, const trace_file& b) noexcept {
  const trace_header &x = a.header, &y = b.header;
  if (x.cws_version != y.cws_version || x.host != y.host || x.created != y.created || !(x.topology == y.topology) ||
      !(x.options == y.options) || !(x.places == y.places) || x.placement.size() != y.placement.size())
    return false;
  for (std::size_t i = 0; i < x.placement.size(); ++i) {
    const worker_placement &p = x.placement[i], &q = y.placement[i];
    if (p.worker != q.worker || p.core != q.core || p.numa_node != q.numa_node || p.pin_pu != q.pin_pu) return false;
  }
  if (a.phases.size() != b.phases.size()) return false;
  for (std::size_t i = 0; i < a.phases.size(); ++i)
    if (!identical(a.phases[i], b.phases[i])) return false;
  return true;
}

// ---------------------------------------------------------------- payload context

namespace detail {

namespace {
thread_local const payload_context* current_context = nullptr;
const payload_context saving_context{};
}  // namespace

const payload_context& payload_context::current() noexcept {
  return current_context ? *current_context : saving_context;
}
payload_context::scope::scope(const payload_context& c) : saved(current_context) { current_context = &c; }
payload_context::scope::~scope() { current_context = saved; }

void check_count(std::uint64_t count, std::uint64_t limit, const char* what) {
  if (count > limit) throw format_error(fmt::format("{} {} exceeds the limit of {}", what, count, limit));
  const payload_context& c = payload_context::current();
  if (c.loading && count > c.payload_bytes)
    throw format_error(fmt::format("{} {} cannot fit in a payload of {} bytes", what, count, c.payload_bytes));
}

void check_string_length(std::size_t size) {
  if (size > limits::string_bytes)
    throw format_error(fmt::format("string of {} bytes exceeds the limit of {}", size, limits::string_bytes));
  const payload_context& c = payload_context::current();
  if (c.loading && size > c.payload_bytes)
    throw format_error(fmt::format("string of {} bytes cannot fit in a payload of {} bytes", size, c.payload_bytes));
}

}  // namespace detail

// ---------------------------------------------------------------- envelope

namespace detail {

std::string describe_current_exception() {
  try {
    throw;
  } catch (const format_error& e) {
    return e.what();
  } catch (const boost::archive::archive_exception& e) {
    using boost::archive::archive_exception;
    if (e.code == archive_exception::incompatible_native_format)
      return fmt::format(
          "binary archive written on an incompatible machine ({}); binary archives are not "
          "portable, convert the file to text where it was written",
          e.what());
    if (e.code == archive_exception::unsupported_version)
      return "payload written by a newer Boost.Serialization than this cws was built with";
    return fmt::format("malformed payload ({})", e.what());
  } catch (const std::bad_alloc&) {
    return "out of memory while reading";
  } catch (const error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return fmt::format("malformed payload ({})", e.what());
  }
}

}  // namespace detail

namespace {

using detail::format_error;
using detail::get_u32;
using detail::get_u64;

bool prefix_of_magic(std::string_view bytes) {
  return std::memcmp(bytes.data(), envelope::magic, std::min(bytes.size(), sizeof envelope::magic)) == 0;
}

// Versions 1 to 3: one payload after the envelope, all or nothing. The size
// is checked before the payload is read.
trace_file decode_whole(detail::byte_source& src, archive_kind kind, std::uint32_t version, std::uint64_t length,
                        std::uint32_t payload_crc) {
  const std::uint64_t have = src.size() - envelope::size;
  if (have < length) throw format_error(fmt::format("truncated ({} of {} bytes)", src.size(), length + envelope::size));
  if (have > length) throw format_error(fmt::format("{} bytes of unexpected data after the payload", have - length));
  const std::string_view payload = src.read(envelope::size, static_cast<std::size_t>(length));
  if (crc32(payload) != payload_crc) throw format_error("checksum mismatch (file damaged)");
  trace_file f;
  detail::load_payload(payload, kind, version, "trace", f);
  f.header.format_version = version;
  f.header.archive = kind;
  try {
    validate(f);
  } catch (const error& e) {
    throw format_error(fmt::format("inconsistent data: {}", e.what()));
  }
  return f;
}

// The envelope is checked from the file's first 32 bytes before anything
// else is read: a foreign file is refused after reading 32 bytes.
read_report decode_checked(detail::byte_source& src) {
  if (src.size() == 0) throw format_error("empty file (not a cws trace file)");
  const std::string_view bytes =
      src.read(0, static_cast<std::size_t>(std::min<std::uint64_t>(src.size(), envelope::size)));
  if (!prefix_of_magic(bytes)) throw format_error("not a cws trace file");
  if (bytes.size() < envelope::size)
    throw format_error(fmt::format("truncated ({} bytes; a trace file has at least {})", bytes.size(), envelope::size));
  if (crc32(bytes.substr(0, 28)) != get_u32(bytes, 28))
    throw format_error("envelope damaged (header checksum mismatch)");
  const std::uint32_t version = get_u32(bytes, 8);
  if (version > format_version)
    throw format_error(
        fmt::format("format version {} is newer than this cws (reads up to {})", version, format_version));
  if (version < oldest_readable_version)
    throw format_error(fmt::format("format version {} is not readable (this cws reads {} to {})", version,
                                   oldest_readable_version, format_version));
  const std::uint32_t kind = get_u32(bytes, 12);
  if (kind < 1 || kind > 3) throw format_error(fmt::format("unknown archive kind {}", kind));
  const std::uint64_t length = get_u64(bytes, 16);
  if (length > limits::file_bytes - envelope::size)
    throw format_error(fmt::format("payload length {} exceeds the limit of {} bytes", length, limits::file_bytes));
  const std::uint32_t payload_crc = get_u32(bytes, 24);  // `bytes` is invalidated by the next read
  if (version >= 4) return detail::decode_records(src, static_cast<archive_kind>(kind), version, length, payload_crc);
  read_report rep;
  rep.file = decode_whole(src, static_cast<archive_kind>(kind), version, length, payload_crc);
  return rep;
}

}  // namespace

bool read_report::complete() const noexcept {
  return closed && !torn_record && damaged.empty() && !unreadable && trailing_bytes == 0;
}

std::string read_report::summary() const {
  const auto complete_records = [](std::uint64_t n) {
    return fmt::format("{} complete record{}", n, n == 1 ? "" : "s");
  };
  std::vector<std::string> parts;
  if (damaged.size() == 1) {
    parts.push_back(fmt::format("record {} damaged ({})", damaged[0].record, damaged[0].problem));
  } else if (!damaged.empty()) {
    std::string list;
    const std::size_t shown = std::min<std::size_t>(damaged.size(), 5);
    for (std::size_t i = 0; i < shown; ++i) list += fmt::format("{}{}", i ? ", " : "", damaged[i].record);
    if (damaged.size() > shown) list += fmt::format(" and {} more", damaged.size() - shown);
    parts.push_back(fmt::format("records {} damaged (record {}: {})", list, damaged[0].record, damaged[0].problem));
  }
  if (unreadable) {
    parts.push_back(
        fmt::format("record {}: {}; {}", unreadable->record, unreadable->problem, complete_records(records)));
  } else if (torn_record) {
    parts.push_back(fmt::format("file ends inside record {}; {}", *torn_record, complete_records(*torn_record - 1)));
  } else if (!closed) {
    parts.push_back(
        fmt::format("file ends after record {} without the end record (the writer did not finish: "
                    "killed, or still running); {}",
                    records, complete_records(records)));
  }
  if (trailing_bytes > 0)
    parts.push_back(fmt::format("{} bytes of unexpected data after the end record", trailing_bytes));
  if (!damaged.empty()) parts.push_back(fmt::format("{} of {} records read", intact, records));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string encode(const trace_file& f, archive_kind kind) {
  if (kind != archive_kind::text && kind != archive_kind::xml && kind != archive_kind::binary)
    throw error(fmt::format("unknown archive kind {}", static_cast<std::uint32_t>(kind)));
  try {
    validate(f);
  } catch (const error& e) {
    throw error(fmt::format("refusing to write an inconsistent trace: {}", e.what()));
  }
  // The same records a stream gets (records.hpp); a phase run carries its
  // relocalizations inside its own record.
  detail::record_encoder enc(kind);
  std::string out(enc.header(f.header));
  for (const steal_tree::phase_record& r : f.phases) {
    out += enc.phase(r);
    if (out.size() > limits::file_bytes)
      throw error(fmt::format("trace of more than {} bytes exceeds the limit", limits::file_bytes));
  }
  out += enc.end(f.phases.size());
  return out;
}

read_report decode_with_report(std::string_view bytes, std::string_view name) {
  try {
    detail::memory_source src(bytes);
    return decode_checked(src);
  } catch (...) {
    throw error(fmt::format("{}: {}", name, detail::describe_current_exception()));
  }
}

trace_file decode(std::string_view bytes, std::string_view name) {
  read_report rep = decode_with_report(bytes, name);
  if (!rep.complete()) throw error(fmt::format("{}: {}", name, rep.summary()));
  return std::move(rep.file);
}

// ---------------------------------------------------------------- files

namespace {
std::string errno_text(int e) { return std::generic_category().message(e); }

// A trace file read piece by piece, only where the decoder asks: the
// envelope first, then the header and each record as their frames announce
// them. Refuses what is not a regular file (safe_file.hpp) or exceeds the
// limit before reading anything. Holds at most one record's bytes.
class file_source final : public detail::byte_source {
 public:
  explicit file_source(const std::string& path) {
    const input_file in = open_for_reading(path);  // throws cws::error naming the path
    fd_ = in.fd;
    size_ = in.size;
    if (size_ > limits::file_bytes) {
      ::close(fd_);
      throw error(fmt::format("{}: file of {} bytes exceeds the limit of {}", path, size_, limits::file_bytes));
    }
  }
  ~file_source() override { ::close(fd_); }
  file_source(const file_source&) = delete;
  file_source& operator=(const file_source&) = delete;

  std::uint64_t size() const noexcept override { return size_; }
  std::string_view read(std::uint64_t pos, std::size_t n) override {
    buf_.resize(n);
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = ::pread(fd_, buf_.data() + got, n - got, static_cast<off_t>(pos + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw detail::format_error(fmt::format("read error at offset {} ({})", pos + got, errno_text(errno)));
      if (r == 0)
        throw detail::format_error(
            fmt::format("file shrank to {} bytes while being read (it had {})", pos + got, size_));
      got += static_cast<std::size_t>(r);
    }
    return buf_;
  }

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string buf_;
};

read_report read_file(const std::string& path) {
  file_source src(path);  // its errors name the path already
  try {
    return decode_checked(src);
  } catch (...) {
    throw error(fmt::format("{}: {}", path, detail::describe_current_exception()));
  }
}
}  // namespace

trace_file read(const std::string& path) {
  read_report rep = read_file(path);
  if (!rep.complete()) throw error(fmt::format("{}: {}", path, rep.summary()));
  return std::move(rep.file);
}

read_report read_with_report(const std::string& path) { return read_file(path); }

void write(const std::string& path, const trace_file& f, archive_kind kind) {
  std::string bytes;
  try {
    bytes = encode(f, kind);
  } catch (const error& e) {
    throw error(fmt::format("{}: {}", path, e.what()));
  }
  write_file(path, bytes);  // exclusive temporary file renamed into place; errors name the path
}

}  // namespace cws::traces
