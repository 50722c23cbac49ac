#include "schema/avro/avro_compat.h"

#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>

#include "schema/avro/avro_parser.h"
#include "schema/avro/avro_printer.h"

namespace skiff::schema::avro {
namespace {

enum class State { kCompatible, kIncompatible, kInProgress };

// The incompatibilities are shared, as Java shares them between the
// results it merges (copies would cost the cube of the nesting depth).
struct Result {
  State state = State::kCompatible;
  std::vector<std::shared_ptr<const Incompatibility>> list;

  // SchemaCompatibilityResult.mergedWith.
  void merge(const Result& other) {
    list.insert(list.end(), other.list.begin(), other.list.end());
    if (state == State::kCompatible)
      state = other.state;
    else
      state = State::kIncompatible;
  }
};

Result incompatible(std::string type, std::string message, const std::vector<std::string>& location) {
  Result r;
  r.state = State::kIncompatible;
  r.list.push_back(
      std::make_shared<const Incompatibility>(Incompatibility{std::move(type), std::move(message), location}));
  return r;
}

using Location = std::vector<std::string>;

class Checker {
 public:
  Result check(const Node* reader, const Node* writer) {
    Location location;
    return get("", reader, writer, location);
  }
  const std::optional<std::string>& exception() const { return exception_; }

 private:
  Result get(const std::string& token, const Node* reader, const Node* writer, Location& location) {
    if (exception_) return {};
    if (++depth_ > kMaxTypeDepth) {
      exception_ = "schema nesting is too deep to check (more than " + std::to_string(kMaxTypeDepth) + " levels)";
      return {};
    }
    location.push_back(token);
    const auto key = std::make_pair(reader, writer);
    Result result;
    if (auto it = memo_.find(key); it != memo_.end()) {
      if (it->second.state != State::kInProgress) result = it->second;
    } else {
      memo_[key].state = State::kInProgress;
      result = calculate(reader, writer, location);
      memo_[key] = result;
    }
    location.pop_back();
    --depth_;
    return result;
  }

  // getCompatibility(reader, writer): a check from a fresh location.
  Result get_fresh(const Node* reader, const Node* writer) {
    Location location;
    return get("", reader, writer, location);
  }

  Result calculate(const Node* reader, const Node* writer, Location& location) {
    if (reader->type == writer->type) return same_type(reader, writer, location);
    Result result;
    if (writer->type == Type::kUnion) {
      for (size_t i = 0; i < writer->branches.size(); ++i)
        result.merge(get(std::to_string(i), reader, writer->branches[i], location));
      return result;
    }
    const Type w = writer->type;
    switch (reader->type) {
      case Type::kLong:
        return w == Type::kInt ? result : mismatch(reader, writer, location);
      case Type::kFloat:
        return (w == Type::kInt || w == Type::kLong) ? result : mismatch(reader, writer, location);
      case Type::kDouble:
        return (w == Type::kInt || w == Type::kLong || w == Type::kFloat) ? result : mismatch(reader, writer, location);
      case Type::kBytes:
        return w == Type::kString ? result : mismatch(reader, writer, location);
      case Type::kString:
        return w == Type::kBytes ? result : mismatch(reader, writer, location);
      case Type::kUnion:
        for (const Node* b : reader->branches)
          if (get_fresh(b, writer).state == State::kCompatible) return result;
        return incompatible("MISSING_UNION_BRANCH",
                            "reader union lacking writer type: " + std::string(type_upper(writer->type)), location);
      default:
        return mismatch(reader, writer, location);
    }
  }

  Result same_type(const Node* reader, const Node* writer, Location& location) {
    Result result;
    switch (reader->type) {
      case Type::kArray:
        return get("items", reader->items, writer->items, location);
      case Type::kMap:
        return get("values", reader->items, writer->items, location);
      case Type::kFixed:
        result.merge(names(reader, writer, location));
        result.merge(fixed_size(reader, writer, location));
        return result;
      case Type::kEnum:
        result.merge(names(reader, writer, location));
        result.merge(symbols(reader, writer, location));
        return result;
      case Type::kRecord:
        result.merge(names(reader, writer, location));
        result.merge(fields(reader, writer, location));
        return result;
      case Type::kUnion:
        for (size_t i = 0; i < writer->branches.size(); ++i) {
          location.push_back(std::to_string(i));
          if (get_fresh(reader, writer->branches[i]).state == State::kIncompatible)
            result.merge(incompatible(
                "MISSING_UNION_BRANCH",
                "reader union lacking writer type: " + std::string(type_upper(writer->branches[i]->type)), location));
          location.pop_back();
        }
        return result;
      default:
        return result;
    }
  }

  Result mismatch(const Node* reader, const Node* writer, const Location& location) {
    return incompatible("TYPE_MISMATCH",
                        "reader type: " + std::string(type_upper(reader->type)) +
                            " not compatible with writer type: " + std::string(type_upper(writer->type)),
                        location);
  }

  // SchemaCompatibility.schemaNameEquals: simple names, or a reader alias.
  Result names(const Node* reader, const Node* writer, Location& location) {
    Result result;
    location.push_back("name");
    bool equal = reader->name.name == writer->name.name;
    for (const auto& alias : reader->alias_strings()) equal |= alias == writer->name.full;
    if (!equal) result = incompatible("NAME_MISMATCH", "expected: " + writer->name.full, location);
    location.pop_back();
    return result;
  }

  Result fixed_size(const Node* reader, const Node* writer, Location& location) {
    Result result;
    location.push_back("size");
    if (reader->size != writer->size)
      result = incompatible("FIXED_SIZE_MISMATCH",
                            "expected: " + std::to_string(writer->size) + ", found: " + std::to_string(reader->size),
                            location);
    location.pop_back();
    return result;
  }

  Result symbols(const Node* reader, const Node* writer, Location& location) {
    Result result;
    location.push_back("symbols");
    std::set<std::string> missing(writer->symbols.begin(), writer->symbols.end());
    for (const auto& s : reader->symbols) missing.erase(s);
    const bool has_default = reader->enum_default && reader->has_symbol(*reader->enum_default);
    if (!missing.empty() && !has_default) {
      std::string set = "[";
      for (const auto& s : missing) set += (set.size() > 1 ? ", " : "") + s;
      result = incompatible("MISSING_ENUM_SYMBOLS", set + "]", location);
    }
    location.pop_back();
    return result;
  }

  // SchemaCompatibility.lookupWriterField: by name and by the reader's aliases.
  const Field* writer_field(const Node* writer, const Field& rf) {
    auto& index = field_index_[writer];
    if (index.empty())
      for (const Field& f : writer->fields) index.emplace(f.name, &f);
    auto lookup = [&](const std::string& name) {
      auto it = index.find(name);
      return it == index.end() ? nullptr : it->second;
    };
    std::vector<const Field*> found;
    if (const Field* direct = lookup(rf.name)) found.push_back(direct);
    for (const auto& alias : rf.aliases)
      if (const Field* f = lookup(alias)) found.push_back(f);
    if (found.size() > 1) {
      exception_ = "Reader record field " + rf.name + " type:" + std::string(type_upper(rf.type->type)) +
                   " pos:" + std::to_string(rf.pos) + " matches multiple fields in writer record schema " +
                   schema_to_string(writer);
      return nullptr;
    }
    return found.empty() ? nullptr : found[0];
  }

  Result fields(const Node* reader, const Node* writer, Location& location) {
    Result result;
    location.push_back("fields");
    for (const Field& rf : reader->fields) {
      location.push_back(std::to_string(rf.pos));
      const Field* wf = writer_field(writer, rf);
      if (exception_) return {};
      if (wf != nullptr) {
        result.merge(get("type", rf.type, wf->type, location));
      } else if (!rf.default_value) {
        if (rf.type->type == Type::kEnum && rf.type->enum_default)
          result.merge(get("type", rf.type, writer, location));
        else
          result.merge(incompatible("READER_FIELD_MISSING_DEFAULT_VALUE", rf.name, location));
      }
      location.pop_back();
    }
    location.pop_back();
    return result;
  }

  std::map<std::pair<const Node*, const Node*>, Result> memo_;
  std::unordered_map<const Node*, std::unordered_map<std::string_view, const Field*>> field_index_;
  std::optional<std::string> exception_;
  int depth_ = 0;
};

std::string escape_token(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out.push_back(c);
  }
  return out;
}

std::string description(const Incompatibility& in) {
  const std::string path = in.path();
  if (in.type == "FIXED_SIZE_MISMATCH")
    return "The size of FIXED type field at path '" + path + "' in the %s schema does not match with the %s schema";
  if (in.type == "TYPE_MISMATCH")
    return "The type (path '" + path + "') of a field in the %s schema does not match with the %s schema";
  if (in.type == "NAME_MISMATCH") return "The name of the schema has changed (path '" + path + "')";
  if (in.type == "MISSING_ENUM_SYMBOLS")
    return "The %s schema is missing enum symbols '" + in.message + "' at path '" + path + "' in the %s schema";
  if (in.type == "MISSING_UNION_BRANCH")
    return "The %s schema is missing a type inside a union field at path '" + path + "' in the %s schema";
  if (in.type == "READER_FIELD_MISSING_DEFAULT_VALUE")
    return "The field '" + in.message + "' at path '" + path +
           "' in the %s schema has no default value and is missing in the %s schema";
  return "";
}

}  // namespace

std::string Incompatibility::path() const {
  std::string out = "/";
  for (size_t i = 1; i < location.size(); ++i) {
    if (i > 1) out.push_back('/');
    out += escape_token(location[i]);
  }
  return out;
}

CompatibilityResult check_compatibility(const Node* reader, const Node* writer) {
  Checker checker;
  Result r = checker.check(reader, writer);
  CompatibilityResult out;
  if (checker.exception()) {
    out.compatible = false;
    out.exception = checker.exception();
    return out;
  }
  out.compatible = r.state != State::kIncompatible;
  for (const auto& in : r.list) out.incompatibilities.push_back(*in);
  return out;
}

std::vector<std::string> confluent_differences(const CompatibilityResult& r) {
  std::vector<std::string> out;
  if (r.exception) {
    out.push_back("Unexpected exception during compatibility check: " + *r.exception);
    return out;
  }
  for (const auto& in : r.incompatibilities)
    out.push_back("{errorType:'" + in.type + "', description:'" + description(in) + "', additionalInfo:'" + in.message +
                  "'}");
  return out;
}

}  // namespace skiff::schema::avro
