// Rule functions the registry runs, and helpers shared by rules.
#pragma once

#include <optional>
#include <string>

#include "rules/rules.hpp"

namespace amdml::rules {

void gpu_presence(const RuleContext& ctx, std::vector<Finding>& out);   // gpu_presence.cpp
void container(const RuleContext& ctx, std::vector<Finding>& out);      // container.cpp
void access(const RuleContext& ctx, std::vector<Finding>& out);         // access.cpp
void rocm_presence(const RuleContext& ctx, std::vector<Finding>& out);  // rocm_presence.cpp
void knowledge_rules(const RuleContext& ctx, std::vector<Finding>& out);  // knowledge_rules.cpp
void runtime_rules(const RuleContext& ctx, std::vector<Finding>& out);    // runtime_rules.cpp
void ml_rules(const RuleContext& ctx, std::vector<Finding>& out);         // ml_rules.cpp
// After every rule: notes that name another finding's fix, only when that fix is in the
// plan (gfx.override-needed mentions ollama's drop-in only when ollama.env asks for it).
void cross_reference(std::vector<Finding>& out);                          // gfx_rules.cpp

// Helpers shared by rules.
std::vector<int> amd_gpu_indices(const Facts& f);          // every GPU index
std::string gpu_label(const Facts& f, int index);          // "GPU 0 (AMD Radeon 780M, gfx1103)"
// A finding with the catalog's default severity for its id.
Finding make_finding(FindingId id, std::string title, std::string detail);
bool in_container(const Facts& f);
// Where the login configuration sets NAME to VALUE for every new session, if it does:
// /etc/environment, or both /etc/profile.d and /etc/environment.d.
std::optional<std::string> login_sets(const Facts& f, const std::string& name, const std::string& value);

}  // namespace amdml::rules
