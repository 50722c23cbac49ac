// rsm_cli: remote/storage's RemoteStorageManager from a shell, for the
// tests against real S3 servers (tests/integration/test_remote_storage.py):
// one operation per run, one JSON object per line on stdout. Also writes a
// real segment with log/'s storage::Log to copy. Single-threaded except
// copy-parallel.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "remote/storage/remote_storage.h"

namespace skiff::tools::rsmcli {

// Options: "--name value" pairs (flags have the value "1"), then the command.
struct Args {
  std::string command;
  std::map<std::string, std::string> opts;
  std::string get(const std::string& name, const std::string& fallback = {}) const;
  uint64_t number(const std::string& name, uint64_t fallback) const;  // throws std::invalid_argument
  bool has(const std::string& name) const { return opts.count(name) != 0; }
};

// The exit status: 0 done, 3 a storage error (printed as {"error": ...}), 2 usage.
int run_command(remote::RemoteStorageManager& rsm, const Args& args);
// write-segment: a log of about --mib MiB in --dir with storage::Log (plain
// and transactional batches, aborted transactions), rolled and closed; prints
// its first segment's files.
int write_segment(const Args& args);

std::string json_line(const std::string& key, const std::string& value);
int print_error(const remote::RemoteStorageError& e);

}  // namespace skiff::tools::rsmcli
