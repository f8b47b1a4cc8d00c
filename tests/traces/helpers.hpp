#pragma once
// Helpers of the trace-file suites: envelope surgery and scratch files.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "cws/traces/trace_file.hpp"
#include "support/error_of.hpp"
#include "support/scratch_files.hpp"

namespace cws::test {

// Every archive kind a trace file can be written in.
inline constexpr cws::traces::archive_kind all_kinds[] = {cws::traces::archive_kind::text, cws::traces::archive_kind::xml,
                                                         cws::traces::archive_kind::binary};

// Little-endian field access in an envelope (layout: trace_file.hpp).
inline std::uint64_t get_le(std::string_view b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}
inline void put_le(std::string& b, std::size_t at, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

inline std::string payload_of(std::string_view file) { return std::string(file.substr(cws::traces::envelope::size)); }

// A complete file around `payload` with correct checksums: what a buggy or
// malicious writer could produce, so it gets past the envelope checks.
inline std::string wrap(std::string_view payload, std::uint32_t kind = 1,
                        std::uint32_t version = cws::traces::format_version) {
  std::string b(cws::traces::envelope::magic, sizeof cws::traces::envelope::magic);
  b.resize(cws::traces::envelope::size);
  put_le(b, 8, version, 4);
  put_le(b, 12, kind, 4);
  put_le(b, 16, payload.size(), 8);
  put_le(b, 24, cws::traces::crc32(payload), 4);
  put_le(b, 28, cws::traces::crc32(std::string_view(b).substr(0, 28)), 4);
  b += payload;
  return b;
}



// A golden trace file of traces/golden (the suites that read them define the directory).
#ifdef CWS_TRACES_GOLDEN_DIR
inline std::string golden(const std::string& name) { return std::string(CWS_TRACES_GOLDEN_DIR) + "/" + name; }
#endif

}  // namespace cws::test
