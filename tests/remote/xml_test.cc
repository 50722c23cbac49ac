// The XML reader: S3's shapes, entities, CDATA, namespaces, and hostile
// input (truncated at every byte, deep nesting, huge, malformed) refused
// with a message, never a crash.
#include "remote/s3/xml.h"

#include <catch2/catch.hpp>

using namespace skiff::remote::s3;

TEST_CASE("xml reads an S3 error document") {
  auto doc = parse_xml(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code>"
      "<Message>The resource you requested does not exist</Message><Resource>/b/k</Resource>"
      "<RequestId>4442587FB7D0A2F9</RequestId></Error>");
  REQUIRE(doc);
  CHECK(doc->name == "Error");
  CHECK(doc->child_text("Code") == "NoSuchKey");
  CHECK(doc->child_text("RequestId") == "4442587FB7D0A2F9");
  CHECK_FALSE(doc->child_text("Missing"));
}

TEST_CASE("xml entities, numeric references, CDATA, comments, prefixes and attributes") {
  auto doc = parse_xml(
      "<!-- c --><s3:R xmlns:s3=\"http://s3.amazonaws.com/doc/2006-03-01/\" a='1'>"
      "<Key>a&amp;b &lt;&gt; &quot;q&quot; &apos;s&apos; &#65;&#x42;&#xE9;&#x1F600;</Key>"
      "<s3:K2><![CDATA[<raw & text>]]></s3:K2><E/><E x=\"&amp;\"></E><!-- tail --></s3:R>\n");
  REQUIRE(doc);
  CHECK(doc->name == "R");
  CHECK(doc->child_text("Key") == "a&b <> \"q\" 's' AB\xC3\xA9\xF0\x9F\x98\x80");
  CHECK(doc->child_text("K2") == "<raw & text>");
  CHECK(doc->all("E").size() == 2);
}

TEST_CASE("xml keeps spaces inside text and keys with unicode") {
  auto doc = parse_xml("<L><Contents><Key> a b /\xE2\x82\xAC+=~ </Key></Contents></L>");
  REQUIRE(doc);
  CHECK(doc->child("Contents")->child_text("Key") == " a b /\xE2\x82\xAC+=~ ");
}

TEST_CASE("xml refuses malformed documents") {
  for (const char* bad : {"",
                          "text",
                          "<a>",
                          "<a></b>",
                          "<a><b></a></b>",
                          "<a>&bogus;</a>",
                          "<a>&#0;</a>",
                          "<a>&#xD800;</a>",
                          "<a>&#x110000;</a>",
                          "<a>&amp</a>",
                          "<a x=1></a>",
                          "<a x=\"1></a>",
                          "<a></a><b></b>",
                          "<!DOCTYPE a><a/>",
                          "<a><![CDATA[x</a>",
                          "<a><!-- x</a>",
                          "<>",
                          "</a>",
                          "<a><?pi?></a>",
                          "<a>&#12345678901;</a>"}) {
    INFO(bad);
    auto r = parse_xml(bad);
    CHECK_FALSE(r);
    if (!r) CHECK_FALSE(r.error().empty());
  }
}

TEST_CASE("xml truncated at every byte never crashes and never succeeds") {
  const std::string doc =
      "<?xml version=\"1.0\"?><ListBucketResult><Name>b</Name><Contents><Key>k&amp;1</Key><Size>3</Size>"
      "</Contents><IsTruncated>false</IsTruncated></ListBucketResult>";
  REQUIRE(parse_xml(doc));
  for (size_t n = 0; n < doc.size(); ++n) {
    INFO(n);
    CHECK_FALSE(parse_xml(std::string_view(doc).substr(0, n)));
  }
}

TEST_CASE("xml bounds depth, element count and size") {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  auto r = parse_xml(deep);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("deep") != std::string::npos);
  std::string many = "<r>";
  for (int i = 0; i < 2000; ++i) many += "<e/>";
  many += "</r>";
  XmlLimits small;
  small.max_elements = 1000;
  CHECK_FALSE(parse_xml(many, small));
  CHECK(parse_xml(many));
  small.max_bytes = 100;
  CHECK_FALSE(parse_xml(many, small));
}

TEST_CASE("xml escape round-trips through the reader") {
  const std::string raw = "a&b<c>d\"e'f\r\xE2\x82\xAC";
  auto doc = parse_xml("<k>" + xml_escape(raw) + "</k>");
  REQUIRE(doc);
  CHECK(doc->text == raw);
}
