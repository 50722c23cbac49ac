// FakeLog: the `_schemas` RecordLog for the Schema Registry's core tests.
// Keeps every appended record (what replay would read) and acknowledges at
// once, or, with `hold`, only when the test calls release(); fail() makes
// the next append fail with a 50001. Single-threaded tests.
#pragma once

#include <deque>

#include "apps/schema_registry/registry_service.h"

namespace skiff::schemareg::testing {

class FakeLog : public RecordLog {
 public:
  void append(std::vector<Record> records, std::function<void(std::optional<RegistryError>)> durable) override {
    ++appends;
    if (fail_next) {
      fail_next = false;
      durable(errors::store_error("Register schema operation failed while writing to the Kafka store"));
      return;
    }
    for (auto& r : records) written.push_back(r);
    if (hold) {
      pending.push_back(std::move(durable));
    } else {
      durable(std::nullopt);
    }
  }
  // Acknowledges the oldest held append.
  void release() {
    auto durable = std::move(pending.front());
    pending.pop_front();
    durable(std::nullopt);
  }

  std::vector<Record> written;
  std::deque<std::function<void(std::optional<RegistryError>)>> pending;
  bool hold = false;
  bool fail_next = false;
  int appends = 0;
};

}  // namespace skiff::schemareg::testing
