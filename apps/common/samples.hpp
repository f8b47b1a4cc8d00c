#pragma once
// Seconds of repeated executions of one thing, and their median and minimum
// (defined in timing.cpp, with the timing loop that fills them).

#include <cstddef>
#include <vector>

namespace cws_apps {

class samples {
 public:
  void add(double s) { values_.push_back(s); }
  std::size_t size() const noexcept { return values_.size(); }
  const std::vector<double>& values() const noexcept { return values_; }
  double median() const;  // mean of the two middle values for an even count; 0 when empty
  double min() const;     // 0 when empty

 private:
  std::vector<double> values_;
};

}  // namespace cws_apps
