#include "schema/protobuf/proto_spans.h"

#include <algorithm>

namespace skiff::schema::protobuf {

namespace {

// Whether a location is a reserved or extension range statement of a
// message or enum, or one range of it: the path descends through message
// and enum declarations, then names the range field (and an index).
bool range_location(const google::protobuf::RepeatedField<int>& path) {
  enum class Kind { kFile, kMessage, kEnum } kind = Kind::kFile;
  int i = 0;
  const int size = path.size();
  while (i + 1 < size) {
    int field = path[i];
    Kind next;
    if ((kind == Kind::kFile && field == 4) || (kind == Kind::kMessage && field == 3)) {
      next = Kind::kMessage;
    } else if ((kind == Kind::kFile && field == 5) || (kind == Kind::kMessage && field == 4)) {
      next = Kind::kEnum;
    } else {
      break;
    }
    if (i + 2 == size) return false;  // the declaration itself
    kind = next;
    i += 2;
  }
  int rest = size - i;
  if (rest != 1 && rest != 2) return false;
  int field = path[i];
  if (kind == Kind::kMessage) return field == 9 || field == 10 || field == 5;  // reserved range, name; extension range
  return kind == Kind::kEnum && (field == 4 || field == 5);                    // reserved range, name
}

}  // namespace

SourceSpans::SourceSpans(const google::protobuf::SourceCodeInfo& info) {
  for (const auto& location : info.location()) {
    if (!range_location(location.path())) continue;
    const auto& s = location.span();
    if (s.size() != 3 && s.size() != 4) continue;
    SourceSpan span{s[0], s[1], s.size() == 4 ? s[2] : s[0], s.size() == 4 ? s[3] : s[2]};
    spans_[ProtoPath(location.path().begin(), location.path().end())].push_back(span);
  }
}

std::optional<SourceSpan> SourceSpans::span(const ProtoPath& path) const {
  auto it = spans_.find(path);
  if (it == spans_.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

std::vector<SourceSpans::Statement> SourceSpans::statements(const ProtoPath& prefix, int field, int count) const {
  std::vector<Statement> out;
  if (count == 0) return out;
  ProtoPath path = prefix;
  path.push_back(field);
  auto it = spans_.find(path);
  if (it != spans_.end()) {
    for (const SourceSpan& start : it->second) out.push_back(Statement{start, {}});
    std::sort(out.begin(), out.end(), [](const Statement& a, const Statement& b) { return a.start < b.start; });
  }
  if (out.empty()) {  // no source info (a serialized file): a statement each, as Confluent converts it
    for (int i = 0; i < count; ++i) out.push_back(Statement{{}, {i}});
    return out;
  }
  path.push_back(0);
  for (int i = 0; i < count; ++i) {
    path.back() = i;
    std::optional<SourceSpan> element = span(path);
    Statement* owner = &out.front();
    for (Statement& s : out) {
      if (element && !(*element < s.start)) owner = &s;
    }
    owner->elements.push_back(i);
  }
  std::erase_if(out, [](const Statement& s) { return s.elements.empty(); });
  return out;
}

}  // namespace skiff::schema::protobuf
