#include "schema/json/json_formats.h"

#include <arpa/inet.h>
#include <re2/re2.h>

#include <cctype>
#include <functional>
#include <map>

namespace skiff::schema::json {

namespace {

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

bool valid_day(int y, int m, int d) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= kDays[m - 1] + (m == 2 && leap(y) ? 1 : 0);
}

// java.time's SMART resolving: 24:00:00 is the end of the day.
bool valid_time(int h, int mi, int s) { return (h < 24 && mi < 60 && s < 60) || (h == 24 && mi == 0 && s == 0); }

bool valid_offset(const std::string& zone) {
  if (zone == "Z") return true;
  return std::stoi(zone.substr(1, 2)) < 24 && std::stoi(zone.substr(4, 2)) < 60;
}

// A date-time's date resolves SMART (the 29th of February of any year
// passes, a 32nd never); a date alone is checked strictly.
bool is_date(const std::string& v, bool smart) {
  static const RE2 re("(\\d{4})-(\\d{2})-(\\d{2})");
  int y = 0, m = 0, d = 0;
  if (!RE2::FullMatch(v, re, &y, &m, &d)) return false;
  return smart ? m >= 1 && m <= 12 && d >= 1 && d <= 31 && !(m == 2 && d > 29) &&
                     !((m == 4 || m == 6 || m == 9 || m == 11) && d > 30)
               : valid_day(y, m, d);
}

bool is_plain_date(const std::string& v) { return is_date(v, false); }

bool is_time(const std::string& v) {
  static const RE2 re("(\\d{2}):(\\d{2}):(\\d{2})(?:\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})");
  int h = 0, mi = 0, s = 0;
  std::string zone;
  return RE2::FullMatch(v, re, &h, &mi, &s, &zone) && valid_time(h, mi, s) && valid_offset(zone);
}

bool is_date_time(const std::string& v) {
  const size_t t = v.find('T');
  return t != std::string::npos && is_date(v.substr(0, t), true) && is_time(v.substr(t + 1));
}

bool is_hostname(const std::string& v) {
  static const RE2 label("[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
  if (v.empty() || v.size() > 255) return false;
  size_t start = 0;
  for (;;) {
    const size_t dot = v.find('.', start);
    if (!RE2::FullMatch(v.substr(start, dot - start), label)) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

bool is_ipv4(const std::string& v) {
  in_addr a{};
  return inet_pton(AF_INET, v.c_str(), &a) == 1;
}

bool is_ipv6(const std::string& v) {
  in6_addr a{};
  return inet_pton(AF_INET6, v.c_str(), &a) == 1;
}

bool is_email(const std::string& v) {
  static const RE2 local(
      "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*|\"(?:[^\"\\\\]|\\\\.)*\"");
  const size_t at = v.rfind('@');
  if (at == std::string::npos || at == 0 || at > 64) return false;
  const std::string domain = v.substr(at + 1);
  const bool literal = domain.size() > 2 && domain.front() == '[' && domain.back() == ']' &&
                       is_ipv4(domain.substr(1, domain.size() - 2));
  return RE2::FullMatch(v.substr(0, at), local) &&
         (literal || (domain.find('.') != std::string::npos && is_hostname(domain)));
}

// RFC 3986's characters, '%' followed by two hex digits.
bool uri_characters(const std::string& v) {
  static const RE2 re("(?:[A-Za-z0-9\\-._~:/?#\\[\\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*");
  return RE2::FullMatch(v, re);
}

bool is_uri(const std::string& v) {
  static const RE2 scheme("[A-Za-z][A-Za-z0-9+.-]*:.*");
  return uri_characters(v) && RE2::FullMatch(v, scheme);
}

bool is_json_pointer(const std::string& v) {
  static const RE2 re("(?:/(?:[^/~]|~[01])*)*");
  return RE2::FullMatch(v, re);
}

bool is_relative_json_pointer(const std::string& v) {
  static const RE2 re("(0|[1-9][0-9]*)(#|(?:/(?:[^/~]|~[01])*)*)");
  return RE2::FullMatch(v, re);
}

bool is_regex(const std::string& v) {
  RE2::Options options;
  options.set_log_errors(false);
  return RE2(v, options).ok();
}

}  // namespace

std::optional<std::string> format_failure(const std::string& format, const std::string& value) {
  struct Check {
    std::function<bool(const std::string&)> valid;
    const char* what;
  };
  static const std::map<std::string, Check> kChecks = {
      {"date-time", {is_date_time, "date-time"}},
      {"date", {is_plain_date, "date"}},
      {"time", {is_time, "time"}},
      {"email", {is_email, "email address"}},
      {"hostname", {is_hostname, "hostname"}},
      {"ipv4", {is_ipv4, "ipv4 address"}},
      {"ipv6", {is_ipv6, "ipv6 address"}},
      {"uri", {is_uri, "URI"}},
      {"uri-reference", {uri_characters, "URI reference"}},
      {"json-pointer", {is_json_pointer, "JSON pointer"}},
      {"relative-json-pointer", {is_relative_json_pointer, "relative JSON Pointer"}},
      {"regex", {is_regex, "regular expression"}},
  };
  const auto it = kChecks.find(format);
  if (it == kChecks.end() || it->second.valid(value)) return std::nullopt;
  return "[" + value + "] is not a valid " + it->second.what;
}

}  // namespace skiff::schema::json
