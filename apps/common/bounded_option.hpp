#pragma once
// The form of most of the apps' own options: a number that must lie in a
// range (CLI11 refuses anything else with its validation error) and whose
// default --help shows.
//
//   cws_apps::add_bounded_option(app, "--mb", mib, "Size of each array in MiB", std::size_t{1}, std::size_t{1} << 16);

#include <CLI/CLI.hpp>
#include <string>

namespace cws_apps {

template <class T>
CLI::Option* add_bounded_option(CLI::App& app, const std::string& name, T& value, const std::string& help,
                                const T& lowest, const T& highest) {
  return app.add_option(name, value, help)->check(CLI::Range(lowest, highest))->capture_default_str();
}

}  // namespace cws_apps
