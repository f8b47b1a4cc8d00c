#include "cws/platform/page_homes_cache.hpp"

#include <bit>

namespace cws::detail {

cached_page_homes::cached_page_homes(std::unique_ptr<numa::page_homes> kernel)
    : inner_(std::move(kernel)),
      page_size_(inner_->page_size()),
      page_shift_(static_cast<unsigned>(std::countr_zero(page_size_))) {}

std::int16_t* cached_page_homes::slot(std::uintptr_t page, bool create) {
  const std::uintptr_t index = page >> page_shift_;
  const std::uintptr_t key = index / chunk_pages;
  auto it = chunks_.find(key);
  if (it == chunks_.end()) {
    if (!create) return nullptr;
    auto fresh = std::make_unique<chunk>();
    fresh->fill(static_cast<std::int16_t>(unknown_home));
    it = chunks_.emplace(key, std::move(fresh)).first;
  }
  return &(*it->second)[index % chunk_pages];
}

void cached_page_homes::query(std::span<const std::uintptr_t> pages, std::span<int> homes) {
  if (++queries_ % refresh_queries == 0) chunks_.clear();  // see what moved behind our back
  misses_.clear();
  miss_index_.clear();
  for (std::size_t i = 0; i < pages.size(); ++i) {
    const std::int16_t* s = slot(pages[i], false);
    if (s != nullptr && *s != unknown_home) {
      homes[i] = *s;
    } else {
      misses_.push_back(pages[i]);
      miss_index_.push_back(i);
    }
  }
  last_kernel_pages_ = misses_.size();
  if (misses_.empty()) return;
  miss_homes_.assign(misses_.size(), unknown_home);
  inner_->query(misses_, miss_homes_);
  for (std::size_t m = 0; m < misses_.size(); ++m) {
    homes[miss_index_[m]] = miss_homes_[m];
    if (miss_homes_[m] != unknown_home) *slot(misses_[m], true) = static_cast<std::int16_t>(miss_homes_[m]);
  }
}

void cached_page_homes::requery(std::span<const std::uintptr_t> pages, std::span<int> homes) {
  for (std::uintptr_t p : pages)
    if (std::int16_t* s = slot(p, false)) *s = static_cast<std::int16_t>(unknown_home);
  query(pages, homes);
}

numa::move_outcome cached_page_homes::move(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes) {
  // Forget them first: a move that fails halfway leaves them wherever the kernel says.
  for (std::uintptr_t p : pages)
    if (std::int16_t* s = slot(p, false)) *s = static_cast<std::int16_t>(unknown_home);
  return inner_->move(pages, nodes);
}

}  // namespace cws::detail
