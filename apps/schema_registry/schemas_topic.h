// SchemasTopic: the Schema Registry's `_schemas` topic (the RecordLog port of
// registry_service.h) kept through the coordinator runtime's StateTopic, so
// its segments are Kafka's and its records Confluent's (schemas_records.h).
//
//   - open(): Confluent's KafkaStore.verifySchemaTopic on an existing
//     `_schemas`: one partition and cleanup.policy=compact, else the
//     registry does not start (the message says what to fix). The topic is
//     created (so) by the first write, not at start: a broker whose
//     registry is never used (the container image in a test suite) shows no
//     topic a Kafka broker would not have.
//   - load(): replays every record into the service at startup. A record
//     that does not decode (another writer's, a stray produce) is logged,
//     escaped, and skipped, as Confluent's reader thread skips it; so is a
//     batch the runtime cannot read (compressed, keyless records).
//   - append(): the records as one batch on partition 0, answered durable
//     once the runtime's group-committed flush succeeded (50001 otherwise).
//     A batch larger than the topic's max.message.bytes (its own value,
//     else the broker's message.max.bytes) is refused before it is written
//     with Confluent's 42209 "Register operation failed because schema is
//     too large", as Confluent's producer refuses the record.
//
// Threads: check()/load() at startup before any append; append() from any
// thread (the service serializes its writes); `durable` runs on the
// topic's flusher thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "apps/schema_registry/registry_service.h"
#include "coordinator/runtime/state_topic.h"

namespace skiff::schemareg {

inline constexpr const char* kSchemasTopic = "_schemas";

class SchemasTopic : public RecordLog {
 public:
  // `max_message_bytes`: the broker's message.max.bytes.
  SchemasTopic(coordinator::StateTopic& topic, int32_t max_message_bytes)
      : topic_(topic), max_message_bytes_(max_message_bytes) {}

  // Adopts `_schemas` when it exists. Nothing when it may be used (or does
  // not exist yet), else why not (Confluent's words).
  std::optional<std::string> open();
  // Every record into `service`; the number applied.
  int64_t load(RegistryService& service);

  void append(std::vector<Record> records, std::function<void(std::optional<RegistryError>)> durable) override;

 private:
  int64_t max_batch_bytes() const;

  coordinator::StateTopic& topic_;
  int32_t max_message_bytes_;
};

}  // namespace skiff::schemareg
