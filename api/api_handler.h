// ApiHandler: the handler of one API. KafkaApis owns one per API key; the
// versions each advertises drive dispatch, the version check and the
// ApiVersions answer, so the three cannot disagree.
//
// Handlers run on the request handler threads, several at once: they must be
// thread-safe and must not block for long (long waits are delayed operations).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "api/api_request.h"
#include "api/responder.h"
#include "protocol/error_codes.h"

namespace skiff::api {

struct ApiVersionRange {
  int16_t api_key;
  int16_t min_version;  // advertised
  int16_t max_version;  // advertised
};

class ApiHandler {
 public:
  // Versions [min_advertised, min_served) are advertised for old clients'
  // feature probes but answered with UNSUPPORTED_VERSION, as Kafka 4 does.
  ApiHandler(int16_t api_key, int16_t min_advertised, int16_t max_advertised, int16_t min_served = -1)
      : range_{api_key, min_advertised, max_advertised}, min_served_(min_served < 0 ? min_advertised : min_served) {}
  virtual ~ApiHandler() = default;

  const ApiVersionRange& range() const { return range_; }
  int16_t min_served() const { return min_served_; }

  // The finalized feature level the API needs (share.version 1 for the share
  // APIs, as Kafka's isShareGroupProtocolEnabled): below it KafkaApis
  // answers UNSUPPORTED_VERSION (api/feature_levels.h). Set at registration.
  struct FeatureGate {
    std::string_view feature;
    int16_t min_level = 1;
  };
  void set_feature_gate(FeatureGate gate) { gate_ = gate; }
  const std::optional<FeatureGate>& feature_gate() const { return gate_; }

  // Decodes the body and answers through `out`, now or later. Throws
  // protocol::DecodeError for a malformed body.
  virtual void handle(ApiRequest& request, Responder& out) = 0;
  // Answers with `error` wherever the response carries one.
  virtual void send_error(ApiRequest& request, Responder& out, ErrorCode error) = 0;

 private:
  ApiVersionRange range_;
  int16_t min_served_;
  std::optional<FeatureGate> gate_;
};

// The usual shape: decode into Req, handle it; errors built from the request.
template <class Req, class Resp>
class TypedApiHandler : public ApiHandler {
 public:
  using ApiHandler::ApiHandler;

  void handle(ApiRequest& request, Responder& out) final {
    Req body;
    auto reader = request.body_reader();
    body.decode(reader, request.api_version());
    handle(request, body, out);
  }
  void send_error(ApiRequest& request, Responder& out, ErrorCode error) final {
    Req body;
    auto reader = request.body_reader();
    body.decode(reader, request.api_version());
    out.send(error_response(body, error));
  }

 protected:
  virtual void handle(ApiRequest& request, Req& body, Responder& out) = 0;
  virtual Resp error_response(const Req& body, ErrorCode error) = 0;
};

}  // namespace skiff::api
