#include "gpu-bifrost/mali_regs.h"
#include <string>

namespace vplat::gpu {

namespace {

// Identification and features of a G71 MP<n>. Sources (../shared/reference/mali-g71.md section 3):
// GPU_ID: Mesa matches product id 0x6000 exactly; revision r0p0 with status 0 (0x0001 would be r0p0_05dev0
// and add a kernel quirk). The rest are the kbase dummy model's tMIx values.
constexpr uint32_t kGpuId = 0x60000000;
constexpr uint32_t kL2Features = 0x06100206;
constexpr uint32_t kTilerFeatures = 0x809;
constexpr uint32_t kMemFeatures = 0x1;        // L2 coherent groups; one L2 slice ((slices-1) << 8)
constexpr uint32_t kMmuFeatures = 0x2830;     // VA 48 bits, PA 40 bits: what io-pgtable's Mali LPAE needs
constexpr uint32_t kAsPresent = 0xff;
constexpr uint32_t kJsPresent = 0x7;
constexpr uint32_t kThreadMaxThreads = 384;
constexpr uint32_t kThreadMaxWorkgroup = 384;
constexpr uint32_t kThreadMaxBarrier = 384;
// Registers 0x6000 (= 384 threads x 64 registers) in [15:0], max task queue 4 in [23:16], thread group
// split 10 in [29:24]; Mesa reads registers from [15:0] and tasks from [31:24].
constexpr uint32_t kThreadFeatures = 0x6000 | (4u << 16) | (10u << 24);
constexpr uint32_t kTextureFeatures[4] = {0x000fffff, 0x0000ffff, 0x9f81ffff, 0};
constexpr uint32_t kJsFeatures[3] = {0x20e, 0x1fe, 0x7e};
// ACE-Lite only: the GPU is I/O-coherent at most. Not exactly 0x2 (ACE), which would make panfrost apply the
// G71 JM_CONFIG coherency quirk.
constexpr uint32_t kCoherencyFeatures = 0x1;
// COHERENCY_ENABLE resets to "none" (kbase COHERENCY_NONE = 31).
constexpr uint32_t kCoherencyNone = 31;

void add(std::vector<RegDesc>& t, uint32_t off, std::string name, RegKind kind, uint32_t reset = 0) {
  t.push_back(RegDesc{off, std::move(name), kind, reset});
}

// A 64-bit register as a LO/HI pair.
void add64(std::vector<RegDesc>& t, uint32_t off, const std::string& name, RegKind kind, uint64_t reset = 0) {
  add(t, off, name + "_LO", kind, static_cast<uint32_t>(reset));
  add(t, off + 4, name + "_HI", kind, static_cast<uint32_t>(reset >> 32));
}

} // namespace

std::vector<RegDesc> build_register_table(const GpuConfig& config) {
  using K = RegKind;
  std::vector<RegDesc> t;
  unsigned cores = config.shader_cores;
  uint64_t shader_present = cores >= 64 ? ~0ull : (1ull << cores) - 1;

  add(t, reg::GPU_ID, "GPU_ID", K::Const, kGpuId);
  add(t, reg::L2_FEATURES, "L2_FEATURES", K::Const, kL2Features);
  add(t, reg::CORE_FEATURES, "CORE_FEATURES", K::Const, 0);
  add(t, reg::TILER_FEATURES, "TILER_FEATURES", K::Const, kTilerFeatures);
  add(t, reg::MEM_FEATURES, "MEM_FEATURES", K::Const, kMemFeatures);
  add(t, reg::MMU_FEATURES, "MMU_FEATURES", K::Const, kMmuFeatures);
  add(t, reg::AS_PRESENT, "AS_PRESENT", K::Const, kAsPresent);
  add(t, reg::JS_PRESENT, "JS_PRESENT", K::Const, kJsPresent);
  add(t, reg::GPU_INT_RAWSTAT, "GPU_INT_RAWSTAT", K::State, 0);
  add(t, reg::GPU_INT_CLEAR, "GPU_INT_CLEAR", K::Command);
  add(t, reg::GPU_INT_MASK, "GPU_INT_MASK", K::Rw, 0);
  add(t, reg::GPU_INT_STATUS, "GPU_INT_STATUS", K::Live);
  add(t, reg::GPU_COMMAND, "GPU_COMMAND", K::Command);
  add(t, reg::GPU_STATUS, "GPU_STATUS", K::State, 0);
  add(t, reg::LATEST_FLUSH, "LATEST_FLUSH", K::State, 0);
  add(t, reg::GPU_FAULTSTATUS, "GPU_FAULTSTATUS", K::State, 0);
  add64(t, reg::GPU_FAULTADDRESS_LO, "GPU_FAULTADDRESS", K::State);
  add(t, reg::AFBC_FEATURES, "AFBC_FEATURES", K::Const, 0);
  add(t, reg::PWR_KEY, "PWR_KEY", K::Rw, 0);
  add(t, reg::PWR_OVERRIDE0, "PWR_OVERRIDE0", K::Rw, 0);
  add(t, reg::PWR_OVERRIDE1, "PWR_OVERRIDE1", K::Rw, 0);
  // The performance counter setup registers hold what the driver writes (panfrost disables every counter
  // at probe and programs them for a dump); sampling itself is not modelled (PERFCNT_SAMPLE just completes).
  add64(t, reg::PRFCNT_BASE_LO, "PRFCNT_BASE", K::Rw);
  add(t, reg::PRFCNT_CONFIG, "PRFCNT_CONFIG", K::Rw, 0);
  add(t, reg::PRFCNT_JM_EN, "PRFCNT_JM_EN", K::Rw, 0);
  add(t, reg::PRFCNT_SHADER_EN, "PRFCNT_SHADER_EN", K::Rw, 0);
  add(t, reg::PRFCNT_TILER_EN, "PRFCNT_TILER_EN", K::Rw, 0);
  add(t, reg::PRFCNT_MMU_L2_EN, "PRFCNT_MMU_L2_EN", K::Rw, 0);
  add64(t, reg::CYCLE_COUNT_LO, "CYCLE_COUNT", K::Live);
  add64(t, reg::TIMESTAMP_LO, "TIMESTAMP", K::Live);
  add(t, reg::THREAD_MAX_THREADS, "THREAD_MAX_THREADS", K::Const, kThreadMaxThreads);
  add(t, reg::THREAD_MAX_WORKGROUP_SIZE, "THREAD_MAX_WORKGROUP_SIZE", K::Const, kThreadMaxWorkgroup);
  add(t, reg::THREAD_MAX_BARRIER_SIZE, "THREAD_MAX_BARRIER_SIZE", K::Const, kThreadMaxBarrier);
  add(t, reg::THREAD_FEATURES, "THREAD_FEATURES", K::Const, kThreadFeatures);
  for (unsigned n = 0; n < 4; n++)
    add(t, reg::TEXTURE_FEATURES(n), "TEXTURE_FEATURES_" + std::to_string(n), K::Const, kTextureFeatures[n]);
  for (unsigned n = 0; n < 16; n++)
    add(t, reg::JS_FEATURES(n), "JS" + std::to_string(n) + "_FEATURES", K::Const, n < 3 ? kJsFeatures[n] : 0);
  add64(t, reg::SHADER_PRESENT_LO, "SHADER_PRESENT", K::Const, shader_present);
  add64(t, reg::TILER_PRESENT_LO, "TILER_PRESENT", K::Const, 1);
  add64(t, reg::L2_PRESENT_LO, "L2_PRESENT", K::Const, 1);
  const char* domains[3] = {"SHADER", "TILER", "L2"};
  for (unsigned d = 0; d < 3; d++) {
    std::string n = domains[d];
    add64(t, reg::SHADER_READY_LO + 0x10 * d, n + "_READY", K::State);
    add64(t, reg::SHADER_PWRON_LO + 0x10 * d, n + "_PWRON", K::Command);
    add64(t, reg::SHADER_PWROFF_LO + 0x10 * d, n + "_PWROFF", K::Command);
    add64(t, reg::SHADER_PWRTRANS_LO + 0x10 * d, n + "_PWRTRANS", K::State);
    add64(t, reg::SHADER_PWRACTIVE_LO + 0x10 * d, n + "_PWRACTIVE", K::State);
  }
  add(t, reg::COHERENCY_FEATURES, "COHERENCY_FEATURES", K::Const, kCoherencyFeatures);
  add(t, reg::COHERENCY_ENABLE, "COHERENCY_ENABLE", K::Rw, kCoherencyNone);
  add(t, reg::THREAD_TLS_ALLOC, "THREAD_TLS_ALLOC", K::Const, 0);
  add64(t, reg::STACK_PRESENT_LO, "STACK_PRESENT", K::Const, 0);
  add64(t, reg::STACK_READY_LO, "STACK_READY", K::State, 0);
  add(t, reg::JM_CONFIG, "JM_CONFIG", K::Rw, 0);
  add(t, reg::SHADER_CONFIG, "SHADER_CONFIG", K::Rw, 0);
  add(t, reg::TILER_CONFIG, "TILER_CONFIG", K::Rw, 0);
  add(t, reg::L2_MMU_CONFIG, "L2_MMU_CONFIG", K::Rw, 0);

  add(t, reg::JOB_INT_RAWSTAT, "JOB_INT_RAWSTAT", K::State, 0);
  add(t, reg::JOB_INT_CLEAR, "JOB_INT_CLEAR", K::Command);
  add(t, reg::JOB_INT_MASK, "JOB_INT_MASK", K::Rw, 0);
  add(t, reg::JOB_INT_STATUS, "JOB_INT_STATUS", K::Live);
  add(t, reg::JOB_INT_JS_STATE, "JOB_INT_JS_STATE", K::State, 0);
  add(t, reg::JOB_INT_THROTTLE, "JOB_INT_THROTTLE", K::Rw, 0);
  for (unsigned s = 0; s < kNumJobSlots; s++) {
    std::string p = "JS" + std::to_string(s) + "_";
    add64(t, reg::js(s, reg::JS_HEAD_LO), p + "HEAD", K::State);
    add64(t, reg::js(s, reg::JS_TAIL_LO), p + "TAIL", K::State);
    add64(t, reg::js(s, reg::JS_AFFINITY_LO), p + "AFFINITY", K::State);
    add(t, reg::js(s, reg::JS_CONFIG), p + "CONFIG", K::State);
    add(t, reg::js(s, reg::JS_XAFFINITY), p + "XAFFINITY", K::State);
    add(t, reg::js(s, reg::JS_COMMAND), p + "COMMAND", K::Command);
    add(t, reg::js(s, reg::JS_STATUS), p + "STATUS", K::State);
    add64(t, reg::js(s, reg::JS_HEAD_NEXT_LO), p + "HEAD_NEXT", K::Rw);
    add64(t, reg::js(s, reg::JS_AFFINITY_NEXT_LO), p + "AFFINITY_NEXT", K::Rw);
    add(t, reg::js(s, reg::JS_CONFIG_NEXT), p + "CONFIG_NEXT", K::Rw);
    add(t, reg::js(s, reg::JS_XAFFINITY_NEXT), p + "XAFFINITY_NEXT", K::Rw);
    // COMMAND_NEXT reads back what was written until the job manager takes the job (the driver checks it
    // reads 0 before queueing).
    add(t, reg::js(s, reg::JS_COMMAND_NEXT), p + "COMMAND_NEXT", K::Command);
    add(t, reg::js(s, reg::JS_FLUSH_ID_NEXT), p + "FLUSH_ID_NEXT", K::Rw);
  }

  add(t, reg::MMU_INT_RAWSTAT, "MMU_INT_RAWSTAT", K::State, 0);
  add(t, reg::MMU_INT_CLEAR, "MMU_INT_CLEAR", K::Command);
  add(t, reg::MMU_INT_MASK, "MMU_INT_MASK", K::Rw, 0);
  add(t, reg::MMU_INT_STATUS, "MMU_INT_STATUS", K::Live);
  for (unsigned a = 0; a < kNumAddressSpaces; a++) {
    std::string p = "AS" + std::to_string(a) + "_";
    add64(t, reg::as(a, reg::AS_TRANSTAB_LO), p + "TRANSTAB", K::Rw);
    add64(t, reg::as(a, reg::AS_MEMATTR_LO), p + "MEMATTR", K::Rw);
    add64(t, reg::as(a, reg::AS_LOCKADDR_LO), p + "LOCKADDR", K::Rw);
    add(t, reg::as(a, reg::AS_COMMAND), p + "COMMAND", K::Command);
    add(t, reg::as(a, reg::AS_FAULTSTATUS), p + "FAULTSTATUS", K::State);
    add64(t, reg::as(a, reg::AS_FAULTADDRESS_LO), p + "FAULTADDRESS", K::State);
    add(t, reg::as(a, reg::AS_STATUS), p + "STATUS", K::Live);
    add64(t, reg::as(a, reg::AS_TRANSCFG_LO), p + "TRANSCFG", K::Rw);
    add64(t, reg::as(a, reg::AS_FAULTEXTRA_LO), p + "FAULTEXTRA", K::State);
  }
  return t;
}

} // namespace vplat::gpu
