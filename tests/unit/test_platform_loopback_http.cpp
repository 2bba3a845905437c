// platform::loopback_get: a GET answered by a server on 127.0.0.1; addresses that are not
// loopback refused before any socket; a refused port, a silent server and a non-HTTP
// answer are errors within the time limit.
#include <gtest/gtest.h>

#include <chrono>

#include "platform/loopback_http.hpp"
#include "support/loopback_server.hpp"

using namespace amdml;
using std::chrono::milliseconds;

TEST(LoopbackHttp, GetsTheBodyAndStatus) {
  test::LoopbackServer server({{"/api/version", {200, R"({"version":"0.12.3"})", false}}});
  ASSERT_TRUE(server.ok());
  auto r = platform::loopback_get("127.0.0.1", static_cast<std::uint16_t>(server.port()), "/api/version", milliseconds(2000));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"version":"0.12.3"})");
  auto missing = platform::loopback_get("127.0.0.1", static_cast<std::uint16_t>(server.port()), "/nope", milliseconds(2000));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  ASSERT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(server.requests()[0], "GET /api/version HTTP/1.0");
}

TEST(LoopbackHttp, RefusesEveryAddressThatIsNotLoopback) {
  for (const char* host : {"10.0.0.1", "192.168.1.5", "0.0.0.0", "example.com", "localhost", "::", "2001:db8::1", ""}) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = platform::loopback_get(host, 11434, "/api/version", milliseconds(5000));
    ASSERT_FALSE(r) << host;
    EXPECT_NE(r.error().message.find("not a loopback address"), std::string::npos) << r.error().message;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(1000)) << host;  // never tried to connect
  }
}

TEST(LoopbackHttp, ASilentServerCostsTheLimitAndNoMore) {
  test::LoopbackServer server({{"/api/ps", {200, "", true}}});
  ASSERT_TRUE(server.ok());
  auto t0 = std::chrono::steady_clock::now();
  auto r = platform::loopback_get("127.0.0.1", static_cast<std::uint16_t>(server.port()), "/api/ps", milliseconds(500));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("within the time limit"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(2000));
}

TEST(LoopbackHttp, AClosedPortIsAnError) {
  int port = 0;
  {
    test::LoopbackServer gone({});
    port = gone.port();
  }
  auto r = platform::loopback_get("127.0.0.1", static_cast<std::uint16_t>(port), "/api/version", milliseconds(1000));
  EXPECT_FALSE(r);
}
