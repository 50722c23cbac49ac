#include "server/list_apis.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "api/api_comparison.h"
#include "api/kafka_apis.h"
#include "config/config_loader.h"
#include "server/broker_components.h"
#include "server/storage_config.h"

namespace skiff::server {

int run_list_apis() {
  spdlog::set_level(spdlog::level::off);
  std::string dir = (std::filesystem::temp_directory_path() / "skiff-list-apis-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) {
    fmt::print(stderr, "skiff: cannot create a temporary directory in {}\n",
               std::filesystem::temp_directory_path().string());
    return 1;
  }
  int rc = 0;
  try {
    auto cfg = config::load_config({std::nullopt, {}, {"log.dirs=" + dir}});
    storage::LogManager logs(make_log_manager_config(cfg));
    api::BrokerInfo broker{cfg.node_id, logs.cluster_id(), {{"PLAINTEXT", "localhost", 9092}}, {}, {}};
    auto metadata = metadata::value_or_throw(metadata::MetadataStore::open(dir));
    BrokerComponents components(cfg, broker, logs, *metadata);
    api::KafkaApis apis(components.services());
    fmt::print("{}", api::served_api_table(apis.registry().advertised()));
  } catch (const std::exception& e) {
    fmt::print(stderr, "skiff: --list-apis failed: {}\n", e.what());
    rc = 1;
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return rc;
}

}  // namespace skiff::server
