// Text parsers for the ML probes; see ml_outputs.hpp.
#include "formats/ml_outputs.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "formats/json.hpp"
#include "formats/system_files.hpp"

namespace amdml::formats::mlparse {

std::optional<Version> ollama_version(std::string_view out) {
  std::optional<Version> found;
  constexpr std::string_view marker = "version is ";
  for (std::size_t p = out.find(marker); p != std::string_view::npos; p = out.find(marker, p + 1)) {
    auto rest = out.substr(p + marker.size());
    auto end = rest.find_first_of(" \t\r\n");
    auto word = rest.substr(0, end);
    if (!word.empty() && word.front() == 'v') word.remove_prefix(1);
    if (word.empty() || word.front() < '0' || word.front() > '9') continue;
    if (auto v = Version::parse(word)) found = v;
  }
  return found;
}

namespace {

// The right-hand side of `name[: annotation] = 'value'` when it is a string literal;
// "None" yields an empty optional with *is_none set.
std::optional<std::string> py_string(std::string_view rhs, bool* is_none) {
  rhs = text::trim(rhs);
  *is_none = rhs == "None";
  if (rhs.size() < 2) return std::nullopt;
  char q = rhs.front();
  if ((q != '\'' && q != '"') || rhs.back() != q) return std::nullopt;
  return std::string(rhs.substr(1, rhs.size() - 2));
}

}  // namespace

TorchVersionPy torch_version_py(std::string_view text) {
  TorchVersionPy v;
  for (auto line : text::split_lines(text)) {
    line = text::trim(line);
    if (line.empty() || line.front() == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    auto lhs = line.substr(0, eq);
    auto colon = lhs.find(':');
    if (colon != std::string_view::npos) lhs = lhs.substr(0, colon);
    lhs = text::trim(lhs);
    bool none = false;
    auto val = py_string(line.substr(eq + 1), &none);
    if (lhs == "__version__" && val) {
      v.version = val;
      v.recognised = true;
    } else if (lhs == "hip") {
      v.hip = val;
    } else if (lhs == "cuda") {
      v.cuda = val;
    }
  }
  return v;
}

TorchBuild torch_build(const TorchVersionPy& v) {
  if (!v.recognised) return TorchBuild::unknown;
  if (v.hip && !v.hip->empty()) return TorchBuild::rocm;
  if (v.cuda && !v.cuda->empty()) return TorchBuild::cuda;
  return TorchBuild::cpu;
}

std::optional<GfxTarget> library_file_target(std::string_view name) {
  for (std::size_t p = name.find("gfx"); p != std::string_view::npos; p = name.find("gfx", p + 1)) {
    if (p > 0 && name[p - 1] != '_' && name[p - 1] != '-' && name[p - 1] != '.') continue;
    std::size_t e = p + 3;
    while (e < name.size() && std::isxdigit(static_cast<unsigned char>(name[e]))) ++e;
    if (e - p < 6) continue;  // gfxNNN at least
    if (e < name.size() && name[e] != '.' && name[e] != '_' && name[e] != '-' && name[e] != ':') continue;
    if (auto g = GfxTarget::parse_name(name.substr(p, e - p))) return g;
  }
  return std::nullopt;
}

std::optional<Version> ollama_rocm_dir_version(std::string_view dir) {
  constexpr std::string_view prefix = "rocm_v";
  if (!dir.starts_with(prefix)) return std::nullopt;
  std::string s(dir.substr(prefix.size()));
  for (char& c : s)
    if (c == '_') c = '.';
  if (s.empty() || s.front() < '0' || s.front() > '9') return std::nullopt;
  return Version::parse(s);
}

std::optional<DistInfoName> dist_info_name(std::string_view n) {
  constexpr std::string_view suffix = ".dist-info";
  if (n.size() <= suffix.size() || n.substr(n.size() - suffix.size()) != suffix) return std::nullopt;
  auto stem = n.substr(0, n.size() - suffix.size());
  auto dash = stem.find('-');  // wheel names escape '-' in the project name as '_'
  if (dash == 0 || dash == std::string_view::npos || dash + 1 >= stem.size()) return std::nullopt;
  DistInfoName d;
  for (char c : stem.substr(0, dash))
    d.name += static_cast<char>(c == '_' || c == '.' ? '-' : std::tolower(static_cast<unsigned char>(c)));
  d.version = std::string(stem.substr(dash + 1));
  return d;
}

Result<std::vector<GfxTarget>> therock_dist_targets(std::string_view text) {
  auto j = parse_json(text);
  if (!j) return make_error("not JSON: " + j.error().message);
  if (!j->is_object()) return make_error("not a JSON object");
  auto it = j->find("dist_amdgpu_targets");
  if (it == j->end()) return make_error("no \"dist_amdgpu_targets\"");
  std::vector<std::string> words;
  if (it->is_string()) {
    std::string all = it->get<std::string>();
    std::size_t start = 0;
    while (start <= all.size()) {
      auto end = all.find_first_of(";, ", start);
      if (end == std::string::npos) end = all.size();
      if (end > start) words.push_back(all.substr(start, end - start));
      start = end + 1;
    }
  } else if (it->is_array()) {
    for (const auto& e : *it)
      if (e.is_string()) words.push_back(e.get<std::string>());
  } else {
    return make_error("\"dist_amdgpu_targets\" is neither a string nor a list");
  }
  std::vector<GfxTarget> out;
  for (const auto& w : words)
    if (auto g = GfxTarget::parse_name(w); g && std::find(out.begin(), out.end(), *g) == out.end()) out.push_back(*g);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> pacman_desc_field(std::string_view desc, std::string_view field) {
  bool next = false;
  for (auto line : text::split_lines(desc)) {
    line = text::trim(line);
    if (next) return line.empty() ? std::nullopt : std::optional<std::string>(std::string(line));
    next = line.size() == field.size() + 2 && line.front() == '%' && line.back() == '%' &&
           line.substr(1, field.size()) == field;
  }
  return std::nullopt;
}

const std::string& torch_probe_program() {
  // Single line on purpose: it is the manifest key under --root. The body lives in an
  // exec() string so the whole program stays one line. It writes nothing: no bytecode
  // (sys.dont_write_bytecode before torch is imported), nothing on disk. Each answer is a
  // line of its own, flushed at once, so a child killed mid-matmul still tells how far
  // it got ("AMDML_MATMUL_START N" without its "AMDML_MATMUL").
  static const std::string program =
      "exec(\"import sys,json,time\\n"
      "sys.dont_write_bytecode=True\\n"
      "def say(t,d):print(t+' '+json.dumps(d),flush=True)\\n"
      "r={};n=0\\n"
      "try:\\n"
      " import torch\\n"
      " r['version']=torch.__version__;r['hip']=torch.version.hip\\n"
      " r['available']=torch.cuda.is_available();n=torch.cuda.device_count();r['count']=n\\n"
      " r['names']=[torch.cuda.get_device_name(i) for i in range(n)]\\n"
      " r['archs']=[getattr(torch.cuda.get_device_properties(i),'gcnArchName','') for i in range(n)]\\n"
      " r['arch_list']=torch.cuda.get_arch_list()\\n"
      "except BaseException as e:\\n"
      " r['error']=type(e).__name__+': '+str(e);n=0\\n"
      "say('AMDML_TORCH',r)\\n"
      "for i in range(n if r.get('available') else 0):\\n"
      " m={'device':i};print('AMDML_MATMUL_START '+str(i),flush=True)\\n"
      " try:\\n"
      "  d=torch.device('cuda',i);s=2048;k=8\\n"
      "  a=torch.randn(s,s,device=d);b=torch.randn(s,s,device=d);c=a@b;torch.cuda.synchronize(d)\\n"
      "  t=time.perf_counter()\\n"
      "  for _ in range(k):c=a@b\\n"
      "  torch.cuda.synchronize(d);dt=max(time.perf_counter()-t,1e-9)\\n"
      "  m.update(ok=True,size=s,ms=dt*1e3/k,tflops=2*s**3*k/dt/1e12)\\n"
      "  m['data_ok']=bool(torch.allclose(c[:64].cpu(),a[:64].cpu()@b.cpu(),rtol=1e-2,atol=1e-1))\\n"
      " except BaseException as e:\\n"
      "  m.update(ok=False,error=type(e).__name__+': '+str(e))\\n"
      " say('AMDML_MATMUL',m)\\n"
      "\")";
  return program;
}

namespace {

// The most telling line of what a child printed on stderr: a HIP, HSA or rocBLAS error
// rather than the traceback around it.
std::string telling_line(const CommandResult& r) {
  std::string best;
  for (auto line : text::split_lines(r.err)) {
    line = text::trim(line);
    if (line.empty()) continue;
    bool telling = line.find("hipError") != std::string_view::npos || line.find("HIP error") != std::string_view::npos ||
                   line.find("HSA_STATUS") != std::string_view::npos || line.find("rocBLAS error") != std::string_view::npos ||
                   line.find("Error") != std::string_view::npos || line.find("error") != std::string_view::npos;
    if (telling || best.empty()) best = std::string(line);
  }
  if (best.size() > 500) best = best.substr(0, 500) + "...";
  return best;
}

void read_torch_line(const nlohmann::json& j, TorchRuntime& t) {
  if (j.contains("available") && j["available"].is_boolean()) t.available = j["available"].get<bool>();
  if (j.contains("count") && j["count"].is_number_integer()) t.device_count = j["count"].get<int>();
  auto strings = [&](const char* key, std::vector<std::string>& out) {
    if (!j.contains(key) || !j[key].is_array()) return;
    for (const auto& x : j[key])
      if (x.is_string()) out.push_back(x.get<std::string>());
  };
  strings("names", t.device_names);
  strings("archs", t.device_archs);
  strings("arch_list", t.arch_list);
  if (j.contains("error") && j["error"].is_string()) t.error = j["error"].get<std::string>();
}

std::optional<TorchMatmul> read_matmul_line(const nlohmann::json& j) {
  if (!j.contains("device") || !j["device"].is_number_integer()) return std::nullopt;
  TorchMatmul m;
  m.device = j["device"].get<int>();
  if (j.contains("ok") && j["ok"].is_boolean()) m.ok = j["ok"].get<bool>();
  auto number = [&](const char* key) -> std::optional<double> {
    if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
    double v = j[key].get<double>();
    return v >= 0 && v < 1e12 ? std::optional<double>(v) : std::nullopt;
  };
  if (auto s = number("size"); s && *s >= 1 && *s <= 1e6) m.size = static_cast<int>(*s);
  m.ms = number("ms");
  m.tflops = number("tflops");
  if (j.contains("data_ok") && j["data_ok"].is_boolean()) m.data_ok = j["data_ok"].get<bool>();
  if (j.contains("error") && j["error"].is_string()) m.error = j["error"].get<std::string>();
  if (!m.ok && !m.error) m.error = "the child reported a failure without a message";
  return m;
}

}  // namespace

TorchRuntime torch_runtime(const CommandResult& r) {
  TorchRuntime t;
  t.ran = true;
  t.exit_code = r.exit_code;
  t.timed_out = r.timed_out;
  bool parsed = false;
  int started = -1;  // the device whose matmul began and has not answered (-1: none)
  for (auto line : text::split_lines(r.out)) {
    auto tagged = [&](std::string_view tag) -> std::optional<std::string_view> {
      auto p = line.find(tag);
      if (p == std::string_view::npos) return std::nullopt;
      return line.substr(p + tag.size());
    };
    if (auto start = tagged("AMDML_MATMUL_START ")) {
      auto device = text::u64(text::trim(*start));
      if (!device || *device > 1024) continue;
      started = static_cast<int>(*device);
    } else if (auto matmul = tagged("AMDML_MATMUL ")) {
      auto doc = parse_json(*matmul);
      if (!doc || !doc->is_object()) continue;
      if (auto m = read_matmul_line(*doc)) {
        if (started == m->device) started = -1;
        t.matmuls.push_back(std::move(*m));
      }
    } else if (auto torch = tagged("AMDML_TORCH ")) {
      auto doc = parse_json(*torch);
      if (!doc || !doc->is_object()) continue;
      parsed = true;
      read_torch_line(*doc, t);
    }
  }
  if (started >= 0) {
    // The matmul on this device never answered: the child hung there or died there.
    TorchMatmul m;
    m.device = started;
    m.timed_out = r.timed_out;
    std::string said = telling_line(r);
    if (r.timed_out) m.error = "did not finish: the child was killed at its time limit";
    else if (!said.empty()) m.error = said;
    else if (r.signal) m.error = "the child was killed by signal " + std::to_string(r.signal);
    else m.error = "the child exited (code " + std::to_string(r.exit_code) + ") without an answer";
    if (r.timed_out && !said.empty()) *m.error += "; it said: " + said;
    t.matmuls.push_back(std::move(m));
  } else if (t.timed_out && !parsed) {
    t.error = "timed out importing torch";
  } else if (!parsed || (r.exit_code != 0 && !t.error && !r.timed_out)) {
    // A HIP abort prints its reason on stderr and dies: keep the most telling line.
    std::string best = telling_line(r);
    if (best.empty() && r.signal) best = "killed by signal " + std::to_string(r.signal);
    if (best.empty() && r.exit_code != 0) best = "exit code " + std::to_string(r.exit_code);
    if (!best.empty()) t.error = best;
  }
  return t;
}

}  // namespace amdml::formats::mlparse