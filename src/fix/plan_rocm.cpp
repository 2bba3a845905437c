// rocm-install's plan: the repository's files (the signing key, fetched when applied and
// checked against the fingerprint pinned in the knowledge; the source list; the pin)
// and the package manager's commands, for apt, dnf and pacman.
#include <algorithm>

#include "base/paths.hpp"
#include "base/text.hpp"
#include "fix/edits.hpp"
#include "fix/plan_internal.hpp"
#include "formats/apt_simulation.hpp"
#include "formats/openpgp_armor.hpp"
#include "platform/fetch.hpp"

namespace amdml::fix {

namespace {

using paths::basename;
using paths::dirname;

// A whole file amdml owns: its bytes now, and what they become.
void whole(Ctx& c, const std::string& path, const std::string& bytes, const std::string& why) {
  auto f = c.read(path);
  if (!f) return;
  FileChange fc;
  fc.path = path;
  if (f->exists) {
    fc.before = f->bytes;
    if (f->bytes != bytes && !f->bytes.starts_with(kOwnMarker))
      c.rp.notes.push_back(path + " exists and is replaced (another release's, or amdgpu-install's); `amdml fix --undo` "
                           "puts it back");
  }
  fc.after = bytes;
  fc.why = why;
  c.rp.files.push_back(std::move(fc));
}

// The signing key: nothing is fetched here. A key file already there with the pinned
// fingerprint stays; otherwise the apply fetches the key and checks it (fetch_keys).
void plan_key(Ctx& c, const std::string& path, const RocmInstallParams& p, bool dearmor) {
  auto f = c.read(path);
  if (!f) return;
  if (f->exists) {
    auto bin = formats::dearmor_public_key(f->bytes);
    auto fp = bin ? formats::openpgp_fingerprint(*bin) : Result<std::string>(bin.error());
    if (fp && *fp == p.fingerprint) {
      FileChange fc;
      fc.path = path;
      fc.before = fc.after = f->bytes;
      fc.why = "the signing key, fingerprint " + p.fingerprint;
      c.rp.files.push_back(std::move(fc));
      return;
    }
  }
  if (!c.in.host.live() && !p.key_url.starts_with("file://")) {
    c.rp.notes.push_back(path + ": the key from " + p.key_url + " is fetched when applied on the machine itself "
                         "(--root touches no network), so it is not written here");
    return;
  }
  FileChange fc;
  fc.path = path;
  if (f->exists) fc.before = f->bytes;
  fc.fetch_url = p.key_url;
  fc.fingerprint = p.fingerprint;
  fc.why = "the signing key from " + p.key_url + (dearmor ? " (dearmored, as gpg --dearmor writes it)" : "");
  c.rp.files.push_back(std::move(fc));
}

// Release directories no package owns are renamed within /opt to a name the ROCm probe
// never counts as a release (not "rocm-<digit>"): nothing is deleted, the apply journals
// the rename and --undo renames them back. It is a change of its own: the recipe is
// pending for it even when the apt files are already in place.
void plan_set_aside(Ctx& c, const RocmInstallParams& p) {
  for (const auto& dir : p.set_aside) {
    if (!c.in.host.exists(dir)) continue;  // gone already: moved by an earlier run, or by the person
    const std::string base = dirname(dir) + "/amdml-set-aside-" + basename(dir);
    std::string to = base;
    for (int n = 2; c.in.host.exists(to) && n < 100; ++n) to = base + "." + std::to_string(n);
    if (c.in.host.exists(to)) {
      c.rp.refused = make_error(dir + ": no free name to move it aside to (" + base + " ... exist); move it by hand");
      return;
    }
    Command cmd{{"mv", "-T", "--", dir, to}, "move " + dir + " aside: no package owns it, so apt cannot remove it",
                std::chrono::minutes(5)};
    cmd.undo = std::vector<std::string>{"mv", "-T", "--", to, dir};
    cmd.rename = true;
    c.rp.commands.push_back(std::move(cmd));
    c.rp.notes.push_back(dir + " is moved to " + to + ", where nothing counts it as a ROCm release: nothing is deleted, "
                         "and --undo moves it back. Delete it once ROCm " + p.release + " works.");
  }
}


// dnf and pacman: remove what conflicts, install the use case; --undo removes what was new.
void plan_other_install(Ctx& c, const RocmInstallParams& p) {
  const bool dnf = p.manager == "dnf";
  const std::vector<std::string> base = dnf ? std::vector<std::string>{"dnf", "-y"} : std::vector<std::string>{"pacman", "--noconfirm"};
  auto with = [&](std::vector<std::string> tail) {
    auto argv = base;
    argv.insert(argv.end(), tail.begin(), tail.end());
    return argv;
  };
  if (!p.remove.empty()) {
    std::vector<std::string> tail = {dnf ? "remove" : "-R"};
    tail.insert(tail.end(), p.remove.begin(), p.remove.end());
    std::vector<std::string> back = {dnf ? "install" : "-S"};
    back.insert(back.end(), p.remove.begin(), p.remove.end());
    Command cmd{with(tail), "remove the other ROCm's packages", std::chrono::minutes(30)};
    cmd.undo = with(back);
    c.rp.commands.push_back(std::move(cmd));
  }
  std::vector<std::string> tail = dnf ? std::vector<std::string>{"install", "--setopt=install_weak_deps=False"}
                                      : std::vector<std::string>{"-S", "--needed"};
  tail.insert(tail.end(), p.install.begin(), p.install.end());
  Command cmd{with(tail), "install ROCm " + p.release + (p.channel.empty() ? "" : " (" + p.channel + ")"), std::chrono::minutes(60)};
  std::vector<std::string> back = {dnf ? "remove" : "-R"};
  back.insert(back.end(), p.install.begin(), p.install.end());
  cmd.undo = with(back);
  c.rp.commands.push_back(std::move(cmd));
  c.rp.notes.push_back("--undo removes " + text::join(p.install, " ") + " again");
}

// The distributions a requirement spec brings, for --undo: "rocm[libraries,device-gfx1151]"
// is rocm, rocm-sdk-core, rocm-sdk-libraries and rocm-sdk-device-gfx1151 (TheRock's
// packages, rocm-2026.md §2.4); "torch[device-gfx1151]" is amd-torch-device-gfx1151.
std::vector<std::string> pip_undo_names(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  auto add = [&](std::string n) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
  };
  for (const auto& spec : specs) {
    const auto open = spec.find('[');
    const std::string project = spec.substr(0, std::min(open, spec.find_first_of("=<>")));
    const auto close = spec.find(']');
    std::vector<std::string> extras;
    if (open != std::string::npos && close != std::string::npos && close > open) {
      const std::string list = spec.substr(open + 1, close - open - 1);
      for (std::size_t at = 0; at <= list.size();) {
        const auto comma = std::min(list.find(',', at), list.size());
        if (comma > at) extras.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    }
    for (const auto& e : extras) {
      if (e.starts_with("device-")) add((project == "torch" ? "amd-torch-device-" : "rocm-sdk-device-") + e.substr(7));
      if (project == "rocm" && e == "libraries") {
        add("rocm");
        add("rocm-sdk-core");
        add("rocm-sdk-libraries");
      }
    }
    if (extras.empty()) add(project);
  }
  return out;
}

// pip into the one environment that needs the wheels, with its own interpreter and as its
// owner (runuser; not when amdml already runs as that user): files root would leave in a
// user's venv break that user's next pip. --undo uninstalls what the requirements brought.
void plan_pip_install(Ctx& c, const RocmInstallParams& p) {
  std::vector<std::string> as;
  // amdml itself runs as the owner (its euid is the owner's uid): pip runs as it is.
  const auto& id = c.in.facts.identity;
  bool self = false;
  for (const auto& pw : id.passwd)
    if (pw.name == p.run_as && id.process.euid && *id.process.euid == pw.uid) self = true;
  if (!p.run_as.empty() && !self) as = {"runuser", "-u", p.run_as, "--"};
  auto pip = [&](const std::vector<std::string>& tail) {
    std::vector<std::string> argv = as;
    for (const auto& w : {p.python, std::string("-m"), std::string("pip")}) argv.push_back(w);
    argv.insert(argv.end(), tail.begin(), tail.end());
    return argv;
  };
  std::vector<std::string> tail = {"install", "--index-url", p.index_url};
  tail.insert(tail.end(), p.install.begin(), p.install.end());
  Command cmd{pip(tail), "install TheRock's ROCm " + p.release + " wheels into " + p.python + "'s environment" +
                             (p.run_as.empty() ? "" : ", as " + p.run_as),
              std::chrono::minutes(60)};
  std::vector<std::string> back = {"uninstall", "-y"};
  const auto names = pip_undo_names(p.install);
  back.insert(back.end(), names.begin(), names.end());
  cmd.undo = pip(back);
  cmd.installs = true;
  c.rp.commands.push_back(std::move(cmd));
  c.rp.notes.push_back("pip takes the wheels from " + p.index_url + " over https; they are not signed with a key amdml "
                       "could pin. --undo uninstalls " + text::join(names, " ") + ".");
}

}  // namespace

// The repository's files as AMD's install guide lays them out. apt: the dearmored key,
// the source list (and the driver's, for the legacy stream), the pin that makes AMD's
// packages win over the distribution's. dnf: the armored key and the .repo file. The
// distribution's own packages: nothing.
void plan_apt_source(Ctx& c, const AptSourceStep& step, const RocmInstallParams& p) {
  if (p.rocm_repo.empty()) return;  // the distribution's own repositories
  const std::string header = std::string(kOwnMarker) + " (recipe rocm-install): ROCm " + p.release +
                             ". `amdml fix --undo` removes it.\n";
  if (p.manager == "dnf") {
    plan_key(c, step.rpm_key, p, false);
    if (c.rp.refused) return;
    whole(c, step.dnf_repo,
          header + "[amdrocm]\nname=AMD ROCm " + p.release + "\nbaseurl=" + p.rocm_repo +
              "\nenabled=1\npriority=50\ngpgcheck=1\ngpgkey=file://" + step.rpm_key + "\n",
          "ROCm " + p.release + " from AMD's repository (" + p.channel + ")");
    return;
  }
  // repo.radeon.com's key, or AMD's current repositories' (another key, kept apart as
  // AMD's guide does, so a driver list signed by the old one keeps working).
  const bool legacy = p.channel.empty() || p.channel == "amd-legacy";
  const std::string& keyring = legacy ? step.keyring : step.amd_keyring;
  plan_key(c, keyring, p, true);
  if (c.rp.refused) return;
  auto line = [&](const std::string& repo) {
    return "deb [arch=amd64 signed-by=" + keyring + "] " + repo + " " + p.codename + " main\n";
  };
  whole(c, step.rocm_list, header + line(p.rocm_repo),
        "ROCm " + p.release + " from AMD's repository" + (p.channel.empty() ? "" : " (" + p.channel + ")"));
  if (c.rp.refused) return;
  if (!p.graphics_repo.empty()) {
    whole(c, step.graphics_list, header + line(p.graphics_repo), "AMD's kernel driver and graphics libraries for ROCm " + p.release);
    if (c.rp.refused) return;
  }
  // TheRock's package names are AMD's alone: no pin (none in AMD's guide for them).
  if (!p.origin.empty()) {
    whole(c, step.pin, header + "Package: *\nPin: release o=" + p.origin + "\nPin-Priority: 600\n",
          "prefer AMD's packages over the distribution's of the same name");
    if (c.rp.refused) return;
  }
  // The same repository already configured elsewhere (another Signed-By makes apt refuse
  // every source): that entry is turned off, journaled, and --undo turns it back on.
  std::vector<AptRepo> repos = {{p.rocm_repo, p.codename, step.rocm_list}};
  if (!p.graphics_repo.empty()) repos.push_back({p.graphics_repo, p.codename, step.graphics_list});
  for (auto& fc : disable_duplicate_sources(c.in.tree, {step.rocm_list, step.graphics_list}, repos, c.rp.recipe->id, c.rp.notes))
    c.rp.files.push_back(std::move(fc));
}

// apt-get: remove what another ROCm left, read the new lists only (no other source is
// refreshed), install the use case. --undo runs each one's inverse.
void plan_apt_install(Ctx& c, const AptSourceStep* source, const RocmInstallParams& p) {
  if (p.manager == "pip") {
    plan_pip_install(c, p);
    return;
  }
  plan_set_aside(c, p);
  if (c.rp.refused) return;
  if (p.manager != "apt") {
    plan_other_install(c, p);
    return;
  }
  const std::vector<std::string> noninteractive = {"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-y", "-q"};
  auto apt = [&](std::vector<std::string> tail) {
    auto argv = noninteractive;
    argv.insert(argv.end(), tail.begin(), tail.end());
    return argv;
  };
  if (!p.remove.empty()) {
    std::vector<std::string> tail = {"remove"};
    tail.insert(tail.end(), p.remove.begin(), p.remove.end());
    // apt also removes what depends on them (libhsa-runtime-dev on libhsa-runtime64-1):
    // a simulation (read-only; a rooted host has none) names every package, so the plan
    // says so and --undo installs them all again.
    std::vector<std::string> removed = p.remove;
    std::vector<std::string> sim = {"apt-get", "-s", "-q"};
    sim.insert(sim.end(), tail.begin(), tail.end());
    // Never for the doctor's advice (in.offline): it runs no package manager.
    if (auto r = c.in.offline ? Result<CommandResult>(make_error("offline")) : c.in.host.run(sim, std::chrono::minutes(2));
        r && r->exit_code == 0 && !r->timed_out)
      for (auto& name : formats::apt_simulated_removals(r->out))
        if (std::find(removed.begin(), removed.end(), name) == removed.end()) removed.push_back(std::move(name));
    if (removed.size() > p.remove.size())
      c.rp.notes.push_back("apt also removes " +
                           text::join(std::vector<std::string>(removed.begin() + static_cast<long>(p.remove.size()), removed.end()), " ") +
                           ", which depend on them");
    std::vector<std::string> back = {"install", "--no-install-recommends"};
    back.insert(back.end(), removed.begin(), removed.end());
    Command cmd{apt(tail), "remove the other ROCm's packages", std::chrono::minutes(30)};
    cmd.undo = apt(back);
    c.rp.commands.push_back(std::move(cmd));
    c.rp.notes.push_back("--undo installs " + text::join(removed, " ") + " again");
  }
  if (source)
    for (const auto& list : {source->rocm_list, source->graphics_list}) {
      if (list == source->graphics_list && p.graphics_repo.empty()) continue;  // no driver repository written
      Command cmd{{"apt-get", "update", "-q", "-o", "Dir::Etc::SourceList=" + list, "-o", "Dir::Etc::SourceParts=-", "-o",
                   "APT::Get::List-Cleanup=0"},
                  "read " + list + " (only this source)", std::chrono::minutes(10)};
      cmd.undo = std::vector<std::string>{};
      c.rp.commands.push_back(std::move(cmd));
    }
  std::vector<std::string> tail = {"install", "--no-install-recommends"};
  tail.insert(tail.end(), p.install.begin(), p.install.end());
  Command cmd{apt(tail), "install ROCm " + p.release + (p.channel.empty() ? "" : " (" + p.channel + ")"), std::chrono::minutes(60)};
  std::vector<std::string> fresh;
  for (const auto& n : p.install)
    if (!c.in.facts.rocm.packages.count(n)) fresh.push_back(n);
  if (fresh.empty()) {
    cmd.undo = std::vector<std::string>{};
  } else {
    std::vector<std::string> back = {"remove", "--autoremove"};
    back.insert(back.end(), fresh.begin(), fresh.end());
    cmd.undo = apt(back);
    c.rp.notes.push_back("--undo removes " + text::join(fresh, " ") + " and what apt installed only for them (--autoremove)");
  }
  c.rp.commands.push_back(std::move(cmd));
  if (std::any_of(p.install.begin(), p.install.end(), [](const std::string& n) { return n.find("dkms") != std::string::npos; })) {
    c.rp.follow_ups.push_back(FollowUp::reboot);
    c.rp.follow_up_text.push_back("Reboot: amdgpu-dkms's kernel module replaces the running amdgpu driver at boot.");
  }
}


Status fetch_keys(FixPlan& plan, const platform::Host& host) {
  for (auto& rp : plan.recipes)
    for (auto& fc : rp.files) {
      if (fc.fetch_url.empty() || !rp.pending() || rp.refused) continue;
      auto key = platform::fetch_url(host, fc.fetch_url);
      if (!key) return make_error("the signing key for " + fc.path + ": " + key.error().message);
      auto binary = formats::dearmor_public_key(*key);
      if (!binary) return make_error(fc.fetch_url + ": " + binary.error().message);
      auto fp = formats::openpgp_fingerprint(*binary);
      if (!fp) return make_error(fc.fetch_url + ": " + fp.error().message);
      if (*fp != fc.fingerprint)
        return make_error(fc.fetch_url + " holds the key " + *fp + ", not the one pinned in amdml's knowledge (" + fc.fingerprint +
                          "): refused, nothing was written");
      // apt reads a dearmored keyring (a .gpg signed-by file); rpm imports what it was given.
      fc.after = fc.path.size() > 4 && fc.path.compare(fc.path.size() - 4, 4, ".gpg") == 0 ? *binary : *key;
      fc.fetch_url.clear();
    }
  return {};
}

}  // namespace amdml::fix
