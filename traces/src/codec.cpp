// Encoding and decoding of trace files: the envelope, the Boost archive of the
// payload, file I/O, and the error messages that name the file.
#include <fmt/format.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <new>
#include <sstream>
#include <streambuf>
#include <system_error>

#include "archives.hpp"
#include "cws/traces/trace_file.hpp"
#include "serialize.hpp"

namespace cws::traces {

// ---------------------------------------------------------------- small pieces

std::string_view to_string(archive_kind k) noexcept {
  switch (k) {
    case archive_kind::text: return "text";
    case archive_kind::xml: return "xml";
    case archive_kind::binary: return "binary";
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
constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<std::uint32_t, 256> crc_table = make_crc_table();
}  // namespace

std::uint32_t crc32(std::string_view bytes, std::uint32_t crc) noexcept {
  crc = ~crc;
  for (unsigned char b : bytes) crc = crc_table[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

// ---------------------------------------------------------------- identical

namespace {
bool same_double(double a, double b) noexcept { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

bool same_stats(const worker_stats& a, const worker_stats& b) noexcept {
  return a.tasks == b.tasks && a.segments == b.segments && a.steals == b.steals && a.failed_steals == b.failed_steals &&
         a.nested_segments == b.nested_segments && same_double(a.idle_s, b.idle_s) && a.designated == b.designated &&
         a.taken_back == b.taken_back;
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
  if (a.schedule != b.schedule || a.iteration != b.iteration || a.policy != b.policy || !same_double(a.wall_s, b.wall_s))
    return false;
  if (a.stats.size() != b.stats.size()) return false;
  for (std::size_t i = 0; i < a.stats.size(); ++i)
    if (!same_stats(a.stats[i], b.stats[i])) return false;
  if (!same_locality(a.locality, b.locality) || a.relocalizations.size() != b.relocalizations.size()) return false;
  for (std::size_t i = 0; i < a.relocalizations.size(); ++i)
    if (!same_relocalization(a.relocalizations[i], b.relocalizations[i])) return false;
  return a.steals == b.steals;
}

bool identical(const trace_file& a, const trace_file& b) noexcept {
  const trace_header &x = a.header, &y = b.header;
  if (x.cws_version != y.cws_version || x.host != y.host || x.created != y.created || !(x.topology == y.topology) ||
      !(x.options == y.options) || x.placement.size() != y.placement.size())
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

namespace {

using detail::format_error;

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
std::uint32_t get_u32(std::string_view b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}
std::uint64_t get_u64(std::string_view b, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}

// A read-only streambuf over bytes in memory (no copy).
class view_buf : public std::streambuf {
 public:
  explicit view_buf(std::string_view bytes) {
    char* b = const_cast<char*>(bytes.data());
    setg(b, b, b + bytes.size());
  }
  std::string_view rest() const { return {gptr(), static_cast<std::size_t>(egptr() - gptr())}; }
};

std::string serialize_payload(const trace_file& f, archive_kind kind) {
  std::ostringstream os;
  {
    using boost::serialization::make_nvp;
    switch (kind) {
      case archive_kind::text: {
        boost::archive::text_oarchive ar(os);
        ar << make_nvp("trace", f);
        break;
      }
      case archive_kind::xml: {
        boost::archive::xml_oarchive ar(os);
        ar << make_nvp("trace", f);
        break;
      }
      case archive_kind::binary: {
        boost::archive::binary_oarchive ar(os);
        ar << make_nvp("trace", f);
        break;
      }
    }
  }  // the archive's destructor finishes the output (XML closing tag)
  if (!os) throw error("cannot encode trace: output stream failed");
  return std::move(os).str();
}

bool only_whitespace(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
  return true;
}

void check_xml_tail(std::string_view rest) {
  constexpr std::string_view close = "</boost_serialization>";
  std::size_t i = 0;
  while (i < rest.size() && only_whitespace(rest.substr(i, 1))) ++i;
  if (rest.substr(i, close.size()) != close || !only_whitespace(rest.substr(std::min(rest.size(), i + close.size()))))
    throw format_error("malformed payload (XML archive not properly closed)");
}

trace_file deserialize_payload(std::string_view payload, archive_kind kind, std::uint32_t version) {
  detail::payload_context ctx;
  ctx.version = version;
  ctx.payload_bytes = payload.size();
  ctx.loading = true;
  detail::payload_context::scope in(ctx);

  trace_file f;
  view_buf buf(payload);
  std::istream is(&buf);
  using boost::serialization::make_nvp;
  switch (kind) {
    case archive_kind::text: {
      detail::bounded_text_iarchive ar(is);
      ar >> make_nvp("trace", f);
      break;
    }
    case archive_kind::xml: {
      detail::bounded_xml_iarchive ar(is);
      ar >> make_nvp("trace", f);
      // The archive's destructor parses the closing tag and throws from the
      // destructor (std::terminate) if it cannot. Check it while the archive
      // is alive: an exception thrown here makes the destructor skip it.
      check_xml_tail(buf.rest());
      break;
    }
    case archive_kind::binary: {
      detail::bounded_binary_iarchive ar(is);
      ar >> make_nvp("trace", f);
      break;
    }
  }
  const std::string_view rest = buf.rest();
  if (kind == archive_kind::binary ? !rest.empty() : !only_whitespace(rest))
    throw format_error(fmt::format("malformed payload ({} unread bytes at its end)", rest.size()));
  f.header.format_version = version;
  f.header.archive = kind;
  return f;
}

bool prefix_of_magic(std::string_view bytes) {
  return std::memcmp(bytes.data(), envelope::magic, std::min(bytes.size(), sizeof envelope::magic)) == 0;
}

trace_file decode_checked(std::string_view bytes) {
  if (bytes.empty()) throw format_error("empty file (not a cws trace file)");
  if (!prefix_of_magic(bytes)) throw format_error("not a cws trace file");
  if (bytes.size() < envelope::size)
    throw format_error(fmt::format("truncated ({} bytes; a trace file has at least {})", bytes.size(), envelope::size));
  if (crc32(bytes.substr(0, 28)) != get_u32(bytes, 28))
    throw format_error("envelope damaged (header checksum mismatch)");
  const std::uint32_t version = get_u32(bytes, 8);
  if (version > format_version)
    throw format_error(fmt::format("format version {} is newer than this cws (reads up to {})", version, format_version));
  if (version < oldest_readable_version)
    throw format_error(fmt::format("format version {} is not readable (this cws reads {} to {})", version,
                                   oldest_readable_version, format_version));
  const std::uint32_t kind = get_u32(bytes, 12);
  if (kind < 1 || kind > 3) throw format_error(fmt::format("unknown archive kind {}", kind));
  const std::uint64_t length = get_u64(bytes, 16);
  if (length > limits::file_bytes - envelope::size)
    throw format_error(fmt::format("payload length {} exceeds the limit of {} bytes", length, limits::file_bytes));
  const std::uint64_t have = bytes.size() - envelope::size;
  if (have < length) throw format_error(fmt::format("truncated ({} of {} bytes)", bytes.size(), length + envelope::size));
  if (have > length)
    throw format_error(fmt::format("{} bytes of unexpected data after the payload", have - length));
  const std::string_view payload = bytes.substr(envelope::size);
  if (crc32(payload) != get_u32(bytes, 24)) throw format_error("checksum mismatch (file damaged)");
  trace_file f = deserialize_payload(payload, static_cast<archive_kind>(kind), version);
  try {
    validate(f);
  } catch (const error& e) {
    throw format_error(fmt::format("inconsistent data: {}", e.what()));
  }
  return f;
}

}  // namespace

std::string encode(const trace_file& f, archive_kind kind) {
  if (kind != archive_kind::text && kind != archive_kind::xml && kind != archive_kind::binary)
    throw error(fmt::format("unknown archive kind {}", static_cast<std::uint32_t>(kind)));
  try {
    validate(f);
  } catch (const error& e) {
    throw error(fmt::format("refusing to write an inconsistent trace: {}", e.what()));
  }
  const std::string payload = serialize_payload(f, kind);
  if (payload.size() > limits::file_bytes - envelope::size)
    throw error(fmt::format("trace payload of {} bytes exceeds the limit of {}", payload.size(), limits::file_bytes));
  std::string out;
  out.reserve(envelope::size + payload.size());
  out.append(envelope::magic, sizeof envelope::magic);
  put_u32(out, format_version);
  put_u32(out, static_cast<std::uint32_t>(kind));
  put_u64(out, payload.size());
  put_u32(out, crc32(payload));
  put_u32(out, crc32(out));
  out += payload;
  return out;
}

trace_file decode(std::string_view bytes, std::string_view name) {
  try {
    return decode_checked(bytes);
  } catch (const format_error& e) {
    throw error(fmt::format("{}: {}", name, e.what()));
  } catch (const boost::archive::archive_exception& e) {
    using boost::archive::archive_exception;
    if (e.code == archive_exception::incompatible_native_format)
      throw error(fmt::format("{}: binary archive written on an incompatible machine ({}); binary archives are not "
                              "portable, convert the file to text where it was written",
                              name, e.what()));
    if (e.code == archive_exception::unsupported_version)
      throw error(fmt::format("{}: payload written by a newer Boost.Serialization than this cws was built with", name));
    throw error(fmt::format("{}: malformed payload ({})", name, e.what()));
  } catch (const std::bad_alloc&) {
    throw error(fmt::format("{}: out of memory while reading", name));
  } catch (const error& e) {
    throw error(fmt::format("{}: {}", name, e.what()));
  } catch (const std::exception& e) {
    throw error(fmt::format("{}: malformed payload ({})", name, e.what()));
  }
}

// ---------------------------------------------------------------- files

namespace {
std::string errno_text(int e) { return std::generic_category().message(e); }
}  // namespace

trace_file read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(fmt::format("{}: cannot open ({})", path, errno_text(errno)));
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(status)) throw error(fmt::format("{}: is a directory", path));
  // Devices and pipes could deliver endless bytes: read regular files only.
  if (!ec && !std::filesystem::is_regular_file(status)) throw error(fmt::format("{}: not a regular file", path));
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > limits::file_bytes)
    throw error(fmt::format("{}: file of {} bytes exceeds the limit of {}", path, size, limits::file_bytes));
  std::string bytes;
  if (!ec) bytes.reserve(static_cast<std::size_t>(size));
  // Read in chunks, never more than the limit (the size may change underneath).
  std::array<char, 1 << 16> chunk{};
  while (in) {
    in.read(chunk.data(), chunk.size());
    bytes.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (bytes.size() > limits::file_bytes)
      throw error(fmt::format("{}: file exceeds the limit of {} bytes", path, limits::file_bytes));
  }
  if (in.bad()) throw error(fmt::format("{}: read error ({})", path, errno_text(errno)));
  return decode(bytes, path);
}

void write(const std::string& path, const trace_file& f, archive_kind kind) {
  std::string bytes;
  try {
    bytes = encode(f, kind);
  } catch (const error& e) {
    throw error(fmt::format("{}: {}", path, e.what()));
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw error(fmt::format("{}: cannot write ({})", path, errno_text(errno)));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      const int e = errno;
      std::remove(tmp.c_str());
      throw error(fmt::format("{}: write failed ({})", path, errno_text(e)));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw error(fmt::format("{}: cannot write ({})", path, ec.message()));
  }
}

}  // namespace cws::traces
