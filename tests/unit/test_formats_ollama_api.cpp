// The running ollama server's codec (formats/ollama_api.hpp): OLLAMA_HOST read the way
// ollama reads it but followed only to loopback, /api/version and /api/ps as ollama's API
// documentation shows them, and the recorded form read back.
#include <gtest/gtest.h>

#include "formats/ollama_api.hpp"

using namespace amdml;
namespace api = amdml::formats::ollama_api;

TEST(OllamaApi, TheAddressIsLoopbackOnly) {
  EXPECT_EQ(api::address(std::nullopt).text(), "127.0.0.1:11434");
  EXPECT_EQ(api::address(std::string("0.0.0.0")).text(), "127.0.0.1:11434");
  EXPECT_EQ(api::address(std::string("0.0.0.0:8080")).text(), "127.0.0.1:8080");
  EXPECT_EQ(api::address(std::string(":9000")).text(), "127.0.0.1:9000");
  EXPECT_EQ(api::address(std::string("http://127.0.0.2:11500/")).text(), "127.0.0.2:11500");
  EXPECT_EQ(api::address(std::string("localhost:7000")).text(), "127.0.0.1:7000");
  EXPECT_EQ(api::address(std::string("[::1]:11434")).text(), "[::1]:11434");
  EXPECT_EQ(api::address(std::string("[::]:8000")).text(), "[::1]:8000");
  EXPECT_TRUE(api::address(std::string("127.0.0.1:11434")).note.empty());
  for (const char* away : {"192.168.1.5:11434", "ollama.example.com", "http://10.0.0.1:80", "[2001:db8::1]:11434",
                           "127.0.0.1.example.com"}) {
    auto a = api::address(std::string(away));
    EXPECT_EQ(a.text(), "127.0.0.1:11434") << away;
    EXPECT_NE(a.note.find("not loopback"), std::string::npos) << away << ": " << a.note;
  }
  EXPECT_NE(api::address(std::string("127.0.0.1:99999")).note.find("no valid port"), std::string::npos);
  EXPECT_EQ(api::address(std::string("127.0.0.1:99999")).text(), "127.0.0.1:11434");
}

TEST(OllamaApi, VersionAndPsAsTheApiDocumentsThem) {
  EXPECT_EQ(*api::parse_version(R"({"version":"0.12.3"})"), "0.12.3");
  EXPECT_FALSE(api::parse_version(R"({"version":12})"));
  EXPECT_FALSE(api::parse_version("404 page not found"));
  auto ps = api::parse_ps(R"({"models":[{"name":"mistral:latest","model":"mistral:latest","size":5137025024,
    "digest":"2ae6f6dd7a3dd734790bbbf58b8909a606e0e7e97e94b7604e0aa7ae4490e6d8","details":{"parent_model":"",
    "format":"gguf","family":"llama","families":["llama"],"parameter_size":"7.2B","quantization_level":"Q4_0"},
    "expires_at":"2024-06-04T14:38:31.83753-07:00","size_vram":5137025024},
    {"model":"qwen3:30b","size":19000000000,"size_vram":0},{"size":1},"junk"]})");
  ASSERT_TRUE(ps);
  ASSERT_EQ(ps->size(), 2u);
  EXPECT_EQ((*ps)[0].name, "mistral:latest");
  EXPECT_EQ((*ps)[0].size, 5137025024u);
  EXPECT_EQ((*ps)[0].size_vram, 5137025024u);
  EXPECT_EQ((*ps)[1].name, "qwen3:30b");
  EXPECT_EQ((*ps)[1].size_vram, 0u);
  EXPECT_TRUE(api::parse_ps(R"({"models":[]})")->empty());
  EXPECT_TRUE(api::parse_ps(R"({"models":null})")->empty());
  EXPECT_FALSE(api::parse_ps(R"({"model":[]})"));
  auto negative = api::parse_ps(R"({"models":[{"name":"x","size":-1,"size_vram":"big"}]})");
  ASSERT_TRUE(negative);
  EXPECT_FALSE((*negative)[0].size);
  EXPECT_FALSE((*negative)[0].size_vram);
}

TEST(OllamaApi, TheRecordReadsBackTheSame) {
  OllamaServer s;
  s.address = "127.0.0.1:11434";
  s.address_from = "the default";
  s.answered = s.ps_answered = true;
  s.version = "0.12.3";
  s.models = {{"llama3.2:3b", 3565551616u, 1200000000u}, {"x", std::nullopt, std::nullopt}};
  auto j = api::server_json(s);
  auto back = api::parse_server(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(api::server_json(*back), j);
  EXPECT_FALSE(api::parse_server(nlohmann::json::parse(R"({"address": 1})")));
  EXPECT_FALSE(api::parse_server(nlohmann::json::parse(R"({"address":"a","models":[{"name":"m","size":-5}]})")));
  EXPECT_FALSE(api::parse_server(nlohmann::json::array()));
}
