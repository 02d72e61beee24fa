// Mali-G71 (Bifrost v6, job-manager GPU) register map: offsets, bit fields and the register table that
// holds every register's name, kind and reset value. The table is the one place reset values live; the
// device model (mali_g71.cpp) initialises its register file from it and the future --trace gpu-regs uses
// its names. Facts: Linux drivers/gpu/drm/panfrost/panfrost_regs.h (offsets, bits), the kbase dummy model
// values for tMIx (feature registers), see ../shared/reference/mali-g71.md section 3.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vplat::gpu {

namespace reg {
// ---- GPU control block (0x0000) ----
constexpr uint32_t GPU_ID = 0x000;
constexpr uint32_t L2_FEATURES = 0x004;
constexpr uint32_t CORE_FEATURES = 0x008;
constexpr uint32_t TILER_FEATURES = 0x00c;
constexpr uint32_t MEM_FEATURES = 0x010;
constexpr uint32_t MMU_FEATURES = 0x014;
constexpr uint32_t AS_PRESENT = 0x018;
constexpr uint32_t JS_PRESENT = 0x01c;
constexpr uint32_t GPU_INT_RAWSTAT = 0x020;
constexpr uint32_t GPU_INT_CLEAR = 0x024;
constexpr uint32_t GPU_INT_MASK = 0x028;
constexpr uint32_t GPU_INT_STATUS = 0x02c;
constexpr uint32_t GPU_COMMAND = 0x030;
constexpr uint32_t GPU_STATUS = 0x034;
constexpr uint32_t LATEST_FLUSH = 0x038;
constexpr uint32_t GPU_FAULTSTATUS = 0x03c;
constexpr uint32_t GPU_FAULTADDRESS_LO = 0x040;
constexpr uint32_t GPU_FAULTADDRESS_HI = 0x044;
constexpr uint32_t AFBC_FEATURES = 0x04c;
constexpr uint32_t PWR_KEY = 0x050;
constexpr uint32_t PWR_OVERRIDE0 = 0x054;
constexpr uint32_t PWR_OVERRIDE1 = 0x058;
// Performance counter block (panfrost_perfcnt.c programs it; panfrost_regs.h GPU_PERFCNT_*/GPU_PRFCNT_*).
constexpr uint32_t PRFCNT_BASE_LO = 0x060;
constexpr uint32_t PRFCNT_BASE_HI = 0x064;
constexpr uint32_t PRFCNT_CONFIG = 0x068;
constexpr uint32_t PRFCNT_JM_EN = 0x06c;
constexpr uint32_t PRFCNT_SHADER_EN = 0x070;
constexpr uint32_t PRFCNT_TILER_EN = 0x074;
constexpr uint32_t PRFCNT_MMU_L2_EN = 0x07c;
constexpr uint32_t CYCLE_COUNT_LO = 0x090;
constexpr uint32_t CYCLE_COUNT_HI = 0x094;
constexpr uint32_t TIMESTAMP_LO = 0x098;
constexpr uint32_t TIMESTAMP_HI = 0x09c;
constexpr uint32_t THREAD_MAX_THREADS = 0x0a0;
constexpr uint32_t THREAD_MAX_WORKGROUP_SIZE = 0x0a4;
constexpr uint32_t THREAD_MAX_BARRIER_SIZE = 0x0a8;
constexpr uint32_t THREAD_FEATURES = 0x0ac;
constexpr uint32_t TEXTURE_FEATURES(unsigned n) { return 0x0b0 + 4 * n; } // n = 0..3
constexpr uint32_t JS_FEATURES(unsigned n) { return 0x0c0 + 4 * n; }      // n = 0..15
constexpr uint32_t SHADER_PRESENT_LO = 0x100;
constexpr uint32_t SHADER_PRESENT_HI = 0x104;
constexpr uint32_t TILER_PRESENT_LO = 0x110;
constexpr uint32_t TILER_PRESENT_HI = 0x114;
constexpr uint32_t L2_PRESENT_LO = 0x120;
constexpr uint32_t L2_PRESENT_HI = 0x124;
// Power domains: each group (READY, PWRON, PWROFF, PWRTRANS, PWRACTIVE) has SHADER at +0x00, TILER at
// +0x10 and L2 at +0x20, each a LO/HI pair.
constexpr uint32_t SHADER_READY_LO = 0x140;
constexpr uint32_t TILER_READY_LO = 0x150;
constexpr uint32_t L2_READY_LO = 0x160;
constexpr uint32_t SHADER_PWRON_LO = 0x180;
constexpr uint32_t TILER_PWRON_LO = 0x190;
constexpr uint32_t L2_PWRON_LO = 0x1a0;
constexpr uint32_t SHADER_PWROFF_LO = 0x1c0;
constexpr uint32_t TILER_PWROFF_LO = 0x1d0;
constexpr uint32_t L2_PWROFF_LO = 0x1e0;
constexpr uint32_t SHADER_PWRTRANS_LO = 0x200;
constexpr uint32_t TILER_PWRTRANS_LO = 0x210;
constexpr uint32_t L2_PWRTRANS_LO = 0x220;
constexpr uint32_t SHADER_PWRACTIVE_LO = 0x240;
constexpr uint32_t TILER_PWRACTIVE_LO = 0x250;
constexpr uint32_t L2_PWRACTIVE_LO = 0x260;
constexpr uint32_t COHERENCY_FEATURES = 0x300;
constexpr uint32_t COHERENCY_ENABLE = 0x304;
constexpr uint32_t THREAD_TLS_ALLOC = 0x310;
constexpr uint32_t STACK_PRESENT_LO = 0xe00;
constexpr uint32_t STACK_READY_LO = 0xe10;
constexpr uint32_t JM_CONFIG = 0xf00;
constexpr uint32_t SHADER_CONFIG = 0xf04;
constexpr uint32_t TILER_CONFIG = 0xf08;
constexpr uint32_t L2_MMU_CONFIG = 0xf0c;

// ---- Job control block (0x1000) ----
constexpr uint32_t JOB_INT_RAWSTAT = 0x1000;
constexpr uint32_t JOB_INT_CLEAR = 0x1004;
constexpr uint32_t JOB_INT_MASK = 0x1008;
constexpr uint32_t JOB_INT_STATUS = 0x100c;
constexpr uint32_t JOB_INT_JS_STATE = 0x1010;
constexpr uint32_t JOB_INT_THROTTLE = 0x1014;
constexpr uint32_t JS_BASE = 0x1800;
constexpr uint32_t JS_STRIDE = 0x80;
// Offsets inside one job slot's block.
constexpr uint32_t JS_HEAD_LO = 0x00, JS_HEAD_HI = 0x04, JS_TAIL_LO = 0x08, JS_TAIL_HI = 0x0c;
constexpr uint32_t JS_AFFINITY_LO = 0x10, JS_AFFINITY_HI = 0x14, JS_CONFIG = 0x18, JS_XAFFINITY = 0x1c;
constexpr uint32_t JS_COMMAND = 0x20, JS_STATUS = 0x24;
constexpr uint32_t JS_HEAD_NEXT_LO = 0x40, JS_HEAD_NEXT_HI = 0x44;
constexpr uint32_t JS_AFFINITY_NEXT_LO = 0x50, JS_AFFINITY_NEXT_HI = 0x54;
constexpr uint32_t JS_CONFIG_NEXT = 0x58, JS_XAFFINITY_NEXT = 0x5c, JS_COMMAND_NEXT = 0x60;
constexpr uint32_t JS_FLUSH_ID_NEXT = 0x70;
constexpr uint32_t js(unsigned slot, uint32_t r) { return JS_BASE + JS_STRIDE * slot + r; }

// ---- MMU block (0x2000) ----
constexpr uint32_t MMU_INT_RAWSTAT = 0x2000;
constexpr uint32_t MMU_INT_CLEAR = 0x2004;
constexpr uint32_t MMU_INT_MASK = 0x2008;
constexpr uint32_t MMU_INT_STATUS = 0x200c;
constexpr uint32_t AS_BASE = 0x2400;
constexpr uint32_t AS_STRIDE = 0x40;
constexpr uint32_t AS_TRANSTAB_LO = 0x00, AS_TRANSTAB_HI = 0x04, AS_MEMATTR_LO = 0x08, AS_MEMATTR_HI = 0x0c;
constexpr uint32_t AS_LOCKADDR_LO = 0x10, AS_LOCKADDR_HI = 0x14, AS_COMMAND = 0x18, AS_FAULTSTATUS = 0x1c;
constexpr uint32_t AS_FAULTADDRESS_LO = 0x20, AS_FAULTADDRESS_HI = 0x24, AS_STATUS = 0x28;
constexpr uint32_t AS_TRANSCFG_LO = 0x30, AS_TRANSCFG_HI = 0x34, AS_FAULTEXTRA_LO = 0x38, AS_FAULTEXTRA_HI = 0x3c;
constexpr uint32_t as(unsigned n, uint32_t r) { return AS_BASE + AS_STRIDE * n + r; }
} // namespace reg

// GPU_INT bits.
constexpr uint32_t GPU_IRQ_FAULT = 1u << 0;
constexpr uint32_t GPU_IRQ_MULTIPLE_FAULT = 1u << 7;
constexpr uint32_t GPU_IRQ_RESET_COMPLETED = 1u << 8;
constexpr uint32_t GPU_IRQ_POWER_CHANGED_SINGLE = 1u << 9;
constexpr uint32_t GPU_IRQ_POWER_CHANGED_ALL = 1u << 10;
constexpr uint32_t GPU_IRQ_PERFCNT_SAMPLE_COMPLETED = 1u << 16;
constexpr uint32_t GPU_IRQ_CLEAN_CACHES_COMPLETED = 1u << 17;
constexpr uint32_t GPU_IRQ_ALL = 0x30781;

// GPU_COMMAND values.
constexpr uint32_t GPU_CMD_NOP = 0, GPU_CMD_SOFT_RESET = 1, GPU_CMD_HARD_RESET = 2, GPU_CMD_PERFCNT_CLEAR = 3,
                   GPU_CMD_PERFCNT_SAMPLE = 4, GPU_CMD_CYCLE_COUNT_START = 5, GPU_CMD_CYCLE_COUNT_STOP = 6,
                   GPU_CMD_CLEAN_CACHES = 7, GPU_CMD_CLEAN_INV_CACHES = 8;
// GPU_STATUS bits (kbase naming): the cycle counter is running.
constexpr uint32_t GPU_STATUS_CYCLE_COUNT_ACTIVE = 1u << 6;

// JS_CONFIG fields.
constexpr uint32_t JS_CONFIG_AS_MASK = 0xf;
constexpr uint32_t JS_CONFIG_JOB_CHAIN_FLAG = 1u << 11;
constexpr uint32_t JS_CONFIG_DISABLE_DESCRIPTOR_WR_BK = 1u << 15;
// JS_COMMAND values.
constexpr uint32_t JS_CMD_NOP = 0, JS_CMD_START = 1, JS_CMD_SOFT_STOP = 2, JS_CMD_HARD_STOP = 3,
                   JS_CMD_SOFT_STOP_0 = 4, JS_CMD_HARD_STOP_0 = 5, JS_CMD_SOFT_STOP_1 = 6, JS_CMD_HARD_STOP_1 = 7;

// AS_COMMAND values and AS_STATUS bits.
constexpr uint32_t AS_CMD_NOP = 0, AS_CMD_UPDATE = 1, AS_CMD_LOCK = 2, AS_CMD_UNLOCK = 3, AS_CMD_FLUSH_PT = 4,
                   AS_CMD_FLUSH_MEM = 5;
constexpr uint32_t AS_STATUS_ACTIVE = 1u << 0;

// Exception codes (JS_STATUS, job header Exception Status, AS_FAULTSTATUS[7:0]); panfrost_device.h.
namespace exc {
constexpr uint32_t DONE = 0x01, STOPPED = 0x03, TERMINATED = 0x04, ACTIVE = 0x08;
constexpr uint32_t JOB_CONFIG_FAULT = 0x40, JOB_POWER_FAULT = 0x41, JOB_READ_FAULT = 0x42,
                   JOB_WRITE_FAULT = 0x43, JOB_AFFINITY_FAULT = 0x44, JOB_BUS_FAULT = 0x48;
constexpr uint32_t DATA_INVALID_FAULT = 0x58;
constexpr uint32_t TRANSLATION_FAULT_0 = 0xc0; // + lookup level
constexpr uint32_t PERMISSION_FAULT_0 = 0xc8;  // + lookup level
constexpr uint32_t TRANSTAB_BUS_FAULT_0 = 0xd0; // + lookup level
constexpr uint32_t ADDR_SIZE_FAULT_IN0 = 0xe0;
constexpr uint32_t ADDR_SIZE_FAULT_OUT0 = 0xe4; // + lookup level
} // namespace exc

// How many of each block the model has.
constexpr unsigned kNumJobSlots = 3;    // JS_PRESENT = 0x7
constexpr unsigned kNumAddressSpaces = 8; // AS_PRESENT = 0xff
constexpr unsigned kMaxShaderCores = 32;

// The configuration that changes reset values.
struct GpuConfig {
  unsigned shader_cores = 8; // 1..32; SHADER_PRESENT = (1 << cores) - 1
};

enum class RegKind : uint8_t {
  Const,   // read-only identification/feature value (the reset value, forever)
  Rw,      // plain read/write storage, reset to the reset value
  State,   // read-only view of model state (register file word the model updates)
  Command, // write-only: writes act, reads return 0 (or the register file word if the model keeps one)
  Live,    // read computed on the fly (interrupt status, counters); writes may act
};

struct RegDesc {
  uint32_t offset;
  std::string name;
  RegKind kind;
  uint32_t reset;
};

// The whole register table for a configuration: every register in the 64 KiB window the model answers,
// including the per-slot (JSn_*) and per-address-space (ASn_*) copies.
std::vector<RegDesc> build_register_table(const GpuConfig& config);

} // namespace vplat::gpu
