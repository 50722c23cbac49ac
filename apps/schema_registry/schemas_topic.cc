#include "apps/schema_registry/schemas_topic.h"

#include <charconv>
#include <stdexcept>

#include "apps/schema_registry/registry_log.h"
#include "common/log_escape.h"

namespace skiff::schemareg {
namespace {

std::string_view as_text(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// A record batch's size at most: the v2 header, and per record its fixed
// fields (length, attributes, deltas, key and value lengths, header count as
// varints) besides the key and value.
constexpr int64_t kBatchHeaderBytes = 61;
constexpr int64_t kRecordOverheadBytes = 32;

int64_t batch_bytes(const std::vector<coordinator::StateRecord>& records) {
  int64_t n = kBatchHeaderBytes;
  for (const auto& r : records)
    n +=
        kRecordOverheadBytes + static_cast<int64_t>(r.key.size()) + static_cast<int64_t>(r.value ? r.value->size() : 0);
  return n;
}

}  // namespace

std::optional<std::string> SchemasTopic::open() {
  topic_.open();
  if (!topic_.exists()) return std::nullopt;  // the first write creates it
  if (topic_.partitions() != 1)
    return "The schema topic " + topic_.name() + " should have only 1 partition but has " +
           std::to_string(topic_.partitions());
  const auto policy = topic_.config_override("cleanup.policy");
  if (policy != "compact")
    return "The retention policy of the schema topic " + topic_.name() +
           " is incorrect. Expected cleanup.policy to be 'compact' but it is " + policy.value_or("delete");
  return std::nullopt;
}

int64_t SchemasTopic::load(RegistryService& service) {
  int64_t applied = 0, skipped = 0;
  topic_.replay([](int32_t) {},
                [&](const auto& batch) {
                  if (batch.is_control()) return;
                  try {
                    coordinator::for_each_record(batch, topic_.name(), [&](auto key, auto value) {
                      auto r = decode(as_text(key), value ? std::optional(as_text(*value)) : std::nullopt);
                      if (!r) {
                        registry_log().warn("{}: skipping a record that does not decode ({}): key {}", topic_.name(),
                                            escaped(r.error().message), escaped(as_text(key)));
                        ++skipped;
                        return;
                      }
                      service.apply(*r);
                      ++applied;
                    });
                  } catch (const std::runtime_error& e) {
                    registry_log().warn("{}: skipping a batch: {}", topic_.name(), escaped(e.what()));
                    ++skipped;
                  }
                });
  if (skipped) registry_log().warn("{}: {} record(s) or batch(es) skipped", topic_.name(), skipped);
  return applied;
}

int64_t SchemasTopic::max_batch_bytes() const {
  const auto own = topic_.config_override("max.message.bytes");
  int64_t value = 0;
  if (own && std::from_chars(own->data(), own->data() + own->size(), value).ec == std::errc()) return value;
  return max_message_bytes_;
}

void SchemasTopic::append(std::vector<Record> records, std::function<void(std::optional<RegistryError>)> durable) {
  std::vector<coordinator::StateRecord> out;
  out.reserve(records.size());
  for (const auto& r : records) {
    auto e = encode(r);
    out.push_back({std::move(e.key), std::move(e.value)});
  }
  if (batch_bytes(out) > max_batch_bytes()) {
    durable(errors::schema_too_large("Register operation failed because schema is too large"));
    return;
  }
  auto points = topic_.append_records(0, out);
  if (!points) {
    durable(errors::store_error("Error while registering the schema: the _schemas topic could not be appended"));
    return;
  }
  topic_.flush_async(std::move(*points), [durable = std::move(durable)](bool ok) {
    if (ok)
      durable(std::nullopt);
    else
      durable(errors::store_error("Error while registering the schema: the _schemas topic could not be flushed"));
  });
}

}  // namespace skiff::schemareg
