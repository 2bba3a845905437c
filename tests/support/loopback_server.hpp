// A tiny HTTP server on 127.0.0.1 for tests of doctor --deep's questions to ollama: it
// listens on a free port, answers each GET with the status and body the test set for its
// path (404 otherwise; a path mapped to "hang" is read and never answered), records the
// request lines, and stops when it goes out of scope.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace amdml::test {

class LoopbackServer {
 public:
  struct Answer {
    int status = 200;
    std::string body;
    bool hang = false;
  };

  explicit LoopbackServer(std::map<std::string, Answer> answers) : answers_(std::move(answers)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0) return;
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~LoopbackServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  bool ok() const { return port_ != 0; }
  int port() const { return port_; }
  std::vector<std::string> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  void serve() {
    std::vector<int> held;  // connections of "hang" answers: kept open until the server stops
    while (!stop_) {
      pollfd p = {fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      std::string in;
      char buf[4096];
      while (in.find("\r\n\r\n") == std::string::npos) {
        pollfd q = {c, POLLIN, 0};
        if (::poll(&q, 1, 2000) <= 0) break;
        ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        in.append(buf, static_cast<std::size_t>(n));
      }
      std::string line = in.substr(0, in.find("\r\n"));
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(line);
      }
      // "GET /api/ps HTTP/1.0"
      std::string path;
      if (auto sp = line.find(' '); sp != std::string::npos) path = line.substr(sp + 1, line.find(' ', sp + 1) - sp - 1);
      auto it = answers_.find(path);
      Answer a = it == answers_.end() ? Answer{404, "404 page not found", false} : it->second;
      if (a.hang) {
        held.push_back(c);
        continue;
      }
      std::string out = "HTTP/1.1 " + std::to_string(a.status) + " X\r\nContent-Type: application/json; charset=utf-8\r\n" +
                        "Content-Length: " + std::to_string(a.body.size()) + "\r\nConnection: close\r\n\r\n" + a.body;
      ::send(c, out.data(), out.size(), MSG_NOSIGNAL);
      ::close(c);
    }
    for (int c : held) ::close(c);
  }

  std::map<std::string, Answer> answers_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<std::string> requests_;
};

}  // namespace amdml::test
