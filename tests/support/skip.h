// Skipping a C++ test that cannot run here (Catch2 2.13 has no SKIP). A test
// case calls SKIFF_SKIP(reason) or SKIFF_SKIP_OR_FAIL_IN_CI(reason) and returns:
// a line "SKIPPED: <test case>: <reason>" is printed and the skip recorded;
// tests/catch_main.cc then exits 77 (ctest's SKIP_RETURN_CODE, set on every
// test by skiff_add_test) when nothing failed, so ctest reports "Skipped", and
// a failure in another case of the same run still exits non-zero.
// SKIFF_SKIP_OR_FAIL_IN_CI is for what CI provides (java and Kafka's jars,
// root, a file system that preallocates): under CI=true it FAILs instead, so
// a missing tool in CI is a failure, not a skip.
// Header-only; call from the test case's thread.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <string>

namespace skiff::test {

// The number of test cases that skipped in this run.
inline int& skipped_test_cases() {
  static int n = 0;
  return n;
}

// Whether this is a CI run (CI=true, as GitHub Actions and most CIs set).
inline bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// Records that the current test case skips; the caller returns.
inline void skip_test(const std::string& reason) {
  ++skipped_test_cases();
  std::cout << "SKIPPED: " << Catch::getResultCapture().getCurrentTestName() << ": " << reason << std::endl;
  WARN("SKIPPED: " << reason);
}

// As skip_test, but a failure (FAIL, which ends the case) under CI=true.
inline void skip_or_fail_in_ci(const std::string& reason) {
  if (running_in_ci()) FAIL("CI=true provides this, so it is a failure, not a skip: " << reason);
  skip_test(reason);
}

}  // namespace skiff::test

// Skip the current test case (returns from it).
#define SKIFF_SKIP(reason)            \
  do {                                \
    ::skiff::test::skip_test(reason); \
    return;                           \
  } while (false)

// Skip the current test case, or fail it under CI=true (returns from it).
#define SKIFF_SKIP_OR_FAIL_IN_CI(reason)       \
  do {                                         \
    ::skiff::test::skip_or_fail_in_ci(reason); \
    return;                                    \
  } while (false)
