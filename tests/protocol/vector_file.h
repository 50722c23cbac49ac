// Reads tests/protocol/vectors/kmsg_vectors.txt (written by tools/codec_vectors).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skiff::protocol::test {

struct CodecVector {
  int16_t api_key = 0;
  bool request = true;
  int16_t version = 0;
  std::string variant;
  std::vector<uint8_t> body;
  int line = 0;
};

// All vectors in the file; throws std::runtime_error if it cannot be read.
std::vector<CodecVector> load_codec_vectors(const std::string& path);

}  // namespace skiff::protocol::test
