#include "api/kafka_apis.h"

#include "api/api_log.h"
#include "api/handlers/api_versions_handler.h"
#include "api/handlers/fetch_handler.h"
#include "api/handlers/list_offsets_handler.h"
#include "api/handlers/metadata_handler.h"
#include "api/handlers/offset_for_leader_epoch_handler.h"
#include "api/handlers/produce_handler.h"
#include "api/protocol/errors.h"
#include "api/protocol/frame.h"

namespace skiff::api {

KafkaApis::KafkaApis(const config::BrokerConfig& config, const BrokerInfo& broker, storage::LogManager& logs)
    : services_{config, broker, logs, &fetch_purgatory_} {
  auto api_versions = std::make_unique<ApiVersionsHandler>(registry_);
  api_versions_ = api_versions.get();
  registry_.add(std::move(api_versions));
  registry_.add(std::make_unique<ProduceHandler>(services_));
  registry_.add(std::make_unique<FetchHandler>(services_));
  registry_.add(std::make_unique<ListOffsetsHandler>(services_));
  registry_.add(std::make_unique<MetadataHandler>(services_));
  registry_.add(std::make_unique<OffsetForLeaderEpochHandler>(services_));
}

KafkaApis::~KafkaApis() { shutdown(); }

void KafkaApis::complete_delayed() { fetch_purgatory_.complete_all(); }

void KafkaApis::shutdown() { fetch_purgatory_.shutdown(); }

void KafkaApis::handle(network::Request raw, network::ResponseSender& sender) {
  protocol::ByteReader reader(raw.frame.bytes());
  protocol::DecodedRequestHeader decoded;
  try {
    decoded = protocol::read_request_header(reader);
  } catch (const protocol::ProtocolError& e) {
    api_log().warn("closing connection from {}: malformed request header: {}", raw.context.peer_address, e.what());
    sender.send_response(network::Response::close(raw.context, ""));
    return;
  }
  ApiRequest request{std::move(raw), std::move(decoded.header), reader.position()};
  Responder out(sender, request.context(), request.correlation_id(), request.api_version());
  const auto key = request.api_key();
  const auto version = request.api_version();
  const auto& client = request.header.client_id ? *request.header.client_id : std::string("-");

  ApiHandler* handler = registry_.find(key);
  if (!handler) {
    api_log().warn("closing connection from {} (client {}): unsupported API key {}", request.context().peer_address,
                   client, key);
    out.close("");
    return;
  }
  if (handler == api_versions_ && version > handler->range().max_version) {
    api_versions_->answer_unsupported_version(request, out);
    return;
  }
  if (version < handler->range().min_version || version > handler->range().max_version) {
    api_log().warn("closing connection from {} (client {}): API key {} version {} is outside [{}, {}]",
                   request.context().peer_address, client, key, version, handler->range().min_version,
                   handler->range().max_version);
    out.close("");
    return;
  }
  api_log().trace("request api={} v{} corr={} client={} from {}", key, version, request.correlation_id(), client,
                  request.context().peer_address);
  try {
    if (version < handler->min_served())
      handler->send_error(request, out, ErrorCode::kUnsupportedVersion);
    else
      handler->handle(request, out);
  } catch (const protocol::DecodeError& e) {
    api_log().warn("closing connection from {} (client {}): malformed API key {} v{} request: {}",
                   request.context().peer_address, client, key, version, e.what());
    out.close("");
  } catch (const std::exception& e) {
    api_log().error("API key {} v{} from {} failed: {}", key, version, request.context().peer_address, e.what());
    try {
      handler->send_error(request, out, ErrorCode::kUnknownServerError);
    } catch (const std::exception&) {
      out.close("");
    }
  }
}

}  // namespace skiff::api
