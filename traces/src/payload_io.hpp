#pragma once
// One object as a Boost archive of any kind, to and from bytes: the payload
// of a version 1 to 3 file (the whole trace_file), and the header and each
// record of a version-4 file. Loading runs inside a payload_context, so every
// count is checked against its limit and against the bytes there are
// (serialize.hpp), and nothing may be left unread.
#include <fmt/format.h>

#include <cstdint>
#include <istream>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "archives.hpp"
#include "cws/error.hpp"
#include "cws/traces/trace_file.hpp"
#include "serialize.hpp"

namespace cws::traces::detail {

// A read-only streambuf over bytes in memory (no copy).
class view_buf : public std::streambuf {
 public:
  explicit view_buf(std::string_view bytes) {
    char* b = const_cast<char*>(bytes.data());
    setg(b, b, b + bytes.size());
  }
  std::string_view rest() const { return {gptr(), static_cast<std::size_t>(egptr() - gptr())}; }
};

// Appends to a caller-owned string: a record writer reuses one buffer for
// every record, so the bytes of a record cost no allocation once the buffer
// has grown to the largest record.
class append_buf : public std::streambuf {
 public:
  explicit append_buf(std::string& out) : out_(&out) {}

 protected:
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) out_->push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_->append(s, static_cast<std::size_t>(n));
    return n;
  }

 private:
  std::string* out_;
};

inline bool only_whitespace(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
  return true;
}

inline void check_xml_tail(std::string_view rest) {
  constexpr std::string_view close = "</boost_serialization>";
  std::size_t i = 0;
  while (i < rest.size() && only_whitespace(rest.substr(i, 1))) ++i;
  if (rest.substr(i, close.size()) != close || !only_whitespace(rest.substr(std::min(rest.size(), i + close.size()))))
    throw format_error("malformed payload (XML archive not properly closed)");
}

// Inside a catch block: the exception being handled (from load_payload or
// validation) as a problem description without a file name, e.g. "malformed
// payload (input stream error)". Rethrows what is not a std::exception.
std::string describe_current_exception();

// Writes `x` as a complete archive (Boost's header included) to `os`.
template <class T>
void save_payload(std::ostream& os, const T& x, const char* name, archive_kind kind) {
  using boost::serialization::make_nvp;
  {
    switch (kind) {
      case archive_kind::text: {
        boost::archive::text_oarchive ar(os);
        ar << make_nvp(name, x);
        break;
      }
      case archive_kind::xml: {
        boost::archive::xml_oarchive ar(os);
        ar << make_nvp(name, x);
        break;
      }
      case archive_kind::binary: {
        boost::archive::binary_oarchive ar(os);
        ar << make_nvp(name, x);
        break;
      }
    }
  }  // the archive's destructor finishes the output (XML closing tag)
  if (!os) throw error("cannot encode trace: output stream failed");
}

// Reads `x` from exactly `payload` (written by save_payload for format
// version `version`). Throws format_error, boost::archive::archive_exception
// or cws::error on anything malformed.
template <class T>
void load_payload(std::string_view payload, archive_kind kind, std::uint32_t version, const char* name, T& x) {
  payload_context ctx;
  ctx.version = version;
  ctx.payload_bytes = payload.size();
  ctx.loading = true;
  payload_context::scope in(ctx);

  view_buf buf(payload);
  std::istream is(&buf);
  using boost::serialization::make_nvp;
  switch (kind) {
    case archive_kind::text: {
      bounded_text_iarchive ar(is);
      ar >> make_nvp(name, x);
      break;
    }
    case archive_kind::xml: {
      bounded_xml_iarchive ar(is);
      ar >> make_nvp(name, x);
      // The archive's destructor parses the closing tag and throws from the
      // destructor (std::terminate) if it cannot. Check it while the archive
      // is alive: an exception thrown here makes the destructor skip it.
      check_xml_tail(buf.rest());
      break;
    }
    case archive_kind::binary: {
      bounded_binary_iarchive ar(is);
      ar >> make_nvp(name, x);
      break;
    }
  }
  const std::string_view rest = buf.rest();
  if (kind == archive_kind::binary ? !rest.empty() : !only_whitespace(rest))
    throw format_error(fmt::format("malformed payload ({} unread bytes at its end)", rest.size()));
}

}  // namespace cws::traces::detail
