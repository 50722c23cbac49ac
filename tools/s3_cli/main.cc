// s3_cli: remote/s3's S3 client from a shell.
//
//   s3_cli --endpoint URL --bucket B [--region R] [--path-style]
//          [--access-key K --secret-key S] [--ca-file F] [--max-attempts N]
//          [--connect-timeout-ms N] [--io-timeout-ms N] COMMAND [ARGS]
//
// Without --access-key/--secret-key, AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
// / AWS_SESSION_TOKEN. Commands: see usage() below. Output: JSON lines.
#include <cstdio>
#include <cstring>
#include <iostream>

#include "tools/s3_cli/commands.h"

using namespace skiff::remote::s3;
using skiff::tools::s3cli::Args;

namespace {

int usage() {
  std::cerr << "usage: s3_cli --endpoint URL --bucket B [--region R] [--path-style] [--access-key K --secret-key S]\n"
               "  [--ca-file F] [--resolve HOST=ADDRESS] [--max-attempts N] [--connect-timeout-ms N] [--io-timeout-ms "
               "N] COMMAND ARGS\n"
               "commands: create-bucket | head-bucket | put KEY --file F | get KEY [--range A-B] [--file F]\n"
               "  | head KEY | delete KEY | delete-many KEY... | list [--prefix P] [--max-keys N]\n"
               "  | put-many PREFIX --count N | mpu-put KEY --file F [--part-size N] | mpu-create KEY\n"
               "  | mpu-upload KEY UPLOAD_ID PART_NUMBER --file F | mpu-abort KEY UPLOAD_ID | mpu-list [--prefix P]\n"
               "  | put-bad-md5 KEY | roundtrip KEY... | across-restart KEY\n";
  return 2;
}

bool take(int& i, int argc, char** argv, std::string& out) {
  if (i + 1 >= argc) return false;
  out = argv[++i];
  return true;
}

// A numeric option's value; false on an unknown option or a bad number.
bool parse_number(const std::string& a, const std::string& v, S3Config& cfg, Args& args) {
  try {
    if (a == "--max-attempts")
      cfg.retry.max_attempts = std::stoi(v);
    else if (a == "--max-keys")
      args.max_keys = std::stoi(v);
    else if (a == "--count")
      args.count = std::stoi(v);
    else if (a == "--part-size")
      args.part_size = std::stoull(v);
    else if (a == "--connect-timeout-ms")
      cfg.http.connect_timeout = std::chrono::milliseconds(std::stoi(v));
    else if (a == "--io-timeout-ms")
      cfg.http.io_timeout = std::chrono::milliseconds(std::stoi(v));
    else
      return false;
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

// One option at argv[i] (advancing i past its value); false on a bad one.
bool parse_option(int& i, int argc, char** argv, S3Config& cfg, Args& args, std::string& key, std::string& secret) {
  const std::string a = argv[i];
  std::string v;
  if (a == "--path-style") {
    cfg.path_style = true;
    return true;
  }
  if (!take(i, argc, argv, v)) return false;
  if (a == "--resolve") {  // HOST=ADDRESS
    const auto eq = v.find('=');
    if (eq == std::string::npos) return false;
    cfg.http.resolve_overrides[v.substr(0, eq)] = v.substr(eq + 1);
    return true;
  }
  std::string* text = a == "--endpoint"     ? &cfg.endpoint_url
                      : a == "--bucket"     ? &cfg.bucket
                      : a == "--region"     ? &cfg.region
                      : a == "--access-key" ? &key
                      : a == "--secret-key" ? &secret
                      : a == "--ca-file"    ? &cfg.http.ca_file
                      : a == "--prefix"     ? &args.prefix
                      : a == "--range"      ? &args.range
                      : a == "--file"       ? &args.file
                                            : nullptr;
  if (text != nullptr) {
    *text = v;
    return true;
  }
  return parse_number(a, v, cfg, args);
}

}  // namespace

int main(int argc, char** argv) {
  S3Config cfg;
  std::string key, secret, command;
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.starts_with("--")) {
      if (!parse_option(i, argc, argv, cfg, args, key, secret)) return usage();
    } else if (command.empty()) {
      command = a;
    } else {
      args.positional.push_back(a);
    }
  }
  if (command.empty()) return usage();
  auto creds = resolve_credentials(key, secret);
  if (creds) cfg.credentials = *creds;
  auto client = S3Client::create(cfg);
  if (!client) {
    skiff::tools::s3cli::print_error(client.error());
    return 3;
  }
  return skiff::tools::s3cli::run_command(**client, command, args);
}
