#include "server/health_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "common/byte_order.h"
#include "config/config_loader.h"
#include "protocol/frame.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "server/health_probe_io.h"
#include "server/version.h"

namespace skiff::server {
namespace {

using Clock = ProbeClock;
constexpr int16_t kApiVersionsVersion = 3;      // flexible; what current clients send first
constexpr int32_t kCorrelationId = 0x736b6966;  // "skif"
constexpr int32_t kMaxResponseBytes = 1 << 20;
// Below the image's HEALTHCHECK --timeout, so the probe says why it failed.
constexpr std::chrono::milliseconds kTimeout{3000};
// The first byte of a TLS alert or handshake record.
constexpr uint8_t kTlsAlert = 0x15;
constexpr uint8_t kTlsHandshake = 0x16;

// "host:port", after the protocol unless PLAINTEXT ("SSL://host:port").
std::string endpoint_text(const HealthTarget& t) {
  auto hostport = t.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", t.host, t.port)
                                                        : fmt::format("{}:{}", t.host, t.port);
  return t.security_protocol == "PLAINTEXT" ? hostport : t.security_protocol + "://" + hostport;
}

void probe_wildcard_on_loopback(HealthTarget& t) {
  if (t.host.empty() || t.host == "0.0.0.0") t.host = "127.0.0.1";
  if (t.host == "::") t.host = "::1";
}

// Takes a "PROTOCOL://" prefix off `text` into t.security_protocol.
void take_protocol(std::string& text, HealthTarget& t) {
  auto sep = text.find("://");
  if (sep == std::string::npos) return;
  t.security_protocol = text.substr(0, sep);
  if (t.security_protocol != "PLAINTEXT" && t.security_protocol != "SSL" && t.security_protocol != "SASL_PLAINTEXT" &&
      t.security_protocol != "SASL_SSL")
    throw std::invalid_argument(fmt::format(
        "'{}' is not a security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)", t.security_protocol));
  text.erase(0, sep + 3);
}

std::vector<uint8_t> api_versions_request() {
  protocol::RequestHeader header;
  header.correlation_id = kCorrelationId;
  header.client_id = "skiff-healthcheck";
  protocol::ApiVersionsRequest request;
  request.client_software_name = "skiff-healthcheck";
  request.client_software_version = std::string(kVersion);
  return protocol::encode_request_frame(header, kApiVersionsVersion, request);
}

// One response frame's body; the reason on failure.
std::optional<std::string> read_frame(ProbeTransport& t, const HealthTarget& target, std::vector<uint8_t>& body,
                                      Clock::time_point deadline) {
  std::array<uint8_t, 4> size_bytes{};
  if (auto e = t.read_exact(size_bytes, deadline)) {
    // A TLS listener closes on the probe's plaintext bytes without a word.
    if (!target.tls() && e->starts_with("the broker closed"))
      return *e + " (is the listener SSL or SASL_SSL? the probe spoke " + target.security_protocol + ")";
    return *e;
  }
  if (!target.tls() && (size_bytes[0] == kTlsAlert || size_bytes[0] == kTlsHandshake))
    return fmt::format(
        "it answered with a TLS record: the listener speaks TLS, the probe spoke {} (probe it as SSL "
        "or SASL_SSL)",
        target.security_protocol);
  int32_t size = load_be<int32_t>(size_bytes.data());
  if (size < 4 || size > kMaxResponseBytes)
    return fmt::format("it answered a frame of {} bytes: not a Kafka broker?", size);
  body.resize(static_cast<size_t>(size));
  return t.read_exact(body, deadline);
}

// The verdict on an ApiVersions response frame's body.
HealthResult judge_answer(const std::vector<uint8_t>& body, const std::string& where, Clock::time_point started) {
  protocol::ApiVersionsResponse response;
  try {
    protocol::ByteReader r(body);
    protocol::ResponseHeader response_header;
    response_header.decode(
        r, protocol::response_header_version(protocol::ApiVersionsResponse::kApiKey, kApiVersionsVersion));
    if (response_header.correlation_id != kCorrelationId)
      return {false, fmt::format("{} answered correlation id {} to request {}", where, response_header.correlation_id,
                                 kCorrelationId)};
    response.decode(r, kApiVersionsVersion);
  } catch (const std::exception& e) {
    return {false, fmt::format("{} answered something that is not an ApiVersions response: {}", where, e.what())};
  }
  if (response.error_code != 0)
    return {false, fmt::format("{} answered ApiVersions with error code {}", where, response.error_code)};
  if (response.api_keys.empty()) return {false, fmt::format("{} answered ApiVersions with no APIs", where)};
  auto ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return {true, fmt::format("{} answered ApiVersions v{} with {} APIs in {:.1f} ms", where, kApiVersionsVersion,
                            response.api_keys.size(), ms)};
}

}  // namespace

HealthTarget parse_health_target(const std::string& address) {
  HealthTarget t;
  std::string text = address;
  take_protocol(text, t);
  std::string port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      throw std::invalid_argument(fmt::format("'{}' is not [address]:port", address));
    t.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos) throw std::invalid_argument(fmt::format("'{}' is not host:port", address));
    t.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  int value = 0;
  try {
    size_t used = 0;
    value = std::stoi(port, &used);
    if (used != port.size()) value = 0;
  } catch (const std::exception&) {
    value = 0;
  }
  if (value < 1 || value > 65535) throw std::invalid_argument(fmt::format("'{}' has no valid port", address));
  t.port = static_cast<uint16_t>(value);
  probe_wildcard_on_loopback(t);
  return t;
}

HealthTarget health_target_for(const config::BrokerConfig& config) {
  // The first listener that is not a controller's (KRaft's
  // controller.listener.names): a client's listener.
  auto broker = std::find_if(config.listeners.begin(), config.listeners.end(),
                             [&](const config::Listener& l) { return !config.kraft.is_controller_listener(l.name); });
  if (broker == config.listeners.end()) throw std::invalid_argument("no listener is configured");
  const auto& l = *broker;
  if (l.port == 0)
    throw std::invalid_argument(
        fmt::format("listener {} asks for any free port (0); give --healthcheck HOST:PORT", l.to_string()));
  HealthTarget t{l.host, l.port, config.security_protocol(l.name)};
  if (t.security_protocol.empty()) t.security_protocol = "PLAINTEXT";
  probe_wildcard_on_loopback(t);
  return t;
}

HealthResult check_health(const HealthTarget& target, std::chrono::milliseconds timeout) {
  auto started = Clock::now();
  auto deadline = started + timeout;
  auto where = endpoint_text(target);
  std::string error;
  int fd = probe_connect(target.host, target.port, deadline, error);
  if (fd < 0) return {false, fmt::format("cannot connect to {}: {}", where, error)};
  auto transport = target.tls() ? tls_transport(fd, deadline, error) : plain_transport(fd);
  if (!transport) return {false, fmt::format("TLS handshake with {} failed: {}", where, error)};
  if (auto e = transport->send_all(api_versions_request(), deadline))
    return {false, fmt::format("cannot send ApiVersions to {}: {}", where, *e)};
  std::vector<uint8_t> body;
  if (auto e = read_frame(*transport, target, body, deadline)) return {false, fmt::format("{}: {}", where, *e)};
  return judge_answer(body, where, started);
}

int run_health_check(const CommandLine& cl) {
  HealthTarget target;
  try {
    if (!cl.healthcheck_address.empty()) {
      target = parse_health_target(cl.healthcheck_address);
    } else {
      auto cfg = config::load_config({cl.config_file, config::process_environment(), cl.overrides});
      target = health_target_for(cfg);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "skiff: healthcheck: {}\n", e.what());
    return 1;
  }
  auto result = check_health(target, kTimeout);
  if (result.healthy) {
    fmt::print("skiff: healthy: {}\n", result.message);
    return 0;
  }
  fmt::print(stderr, "skiff: unhealthy: {}\n", result.message);
  return 1;
}

}  // namespace skiff::server
