// Kafka's protocol error names by code ("UNKNOWN_TOPIC_OR_PARTITION" for 3),
// as Kafka's Errors enum names them: the `error` label of the errors-per-API
// metric. The table (error_names.cc) is generated from the kafka-clients jar
// by tools/gen_error_names.sh. Thread-safe (constant data).
#pragma once

#include <cstdint>
#include <string_view>

namespace skiff::protocol {

// "UNKNOWN_ERROR_CODE" for a code Kafka does not define.
std::string_view error_name(int16_t code);

}  // namespace skiff::protocol
