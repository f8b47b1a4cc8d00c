// The kernel page-home backend (page_homes.hpp): real homes from
// move_pages(2) queries, moves with move_pages and/or mbind(MPOL_MF_MOVE).
// Node numbers cross this interface as the topology's logical nodes and are
// translated to kernel numbers (topology::numa_os_index) at the syscall.

#include <fmt/format.h>
#include <numa.h>
#include <numaif.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

#include "cws/error.hpp"
#include "cws/locality.hpp"
#include "cws/page_homes.hpp"
#include "cws/topology.hpp"
#include "numa_kernel.hpp"

namespace cws::numa {
namespace {

// Pages per move_pages call: bounds the buffers; the kernel walks long
// arrays in chunks of its own anyway, so larger batches gain nothing.
constexpr std::size_t batch_pages = 4096;

// Which mover is faster, measured with cws-pagemove (apps/pagemove) in
// numa-vm: 2 nodes, TCG on a 2-core host, 32 MiB = 8192 pages of 4 KiB, every
// other run of L pages to node 1 and back, the movers taking turns; GB/s of
// moved bytes, median of 5 (memcpy node 0 -> 1: 1.54):
//   L           1      4      16     64     256    all(8192)
//   move_pages  0.156  0.155  0.163  0.159  0.242  0.245
//   mbind       0.046  0.083  0.130  0.143  0.228  0.226
// mbind pays a call (and up to two VMA splits) per run: 3.4x slower than
// move_pages for single pages, 1.9x for runs of 4, and it never won, not even
// for the whole array in one run (an earlier series of best-of-9 runs agreed).
// So page_mover::automatic moves with move_pages; CWS_PAGE_MOVER=mbind
// forces mbind (which also rebinds each run's policy to its new node). On
// real hardware, rerun cws-pagemove.

// move_pages' status for a page it has not reached (see flush).
constexpr int not_reported = INT_MIN;

class kernel_page_homes final : public page_homes {
 public:
  kernel_page_homes(const topology& topo, page_mover mover)
      : mover_(mover), page_size_(static_cast<std::size_t>(::sysconf(_SC_PAGESIZE))) {
    if (topo.is_synthetic())
      throw error(fmt::format("kernel page homes: the topology is synthetic ({}), its nodes are not the kernel's",
                              topo.source()));
    if (::numa_available() < 0) throw error("kernel page homes: the kernel has no NUMA support (numa_available < 0)");
    probe();
    int top = ::numa_max_node();
    for (unsigned v = 0; v < topo.numa_nodes(); ++v) top = std::max(top, static_cast<int>(topo.numa_os_index(v)));
    logical_of_.assign(static_cast<std::size_t>(top) + 1, unknown_home);
    for (unsigned v = 0; v < topo.numa_nodes(); ++v) {
      os_of_.push_back(static_cast<int>(topo.numa_os_index(v)));
      logical_of_[topo.numa_os_index(v)] = static_cast<int>(v);
    }
  }

  std::string name() const override { return fmt::format("kernel ({})", to_string(mover_)); }
  std::size_t page_size() const noexcept override { return page_size_; }

  void query(std::span<const std::uintptr_t> pages, std::span<int> homes) override {
    check_sizes("query", pages.size(), homes.size());
    for (std::size_t i = 0; i < pages.size(); i += batch_pages) {
      std::size_t n = std::min(batch_pages, pages.size() - i);
      query_kernel(pages.subspan(i, n));
      for (std::size_t k = 0; k < n; ++k) homes[i + k] = logical(status_[k]);
    }
  }

  // The kernel placed each page at its first write; nothing to record, and
  // pages not faulted in yet keep their unknown home.
  void first_touch(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes,
                   std::span<int> homes) override {
    check_sizes("first_touch", pages.size(), nodes.size());
    check_sizes("first_touch", pages.size(), homes.size());
  }

  move_outcome move(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes) override {
    check_sizes("move", pages.size(), nodes.size());
    for (unsigned v : nodes)
      if (v >= os_of_.size())
        throw error(fmt::format("kernel page homes: move to node {}, the topology has {}", v, os_of_.size()));
    move_outcome out;
    pending_.clear();
    pending_nodes_.clear();
    for (std::size_t i = 0, j = 0; i < pages.size(); i = j) {
      // [i, j): consecutive pages with one target node.
      for (j = i + 1; j < pages.size() && nodes[j] == nodes[i] && pages[j] == pages[j - 1] + page_size_;) ++j;
      if (mover_ == page_mover::mbind && move_run(pages.subspan(i, j - i), nodes[i], out)) continue;
      for (std::size_t k = i; k < j; ++k) {
        pending_.push_back(pages[k]);
        pending_nodes_.push_back(os_of_[nodes[k]]);
        if (pending_.size() == batch_pages) flush(out);
      }
    }
    flush(out);
    return out;
  }

 private:
  // Fails loudly here rather than at the first relocalization when the kernel
  // has no move_pages or forbids it (e.g. a seccomp profile).
  void probe() {
    static const char here = 0;
    void* page = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(&here) & ~(page_size_ - 1));
    int status = 0;
    if (::numa_move_pages(0, 1, &page, nullptr, &status, 0) != 0)
      throw error(fmt::format("kernel page homes: move_pages cannot query page homes here: {}", std::strerror(errno)));
  }

  static void check_sizes(const char* what, std::size_t a, std::size_t b) {
    if (a != b) throw error(fmt::format("kernel page homes: {} got {} pages but {} nodes/homes", what, a, b));
  }

  int logical(int status) const noexcept {
    // Negative: -ENOENT (not faulted in), -EFAULT (zero page, unmapped), ...
    // A node outside the topology (memory-only) is no worker's, so no home either.
    if (status < 0 || static_cast<std::size_t>(status) >= logical_of_.size()) return unknown_home;
    return logical_of_[static_cast<std::size_t>(status)];
  }

  // status_[k] = kernel node of pages[k] (or -errno), pages.size() <= batch_pages.
  void query_kernel(std::span<const std::uintptr_t> pages) {
    addrs_.resize(pages.size());
    status_.assign(pages.size(), not_reported);
    for (std::size_t k = 0; k < pages.size(); ++k) addrs_[k] = reinterpret_cast<void*>(pages[k]);
    if (::numa_move_pages(0, pages.size(), addrs_.data(), nullptr, status_.data(), 0) != 0)
      throw error(fmt::format("kernel page homes: move_pages query of {} pages failed: {}", pages.size(),
                              std::strerror(errno)));
  }

  // move_pages on the pending pages. The call may stop early (it returns the
  // number of pages not migrated, or -1 for a node it may not use) and leave
  // later statuses unwritten, so every page not reported on its target is
  // asked again: where it is now decides moved or failed.
  void flush(move_outcome& out) {
    if (pending_.empty()) return;
    const std::size_t n = pending_.size();
    addrs_.resize(n);
    status_.assign(n, not_reported);
    for (std::size_t k = 0; k < n; ++k) addrs_[k] = reinterpret_cast<void*>(pending_[k]);
    if (::numa_move_pages(0, n, addrs_.data(), pending_nodes_.data(), status_.data(), MPOL_MF_MOVE) < 0 &&
        (errno == EPERM || errno == ENOSYS || errno == EINVAL || errno == E2BIG))
      throw error(fmt::format("kernel page homes: move_pages of {} pages failed: {}", n, std::strerror(errno)));
    recount_.clear();
    recount_nodes_.clear();
    for (std::size_t k = 0; k < n; ++k) {
      if (status_[k] == pending_nodes_[k]) {
        ++out.moved;
      } else if (status_[k] < 0 && status_[k] != not_reported) {
        ++out.failed;  // the kernel's answer for this page: -EBUSY, -ENOMEM, -EFAULT, ...
      } else {
        recount_.push_back(pending_[k]);
        recount_nodes_.push_back(pending_nodes_[k]);
      }
    }
    pending_.clear();
    pending_nodes_.clear();
    count_where(recount_, recount_nodes_, out);
  }

  // Adds to out.moved the pages now on their target kernel node, the others to out.failed.
  void count_where(std::span<const std::uintptr_t> pages, std::span<const int> targets, move_outcome& out) {
    for (std::size_t i = 0; i < pages.size(); i += batch_pages) {
      std::size_t n = std::min(batch_pages, pages.size() - i);
      query_kernel(pages.subspan(i, n));
      for (std::size_t k = 0; k < n; ++k) ++(status_[k] == targets[i + k] ? out.moved : out.failed);
    }
  }

  // One mbind(MPOL_BIND, MPOL_MF_MOVE) over a run of consecutive pages. Note
  // that this also rebinds the range's memory policy to that node: pages of
  // the range faulted in later (e.g. after MADV_DONTNEED, or memory a malloc
  // hands out again) are allocated there too, strictly. For a cws::numa
  // region that replaces its placement's policy with the page's new home.
  // mbind does not say which pages it could not move, so they are counted by
  // asking where they are. Returns false, having moved nothing, when mbind
  // refuses the range (e.g. ENOMEM at the VMA limit, EFAULT for a hole):
  // the caller then moves the run's pages with move_pages.
  bool move_run(std::span<const std::uintptr_t> run, unsigned node, move_outcome& out) {
    const int os = os_of_[node];
    void* addr = reinterpret_cast<void*>(run.front());
    if (detail::mbind_nodes(addr, run.size() * page_size_, MPOL_BIND, {os}, MPOL_MF_MOVE) != 0) return false;
    run_nodes_.assign(run.size(), os);
    count_where(run, run_nodes_, out);
    return true;
  }

  page_mover mover_;
  std::size_t page_size_;
  std::vector<int> os_of_;       // kernel node of each logical node
  std::vector<int> logical_of_;  // logical node of each kernel node, unknown_home where none
  // Reused buffers (the backend is used from one thread at a time).
  std::vector<void*> addrs_;
  std::vector<int> status_;
  std::vector<std::uintptr_t> pending_, recount_;
  std::vector<int> pending_nodes_, recount_nodes_, run_nodes_;
};

}  // namespace

std::unique_ptr<page_homes> make_kernel_page_homes(const topology& topo, page_mover mover) {
  return std::make_unique<kernel_page_homes>(topo, mover);
}

}  // namespace cws::numa
