#pragma once
// Sets (or, given nullptr, unsets) an environment variable for the lifetime of
// the guard and restores its previous state: for tests of what the runtime
// reads from the environment.

#include <cstdlib>
#include <optional>
#include <string>

namespace cws::test {

class env_guard {
 public:
  env_guard(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~env_guard() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  env_guard(const env_guard&) = delete;
  env_guard& operator=(const env_guard&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace cws::test
