// log/ writes under the "storage" logger (log/storage_log.h), with errno as
// text: a line from the producer id store that cannot persist its block.
#include <spdlog/sinks/ostream_sink.h>

#include <catch2/catch.hpp>
#include <memory>
#include <sstream>

#include "common/subsystem_logger.h"
#include "log/producer_id_store.h"
#include "test_util.h"

using namespace skiff::storage;
using namespace skiff::storage::test;

TEST_CASE("storage lines go to the storage logger with strerror text", "[log][logging]") {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  sink->set_pattern("%n|%v");
  auto storage = skiff::subsystem_logger("storage");
  storage->sinks().push_back(sink);

  TempDir d;
  ProducerIdStore store(d / "no-such-dir" / kProducerIdFile);
  CHECK(store.allocate() == -1);

  storage->sinks().pop_back();
  const std::string out = captured.str();
  INFO(out);
  CHECK(out.rfind("storage|cannot reserve producer ids in ", 0) == 0);
  CHECK(out.find("No such file or directory") != std::string::npos);
  CHECK(out.find("errno") == std::string::npos);
}
