#include "cws/extension.hpp"

#include <atomic>
#include <mutex>

namespace cws {

namespace {
struct registry {
  std::mutex mutex;
  std::vector<std::pair<std::string, extension_registry::factory>> factories;  // registration order
};
registry& instance() {
  static registry r;
  return r;
}
std::atomic<trace_io*> installed_io{nullptr};
}  // namespace

bool extension_registry::add(std::string name, factory make) {
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  for (const auto& [n, f] : r.factories)
    if (n == name) return true;
  r.factories.emplace_back(std::move(name), std::move(make));
  return true;
}

std::vector<std::string> extension_registry::names() {
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [n, f] : r.factories) out.push_back(n);
  return out;
}

std::vector<std::pair<std::string, std::unique_ptr<runtime_extension>>> extension_registry::instantiate(runtime& rt) {
  std::vector<std::pair<std::string, factory>> factories;
  {
    registry& r = instance();
    std::lock_guard lock(r.mutex);
    factories = r.factories;
  }
  std::vector<std::pair<std::string, std::unique_ptr<runtime_extension>>> out;
  for (auto& [name, make] : factories)
    if (auto ext = make(rt)) out.emplace_back(name, std::move(ext));
  return out;
}

bool trace_io::install(trace_io* io) {
  installed_io.store(io, std::memory_order_release);
  return true;
}
trace_io* trace_io::installed() noexcept { return installed_io.load(std::memory_order_acquire); }

}  // namespace cws
