// A set-aside rename that fails says why once (issue 29 L9): the failure line, the text
// of the apply and its command record carry the reason a single time, not
// "X: Device or resource busy: X: Device or resource busy".
#include <gtest/gtest.h>

#include "render/fix_text.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"
#include "platform/safe_tree.hpp"

using namespace amdml;
using namespace amdml::fix;
using namespace amdml::test;

namespace {

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

}  // namespace

TEST(FixApplyRename, AFailedRenameGivesItsReasonOnce) {
  TestTree t("bad-symlinks");
  Diagnosed d(t.str());
  std::vector<Finding> findings;
  for (const auto& f : d.findings)
    if (f.fix && f.fix->recipe == "rocm-install") findings.push_back(f);
  ASSERT_FALSE(findings.empty());
  platform::SafeTree tree{t.str()};
  PlanRequest in{*d.host, tree, d.facts, findings, d.recipes, std::string("rocm-install")};
  FixPlan plan = plan_fixes(in);
  ASSERT_EQ(plan.recipes.size(), 1u);
  ASSERT_FALSE(plan.recipes[0].commands.empty());
  ASSERT_TRUE(plan.recipes[0].commands[0].rename);
  t.write("opt/amdml-set-aside-rocm-6.2.4/taken", "since the plan\n");  // the new name taken meanwhile
  ApplyOptions o;
  o.run_commands = false;
  o.live = false;
  o.lock_timeout_ms = 1000;
  auto r = apply_plan(plan, *d.host, tree, tree, o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_FALSE(r->ok);
  ASSERT_TRUE(r->failure);
  const std::string reason = "/opt/amdml-set-aside-rocm-6.2.4 exists; not renaming /opt/rocm-6.2.4 over it";
  EXPECT_EQ(count(r->failure->message, reason), 1u) << r->failure->message;
  const std::string text = render::format_apply(*r, plan);
  EXPECT_EQ(count(text, reason), 2u) << text;  // the FAILED line and the command's own line, once each
  for (const auto& line : text::split_lines(text)) EXPECT_LE(count(std::string(line), reason), 1u) << line;
}
