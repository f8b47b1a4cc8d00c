#pragma once
// Settings that a component above the core keeps in a runtime_config without
// the core knowing their type: cws::schedulers keeps its knobs here
// (cws/schedulers/knobs.hpp), so that they travel with the config a runtime
// is created from and are in force from its first phase.
//
// One value per type. The component owns the type and gives its users typed
// access (e.g. cws::schedulers::knobs_of(cfg)); the core only copies the
// values along with the config.

#include <any>
#include <typeindex>
#include <utility>
#include <vector>

namespace cws {

class extension_settings {
 public:
  // The value of type T, created default-constructed on first use.
  template <class T>
  T& get() {
    if (T* found = lookup<T>()) return *found;
    slots_.emplace_back(std::type_index(typeid(T)), T{});
    return *std::any_cast<T>(&slots_.back().second);
  }

  // The value of type T, or nullptr when nobody set one.
  template <class T>
  const T* find() const noexcept {
    for (const auto& [type, value] : slots_)
      if (type == std::type_index(typeid(T))) return std::any_cast<T>(&value);
    return nullptr;
  }

 private:
  template <class T>
  T* lookup() noexcept {
    return const_cast<T*>(std::as_const(*this).find<T>());
  }

  std::vector<std::pair<std::type_index, std::any>> slots_;  // a handful at most: a scan is the fastest lookup
};

}  // namespace cws
