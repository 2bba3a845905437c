// Validates the shipped knowledge base (recipes/knowledge/*.toml) for internal
// consistency, and the loader's and helpers' semantics on small literal inputs.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "amdml/knowledge.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "support/knowledge.hpp"

using amdml::test::shipped_knowledge;

namespace amdml {
namespace {

TEST(KnowledgeData, CoversTheTargetRange) {
  const auto& kb = shipped_knowledge();
  for (const char* name : {"gfx803", "gfx900", "gfx906", "gfx90a", "gfx90c", "gfx942", "gfx1010", "gfx1030", "gfx1032",
                           "gfx1100", "gfx1103", "gfx1151", "gfx1200", "gfx1201"})
    EXPECT_NE(kb.find_gfx(*GfxTarget::parse_name(name)), nullptr) << name;
  EXPECT_GE(kb.pci.size(), 60u);
  EXPECT_GE(kb.rocm.size(), 8u);
}

TEST(KnowledgeData, EveryGfxHasConsistentKfdVersionFamilyAndWaveSize) {
  std::set<GfxTarget> seen;
  for (const auto& g : shipped_knowledge().gfx) {
    SCOPED_TRACE(g.target.name());
    EXPECT_TRUE(seen.insert(g.target).second) << "listed twice";
    EXPECT_EQ(g.kfd_version, g.target.kfd_version());
    EXPECT_EQ(GfxTarget::from_kfd_version(g.kfd_version), g.target);
    EXPECT_NE(g.isa, IsaFamily::unknown);
    EXPECT_FALSE(g.family.empty());
    // RDNA runs wave32 natively, GCN and CDNA wave64.
    bool rdna = g.isa != IsaFamily::gcn && g.isa != IsaFamily::cdna;
    EXPECT_EQ(g.wave_size, rdna ? 32 : 64);
    // The generation in the name matches the ISA family.
    if (g.isa == IsaFamily::gcn) {
      EXPECT_TRUE(g.target.major >= 6 && g.target.major <= 9);
    }
    if (g.isa == IsaFamily::cdna) {
      EXPECT_EQ(g.target.major, 9u);
    }
    if (g.isa == IsaFamily::rdna1 || g.isa == IsaFamily::rdna2) {
      EXPECT_EQ(g.target.major, 10u);
    }
    if (g.isa == IsaFamily::rdna3 || g.isa == IsaFamily::rdna3_5) {
      EXPECT_EQ(g.target.major, 11u);
    }
    if (g.isa == IsaFamily::rdna4) {
      EXPECT_EQ(g.target.major, 12u);
    }
  }
}

TEST(KnowledgeData, OverridesParseAndStayInsideTheIsaFamily) {
  const auto& kb = shipped_knowledge();
  int with_override = 0;
  for (const auto& g : kb.gfx) {
    if (!g.override_to) continue;
    ++with_override;
    SCOPED_TRACE(g.target.name());
    auto p = parse_hsa_override(g.override_to->version_string());
    ASSERT_TRUE(p.target.has_value());
    EXPECT_EQ(*p.target, *g.override_to);
    const GfxInfo* to = kb.find_gfx(*g.override_to);
    ASSERT_NE(to, nullptr) << "override target not in the table";
    EXPECT_NE(*g.override_to, g.target);
    EXPECT_TRUE(isa_compatible(g.isa, to->isa));
    EXPECT_EQ(g.wave_size, to->wave_size);
    EXPECT_FALSE(g.override_caveat.empty()) << "every override needs its caveat";
  }
  EXPECT_GE(with_override, 10);
}

TEST(KnowledgeData, PciIdsAreUniqueAndNameKnownTargets) {
  const auto& kb = shipped_knowledge();
  std::set<std::pair<std::uint16_t, int>> seen;
  for (const auto& p : kb.pci) {
    SCOPED_TRACE(p.name);
    EXPECT_TRUE(seen.insert({p.device, p.revision ? *p.revision : -1}).second) << "PCI id listed twice";
    EXPECT_NE(kb.find_gfx(p.gfx), nullptr) << p.gfx.name() << " not in the gfx table";
    EXPECT_FALSE(p.name.empty());
  }
  // Every device with revision-specific entries also has a default.
  for (const auto& p : kb.pci)
    if (p.revision) {
      bool has_default = false;
      for (const auto& q : kb.pci) has_default |= q.device == p.device && !q.revision;
      EXPECT_TRUE(has_default) << std::hex << p.device;
    }
}

// Every channel: its releases are [[rocm]] entries, its AMD repositories pin a key, and
// every target of a release it carries has a family when the channel downloads by family.
TEST(KnowledgeData, ChannelsNameKnownReleasesAndPinTheirKeys) {
  const auto& kb = shipped_knowledge();
  ASSERT_NE(kb.find_channel("amd-core-10"), nullptr);
  for (const auto& c : kb.channels) {
    SCOPED_TRACE(c.id);
    for (const auto& v : c.rocm) {
      const RocmRelease* r = kb.find_rocm(v);
      ASSERT_NE(r, nullptr);
      EXPECT_EQ(r->version, v);
      if (c.repo.find("{family}") != std::string::npos)
        for (const auto& g : r->kernels) EXPECT_TRUE(c.families.count(g.name())) << g.name();
    }
    if (!c.distro_own && (c.kind == "apt" || c.kind == "dnf")) EXPECT_EQ(c.fingerprint.size(), 40u);
    if (c.distro_own) EXPECT_TRUE(c.key_url.empty());
  }
  const auto* core = kb.find_channel("amd-core-10");
  EXPECT_EQ(core->fingerprint, "D0F004A0025A1145C7807FCD0701EAC4D5E02107");
  EXPECT_EQ(kb.channels_for(Version{10, 1, 0}).front(), core);
}

TEST(KnowledgeData, ReleasesSortedUniqueAndConsistent) {
  const auto& kb = shipped_knowledge();
  for (std::size_t i = 1; i < kb.rocm.size(); ++i) EXPECT_LT(kb.rocm[i - 1].version, kb.rocm[i].version);
  EXPECT_EQ(kb.rocm.front().version, (Version{5, 7, 0}));
  EXPECT_EQ(kb.rocm.back().version, (Version{10, 1, 0}));  // ROCm 10.1 (2026-10-05); 10.2 unconfirmed
  for (const auto& r : kb.rocm) {
    SCOPED_TRACE(r.version.str());
    for (const auto& g : r.official) EXPECT_TRUE(r.has_kernels(g)) << g.name();
    for (const auto& g : r.kernels) EXPECT_NE(kb.find_gfx(g), nullptr) << g.name();
    EXPECT_FALSE(r.distros.empty());
    ASSERT_TRUE(r.kernel_min && r.kernel_max);
    EXPECT_LE(*r.kernel_min, *r.kernel_max);
    if (!r.pytorch_index.empty()) {
      EXPECT_TRUE(r.pytorch_index.starts_with("https://download.pytorch.org/whl/rocm")) << r.pytorch_index;
    }
  }
  for (const auto& k : kb.kernel_reqs)
    for (const auto& g : k.gfx) EXPECT_NE(kb.find_gfx(g), nullptr);
}

TEST(KnowledgeData, LookupsFollowTheRevisionAndReleaseRules) {
  const auto& kb = shipped_knowledge();
  // 73FF rev DF is a Navi 22 although the device is Navi 23.
  EXPECT_EQ(kb.find_pci(0x73ff, 0xdf)->gfx.name(), "gfx1031");
  EXPECT_EQ(kb.find_pci(0x73ff, 0xc1)->gfx.name(), "gfx1032");
  EXPECT_EQ(kb.find_pci(0x73ff, 0x42)->gfx.name(), "gfx1032");  // unknown revision: the default
  // An unknown revision names the family, never one of its models.
  EXPECT_EQ(kb.find_pci(0x15bf, std::nullopt)->name, "AMD Radeon 740M/760M/780M (Phoenix)");
  EXPECT_EQ(kb.find_pci(0x15bf, 0xc1)->name, "AMD Radeon 780M");
  EXPECT_EQ(kb.find_pci(0x150e, 0xc4)->name, "AMD Radeon 880M");
  EXPECT_EQ(kb.find_pci(0x7480, std::nullopt)->name, "AMD Radeon RX 7600 series (Navi 33)");
  EXPECT_EQ(kb.find_pci(0x7550, 0x42)->name, "AMD Radeon RX 9070 series (Navi 48)");
  // GCN 1 and 2 by the kernel's id list.
  EXPECT_EQ(kb.find_pci(0x6818, std::nullopt)->gfx.name(), "gfx601");  // HD 7870
  EXPECT_EQ(kb.find_pci(0x679a, std::nullopt)->gfx.name(), "gfx600");  // R9 280
  EXPECT_EQ(kb.find_pci(0x6617, std::nullopt)->gfx.name(), "gfx602");  // R7 240
  EXPECT_EQ(kb.find_pci(0x67b1, std::nullopt)->gfx.name(), "gfx701");  // R9 290
  EXPECT_EQ(kb.find_pci(0x1234, std::nullopt), nullptr);
  // 6.4.0 lacks RDNA 4, 6.4.1 and later have it.
  auto g1201 = *GfxTarget::parse_name("gfx1201");
  EXPECT_FALSE(kb.find_rocm({6, 4, 0})->has_kernels(g1201));
  EXPECT_TRUE(kb.find_rocm({6, 4, 3})->has_kernels(g1201));
  EXPECT_FALSE(kb.find_rocm({6, 3, 2})->has_kernels(g1201));
  EXPECT_EQ(kb.first_official(g1201)->version, (Version{6, 4, 1}));
  EXPECT_EQ(kb.find_rocm({5, 6, 0}), nullptr);
}

// Every PCI id resolves to exactly one gfx target, and an unknown revision to a name that
// is not one model among several.
TEST(KnowledgeWide, EveryPciIdResolvesToOneTargetAndAFamilyDefault) {
  const auto& kb = shipped_knowledge();
  std::set<std::uint16_t> devices;
  for (const auto& p : kb.pci) devices.insert(p.device);
  EXPECT_GE(devices.size(), 250u);
  for (auto d : devices) {
    SCOPED_TRACE(testing::Message() << std::hex << d);
    const PciProduct* def = kb.find_pci(d, std::nullopt);
    ASSERT_NE(def, nullptr);
    ASSERT_FALSE(def->revision.has_value()) << "no default entry";
    std::set<std::string> models;
    for (const auto& p : kb.pci) {
      if (p.device != d || !p.revision) continue;
      EXPECT_EQ(kb.find_pci(d, p.revision), &p);
      // The revision picks the name; the target differs only for a different die (73FF rev DF).
      if (p.gfx != def->gfx) {
        EXPECT_TRUE(d == 0x73ff && *p.revision == 0xdf) << p.name;
      }
      models.insert(p.name);
    }
    if (models.size() >= 2) {
      EXPECT_EQ(models.count(def->name), 0u) << def->name << " is one model of several";
    }
  }
}

// Every override names a target of the same ISA family (and wave size) that some ROCm
// release ships kernels for; targets no ROCm runs have none.
TEST(KnowledgeWide, OverridesNameShippedTargetsOfTheSameFamily) {
  const auto& kb = shipped_knowledge();
  for (const auto& g : kb.gfx) {
    SCOPED_TRACE(g.target.name());
    bool shipped_somewhere = false;
    for (const auto& r : kb.rocm) shipped_somewhere |= r.has_kernels(g.target);
    if (g.rocm_never) {
      EXPECT_FALSE(shipped_somewhere);
      EXPECT_FALSE(g.override_to);
      continue;
    }
    if (!g.override_to) continue;
    const GfxInfo* to = kb.find_gfx(*g.override_to);
    ASSERT_NE(to, nullptr);
    EXPECT_TRUE(isa_compatible(g.isa, to->isa));
    EXPECT_EQ(g.wave_size, to->wave_size);
    bool ships = false;
    for (const auto& r : kb.rocm) ships |= r.has_kernels(*g.override_to);
    EXPECT_TRUE(ships) << g.override_to->name() << " is in no release";
  }
}

TEST(KnowledgeWide, EveryGcnGenerationIsKnown) {
  const auto& kb = shipped_knowledge();
  for (const char* name : {"gfx600", "gfx601", "gfx602", "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705",
                           "gfx801", "gfx802", "gfx803", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906", "gfx909",
                           "gfx90c", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1011", "gfx1012", "gfx1030",
                           "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx1100", "gfx1101",
                           "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1200", "gfx1201"}) {
    const GfxInfo* g = kb.find_gfx(*GfxTarget::parse_name(name));
    ASSERT_NE(g, nullptr) << name;
    // GCN 1 and 2 never ran ROCm; the doctor sends them to Vulkan.
    if (g->target.major <= 7) {
      EXPECT_TRUE(g->rocm_never) << name;
    }
  }
}

TEST(KnowledgeWide, OllamaReleasesAreData) {
  const auto& kb = shipped_knowledge();
  ASSERT_GE(kb.ollama.size(), 5u);
  for (std::size_t i = 0; i + 1 < kb.ollama.size(); ++i) EXPECT_EQ(kb.ollama[i].until, kb.ollama[i + 1].from);
  EXPECT_FALSE(kb.ollama.back().until);
  for (const auto& b : kb.ollama)
    for (const auto& t : b.targets) EXPECT_NE(kb.find_gfx(t), nullptr) << t.name();
  const auto* b = kb.find_ollama({0, 20, 7});
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->rocm, (Version{7, 2, 1}));
  EXPECT_EQ(kb.find_ollama({0, 5, 7}), nullptr);
  auto g1151 = *GfxTarget::parse_name("gfx1151");
  EXPECT_FALSE(kb.ollama_igpu_allowlisted(g1151, {0, 30, 0}));
  EXPECT_TRUE(kb.ollama_igpu_allowlisted(g1151, {0, 30, 1}));
  EXPECT_FALSE(kb.ollama_igpu_allowlisted(*GfxTarget::parse_name("gfx1103"), {0, 40, 0}));
}

TEST(OverrideParse, FollowsLibhsakmtGrammar) {
  EXPECT_EQ(*parse_hsa_override("10.3.0").target, (GfxTarget{10, 3, 0}));
  EXPECT_EQ(*parse_hsa_override("9.0.10").target, (GfxTarget{9, 0, 10}));
  EXPECT_EQ(*parse_hsa_override("63.255.255").target, (GfxTarget{63, 255, 255}));
  // Decimal numbers: leading zeros are harmless, however many (libhsakmt reads %u).
  EXPECT_EQ(*parse_hsa_override("11.0.0000").target, (GfxTarget{11, 0, 0}));
  EXPECT_EQ(*parse_hsa_override("011.00.0000000000000000000000").target, (GfxTarget{11, 0, 0}));
  EXPECT_EQ(parse_gfx_override("11.0.0000"), (GfxTarget{11, 0, 0}));
  EXPECT_EQ(parse_gfx_override(" 11.0.0"), std::nullopt);
  EXPECT_EQ(parse_hsa_override("64.0.0").error, OverrideError::out_of_range);
  EXPECT_EQ(parse_hsa_override("11.256.0").error, OverrideError::out_of_range);
  EXPECT_EQ(parse_hsa_override("").error, OverrideError::empty);
  EXPECT_EQ(parse_hsa_override("10.3").error, OverrideError::malformed);
  EXPECT_EQ(parse_hsa_override("10.3.0.1").error, OverrideError::malformed);
  EXPECT_EQ(parse_hsa_override("9.0.a").error, OverrideError::malformed);
  EXPECT_EQ(parse_hsa_override("-1.0.0").error, OverrideError::malformed);
  auto q = parse_hsa_override("\"11.0.0\"");
  EXPECT_EQ(q.error, OverrideError::quoted);
  EXPECT_EQ(*q.suggestion, (GfxTarget{11, 0, 0}));
  auto n = parse_hsa_override("gfx1030");
  EXPECT_EQ(n.error, OverrideError::gfx_name);
  EXPECT_EQ(*n.suggestion, (GfxTarget{10, 3, 0}));
  EXPECT_NE(describe_override_error(q, "\"11.0.0\"").find("quotes"), std::string::npos);
}

TEST(KernelReq, OemBackportAndPerReleaseStatus) {
  const auto* req = shipped_knowledge().kernel_req_for(*GfxTarget::parse_name("gfx1151"));
  ASSERT_NE(req, nullptr);
  EXPECT_FALSE(req->satisfied_by("6.8.0-60-generic"));
  EXPECT_FALSE(req->satisfied_by("6.14.0-1017-oem"));
  EXPECT_TRUE(req->satisfied_by("6.14.0-1018-oem"));
  EXPECT_FALSE(req->satisfied_by("6.14.0-1018-generic"));
  EXPECT_FALSE(req->satisfied_by("6.18.3-arch1-1"));
  EXPECT_TRUE(req->satisfied_by("6.18.4-arch1-1"));
  EXPECT_TRUE(req->satisfied_by("7.0.0-15-generic"));
  EXPECT_EQ(req->status({7, 2, 0}, false), KernelStatus::unsupported);
  EXPECT_EQ(req->status({7, 2, 1}, false), KernelStatus::unstable);
  EXPECT_EQ(req->status({7, 1, 1}, true), KernelStatus::unsupported);
  EXPECT_EQ(req->status({7, 2, 1}, true), KernelStatus::ok);
  EXPECT_EQ(req->status({6, 2, 0}, true), KernelStatus::unknown);
}

TEST(MemoryKnowledge, RecommendationLeavesAReserveAndNeverExceedsRam) {
  MemoryKnowledge mk;
  auto rec = mk.recommended_pages_limit(Bytes{128 * kGiB});
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->value, 112 * kGiB / kPageSize);  // 12.5 % reserve
  rec = mk.recommended_pages_limit(Bytes{16 * kGiB});
  EXPECT_EQ(rec->value, 12 * kGiB / kPageSize);   // 4 GiB floor
  EXPECT_FALSE(mk.recommended_pages_limit(Bytes{4 * kGiB}).has_value());
  for (std::uint64_t g = 5; g < 1024; g += 7) {
    auto r = mk.recommended_pages_limit(Bytes{g * kGiB});
    ASSERT_TRUE(r);
    EXPECT_LE(r->bytes().value, static_cast<std::uint64_t>(0.9 * static_cast<double>(g * kGiB)));
  }
}

// rocm-releases.toml: every apt release installs one [[rocm]] entry exactly, and every
// apt distribution a release lists has its suite.
TEST(KnowledgeData, AptReleasesMatchRocmEntriesAndEveryAptDistroHasASuite) {
  const Knowledge& kb = shipped_knowledge();
  ASSERT_FALSE(kb.apt.releases.empty());
  EXPECT_NE(kb.apt.rocm_repo.find("{path}"), std::string::npos);
  for (const auto& a : kb.apt.releases) {
    const RocmRelease* r = kb.find_rocm(a.rocm);
    ASSERT_TRUE(r && r->version == a.rocm) << short_version(a.rocm) << " has no [[rocm]] entry";
    // The directory is a point release of the entry's major.minor.
    EXPECT_TRUE(a.path.starts_with(std::to_string(a.rocm.major) + "." + std::to_string(a.rocm.minor))) << a.path;
    for (const auto& d : r->distros)
      if (d.starts_with("ubuntu 2") || d.starts_with("debian 1")) {
        bool known = std::any_of(kb.apt.codenames.begin(), kb.apt.codenames.end(),
                                 [&](const AptCodename& c) { return c.distro == d; });
        EXPECT_TRUE(known) << d << " (ROCm " << short_version(r->version) << ") has no [[apt_codename]]";
      }
  }
  for (const auto& d : kb.apt.distro_packages) EXPECT_FALSE(d.packages.empty()) << d.distro;
  auto load = [](const std::string& text) { return formats::load_knowledge({{"knowledge/x.toml", text}}); };
  EXPECT_FALSE(load("[apt]\nrocm_repo = \"https://x\"\n").ok());  // no {path}, nothing else
  EXPECT_FALSE(load("[[apt_release]]\nrocm = \"7.2\"\npath = \"7.2.1/../..\"\ngraphics = \"x\"\n").ok());
  auto unknown = load("[[apt_codename]]\ndistro = \"ubuntu 24.04\"\ncodename = \"noble\"\nsuite = \"noble\"\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown key 'suite' in [[apt_codename]]"), std::string::npos) << unknown.error().message;
}

TEST(KnowledgeLoader, RejectsBadData) {
  auto load = [](const std::string& text) { return formats::load_knowledge({{"knowledge/x.toml", text}}); };
  EXPECT_FALSE(load("[[gfx]]\ntarget = \"gfx1030\"\nisa = \"rdna2\"\n").ok());  // no kfd_version
  EXPECT_FALSE(load("[[gfx]]\ntarget = \"gfx1030\"\nkfd_version = 100300\nisa = \"rdna9\"\n").ok());
  EXPECT_FALSE(load("[[gfx]]\ntarget = \"gfx1031\"\nkfd_version = 100301\nisa = \"rdna2\"\noverride = \"gfx1030\"\n").ok());
  EXPECT_FALSE(load("[[pci]]\ndevice = \"zz\"\ngfx = \"gfx1030\"\nname = \"x\"\n").ok());
  EXPECT_FALSE(load("[[rocm]]\nversion = \"x\"\n").ok());
  // PyTorch wheels live in one table only.
  EXPECT_FALSE(load("[[rocm]]\nversion = \"7.2\"\npytorch_index = \"https://download.pytorch.org/whl/rocm7.1\"\n").ok());
  EXPECT_FALSE(load("[[pytorch]]\nrocm = \"7.1\"\nindex = \"https://a\"\n[[pytorch]]\nrocm = \"7.1\"\nindex = \"https://b\"\n").ok());
  // A chip's device cannot carry another target than its [[pci]] default, nor be in two chips.
  EXPECT_FALSE(load("[[pci]]\ndevice = \"0x6818\"\ngfx = \"gfx601\"\nname = \"x\"\n"
                    "[[chip]]\ngfx = \"gfx600\"\nname = \"y\"\ndevices = [\"0x6818\"]\n").ok());
  EXPECT_FALSE(load("[[chip]]\ngfx = \"gfx600\"\nname = \"y\"\ndevices = [\"0x6818\"]\n"
                    "[[chip]]\ngfx = \"gfx601\"\nname = \"z\"\ndevices = [\"0x6818\"]\n").ok());
  EXPECT_FALSE(load("[[pci]]\ndevice = \"0x6818\"\ngfx = \"gfx601\"\nname = \"x\"\n"
                    "[[pci]]\ndevice = \"0x6818\"\ngfx = \"gfx601\"\nname = \"y\"\n").ok());
  // ollama ranges join end to end; the newest is open.
  EXPECT_FALSE(load("[[ollama]]\nfrom = \"0.5.0\"\nuntil = \"0.6.0\"\nrocm = \"6.1\"\ntargets = [\"gfx1030\"]\n"
                    "[[ollama]]\nfrom = \"0.7.0\"\nrocm = \"6.1\"\ntargets = [\"gfx1030\"]\n").ok());
  EXPECT_FALSE(load("[[ollama]]\nfrom = \"0.5.0\"\nuntil = \"0.6.0\"\nrocm = \"6.1\"\ntargets = [\"gfx1030\"]\n").ok());
  EXPECT_FALSE(load("[[ollama]]\nfrom = \"0.5.0\"\nrocm = \"6.1\"\ntargets = []\n").ok());
  EXPECT_FALSE(load("[ollama_policy]\nigpu_drop_from = \"0.30.0\"\n").ok());  // the other versions missing
  EXPECT_FALSE(load("[[kernel_req]]\ngfx = [\"gfx1151\"]\nkernel_min = \"6.18.4\"\n[kernel_req.rocm_old_kernel]\n\"7.2\" = \"maybe\"\n").ok());
  auto bad = load("[[gfx]\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("recipes/knowledge/x.toml:"), std::string::npos);
}

// A key a table does not know is an error naming the file and the key's line, in every
// table: a misspelt "overide" must not leave a target silently without its override.
TEST(KnowledgeLoader, UnknownKeysAreErrorsNamingFileAndLine) {
  auto load = [](const std::string& text) { return formats::load_knowledge({{"knowledge/x.toml", text}}); };
  const std::string gfx = "[[gfx]]\ntarget = \"gfx1030\"\nkfd_version = 100300\nisa = \"rdna2\"\nwave_size = 32\n";
  ASSERT_TRUE(load(gfx).ok());
  struct Case {
    std::string text;
    std::string error;
  } cases[] = {
      {gfx + "overide = \"10.3.0\"\n", "recipes/knowledge/x.toml:6: unknown key 'overide' in [[gfx]]"},
      {"[[pci]]\ndevice = \"0x73bf\"\ngfx = \"gfx1030\"\nname = \"x\"\nrev = \"0xc1\"\n",
       "recipes/knowledge/x.toml:5: unknown key 'rev' in [[pci]]"},
      {"[[chip]]\ngfx = \"gfx600\"\nname = \"y\"\ndevices = [\"0x6818\"]\ndevice = \"0x6819\"\n",
       "recipes/knowledge/x.toml:5: unknown key 'device' in [[chip]]"},
      {"[[rocm]]\nversion = \"7.2\"\nofficial = [\"gfx1030\"]\nkernel = [\"gfx1030\"]\n",
       "recipes/knowledge/x.toml:4: unknown key 'kernel' in [[rocm]]"},
      {"[[pytorch]]\nrocm = \"7.1\"\nindex = \"https://a\"\ntorch_version = \"2.9\"\n",
       "recipes/knowledge/x.toml:4: unknown key 'torch_version' in [[pytorch]]"},
      {"[[ollama]]\nfrom = \"0.5.0\"\nrocm = \"6.1\"\ntargets = [\"gfx1030\"]\nto = \"0.6.0\"\n",
       "recipes/knowledge/x.toml:5: unknown key 'to' in [[ollama]]"},
      {"[ollama_policy]\nigpu_drop_from = \"0.30.0\"\nvulkan_default_from = \"0.30.0\"\n"
       "vulkan_opt_in_from = \"0.12.11\"\nigpu_allowed = 1\n",
       "recipes/knowledge/x.toml:5: unknown key 'igpu_allowed' in [ollama_policy]"},
      {"[runtime]\nper_node_overrides = \"6.3\"\n", "recipes/knowledge/x.toml:2: unknown key 'per_node_overrides' in [runtime]"},
      {"[memory]\nmax_fraction = 0.9\nmin_fraction = 0.1\n", "recipes/knowledge/x.toml:3: unknown key 'min_fraction' in [memory]"},
      {"[[kernel_req]]\ngfx = [\"gfx1151\"]\nkernel_min = \"6.18.4\"\nreason = \"x\"\n",
       "recipes/knowledge/x.toml:4: unknown key 'reason' in [[kernel_req]]"},
      {"[[gpu]]\ntarget = \"gfx1030\"\n", "recipes/knowledge/x.toml:1: unknown key 'gpu' in a knowledge file"},
  };
  for (const auto& c : cases) {
    auto r = load(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().message, c.error);
  }
}

// Input that toml++ 3.3.0 mis-handles internally (an assert in debug builds, undefined
// behaviour in release builds; see src/formats/toml.hpp): a parse error with the file
// and line, like any other.
TEST(KnowledgeLoader, InputThatBreaksTomlppIsAParseError) {
  for (const char* text : {"[[[1]]]\n", "[[[a]]]\n", "[[[]]\n", "x = 1\n[[=\n", "[ [\n", "\xcc\xaa", "x = 1\n[\xcc\xaa]\n",
                           "[\xef\xac\xb0]\n", "s = \"\"\"\\\n\xc2\xa7\"\"\"\n[\n"}) {
    auto r = formats::load_knowledge({{"knowledge/h.toml", text}});
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_TRUE(r.error().message.starts_with("recipes/knowledge/h.toml:")) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  }
}

// pcie.toml: one entry per generation 1-6, each keyed by the rate sysfs gives, with its
// source; PCIe 4.0 x16 expects what a pinned copy reaches over it.
TEST(KnowledgeData, PcieGenerationsAreKeyedBySysfsRateWithTheirSource) {
  const Knowledge& k = shipped_knowledge();
  ASSERT_EQ(k.pcie.size(), 6u);
  const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int gen = 1; gen <= 6; ++gen) {
    const PcieGen* g = k.find_pcie(rates[gen - 1]);
    ASSERT_NE(g, nullptr) << gen;
    EXPECT_EQ(g->gen, gen);
    EXPECT_FALSE(g->source.empty());
    EXPECT_LT(g->lane_gbs, g->gts / 8);  // the encoding always costs something
    EXPECT_GT(g->practical, 0.5);
  }
  EXPECT_EQ(k.find_pcie(16.0)->encoding, "128b/130b");
  EXPECT_NEAR(k.find_pcie(16.0)->expected_gbs(16), 25.2, 0.05);
  EXPECT_NEAR(k.find_pcie(8.0)->expected_gbs(4), 3.15, 0.01);
  EXPECT_EQ(k.find_pcie(12.0), nullptr);
}

TEST(KnowledgeLoader, PcieEntriesAreCheckedAndKeyedOnce) {
  auto load = [](const std::string& text) { return formats::load_knowledge({{"knowledge/p.toml", text}}); };
  const std::string ok = "[[pcie]]\ngen = 4\ngts = 16.0\nencoding = \"128b/130b\"\nlane_gbs = 1.9692\n"
                         "practical = 0.8\nsource = \"PCI Express Base 4.0\"\n";
  auto k = load(ok);
  ASSERT_TRUE(k.ok()) << k.error().message;
  ASSERT_EQ(k->pcie.size(), 1u);
  EXPECT_EQ(k->pcie[0], (PcieGen{4, 16.0, "128b/130b", 1.9692, 0.8, "PCI Express Base 4.0"}));
  EXPECT_EQ(load(ok + ok).error().message, "recipes/knowledge/p.toml:8: a second [[pcie]] entry for 4");
  EXPECT_EQ(load("[[pcie]]\ngen = 4\ngts = 16.0\nlane_gbs = 1.9692\npractical = 1.5\nsource = \"s\"\n").error().message,
            "recipes/knowledge/p.toml:1: [[pcie]] needs 'practical', a share above 0 and at most 1");
  EXPECT_EQ(load("[[pcie]]\ngen = 4\ngts = 16.0\nlane_gbs = 20.0\npractical = 0.8\nsource = \"s\"\n").error().message,
            "recipes/knowledge/p.toml:1: [[pcie]] needs 'gen' (1..), 'gts' (GT/s) and 'lane_gbs' below 'gts'");
  EXPECT_EQ(load("[[pcie]]\ngen = 4\ngts = 16.0\nlane_gbs = 1.9\npractical = 0.8\n").error().message,
            "recipes/knowledge/p.toml:1: [[pcie]] needs its 'source'");
  EXPECT_EQ(load("[[pcie]]\ngen = 4\nspeed = 16.0\n").error().message,
            "recipes/knowledge/p.toml:3: unknown key 'speed' in [[pcie]]");
}

}  // namespace
}  // namespace amdml
