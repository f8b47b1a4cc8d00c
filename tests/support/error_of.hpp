#pragma once
// error_of(f): the message of the cws::error that f throws, and a test
// failure (plus "") when it throws none.

#include <gtest/gtest.h>

#include <string>

#include "cws/error.hpp"

namespace cws::test {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cws::error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no cws::error thrown";
  return {};
}

}  // namespace cws::test
