// Format version 4: encoding the header and the records of a record stream,
// and reading them back one record at a time, so that a torn tail or a
// damaged record costs only itself.
#include "records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "le_bytes.hpp"

namespace cws::traces::detail {

record_encoder::record_encoder(archive_kind kind) : kind_(kind), sink_(buf_), os_(&sink_) {
  if (kind != archive_kind::text && kind != archive_kind::xml && kind != archive_kind::binary)
    throw error(fmt::format("unknown archive kind {}", static_cast<std::uint32_t>(kind)));
}

std::string_view record_encoder::header(const trace_header& h) {
  buf_.clear();
  buf_.append(envelope::size, '\0');
  os_.clear();
  save_payload(os_, h, "header", kind_);
  const std::uint64_t length = buf_.size() - envelope::size;
  if (length > limits::file_bytes - envelope::size)
    throw error(fmt::format("trace header of {} bytes exceeds the limit of {}", length, limits::file_bytes));
  char* e = buf_.data();
  std::memcpy(e, envelope::magic, sizeof envelope::magic);
  store_u32(e + 8, format_version);
  store_u32(e + 12, static_cast<std::uint32_t>(kind_));
  store_u64(e + 16, length);
  store_u32(e + 24, crc32(std::string_view(buf_).substr(envelope::size)));
  store_u32(e + 28, crc32(std::string_view(buf_).substr(0, 28)));
  return buf_;
}

namespace {
// Fills in the frame in front of a payload already in `buf`.
void seal(std::string& buf, record_frame::kind k) {
  const std::uint64_t length = buf.size() - record_frame::size;
  if (length > limits::file_bytes)
    throw error(fmt::format("trace record of {} bytes exceeds the limit of {}", length, limits::file_bytes));
  char* f = buf.data();
  std::memcpy(f, record_frame::magic, sizeof record_frame::magic);
  store_u32(f + 4, static_cast<std::uint32_t>(k));
  store_u64(f + 8, length);
  store_u32(f + 16, crc32(std::string_view(buf).substr(record_frame::size)));
  store_u32(f + 20, crc32(std::string_view(buf).substr(0, 20)));
}
}  // namespace

template <class T>
std::string_view record_encoder::record(record_frame::kind k, const T& x, const char* name) {
  buf_.clear();
  buf_.append(record_frame::size, '\0');
  os_.clear();
  save_payload(os_, x, name, kind_);
  seal(buf_, k);
  return buf_;
}

std::string_view record_encoder::phase(const steal_tree::phase_record& r) {
  return record(record_frame::kind::phase, r, "phase");
}

std::string_view record_encoder::relocalization(const relocalization_report& r) {
  return record(record_frame::kind::relocalization, r, "relocalization");
}

std::string_view record_encoder::end(std::uint64_t records_before) {
  buf_.clear();
  buf_.append(record_frame::size, '\0');
  put_u64(buf_, records_before);
  seal(buf_, record_frame::kind::end);
  return buf_;
}

// ---------------------------------------------------------------- reading

namespace {

// Reads one intact record into the report; throws (format_error, cws::error,
// Boost's exceptions) when its payload cannot be used. Returns true for the
// end record.
bool take_record(read_report& rep, std::uint32_t kind, std::string_view payload, archive_kind archive,
                 std::uint32_t version, std::uint64_t index) {
  trace_file& f = rep.file;
  switch (static_cast<record_frame::kind>(kind)) {
    case record_frame::kind::phase: {
      if (f.phases.size() >= limits::phases)
        throw format_error(fmt::format("more than {} phase runs in one file", limits::phases));
      steal_tree::phase_record r;
      load_payload(payload, archive, version, "phase", r);
      try {
        validate(r, f.header);
      } catch (const error& e) {
        throw format_error(fmt::format("inconsistent data: {}", e.what()));
      }
      f.phases.push_back(std::move(r));
      return false;
    }
    case record_frame::kind::relocalization: {
      relocalization_report x;
      load_payload(payload, archive, version, "relocalization", x);
      try {
        validate(x);
      } catch (const error& e) {
        throw format_error(fmt::format("inconsistent relocalization: {}", e.what()));
      }
      // Filed under the latest run it was made from, as the recorder does.
      auto run = std::find_if(f.phases.rbegin(), f.phases.rend(), [&x](const steal_tree::phase_record& r) {
        return r.iteration == x.iteration && r.schedule == x.schedule;
      });
      if (run == f.phases.rend())
        throw format_error(fmt::format("relocalization of the run '{}' #{}, which no earlier record holds",
                                       x.schedule.substr(0, 64), x.iteration));
      if (run->relocalizations.size() >= limits::relocalizations)
        throw format_error(fmt::format("more than {} relocalizations of one phase run", limits::relocalizations));
      run->relocalizations.push_back(std::move(x));
      return false;
    }
    case record_frame::kind::end: {
      if (payload.size() != 8) throw format_error(fmt::format("end record of {} bytes (8 expected)", payload.size()));
      const std::uint64_t before = get_u64(payload, 0);
      if (before != index - 1)
        throw format_error(fmt::format("end record counts {} records before it, the file has {}", before, index - 1));
      return true;
    }
  }
  throw format_error(fmt::format("unknown record kind {}", kind));
}

bool matches_magic_prefix(std::string_view rest) {
  return std::memcmp(rest.data(), record_frame::magic, std::min(rest.size(), sizeof record_frame::magic)) == 0;
}

}  // namespace

read_report decode_records(byte_source& src, archive_kind kind, std::uint32_t version, std::uint64_t header_length,
                           std::uint32_t header_crc) {
  read_report rep;
  const std::uint64_t size = src.size();
  if (size - envelope::size < header_length)
    throw format_error(
        fmt::format("truncated inside the header ({} of its {} bytes)", size, envelope::size + header_length));
  const std::string_view header = src.read(envelope::size, static_cast<std::size_t>(header_length));
  if (crc32(header) != header_crc) throw format_error("header damaged (checksum mismatch)");
  load_payload(header, kind, version, "header", rep.file.header);
  try {
    validate(rep.file.header);
  } catch (const error& e) {
    throw format_error(fmt::format("inconsistent data: {}", e.what()));
  }
  rep.file.header.format_version = version;
  rep.file.header.archive = kind;

  rep.closed = false;
  std::uint64_t pos = envelope::size + header_length;
  for (std::uint64_t index = 1; pos < size; ++index) {
    const std::uint64_t left = size - pos;
    // The frame's fields are copied out: the next read reuses the buffer.
    const std::string_view frame =
        src.read(pos, static_cast<std::size_t>(std::min<std::uint64_t>(left, record_frame::size)));
    const auto unreadable = [&](std::string what) {
      rep.unreadable = record_problem{
          index, pos, fmt::format("{} (the {} bytes from offset {} on cannot be read)", what, left, pos)};
    };
    if (!matches_magic_prefix(frame)) {
      unreadable("not a record frame");
      break;
    }
    if (frame.size() < record_frame::size) {  // a writer killed inside the frame
      rep.torn_record = index;
      break;
    }
    if (crc32(frame.substr(0, 20)) != get_u32(frame, 20)) {
      unreadable("frame damaged (checksum mismatch)");
      break;
    }
    const std::uint32_t record_kind = get_u32(frame, 4);
    const std::uint64_t length = get_u64(frame, 8);
    const std::uint32_t payload_crc = get_u32(frame, 16);
    if (length > limits::file_bytes) {
      unreadable(fmt::format("record length {} exceeds the limit of {} bytes", length, limits::file_bytes));
      break;
    }
    if (left - record_frame::size < length) {  // a writer killed inside the payload
      rep.torn_record = index;
      break;
    }
    rep.records = index;
    const std::uint64_t at = pos;
    pos += record_frame::size + length;
    const std::string_view payload = src.read(at + record_frame::size, static_cast<std::size_t>(length));
    if (crc32(payload) != payload_crc) {
      rep.damaged.push_back({index, at, "payload checksum mismatch"});
      continue;
    }
    try {
      const bool end = take_record(rep, record_kind, payload, kind, version, index);
      ++rep.intact;
      if (end) {
        rep.closed = true;
        rep.trailing_bytes = size - pos;
        break;
      }
    } catch (...) {
      rep.damaged.push_back({index, at, describe_current_exception()});
    }
  }
  return rep;
}

}  // namespace cws::traces::detail
