// The regression runner: a main() for a libFuzzer target built with the ordinary
// compiler, so every build (gcc, Debug, the ASan pass in CI) replays the committed
// seed corpus, the fixture files and every crash ever found, through the same
// LLVMFuzzerTestOneInput the fuzzer drives.
//
//   amdml_fuzz_replay_<target> [--mutate N] [--seed S] PATH...
//
// PATH is a file or a directory (read recursively, in name order). With --mutate N
// each input is also fed N times through a small deterministic mutator (byte flips,
// truncation, splices, tokens a parser should choke on), a cheap fixed-seed fuzz that
// runs under the sanitizers in CI where libFuzzer is not available. A run that finds
// no input at all fails: a replay of nothing proves nothing. When an input crashes the
// target, it is written to ./replay-crash-input (the mutated ones exist nowhere else)
// so it can be committed under regressions/.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// xorshift64*: tiny, deterministic across platforms, good enough to pick mutations.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
};

// Values that have broken parsers elsewhere: signs, overflow, separators, quotes,
// continuations, NUL, long runs.
const char* const kTokens[] = {"-1",   "+1",   "0",      "18446744073709551616", "4294967296", "0x",  "=",
                               ":",    "\"",   "'",      "\\\n",                 "\\",         "\0",  "\r\n",
                               "#",    " ",    "\t",     "{}",                   "[",          "]]",  "\"\"\"",
                               "gfx",  "..",   "1e309",  "nan",                  "\xff\xfe",   ",",   "\n\n"};

std::string mutate(const std::string& in, Rng& rng) {
  std::string s = in;
  int steps = 1 + static_cast<int>(rng.below(4));
  for (int i = 0; i < steps; ++i) {
    switch (rng.below(7)) {
      case 0:  // flip a byte
        if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(rng.next());
        break;
      case 1:  // truncate
        s.resize(rng.below(s.size() + 1));
        break;
      case 2: {  // delete a range
        if (s.empty()) break;
        std::size_t a = rng.below(s.size());
        s.erase(a, rng.below(s.size() - a + 1));
        break;
      }
      case 3: {  // insert a token
        std::string tok = kTokens[rng.below(std::size(kTokens))];
        if (tok.empty()) tok.assign(1, '\0');
        s.insert(rng.below(s.size() + 1), tok);
        break;
      }
      case 4: {  // duplicate a chunk somewhere else
        if (s.empty()) break;
        std::size_t a = rng.below(s.size());
        std::string chunk = s.substr(a, 1 + rng.below(64));
        s.insert(rng.below(s.size() + 1), chunk);
        break;
      }
      case 5: {  // replace a digit run with a huge number
        auto p = s.find_first_of("0123456789", rng.below(s.size() + 1));
        if (p == std::string::npos) break;
        auto e = s.find_first_not_of("0123456789", p);
        s.replace(p, (e == std::string::npos ? s.size() : e) - p, "99999999999999999999999");
        break;
      }
      case 6:  // a long run of one byte
        s.insert(rng.below(s.size() + 1), std::string(1 + rng.below(4096), static_cast<char>(rng.next())));
        break;
    }
  }
  return s;
}

bool read_all(const fs::path& p, std::string& out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

const std::string* g_current = nullptr;

// On a crash: save the input that caused it (only async-signal-safe calls), then die
// of the same signal.
extern "C" void save_crash_input(int sig) {
  if (g_current) {
    int fd = ::open("replay-crash-input", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      std::size_t off = 0;
      while (off < g_current->size()) {
        ssize_t n = ::write(fd, g_current->data() + off, g_current->size() - off);
        if (n <= 0) break;
        off += static_cast<std::size_t>(n);
      }
      ::close(fd);
      const char msg[] = "replay: the crashing input is in ./replay-crash-input\n";
      (void)!::write(2, msg, sizeof msg - 1);
    }
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void run_one(const std::string& s) {
  g_current = &s;
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  g_current = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  long mutations = 0;
  std::uint64_t seed = 0x616d646d6cULL;  // "amdml"
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--mutate" && i + 1 < argc) {
      mutations = std::strtol(argv[++i], nullptr, 10);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10) | 1;
    } else if (fs::is_directory(a)) {
      std::vector<fs::path> found;
      for (const auto& e : fs::recursive_directory_iterator(a))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') found.push_back(e.path());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(a)) {
      files.emplace_back(a);
    } else if (!fs::exists(a)) {
      // A regressions/ dir with no crash yet is normal; a missing file named on purpose is not.
      if (a.find("regressions") == std::string::npos) {
        std::fprintf(stderr, "replay: %s: no such file or directory\n", a.c_str());
        return 2;
      }
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "replay: no inputs\n");
    return 2;
  }
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, save_crash_input);
  Rng rng{seed};
  long runs = 0;
  for (const auto& p : files) {
    std::string data;
    if (!read_all(p, data)) {
      std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
      return 2;
    }
    run_one(data);
    ++runs;
    for (long m = 0; m < mutations; ++m, ++runs) run_one(mutate(data, rng));
  }
  std::printf("replay: %zu inputs, %ld executions, no failure\n", files.size(), runs);
  return 0;
}
