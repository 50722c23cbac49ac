// The JSON shapes v3 answers share (kafka-rest's entities/v3 Resource and
// ResourceCollection): URLs under the client's base URL, CRNs, the
// "metadata" of a resource and of a collection, "related" links.
// Pure functions over JsonWriter.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "common/json.h"
#include "common/json_writer.h"
#include "network/http_message.h"

namespace skiff::restproxy {

// base + "/v3/" + the parts, each percent-encoded (a group id may hold '/').
std::string v3_url(const std::string& base, std::initializer_list<std::string_view> parts);
// "crn:///kafka=<cluster>/topic=<t>..." from (type, id) pairs.
std::string v3_crn(std::initializer_list<std::pair<std::string_view, std::string_view>> parts);

// "kind" and "metadata": {"self", "resource_name"} of a resource; the caller
// goes on with its fields and ends the object.
void begin_resource(JsonWriter& w, std::string_view kind, const std::string& self, const std::string& crn);
// A collection: "kind", "metadata": {"self", "next": null}, then "data": [
// (the caller writes the items, then end_collection).
void begin_collection(JsonWriter& w, std::string_view kind, const std::string& self);
void end_collection(JsonWriter& w);
// "name": {"related": url}
void related(JsonWriter& w, std::string_view name, const std::string& url);

// 200 (or `status`) application/json with `body`.
network::HttpResponse json_response(std::string body, int status = 200);
// The request body as a JSON object; 400 (error_code 400) when it is not one.
JsonValue json_body(const std::string& body);

}  // namespace skiff::restproxy
