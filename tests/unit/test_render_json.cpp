// render/json: json_text, the one writer of JSON documents, writes nlohmann's own text
// byte for byte (issue 16 made it write the common values itself).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "render/render.hpp"

using namespace amdml;
using nlohmann::json;

TEST(JsonText, WritesNlohmannsBytes) {
  json doc = json::parse(R"({"b": [1, -2, 18446744073709551615, -9223372036854775808, 0.1, 1e300, -0.0, 3.0],
                             "a": {"empty_object": {}, "empty_array": [], "nested": [[{}], [[]], {"x": null}]},
                             "strings": ["plain", "quote\" backslash\\ slash/", "tab\t nl\n cr\r bs\b ff\f",
                                         "\u0001\u001f\u007f", "caf\u00e9 \u2713 \ud83d\ude00", ""],
                             "bools": [true, false], "": "empty key", "k\"ey": "escaped key"})");
  doc["invalid_utf8"] = std::string("caf\xe9 \xc0\xaf \xed\xa0\x80 end");
  doc["bytes\xff"] = "key with an invalid byte";
  for (const json& j : {doc, json(nullptr), json(5), json("s"), json::array(), json::object(), json(2.5)})
    for (int indent : {2, -1, 0, 4})
      EXPECT_EQ(render::json_text(j, indent), j.dump(indent, ' ', false, json::error_handler_t::replace)) << indent;
}
