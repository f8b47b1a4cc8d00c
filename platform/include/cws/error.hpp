#pragma once
// cws::error — the one exception type the runtime throws for misuse and bad
// configuration. Its message is a single line that names what was wrong.

#include <stdexcept>
#include <string>

namespace cws {

class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cws
