#pragma once
// Helpers of the trace-file suites: envelope and record-frame surgery, scratch files.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cws/traces/trace_file.hpp"
#include "payload_io.hpp"  // traces/src: the archive of a whole trace (versions 1 to 3)
#include "support/error_of.hpp"
#include "support/scratch_files.hpp"

namespace cws::test {

// Every archive kind a trace file can be written in.
inline constexpr cws::traces::archive_kind all_kinds[] = {
    cws::traces::archive_kind::text, cws::traces::archive_kind::xml, cws::traces::archive_kind::binary};

// Temporary files a writer left beside `path` (safe_file.hpp names them
// "<path>.tmp-XXXXXXXX"); every writer removes its own, on success and error.
inline std::vector<std::string> leftover_temporaries(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string prefix = p.filename().string() + ".tmp";
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(p.parent_path(), ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0) found.push_back(e.path().string());
  return found;
}

// Little-endian field access in an envelope (layout: trace_file.hpp).
inline std::uint64_t get_le(std::string_view b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}
inline void put_le(std::string& b, std::size_t at, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// What follows the envelope: the payload of a version 1 to 3 file (for a
// version-4 file, its header archive and records).
inline std::string payload_of(std::string_view file) { return std::string(file.substr(cws::traces::envelope::size)); }

// The last format version whose payload is one archive of the whole trace
// (from version 4 on, a file is a header and records).
inline constexpr std::uint32_t whole_payload_version = 3;

// The payload of a version 1 to 3 file holding `f`: the archive of the whole
// trace_file (written with the fields of version 3), for surgery behind valid
// checksums with wrap().
inline std::string whole_payload(const cws::traces::trace_file& f,
                                 cws::traces::archive_kind kind = cws::traces::default_archive) {
  std::ostringstream os;
  cws::traces::detail::payload_context ctx;  // the fields of version 3, not the current version's
  ctx.version = whole_payload_version;
  const cws::traces::detail::payload_context::scope in(ctx);
  cws::traces::detail::save_payload(os, f, "trace", kind);
  return std::move(os).str();
}

// A header of `size` bytes that begins with `magic` and holds `fields`,
// then at `crc_at` the CRC-32 of `payload` and after it the header's own
// (of the bytes before it); the payload follows. The layout of both the
// envelope and a record frame (trace_file.hpp).
struct le_field {
  std::size_t at;
  std::uint64_t value;
  int bytes;
};
inline std::string checksummed(std::string_view magic, std::size_t size, std::initializer_list<le_field> fields,
                               std::size_t crc_at, std::string_view payload) {
  std::string b(magic);
  b.resize(size);
  for (const le_field& f : fields) put_le(b, f.at, f.value, f.bytes);
  put_le(b, crc_at, cws::traces::crc32(payload), 4);
  put_le(b, crc_at + 4, cws::traces::crc32(std::string_view(b).substr(0, crc_at + 4)), 4);
  b += payload;
  return b;
}

// A complete file around `payload` with correct checksums: what a buggy or
// malicious writer could produce, so it gets past the envelope checks.
inline std::string wrap(std::string_view payload, std::uint32_t kind = 1,
                        std::uint32_t version = whole_payload_version) {
  namespace env = cws::traces::envelope;
  return checksummed({env::magic, sizeof env::magic}, env::size,
                     {{8, version, 4}, {12, kind, 4}, {16, payload.size(), 8}}, 24, payload);
}

// Format version 4: where each record of a record stream starts (its frame),
// in file order, walking the frames from the end of the header; stops at the
// first frame that does not fit.
inline std::vector<std::size_t> record_offsets(std::string_view file) {
  std::vector<std::size_t> at;
  std::size_t pos = cws::traces::envelope::size + get_le(file, 16, 8);
  while (pos + cws::traces::record_frame::size <= file.size()) {
    at.push_back(pos);
    pos += cws::traces::record_frame::size + get_le(file, pos + 8, 8);
  }
  return at;
}

// A record frame around `payload` with correct checksums (see wrap()).
inline std::string frame(std::uint32_t kind, std::string_view payload) {
  namespace rf = cws::traces::record_frame;
  return checksummed({rf::magic, sizeof rf::magic}, rf::size, {{4, kind, 4}, {8, payload.size(), 8}}, 16, payload);
}

// A golden trace file of traces/golden (the suites that read them define the directory).
#ifdef CWS_TRACES_GOLDEN_DIR
inline std::string golden(const std::string& name) { return std::string(CWS_TRACES_GOLDEN_DIR) + "/" + name; }
#endif

}  // namespace cws::test
