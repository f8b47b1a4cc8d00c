// place_tree::from_xml_file: the place tree from an HClib-style HPT XML file
// (CWS_HPT). The format, as HClib wrote it:
//
//   <HPT version="0.1">
//     <place num="1" type="mem">            the root: data spanning nodes
//       <place num="2" type="mem">          NUMA nodes (the i-th copy is logical node i)
//         <place num="2" type="cache">      L3 groups (leaves), optional
//           <worker num="4"/>
//
// num="k" repeats an element with its whole subtree; other attributes (type,
// did, size, info, ...) are accepted and ignored, as the scheduler never
// looked at them. Places get ids in document (preorder) order, as the
// topology construction assigns them, so a file describing the machine's own
// shape gives a tree equal to place_tree::from_topology's. Every problem is
// one line, "FILE:LINE: what is wrong"; libxml2 never prints anything itself.

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "cws/error.hpp"
#include "cws/place_tree.hpp"
#include "place_tree_builder.hpp"

#if CWS_HAVE_LIBXML2
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include <memory>
#include <mutex>
#endif

namespace cws {

#if CWS_HAVE_LIBXML2
namespace {

// A repeat count larger than this is a typo, not a machine; it also bounds
// how many places a hostile file can make us build.
constexpr unsigned max_num = 65536;

std::string read_whole_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw error(fmt::format("{}: cannot read ({})", path, std::strerror(errno)));
  std::string text;
  char buffer[1 << 14];
  std::size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, got);
  const bool failed = std::ferror(f) != 0;
  const int read_errno = errno;  // e.g. EISDIR: fopen succeeds on a directory, fread does not
  std::fclose(f);
  if (failed) throw error(fmt::format("{}: cannot read ({})", path, std::strerror(read_errno)));
  return text;
}

// libxml2 reports every error of a parse; the first is the one that explains
// the rest. Installed as the context's structured handler, so nothing reaches stderr.
struct first_xml_error {
  bool seen = false;
  int line = 0;
  std::string message;
};

void record_first_error(void* user_data, xmlErrorPtr e) {
  auto* ctxt = static_cast<xmlParserCtxtPtr>(user_data);
  if (!ctxt || !e || e->level < XML_ERR_ERROR) return;
  auto* first = static_cast<first_xml_error*>(ctxt->_private);
  if (!first || first->seen) return;
  first->seen = true;
  first->line = e->line;
  std::string_view m = e->message ? e->message : "malformed XML";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.remove_suffix(1);
  first->message = std::string(m);
}

struct doc_deleter {
  void operator()(xmlDoc* d) const noexcept { xmlFreeDoc(d); }
};
struct ctxt_deleter {
  void operator()(xmlParserCtxt* c) const noexcept { xmlFreeParserCtxt(c); }
};
using doc_ptr = std::unique_ptr<xmlDoc, doc_deleter>;

doc_ptr parse(const std::string& path, const std::string& text) {
  static std::once_flag init;
  std::call_once(init, [] { xmlInitParser(); });
  std::unique_ptr<xmlParserCtxt, ctxt_deleter> ctxt(xmlNewParserCtxt());
  if (!ctxt) throw error(fmt::format("{}: cannot parse (libxml2 could not allocate a parser)", path));
  first_xml_error first;
  ctxt->_private = &first;
  ctxt->sax->serror = record_first_error;
  // No network, no external DTD (HClib's files name hpt.dtd; the shape is
  // checked below instead), quiet, and line numbers past 65535.
  const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
  doc_ptr doc(
      xmlCtxtReadMemory(ctxt.get(), text.data(), static_cast<int>(text.size()), path.c_str(), nullptr, options));
  if (!doc || first.seen) {
    if (first.seen) throw error(fmt::format("{}:{}: XML error: {}", path, first.line, first.message));
    throw error(fmt::format("{}: cannot parse as XML", path));
  }
  return doc;
}

bool is_element(const xmlNode* n, const char* name) {
  return n->type == XML_ELEMENT_NODE && std::strcmp(reinterpret_cast<const char*>(n->name), name) == 0;
}
std::string_view name_of(const xmlNode* n) { return reinterpret_cast<const char*>(n->name); }

// Walks the document and builds the tree: root place -> node places ->
// (leaf places ->) workers.
class hpt_loader {
 public:
  hpt_loader(const std::string& path, place_tree& tree, unsigned numa_nodes, unsigned workers)
      : path_(path), tree_(tree), numa_nodes_(numa_nodes), workers_(workers) {}

  void load(const xmlNode* hpt) {
    if (hpt == nullptr) fail_at(1, "the document has no root element (expected <HPT>)");
    if (!is_element(hpt, "HPT")) fail(hpt, fmt::format("the root element is <{}>, expected <HPT>", name_of(hpt)));
    const xmlNode* root_place = nullptr;
    for (const xmlNode* c = hpt->children; c; c = c->next) {
      if (c->type != XML_ELEMENT_NODE) continue;
      if (!is_element(c, "place")) fail(c, fmt::format("unexpected <{}> in <HPT> (expected one <place>)", name_of(c)));
      if (root_place || repeat(c) != 1)
        fail(c, "<HPT> holds more than one root <place> (the root's children are the NUMA nodes)");
      root_place = c;
    }
    if (!root_place) fail(hpt, "<HPT> holds no <place>");
    place_tree_builder::add(tree_, place_tree::kind::root, place_tree::root, place_tree::no_node);
    for (const xmlNode* c = root_place->children; c; c = c->next) {
      if (c->type != XML_ELEMENT_NODE) continue;
      if (is_element(c, "worker"))
        fail(c, "<worker> directly in the root <place> (the root's children must be NUMA node places)");
      expect_place(c);
      for (unsigned copy = 0, n = repeat(c); copy < n; ++copy) add_node(c);
    }
    if (nodes_ == 0) fail(root_place, "the root <place> holds no NUMA node places");
    if (next_worker_ != workers_)
      fail(hpt, fmt::format("the file has {} worker{}, the runtime has {}", next_worker_, next_worker_ == 1 ? "" : "s",
                            workers_));
  }

 private:
  [[noreturn]] void fail_at(long line, std::string_view what) const {
    throw error(fmt::format("{}:{}: {}", path_, line, what));
  }
  [[noreturn]] void fail(const xmlNode* n, std::string_view what) const {
    fail_at(xmlGetLineNo(const_cast<xmlNode*>(n)), what);
  }

  void expect_place(const xmlNode* n) const {
    if (!is_element(n, "place")) fail(n, fmt::format("unexpected <{}> (expected <place> or <worker>)", name_of(n)));
  }

  // The num attribute: a repeat count, 1 when absent.
  unsigned repeat(const xmlNode* n) const {
    xmlChar* raw = xmlGetProp(n, reinterpret_cast<const xmlChar*>("num"));
    if (!raw) return 1;
    const std::string text = reinterpret_cast<const char*>(raw);
    xmlFree(raw);
    unsigned long value = 0;
    bool ok = !text.empty() && text.size() <= 9;
    for (char ch : text) ok = ok && ch >= '0' && ch <= '9';
    if (ok) value = std::stoul(text);
    if (!ok || value == 0 || value > max_num)
      fail(n, fmt::format("<{}> num=\"{}\": expected a repeat count from 1 to {}", name_of(n), text, max_num));
    return static_cast<unsigned>(value);
  }

  // One copy of a NUMA node place: either its own leaf (workers inside) or
  // the parent of L3 group places.
  void add_node(const xmlNode* n) {
    if (nodes_ == numa_nodes_)
      fail(n, fmt::format("more NUMA node places than the topology's {} NUMA node{}", numa_nodes_,
                          numa_nodes_ == 1 ? "" : "s"));
    const unsigned node = place_tree_builder::add(tree_, place_tree::kind::node, place_tree::root, nodes_++);
    const xmlNode* first_place = nullptr;
    const xmlNode* first_worker = nullptr;
    for (const xmlNode* c = n->children; c; c = c->next) {
      if (c->type != XML_ELEMENT_NODE) continue;
      if (is_element(c, "worker")) {
        if (first_place) fail(c, "<worker> next to L3 <place> elements (a node place holds one kind or the other)");
        first_worker = first_worker ? first_worker : c;
        add_workers(c, node);
        continue;
      }
      expect_place(c);
      if (first_worker) fail(c, "<place> next to <worker> elements (a node place holds one kind or the other)");
      first_place = first_place ? first_place : c;
      for (unsigned copy = 0, k = repeat(c); copy < k; ++copy) add_leaf(c, node);
    }
    if (!first_place && !first_worker) fail(n, "NUMA node <place> holds no workers");
  }

  // One copy of an L3 group place: workers only.
  void add_leaf(const xmlNode* n, unsigned node) {
    const unsigned leaf =
        place_tree_builder::add(tree_, place_tree::kind::leaf, node, place_tree_builder::places(tree_)[node].numa_node);
    bool any = false;
    for (const xmlNode* c = n->children; c; c = c->next) {
      if (c->type != XML_ELEMENT_NODE) continue;
      if (is_element(c, "place"))
        fail(c, "<place> nested too deep (the tree is root -> NUMA nodes -> L3 groups -> workers)");
      if (!is_element(c, "worker"))
        fail(c, fmt::format("unexpected <{}> in an L3 <place> (expected <worker>)", name_of(c)));
      add_workers(c, leaf);
      any = true;
    }
    if (!any) fail(n, "L3 group <place> holds no workers");
  }

  void add_workers(const xmlNode* n, unsigned leaf) {
    for (const xmlNode* c = n->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE) fail(c, fmt::format("unexpected <{}> inside <worker>", name_of(c)));
    auto& ids = place_tree_builder::places(tree_)[leaf].workers;
    const unsigned count = repeat(n);
    // Past the runtime's worker count, workers are only counted, for the error.
    for (std::uint64_t w = next_worker_; w < next_worker_ + count && w < workers_; ++w)
      ids.push_back(static_cast<unsigned>(w));
    next_worker_ += count;
  }

  const std::string& path_;
  place_tree& tree_;
  unsigned numa_nodes_, workers_;
  unsigned nodes_ = 0;
  std::uint64_t next_worker_ = 0;  // 64 bits: nested repeat counts cannot wrap it
};

}  // namespace

place_tree place_tree::from_xml_file(const std::string& path, const topology& topo, unsigned workers) {
  const std::string text = read_whole_file(path);
  const doc_ptr doc = parse(path, text);
  place_tree t = place_tree_builder::make();
  place_tree_builder::source(t) = path;
  hpt_loader(path, t, topo.numa_nodes(), workers).load(xmlDocGetRootElement(doc.get()));
  place_tree_builder::index(t, topo.numa_nodes());
  return t;
}

#else  // !CWS_HAVE_LIBXML2

place_tree place_tree::from_xml_file(const std::string&, const topology&, unsigned) {
  throw error("CWS_HPT: this cws was built without libxml2 (install libxml2-dev and rebuild)");
}

#endif

}  // namespace cws
