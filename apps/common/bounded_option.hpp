#pragma once
// The form of most of the apps' own options: a value CLI11 checks (a number
// that must lie in a range, a name out of a set; it refuses anything else
// with its validation error) and whose default --help shows.
//
//   cws_apps::add_bounded_option(app, "--mb", mib, "Size of each array in MiB", std::size_t{1}, std::size_t{1} << 16);
//   cws_apps::add_checked_option(app, "--init", init, "serial or blocks", CLI::IsMember({"serial", "blocks"}));

#include <CLI/CLI.hpp>
#include <string>

namespace cws_apps {

template <class T>
CLI::Option* add_checked_option(CLI::App& app, const std::string& name, T& value, const std::string& help,
                                const CLI::Validator& check) {
  return app.add_option(name, value, help)->check(check)->capture_default_str();
}

template <class T>
CLI::Option* add_bounded_option(CLI::App& app, const std::string& name, T& value, const std::string& help,
                                const T& lowest, const T& highest) {
  return add_checked_option(app, name, value, help, CLI::Range(lowest, highest));
}

}  // namespace cws_apps
