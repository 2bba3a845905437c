// fork/exec with pipes and a deadline; see process.hpp.
#include "platform/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "platform/fs.hpp"

extern char** environ;

namespace amdml::platform {

std::optional<std::string> find_in_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string full = dir + "/" + program;
    struct stat st {};
    if (::stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(full.c_str(), X_OK) == 0) return full;
    start = end + 1;
  }
  return std::nullopt;
}

Result<CommandResult> run_command(const std::vector<std::string>& argv, const RunOptions& options) {
  if (argv.empty()) return make_error("run: empty command");
  auto exe = find_in_path(argv[0]);
  if (!exe) return make_error(argv[0] + ": not found on PATH", ENOENT);

  std::vector<std::string> env_strings;
  if (options.env) {
    for (const auto& [k, v] : *options.env) env_strings.push_back(k + "=" + v);
  } else {
    for (char** e = environ; e && *e; ++e) {
      std::string s = *e;
      auto key = s.substr(0, s.find('='));
      if (options.extra_env.count(key)) continue;
      env_strings.push_back(std::move(s));
    }
  }
  for (const auto& [k, v] : options.extra_env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return make_error("pipe: " + errno_text(errno), errno);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]); ::close(out_pipe[1]);
    return make_error("pipe: " + errno_text(errno), errno);
  }
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]); ::close(out_pipe[1]); ::close(err_pipe[0]); ::close(err_pipe[1]);
    return make_error("pipe: " + errno_text(errno), errno);
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], exec_pipe[0], exec_pipe[1]}) ::close(fd);
    return make_error("fork: " + errno_text(err), err);
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::execve(exe->c_str(), cargv.data(), envp.data());
    int err = errno;
    ssize_t ignored = ::write(exec_pipe[1], &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);

  CommandResult result;
  int exec_errno = 0;
  if (::read(exec_pipe[0], &exec_errno, sizeof exec_errno) != sizeof exec_errno) exec_errno = 0;
  ::close(exec_pipe[0]);

  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[8192];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    int rc = ::poll(fds, 2, static_cast<int>(left.count()));
    if (rc < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      std::string& dst = i == 0 ? result.out : result.err;
      if (dst.size() < options.output_limit) dst.append(buf, static_cast<std::size_t>(n));
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  if (result.timed_out) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  } else {
    // Output closed; give the process the rest of the deadline to exit.
    for (;;) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) goto reaped;
      if (std::chrono::steady_clock::now() >= deadline) break;
      ::usleep(2000);
    }
    result.timed_out = true;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
reaped:
  if (exec_errno != 0) return make_error(argv[0] + ": " + errno_text(exec_errno), exec_errno);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = -1;
  }
  return result;
}

}  // namespace amdml::platform
