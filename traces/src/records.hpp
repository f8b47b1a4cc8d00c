#pragma once
// Format version 4: the record stream (layout in trace_file.hpp). One encoder
// writes the header and records for both save_traces (encode) and the
// streaming writer, and one decoder reads them back, record by record, into a
// read_report.
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "cws/locality.hpp"
#include "cws/steal_tree/tree.hpp"
#include "cws/traces/trace_file.hpp"
#include "payload_io.hpp"

namespace cws::traces::detail {

// Builds one record (frame and payload) at a time in a buffer it reuses: in
// steady state a record costs no allocation for its bytes (Boost's archive
// object itself still allocates a little bookkeeping per record).
class record_encoder {
 public:
  explicit record_encoder(archive_kind kind);
  record_encoder(const record_encoder&) = delete;
  record_encoder& operator=(const record_encoder&) = delete;

  archive_kind kind() const noexcept { return kind_; }
  // The bytes returned stay valid until the next call.
  // The 32-byte envelope (version 4) and the archive of the header.
  std::string_view header(const trace_header& h);
  std::string_view phase(const steal_tree::phase_record& r);
  std::string_view relocalization(const relocalization_report& r);
  // The end record: `records_before` records precede it.
  std::string_view end(std::uint64_t records_before);

 private:
  template <class T>
  std::string_view record(record_frame::kind k, const T& x, const char* name);

  archive_kind kind_;
  std::string buf_;
  append_buf sink_;
  std::ostream os_;
};

// Where a reader takes the bytes of a file from: memory (decode) or the file
// itself, read piece by piece (read): a reader asks only for what the
// envelope and the record frames say is there, so a huge or foreign file
// costs the bytes it takes to refuse it, not its size.
class byte_source {
 public:
  virtual ~byte_source() = default;
  virtual std::uint64_t size() const noexcept = 0;
  // The `n` bytes at `pos` (pos + n <= size()), valid until the next call.
  // Throws format_error when they cannot be read.
  virtual std::string_view read(std::uint64_t pos, std::size_t n) = 0;
};

class memory_source final : public byte_source {
 public:
  explicit memory_source(std::string_view bytes) noexcept : bytes_(bytes) {}
  std::uint64_t size() const noexcept override { return bytes_.size(); }
  std::string_view read(std::uint64_t pos, std::size_t n) override {
    return bytes_.substr(static_cast<std::size_t>(pos), n);
  }

 private:
  std::string_view bytes_;
};

// Reads a version-4 file whose envelope (magic, its CRC, version, kind, and
// header length within limits) was checked. Throws format_error when the
// header cannot be read (then nothing can); every problem of a record goes
// into the report instead. `header_crc` is the envelope's CRC of the header.
read_report decode_records(byte_source& src, archive_kind kind, std::uint32_t version, std::uint64_t header_length,
                           std::uint32_t header_crc);

}  // namespace cws::traces::detail
