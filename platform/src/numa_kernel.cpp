// Kernel placement for cws::numa regions: mmap + mbind through libnuma's
// syscall wrappers. A refused binding (e.g. mbind forbidden in a container)
// is not an error: the data is still correct, the region just says that its
// pages are not placed.

#include "numa_kernel.hpp"

#include <fmt/format.h>
#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "cws/error.hpp"
#include "cws/topology.hpp"

namespace cws::numa::detail {
namespace {

struct kernel_numa {
  bool available = false;
  std::vector<int> allowed;  // nodes this process may allocate on, ascending
  int max_node = 0;          // highest node number, sizes the mbind masks
};

const kernel_numa& kernel() {
  static const kernel_numa k = [] {
    kernel_numa out;
    if (numa_available() < 0) return out;  // must precede every other libnuma call
    out.max_node = numa_max_node();
    bitmask* mems = numa_get_mems_allowed();
    for (int n = 0; mems && n <= out.max_node; ++n)
      if (numa_bitmask_isbitset(mems, static_cast<unsigned>(n))) out.allowed.push_back(n);
    if (mems) numa_free_nodemask(mems);
    out.available = !out.allowed.empty();
    return out;
  }();
  return k;
}

// One kernel node (or no NUMA support): the process cannot put a page on
// another node, so placement and moves have nothing to do at any granularity.
bool huge_pages_here() {
  const kernel_numa& k = kernel();
  return !k.available || k.allowed.size() == 1;
}

// The kernel node of each virtual node, or -1 where there is none. A real
// topology maps to its own node numbers; a synthetic one round-robin onto the
// kernel's nodes (so a 4-node description on a 2-node machine still spreads).
std::vector<int> kernel_map(const topology& topo) {
  const kernel_numa& k = kernel();
  std::vector<int> map(topo.numa_nodes(), -1);
  if (!k.available) return map;
  for (unsigned v = 0; v < topo.numa_nodes(); ++v) {
    if (topo.is_synthetic()) {
      map[v] = k.allowed[v % k.allowed.size()];
    } else {
      int os = static_cast<int>(topo.numa_os_index(v));
      if (std::binary_search(k.allowed.begin(), k.allowed.end(), os)) map[v] = os;
    }
  }
  return map;
}

// The size of a transparent huge page (PMD size), 2 MiB when sysfs does not say.
std::size_t huge_page_size() {
  static const std::size_t size = [] {
    std::size_t bytes = 0;
    std::ifstream("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") >> bytes;
    return bytes > 0 && (bytes & (bytes - 1)) == 0 ? bytes : std::size_t{2} << 20;
  }();
  return size;
}

// Fresh pages, never touched. Where no page can have a home other than the
// one node (huge_pages_here), huge-page aligned and asking for transparent
// huge pages; elsewhere asking for none, because page homes are tracked,
// first-touched and moved per base page (page_homes.hpp) and a huge page
// would make 512 of them land and move together (interleave would go 2 MiB
// at a time). Both requests are best effort: the kernel's THP setting has the
// last word, and the data is right either way.
void* map_fresh(std::size_t len) {
  const bool huge = huge_pages_here();
  const std::size_t align = huge && len >= huge_page_size() ? huge_page_size() : 0;
  const std::size_t mapped = len + align;  // room to slide to an aligned start
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw error(fmt::format("numa::allocate: cannot map {} bytes: {}", len, std::strerror(errno)));
  char* begin = static_cast<char*>(p);
  if (align > 0) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::size_t head = (align - at % align) % align;
    if (head > 0) ::munmap(p, head);
    begin += head;
    if (const std::size_t tail = align - head; tail > 0) ::munmap(begin + len, tail);
  }
  (void)::madvise(begin, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return begin;
}

std::string join(const std::vector<int>& v) {
  std::string out;
  for (int x : v) {
    if (!out.empty()) out += ',';
    out += std::to_string(x);
  }
  return out;
}

// Where the kernel put the (just written) page at `p`: its index in `nodes`, or -1.
int observed_index(void* p, const std::vector<int>& nodes) {
  *static_cast<volatile char*>(p) = 0;
  int status = -1;
  void* pages[1] = {p};
  if (numa_move_pages(0, 1, pages, nullptr, &status, 0) != 0 || status < 0) return -1;
  auto it = std::find(nodes.begin(), nodes.end(), status);
  return it == nodes.end() ? -1 : static_cast<int>(it - nodes.begin());
}

// Interleave with the kernel so that page p of the region lands on map[p % N].
// The kernel sends page i of an interleaved mapping to mask node
// (offset(i) % N), where the offset's origin is the mapping's page offset:
// in theory its address in pages, in practice not always (kernel 6.1 differs).
// So we do not predict it: we map N spare pages in front, fault the first one
// in, see where it went, start the region at the spare page that puts region
// page 0 on map[0], and unmap the spares. Needs `map` ascending (mask order).
kernel_layout interleave(std::size_t len, std::size_t ps, const std::vector<int>& map) {
  const std::size_t n = map.size(), spare = n > 1 ? n : 0;
  char* base = static_cast<char*>(map_fresh(len + spare * ps));
  kernel_layout out;
  out.begin = base;
  int err = mbind_nodes(base, len + spare * ps, MPOL_INTERLEAVE, map);
  std::size_t skip = spare ? 1 : 0;  // never hand out the probe page
  if (err) {
    out.note = fmt::format("mbind failed ({}); pages go where they are first touched", std::strerror(err));
  } else if (int first = spare ? observed_index(base, map) : 0; first < 0) {
    out.note = "interleaved by the kernel, but where it starts could not be observed; node_of may be off";
  } else {
    if (spare) {
      std::size_t s = (n - static_cast<std::size_t>(first)) % n;
      skip = s ? s : n;  // region page 0 lands on map[(first + skip) % n] == map[0]
    }
    out.placed = true;
    out.bound = map;
    out.note = fmt::format("interleaved over kernel node{} {}", n == 1 ? "" : "s", join(map));
  }
  out.begin = base + skip * ps;
  if (skip) ::munmap(base, skip * ps);
  if (std::size_t tail = spare - skip) ::munmap(static_cast<char*>(out.begin) + len, tail * ps);
  return out;
}

}  // namespace

// Our own mask, because numa_tonode_memory/numa_interleave_memory report
// failure only by printing to stderr.
int mbind_nodes(void* addr, std::size_t len, int mode, const std::vector<int>& nodes, unsigned flags) {
  const std::size_t bits = sizeof(unsigned long) * 8;
  std::vector<unsigned long> mask(static_cast<std::size_t>(kernel().max_node) / bits + 1, 0);
  for (int n : nodes) mask[static_cast<std::size_t>(n) / bits] |= 1ul << (static_cast<std::size_t>(n) % bits);
  // The kernel reads maxnode - 1 bits (libnuma passes size + 1 the same way).
  return mbind(addr, len, mode, mask.data(), mask.size() * bits + 1, flags) == 0 ? 0 : errno;
}

namespace {

kernel_layout place(std::size_t pages, std::size_t page_size, std::size_t block_pages, placement p,
                    const topology& topo) {
  const std::size_t len = pages * page_size;
  const std::vector<int> map = kernel_map(topo);
  const bool mapped = std::none_of(map.begin(), map.end(), [](int k) { return k < 0; });
  const bool ascending =
      std::is_sorted(map.begin(), map.end()) && std::adjacent_find(map.begin(), map.end()) == map.end();

  auto intent_only = [&](std::string why) {
    kernel_layout out;
    out.begin = map_fresh(len);
    out.note = std::move(why);
    out.bound.assign(map.size(), -1);
    return out;
  };
  if (p.kind == placement_kind::first_touch)
    return intent_only("first touch: each page goes where it is first written");
  if (!kernel().available) return intent_only("libnuma: NUMA is not available here; placement recorded, not applied");
  if (!mapped)
    return intent_only("a node of the topology is not usable by this process; placement recorded, not applied");

  if (p.kind == placement_kind::interleaved) {
    if (topo.is_synthetic()) return intent_only("synthetic topology: interleave recorded, not applied");
    if (!ascending)
      return intent_only("kernel node order differs from the topology's: interleave recorded, not applied");
    kernel_layout out = interleave(len, page_size, map);
    if (!out.placed) out.bound.assign(map.size(), -1);
    return out;
  }

  // on_node: one binding; block_cyclic: one per block (block b on virtual node b).
  kernel_layout out;
  out.begin = map_fresh(len);
  out.bound.assign(map.size(), -1);
  int err = 0;
  const char* what = "bound to";
  if (p.kind == placement_kind::on_node) {
    err = mbind_nodes(out.begin, len, MPOL_BIND, {map[p.node]});
    out.bound[p.node] = map[p.node];
  } else {
    what = "blocks bound to";
    for (std::size_t b = 0; !err && b * block_pages < pages; ++b) {
      std::size_t first = b * block_pages, count = std::min(block_pages, pages - first);
      err = mbind_nodes(static_cast<char*>(out.begin) + first * page_size, count * page_size, MPOL_BIND, {map[b]});
      out.bound[b] = map[b];
    }
  }
  if (err) {
    out.note = fmt::format("mbind failed ({}); pages go where they are first touched", std::strerror(err));
    out.bound.assign(map.size(), -1);
    return out;
  }
  std::vector<int> used;
  for (int k : out.bound)
    if (k >= 0) used.push_back(k);
  // A synthetic topology is still bound (round-robin onto the kernel's nodes)
  // but its virtual layout is not what the kernel realises.
  out.placed = !topo.is_synthetic();
  out.note =
      fmt::format("{}{} kernel node{} {}", topo.is_synthetic() ? "synthetic topology (virtual layout kept): " : "",
                  what, used.size() == 1 ? "" : "s", join(used));
  return out;
}

}  // namespace

kernel_layout map_placed(std::size_t pages, std::size_t page_size, std::size_t block_pages, placement p,
                         const topology& topo) {
  kernel_layout out = place(pages, page_size, block_pages, p, topo);
  out.huge_pages = huge_pages_here();
  return out;
}

}  // namespace cws::numa::detail
