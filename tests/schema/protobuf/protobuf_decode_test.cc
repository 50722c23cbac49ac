// decode_protobuf (schema/protobuf/protobuf_decode.h): a Confluent-framed
// Protobuf value (message indexes, then the message) read into JSON.
#include "schema/protobuf/protobuf_decode.h"

#include <google/protobuf/dynamic_message.h>

#include <catch2/catch.hpp>
#include <string>

#include "protobuf_test_util.h"

using namespace skiff::schema;
using namespace skiff::schema::test;
namespace gp = google::protobuf;

namespace {

constexpr const char* kSchema = R"(syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
message Order {
  string id = 1;
  map<string, int32> counts = 2;
  message Line { string sku = 1; int64 qty = 2; }
  repeated Line lines = 3;
  google.protobuf.Timestamp at = 4;
}
enum Unused { U = 0; }
message Customer { string name = 1; }
)";

std::string serialize(const ProtobufSchema& schema, const std::string& type, const std::string& field,
                      const std::string& value) {
  gp::DynamicMessageFactory factory(schema.file().pool());
  const gp::Descriptor* d = schema.file().pool()->FindMessageTypeByName(type);
  std::unique_ptr<gp::Message> m(factory.GetPrototype(d)->New());
  m->GetReflection()->SetString(m.get(), d->FindFieldByName(field), value);
  return m->SerializeAsString();
}

}  // namespace

TEST_CASE("protobuf decode: the first message, written with the short index form", "[protobuf]") {
  auto s = parse_ok(kSchema);
  const auto& schema = as_proto(*s);
  std::string payload = std::string(1, '\0') + serialize(schema, "shop.Order", "id", "o-1");
  auto decoded = protobuf::decode_protobuf(schema, payload);
  REQUIRE(decoded);
  CHECK(decoded->message_name == "shop.Order");
  CHECK(decoded->indexes == std::vector<int32_t>{0});
  CHECK(decoded->json == R"({"id":"o-1"})");
}

TEST_CASE("protobuf decode: a nested message and a later one by their indexes", "[protobuf]") {
  auto s = parse_ok(kSchema);
  const auto& schema = as_proto(*s);
  // [0, 0]: Order.Line (the map's entry message is not counted); zig-zag 2 = 1 ... count 2 -> 4.
  std::string nested = std::string("\x04\x00\x00", 3) + serialize(schema, "shop.Order.Line", "sku", "A");
  auto line = protobuf::decode_protobuf(schema, nested);
  REQUIRE(line);
  CHECK(line->message_name == "shop.Order.Line");
  CHECK(line->json == R"({"sku":"A"})");
  std::string second = std::string("\x02\x02", 2) + serialize(schema, "shop.Customer", "name", "Ann");
  auto customer = protobuf::decode_protobuf(schema, second);
  REQUIRE(customer);
  CHECK(customer->message_name == "shop.Customer");
  CHECK(customer->json == R"({"name":"Ann"})");
}

TEST_CASE("protobuf decode: a schema registered serialized counts its map entries, as Confluent's does", "[protobuf]") {
  auto text = parse_ok(kSchema);
  auto s = parse_ok(as_proto(*text).serialized());
  const auto& schema = as_proto(*s);
  // Order's nested messages are now CountsEntry (0) and Line (1).
  std::string line = std::string("\x04\x00\x02", 3) + serialize(schema, "shop.Order.Line", "sku", "B");
  auto decoded = protobuf::decode_protobuf(schema, line);
  REQUIRE(decoded);
  CHECK(decoded->message_name == "shop.Order.Line");
  CHECK(decoded->json == R"({"sku":"B"})");
}

TEST_CASE("protobuf decode: bad framing and bad bytes are errors", "[protobuf]") {
  auto s = parse_ok(kSchema);
  const auto& schema = as_proto(*s);
  CHECK_FALSE(protobuf::decode_protobuf(schema, ""));
  CHECK_FALSE(protobuf::decode_protobuf(schema, std::string("\x02\x08", 2)));      // no message at index 4
  CHECK_FALSE(protobuf::decode_protobuf(schema, std::string("\x01", 1)));          // negative count
  CHECK_FALSE(protobuf::decode_protobuf(schema, std::string("\x00\xff\xff", 3)));  // truncated varint field
  CHECK_FALSE(protobuf::decode_protobuf(schema, std::string("\x00\x0a\x05", 3)));  // length past the end
  std::string big = std::string(1, '\0') + serialize(schema, "shop.Order", "id", std::string(1000, 'x'));
  CHECK_FALSE(protobuf::decode_protobuf(schema, big, 100));  // JSON past the bound
  CHECK(protobuf::decode_protobuf(schema, big));
}
