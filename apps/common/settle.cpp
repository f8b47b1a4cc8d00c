#include "common/settle.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

namespace cws_apps {

namespace {

// The state letter of /proc/self/task/<tid>/stat ("<tid> (<comm>) <state> ..."),
// or 0 when it cannot be read (the thread may have ended meanwhile). The
// name may hold spaces and parentheses: the state follows the last ')'.
char thread_state(const char* tid) {
  const std::string path = std::string("/proc/self/task/") + tid + "/stat";
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "re"), &std::fclose);
  if (!f) return 0;
  char line[512];
  const std::size_t n = std::fread(line, 1, sizeof line - 1, f.get());
  line[n] = '\0';
  const char* close = std::strrchr(line, ')');
  return close != nullptr && close[1] == ' ' ? close[2] : 0;
}

}  // namespace

std::optional<unsigned> other_threads_running() {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir("/proc/self/task"), &closedir);
  if (!dir) return std::nullopt;
  const long self = static_cast<long>(gettid());
  unsigned running = 0;
  while (const dirent* e = readdir(dir.get())) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9' || std::strtol(e->d_name, nullptr, 10) == self) continue;
    running += thread_state(e->d_name) == 'R';
  }
  return running;
}

bool settle(const settle_limits& limits) {
  if (!other_threads_running()) {
    std::this_thread::sleep_for(limits.give_up / 10);
    return false;
  }
  using clock = std::chrono::steady_clock;
  return settle_with([] { return other_threads_running().value_or(0); },
                     [&] {
                       const auto t0 = clock::now();
                       std::this_thread::sleep_for(limits.interval);
                       return std::chrono::duration<double>(clock::now() - t0).count();
                     },
                     limits);
}

}  // namespace cws_apps
