// The bounded input archives: their string loaders and the explicit
// instantiations Boost needs for an archive class derived from its own.
#include "archives.hpp"

#include <boost/archive/impl/archive_serializer_map.ipp>
#include <boost/archive/impl/basic_binary_iarchive.ipp>
#include <boost/archive/impl/basic_binary_iprimitive.ipp>
#include <boost/archive/impl/basic_text_iarchive.ipp>
#include <boost/archive/impl/basic_xml_iarchive.ipp>
#include <boost/archive/impl/text_iarchive_impl.ipp>
#include <boost/archive/impl/xml_iarchive_impl.ipp>
#include <cstring>

namespace cws::traces::detail {

void bounded_text_iarchive::load(std::string& s) {
  std::size_t size = 0;
  *this->This() >> size;
  check_string_length(size);
  is.get();  // the separating space
  s.resize(size);
  if (size > 0) is.read(s.data(), static_cast<std::streamsize>(size));
  if (!is)
    boost::serialization::throw_exception(
        boost::archive::archive_exception(boost::archive::archive_exception::input_stream_error));
}

void bounded_binary_iarchive::load(std::string& s) {
  std::size_t size = 0;
  this->load(size);
  check_string_length(size);
  s.resize(size);
  if (size > 0) load_binary(s.data(), size);
}

void bounded_xml_iarchive::load_start(const char* name) {
  basic_xml_iarchive::load_start(name);
  if (name != nullptr) ++depth_;
}

void bounded_xml_iarchive::load_end(const char* name) {
  using boost::archive::archive_exception;
  using boost::archive::xml_archive_exception;
  if (name == nullptr) return;
  if (!gimpl->parse_end_tag(get_is()))
    boost::serialization::throw_exception(archive_exception(archive_exception::input_stream_error));
  if (depth_ > 0 && --depth_ == 0) return;  // the outermost tag is not checked (as Boost does)
  const std::string& got = gimpl->rv.object_name;
  if (got.size() != std::strlen(name) || got != name)
    boost::serialization::throw_exception(xml_archive_exception(xml_archive_exception::xml_archive_tag_mismatch, name));
}

}  // namespace cws::traces::detail

namespace boost::archive {
template class detail::archive_serializer_map<cws::traces::detail::bounded_xml_iarchive>;
template class basic_xml_iarchive<cws::traces::detail::bounded_xml_iarchive>;
template class xml_iarchive_impl<cws::traces::detail::bounded_xml_iarchive>;
template class detail::archive_serializer_map<cws::traces::detail::bounded_text_iarchive>;
template class basic_text_iarchive<cws::traces::detail::bounded_text_iarchive>;
template class text_iarchive_impl<cws::traces::detail::bounded_text_iarchive>;
template class detail::archive_serializer_map<cws::traces::detail::bounded_binary_iarchive>;
template class basic_binary_iarchive<cws::traces::detail::bounded_binary_iarchive>;
template class basic_binary_iprimitive<cws::traces::detail::bounded_binary_iarchive, char, std::char_traits<char>>;
template class binary_iarchive_impl<cws::traces::detail::bounded_binary_iarchive, char, std::char_traits<char>>;
}  // namespace boost::archive
