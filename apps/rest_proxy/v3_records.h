// v3's produce (kafka-rest's ProduceAction): POST
// /v3/clusters/{c}/topics/{t}/records with one record or a stream of them
// (JSON objects one after another in one request, chunked or not), each
//   {"partition_id": int?, "headers": [{"name", "value": base64|null}]?,
//    "key": Data?, "value": Data?, "timestamp": ISO-8601 | epoch ms?}
//   Data: {"type": "BINARY"|"JSON"|"STRING"|"AVRO"|"PROTOBUF"|"JSONSCHEMA",
//          "data": ..., "schema_id"?, "subject"?, "schema_version"?, "schema"?}
// (no type: JSON, or with schema_id/subject the registered schema's type;
// the schema types through EmbeddedFormats, else 400).
// The answer is 200, chunked: one JSON object per record, in order,
// separated by "\r\n": {"error_code": 200, "cluster_id", "topic_name",
// "partition_id", "offset", "timestamp", "key": {"type", "size"...}?,
// "value": {...}?} or, for a record that failed, {"error_code", "message"},
// and the stream goes on. Records available together go to Kafka in one
// Produce request (acks=all), one batch per record; a keyless record's
// partition is round-robin, a keyed one's Kafka's murmur2 of the key.
// Before any answer: an unknown topic is 404 (40401), an empty body 422
// (42206). A record larger than rest.proxy.max.request.bytes, or bytes that
// are not a JSON object, end the stream with an error object.
// Threads: a worker; blocks reading the body and for room to write.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/json.h"

namespace skiff::restproxy {

// "2021-02-05T19:14:42.123Z" (java.time.Instant's form: no fraction when whole seconds).
std::string iso_instant(int64_t epoch_ms);
// ISO-8601 with a Z or ±hh:mm offset, fraction optional; nullopt when not one.
std::optional<int64_t> parse_iso_instant(std::string_view text);

}  // namespace skiff::restproxy
