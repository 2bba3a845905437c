// Issue 14, memory: the TTM limit computed in one place (every memory finding asks the
// same recipe with the same parameters, never more than 90 % of RAM), the kernel
// command line edited where the options are set, and modprobe.d read as modprobe
// reads it -- checked against `modprobe -C DIR --showconfig` itself.
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "fix/edits.hpp"
#include "fix/fix.hpp"
#include "platform/safe_tree.hpp"
#include "formats/fix_params_json.hpp"
#include "formats/system_files.hpp"
#include "rules/rules_internal.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"

using namespace amdml;
using namespace amdml::test;

namespace {

std::vector<const Finding*> memory_findings(const Diagnosed& d) {
  std::vector<const Finding*> out;
  for (const auto& f : d.findings)
    if (std::string(to_string(f.id)).starts_with("memory.")) out.push_back(&f);
  return out;
}

// Every memory finding that a recipe fixes asks for the same recipe and parameters.
void expect_one_request(const Diagnosed& d, const std::string& recipe) {
  auto mem = memory_findings(d);
  ASSERT_FALSE(mem.empty());
  const FixRef* first = nullptr;
  for (const auto* f : mem) {
    ASSERT_TRUE(f->fix) << to_string(f->id) << ": " << f->title;
    EXPECT_EQ(f->fix->recipe, recipe) << f->title;
    if (!first) first = &*f->fix;
    EXPECT_EQ(formats::fix_params_json(f->fix->params), formats::fix_params_json(first->params)) << f->title;
  }
}

TEST(MemoryOneVoice, FixApuRaisesTheLimitEverywhereItIsAdvised) {
  // ttm.conf:3 sets 12 GiB, the running value is the default 15.3 GiB, the recommendation
  // 26 GiB: regenerating the initramfs alone would lower GTT, so no finding may say so.
  Diagnosed d(fixture("fix-apu"));
  expect_one_request(d, "ttm-pages-limit");
  for (const auto* f : memory_findings(d))
    for (const auto& c : f->commands) EXPECT_EQ(c.find("update-initramfs -u   #"), std::string::npos) << f->title << ": " << c;
  EXPECT_EQ(formats::fix_params_json(memory_findings(d)[0]->fix->params)["pages_limit"], 26 * kGiB / kPageSize);
}

TEST(MemoryOneVoice, StrixHaloDkmsAsksOneLimit) {
  Diagnosed d(fixture("strixhalo-ttm-under-dkms"));
  EXPECT_EQ(memory_findings(d).size(), 2u);
  expect_one_request(d, "ttm-pages-limit");
}

TEST(MemoryOneVoice, StrixHaloEditsTheKernelCommandLineWithinNinetyPercent) {
  Diagnosed d(fixture("strix-halo"));
  expect_one_request(d, "kernel-cmdline");
  const auto p = formats::fix_params_json(memory_findings(d)[0]->fix->params);
  const std::uint64_t pages = std::stoull(p["set"]["ttm.pages_limit"].get<std::string>());
  EXPECT_LE(static_cast<double>(pages * kPageSize), 0.9 * static_cast<double>(d.facts.memory.total->value));
  EXPECT_EQ(p["remove"], (nlohmann::json{"amdgpu.gttsize", "amdttm.page_pool_size", "amdttm.pages_limit"}));
}

TEST(MemoryOneVoice, AnUnknownGttParameterOnTheCommandLineGetsARecipe) {
  Diagnosed d(fixture("strix-halo"));
  d.facts.driver.cmdline_options["amdgpu.gtt_size"] = "120000";
  std::vector<Finding> out;
  rules::memory_rules(RuleContext{d.facts, shipped_knowledge()}, out);
  bool seen = false;
  for (const auto& f : out)
    if (f.title.find("amdgpu.gtt_size") != std::string::npos) {
      seen = true;
      ASSERT_TRUE(f.fix);
      EXPECT_EQ(f.fix->recipe, "kernel-cmdline");
      auto remove = formats::fix_params_json(f.fix->params)["remove"];
      EXPECT_NE(std::find(remove.begin(), remove.end(), "amdgpu.gtt_size"), remove.end()) << remove;
    }
  EXPECT_TRUE(seen);
}

TEST(MemoryOneVoice, StrixHaloAfterTheApplyTheRebootThenNothing) {
  TestTree t("strix-halo");
  Diagnosed before(t.str());
  const auto req = std::get<KernelCmdlineParams>(memory_findings(before)[0]->fix->params);
  // What the kernel-cmdline recipe writes: GRUB's defaults carry the request.
  t.write("etc/default/grub", fix::edit_grub_defaults(read_file(t / "etc/default/grub"), req).text);
  Diagnosed applied(t.str());
  ASSERT_EQ(memory_findings(applied).size(), memory_findings(before).size());
  for (const auto* f : memory_findings(applied)) {
    EXPECT_FALSE(f->fix) << f->title;  // nothing left for `amdml fix`
    EXPECT_EQ(f->commands, std::vector<std::string>{"sudo reboot"});
    ASSERT_FALSE(f->notes.empty());
    EXPECT_NE(f->notes.back().find("/etc/default/grub already gives the next boot"), std::string::npos) << f->notes.back();
  }
  // The reboot: the command line is GRUB's, ttm loads with the limit, GTT follows it.
  const std::string pages = req.set.at("ttm.pages_limit");
  t.write("proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.12.48+deb13-amd64 ro " + formats::parse::grub_cmdline(read_file(t / "etc/default/grub")) + "\n");
  t.write("sys/module/ttm/parameters/pages_limit", pages + "\n");
  t.write("sys/module/ttm/parameters/page_pool_size", pages + "\n");
  t.write("sys/module/amdgpu/parameters/gttsize", "-1\n");
  write_file(fs::canonical(t / "sys/class/drm/card0/device") / "mem_info_gtt_total",
             std::to_string(std::stoull(pages) * kPageSize) + "\n");
  Diagnosed rebooted(t.str());
  EXPECT_TRUE(memory_findings(rebooted).empty()) << memory_findings(rebooted)[0]->title;
}

// A grub.d file grub-mkconfig sources after /etc/default/grub overrides it (issue 29 M2):
// the request in /etc/default/grub alone is no pending reboot; in the grub.d file it is,
// and the note names that file.
TEST(MemoryOneVoice, GrubDotDDecidesWhatTheNextBootGets) {
  TestTree t("strix-halo");
  Diagnosed before(t.str());
  const auto req = std::get<KernelCmdlineParams>(memory_findings(before)[0]->fix->params);
  const std::string grub = fix::edit_grub_defaults(read_file(t / "etc/default/grub"), req).text;
  const std::string cloud = "GRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1 console=ttyS0\"\n";
  t.write("etc/default/grub", grub);
  t.write("etc/default/grub.d/50-cloudimg-settings.cfg", cloud);
  Diagnosed overridden(t.str());
  ASSERT_FALSE(memory_findings(overridden).empty());
  for (const auto* f : memory_findings(overridden)) {
    EXPECT_TRUE(f->fix) << f->title;
    for (const auto& n : f->notes) EXPECT_EQ(n.find("already gives the next boot"), std::string::npos) << n;
  }
  auto e = fix::edit_grub_files({{"/etc/default/grub", grub}, {"/etc/default/grub.d/50-cloudimg-settings.cfg", cloud}}, req);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->texts[0], grub);
  t.write("etc/default/grub.d/50-cloudimg-settings.cfg", e->texts[1]);
  Diagnosed applied(t.str());
  ASSERT_FALSE(memory_findings(applied).empty());
  for (const auto* f : memory_findings(applied)) {
    EXPECT_FALSE(f->fix) << f->title;
    ASSERT_FALSE(f->notes.empty());
    EXPECT_NE(f->notes.back().find("/etc/default/grub.d/50-cloudimg-settings.cfg already gives the next boot"),
              std::string::npos)
        << f->notes.back();
  }
}

// --- modprobe's own view (item 10) -----------------------------------------------

bool have_modprobe() { return std::system("modprobe --version >/dev/null 2>&1") == 0; }

// What modprobe -C DIR --showconfig applies for module.key: its options lines for the
// module concatenated in order, read the way the kernel does (quotes around a word
// dropped, '-' and '_' alike, the last setting wins).
std::optional<std::string> showconfig_value(const std::string& dir, const std::string& module, const std::string& key) {
  const std::string out = (fs::temp_directory_path() / ("amdml-showconfig-" + std::to_string(::getpid()))).string();
  const std::string cmd = "modprobe -C '" + dir + "' --showconfig >'" + out + "' 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) return std::nullopt;
  std::ifstream in(out);
  std::string line;
  std::optional<std::string> value;
  auto norm = [](std::string s) {
    for (auto& c : s) c = c == '-' ? '_' : c;
    return s;
  };
  while (std::getline(in, line)) {
    auto words = text::split_ws(line);
    if (words.size() < 3 || words[0] != "options" || norm(words[1]) != module) continue;
    for (std::size_t i = 2; i < words.size(); ++i) {
      std::string w = words[i];
      if (w.size() >= 2 && w.front() == '"' && w.back() == '"') w = w.substr(1, w.size() - 2);
      auto eq = w.find('=');
      if (eq != std::string::npos && norm(w.substr(0, eq)) == key) value = w.substr(eq + 1);
    }
  }
  fs::remove(out);
  return value;
}

struct TrickyDir {
  const char* name;
  std::vector<std::pair<std::string, std::string>> files;  // name in etc/modprobe.d, text
};

const std::vector<TrickyDir> kTricky = {
    {"dash-spelling", {{"ttm.conf", "options ttm pages-limit=6815744\n"}}},
    {"later-file-wins", {{"10-ttm.conf", "options ttm pages_limit=3145728\n"}, {"90-local.conf", "options ttm pages_limit=6815744\n"}}},
    {"later-word-wins", {{"ttm.conf", "options ttm pages_limit=3145728 pages_limit=4194304\n"}}},
    {"not-conf-ignored", {{"ttm.conf", "options ttm pages_limit=3145728\n"}, {"zz-ttm.conf.bak", "options ttm pages_limit=6815744\n"},
                          {"ttm", "options ttm pages_limit=5242880\n"}}},
    {"bad-line-ignored", {{"a.conf", "options ttm pages_limit=3145728\noption ttm pages_limit=6815744\nttm.pages_limit=5242880\n"}}},
    {"continuation", {{"ttm.conf", "options ttm \\\n  pages_limit=4194304 \\\n  page_pool_size=4194304\n"}}},
    {"quoted-word", {{"ttm.conf", "options ttm \"pages_limit=4194304\"\n"}}},
    {"comment-after", {{"ttm.conf", "options ttm pages_limit=4194304 # was 3145728\n# options ttm pages_limit=1\n"}}},
    // kmod passes the words after a '#' to the kernel, which applies the ones it knows.
    {"hash-inside-options", {{"ttm.conf", "options ttm pages_limit=3145728 # pages_limit=4194304\n"}}},
    {"hash-on-a-continued-line", {{"ttm.conf", "options ttm pages_limit=3145728 # old \\\n  page_pool_size=4194304\n"}}},
    {"other-module", {{"amdttm.conf", "options amdttm pages_limit=4194304\n"}}},
    {"crlf", {{"ttm.conf", "options ttm pages_limit=4194304\r\n"}}},
};

TEST(ModprobeView, AgreesWithModprobeShowconfig) {
  if (!have_modprobe()) GTEST_SKIP() << "kmod's modprobe is not installed";
  std::ifstream cl("/proc/cmdline");
  std::string cmdline((std::istreambuf_iterator<char>(cl)), std::istreambuf_iterator<char>());
  if (cmdline.find("ttm.") != std::string::npos) GTEST_SKIP() << "this machine's own command line sets ttm options";
  for (const auto& c : kTricky) {
    SCOPED_TRACE(c.name);
    TestTree t("fix-apu");
    fs::remove_all(t.real("etc/modprobe.d"));
    for (const auto& [name, text] : c.files) t.write("etc/modprobe.d/" + name, text);
    Diagnosed d(t.str());
    for (const char* module : {"ttm", "amdttm"})
      for (const char* key : {"pages_limit", "page_pool_size"}) {
        SCOPED_TRACE(std::string(module) + "." + key);
        EXPECT_EQ(rules::modprobe_setting(d.facts, module, key), showconfig_value(t.real("etc/modprobe.d"), module, key));
      }
  }
}

std::string all_notes(const Diagnosed& d) {
  std::string out;
  for (const auto* f : memory_findings(d))
    for (const auto& n : f->notes) out += n + "\n";
  return out;
}

TEST(ModprobeView, TheFindingNamesIgnoredAndOverriddenLines) {
  TestTree t("fix-apu");
  t.write("etc/modprobe.d/ttm", "options ttm pages_limit=6815744\n");
  t.write("etc/modprobe.d/amdgpu-gtt.conf", "option ttm pages_limit=6815744\n");
  t.write("etc/modprobe.d/zz-late.conf", "options ttm pages-limit=2097152\n");
  Diagnosed d(t.str());
  const std::string notes = all_notes(d);
  EXPECT_NE(notes.find("/etc/modprobe.d/ttm:1 sets ttm.pages_limit=6815744, but modprobe reads only files whose names end in .conf"),
            std::string::npos) << notes;
  EXPECT_NE(notes.find("/etc/modprobe.d/amdgpu-gtt.conf:1 `option ttm pages_limit=6815744` is not a modprobe command"),
            std::string::npos) << notes;
  EXPECT_NE(notes.find("/etc/modprobe.d/ttm.conf:3 sets ttm.pages_limit=3145728, but /etc/modprobe.d/zz-late.conf:1 sets 2097152"),
            std::string::npos) << notes;
  // The dash spelling is modprobe's too: the later file's value is the one in force.
  EXPECT_EQ(rules::modprobe_setting(d.facts, "ttm", "pages_limit"), "2097152");
}

TEST(ModprobeView, AfterTheApplyModprobeAppliesTheRecipesLimit) {
  if (!have_modprobe()) GTEST_SKIP() << "kmod's modprobe is not installed";
  TestTree t("apu-modprobe-ignored-lines");
  Diagnosed d(t.str());
  const auto* gtt = d.find("memory.gtt-limit");
  ASSERT_TRUE(gtt && gtt->fix);
  const auto want = std::to_string(formats::fix_params_json(gtt->fix->params)["pages_limit"].get<std::uint64_t>());
  EXPECT_EQ(showconfig_value(t.real("etc/modprobe.d"), "ttm", "pages_limit"), "3145728");  // the later file wins today
  platform::SafeTree tree(t.str());
  fix::PlanRequest in{*d.host, tree, d.facts, d.findings, d.recipes, std::string("ttm-pages-limit")};
  const FixPlan plan = fix::plan_fixes(in);
  ASSERT_TRUE(plan.pending());
  fix::ApplyOptions o;
  o.run_commands = false;
  o.live = false;
  auto out = fix::apply_plan(plan, *d.host, tree, tree, o);
  ASSERT_TRUE(out && out->ok);
  // modprobe itself now hands ttm the recipe's limit, and amdml reads it the same way.
  EXPECT_EQ(showconfig_value(t.real("etc/modprobe.d"), "ttm", "pages_limit"), want);
  Diagnosed after(t.str());
  EXPECT_EQ(rules::modprobe_setting(after.facts, "ttm", "pages_limit"), want);
}

// Strix Halo under the DKMS driver with no boot loader configuration amdml knows (issue
// 28): the limit goes to modprobe.d for amdttm, the bare `ttm.pages_limit=` lines modprobe
// ignores are commented out (modprobe then reads the directory without a bad line), and
// --undo puts them back byte for byte.
TEST(ModprobeView, IgnoredLinesAreCommentedOutAndUndoPutsThemBack) {
  TestTree t("strixhalo-amdttm-no-bootloader");
  const std::string ttm_conf = read_file(t / "etc/modprobe.d/ttm.conf");
  Diagnosed d(t.str());
  const auto* gtt = d.find("memory.gtt-limit");
  ASSERT_TRUE(gtt && gtt->fix);
  EXPECT_EQ(gtt->fix->recipe, "ttm-pages-limit");  // not kernel-cmdline: no boot loader configuration to edit
  const auto want = std::to_string(formats::fix_params_json(gtt->fix->params)["pages_limit"].get<std::uint64_t>());
  platform::SafeTree tree(t.str());
  fix::PlanRequest in{*d.host, tree, d.facts, d.findings, d.recipes, std::string("ttm-pages-limit")};
  const FixPlan plan = fix::plan_fixes(in);
  ASSERT_TRUE(plan.pending());
  fix::ApplyOptions o;
  o.run_commands = false;
  o.live = false;
  auto out = fix::apply_plan(plan, *d.host, tree, tree, o);
  ASSERT_TRUE(out && out->ok);
  const std::string now = read_file(t / "etc/modprobe.d/ttm.conf");
  EXPECT_EQ(now.find("\nttm.pages_limit="), std::string::npos) << now;
  EXPECT_NE(now.find("# amdml fix (ttm-pages-limit): modprobe ignores this line: ttm.pages_limit=27262976\n"), std::string::npos) << now;
  Diagnosed after(t.str());
  EXPECT_TRUE(after.facts.modprobe.unparsable.empty());
  EXPECT_EQ(rules::modprobe_setting(after.facts, "amdttm", "pages_limit"), want);
  if (have_modprobe()) {
    EXPECT_EQ(showconfig_value(t.real("etc/modprobe.d"), "amdttm", "pages_limit"), want);
    const std::string cmd = "modprobe -C '" + t.real("etc/modprobe.d") + "' --showconfig 2>&1 >/dev/null | grep -q 'bad line'";
    EXPECT_NE(std::system(cmd.c_str()), 0) << "modprobe still reports a bad line";
  }
  auto undone = fix::undo_transaction(std::nullopt, *d.host, tree, tree, o);
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(read_file(t / "etc/modprobe.d/ttm.conf"), ttm_conf);
  EXPECT_FALSE(fs::exists(t / "etc/modprobe.d/amdml-ttm.conf"));
}

}  // namespace
