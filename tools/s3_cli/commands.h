// s3_cli's commands: each runs one S3 operation (or a few) with an S3Client
// and prints one JSON object per line on stdout. Single-threaded.
#pragma once

#include <string>
#include <vector>

#include "remote/s3/s3_client.h"

namespace skiff::tools::s3cli {

struct Args {
  std::vector<std::string> positional;
  std::string prefix, range, file;
  int max_keys = 0;
  size_t part_size = 5u << 20;
  int count = 0;
};

// The exit status: 0 done, 3 an S3 error (printed as {"error": ...}), 2 usage.
int run_command(remote::s3::S3Client& client, const std::string& command, const Args& args);

std::string json_string(const std::string& s);
void print_error(const remote::s3::S3Error& e);

}  // namespace skiff::tools::s3cli
