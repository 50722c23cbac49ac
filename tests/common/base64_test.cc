// Base64 (common/base64.h): RFC 4648's test vectors in both alphabets, and
// strict decoding (nothing an encoder would not produce is accepted).
#include "common/base64.h"

#include <catch2/catch.hpp>

using skiff::base64_decode;
using skiff::base64_encode;
using skiff::base64url_decode;
using skiff::base64url_encode;

TEST_CASE("base64: RFC 4648's vectors round-trip", "[base64]") {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (auto [plain, coded] : vectors) {
    CHECK(base64_encode(plain) == coded);
    CHECK(base64_decode(coded) == plain);
    std::string unpadded(coded);
    while (!unpadded.empty() && unpadded.back() == '=') unpadded.pop_back();
    CHECK(base64url_encode(plain) == unpadded);
    CHECK(base64url_decode(unpadded) == plain);
  }
}

TEST_CASE("base64: the alphabets differ in 62 and 63", "[base64]") {
  const std::string bytes("\xfb\xff\xbf", 3);
  CHECK(base64_encode(bytes) == "+/+/");
  CHECK(base64url_encode(bytes) == "-_-_");
  CHECK(base64url_decode("-_-_") == bytes);
  CHECK_FALSE(base64url_decode("+/+/"));
  CHECK_FALSE(base64_decode("-_-_"));
}

TEST_CASE("base64: malformed text is refused", "[base64]") {
  for (std::string_view bad : {"Zg=", "Z===", "Zg==Zg==", "Zm9v!", "Zm=v", "====", "Zh=="})
    CHECK_FALSE(base64_decode(bad));
  for (std::string_view bad : {"Z", "Zg==", "Zm9vY", "Zh", "a b"}) CHECK_FALSE(base64url_decode(bad));
}
