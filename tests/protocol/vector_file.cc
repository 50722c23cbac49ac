#include "tests/protocol/vector_file.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace skiff::protocol::test {

namespace {

std::vector<uint8_t> from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw std::runtime_error("odd hex length");
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  return out;
}

}  // namespace

std::vector<CodecVector> load_codec_vectors(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<CodecVector> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    CodecVector v;
    std::string kind, hex;
    int key = 0, version = 0;
    fields >> key >> kind >> version >> v.variant >> hex;
    if (!fields && !fields.eof()) throw std::runtime_error("bad line " + std::to_string(number));
    v.api_key = static_cast<int16_t>(key);
    v.request = kind == "request";
    v.version = static_cast<int16_t>(version);
    v.body = from_hex(hex);
    v.line = number;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace skiff::protocol::test
