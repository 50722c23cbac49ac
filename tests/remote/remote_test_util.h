// What the remote/ tests share besides the in-memory store
// (memory_segment_store.h): a LogManager config over a temp dir that takes
// records of any timestamp (the tests write old ones on purpose).
#pragma once

#include "log/log_manager.h"
#include "log/test_util.h"

namespace skiff::remote::test {

inline storage::LogManagerConfig logs_config(const storage::test::TempDir& d) {
  storage::LogManagerConfig c;
  c.log_dirs.push_back(d / "logs");
  c.defaults.message_timestamp_after_max_ms = storage::LogConfig::kMaxLong;
  return c;
}

}  // namespace skiff::remote::test
