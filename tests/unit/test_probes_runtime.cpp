// The runtime probe end to end: the fake HSA runtime in each of its variants (the
// doctor survives crashes and hangs within the time limit), the real Debian runtime on
// this GPU-less machine (compared with rocminfo), replay of a recorded hsa section, and
// `amdml info` on a fixture.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "probes/collect.hpp"
#include "formats/runtime_record.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "platform/host.hpp"
#include "rules/rules.hpp"
#include "support/forwarding_host.hpp"
#include "platform/process.hpp"
#include "render/info.hpp"
#include "support/cli.hpp"
#include "support/live_probes.hpp"
#include "support/knowledge.hpp"
#include "support/findings.hpp"

using amdml::test::shipped_knowledge;

using namespace amdml;
using nlohmann::json;

namespace {

using test::find_finding;
using test::LiveRun;
using test::RecordingHost;
using test::ScopedEnv;

LiveRun run_live(std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  probes::ProbeOptions o;
  o.runtime_timeout = timeout;
  return test::run_live_probes(o);
}

LiveRun run_fake(const std::string& variant, std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  ScopedEnv env(test::fake_hsa(variant));
  return run_live(timeout);
}

bool file_exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

}  // namespace

TEST(RuntimeProbe, FakeZeroGpus) {
  auto r = run_fake("gpus0");
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::ok) << h.reason;
  EXPECT_EQ(h.library, AMDML_FAKE_HSA_LIBRARY);
  EXPECT_EQ(h.runtime_version, "1.14");
  ASSERT_EQ(h.agents.size(), 1u);
  EXPECT_EQ(h.agents[0].device, HsaDeviceType::cpu);
  EXPECT_EQ(h.gpu_agents(), 0u);
  EXPECT_EQ(h.agents[0].pools.size(), 3u);
  EXPECT_TRUE(h.agents[0].isas.empty());  // CPU agents have none (INVALID_AGENT)
}

TEST(RuntimeProbe, FakeOneGpu) {
  auto r = run_fake("gpus1");
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::ok) << h.reason;
  ASSERT_EQ(h.gpu_agents(), 1u);
  const HsaAgent& g = h.agents[1];
  EXPECT_EQ(g.name, "gfx1100");
  EXPECT_EQ(g.marketing_name, "Radeon RX 7900 XTX");
  EXPECT_EQ(g.vendor, "AMD");
  EXPECT_EQ(g.node, 1u);
  EXPECT_EQ(g.pci_slot(), "0000:03:00.0");
  EXPECT_EQ(g.uuid, "GPU-d1f5a6c2e7b84a90");
  EXPECT_EQ(g.chip_id, 0x744cu);
  EXPECT_EQ(g.compute_units, 96u);
  EXPECT_EQ(g.simds_per_cu, 2u);
  EXPECT_EQ(g.wavefront_size, 32u);
  EXPECT_EQ(g.isas, std::vector<std::string>{"amdgcn-amd-amdhsa--gfx1100"});
  ASSERT_EQ(g.pools.size(), 3u);
  EXPECT_EQ(g.pools[0].size->value, 24ull << 30);
  EXPECT_TRUE(g.pools[0].alloc_allowed);
  EXPECT_EQ(g.pools[0].alloc_granule->value, 4096u);
  EXPECT_FALSE(g.apu.has_value());  // the variant does not answer MEMORY_PROPERTIES, like older runtimes
  // The probe recorded what it saw, for amdml snapshot.
  ASSERT_TRUE(r.recorded.count("hsa"));
  EXPECT_EQ(r.recorded["hsa"]["agents"][1]["name"], "gfx1100");
}

TEST(RuntimeProbe, FakeEightGpus) {
  auto r = run_fake("gpus8");
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::ok) << h.reason;
  ASSERT_EQ(h.gpu_agents(), 8u);
  EXPECT_EQ(h.agents[8].name, "gfx942:sramecc+:xnack-");
  EXPECT_EQ(h.agents[8].pci_slot(), "0000:f5:00.0");
  EXPECT_EQ(h.agents[8].wavefront_size, 64u);
}

TEST(RuntimeProbe, FakeApu) {
  auto r = run_fake("apu");
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::ok) << h.reason;
  ASSERT_EQ(h.gpu_agents(), 1u);
  EXPECT_EQ(h.agents[1].apu, true);
  EXPECT_EQ(h.agents[1].marketing_name, "AMD Radeon 780M");
}

TEST(RuntimeProbe, FakeCrashIsAFinding) {
  // Under AddressSanitizer (the AMDML_SANITIZE build) the child's SEGV would be caught
  // by the sanitizer and turned into an exit status; this test is about a runtime that
  // dies by the signal, as it does in the shipped binary. Ignored without ASan.
  const char* asan = std::getenv("ASAN_OPTIONS");
  ScopedEnv no_asan_segv({{"ASAN_OPTIONS", std::string(asan ? asan : "") + (asan && *asan ? ":" : "") +
                                               "handle_segv=0:handle_abort=0"}});
  auto r = run_fake("crash");
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::crashed) << h.reason;
  EXPECT_EQ(h.signal, 11);
  EXPECT_EQ(h.last_step, "hsa_init");
  EXPECT_NE(h.stderr_tail.find("about to dereference"), std::string::npos);
  const Finding* fd = find_finding(r.findings, "runtime.crashed");
  ASSERT_NE(fd, nullptr);
  EXPECT_NE(fd->detail.find("SIGSEGV"), std::string::npos) << fd->detail;
  EXPECT_EQ(r.recorded["hsa"]["status"], "crashed");
}

TEST(RuntimeProbe, FakeHangIsKilledAtTheLimit) {
  auto r = run_fake("hang", std::chrono::milliseconds(1000));
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::timed_out) << h.reason;
  EXPECT_EQ(h.last_step, "hsa_init");
  EXPECT_EQ(h.timeout_ms, 1000u);
  // Killed at the limit, not left to run: generous slack for a loaded machine.
  EXPECT_LT(r.took.count(), 8000);
  ASSERT_NE(find_finding(r.findings, "runtime.timeout"), nullptr);
}

namespace {

// The pids the fake runtime wrote to AMDML_FAKE_HSA_PIDFILE, by role.
std::multimap<std::string, pid_t> fake_pids(const std::string& pidfile) {
  std::multimap<std::string, pid_t> out;
  std::ifstream in(pidfile);
  std::string role;
  long pid = 0;
  while (in >> role >> pid) out.emplace(role, static_cast<pid_t>(pid));
  return out;
}

// Alive and not a zombie.
bool process_running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

}  // namespace

// A runtime whose grandchild keeps the child's pipes open: the answer counts (no
// timeout), the probe returns soon after the child exits, and the grandchild -- in
// the child's process group or escaped into its own session -- does not outlive it.
TEST(RuntimeProbe, GrandchildHoldingThePipesNeitherWedgesNorOutlivesTheProbe) {
  for (const std::string variant : {"grandchild", "grandchild-session"}) {
    std::string pidfile = ::testing::TempDir() + "amdml-fake-pids-" + std::to_string(::getpid()) + "-" + variant;
    std::remove(pidfile.c_str());
    ScopedEnv env({{"AMDML_FAKE_HSA_PIDFILE", pidfile}});
    auto r = run_fake(variant, std::chrono::milliseconds(20000));
    const auto& h = r.facts.runtime.hsa;
    EXPECT_EQ(h.outcome, HsaOutcome::ok) << variant << ": " << h.reason;
    EXPECT_LT(r.took.count(), 10000) << variant;
    auto pids = fake_pids(pidfile);
    ASSERT_EQ(pids.count("grandchild"), 1u) << variant;
    pid_t grandchild = pids.find("grandchild")->second;
    EXPECT_FALSE(process_running(grandchild)) << variant << ": grandchild " << grandchild << " still runs";
    ::kill(grandchild, SIGKILL);  // on a failure, not left behind either
    std::remove(pidfile.c_str());
  }
}

// Ctrl-C, SIGTERM or SIGHUP to amdml while the runtime child hangs in hsa_init: amdml
// ends by that signal, promptly, and takes the child with it (it would keep /dev/kfd).
TEST(RuntimeProbe, EndingSignalToAmdmlEndsTheRuntimeChildToo) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    std::string pidfile = ::testing::TempDir() + "amdml-fake-pids-" + std::to_string(::getpid()) + "-signal";
    std::remove(pidfile.c_str());
    std::vector<std::string> env = {"AMDML_HSA_LIBRARY=" + std::string(AMDML_FAKE_HSA_LIBRARY),
                                    "AMDML_FAKE_HSA=" + std::string(AMDML_FAKE_HSA_VARIANTS) + "/hang.json",
                                    "AMDML_FAKE_HSA_PIDFILE=" + pidfile, "PATH=/usr/bin:/bin"};
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string bin = AMDML_BINARY;
    std::vector<std::string> args = {bin, "info", "--runtime-timeout", "120"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t amdml = ::fork();
    ASSERT_GE(amdml, 0);
    if (amdml == 0) {
      // As from a terminal: the signals' default dispositions, whatever ran the tests.
      for (int s : {SIGINT, SIGTERM, SIGHUP}) ::signal(s, SIG_DFL);
      int devnull = ::open("/dev/null", O_RDWR);
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
      ::execve(bin.c_str(), argv.data(), envp.data());
      ::_exit(127);
    }
    pid_t child = 0;
    for (int i = 0; i < 400 && !child; ++i) {
      auto pids = fake_pids(pidfile);
      if (pids.count("child")) child = pids.find("child")->second;
      else ::usleep(50 * 1000);
    }
    int status = 0;
    if (child) {
      ::usleep(100 * 1000);  // into hsa_init's pause()
      ::kill(amdml, sig);
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
      while (::waitpid(amdml, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < until) ::usleep(10 * 1000);
    }
    bool ended = ::kill(amdml, 0) != 0 || ::waitpid(amdml, &status, WNOHANG) == amdml;
    EXPECT_TRUE(ended) << "signal " << sig << ": amdml still runs";
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig << ": status " << status;
    EXPECT_NE(child, 0) << "the runtime child never started";
    if (child) {
      EXPECT_FALSE(process_running(child)) << "signal " << sig << ": runtime child " << child << " outlived amdml";
    }
    if (child) ::kill(child, SIGKILL);
    ::kill(amdml, SIGKILL);
    ::waitpid(amdml, &status, 0);
    std::remove(pidfile.c_str());
  }
}

TEST(RuntimeProbe, FakeErrorStatus) {
  auto r = run_fake("error");
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::init_failed) << h.reason;
  EXPECT_EQ(h.failed_call, "hsa_init");
  EXPECT_EQ(h.status_code, 0x1008u);
  EXPECT_EQ(h.status_name, "HSA_STATUS_ERROR_OUT_OF_RESOURCES");
  EXPECT_NE(h.status_text->find("(fake)"), std::string::npos);
  ASSERT_NE(find_finding(r.findings, "runtime.init-failed"), nullptr);
}

TEST(RuntimeProbe, RuntimeChatterOnStdoutDoesNotCorruptTheAnswer) {
  auto r = run_fake("noisy");
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::ok) << h.reason;
  EXPECT_NE(h.stderr_tail.find("would corrupt"), std::string::npos);
}

// A runtime answering a string that is not UTF-8 (a Latin-1 product name) is a normal
// answer, not a "runtime crashed": the child writes its record through the one JSON
// writer, which makes the byte U+FFFD.
TEST(RuntimeProbe, NonUtf8StringFromTheRuntimeIsAnAnswer) {
  auto r = run_fake("latin1");
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::ok) << h.reason;
  EXPECT_EQ(find_finding(r.findings, "runtime.crashed"), nullptr);
  ASSERT_EQ(h.agents.size(), 2u);
  EXPECT_EQ(h.agents[1].marketing_name, std::optional<std::string>("Radeon RX 7900 XTX \xEF\xBF\xBD" "dition"));
  EXPECT_EQ(h.agents[1].vendor, std::optional<std::string>("AMD\xEF\xBF\xBD"));
}

TEST(RuntimeProbe, MissingLibraryIsAFactNotAFailure) {
  ScopedEnv env({{"AMDML_HSA_LIBRARY", std::string("/nonexistent/libhsa-runtime64.so.1")}});
  auto r = run_live();
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::not_installed) << h.reason;
  ASSERT_EQ(h.attempts.size(), 1u);
  EXPECT_FALSE(h.attempts[0].exists);
}

TEST(RuntimeProbe, NoRuntimeDoesNothing) {
  ScopedEnv env({{"AMDML_HSA_LIBRARY", std::string("/nonexistent/lib.so")}});
  auto live = platform::make_host("/");
  RecordingHost host(std::move(*live));
  probes::ProbeOptions o;
  o.runtime = false;
  o.runtime_helper = "/nonexistent/amdml";  // would fail loudly if it were started
  Facts f = probes::collect_facts(host, shipped_knowledge(), o);
  EXPECT_EQ(f.runtime.hsa.outcome, HsaOutcome::not_run);
  EXPECT_FALSE(f.runtime.probed);
  // Nothing runtime-related was recorded (the identity probe records the NSS groups).
  EXPECT_FALSE(host.facts.count("hsa"));
  EXPECT_FALSE(host.facts.count("libdrm"));
}

// The real Debian runtime on this machine, which has no /dev/kfd: amdml must report the
// runtime's own failure and name the cause rocminfo names.
TEST(RuntimeProbe, RealRuntimeWithoutKfd) {
  std::string lib;
  for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/opt/rocm/lib"})
    if (lib.empty() && file_exists(std::string(d) + "/libhsa-runtime64.so.1")) lib = std::string(d) + "/libhsa-runtime64.so.1";
  if (lib.empty()) GTEST_SKIP() << "libhsa-runtime64.so.1 is not installed";
  if (file_exists("/dev/kfd")) GTEST_SKIP() << "this machine has /dev/kfd; the test is about a machine without";
  // Without /dev/kfd amdml asks the runtime only when AMDML_HSA_LIBRARY names it.
  ScopedEnv env({{"AMDML_HSA_LIBRARY", lib}, {"HSA_OVERRIDE_GFX_VERSION", std::nullopt}});
  auto r = run_live();
  const auto& h = r.facts.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::init_failed) << to_string(h.outcome) << ": " << h.reason;
  EXPECT_EQ(h.failed_call, "hsa_init");
  EXPECT_EQ(h.status_name, "HSA_STATUS_ERROR_OUT_OF_RESOURCES");
  ASSERT_TRUE(h.status_text.has_value());
  EXPECT_TRUE(h.status_text->starts_with("HSA_STATUS_ERROR_OUT_OF_RESOURCES: "));  // hsa_status_string's own text
  const Finding* fd = find_finding(r.findings, "runtime.init-failed");
  ASSERT_NE(fd, nullptr);

  auto rocminfo = platform::find_in_path("rocminfo");
  if (!rocminfo) return;
  platform::RunOptions ro;
  ro.timeout = std::chrono::milliseconds(20000);
  auto ri = platform::run_command({*rocminfo}, ro);
  ASSERT_TRUE(ri.ok());
  std::string text = ri->out + ri->err;
  EXPECT_NE(ri->exit_code, 0) << text;  // rocminfo fails here too
  if (text.find("ROCk module is NOT loaded") != std::string::npos) {
    // rocminfo stops at its pre-flight; amdml must name the same cause.
    EXPECT_NE(fd->detail.find("amdgpu kernel driver is not loaded"), std::string::npos) << fd->detail;
  } else if (auto p = text.find("Unable to open /dev/kfd read-write: "); p != std::string::npos) {
    EXPECT_NE(fd->detail.find("/dev/kfd"), std::string::npos) << fd->detail;
  } else if (text.find("HSA_STATUS_ERROR_OUT_OF_RESOURCES") != std::string::npos) {
    EXPECT_EQ(h.status_name, "HSA_STATUS_ERROR_OUT_OF_RESOURCES");
  } else {
    ADD_FAILURE() << "rocminfo said something amdml does not compare with:\n" << text;
  }
}

// Live without /dev/kfd (and without AMDML_HSA_LIBRARY) the runtime child is not
// started: the status is skipped, the reason names /dev/kfd, and the finding says why.
TEST(RuntimeProbe, LiveWithoutKfdDoesNotStartTheRuntime) {
  if (file_exists("/dev/kfd")) GTEST_SKIP() << "this machine has /dev/kfd; the test is about a machine without";
  ScopedEnv env({{"AMDML_HSA_LIBRARY", std::nullopt}});
  auto live = platform::make_host("/");
  RecordingHost host(std::move(*live));
  probes::ProbeOptions o;
  o.runtime_helper = "/nonexistent/amdml";  // starting it would be a bad-output failure
  Facts f = probes::collect_facts(host, shipped_knowledge(), o);
  const auto& h = f.runtime.hsa;
  ASSERT_EQ(h.outcome, HsaOutcome::skipped) << to_string(h.outcome) << ": " << h.reason;
  EXPECT_NE(h.reason.find("/dev/kfd"), std::string::npos) << h.reason;
  ASSERT_TRUE(host.facts.count("hsa"));
  EXPECT_EQ(host.facts["hsa"]["status"], "skipped");
  auto findings = diagnose(f, shipped_knowledge());
  EXPECT_EQ(find_finding(findings, "runtime.init-failed"), nullptr);
  if (f.rocm.hsa_library || !f.gpus.empty()) {
    const Finding* fd = find_finding(findings, "runtime.not-asked");
    ASSERT_NE(fd, nullptr);
    EXPECT_NE(fd->title.find("/dev/kfd"), std::string::npos) << fd->title;
  }
}

// Live, when the HSA child will run anyway (here AMDML_HSA_LIBRARY names a runtime), it is
// started before the file probes, so its start-up (ROCr's dlopen: 10-20 ms) overlaps
// them, and collected by the runtime probe (issue 16). The host holds the first file
// read until the child has been started: started first, no read came before it.
TEST(RuntimeProbe, ChildStartsBeforeTheFileProbes) {
  class OrderHost final : public test::ForwardingHost {
   public:
    using ForwardingHost::ForwardingHost;
    bool live() const override { return true; }
    Result<std::string> read_file(const std::string& p, std::size_t limit) const override {
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (reads_ == 0) cv_.wait_for(lock, std::chrono::seconds(5), [&] { return started_; });
        ++reads_;
      }
      return inner_.read_file(p, limit);
    }
    Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds t) const override {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (argv.size() > 1 && argv[1] == "__probe-hsa") {
          started_ = true;
          reads_at_start = reads_;
        }
      }
      cv_.notify_all();
      return inner_.run(argv, t);
    }
    mutable int reads_at_start = -1;

   private:
    mutable std::mutex mu_;
    mutable std::condition_variable cv_;
    mutable bool started_ = false;
    mutable int reads_ = 0;
  };
  ScopedEnv env({{"AMDML_HSA_LIBRARY", std::string(AMDML_FAKE_HSA_LIBRARY)},
                 {"AMDML_FAKE_HSA", std::string(AMDML_FAKE_HSA_VARIANTS) + "/apu.json"}});
  auto live = platform::make_host("/");
  ASSERT_TRUE(live);
  OrderHost host(**live);
  probes::ProbeOptions o;
  o.runtime_helper = AMDML_BINARY;
  Facts f = probes::collect_facts(host, shipped_knowledge(), o);
  EXPECT_EQ(host.reads_at_start, 0) << "the HSA child started after the file probes had read files";
  EXPECT_EQ(f.runtime.hsa.outcome, HsaOutcome::ok) << f.runtime.hsa.reason;
  EXPECT_EQ(f.runtime.hsa.gpu_agents(), 1u);
}

// A recorded hsa section replays into the same facts and findings as the live run
// that recorded it.
TEST(RuntimeProbe, LiveRunReplaysIdentically) {
  auto live = run_fake("apu");
  ASSERT_TRUE(live.recorded.count("hsa"));
  std::string dir = ::testing::TempDir() + "amdml-replay-XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  json manifest = {{"format", 1}, {"hsa", live.recorded["hsa"]}, {"libdrm", live.recorded["libdrm"]}};
  std::ofstream(dir + "/amdml-host.json") << manifest.dump(2);
  auto rooted = platform::make_host(dir);
  ASSERT_TRUE(rooted.ok()) << rooted.error().message;
  Facts f = probes::collect_facts(**rooted, shipped_knowledge(), probes::ProbeOptions{});
  EXPECT_TRUE(f.runtime.hsa.recorded);
  EXPECT_EQ(formats::hsa_record_json(f.runtime.hsa), formats::hsa_record_json(live.facts.runtime.hsa));
  ASSERT_EQ(f.runtime.hsa.gpu_agents(), 1u);
}

TEST(RuntimeProbe, FixtureOverrideDropsGpus) {
  auto host = platform::make_host(test::fixture("runtime-override-drops-gpus"));
  ASSERT_TRUE(host.ok()) << host.error().message;
  Facts f = probes::collect_facts(**host, shipped_knowledge(), probes::ProbeOptions{});
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].kfd_node, 1);
  EXPECT_EQ(f.runtime.hsa.outcome, HsaOutcome::ok);
  EXPECT_EQ(f.runtime.hsa.gpu_agents(), 0u);
  auto findings = diagnose(f, shipped_knowledge());
  const Finding* fd = find_finding(findings, "runtime.gpu-missing");
  ASSERT_NE(fd, nullptr);
  EXPECT_NE(fd->detail.find("HSA_OVERRIDE_GFX_VERSION=10.4.0"), std::string::npos) << fd->detail;
  // libdrm's numbers are used and agree with sysfs.
  ASSERT_EQ(f.runtime.memory.size(), 1u);
  EXPECT_EQ(f.runtime.memory[0].vram_total->source, ValueSource::libdrm);
  EXPECT_EQ(f.runtime.memory[0].vram_usable->value.value, 2118123520u);
  EXPECT_TRUE(f.runtime.memory[0].disagreements.empty());
  EXPECT_EQ(find_finding(findings, "drm.mismatch"), nullptr);
  // --no-runtime ignores the recorded section.
  probes::ProbeOptions off;
  off.runtime = false;
  Facts g = probes::collect_facts(**host, shipped_knowledge(), off);
  EXPECT_EQ(g.runtime.hsa.outcome, HsaOutcome::not_run);
  EXPECT_EQ(find_finding(diagnose(g, shipped_knowledge()), "runtime.gpu-missing"), nullptr);
}

TEST(InfoCommand, JsonFromAFixtureExitsOneWhenNoAgentIsUsable) {
  platform::RunOptions ro;
  ro.timeout = std::chrono::milliseconds(20000);
  std::string root = test::fixture("runtime-override-drops-gpus");
  auto r = platform::run_command({AMDML_BINARY, "--root", root, "info", "--format", "json"}, ro);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 1) << r->err;
  auto j = json::parse(r->out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r->out;
  EXPECT_EQ(j["schema"], "amdml.info/1");
  EXPECT_EQ(j["source"], "hsa");
  EXPECT_EQ(j["usable_gpu_agents"], 0);
  EXPECT_EQ(j["agents"].size(), 1u);
  EXPECT_EQ(j["memory"][0]["vram_total"]["source"], "libdrm");

  // Without the runtime the same machine is listed from KFD sysfs, and /dev/kfd opens.
  auto s = platform::run_command({AMDML_BINARY, "--root", root, "info", "--no-runtime", "--format", "json"}, ro);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->exit_code, 0) << s->err;
  auto k = json::parse(s->out, nullptr, false);
  ASSERT_FALSE(k.is_discarded());
  EXPECT_EQ(k["source"], "kfd-sysfs");
  EXPECT_EQ(k["agents"][1]["name"], "gfx1035");

  auto u = platform::run_command({AMDML_BINARY, "--color", "never", "--root", root, "info"}, ro);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->exit_code, 1);
  EXPECT_NE(u->out.find("runtime.gpu-missing"), std::string::npos) << u->out;
  EXPECT_NE(u->out.find("(libdrm)"), std::string::npos) << u->out;

  auto bad = platform::run_command({AMDML_BINARY, "info", "--format", "yaml"}, ro);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->exit_code, 2);
}

namespace {

// A copy of the override fixture whose recorded hsa section is replaced by hsa.
std::string fixture_with_hsa(const json& hsa) {
  namespace fs = std::filesystem;
  std::string dir = ::testing::TempDir() + "amdml-join-XXXXXX";
  if (!::mkdtemp(dir.data())) return "";
  test::copy_fixture("runtime-override-drops-gpus", dir);
  json m = json::parse(std::ifstream(dir + "/amdml-host.json"));
  m["hsa"] = hsa;
  m["env"].erase("HSA_OVERRIDE_GFX_VERSION");
  std::ofstream(dir + "/amdml-host.json") << m.dump(2);
  return dir;
}

json gpu_agent_680m(std::uint64_t coarse_pool) {
  return {{"name", "gfx1035"}, {"marketing_name", "AMD Radeon 680M"}, {"vendor", "AMD"}, {"device", "gpu"},
          {"node", 1}, {"bdfid", 29696}, {"domain", 0}, {"uuid", "GPU-XX"}, {"chip_id", 5761},
          {"compute_units", 12}, {"simds_per_cu", 2}, {"wavefront_size", 32},
          {"isas", {"amdgcn-amd-amdhsa--gfx1035"}},
          {"pools", {{{"segment", "global"}, {"global_flags", 4}, {"size", coarse_pool}, {"alloc_allowed", true}}}}};
}

}  // namespace

TEST(RuntimeProbe, AgentJoinsItsGpuByPciLocation) {
  json hsa = {{"status", "ok"}, {"agents", {gpu_agent_680m(2147483648ull)}}};
  std::string dir = fixture_with_hsa(hsa);
  ASSERT_FALSE(dir.empty());
  auto host = platform::make_host(dir);
  ASSERT_TRUE(host.ok()) << host.error().message;
  Facts f = probes::collect_facts(**host, shipped_knowledge(), probes::ProbeOptions{});
  ASSERT_EQ(f.runtime.hsa.agents.size(), 1u);
  EXPECT_EQ(f.runtime.hsa.agents[0].gpu, 0);
  auto findings = diagnose(f, shipped_knowledge());
  EXPECT_EQ(find_finding(findings, "runtime.gpu-missing"), nullptr);
  EXPECT_EQ(find_finding(findings, "drm.mismatch"), nullptr);
  EXPECT_EQ(render::usable_gpu_agents(f), 1);
}

TEST(RuntimeProbe, PoolThatDisagreesWithKfdIsFlagged) {
  json hsa = {{"status", "ok"}, {"agents", {gpu_agent_680m(4294967296ull)}}};
  std::string dir = fixture_with_hsa(hsa);
  auto host = platform::make_host(dir);
  ASSERT_TRUE(host.ok());
  Facts f = probes::collect_facts(**host, shipped_knowledge(), probes::ProbeOptions{});
  auto findings = diagnose(f, shipped_knowledge());
  const Finding* fd = find_finding(findings, "drm.mismatch");
  ASSERT_NE(fd, nullptr);
  EXPECT_NE(fd->evidence[0].value.find("hsa 4 GiB, kfd 2 GiB"), std::string::npos) << fd->evidence[0].value;
}

TEST(RuntimeProbe, BrokenRecordedSectionIsAProbeError) {
  std::string dir = fixture_with_hsa(json{{"status", "ok"}, {"agents", "gfx1035"}});
  auto host = platform::make_host(dir);
  ASSERT_TRUE(host.ok());
  Facts f = probes::collect_facts(**host, shipped_knowledge(), probes::ProbeOptions{});
  EXPECT_EQ(f.runtime.hsa.outcome, HsaOutcome::not_run);
  bool reported = false;
  for (const auto& e : f.errors) reported |= e.message == "hsa.agents must be an array";
  EXPECT_TRUE(reported);
}

// The libdrm child with the real libdrm_amdgpu: a node that does not exist and one that
// is not a DRM device are errors per node, never a failed child.
TEST(RuntimeProbe, DrmChildReportsPerNodeErrors) {
  platform::RunOptions ro;
  ro.timeout = std::chrono::milliseconds(20000);
  auto r = platform::run_command({AMDML_BINARY, "__probe-drm", "/nonexistent/renderD128", "/dev/null"}, ro);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->err;
  auto j = json::parse(r->out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r->out;
  auto d = formats::parse_libdrm_record(j);
  ASSERT_TRUE(d.ok()) << d.error().message;
  if (d->outcome == HsaOutcome::not_installed) GTEST_SKIP() << "libdrm_amdgpu is not installed";
  ASSERT_EQ(d->outcome, HsaOutcome::ok);
  ASSERT_EQ(d->devices.size(), 2u);
  EXPECT_FALSE(d->devices[0].opened);
  EXPECT_EQ(d->devices[0].error, "open: No such file or directory");
  EXPECT_FALSE(d->devices[1].opened);
  EXPECT_TRUE(d->devices[1].error.starts_with("amdgpu_device_initialize: ")) << d->devices[1].error;
}

// Live `amdml info` against the fake runtime: exit 0 with a usable GPU agent, 1 when the
// runtime crashes, one JSON document either way.
TEST(InfoCommand, LiveWithTheFakeRuntime) {
  auto run = [](const std::string& variant) {
    platform::RunOptions ro;
    ro.timeout = std::chrono::milliseconds(30000);
    ro.extra_env = {{"AMDML_HSA_LIBRARY", AMDML_FAKE_HSA_LIBRARY},
                    {"AMDML_FAKE_HSA", std::string(AMDML_FAKE_HSA_VARIANTS) + "/" + variant + ".json"}};
    return platform::run_command({AMDML_BINARY, "info", "--format", "json", "--runtime-timeout", "5"}, ro);
  };
  auto ok = run("gpus1");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->exit_code, 0) << ok->err;
  auto j = json::parse(ok->out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << ok->out;
  EXPECT_EQ(j["source"], "hsa");
  EXPECT_EQ(j["usable_gpu_agents"], 1);
  ASSERT_EQ(j["agents"].size(), 2u);
  EXPECT_EQ(j["agents"][1]["name"], "gfx1100");
  EXPECT_EQ(j["agents"][1]["source"], "hsa");

  auto crash = run("crash");
  ASSERT_TRUE(crash.ok());
  EXPECT_EQ(crash->exit_code, 1);
  auto c = json::parse(crash->out, nullptr, false);
  ASSERT_FALSE(c.is_discarded()) << crash->out;
  EXPECT_EQ(c["runtime"]["status"], "crashed");
  EXPECT_EQ(c["usable_gpu_agents"], 0);
}
