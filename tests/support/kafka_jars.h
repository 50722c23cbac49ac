// Running Apache Kafka's own tools from C++ tests: a shell command's output
// and exit status, whether java and Kafka's jars are here (a test case skips
// without them, and fails without them under CI=true: skip.h), and the
// directory of Kafka's jars (scripts/fetch_kafka_jars.sh; needs
// SKIFF_SOURCE_DIR defined by the test's CMake target). Header-only; for test
// binaries that link Catch2.
// Threads: call from the test's thread.
#pragma once

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/support/skip.h"

namespace skiff::test {

// Runs `cmd` under sh with stderr folded into the returned output.
inline std::string run(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    *status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *status = pclose(p);
  return out;
}

inline bool have_java() { return std::system("command -v java >/dev/null 2>&1") == 0; }

// What scripts/fetch_kafka_jars.sh did: its exit status, its stdout, and
// the jar directory (its last line).
struct KafkaJars {
  int status = 0;
  std::string out;
  std::string dir;
};

// Runs the fetch once per test process (it is a no-op once the jars are
// cached). Only the script's stdout is parsed (its stderr goes to the
// test's): when it downloads, Maven ends its stderr with colour resets and no
// newline, which run()'s 2>&1 would glue to the front of the directory's line.
inline const KafkaJars& fetched_kafka_jars() {
  static const KafkaJars jars = [] {
    KafkaJars j;
    j.out = run(std::string("{ bash ") + SKIFF_SOURCE_DIR + "/scripts/fetch_kafka_jars.sh 2>&3; } 3>&2", &j.status);
    std::string out = j.out;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    auto nl = out.rfind('\n');
    j.dir = nl == std::string::npos ? out : out.substr(nl + 1);
    return j;
  }();
  return jars;
}

// Whether Kafka's tools can run here: java on PATH and Kafka's jars fetched.
// When not, the test case skips (skip.h), or fails under CI=true, where CI
// installs java and fetches the jars; the caller returns on false.
inline bool kafka_tools_available() {
  if (!have_java()) {
    skip_or_fail_in_ci("java is not on PATH (Kafka's tools need it)");
    return false;
  }
  const auto& jars = fetched_kafka_jars();
  if (jars.status != 0) {
    INFO(jars.out);
    const int code = WIFEXITED(jars.status) ? WEXITSTATUS(jars.status) : jars.status;
    skip_or_fail_in_ci("scripts/fetch_kafka_jars.sh could not fetch Kafka's jars (exit status " + std::to_string(code) +
                       ")");
    return false;
  }
  return true;
}

// The jar directory; the fetch must have worked (check kafka_tools_available
// first).
inline std::string kafka_jar_dir() {
  const auto& jars = fetched_kafka_jars();
  INFO(jars.out);
  REQUIRE(jars.status == 0);
  return jars.dir;
}

}  // namespace skiff::test
