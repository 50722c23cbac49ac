// JsonObjectStream: splits a byte stream into the top-level JSON objects it
// holds one after another (v3's streamed produce: records as a stream of
// JSON objects in one chunked request, whitespace between them), without
// parsing them: only strings, their escapes and brace depth are tracked, so
// each byte is looked at once. An object larger than `max_object_bytes`,
// or anything but whitespace between objects, ends the stream (the caller
// answers an error for it and stops).
// Threads: one user at a time.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace skiff::restproxy {

class JsonObjectStream {
 public:
  explicit JsonObjectStream(size_t max_object_bytes) : max_(max_object_bytes) {}

  void feed(std::string_view bytes) { buffer_.append(bytes); }
  enum class Next { kObject, kMore, kGarbage, kTooLarge };
  // kObject: `object` holds the next whole object's text. kMore: feed more
  // (or, at the end of the input, whether anything is left: pending()).
  Next next(std::string& object);
  // Non-whitespace bytes of an unfinished object are buffered.
  bool pending() const { return start_ != std::string::npos; }

 private:
  void string_byte(char c);  // one byte inside a string
  void compact();            // drops what was answered

  const size_t max_;
  std::string buffer_;
  size_t pos_ = 0;                    // next byte to scan
  size_t start_ = std::string::npos;  // where the current object starts
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
};

}  // namespace skiff::restproxy
