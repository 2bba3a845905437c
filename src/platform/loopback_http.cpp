// A read-only HTTP GET on loopback; see loopback_http.hpp.
#include "platform/loopback_http.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fd.hpp"
#include "base/text.hpp"
#include "platform/fs.hpp"

namespace amdml::platform {
namespace {

using Clock = std::chrono::steady_clock;

int left_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Waits until fd is ready for events or the deadline passes; false on timeout.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    struct pollfd p = {fd, events, 0};
    int n = ::poll(&p, 1, left_ms(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

}  // namespace

Result<HttpReply> loopback_get(const std::string& host, std::uint16_t port, const std::string& path,
                               std::chrono::milliseconds timeout) {
  const std::string where = "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                            std::to_string(port) + path;
  sockaddr_storage addr{};
  socklen_t len = 0;
  in_addr v4{};
  in6_addr v6{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127) {
    auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    a->sin_addr = v4;
    len = sizeof(sockaddr_in);
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6)) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    a->sin6_addr = v6;
    len = sizeof(sockaddr_in6);
  } else {
    return make_error(where + ": not a loopback address; amdml's doctor asks nothing beyond this machine");
  }
  if (path.empty() || path.front() != '/' || path.find_first_of(" \r\n") != std::string::npos)
    return make_error(where + ": not a request path");
  const auto deadline = Clock::now() + timeout;
  Fd fd(::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) return make_error(where + ": socket: " + errno_text(errno), errno);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    if (errno != EINPROGRESS) return make_error(where + ": " + errno_text(errno), errno);
    if (!wait_for(fd.get(), POLLOUT, deadline)) return make_error(where + ": no connection within the time limit", ETIMEDOUT);
    int err = 0;
    socklen_t err_len = sizeof err;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &err_len) != 0) err = errno;
    if (err != 0) return make_error(where + ": " + errno_text(err), err);
  }
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: " + host + ":" + std::to_string(port) +
                              "\r\nAccept: application/json\r\nUser-Agent: amdml\r\nConnection: close\r\n\r\n";
  std::size_t sent = 0;
  while (sent < request.size()) {
    if (!wait_for(fd.get(), POLLOUT, deadline)) return make_error(where + ": timed out sending the request", ETIMEDOUT);
    ssize_t n = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return make_error(where + ": " + errno_text(errno), errno);
    sent += static_cast<std::size_t>(n);
  }
  std::string in;
  char buf[16384];
  for (;;) {
    if (!wait_for(fd.get(), POLLIN, deadline)) return make_error(where + ": no complete answer within the time limit", ETIMEDOUT);
    ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return make_error(where + ": " + errno_text(errno), errno);
    if (n == 0) break;
    in.append(buf, static_cast<std::size_t>(n));
    if (in.size() > kMaxHttpBody + 65536) return make_error(where + ": the answer is larger than 1 MiB");
  }
  // "HTTP/1.1 200 OK\r\n...\r\n\r\nbody"
  auto head_end = in.find("\r\n\r\n");
  if (!in.starts_with("HTTP/") || head_end == std::string::npos) return make_error(where + ": not an HTTP answer");
  auto sp = in.find(' ');
  std::optional<std::uint64_t> code;
  if (sp != std::string::npos && sp < head_end) code = text::u64(std::string_view(in).substr(sp + 1, 3));
  if (!code) return make_error(where + ": no HTTP status in the answer");
  HttpReply r;
  r.status = static_cast<int>(*code);
  r.body = in.substr(head_end + 4);
  if (r.body.size() > kMaxHttpBody) return make_error(where + ": the answer is larger than 1 MiB");
  return r;
}

}  // namespace amdml::platform
