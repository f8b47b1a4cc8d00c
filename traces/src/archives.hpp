#pragma once
// Input archives that never allocate for a length they have not checked.
//
// Boost's text and binary input archives read a std::string as "length, then
// bytes" and resize the string to the length before reading a byte, so a
// damaged length (even in Boost's own archive header) could ask for
// gigabytes. These archives are the stock ones with load(std::string&)
// replaced by a bounded version. The XML archive parses strings out of the
// input and needs no such guard, but Boost 1.74's check of an end tag's name
// (basic_xml_iarchive::load_end) reads past the end of the expected name when
// the tag in the file is longer; bounded_xml_iarchive checks it safely.
//
// Output uses the stock archives (the encoding is identical).

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <boost/archive/xml_iarchive.hpp>
#include <boost/archive/xml_oarchive.hpp>

#include <cstddef>
#include <istream>
#include <string>

namespace cws::traces::detail {

// Throws format_error (serialize.hpp) when `size` exceeds the string limit.
void check_string_length(std::size_t size);

class bounded_text_iarchive : public boost::archive::text_iarchive_impl<bounded_text_iarchive> {
 public:
  explicit bounded_text_iarchive(std::istream& in) : text_iarchive_impl(in, 0) { init(); }

 protected:
  friend class boost::archive::detail::interface_iarchive<bounded_text_iarchive>;
  friend class boost::archive::detail::common_iarchive<bounded_text_iarchive>;
  friend class boost::archive::basic_text_iarchive<bounded_text_iarchive>;
  friend class boost::archive::load_access;
  using text_iarchive_impl::load;
  void load(std::string& s);
};

class bounded_binary_iarchive
    : public boost::archive::binary_iarchive_impl<bounded_binary_iarchive, char, std::char_traits<char>> {
 public:
  explicit bounded_binary_iarchive(std::istream& in) : binary_iarchive_impl(in, 0) { init(0); }

 protected:
  friend class boost::archive::detail::interface_iarchive<bounded_binary_iarchive>;
  friend class boost::archive::detail::common_iarchive<bounded_binary_iarchive>;
  friend class boost::archive::basic_binary_iarchive<bounded_binary_iarchive>;
  friend class boost::archive::basic_binary_iprimitive<bounded_binary_iarchive, char, std::char_traits<char>>;
  friend class boost::archive::load_access;

 public:
  using binary_iarchive_impl::load;
  void load(std::string& s);
};

class bounded_xml_iarchive : public boost::archive::xml_iarchive_impl<bounded_xml_iarchive> {
 public:
  explicit bounded_xml_iarchive(std::istream& in) : xml_iarchive_impl(in, 0) { init(); }

  // Called through This() by basic_xml_iarchive::load_override(nvp).
  void load_start(const char* name);
  void load_end(const char* name);

 protected:
  friend class boost::archive::detail::interface_iarchive<bounded_xml_iarchive>;
  friend class boost::archive::detail::common_iarchive<bounded_xml_iarchive>;
  friend class boost::archive::basic_xml_iarchive<bounded_xml_iarchive>;
  friend class boost::archive::load_access;

 private:
  unsigned depth_ = 0;
};

}  // namespace cws::traces::detail
