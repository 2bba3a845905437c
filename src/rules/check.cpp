// The check gate: the doctor's findings as one case per catalog id, then the
// expectations from the command line, each with a one-line reason when it fails.
#include "amdml/check.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "formats/system_files.hpp"
#include "rules/rules.hpp"

namespace amdml {

namespace {

// "GPU 1 (AMD Instinct MI300X, 0000:15:00.0)"
std::string label(const Facts& f, std::size_t i) {
  const Gpu& g = f.gpus[i];
  std::string inner = g.marketing_name.value_or(g.gfx ? g.gfx->name() : "");
  if (g.pci_slot) inner += (inner.empty() ? "" : ", ") + *g.pci_slot;
  return "GPU " + std::to_string(i) + (inner.empty() ? "" : " (" + inner + ")");
}

// Why a GPU is not usable, for messages.
std::string unusable_reason(const Facts& f, std::size_t i) {
  const Gpu& g = f.gpus[i];
  if (!g.kfd_node) return "no KFD node (the kernel offers it no compute)";
  return "its render node " + g.render_node.value_or("?") + " is not present here";
}

CheckCase expect_case(std::string name) {
  CheckCase c;
  c.suite = "expect";
  c.name = std::move(name);
  return c;
}

std::vector<std::size_t> usable_gpus(const Facts& f) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    if (gpu_usable(f, i)) out.push_back(i);
  return out;
}

std::string finding_text(const Finding& fd, const Facts& facts) {
  std::string out = std::string(to_string(fd.severity)) + ": " + fd.title + " [" + std::string(to_string(fd.id)) + "]\n";
  if (!fd.detail.empty()) out += "  cause: " + fd.detail + "\n";
  for (const auto& e : fd.evidence) out += "  seen:  " + e.source + (e.value.empty() ? "" : " = " + e.value) + "\n";
  if (fd.fix) out += "  fix:   " + fix_command(fd, facts) + "\n";
  for (const auto& c : fd.commands) out += "  fix:   " + c + "\n";
  for (const auto& n : fd.notes) out += "  note:  " + n + "\n";
  return out;
}

CheckCase doctor_case(FindingId id, const std::vector<const Finding*>& found, const Report& r,
                      const Expectations& e) {
  CheckCase c;
  c.suite = "doctor";
  c.name = std::string(to_string(id));
  if (found.empty()) {
    // A runtime-layer check cannot have passed when the runtime probe never ran.
    if (finding_prefix(id) == "runtime" && !r.facts.runtime.probed) {
      c.status = CheckStatus::skipped;
      c.message = "the HSA runtime probe did not run";
    }
    return c;
  }
  const Finding* worst = found.front();
  for (const auto* fd : found) {
    if (fd->severity > worst->severity) worst = fd;
    c.output += finding_text(*fd, r.facts);
  }
  bool fails = worst->severity == Severity::error || (e.strict && worst->severity == Severity::warning);
  if (fails) {
    c.status = CheckStatus::failed;
    c.message = worst->title;
    if (found.size() > 1) c.message += " (and " + std::to_string(found.size() - 1) + " more)";
  }
  return c;
}

void expect_gpus(const Facts& f, int want, std::vector<CheckCase>& out) {
  CheckCase c = expect_case("expect-gpus " + std::to_string(want));
  auto use = usable_gpus(f);
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    if (!gpu_usable(f, i)) c.output += label(f, i) + ": not usable, " + unusable_reason(f, i) + "\n";
  if (static_cast<int>(use.size()) != want) {
    c.status = CheckStatus::failed;
    c.message = "expected " + std::to_string(want) + " GPU" + (want == 1 ? "" : "s") + ", ROCm can use " +
                std::to_string(use.size());
    if (use.size() != f.gpus.size()) c.message += " of the " + std::to_string(f.gpus.size()) + " seen";
  }
  out.push_back(std::move(c));
}

std::string gfx_list(const Facts& f, const std::vector<std::size_t>& gpus) {
  std::string s;
  for (auto i : gpus)
    s += (s.empty() ? "" : ", ") + (f.gpus[i].gfx ? f.gpus[i].gfx->name() : "unknown") + " on GPU " + std::to_string(i);
  return s.empty() ? "no usable GPU" : s;
}

void expect_gfx(const Facts& f, const std::vector<GfxTarget>& want, std::vector<CheckCase>& out) {
  auto use = usable_gpus(f);
  for (const auto& t : want) {
    CheckCase c = expect_case("expect-gfx " + t.name());
    bool found = std::any_of(use.begin(), use.end(), [&](std::size_t i) { return f.gpus[i].gfx == t; });
    if (!found) {
      c.status = CheckStatus::failed;
      c.message = "no usable GPU is " + t.name() + " (found: " + gfx_list(f, use) + ")";
    }
    out.push_back(std::move(c));
  }
  // And nothing else: a listed set of targets is the whole set.
  CheckCase c = expect_case("expect-gfx: no other targets");
  std::string others;
  for (auto i : use) {
    const auto& g = f.gpus[i].gfx;
    if (g && std::find(want.begin(), want.end(), *g) != want.end()) continue;
    others += (others.empty() ? "" : "; ") + label(f, i) + " is " + (g ? g->name() : "of unknown gfx");
  }
  if (!others.empty()) {
    std::string names;
    for (const auto& t : want) names += (names.empty() ? "" : ", ") + t.name();
    c.status = CheckStatus::failed;
    c.message = others + ", not one of " + names;
  }
  out.push_back(std::move(c));
}

void expect_memory(const Facts& f, const char* what, Bytes min, std::optional<Bytes> Gpu::*field,
                   std::vector<CheckCase>& out) {
  CheckCase c = expect_case(std::string("min-") + what + " " + format_bytes(min));
  auto use = usable_gpus(f);
  std::string bad;
  for (auto i : use) {
    const auto& v = f.gpus[i].*field;
    std::string have = v ? format_bytes(*v) : "unknown";
    c.output += label(f, i) + ": " + have + " " + what + "\n";
    if (!v || *v < min) bad += (bad.empty() ? "" : "; ") + label(f, i) + " has " + have;
  }
  if (use.empty()) {
    c.status = CheckStatus::failed;
    c.message = "no GPU ROCm can use to measure";
  } else if (!bad.empty()) {
    c.status = CheckStatus::failed;
    std::string upper = what;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
    c.message = bad + " " + upper + ", less than " + format_bytes(min);
  }
  out.push_back(std::move(c));
}

void expect_runtime(const Facts& f, const Expectations& e, std::vector<CheckCase>& out) {
  CheckCase c = expect_case("require runtime");
  auto use = usable_gpus(f);
  std::size_t want = e.gpus ? static_cast<std::size_t>(*e.gpus) : use.size();
  const HsaFacts& h = f.runtime.hsa;
  if (h.outcome != HsaOutcome::ok) {
    c.status = CheckStatus::failed;
    if (h.outcome == HsaOutcome::not_run)
      c.message = "the HSA runtime was not asked (--no-runtime, or nothing recorded under --root)";
    else
      c.message = std::string("the HSA runtime did not enumerate GPUs: ") + to_string(h.outcome) +
                  (h.status_name ? " (" + *h.status_name + ")" : (h.reason.empty() ? "" : " (" + h.reason + ")"));
    out.push_back(std::move(c));
    return;
  }
  // Which usable GPUs have an agent (the runtime probe joined agents to GPUs by PCI
  // location, UUID or node).
  std::vector<bool> has_agent(f.gpus.size(), false);
  for (const auto& a : h.agents) {
    if (a.device != HsaDeviceType::gpu) continue;
    c.output += "agent " + a.name + (a.node ? " (node " + std::to_string(*a.node) + ")" : "") +
                (a.gpu ? " = GPU " + std::to_string(*a.gpu) : "") + "\n";
    if (a.gpu && *a.gpu >= 0 && static_cast<std::size_t>(*a.gpu) < has_agent.size()) has_agent[*a.gpu] = true;
  }
  std::size_t n = h.gpu_agents();
  std::string missing;
  for (auto i : use)
    if (!has_agent[i]) missing += (missing.empty() ? "" : ", ") + label(f, i);
  if (n < want || !missing.empty()) {
    c.status = CheckStatus::failed;
    c.message = "HSA enumerates " + std::to_string(n) + " GPU agent" + (n == 1 ? "" : "s") + ", expected " +
                std::to_string(want);
    if (!missing.empty()) c.message += "; no agent for " + missing;
  }
  out.push_back(std::move(c));
}

// --require compute: every usable GPU allocated, copied (checksummed) and ran the
// runtime's fill kernel in the --deep steps (facts_deep.hpp); a step that did not run
// fails the gate as surely as one that failed.
void expect_compute(const Facts& f, std::vector<CheckCase>& out) {
  CheckCase c = expect_case("require compute");
  const DeepFacts& d = f.deep;
  auto use = usable_gpus(f);
  std::string bad;
  auto add = [&bad](const std::string& s) { bad += (bad.empty() ? "" : "; ") + s; };
  if (!d.asked) {
    add("the deep steps did not run (--deep)");
  } else if (d.gpus.empty()) {
    add(d.reason.empty() ? "no GPU ran the deep steps" : d.reason);
  }
  for (auto i : use) {
    const DeepGpu* g = nullptr;
    for (const auto& x : d.gpus)
      if (x.gpu && static_cast<std::size_t>(*x.gpu) == i) g = &x;
    if (!g) {
      if (d.asked && !d.gpus.empty()) add(label(f, i) + ": no deep result");
      continue;
    }
    for (const auto& s : g->steps) {
      c.output += label(f, i) + " " + to_string(s.kind) + ": " + to_string(s.outcome) + "\n";
      if (s.outcome != DeepOutcome::ok)
        add(label(f, i) + " " + to_string(s.kind) + " " + to_string(s.outcome) +
            (s.error ? " (" + *s.error + ")" : s.message.empty() ? "" : " (" + s.message + ")"));
    }
  }
  if (use.empty() && bad.empty()) add("no GPU ROCm can use");
  if (!bad.empty()) {
    c.status = CheckStatus::failed;
    c.message = bad;
  }
  out.push_back(std::move(c));
}

void expect_rocm(const Facts& f, const Expectations& e, std::vector<CheckCase>& out) {
  CheckCase c = expect_case("rocm " + e.rocm_text);
  const auto& r = f.rocm;
  if (r.source == RocmSource::none) {
    c.status = CheckStatus::failed;
    c.message = "no ROCm installation found";
  } else if (!r.version) {
    c.status = CheckStatus::failed;
    c.message = "ROCm at " + r.path.value_or("?") + " has no readable version";
  } else {
    std::string broken;
    for (const auto& k : e.rocm)
      if (!k.holds(*r.version)) broken += (broken.empty() ? "" : ", ") + k.str();
    c.output = "ROCm " + r.version->str() + " at " + r.path.value_or("?") + "\n";
    if (!broken.empty()) {
      c.status = CheckStatus::failed;
      c.message = "ROCm " + r.version->str() + " does not satisfy " + broken;
    }
  }
  out.push_back(std::move(c));
}

std::optional<std::uint32_t> parse_component(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  std::uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

int CheckReport::count(CheckStatus s) const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [&](const CheckCase& c) { return c.status == s; }));
}

bool VersionConstraint::holds(const Version& v) const {
  std::array<std::uint32_t, 3> a{v.major, v.minor, v.patch}, b{version.major, version.minor, version.patch};
  int cmp = 0;
  for (int i = 0; i < parts && cmp == 0; ++i) cmp = a[i] < b[i] ? -1 : (a[i] > b[i] ? 1 : 0);
  switch (op) {
    case Op::ge: return cmp >= 0;
    case Op::gt: return cmp > 0;
    case Op::le: return cmp <= 0;
    case Op::lt: return cmp < 0;
    case Op::eq: return cmp == 0;
  }
  return false;
}

std::string VersionConstraint::str() const {
  const char* o = op == Op::ge ? ">=" : op == Op::gt ? ">" : op == Op::le ? "<=" : op == Op::lt ? "<" : "==";
  std::string v = std::to_string(version.major);
  if (parts >= 2) v += "." + std::to_string(version.minor);
  if (parts >= 3) v += "." + std::to_string(version.patch);
  return o + v;
}

Result<std::vector<VersionConstraint>> parse_version_spec(std::string_view spec) {
  std::vector<VersionConstraint> out;
  std::string_view rest = spec;
  if (text::trim(spec).empty()) return make_error("empty version constraint (e.g. \">=6.4\")");
  while (true) {
    auto comma = rest.find(',');
    std::string_view item = text::trim(rest.substr(0, comma));
    VersionConstraint k;
    struct {
      const char* text;
      VersionConstraint::Op op;
    } ops[] = {{">=", VersionConstraint::Op::ge}, {"<=", VersionConstraint::Op::le}, {"==", VersionConstraint::Op::eq},
               {">", VersionConstraint::Op::gt},  {"<", VersionConstraint::Op::lt}};
    bool matched = false;
    for (const auto& o : ops) {
      std::string_view t = o.text;
      if (item.substr(0, t.size()) == t) {
        k.op = o.op;
        item = text::trim(item.substr(t.size()));
        matched = true;
        break;
      }
    }
    if (!matched)
      return make_error("\"" + std::string(item) + "\": a version constraint starts with >=, >, <=, < or ==");
    std::vector<std::uint32_t> nums;
    std::string_view v = item;
    while (true) {
      auto dot = v.find('.');
      auto n = parse_component(v.substr(0, dot));
      if (!n) return make_error("\"" + std::string(item) + "\": not a version like 6.4 or 6.4.1");
      nums.push_back(*n);
      if (dot == std::string_view::npos) break;
      v = v.substr(dot + 1);
    }
    if (nums.size() > 3) return make_error("\"" + std::string(item) + "\": at most major.minor.patch");
    k.parts = static_cast<int>(nums.size());
    k.version.major = nums[0];
    if (nums.size() > 1) k.version.minor = nums[1];
    if (nums.size() > 2) k.version.patch = nums[2];
    out.push_back(k);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return out;
}

bool gpu_usable(const Facts& f, std::size_t index) {
  if (index >= f.gpus.size()) return false;
  const Gpu& g = f.gpus[index];
  if (!g.kfd_node) return false;
  if (!f.identity.devices_known || !g.render_node) return true;
  for (const auto& d : f.identity.devices)
    if (d.path == *g.render_node) return d.exists;
  return true;  // identity did not look at this node: nothing says it is missing
}

CheckReport evaluate_checks(const Report& r, const Expectations& e) {
  CheckReport out;
  for (const auto& spec : finding_catalog()) {
    std::vector<const Finding*> found;
    for (const auto& fd : r.findings)
      if (fd.id == spec.id) found.push_back(&fd);
    out.cases.push_back(doctor_case(spec.id, found, r, e));
  }
  const Facts& f = r.facts;
  if (e.gpus) expect_gpus(f, *e.gpus, out.cases);
  if (!e.gfx.empty()) expect_gfx(f, e.gfx, out.cases);
  if (e.min_vram) expect_memory(f, "vram", *e.min_vram, &Gpu::vram, out.cases);
  if (e.min_gtt) expect_memory(f, "gtt", *e.min_gtt, &Gpu::gtt, out.cases);
  if (e.require_runtime) expect_runtime(f, e, out.cases);
  if (e.require_compute) expect_compute(f, out.cases);
  if (!e.rocm.empty()) expect_rocm(f, e, out.cases);
  return out;
}

}  // namespace amdml
