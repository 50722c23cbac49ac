// ApiRequest: one decoded request header plus the still-encoded body, as a
// handler receives it. It owns the frame, so record views decoded from the
// body stay valid as long as the ApiRequest lives.
#pragma once

#include <cstdint>

#include "network/request.h"
#include "protocol/byte_reader.h"
#include "protocol/generated/request_header.h"

namespace skiff::api {

struct ApiRequest {
  network::Request raw;
  protocol::RequestHeader header;
  size_t body_offset = 0;  // where the body starts in raw.frame

  int16_t api_key() const { return header.request_api_key; }
  int16_t api_version() const { return header.request_api_version; }
  int32_t correlation_id() const { return header.correlation_id; }
  const network::RequestContext& context() const { return raw.context; }
  protocol::ByteReader body_reader() const { return protocol::ByteReader(raw.frame.bytes().subspan(body_offset)); }
};

}  // namespace skiff::api
