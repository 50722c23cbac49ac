// rsm_cli: remote/storage's RemoteStorageManager from a shell.
//
//   rsm_cli write-segment --dir D [--mib N]
//   rsm_cli --endpoint URL --bucket B [--path-style] [--region R]
//           [--access-key K --secret-key S] [--prefix P] [--part-size N]
//           [--threshold N] [--max-attempts N] [--connect-timeout-ms N]
//           [--io-timeout-ms N] COMMAND [SEGMENT] [ARGS]
//   SEGMENT: --segment-id UUID [--topic T] [--topic-id UUID] [--partition N]
//            [--start N] [--end N]
//   COMMAND: check-bucket | copy --log F --offset-index F --time-index F
//            [--txn-index F] [--snapshot F] [--epochs TEXT] | copy-parallel
//            (as copy) [--threads N] | fetch --start-position N
//            [--end-position N] --out F | fetch-index --type T --out F |
//            manifest | delete | abort-stale --older-than SECONDS | cut-upload
//            | create-bucket | put-raw --kind log|indexes|manifest --file F
//            | head --kind log|indexes|manifest
// Output: JSON lines; exit 0, 3 on a storage error, 2 on usage.
#include <iostream>

#include "remote/s3/credentials.h"
#include "tools/rsm_cli/rsm_cli.h"

using namespace skiff;
using namespace skiff::tools::rsmcli;

namespace {

int usage() {
  std::cerr << "usage: rsm_cli write-segment --dir D [--mib N]\n"
               "       rsm_cli --endpoint URL --bucket B [--path-style] [options] COMMAND [args]\n"
               "(see tools/rsm_cli/main.cc)\n";
  return 2;
}

remote::RemoteStorageConfig config_of(const Args& a) {
  remote::RemoteStorageConfig c;
  c.s3.endpoint_url = a.get("--endpoint");
  c.s3.bucket = a.get("--bucket");
  c.s3.region = a.get("--region", "us-east-1");
  c.s3.path_style = a.has("--path-style");
  if (auto creds = remote::s3::resolve_credentials(a.get("--access-key"), a.get("--secret-key")))
    c.s3.credentials = *creds;
  c.s3.retry.max_attempts = static_cast<int>(a.number("--max-attempts", 5));
  c.s3.http.connect_timeout = std::chrono::milliseconds(a.number("--connect-timeout-ms", 5000));
  c.s3.http.io_timeout = std::chrono::milliseconds(a.number("--io-timeout-ms", 30000));
  c.key_prefix = a.get("--prefix");
  c.part_size = a.number("--part-size", c.part_size);
  c.multipart_threshold = a.number("--threshold", c.multipart_threshold);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (!a.starts_with("--")) {
      if (!args.command.empty()) return usage();
      args.command = a;
    } else if (a == "--path-style") {
      args.opts[a] = "1";
    } else if (i + 1 < argc) {
      args.opts[a] = argv[++i];
    } else {
      return usage();
    }
  }
  if (args.command.empty()) return usage();
  try {
    if (args.command == "write-segment") return write_segment(args);
    remote::RemoteStorageManager rsm(config_of(args));
    return run_command(rsm, args);
  } catch (const std::exception& e) {  // bad numbers or ids in the arguments
    std::cerr << "rsm_cli: " << e.what() << "\n";
    return 2;
  }
}
