#pragma once
// What the kernel says about transparent huge pages, read independently of
// cws: the system's THP mode and whether the mapping holding an address may
// get huge pages (THPeligible in /proc/self/smaps, which honours the
// mapping's MADV_HUGEPAGE / MADV_NOHUGEPAGE).

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace cws::test {

// The bracketed word of /sys/kernel/mm/transparent_hugepage/enabled
// ("always", "madvise", "never"), or empty when the file is missing.
inline std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// The size of a transparent huge page (hpage_pmd_size), 2 MiB when unknown.
inline std::size_t thp_size() {
  std::size_t bytes = 0;
  std::ifstream("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") >> bytes;
  return bytes > 0 ? bytes : std::size_t{2} << 20;
}

// THPeligible (0 or 1) of the mapping that holds `p`; nullopt when smaps does
// not show it (old kernel) or no mapping holds `p`.
inline std::optional<int> thp_eligible(const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    if (std::istringstream header(line); header >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
  }
  return std::nullopt;
}

}  // namespace cws::test
