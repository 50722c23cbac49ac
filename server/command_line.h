// Command-line parsing (Boost.Program_options) for the skiff binary.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace skiff::server {

struct CommandLine {
  std::optional<std::string> config_file;
  std::vector<std::string> overrides;
  bool help = false;
  bool version = false;
  bool print_config = false;
  bool list_apis = false;           // --list-apis: print the served APIs beside Kafka's, then exit
  bool healthcheck = false;         // --healthcheck: probe a running broker, then exit
  std::string healthcheck_address;  // its HOST:PORT; empty: the configured first listener
  std::string help_text;
};

// Throws std::invalid_argument with a readable message on bad usage.
CommandLine parse_command_line(int argc, char** argv);

}  // namespace skiff::server
