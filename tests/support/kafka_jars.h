// Running Apache Kafka's own tools from C++ tests: a shell command's output
// and exit status, whether java is here, and the directory of Kafka's jars
// (scripts/fetch_kafka_jars.sh; needs SKIFF_SOURCE_DIR defined by the test's
// CMake target). Header-only; for test binaries that link Catch2.
// Threads: call from the test's thread.
#pragma once

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

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

// The jar directory; fails the test (not a skip) when java is there but the
// jars cannot be fetched: a skip would hide a broken fresh-machine run.
// Only the script's stdout is parsed (its stderr goes to the test's): when it
// downloads, Maven ends its stderr with colour resets and no newline, which
// run()'s 2>&1 would glue to the front of the directory's line.
inline std::string kafka_jar_dir() {
  int st = 0;
  std::string out = run(std::string("{ bash ") + SKIFF_SOURCE_DIR + "/scripts/fetch_kafka_jars.sh 2>&3; } 3>&2", &st);
  INFO(out);
  REQUIRE(st == 0);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  auto nl = out.rfind('\n');
  return nl == std::string::npos ? out : out.substr(nl + 1);
}

}  // namespace skiff::test
