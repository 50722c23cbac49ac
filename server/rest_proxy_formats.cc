#include "server/rest_proxy_formats.h"

#include <chrono>
#include <future>
#include <memory>

#include "apps/rest_proxy/rest_errors.h"

namespace skiff::server {
namespace {

constexpr auto kRegisterWait = std::chrono::seconds(15);

[[noreturn]] void serialization_error(const std::string& why, const schemareg::RegistryError& e) {
  throw restproxy::RestError(422, 42207, "Error serializing message. " + why + ": " + e.message);
}

}  // namespace

restproxy::SchemaHandle RegistryFormats::handle_of(const schemareg::SubjectSchema& stored) {
  auto parsed = service_.parsed(stored);
  if (!parsed)
    throw restproxy::RestError(
        422, 42205,
        "Invalid schema: the schema of id " + std::to_string(stored.id) + " does not parse: " + parsed.error().message);
  return {stored.id, *parsed};
}

restproxy::SchemaHandle RegistryFormats::by_id(int32_t id) {
  auto stored = service_.schema_by_id(id, std::nullopt);
  if (!stored)
    serialization_error("Error when fetching schema by id. schemaId = " + std::to_string(id), stored.error());
  return handle_of(*stored);
}

restproxy::SchemaHandle RegistryFormats::by_subject(const std::string& subject, int version) {
  auto stored = service_.get_version(subject, version < 0 ? std::string("latest") : std::to_string(version), false);
  if (!stored) serialization_error("Error when fetching schema by version. subject = " + subject, stored.error());
  return handle_of(*stored);
}

restproxy::SchemaHandle RegistryFormats::register_schema(const std::string& subject, schema::SchemaType type,
                                                         const std::string& text) {
  schemareg::SchemaInput input;
  input.schema = text;
  input.schema_type = std::string(schema::type_name(type));
  auto done = std::make_shared<std::promise<Expected<schemareg::SubjectSchema, schemareg::RegistryError>>>();
  auto answer = done->get_future();
  service_.register_schema(subject, std::move(input), false,
                           [done](auto result) { done->set_value(std::move(result)); });
  if (answer.wait_for(kRegisterWait) != std::future_status::ready)
    throw restproxy::RestError(500, 50002, "Kafka error: the schema registry did not answer in time");
  auto registered = answer.get();
  if (!registered) {
    throw restproxy::RestError(422, 42205, "Invalid schema: " + registered.error().message);
  }
  return handle_of(*registered);
}

}  // namespace skiff::server
