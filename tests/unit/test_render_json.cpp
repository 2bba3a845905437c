// render/json: json_text, the one writer of JSON documents (nlohmann's dump): bytes that
// are not UTF-8, read from a broken machine's files, become U+FFFD instead of an
// exception, and what it writes reads back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "render/render.hpp"

using namespace amdml;
using nlohmann::json;

TEST(JsonText, InvalidUtf8BecomesReplacementCharacters) {
  json doc = json::object();
  doc["s"] = std::string("caf\xe9 end");
  EXPECT_EQ(render::json_text(doc, -1), "{\"s\":\"caf\xef\xbf\xbd end\"}");
  doc["bytes\xff"] = 1;
  EXPECT_NO_THROW((void)render::json_text(doc));
}

TEST(JsonText, IndentsByTwoAndReadsBack) {
  json doc = json::parse(R"({"b": [1, -2, 18446744073709551615, 0.1], "a": {"e": {}, "x": null}, "q": "t\"\n"})");
  EXPECT_EQ(render::json_text(json::parse(R"({"a": [1]})")), "{\n  \"a\": [\n    1\n  ]\n}");
  EXPECT_EQ(render::json_text(json::array(), -1), "[]");
  EXPECT_EQ(json::parse(render::json_text(doc)), doc);
  EXPECT_EQ(json::parse(render::json_text(doc, -1)), doc);
}
