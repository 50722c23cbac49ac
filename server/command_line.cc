#include "server/command_line.h"

#include <boost/program_options.hpp>
#include <sstream>
#include <stdexcept>

namespace skiff::server {
namespace po = boost::program_options;

CommandLine parse_command_line(int argc, char** argv) {
  po::options_description opts(
      "Usage: skiff [--config FILE] [--override key=value ...]\n"
      "       skiff --healthcheck [[PROTOCOL://]HOST:PORT]\n"
      "       skiff --list-apis\n"
      "Skiff: a single-node broker that speaks the Apache Kafka protocol.\n"
      "Configuration precedence: defaults < config file < SKIFF_* environment < --override.\n"
      "Options");
  opts.add_options()("help,h", "show this help and exit")("version", "print the version and exit")(
      "config,c", po::value<std::string>(), "YAML config file with Kafka's key names")(
      "override,o", po::value<std::vector<std::string>>()->composing(), "set key=value (repeatable)")(
      "print-config", "print the effective configuration, with where each value came from, and exit")(
      "list-apis", "print the served APIs and versions beside Apache Kafka 4.4's (a Markdown table) and exit")(
      "healthcheck", po::value<std::string>()->implicit_value("")->value_name("HOST:PORT"),
      "probe a running broker with an ApiVersions request and exit 0 if it answers (1 if not); without "
      "HOST:PORT, its first configured listener (file, SKIFF_* environment and --override apply); "
      "SSL:// or SASL_SSL:// before HOST:PORT probes over TLS");
  po::positional_options_description positional;
  positional.add("config", 1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw std::invalid_argument(e.what());
  }
  CommandLine cl;
  std::ostringstream help;
  help << opts;
  cl.help_text = help.str();
  cl.help = vm.count("help") > 0;
  cl.version = vm.count("version") > 0;
  cl.list_apis = vm.count("list-apis") > 0;
  cl.print_config = vm.count("print-config") > 0;
  cl.healthcheck = vm.count("healthcheck") > 0;
  if (cl.healthcheck) cl.healthcheck_address = vm["healthcheck"].as<std::string>();
  if (vm.count("config")) cl.config_file = vm["config"].as<std::string>();
  if (vm.count("override")) cl.overrides = vm["override"].as<std::vector<std::string>>();
  return cl;
}

}  // namespace skiff::server
