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
  std::string help_text;
};

// Throws std::invalid_argument with a readable message on bad usage.
CommandLine parse_command_line(int argc, char** argv);

}  // namespace skiff::server
