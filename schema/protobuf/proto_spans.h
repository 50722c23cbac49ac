// Where libprotoc's Parser saw each element of a .proto file (the
// SourceCodeInfo it records in the FileDescriptorProto), for what the
// descriptor itself forgets: which `reserved` or `extensions` statement
// wrote each range, and whether "5 to 5" was written as a range. A
// serialized FileDescriptorProto has no source info: each element is then
// a statement of its own (as Confluent converts a descriptor).
//
// Threads: immutable after construction.
#pragma once

#include <google/protobuf/descriptor.pb.h>

#include <map>
#include <optional>
#include <vector>

namespace skiff::schema::protobuf {

using ProtoPath = std::vector<int>;

struct SourceSpan {
  int line = 0;
  int column = 0;
  int end_line = 0;
  int end_column = 0;
  bool operator<(const SourceSpan& o) const { return line != o.line ? line < o.line : column < o.column; }
};

class SourceSpans {
 public:
  SourceSpans() = default;
  // Keeps the locations of reserved and extension ranges only.
  explicit SourceSpans(const google::protobuf::SourceCodeInfo& info);

  // The statements that wrote the elements of repeated field `field` under
  // `prefix`: each its start and its element indexes, in source order.
  struct Statement {
    SourceSpan start;
    std::vector<int> elements;
  };
  std::vector<Statement> statements(const ProtoPath& prefix, int field, int count) const;

  // The span of one element, when known.
  std::optional<SourceSpan> span(const ProtoPath& path) const;

 private:
  std::map<ProtoPath, std::vector<SourceSpan>> spans_;
};

}  // namespace skiff::schema::protobuf
