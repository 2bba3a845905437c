// The kernel-cmdline recipe (issue 14 item 5): the parameters edited where the boot
// loader keeps them -- GRUB's defaults, kernel-install's /etc/kernel/cmdline,
// kernelstub's configuration -- with the plan's diff, journal and undo; the hand
// commands doctor prints write the same bytes; doctor's `--only kernel-cmdline` names a
// recipe that `fix` plans.
#include <cstdlib>

#include <gtest/gtest.h>

#include "fix/edits.hpp"
#include "fix/params.hpp"
#include "platform/safe_tree.hpp"
#include "support/cli.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"

using namespace amdml;
using namespace amdml::fix;
using namespace amdml::test;

namespace {

KernelCmdlineParams strix_params() {
  KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", "28835840"}, {"ttm.page_pool_size", "28835840"}};
  p.remove = {"amdgpu.gttsize", "amdttm.pages_limit", "amdttm.page_pool_size"};
  return p;
}

TEST(KernelCmdlineEdits, GrubEditsTheLineThatSetsTheParameter) {
  const std::string grub =
      "GRUB_DEFAULT=0\n"
      "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\n"
      "GRUB_CMDLINE_LINUX=\"root=UUID=x amdgpu.gttsize=128000 ttm.pages-limit=1 amdttm.pages_limit=2\"  # set by hand\n";
  auto e = edit_grub_defaults(grub, strix_params());
  EXPECT_EQ(e.text,
            "GRUB_DEFAULT=0\n"
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash ttm.page_pool_size=28835840\"\n"
            "GRUB_CMDLINE_LINUX=\"root=UUID=x ttm.pages-limit=28835840\"  # set by hand\n");
  EXPECT_EQ(e.found, std::vector<std::string>{"ttm.pages_limit"});
  EXPECT_EQ(e.removed, (std::vector<std::string>{"amdgpu.gttsize=128000", "amdttm.pages_limit=2"}));
  // Applying it again changes nothing.
  EXPECT_EQ(edit_grub_defaults(e.text, strix_params()).text, e.text);
}

TEST(KernelCmdlineEdits, GrubWithoutADefaultLineGetsOne) {
  KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", "6815744"}};
  EXPECT_EQ(edit_grub_defaults("GRUB_TIMEOUT=5", p).text, "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX_DEFAULT=\"ttm.pages_limit=6815744\"\n");
  EXPECT_EQ(edit_grub_defaults("GRUB_CMDLINE_LINUX_DEFAULT=quiet\n", p).text,
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet ttm.pages_limit=6815744\"\n");
  // A file with an unterminated quote does not parse in the shell: not edited at all.
  const std::string broken = "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\n";
  EXPECT_TRUE(edit_grub_defaults(broken, p).unbalanced);
  EXPECT_EQ(edit_grub_defaults(broken, p).text, broken);
  // A value whose quotes do not pair: a word appended would land inside the quote.
  const std::string odd = "GRUB_CMDLINE_LINUX_DEFAULT='quiet acpi_osi=\"Windows'\n";
  EXPECT_TRUE(edit_grub_defaults(odd, p).unbalanced);
  EXPECT_EQ(edit_grub_defaults(odd, p).text, odd);
  EXPECT_TRUE(edit_kernel_cmdline_file("root=/dev/sda1 x=\"a\n", p).unbalanced);
}

TEST(KernelCmdlineEdits, KernelInstallAndKernelstub) {
  auto e = edit_kernel_cmdline_file("root=UUID=x rw quiet amdgpu.gttsize=128000\n", strix_params());
  EXPECT_EQ(e.text, "root=UUID=x rw quiet ttm.page_pool_size=28835840 ttm.pages_limit=28835840\n");
  auto ks = edit_kernelstub_config(
      R"({"default": {"kernel_options": ["quiet"]}, "user": {"kernel_options": ["quiet", "splash", "amdttm.pages_limit=2"], "live_mode": false}})",
      strix_params());
  ASSERT_TRUE(ks) << ks.error().message;
  auto j = nlohmann::json::parse(ks->text);
  EXPECT_EQ(j["user"]["kernel_options"],
            (nlohmann::json{"quiet", "splash", "ttm.page_pool_size=28835840", "ttm.pages_limit=28835840"}));
  EXPECT_EQ(j["default"]["kernel_options"], nlohmann::json{"quiet"});
  EXPECT_FALSE(edit_kernelstub_config("not json", strix_params()));
}

TEST(KernelCmdlineParams, RefusesWhatIsNotAModuleParameter) {
  Diagnosed d(fixture("strix-halo"));
  auto bad = [&](KernelCmdlineParams p) { return !parse_cmdline_params(FixParams(p), d.facts); };
  EXPECT_FALSE(bad(strix_params()));
  EXPECT_TRUE(bad(KernelCmdlineParams{}));
  EXPECT_TRUE(bad(KernelCmdlineParams{{{"root", "/dev/sda1"}}, {}}));
  EXPECT_TRUE(bad(KernelCmdlineParams{{}, {"init"}}));
  EXPECT_TRUE(bad(KernelCmdlineParams{{{"ttm.pages_limit", "1 init=/bin/sh"}}, {}}));
  EXPECT_TRUE(bad(KernelCmdlineParams{{{"ttm.pages_limit", "\"x\""}}, {}}));
  EXPECT_TRUE(bad(KernelCmdlineParams{{{"ttm.pages_limit", "999999999"}}, {}}));  // more than the RAM
  EXPECT_TRUE(bad(KernelCmdlineParams{{{"ttm.pages_limit", "28835840"}}, {"ttm.pages-limit"}}));
}

// The plan for the doctor's own request on a copy of a fixture.
struct Tree {
  TestTree t;
  std::unique_ptr<Diagnosed> d;
  platform::SafeTree tree{t.str()};
  ApplyOptions options;
  explicit Tree(const std::string& machine) : t(machine) {
    options.run_commands = false;
    options.live = false;
    options.lock_timeout_ms = 1000;
  }
  FixPlan plan() {
    d = std::make_unique<Diagnosed>(t.str());
    PlanRequest in{*d->host, tree, d->facts, d->findings, d->recipes, std::string("kernel-cmdline")};
    return plan_fixes(in);
  }
};

// One recipe planned, not refused, changing exactly `path`.
::testing::AssertionResult one_file_change(const FixPlan& p, const std::string& path) {
  if (p.recipes.size() != 1) return ::testing::AssertionFailure() << p.recipes.size() << " recipes planned";
  const RecipePlan& rp = p.recipes[0];
  if (rp.refused) return ::testing::AssertionFailure() << "refused: " << rp.refused->message;
  if (rp.files.size() != 1 || rp.files[0].path != path) return ::testing::AssertionFailure() << "files other than " << path;
  return ::testing::AssertionSuccess();
}

// Runs the hand commands that write files (sudo dropped, paths moved into the tree).
void run_hand_writes(const TestTree& t, const RecipePlan& rp) {
  for (const auto& [cmd, role] : hand_commands(rp)) {
    if (cmd.find(" /etc/") == std::string::npos && cmd.find(" '/etc/") == std::string::npos) continue;
    std::string c = cmd;
    for (std::size_t p; (p = c.find("sudo ")) != std::string::npos;) c.erase(p, 5);
    for (const std::string from : {" /etc/", " '/etc/"})
      for (std::size_t p = c.find(from); p != std::string::npos; p = c.find(from, p + from.size() + t.str().size()))
        c.insert(p + from.size() - 5, t.str());
    ASSERT_EQ(std::system(c.c_str()), 0) << c;
  }
}

TEST(KernelCmdlineRecipe, StrixHaloGrubApplyAgainUndo) {
  Tree e("strix-halo");
  const std::string before = read_file(e.t / "etc/default/grub");
  FixPlan p = e.plan();
  ASSERT_TRUE(one_file_change(p, "/etc/default/grub"));
  const RecipePlan& rp = p.recipes[0];
  EXPECT_NE(rp.files[0].after.find("GRUB_CMDLINE_LINUX_DEFAULT=\"quiet transparent_hugepage=always numa_balancing=disable "
                                   "ttm.page_pool_size="),
            std::string::npos);
  EXPECT_EQ(rp.files[0].after.find("amdgpu.gttsize"), std::string::npos);
  ASSERT_EQ(rp.commands.size(), 1u);
  EXPECT_EQ(rp.commands[0].argv, std::vector<std::string>{"update-grub"});
  EXPECT_EQ(rp.follow_ups, std::vector<FollowUp>{FollowUp::reboot});

  auto out = apply_plan(p, *e.d->host, e.tree, e.tree, e.options);
  ASSERT_TRUE(out && out->ok);
  EXPECT_EQ(read_file(e.t / "etc/default/grub"), rp.files[0].after);
  ASSERT_EQ(out->commands.size(), 1u);
  EXPECT_EQ(out->commands[0].argv, std::vector<std::string>{"update-grub"});
  EXPECT_FALSE(e.plan().pending());  // already in place

  auto undo = undo_transaction(std::nullopt, *e.d->host, e.tree, e.tree, e.options);
  ASSERT_TRUE(undo) << undo.error().message;
  EXPECT_EQ(read_file(e.t / "etc/default/grub"), before);
  ASSERT_EQ(undo->commands.size(), 1u);  // grub.cfg regenerated from the restored file
}

TEST(KernelCmdlineRecipe, SystemdBootEditsKernelInstallsCmdline) {
  Tree e("strix-halo");
  fs::remove(e.t / "etc/default/grub");
  fs::remove(e.t / "usr/sbin/update-grub");
  e.t.write("etc/kernel/cmdline", "root=UUID=e2a4f9c1 rw quiet amdgpu.gttsize=128000 amdttm.pages_limit=32768000\n");
  e.t.write("usr/lib/modules/6.12.48+deb13-amd64/vmlinuz", "kernel image stand-in\n");
  FixPlan p = e.plan();
  ASSERT_TRUE(one_file_change(p, "/etc/kernel/cmdline"));
  const RecipePlan& rp = p.recipes[0];
  ASSERT_EQ(rp.commands.size(), 1u);
  EXPECT_EQ(rp.commands[0].argv, (std::vector<std::string>{"kernel-install", "add", "6.12.48+deb13-amd64",
                                                           "/usr/lib/modules/6.12.48+deb13-amd64/vmlinuz"}));
  run_hand_writes(e.t, rp);
  EXPECT_EQ(read_file(e.t / "etc/kernel/cmdline"), rp.files[0].after);
}

TEST(KernelCmdlineRecipe, KernelstubComesFirst) {
  Tree e("strix-halo");  // GRUB's defaults stay; Pop!_OS boots through kernelstub
  e.t.write("etc/kernelstub/configuration",
            R"({"default": {"kernel_options": ["quiet", "splash"], "esp_path": "/boot/efi"},)"
            R"( "user": {"kernel_options": ["quiet", "splash", "amdgpu.gttsize=128000"], "esp_path": "/boot/efi"}})");
  FixPlan p = e.plan();
  ASSERT_TRUE(one_file_change(p, "/etc/kernelstub/configuration"));
  const RecipePlan& rp = p.recipes[0];
  EXPECT_EQ(nlohmann::json::parse(rp.files[0].after)["user"]["kernel_options"],
            (nlohmann::json{"quiet", "splash", "ttm.page_pool_size=28835840", "ttm.pages_limit=28835840"}));
  ASSERT_EQ(rp.commands.size(), 1u);
  EXPECT_EQ(rp.commands[0].argv, std::vector<std::string>{"kernelstub"});
  // The notes say what the file does not hold but the running command line does.
  bool noted = false;
  for (const auto& n : rp.notes) noted = noted || n.find("amdttm.pages_limit=32768000 is on the running command line") == 0;
  EXPECT_TRUE(noted);
}

TEST(KernelCmdlineRecipe, NoBootLoaderConfigurationIsRefused) {
  Tree e("strix-halo");
  fs::remove(e.t / "etc/default/grub");
  FixPlan p = e.plan();
  ASSERT_EQ(p.recipes.size(), 1u);
  ASSERT_TRUE(p.recipes[0].refused);
  EXPECT_NE(p.recipes[0].refused->message.find("no boot loader configuration"), std::string::npos);
}

// Ubuntu's cloud images set GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub.d (issue 29
// M2): grub-mkconfig sources it after /etc/default/grub, so the edit goes there, the
// doctor reads it there, and undo gives both files back.
TEST(KernelCmdlineRecipe, GrubDotDHoldsTheEffectiveValue) {
  Tree e("strix-halo");
  const std::string grub = read_file(e.t / "etc/default/grub");
  const std::string cloud =
      "# Cloud Image specific Grub settings for Generic Cloud Images\n"
      "# CLOUD_IMG: This file was created/modified by the Cloud Image build process\n\n"
      "# Set the recordfail timeout\nGRUB_RECORDFAIL_TIMEOUT=0\n\n"
      "# Do not wait on grub prompt\nGRUB_TIMEOUT=0\n\n"
      "# Set the default commandline\nGRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1 console=ttyS0 amdgpu.gttsize=128000\"\n";
  e.t.write("etc/default/grub.d/50-cloudimg-settings.cfg", cloud);
  e.t.write("etc/default/grub.d/40-force-partuuid.cfg", "GRUB_FORCE_PARTUUID=x\n");
  FixPlan p = e.plan();
  ASSERT_TRUE(one_file_change(p, "/etc/default/grub.d/50-cloudimg-settings.cfg"));
  const RecipePlan& rp = p.recipes[0];
  EXPECT_EQ(rp.files[0].after.substr(cloud.rfind("GRUB_CMDLINE")),
            "GRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1 console=ttyS0 ttm.page_pool_size=28835840 ttm.pages_limit=28835840\"\n");
  ASSERT_EQ(rp.commands.size(), 1u);
  // The hand commands write the same bytes.
  {
    Tree h("strix-halo");
    h.t.write("etc/default/grub.d/50-cloudimg-settings.cfg", cloud);
    run_hand_writes(h.t, rp);
    EXPECT_EQ(read_file(h.t / "etc/default/grub.d/50-cloudimg-settings.cfg"), rp.files[0].after);
  }
  auto out = apply_plan(p, *e.d->host, e.tree, e.tree, e.options);
  ASSERT_TRUE(out && out->ok);
  EXPECT_EQ(read_file(e.t / "etc/default/grub"), grub);
  EXPECT_FALSE(e.plan().pending());  // already in place
  Diagnosed after(e.t.str());
  EXPECT_EQ(after.facts.os.boot_cmdline_file, "/etc/default/grub.d/50-cloudimg-settings.cfg");
  EXPECT_EQ(after.facts.os.boot_cmdline, "console=tty1 console=ttyS0 ttm.page_pool_size=28835840 ttm.pages_limit=28835840");
  auto undo = undo_transaction(std::nullopt, *e.d->host, e.tree, e.tree, e.options);
  ASSERT_TRUE(undo) << undo.error().message;
  EXPECT_EQ(read_file(e.t / "etc/default/grub.d/50-cloudimg-settings.cfg"), cloud);
  EXPECT_EQ(read_file(e.t / "etc/default/grub"), grub);
}

// Two GRUB_CMDLINE_LINUX_DEFAULT lines (issue 29 M1): the second is the one that counts.
TEST(KernelCmdlineRecipe, TheLastGrubAssignmentIsEditedAndRead) {
  Tree e("strix-halo");
  std::string grub = read_file(e.t / "etc/default/grub");
  grub += "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash amdgpu.gttsize=64000\"\n";
  e.t.write("etc/default/grub", grub);
  FixPlan p = e.plan();
  ASSERT_TRUE(one_file_change(p, "/etc/default/grub"));
  const std::string after = p.recipes[0].files[0].after;
  EXPECT_NE(after.find("GRUB_CMDLINE_LINUX_DEFAULT=\"quiet transparent_hugepage=always numa_balancing=disable "
                       "amdgpu.gttsize=128000"),
            std::string::npos);  // the overridden line stays as it was
  EXPECT_NE(after.find("\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash ttm.page_pool_size=28835840 ttm.pages_limit=28835840\"\n"),
            std::string::npos);
  auto out = apply_plan(p, *e.d->host, e.tree, e.tree, e.options);
  ASSERT_TRUE(out && out->ok);
  EXPECT_FALSE(e.plan().pending());
  Diagnosed d(e.t.str());
  EXPECT_EQ(d.facts.os.boot_cmdline, "quiet splash ttm.page_pool_size=28835840 ttm.pages_limit=28835840");
}

// A GRUB file the shell would not run is refused with its line, never half-edited.
TEST(KernelCmdlineRecipe, AnUnreadableGrubFileIsRefused) {
  Tree e("strix-halo");
  e.t.write("etc/default/grub.d/60-x.cfg", "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT x\n");
  FixPlan p = e.plan();
  ASSERT_EQ(p.recipes.size(), 1u);
  ASSERT_TRUE(p.recipes[0].refused);
  EXPECT_TRUE(p.recipes[0].refused->message.starts_with("/etc/default/grub.d/60-x.cfg: line 1: a quote (\") that is not closed"))
      << p.recipes[0].refused->message;
}

// A kernelstub configuration nested 200 KB deep (issue 29 S4): a clean one-line error in
// doctor, fix and snapshot, no crash.
TEST(KernelCmdlineRecipe, DeepKernelstubConfigurationIsAnError) {
  TestTree t("strix-halo");
  t.write("etc/kernelstub/configuration", R"({"user": {"kernel_options": ["quiet"], "x": )" + std::string(200000, '['));
  auto doctor = run_amdml(root_args(t) + " doctor --no-runtime");
  EXPECT_LT(doctor.code, 2) << doctor.err;
  auto fix = run_amdml(root_args(t) + " fix --no-runtime --only kernel-cmdline");
  EXPECT_EQ(fix.signal, 0);
  EXPECT_NE((fix.out + fix.err).find("/etc/kernelstub/configuration: nested deeper than 64 levels"), std::string::npos)
      << fix.out << fix.err;
  auto snap = amdml_run({"--root", t.str(), "snapshot", t.real("snap")});
  EXPECT_EQ(snap.code, 0) << snap.err;
}

// Every hand command that writes a file writes exactly what the recipe would.
TEST(HandCommands, WriteTheRecipesBytes) {
  for (const char* machine : {"strix-halo", "fix-apu", "strixhalo-ttm-under-dkms", "apu780m-ubuntu2404-default-ttm"}) {
    SCOPED_TRACE(machine);
    Tree e(machine);
    Diagnosed d(e.t.str());
    PlanRequest in{*d.host, e.tree, d.facts, d.findings, d.recipes, std::nullopt};
    FixPlan p = plan_fixes(in);
    int checked = 0;
    for (const auto& rp : p.recipes) {
      if (!rp.recipe || (rp.recipe->params != ParamSchema::ttm && rp.recipe->params != ParamSchema::cmdline)) continue;
      ASSERT_TRUE(rp.pending());
      run_hand_writes(e.t, rp);
      for (const auto& fc : rp.files) {
        EXPECT_EQ(read_file(e.t / fc.path.substr(1)), fc.after) << fc.path;
        ++checked;
      }
    }
    EXPECT_GT(checked, 0);
  }
}

TEST(HandCommands, DoctorNamesTheRecipeFixPlans) {
  TestTree t("strix-halo");
  auto doctor = run_amdml("--root " + t.str() + " --color never doctor --no-runtime");
  EXPECT_NE(doctor.out.find("sudo amdml fix --apply --only kernel-cmdline"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("then:  sudo update-grub"), std::string::npos) << doctor.out;
  auto fix = run_amdml("--root " + t.str() + " --color never fix --no-runtime --only kernel-cmdline");
  EXPECT_EQ(fix.code, 0) << fix.out << fix.err;
  EXPECT_NE(fix.out.find("[kernel-cmdline]"), std::string::npos) << fix.out;
  EXPECT_NE(fix.out.find("+GRUB_CMDLINE_LINUX_DEFAULT="), std::string::npos) << fix.out;
}

}  // namespace
