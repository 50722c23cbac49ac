// `skiff --list-apis`: prints the APIs this build serves, each with our
// version range and Apache Kafka 4.4's (api/api_comparison.h), as the
// Markdown table docs/served-apis.md is generated from.
#pragma once

namespace skiff::server {

// The ranges come from the real handler registry: a KafkaApis is built over
// a throw-away data dir (removed again), with logging silenced so that only
// the table reaches stdout. Returns the exit code.
int run_list_apis();

}  // namespace skiff::server
