// fork/exec with pipes and a deadline; see process.hpp.
#include "platform/process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/fd.hpp"
#include "platform/fs.hpp"

extern char** environ;

namespace amdml::platform {
namespace {

// After the program itself has exited, how long output still in its pipes is read
// before whatever else holds them (a grandchild) is killed.
constexpr std::chrono::milliseconds kDrainAfterExit{200};
// How long a killed process is waited for; one stuck in the kernel (a wedged GPU
// driver) is left to init rather than wedging amdml.
constexpr std::chrono::milliseconds kReapLimit{5000};

// The signals that end amdml. While a program runs they are caught: the program's
// process group is killed at once, and once it is reaped the signal is raised again
// with amdml's previous disposition, so amdml still ends by it (128+N to the shell)
// and leaves nothing running behind (a runtime stuck in hsa_init keeps /dev/kfd).
constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
volatile sig_atomic_t g_child_group = 0;
volatile sig_atomic_t g_caught = 0;

extern "C" void on_ending_signal(int sig) {
  if (g_child_group > 0) ::kill(-g_child_group, SIGKILL);
  g_caught = sig;
}

class EndingSignals {
 public:
  // Blocks the signals until watch() knows the child's group; a disposition someone
  // set to SIG_IGN (nohup) is left alone.
  EndingSignals() {
    sigemptyset(&set_);
    for (int sig : kEndingSignals) sigaddset(&set_, sig);
    ::sigprocmask(SIG_BLOCK, &set_, &old_mask_);
    struct sigaction sa {};
    sa.sa_handler = on_ending_signal;
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < std::size(kEndingSignals); ++i) {
      ::sigaction(kEndingSignals[i], nullptr, &old_[i]);
      installed_[i] = old_[i].sa_handler != SIG_IGN && ::sigaction(kEndingSignals[i], &sa, nullptr) == 0;
    }
    g_caught = 0;
  }
  ~EndingSignals() { restore(); }
  EndingSignals(const EndingSignals&) = delete;
  EndingSignals& operator=(const EndingSignals&) = delete;

  // In the child, before exec: the dispositions and the mask the caller had.
  void reset_in_child() const {
    for (std::size_t i = 0; i < std::size(kEndingSignals); ++i)
      if (installed_[i]) ::signal(kEndingSignals[i], SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  // In the parent once the child leads its own group: a pending signal arrives now.
  void watch(pid_t group) {
    g_child_group = group;
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  static bool caught() { return g_caught != 0; }
  // After the child is gone: the caller's dispositions back, then the signal that
  // arrived meanwhile raised again.
  void finish() {
    int sig = g_caught;
    g_caught = 0;
    restore();
    if (sig) ::raise(sig);
  }

 private:
  void restore() {
    if (restored_) return;
    restored_ = true;
    g_child_group = 0;
    for (std::size_t i = 0; i < std::size(kEndingSignals); ++i)
      if (installed_[i]) ::sigaction(kEndingSignals[i], &old_[i], nullptr);
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  sigset_t set_ {};
  sigset_t old_mask_ {};
  struct sigaction old_[std::size(kEndingSignals)] {};
  bool installed_[std::size(kEndingSignals)] = {};
  bool restored_ = false;
};

// Whether pid has exited, leaving it unreaped (so its pid, and its process group id,
// cannot be reused while amdml still kills by them).
bool has_exited(pid_t pid) {
  siginfo_t info {};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

bool reap(pid_t pid, int& status, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) return w == pid;
    if (std::chrono::steady_clock::now() >= until) return false;
    ::usleep(2000);
  }
}

// The processes whose parent is amdml, from /proc. It runs before and after every
// command and a desktop has hundreds of processes: each PID/stat is opened relative to
// /proc's descriptor and read in one read (open+read+close, read_small_file_at).
std::vector<pid_t> own_children() {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  const pid_t self = ::getpid();
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::string stat;
    const std::string file = std::string(e->d_name) + "/stat";
    if (auto text = read_small_file_at(::dirfd(d), file.c_str(), "stat", 4096)) stat = *text;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    auto close = stat.rfind(')');
    if (close == std::string::npos || close + 4 >= stat.size()) continue;
    if (std::atol(stat.c_str() + close + 4) == self) out.push_back(static_cast<pid_t>(std::atol(e->d_name)));
  }
  ::closedir(d);
  return out;
}

// amdml is a child subreaper (PR_SET_CHILD_SUBREAPER): a process that left its
// program's group (setsid, a double fork) and was orphaned becomes amdml's child
// instead of init's. Every child of amdml not in `known` is such a leftover: killed and
// reaped, round after round, since each one's own children come to amdml in turn.
void kill_leftovers(std::vector<pid_t> known) {
  for (int round = 0; round < 64; ++round) {
    bool any = false;
    for (pid_t c : own_children()) {
      if (std::find(known.begin(), known.end(), c) != known.end()) continue;
      any = true;
      known.push_back(c);
      ::kill(c, SIGKILL);
      int status = 0;
      (void)reap(c, status, std::chrono::milliseconds(1000));
    }
    if (!any) return;
  }
}

// Both ends of a new pipe, close-on-exec.
struct Pipe {
  Fd read, write;
};
Result<Pipe> make_pipe() {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return make_error("pipe: " + errno_text(errno), errno);
  return Pipe{Fd(ends[0]), Fd(ends[1])};
}

// The child's environment: options.env alone, or amdml's own with options.extra_env
// in place of the same names.
std::vector<std::string> child_environment(const RunOptions& options) {
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
  return env_strings;
}

// Reads the child's stdout and stderr (each up to `limit`) until both close, the deadline
// passes (result.timed_out) or amdml is asked to end; then closes both.
void read_output(pid_t pid, Pipe& out_pipe, Pipe& err_pipe, std::chrono::steady_clock::time_point deadline,
                 std::size_t limit, EndingSignals& signals, CommandResult& result) {
  using clock = std::chrono::steady_clock;
  // Set once the program has exited: then its pipes are read only as long as they
  // hold output, not for as long as a grandchild keeps them open.
  std::optional<clock::time_point> drain_until;
  Fd* const readers[2] = {&out_pipe.read, &err_pipe.read};
  struct pollfd fds[2] = {{out_pipe.read.get(), POLLIN, 0}, {err_pipe.read.get(), POLLIN, 0}};
  int open_fds = 2;
  char buf[8192];
  while (open_fds > 0 && !signals.caught()) {
    auto now = clock::now();
    if (!drain_until && has_exited(pid)) drain_until = std::min(deadline, now + kDrainAfterExit);
    auto until = drain_until.value_or(deadline);
    if (now >= until) {
      result.timed_out = !drain_until;
      break;
    }
    // A short tick while the program runs, to notice its exit under a held pipe.
    auto tick = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(until - now), std::chrono::milliseconds(50));
    int rc = ::poll(fds, 2, static_cast<int>(std::max<long>(1, tick.count())));
    if (rc < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        readers[i]->reset();
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      std::string& dst = i == 0 ? result.out : result.err;
      if (dst.size() < limit) dst.append(buf, static_cast<std::size_t>(n));
    }
  }
  for (Fd* r : readers) r->reset();
}

}  // namespace

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

  std::vector<std::string> env_strings = child_environment(options);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  AMDML_TRY(Pipe out_pipe, make_pipe());
  AMDML_TRY(Pipe err_pipe, make_pipe());
  AMDML_TRY(Pipe exec_pipe, make_pipe());
  static const bool subreaper = ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
  const std::vector<pid_t> children_before = subreaper ? own_children() : std::vector<pid_t>{};
  EndingSignals signals;
  pid_t pid = ::fork();
  if (pid < 0) return make_error("fork: " + errno_text(errno), errno);
  if (pid == 0) {
    ::setpgid(0, 0);
    signals.reset_in_child();
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(out_pipe.write.get(), 1);
    ::dup2(err_pipe.write.get(), 2);
    ::execve(exe->c_str(), cargv.data(), envp.data());
    int err = errno;
    ssize_t ignored = ::write(exec_pipe.write.get(), &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  }
  // Its own process group, so that a kill reaches whatever it starts, and so that the
  // terminal's Ctrl-C reaches amdml alone (which then ends the group itself).
  ::setpgid(pid, pid);
  signals.watch(pid);
  out_pipe.write.reset();
  err_pipe.write.reset();
  exec_pipe.write.reset();

  CommandResult result;
  int exec_errno = 0;
  while (::read(exec_pipe.read.get(), &exec_errno, sizeof exec_errno) < 0 && errno == EINTR && !signals.caught()) {
  }
  exec_pipe.read.reset();

  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + options.timeout;
  read_output(pid, out_pipe, err_pipe, deadline, options.output_limit, signals, result);
  // Output closed: the program gets the rest of the deadline to exit.
  while (!result.timed_out && !signals.caught() && !has_exited(pid)) {
    if (clock::now() >= deadline) {
      result.timed_out = true;
      break;
    }
    ::usleep(2000);
  }
  // Whatever is left of its group goes: the program itself when it timed out or amdml
  // was interrupted, else what it left behind holding a pipe or /dev/kfd.
  ::kill(-pid, SIGKILL);
  int status = 0;
  bool reaped = reap(pid, status, kReapLimit);
  if (subreaper) {
    std::vector<pid_t> known = children_before;
    known.push_back(pid);
    kill_leftovers(std::move(known));
  }
  signals.finish();
  if (exec_errno != 0) return make_error(argv[0] + ": " + errno_text(exec_errno), exec_errno);
  if (!reaped) {
    result.timed_out = true;
    return result;
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = -1;
  }
  return result;
}

}  // namespace amdml::platform
