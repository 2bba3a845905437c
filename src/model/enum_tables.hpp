// The spellings of the model's enums, each written once: names.cpp prints them with
// enum_name and the codecs (src/formats) read them back with enum_from_name.
#pragma once

#include "amdml/check.hpp"
#include "amdml/facts_deep.hpp"
#include "amdml/facts.hpp"
#include "amdml/facts_ml.hpp"
#include "amdml/facts_runtime.hpp"
#include "amdml/knowledge.hpp"
#include "amdml/service_unit.hpp"
#include "base/enum_names.hpp"

namespace amdml::names {

constexpr EnumName<IsaFamily> kIsaFamily[] = {
    {IsaFamily::gcn, "gcn"},         {IsaFamily::cdna, "cdna"},       {IsaFamily::rdna1, "rdna1"},
    {IsaFamily::rdna2, "rdna2"},     {IsaFamily::rdna3, "rdna3"},     {IsaFamily::rdna3_5, "rdna3.5"},
    {IsaFamily::rdna4, "rdna4"},
};
// "unknown" is printed but never read from a knowledge file.
constexpr EnumName<KernelStatus> kKernelStatus[] = {
    {KernelStatus::ok, "ok"}, {KernelStatus::unstable, "unstable"}, {KernelStatus::unsupported, "unsupported"}};
constexpr EnumName<TorchBuild> kTorchBuild[] = {
    {TorchBuild::rocm, "rocm"}, {TorchBuild::cuda, "cuda"}, {TorchBuild::cpu, "cpu"}, {TorchBuild::unknown, "unknown"}};
constexpr EnumName<TorchRocm> kTorchRocm[] = {{TorchRocm::unknown, "unknown"},
                                              {TorchRocm::bundled, "bundled"},
                                              {TorchRocm::rocm_wheels, "rocm-wheels"},
                                              {TorchRocm::amd_device, "amd-device-wheels"}};
constexpr EnumName<RocmChannel> kRocmChannel[] = {
    {RocmChannel::legacy, "legacy"}, {RocmChannel::core_sdk, "core-sdk"}, {RocmChannel::deb, "deb"},
    {RocmChannel::rpm, "rpm"},       {RocmChannel::pacman, "pacman"},     {RocmChannel::pip, "pip"},
    {RocmChannel::tarball, "tarball"}};
constexpr EnumName<LlamaBackend> kLlamaBackend[] = {
    {LlamaBackend::hip, "hip"}, {LlamaBackend::vulkan, "vulkan"}, {LlamaBackend::cuda, "cuda"}, {LlamaBackend::cpu, "cpu"}};
constexpr EnumName<HsaOutcome> kHsaOutcome[] = {
    {HsaOutcome::not_run, "not-run"},             {HsaOutcome::skipped, "skipped"},
    {HsaOutcome::not_installed, "not-installed"}, {HsaOutcome::init_failed, "init-failed"},
    {HsaOutcome::ok, "ok"},                       {HsaOutcome::crashed, "crashed"},
    {HsaOutcome::timed_out, "timeout"},           {HsaOutcome::bad_output, "bad-output"},
};
constexpr EnumName<DeepStepKind> kDeepStepKind[] = {
    {DeepStepKind::memory, "memory"}, {DeepStepKind::copy, "copy"}, {DeepStepKind::fill, "fill"}};
constexpr EnumName<DeepOutcome> kDeepOutcome[] = {
    {DeepOutcome::ok, "ok"},           {DeepOutcome::failed, "failed"},         {DeepOutcome::init_failed, "init-failed"},
    {DeepOutcome::crashed, "crashed"}, {DeepOutcome::timed_out, "timeout"},     {DeepOutcome::bad_output, "bad-output"},
    {DeepOutcome::not_run, "not-run"},
};
constexpr EnumName<DeepAllocStop> kDeepAllocStop[] = {
    {DeepAllocStop::target, "target"},     {DeepAllocStop::meminfo, "meminfo"}, {DeepAllocStop::error, "error"},
    {DeepAllocStop::deadline, "deadline"}, {DeepAllocStop::no_pool, "no-pool"},
};
constexpr EnumName<HsaDeviceType> kHsaDeviceType[] = {{HsaDeviceType::cpu, "cpu"},
                                                      {HsaDeviceType::gpu, "gpu"},
                                                      {HsaDeviceType::dsp, "dsp"},
                                                      {HsaDeviceType::unknown, "unknown"}};
constexpr EnumName<HsaSegment> kHsaSegment[] = {{HsaSegment::global, "global"},
                                                {HsaSegment::readonly, "readonly"},
                                                {HsaSegment::private_, "private"},
                                                {HsaSegment::group, "group"},
                                                {HsaSegment::unknown, "unknown"}};
constexpr EnumName<ValueSource> kValueSource[] = {
    {ValueSource::libdrm, "libdrm"}, {ValueSource::sysfs, "sysfs"}, {ValueSource::hsa, "hsa"}, {ValueSource::kfd, "kfd"}};
constexpr EnumName<systemd::UnitIssue::Kind> kUnitIssueKind[] = {
    {systemd::UnitIssue::Kind::syntax, "syntax"},
    {systemd::UnitIssue::Kind::unknown_key, "unknown-key"},
    {systemd::UnitIssue::Kind::bad_environment, "bad-environment"},
    {systemd::UnitIssue::Kind::env_file_missing, "env-file-missing"},
    {systemd::UnitIssue::Kind::env_file_relative, "env-file-relative"},
    {systemd::UnitIssue::Kind::bad_env_file_line, "bad-env-file-line"},
};
constexpr EnumName<CheckStatus> kCheckStatus[] = {
    {CheckStatus::passed, "passed"}, {CheckStatus::failed, "failed"}, {CheckStatus::skipped, "skipped"}};

}  // namespace amdml::names
