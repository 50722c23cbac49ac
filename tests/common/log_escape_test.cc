// escaped(): client strings on their way to a log line (issue 14, item 7).
#include "common/log_escape.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>

using skiff::escape_for_log;
using skiff::escaped;

TEST_CASE("printable ASCII and valid UTF-8 pass unchanged", "[common][escape]") {
  CHECK(escape_for_log("consumer-1_a.b") == "consumer-1_a.b");
  CHECK(escape_for_log("") == "");
  const std::string utf8 = "gr\xc3\xbcn \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80";
  CHECK(escape_for_log(utf8) == utf8);
  CHECK(fmt::format("[{}]", escaped(std::string("plain"))) == "[plain]");
}

TEST_CASE("line breaks and terminal escapes cannot forge or repaint a log line", "[common][escape]") {
  const std::string forged = "app\n[fake] ERROR forged\r\t\x1b[31mred\x07\x7f";
  const std::string out = escape_for_log(forged);
  CHECK(out == "app\\n[fake] ERROR forged\\r\\t\\x1b[31mred\\x07\\x7f");
  for (char c : out) CHECK((static_cast<unsigned char>(c) >= 0x20 && c != 0x7f));
  CHECK(escape_for_log(std::string("a\0b", 3)) == "a\\x00b");
  // A backslash is escaped too, so the output cannot be mistaken for an escape.
  CHECK(escape_for_log("C:\\n") == "C:\\\\n");
}

TEST_CASE("C1 controls, line separators and bidi overrides are escaped as code points", "[common][escape]") {
  CHECK(escape_for_log("a\xc2\x9b"
                       "31mb") == "a\\u{009b}31mb");                         // CSI
  CHECK(escape_for_log("a\xe2\x80\xa8z") == "a\\u{2028}z");                  // LINE SEPARATOR
  CHECK(escape_for_log("txt\xe2\x80\xaegpj.exe") == "txt\\u{202e}gpj.exe");  // RIGHT-TO-LEFT OVERRIDE
}

TEST_CASE("invalid UTF-8 is escaped byte by byte", "[common][escape]") {
  CHECK(escape_for_log("\xff\xfe") == "\\xff\\xfe");
  CHECK(escape_for_log("a\xc3") == "a\\xc3");                  // truncated sequence
  CHECK(escape_for_log("\xc0\xaf") == "\\xc0\\xaf");           // overlong '/'
  CHECK(escape_for_log("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a UTF-16 surrogate
  CHECK(escape_for_log("\xe2\x28\xa1") == "\\xe2(\\xa1");
}

TEST_CASE("escaped() formats through fmt, null strings as null", "[common][escape]") {
  std::optional<std::string> none;
  std::optional<std::string> some = "x\ny";
  CHECK(fmt::format("{} {}", escaped(none), escaped(some)) == "null x\\ny");
  CHECK(fmt::format("{:>6}", escaped("a\nb")) == "  a\\nb");
}
