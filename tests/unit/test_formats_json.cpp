// formats/json: the bounded JSON reader.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "formats/json.hpp"

using namespace amdml;

TEST(ParseJson, DepthIsBoundedOutsideStrings) {
  auto nested = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_TRUE(formats::parse_json(nested(formats::kMaxJsonDepth)).ok());
  auto deep = formats::parse_json(nested(formats::kMaxJsonDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message, "nested deeper than 64 levels");
  EXPECT_FALSE(formats::parse_json(nested(300000)).ok());
  // Brackets and escaped quotes inside strings do not count.
  auto s = formats::parse_json("{\"a\": \"" + std::string(100, '[') + "\\\"[[\", \"b\": [{}]}");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ((*s)["b"].size(), 1u);
  EXPECT_EQ(formats::parse_json("{\"a\": ").error().message, "not valid JSON");
}

namespace {

// The document parse_plain_json's events build (nlohmann's own DOM builder).
std::optional<nlohmann::json> plain_document(std::string_view text) {
  nlohmann::json doc;
  nlohmann::detail::json_sax_dom_parser<nlohmann::json> dom(doc, false);
  if (!formats::parse_plain_json(text, dom)) return std::nullopt;
  return doc;
}

// Equal values of equal kinds all the way down ("-0" is a signed integer, "0" unsigned:
// operator== calls them equal).
bool same_kinds(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type() || a.size() != b.size() || a != b) return false;
  if (a.is_object())
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!same_kinds(it.value(), b.at(it.key()))) return false;
  if (a.is_array())
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_kinds(a[i], b[i])) return false;
  return true;
}

}  // namespace

// Issue 16: the manifest's fast path gives nlohmann's parse the same document, keys
// repeated included (the last one wins), and leaves everything else to nlohmann.
TEST(ParsePlainJson, GivesNlohmannsDocument) {
  for (const char* text :
       {R"({"a": 1, "b": [true, false, null], "c": {"d": "q\"b\\s\/b\bf\fn\nr\rt\t"}, "a": -0})", "[]", "{}", R"("x")", "7",
        " \n\t[ -12 , 0 , 123456789012345678, -123456789012345678 ]\r\n", R"({"e": {}, "f": [[], [{}]], "": ""})",
        R"({"devices": {"/dev/kfd": {"mode": "0660", "uid": 0, "gid": 105}, "/dev/kfd": {"open": "EACCES"}}})"}) {
    auto plain = plain_document(text);
    ASSERT_TRUE(plain) << text;
    EXPECT_TRUE(same_kinds(*plain, nlohmann::json::parse(text))) << text << "\n" << plain->dump();
  }
}

TEST(ParsePlainJson, LeavesAnythingElseToNlohmann) {
  auto nested = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_TRUE(plain_document(nested(formats::kMaxJsonDepth)));
  for (const std::string& text :
       {std::string("1.5"), std::string("[1e3]"), std::string(R"("\u00e9")"), std::string("\"caf\xc3\xa9\""),
        std::string("1234567890123456789"), std::string("[01]"), std::string("[1,]"), std::string(R"({"a" 1})"),
        std::string(""), std::string("\xef\xbb\xbf{}"), std::string("[] x"), std::string(R"({"a":1}{"b":2})"),
        std::string("tru"), std::string("[\"tab\there\"]"), std::string("-"), nested(formats::kMaxJsonDepth + 1)})
    EXPECT_FALSE(plain_document(text)) << text;
}
