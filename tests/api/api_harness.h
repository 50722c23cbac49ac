// ApiHarness: KafkaApis in-process over a fresh LogManager in a temp dir,
// with a ResponseSender that captures responses, so handler tests run
// without sockets (and under the sanitizers).
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>

#include "api/feature_levels.h"
#include "api/kafka_apis.h"
#include "config/config_loader.h"
#include "log/meta_properties.h"
#include "metadata/legacy_migration.h"
#include "network/connection_quotas.h"
#include "protocol/frame.h"
#include "protocol/generated/create_topics_request.h"
#include "server/broker_components.h"
#include "server/dynamic_config_wiring.h"
#include "server/storage_config.h"
#include "tests/support/temp_dir.h"

namespace skiff::test {

class CapturingSender : public network::ResponseSender {
 public:
  void send_response(network::Response r) override {
    {
      std::lock_guard lock(mu_);
      responses_.push_back(std::move(r));
    }
    cv_.notify_all();
  }
  std::optional<network::Response> wait(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, timeout, [&] { return !responses_.empty(); })) return std::nullopt;
    auto r = std::move(responses_.front());
    responses_.pop_front();
    return r;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<network::Response> responses_;
};

// The bytes of a response frame, file regions read back (after the size prefix).
// A CreateTopics request for one topic with the given configs.
inline protocol::CreateTopicsRequest create_topics_request(const std::string& name, int32_t partitions, int16_t rf,
                                                           const std::map<std::string, std::string>& configs = {},
                                                           bool validate_only = false) {
  protocol::CreateTopicsRequest req;
  protocol::CreateTopicsRequest::CreatableTopic t;
  t.name = name;
  t.num_partitions = partitions;
  t.replication_factor = rf;
  for (const auto& [k, v] : configs) {
    protocol::CreateTopicsRequest::CreatableTopicConfig c;
    c.name = k;
    c.value = v;
    t.configs.push_back(c);
  }
  req.topics.push_back(t);
  req.validate_only = validate_only;
  return req;
}

inline std::vector<uint8_t> flatten(const network::Response& r) {
  std::vector<uint8_t> out;
  for (const auto& chunk : r.chunks) {
    if (auto* bytes = std::get_if<std::vector<uint8_t>>(&chunk)) {
      out.insert(out.end(), bytes->begin(), bytes->end());
    } else {
      const auto& region = std::get<FileRegion>(chunk);
      std::vector<uint8_t> buf(region.length);
      REQUIRE(pread(region.fd, buf.data(), buf.size(), region.offset) == static_cast<ssize_t>(buf.size()));
      out.insert(out.end(), buf.begin(), buf.end());
    }
  }
  REQUIRE(out.size() >= 4);
  return std::vector<uint8_t>(out.begin() + 4, out.end());
}

class ApiHarness {
 public:
  // `adjust`: changes to the loaded config (what the loader refuses today,
  // e.g. tiered storage enabled).
  explicit ApiHarness(std::vector<std::string> overrides = {},
                      const std::function<void(config::BrokerConfig&)>& adjust = {}) {
    dir_ = test::make_temp_dir("skiff-api-test");
    overrides.push_back("log.dirs=" + dir_.string());
    config_ = config::load_config({std::nullopt, {}, overrides});
    if (adjust) adjust(config_);
    open();
    broker_.node_id = config_.node_id;
    broker_.cluster_id = logs_->cluster_id();
    if (auto meta = storage::read_meta_properties(dir_)) broker_.metadata_directory_id = meta->directory_id;
    broker_.endpoints.push_back({"PLAINTEXT", "broker.test", 9092});
    components_ = std::make_unique<server::BrokerComponents>(config_, broker_, *logs_, *metadata_, dynamic_.get());
    apis_ = std::make_unique<api::KafkaApis>(components_->services());
  }
  ~ApiHarness() {
    apis_.reset();
    components_.reset();
    logs_.reset();
    std::filesystem::remove_all(dir_);
  }

  api::FeatureLevels& features() { return *components_->services().features; }

  // Sends one raw frame body (no size prefix); returns what came back.
  network::Response raw(const std::vector<uint8_t>& body, bool expect_response = true) {
    network::Request req;
    req.context.listener_name = "PLAINTEXT";
    req.context.peer_address = "127.0.0.1";
    req.context.principal = principal_;
    req.frame = network::Frame(body.size());
    std::copy(body.begin(), body.end(), req.frame.data());
    req.received_at = req.dequeued_at = std::chrono::steady_clock::now();  // as a Processor and handler would
    apis_->handle(std::move(req), sender_);
    auto r = sender_.wait();
    REQUIRE(r.has_value());
    return std::move(*r);
  }

  template <class Req>
  std::vector<uint8_t> frame(const Req& body, int16_t version, int32_t correlation_id = 7) {
    protocol::RequestHeader h;
    h.correlation_id = correlation_id;
    h.client_id = "harness";
    auto f = protocol::encode_request_frame(h, version, body);
    return std::vector<uint8_t>(f.begin() + 4, f.end());
  }

  // Decodes a captured response as Resp at `version`, checking the correlation
  // id. Record views in the result stay valid as long as the harness.
  template <class Resp>
  Resp decode(const network::Response& r, int16_t version, int32_t correlation_id = 7) {
    REQUIRE(r.action == network::Response::Action::kSend);
    // Decoded records are views into these bytes: keep them for the test's life.
    auto& bytes = decoded_frames_.emplace_back(flatten(r));
    protocol::ByteReader reader(bytes);
    protocol::ResponseHeader h;
    h.decode(reader, protocol::response_header_version(Resp::kApiKey, version));
    CHECK(h.correlation_id == correlation_id);
    Resp resp;
    resp.decode(reader, version);
    CHECK(reader.remaining() == 0);
    return resp;
  }

  template <class Resp, class Req>
  Resp call(const Req& body, int16_t version) {
    return decode<Resp>(raw(frame(body, version)), version);
  }

  // Starts a request whose answer may come later; collect it with wait().
  template <class Req>
  void start(const Req& body, int16_t version) {
    network::Request req;
    auto bytes = frame(body, version);
    req.context.listener_name = "PLAINTEXT";
    req.context.principal = principal_;
    req.frame = network::Frame(bytes.size());
    std::copy(bytes.begin(), bytes.end(), req.frame.data());
    apis_->handle(std::move(req), sender_);
  }
  std::optional<network::Response> wait(std::chrono::milliseconds timeout) { return sender_.wait(timeout); }

  // A clean broker restart over the same data dir (persistence tests).
  void restart() {
    apis_.reset();
    components_.reset();
    logs_.reset();  // clean shutdown: checkpoints, snapshots, marker
    open();
    components_ = std::make_unique<server::BrokerComponents>(config_, broker_, *logs_, *metadata_, dynamic_.get());
    apis_ = std::make_unique<api::KafkaApis>(components_->services());
  }

  // The principal the next requests come from (as TLS or SASL would name it).
  void set_principal(std::string principal) { principal_ = std::move(principal); }
  const config::BrokerInfo& broker() const { return broker_; }

  storage::LogManager& logs() { return *logs_; }
  network::ConnectionQuotas& quotas() { return *quotas_; }
  const std::filesystem::path& log_dir() const { return dir_; }
  api::KafkaApis& apis() { return *apis_; }
  // The coordinators and stores the APIs serve with (server/broker_components.h).
  server::BrokerComponents& components() { return *components_; }

 private:
  // As KafkaServer: dynamic broker configs from the data dir, then the logs
  // over them, then the wiring that applies later changes live.
  void open() {
    auto store = metadata::open_metadata_store(dir_);
    REQUIRE(store);
    metadata_ = std::move(*store);
    dynamic_ = server::load_dynamic_config(config_, metadata_->ns(metadata::kDynamicBrokerConfig));
    const auto& c = *dynamic_->current();
    logs_ = std::make_unique<storage::LogManager>(server::make_log_manager_config(c));
    quotas_ = network::ConnectionQuotas::create(c.max_connections, c.max_connections_per_ip,
                                                c.max_connections_per_ip_overrides);
    server::wire_dynamic_config(*dynamic_, metadata_->ns(metadata::kDynamicBrokerConfig), *logs_, *quotas_);
  }

  std::filesystem::path dir_;
  config::BrokerConfig config_;
  std::unique_ptr<metadata::MetadataStore> metadata_;  // as KafkaServer: opened (and migrated) first
  std::unique_ptr<config::DynamicBrokerConfig> dynamic_;
  std::shared_ptr<network::ConnectionQuotas> quotas_;
  api::BrokerInfo broker_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<server::BrokerComponents> components_;
  std::unique_ptr<api::KafkaApis> apis_;
  CapturingSender sender_;
  std::string principal_ = "User:ANONYMOUS";
  std::deque<std::vector<uint8_t>> decoded_frames_;
};

}  // namespace skiff::test
