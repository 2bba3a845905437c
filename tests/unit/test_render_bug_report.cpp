// The Markdown bug report (render/bug_report.hpp): its sections, and the replay command it
// prints for an attached snapshot, quoted so that a shell runs exactly it.
#include <gtest/gtest.h>

#include "render/bug_report.hpp"

namespace render = amdml::render;

TEST(BugReport, EverySectionInOrderForAnEmptyMachine) {
  amdml::Report r;
  const auto md = render::render_bug_report(r, {});
  std::size_t at = 0;
  for (const char* h : {"## amdml report", "### System", "### Versions", "### GPUs", "### Access", "### Findings"}) {
    const auto p = md.find(h, at);
    ASSERT_NE(p, std::string::npos) << h;
    at = p;
  }
  EXPECT_NE(md.find("| - | none |"), std::string::npos);
  EXPECT_NE(md.find("No problems found."), std::string::npos);
}

TEST(BugReport, TheReplayCommandIsQuotedForTheShell) {
  amdml::Report r;
  render::BugReportExtras x;
  x.snapshot_path = "/tmp/my snap|1.tar.gz";
  x.snapshot_dir = "amdml-snapshot-host1";
  const auto md = render::render_bug_report(r, x);
  EXPECT_NE(md.find("Replay: `tar xzf '/tmp/my snap|1.tar.gz' && amdml doctor --root amdml-snapshot-host1`"),
            std::string::npos)
      << md;
  x.snapshot_path = "/tmp/a`b.tgz";
  x.snapshot_dir.reset();
  const auto md2 = render::render_bug_report(r, x);
  EXPECT_NE(md2.find("Replay: `` tar xzf '/tmp/a`b.tgz' && amdml doctor --root DIR ``"), std::string::npos) << md2;
}
