#include "apps/rest_proxy/json_stream.h"

namespace skiff::restproxy {

void JsonObjectStream::string_byte(char c) {
  if (escaped_)
    escaped_ = false;
  else if (c == '\\')
    escaped_ = true;
  else if (c == '"')
    in_string_ = false;
}

void JsonObjectStream::compact() {
  if (start_ == std::string::npos) {
    buffer_.clear();  // whitespace only
    pos_ = 0;
  } else if (start_ > 0) {
    buffer_.erase(0, start_);
    pos_ -= start_;
    start_ = 0;
  }
}

JsonObjectStream::Next JsonObjectStream::next(std::string& object) {
  for (; pos_ < buffer_.size(); ++pos_) {
    const char c = buffer_[pos_];
    if (start_ == std::string::npos) {
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
      if (c != '{') return Next::kGarbage;
      start_ = pos_;
      depth_ = 0;
    }
    if (in_string_) {
      string_byte(c);
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if ((c == '}' || c == ']') && --depth_ == 0) {
      object.assign(buffer_, start_, pos_ + 1 - start_);
      buffer_.erase(0, pos_ + 1);
      pos_ = 0;
      start_ = std::string::npos;
      return Next::kObject;
    }
  }
  compact();
  if (pending() && buffer_.size() > max_) return Next::kTooLarge;
  return Next::kMore;
}

}  // namespace skiff::restproxy
