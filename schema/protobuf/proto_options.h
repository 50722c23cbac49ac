// Options of a Protobuf schema as Square Wire's OptionElement models them
// (what Confluent's printer prints): a name, parenthesized for a custom
// option, the field path under it ("(a.b).c.d"), and a value that is a
// string, a number, a boolean, an enum name, a map (a message literal, its
// keys in their order, a repeated key turned into a list) or a list.
//
// collect_options() reads them from an options message of an unbuilt
// FileDescriptorProto: libprotoc's Parser keeps each written option as an
// uninterpreted option, in order, with a message literal as text that is
// parsed here; a serialized FileDescriptorProto has them interpreted, and
// their set fields are read first.
//
// Threads: pure functions.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace skiff::schema::protobuf {

struct OptionEntry;

struct OptionValue {
  enum class Kind { kString, kNumber, kBoolean, kEnum, kMap, kList };
  Kind kind = Kind::kEnum;
  std::string text;               // scalars; a string unescaped
  std::vector<OptionEntry> map;   // kMap, in order
  std::vector<OptionValue> list;  // kList
};

struct OptionEntry {
  std::string key;
  OptionValue value;
};

struct OptionItem {
  std::string name;  // without the parentheses
  bool parenthesized = false;
  std::vector<std::string> path;  // sub-field names, printed after '.'
  OptionValue value;
};

std::vector<OptionItem> collect_options(const google::protobuf::Message& options);

// "name = value" in Wire's layout (a map over indented lines), as
// Confluent's ProtobufSchemaUtils prints an option; `normalize` formats
// numbers and orders map keys as its normalizing printer does.
std::string format_option(const OptionItem& option, bool normalize);
std::string format_value(const OptionValue& value, bool normalize);

// Java's ProtobufSchemaUtils.escapeChars: the escapes of a quoted string.
std::string escape_chars(std::string_view text);

// Appends `text` with each of its lines indented by two spaces (Confluent's
// appendIndented).
void append_indented(std::string& out, std::string_view text);

// Resolves a custom option's name (as written) to its extension, in the
// scope of the element that carries it; nullptr when it does not resolve.
using ExtensionResolver = std::function<const google::protobuf::FieldDescriptor*(const std::string& name)>;

// Confluent's normalized options: custom option names fully qualified and
// their field paths turned into maps, sorted by name, the repeated settings
// of one non-repeated custom option merged into one.
std::vector<OptionItem> normalize_options(std::vector<OptionItem> options, const ExtensionResolver& resolve);

}  // namespace skiff::schema::protobuf
