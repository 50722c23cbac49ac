#include "api/handlers/api_versions_handler.h"

#include "api/controller_listener.h"
#include "api/features.h"

namespace skiff::api {
namespace {

// Kafka's rule for client_software_name/version (KIP-511).
bool valid_software_token(const std::string& s) {
  if (s.empty()) return false;
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-' && c != '.') return false;
  return true;
}

// A feature at level 0 is not finalized: Kafka leaves it out.
void add_features(protocol::ApiVersionsResponse& resp, const FeatureLevels& levels) {
  const int64_t epoch = levels.epoch();  // before the levels: a change after it shows a newer epoch next time
  for (const auto& f : levels.table()) {
    protocol::ApiVersionsResponse::SupportedFeatureKey s;
    s.name = f.name;
    s.min_version = f.min_supported;
    s.max_version = f.max_supported;
    resp.supported_features.push_back(s);
    const int16_t level = levels.level(f.name);
    if (level == 0) continue;
    protocol::ApiVersionsResponse::FinalizedFeatureKey fin;
    fin.name = f.name;
    fin.min_version_level = level;
    fin.max_version_level = level;
    resp.finalized_features.push_back(fin);
  }
  resp.finalized_features_epoch = epoch;
}

// v5's cluster and node check (Kafka 4.4's ApiVersionsRequest.isValid, then
// KafkaApis' clusterIdOrNodeIdIsInvalid): NONE when the client names no
// cluster or this one, with this node.
ErrorCode check_cluster_and_node(const protocol::ApiVersionsRequest& body, int16_t version, const BrokerInfo& broker) {
  if (version < 5) return ErrorCode::kNone;
  if (body.cluster_id.has_value() != (body.node_id != -1)) return ErrorCode::kInvalidRequest;
  if (body.cluster_id && (*body.cluster_id != broker.cluster_id || body.node_id != broker.node_id))
    return ErrorCode::kRebootstrapRequired;
  return ErrorCode::kNone;
}

}  // namespace

ApiVersionsHandler::ApiVersionsHandler(const HandlerRegistry& registry, const BrokerInfo& broker,
                                       const FeatureLevels& features)
    : TypedApiHandler(protocol::ApiVersionsRequest::kApiKey, 0, 5),
      registry_(registry),
      broker_(broker),
      features_(features) {}

void ApiVersionsHandler::handle(ApiRequest& request, protocol::ApiVersionsRequest& body, Responder& out) {
  const auto version = request.api_version();
  const ErrorCode cluster_check = check_cluster_and_node(body, version, broker_);
  const bool valid_software = version < 3 || (valid_software_token(body.client_software_name) &&
                                              valid_software_token(body.client_software_version));
  if (!valid_software || cluster_check != ErrorCode::kNone) {
    out.send(error_response(body, valid_software ? cluster_check : ErrorCode::kInvalidRequest));
    return;
  }
  if (software_ && version >= 3)
    software_->seen(request.context().connection_id,
                    {body.client_software_name, body.client_software_version, request.context().listener_name});
  protocol::ApiVersionsResponse resp;
  const bool controller = broker_.is_controller_listener(request.context().listener_name);
  for (const auto& r : registry_.advertised()) {
    if (controller && !served_on_controller_listener(r.api_key)) continue;
    protocol::ApiVersionsResponse::ApiVersion v;
    v.api_key = r.api_key;
    v.min_version = r.min_version;
    v.max_version = r.max_version;
    resp.api_keys.push_back(v);
  }
  add_features(resp, features_);  // tagged fields: dropped below v3
  out.send(resp);
}

protocol::ApiVersionsResponse ApiVersionsHandler::error_response(const protocol::ApiVersionsRequest&, ErrorCode error) {
  protocol::ApiVersionsResponse resp;
  resp.error_code = code(error);
  return resp;
}

void ApiVersionsHandler::answer_unsupported_version(const ApiRequest&, Responder& out) const {
  protocol::ApiVersionsResponse resp;
  resp.error_code = code(ErrorCode::kUnsupportedVersion);
  protocol::ApiVersionsResponse::ApiVersion self;
  self.api_key = range().api_key;
  self.min_version = range().min_version;
  self.max_version = range().max_version;
  resp.api_keys.push_back(self);
  out.send_at_version(resp, 0);
}

}  // namespace skiff::api
