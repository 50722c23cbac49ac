// BrokerProcess: runs the real `skiff` binary for end-to-end tests, on a
// free port with a fresh data dir, and captures what it prints.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace skiff::test {

struct ProcessResult {
  int exit_code = -1;  // -1: killed by a signal or not finished
  std::string output;  // stdout and stderr together
};

// Runs skiff with `args` to completion (bounded by `timeout`).
ProcessResult run_skiff(const std::vector<std::string>& args,
                        std::chrono::milliseconds timeout = std::chrono::seconds(20));

class BrokerProcess {
 public:
  // Starts skiff on 127.0.0.1:0 with a new data dir plus `extra_args`, and
  // waits for its startup line. Throws std::runtime_error if it does not start.
  explicit BrokerProcess(std::vector<std::string> extra_args = {}, std::filesystem::path data_dir = {});
  ~BrokerProcess();

  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::filesystem::path& data_dir() const { return data_dir_; }
  std::string output();  // everything printed so far

  // Sends `signal` and waits for exit; the exit code, -1 if killed by a
  // signal, -2 if it had to be killed after `timeout`.
  int stop(int signal, std::chrono::milliseconds timeout = std::chrono::seconds(20));

 private:
  void drain_output();
  void cleanup_files();

  pid_t pid_ = -1;
  int out_fd_ = -1;
  uint16_t port_ = 0;
  std::filesystem::path data_dir_;
  std::filesystem::path log_path_;
  bool own_data_dir_ = false;
  std::string output_;
};

}  // namespace skiff::test
