#include "schema/protobuf/well_known.h"

#include <google/protobuf/descriptor.pb.h>

#include <array>
#include <memory>
#include <string>
#include <utility>

#include "schema/protobuf/proto_text.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;

namespace {

// Google's well-known types, in dependency order; their descriptors are
// compiled into libprotobuf.
constexpr std::array<std::string_view, 11> kGoogleFiles = {
    "google/protobuf/any.proto",       "google/protobuf/source_context.proto", "google/protobuf/type.proto",
    "google/protobuf/api.proto",       "google/protobuf/descriptor.proto",     "google/protobuf/duration.proto",
    "google/protobuf/empty.proto",     "google/protobuf/field_mask.proto",     "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto", "google/protobuf/wrappers.proto",
};

// The other files Confluent builds in (ProtobufSchema.KNOWN_DEPENDENCIES):
// their types, declared here (field names, numbers and types are the
// contract; comments and language options are left out).
const std::array<std::pair<std::string_view, std::string_view>, 19> kDeclaredFiles = {{
    {"confluent/meta.proto",
     R"(syntax = "proto3"; package confluent; import "google/protobuf/descriptor.proto";
message Meta { string doc = 1; map<string, string> params = 2; repeated string tags = 3; repeated Rule rules = 4; }
message Rule { string name = 1; string doc = 2; string expr = 3; string sql = 4; }
extend google.protobuf.FileOptions { Meta file_meta = 1088; }
extend google.protobuf.MessageOptions { Meta message_meta = 1088; }
extend google.protobuf.FieldOptions { Meta field_meta = 1088; }
extend google.protobuf.EnumOptions { Meta enum_meta = 1088; }
extend google.protobuf.EnumValueOptions { Meta enum_value_meta = 1088; })"},
    {"confluent/type/decimal.proto",
     R"(syntax = "proto3"; package confluent.type;
message Decimal { bytes value = 1; uint32 precision = 2; int32 scale = 3; })"},
    {"confluent/type/variant.proto",
     R"(syntax = "proto3"; package confluent.type; message Variant { bytes metadata = 1; bytes value = 2; })"},
    {"google/type/calendar_period.proto",
     R"(syntax = "proto3"; package google.type; enum CalendarPeriod { CALENDAR_PERIOD_UNSPECIFIED = 0;
DAY = 1; WEEK = 2; FORTNIGHT = 3; MONTH = 4; QUARTER = 5; HALF = 6; YEAR = 7; })"},
    {"google/type/color.proto",
     R"(syntax = "proto3"; package google.type; import "google/protobuf/wrappers.proto";
message Color { float red = 1; float green = 2; float blue = 3; google.protobuf.FloatValue alpha = 4; })"},
    {"google/type/date.proto",
     R"(syntax = "proto3"; package google.type; message Date { int32 year = 1; int32 month = 2; int32 day = 3; })"},
    {"google/type/datetime.proto",
     R"(syntax = "proto3"; package google.type; import "google/protobuf/duration.proto";
message DateTime { int32 year = 1; int32 month = 2; int32 day = 3; int32 hours = 4; int32 minutes = 5;
  int32 seconds = 6; int32 nanos = 7;
  oneof time_offset { google.protobuf.Duration utc_offset = 8; TimeZone time_zone = 9; } }
message TimeZone { string id = 1; string version = 2; })"},
    {"google/type/dayofweek.proto",
     R"(syntax = "proto3"; package google.type; enum DayOfWeek { DAY_OF_WEEK_UNSPECIFIED = 0; MONDAY = 1;
TUESDAY = 2; WEDNESDAY = 3; THURSDAY = 4; FRIDAY = 5; SATURDAY = 6; SUNDAY = 7; })"},
    {"google/type/decimal.proto", R"(syntax = "proto3"; package google.type; message Decimal { string value = 1; })"},
    {"google/type/expr.proto",
     R"(syntax = "proto3"; package google.type;
message Expr { string expression = 1; string title = 2; string description = 3; string location = 4; })"},
    {"google/type/fraction.proto",
     R"(syntax = "proto3"; package google.type; message Fraction { int64 numerator = 1; int64 denominator = 2; })"},
    {"google/type/interval.proto",
     R"(syntax = "proto3"; package google.type; import "google/protobuf/timestamp.proto";
message Interval { google.protobuf.Timestamp start_time = 1; google.protobuf.Timestamp end_time = 2; })"},
    {"google/type/latlng.proto",
     R"(syntax = "proto3"; package google.type; message LatLng { double latitude = 1; double longitude = 2; })"},
    {"google/type/money.proto",
     R"(syntax = "proto3"; package google.type;
message Money { string currency_code = 1; int64 units = 2; int32 nanos = 3; })"},
    {"google/type/month.proto",
     R"(syntax = "proto3"; package google.type; enum Month { MONTH_UNSPECIFIED = 0; JANUARY = 1; FEBRUARY = 2;
MARCH = 3; APRIL = 4; MAY = 5; JUNE = 6; JULY = 7; AUGUST = 8; SEPTEMBER = 9; OCTOBER = 10; NOVEMBER = 11;
DECEMBER = 12; })"},
    {"google/type/phone_number.proto",
     R"(syntax = "proto3"; package google.type;
message PhoneNumber { oneof kind { string e164_number = 1; ShortCode short_code = 2; } string extension = 3;
  message ShortCode { string region_code = 1; string number = 2; } })"},
    {"google/type/postal_address.proto",
     R"(syntax = "proto3"; package google.type;
message PostalAddress { int32 revision = 1; string region_code = 2; string language_code = 3;
  string postal_code = 4; string sorting_code = 5; string administrative_area = 6; string locality = 7;
  string sublocality = 8; repeated string address_lines = 9; repeated string recipients = 10;
  string organization = 11; })"},
    {"google/type/quaternion.proto",
     R"(syntax = "proto3"; package google.type;
message Quaternion { double x = 1; double y = 2; double z = 3; double w = 4; })"},
    {"google/type/timeofday.proto",
     R"(syntax = "proto3"; package google.type;
message TimeOfDay { int32 hours = 1; int32 minutes = 2; int32 seconds = 3; int32 nanos = 4; })"},
}};

void add_google_files(gp::DescriptorPool& pool) {
  const gp::DescriptorPool* generated = gp::DescriptorPool::generated_pool();
  for (std::string_view name : kGoogleFiles) {
    const gp::FileDescriptor* file = generated->FindFileByName(std::string(name));
    if (file == nullptr) continue;  // a libprotobuf without it: the import stays unresolved
    gp::FileDescriptorProto proto;
    file->CopyTo(&proto);
    pool.BuildFile(proto);
  }
}

void add_declared_files(gp::DescriptorPool& pool) {
  for (const auto& [name, text] : kDeclaredFiles) {
    auto proto = parse_proto_text(text, std::string(name));
    if (!proto) continue;
    proto->clear_source_code_info();
    pool.BuildFile(*proto);
  }
}

std::unique_ptr<gp::DescriptorPool> build_pool() {
  auto pool = std::make_unique<gp::DescriptorPool>();
  add_google_files(*pool);
  add_declared_files(*pool);
  return pool;
}

}  // namespace

bool is_well_known(std::string_view import_path) {
  for (std::string_view name : kGoogleFiles) {
    if (name == import_path) return true;
  }
  for (const auto& entry : kDeclaredFiles) {
    if (entry.first == import_path) return true;
  }
  return false;
}

const gp::DescriptorPool& well_known_pool() {
  static const std::unique_ptr<gp::DescriptorPool> pool = build_pool();
  return *pool;
}

}  // namespace skiff::schema::protobuf
