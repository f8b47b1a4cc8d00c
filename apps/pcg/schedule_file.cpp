#include "pcg/schedule_file.hpp"

#include <fmt/format.h>

#include <cws/traces/safe_file.hpp>
#include <cws/traces/trace_file.hpp>
#include <filesystem>
#include <set>

namespace pcg {

namespace {

constexpr std::string_view prefix = "pcg/";

// The key of a schedule name of ours ("" when it is not one).
std::string key_of(const std::string& name) {
  if (name.rfind(prefix, 0) != 0) return {};
  const auto hash = name.find('#');
  return hash == std::string::npos ? std::string{} : name.substr(hash + 1);
}

}  // namespace

std::string schedule_name(const std::string& variant, const std::string& kernel, const std::string& key) {
  return fmt::format("{}{}/{}#{}", prefix, variant, kernel, key);
}

schedule_file_status load_schedule_file(cws::runtime& rt, const std::string& path, const std::string& key,
                                        bool strict) {
  schedule_file_status st;
  std::error_code ec;
  st.exists = std::filesystem::exists(path, ec);
  if (!st.exists) {
    st.message = fmt::format("schedules: {} does not exist yet: learning, saved at the end", path);
    return st;
  }
  const auto reject = [&](const std::string& why) {
    if (strict) throw cws::error(fmt::format("{}: {}", path, why));
    st.message = fmt::format("schedules: {}: {}; ignored, learning from scratch", path, why);
    return st;
  };
  cws::traces::trace_file f;
  try {
    f = cws::traces::read(path);
  } catch (const cws::error& e) {
    // read() names the file itself: "x.cwst: checksum mismatch (file damaged)".
    return reject(fmt::format("unusable ({})", e.what()));
  }
  if (f.header.options.workers != rt.workers())
    return reject(fmt::format("recorded with {} workers, this run has {}", f.header.options.workers, rt.workers()));
  std::set<std::string> ours;  // schedules of this key
  std::set<std::string> other_keys;
  for (const auto& r : f.phases) {
    const std::string k = key_of(r.schedule);
    if (k == key) {
      ours.insert(r.schedule);
    } else if (!k.empty()) {
      other_keys.insert(k);
    }
  }
  if (ours.empty()) {
    if (other_keys.empty()) return reject("holds no cws-pcg schedule");
    return reject(fmt::format("made for another problem ({}; this run: {})", *other_keys.begin(), key));
  }
  // Seeds every schedule of the file by name (validated above, same worker
  // count); the settled ones start converged, so evolve replays them from iteration 0.
  cws::traces::load_options options;
  options.converged = true;
  const cws::traces::load_summary loaded = cws::traces::load_traces(rt, path, options);
  st.seeded = ours.size();
  st.evolve_stows = loaded.converged;
  st.loaded = true;
  st.message =
      fmt::format("schedules: {} schedule(s) of {} loaded from {} ({} start converged: evolve replays them under stows)",
                  st.seeded, key, path, st.evolve_stows);
  return st;
}

void check_schedule_file_path(const std::string& path) { cws::traces::check_output_path(path); }

void save_schedule_file(const cws::runtime& rt, const std::string& path) { rt.save_traces(path); }

}  // namespace pcg
