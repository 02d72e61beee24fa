// Runtime helpers of the branch/system and load/store groups (archdesc/aarch64/branch.adl, system.adl,
// ldst.adl): guest exceptions with their syndrome, the system register and SYS alias names for the
// disassembler, and the system model behind MRS/MSR, MSR (immediate), SYS (DC/IC/AT/TLBI) and ERET.
#include "aarch64_helpers.h"
#include "cpu-dbt/a64_core.h"
#include <cstdio>
#include <iterator>
#include <vector>

namespace vplat::gen::aarch64 {

using vplat::cpu::core_of;
using vplat::cpu::Exception;

namespace {

// op0:op1:CRn:CRm:op2, the 16-bit system register encoding of MRS/MSR.
constexpr uint32_t S(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2) {
  return op0 << 14 | op1 << 11 | crn << 7 | crm << 3 | op2;
}
constexpr unsigned R = 1, W = 2, RW = 3;

struct SysReg {
  uint32_t enc;
  unsigned access; // R: MRS may name it, W: MSR may
  const char* name;
};

// The system registers the disassembler names (others print generically as S<op0>_<op1>_C<n>_C<m>_<op2>).
// This is the set LLVM 16 names for Armv8.0-A + FP + AdvSIMD + CRC, read off its disassembler once (all
// MRS/MSR encodings with op0 = 1x): mostly the Armv8.0 registers, plus the few later ones LLVM does not
// gate on a feature. A register that is read-only (write-only) is named only for MRS (MSR); the
// DBGDTRRX_EL0/DBGDTRTX_EL0 pair shares one encoding. Sorted by encoding.
constexpr SysReg kSysRegs[] = {
    {S(2, 0, 0, 0, 2), RW, "OSDTRRX_EL1"},
    {S(2, 0, 0, 0, 4), RW, "DBGBVR0_EL1"},
    {S(2, 0, 0, 0, 5), RW, "DBGBCR0_EL1"},
    {S(2, 0, 0, 0, 6), RW, "DBGWVR0_EL1"},
    {S(2, 0, 0, 0, 7), RW, "DBGWCR0_EL1"},
    {S(2, 0, 0, 1, 4), RW, "DBGBVR1_EL1"},
    {S(2, 0, 0, 1, 5), RW, "DBGBCR1_EL1"},
    {S(2, 0, 0, 1, 6), RW, "DBGWVR1_EL1"},
    {S(2, 0, 0, 1, 7), RW, "DBGWCR1_EL1"},
    {S(2, 0, 0, 2, 0), RW, "MDCCINT_EL1"},
    {S(2, 0, 0, 2, 2), RW, "MDSCR_EL1"},
    {S(2, 0, 0, 2, 4), RW, "DBGBVR2_EL1"},
    {S(2, 0, 0, 2, 5), RW, "DBGBCR2_EL1"},
    {S(2, 0, 0, 2, 6), RW, "DBGWVR2_EL1"},
    {S(2, 0, 0, 2, 7), RW, "DBGWCR2_EL1"},
    {S(2, 0, 0, 3, 2), RW, "OSDTRTX_EL1"},
    {S(2, 0, 0, 3, 4), RW, "DBGBVR3_EL1"},
    {S(2, 0, 0, 3, 5), RW, "DBGBCR3_EL1"},
    {S(2, 0, 0, 3, 6), RW, "DBGWVR3_EL1"},
    {S(2, 0, 0, 3, 7), RW, "DBGWCR3_EL1"},
    {S(2, 0, 0, 4, 2), RW, "MDSELR_EL1"},
    {S(2, 0, 0, 4, 4), RW, "DBGBVR4_EL1"},
    {S(2, 0, 0, 4, 5), RW, "DBGBCR4_EL1"},
    {S(2, 0, 0, 4, 6), RW, "DBGWVR4_EL1"},
    {S(2, 0, 0, 4, 7), RW, "DBGWCR4_EL1"},
    {S(2, 0, 0, 5, 4), RW, "DBGBVR5_EL1"},
    {S(2, 0, 0, 5, 5), RW, "DBGBCR5_EL1"},
    {S(2, 0, 0, 5, 6), RW, "DBGWVR5_EL1"},
    {S(2, 0, 0, 5, 7), RW, "DBGWCR5_EL1"},
    {S(2, 0, 0, 6, 2), RW, "OSECCR_EL1"},
    {S(2, 0, 0, 6, 4), RW, "DBGBVR6_EL1"},
    {S(2, 0, 0, 6, 5), RW, "DBGBCR6_EL1"},
    {S(2, 0, 0, 6, 6), RW, "DBGWVR6_EL1"},
    {S(2, 0, 0, 6, 7), RW, "DBGWCR6_EL1"},
    {S(2, 0, 0, 7, 4), RW, "DBGBVR7_EL1"},
    {S(2, 0, 0, 7, 5), RW, "DBGBCR7_EL1"},
    {S(2, 0, 0, 7, 6), RW, "DBGWVR7_EL1"},
    {S(2, 0, 0, 7, 7), RW, "DBGWCR7_EL1"},
    {S(2, 0, 0, 8, 4), RW, "DBGBVR8_EL1"},
    {S(2, 0, 0, 8, 5), RW, "DBGBCR8_EL1"},
    {S(2, 0, 0, 8, 6), RW, "DBGWVR8_EL1"},
    {S(2, 0, 0, 8, 7), RW, "DBGWCR8_EL1"},
    {S(2, 0, 0, 9, 4), RW, "DBGBVR9_EL1"},
    {S(2, 0, 0, 9, 5), RW, "DBGBCR9_EL1"},
    {S(2, 0, 0, 9, 6), RW, "DBGWVR9_EL1"},
    {S(2, 0, 0, 9, 7), RW, "DBGWCR9_EL1"},
    {S(2, 0, 0, 10, 4), RW, "DBGBVR10_EL1"},
    {S(2, 0, 0, 10, 5), RW, "DBGBCR10_EL1"},
    {S(2, 0, 0, 10, 6), RW, "DBGWVR10_EL1"},
    {S(2, 0, 0, 10, 7), RW, "DBGWCR10_EL1"},
    {S(2, 0, 0, 11, 4), RW, "DBGBVR11_EL1"},
    {S(2, 0, 0, 11, 5), RW, "DBGBCR11_EL1"},
    {S(2, 0, 0, 11, 6), RW, "DBGWVR11_EL1"},
    {S(2, 0, 0, 11, 7), RW, "DBGWCR11_EL1"},
    {S(2, 0, 0, 12, 4), RW, "DBGBVR12_EL1"},
    {S(2, 0, 0, 12, 5), RW, "DBGBCR12_EL1"},
    {S(2, 0, 0, 12, 6), RW, "DBGWVR12_EL1"},
    {S(2, 0, 0, 12, 7), RW, "DBGWCR12_EL1"},
    {S(2, 0, 0, 13, 4), RW, "DBGBVR13_EL1"},
    {S(2, 0, 0, 13, 5), RW, "DBGBCR13_EL1"},
    {S(2, 0, 0, 13, 6), RW, "DBGWVR13_EL1"},
    {S(2, 0, 0, 13, 7), RW, "DBGWCR13_EL1"},
    {S(2, 0, 0, 14, 4), RW, "DBGBVR14_EL1"},
    {S(2, 0, 0, 14, 5), RW, "DBGBCR14_EL1"},
    {S(2, 0, 0, 14, 6), RW, "DBGWVR14_EL1"},
    {S(2, 0, 0, 14, 7), RW, "DBGWCR14_EL1"},
    {S(2, 0, 0, 15, 4), RW, "DBGBVR15_EL1"},
    {S(2, 0, 0, 15, 5), RW, "DBGBCR15_EL1"},
    {S(2, 0, 0, 15, 6), RW, "DBGWVR15_EL1"},
    {S(2, 0, 0, 15, 7), RW, "DBGWCR15_EL1"},
    {S(2, 0, 1, 0, 0), R, "MDRAR_EL1"},
    {S(2, 0, 1, 0, 4), W, "OSLAR_EL1"},
    {S(2, 0, 1, 1, 4), R, "OSLSR_EL1"},
    {S(2, 0, 1, 3, 4), RW, "OSDLR_EL1"},
    {S(2, 0, 1, 4, 4), RW, "DBGPRCR_EL1"},
    {S(2, 0, 7, 8, 6), RW, "DBGCLAIMSET_EL1"},
    {S(2, 0, 7, 9, 6), RW, "DBGCLAIMCLR_EL1"},
    {S(2, 0, 7, 14, 6), R, "DBGAUTHSTATUS_EL1"},
    {S(2, 0, 9, 13, 0), R, "SPMCGCR0_EL1"},
    {S(2, 0, 9, 13, 1), R, "SPMCGCR1_EL1"},
    {S(2, 0, 9, 13, 3), RW, "SPMACCESSR_EL1"},
    {S(2, 0, 9, 13, 4), R, "SPMIIDR_EL1"},
    {S(2, 0, 9, 13, 5), R, "SPMDEVARCH_EL1"},
    {S(2, 0, 9, 13, 6), R, "SPMDEVAFF_EL1"},
    {S(2, 0, 9, 13, 7), R, "SPMCFGR_EL1"},
    {S(2, 0, 9, 14, 1), RW, "SPMINTENSET_EL1"},
    {S(2, 0, 9, 14, 2), RW, "SPMINTENCLR_EL1"},
    {S(2, 0, 14, 8, 0), R, "PMEVCNTSVR0_EL1"},
    {S(2, 0, 14, 8, 1), R, "PMEVCNTSVR1_EL1"},
    {S(2, 0, 14, 8, 2), R, "PMEVCNTSVR2_EL1"},
    {S(2, 0, 14, 8, 3), R, "PMEVCNTSVR3_EL1"},
    {S(2, 0, 14, 8, 4), R, "PMEVCNTSVR4_EL1"},
    {S(2, 0, 14, 8, 5), R, "PMEVCNTSVR5_EL1"},
    {S(2, 0, 14, 8, 6), R, "PMEVCNTSVR6_EL1"},
    {S(2, 0, 14, 8, 7), R, "PMEVCNTSVR7_EL1"},
    {S(2, 0, 14, 9, 0), R, "PMEVCNTSVR8_EL1"},
    {S(2, 0, 14, 9, 1), R, "PMEVCNTSVR9_EL1"},
    {S(2, 0, 14, 9, 2), R, "PMEVCNTSVR10_EL1"},
    {S(2, 0, 14, 9, 3), R, "PMEVCNTSVR11_EL1"},
    {S(2, 0, 14, 9, 4), R, "PMEVCNTSVR12_EL1"},
    {S(2, 0, 14, 9, 5), R, "PMEVCNTSVR13_EL1"},
    {S(2, 0, 14, 9, 6), R, "PMEVCNTSVR14_EL1"},
    {S(2, 0, 14, 9, 7), R, "PMEVCNTSVR15_EL1"},
    {S(2, 0, 14, 10, 0), R, "PMEVCNTSVR16_EL1"},
    {S(2, 0, 14, 10, 1), R, "PMEVCNTSVR17_EL1"},
    {S(2, 0, 14, 10, 2), R, "PMEVCNTSVR18_EL1"},
    {S(2, 0, 14, 10, 3), R, "PMEVCNTSVR19_EL1"},
    {S(2, 0, 14, 10, 4), R, "PMEVCNTSVR20_EL1"},
    {S(2, 0, 14, 10, 5), R, "PMEVCNTSVR21_EL1"},
    {S(2, 0, 14, 10, 6), R, "PMEVCNTSVR22_EL1"},
    {S(2, 0, 14, 10, 7), R, "PMEVCNTSVR23_EL1"},
    {S(2, 0, 14, 11, 0), R, "PMEVCNTSVR24_EL1"},
    {S(2, 0, 14, 11, 1), R, "PMEVCNTSVR25_EL1"},
    {S(2, 0, 14, 11, 2), R, "PMEVCNTSVR26_EL1"},
    {S(2, 0, 14, 11, 3), R, "PMEVCNTSVR27_EL1"},
    {S(2, 0, 14, 11, 4), R, "PMEVCNTSVR28_EL1"},
    {S(2, 0, 14, 11, 5), R, "PMEVCNTSVR29_EL1"},
    {S(2, 0, 14, 11, 6), R, "PMEVCNTSVR30_EL1"},
    {S(2, 0, 14, 11, 7), R, "PMCCNTSVR_EL1"},
    {S(2, 0, 14, 12, 0), R, "PMICNTSVR_EL1"},
    {S(2, 1, 0, 0, 1), RW, "TRCTRACEIDR"},
    {S(2, 1, 0, 0, 2), RW, "TRCVICTLR"},
    {S(2, 1, 0, 0, 4), RW, "TRCSEQEVR0"},
    {S(2, 1, 0, 0, 5), RW, "TRCCNTRLDVR0"},
    {S(2, 1, 0, 0, 6), R, "TRCIDR8"},
    {S(2, 1, 0, 0, 7), RW, "TRCIMSPEC0"},
    {S(2, 1, 0, 1, 0), RW, "TRCPRGCTLR"},
    {S(2, 1, 0, 1, 1), RW, "TRCQCTLR"},
    {S(2, 1, 0, 1, 2), RW, "TRCVIIECTLR"},
    {S(2, 1, 0, 1, 4), RW, "TRCSEQEVR1"},
    {S(2, 1, 0, 1, 5), RW, "TRCCNTRLDVR1"},
    {S(2, 1, 0, 1, 6), R, "TRCIDR9"},
    {S(2, 1, 0, 1, 7), RW, "TRCIMSPEC1"},
    {S(2, 1, 0, 2, 0), RW, "TRCPROCSELR"},
    {S(2, 1, 0, 2, 2), RW, "TRCVISSCTLR"},
    {S(2, 1, 0, 2, 4), RW, "TRCSEQEVR2"},
    {S(2, 1, 0, 2, 5), RW, "TRCCNTRLDVR2"},
    {S(2, 1, 0, 2, 6), R, "TRCIDR10"},
    {S(2, 1, 0, 2, 7), RW, "TRCIMSPEC2"},
    {S(2, 1, 0, 3, 0), R, "TRCSTATR"},
    {S(2, 1, 0, 3, 2), RW, "TRCVIPCSSCTLR"},
    {S(2, 1, 0, 3, 5), RW, "TRCCNTRLDVR3"},
    {S(2, 1, 0, 3, 6), R, "TRCIDR11"},
    {S(2, 1, 0, 3, 7), RW, "TRCIMSPEC3"},
    {S(2, 1, 0, 4, 0), RW, "TRCCONFIGR"},
    {S(2, 1, 0, 4, 5), RW, "TRCCNTCTLR0"},
    {S(2, 1, 0, 4, 6), R, "TRCIDR12"},
    {S(2, 1, 0, 4, 7), RW, "TRCIMSPEC4"},
    {S(2, 1, 0, 5, 5), RW, "TRCCNTCTLR1"},
    {S(2, 1, 0, 5, 6), R, "TRCIDR13"},
    {S(2, 1, 0, 5, 7), RW, "TRCIMSPEC5"},
    {S(2, 1, 0, 6, 0), RW, "TRCAUXCTLR"},
    {S(2, 1, 0, 6, 4), RW, "TRCSEQRSTEVR"},
    {S(2, 1, 0, 6, 5), RW, "TRCCNTCTLR2"},
    {S(2, 1, 0, 6, 7), RW, "TRCIMSPEC6"},
    {S(2, 1, 0, 7, 4), RW, "TRCSEQSTR"},
    {S(2, 1, 0, 7, 5), RW, "TRCCNTCTLR3"},
    {S(2, 1, 0, 7, 7), RW, "TRCIMSPEC7"},
    {S(2, 1, 0, 8, 0), RW, "TRCEVENTCTL0R"},
    {S(2, 1, 0, 8, 2), RW, "TRCVDCTLR"},
    {S(2, 1, 0, 8, 4), RW, "TRCEXTINSELR"},
    {S(2, 1, 0, 8, 5), RW, "TRCCNTVR0"},
    {S(2, 1, 0, 8, 7), R, "TRCIDR0"},
    {S(2, 1, 0, 9, 0), RW, "TRCEVENTCTL1R"},
    {S(2, 1, 0, 9, 2), RW, "TRCVDSACCTLR"},
    {S(2, 1, 0, 9, 4), RW, "TRCEXTINSELR1"},
    {S(2, 1, 0, 9, 5), RW, "TRCCNTVR1"},
    {S(2, 1, 0, 9, 7), R, "TRCIDR1"},
    {S(2, 1, 0, 10, 0), RW, "TRCRSR"},
    {S(2, 1, 0, 10, 2), RW, "TRCVDARCCTLR"},
    {S(2, 1, 0, 10, 4), RW, "TRCEXTINSELR2"},
    {S(2, 1, 0, 10, 5), RW, "TRCCNTVR2"},
    {S(2, 1, 0, 10, 7), R, "TRCIDR2"},
    {S(2, 1, 0, 11, 0), RW, "TRCSTALLCTLR"},
    {S(2, 1, 0, 11, 4), RW, "TRCEXTINSELR3"},
    {S(2, 1, 0, 11, 5), RW, "TRCCNTVR3"},
    {S(2, 1, 0, 11, 7), R, "TRCIDR3"},
    {S(2, 1, 0, 12, 0), RW, "TRCTSCTLR"},
    {S(2, 1, 0, 12, 7), R, "TRCIDR4"},
    {S(2, 1, 0, 13, 0), RW, "TRCSYNCPR"},
    {S(2, 1, 0, 13, 7), R, "TRCIDR5"},
    {S(2, 1, 0, 14, 0), RW, "TRCCCCTLR"},
    {S(2, 1, 0, 14, 7), R, "TRCIDR6"},
    {S(2, 1, 0, 15, 0), RW, "TRCBBCTLR"},
    {S(2, 1, 0, 15, 7), R, "TRCIDR7"},
    {S(2, 1, 1, 0, 1), RW, "TRCRSCTLR16"},
    {S(2, 1, 1, 0, 2), RW, "TRCSSCCR0"},
    {S(2, 1, 1, 0, 3), RW, "TRCSSPCICR0"},
    {S(2, 1, 1, 0, 4), W, "TRCOSLAR"},
    {S(2, 1, 1, 1, 1), RW, "TRCRSCTLR17"},
    {S(2, 1, 1, 1, 2), RW, "TRCSSCCR1"},
    {S(2, 1, 1, 1, 3), RW, "TRCSSPCICR1"},
    {S(2, 1, 1, 1, 4), R, "TRCOSLSR"},
    {S(2, 1, 1, 2, 0), RW, "TRCRSCTLR2"},
    {S(2, 1, 1, 2, 1), RW, "TRCRSCTLR18"},
    {S(2, 1, 1, 2, 2), RW, "TRCSSCCR2"},
    {S(2, 1, 1, 2, 3), RW, "TRCSSPCICR2"},
    {S(2, 1, 1, 3, 0), RW, "TRCRSCTLR3"},
    {S(2, 1, 1, 3, 1), RW, "TRCRSCTLR19"},
    {S(2, 1, 1, 3, 2), RW, "TRCSSCCR3"},
    {S(2, 1, 1, 3, 3), RW, "TRCSSPCICR3"},
    {S(2, 1, 1, 4, 0), RW, "TRCRSCTLR4"},
    {S(2, 1, 1, 4, 1), RW, "TRCRSCTLR20"},
    {S(2, 1, 1, 4, 2), RW, "TRCSSCCR4"},
    {S(2, 1, 1, 4, 3), RW, "TRCSSPCICR4"},
    {S(2, 1, 1, 4, 4), RW, "TRCPDCR"},
    {S(2, 1, 1, 5, 0), RW, "TRCRSCTLR5"},
    {S(2, 1, 1, 5, 1), RW, "TRCRSCTLR21"},
    {S(2, 1, 1, 5, 2), RW, "TRCSSCCR5"},
    {S(2, 1, 1, 5, 3), RW, "TRCSSPCICR5"},
    {S(2, 1, 1, 5, 4), R, "TRCPDSR"},
    {S(2, 1, 1, 6, 0), RW, "TRCRSCTLR6"},
    {S(2, 1, 1, 6, 1), RW, "TRCRSCTLR22"},
    {S(2, 1, 1, 6, 2), RW, "TRCSSCCR6"},
    {S(2, 1, 1, 6, 3), RW, "TRCSSPCICR6"},
    {S(2, 1, 1, 7, 0), RW, "TRCRSCTLR7"},
    {S(2, 1, 1, 7, 1), RW, "TRCRSCTLR23"},
    {S(2, 1, 1, 7, 2), RW, "TRCSSCCR7"},
    {S(2, 1, 1, 7, 3), RW, "TRCSSPCICR7"},
    {S(2, 1, 1, 8, 0), RW, "TRCRSCTLR8"},
    {S(2, 1, 1, 8, 1), RW, "TRCRSCTLR24"},
    {S(2, 1, 1, 8, 2), RW, "TRCSSCSR0"},
    {S(2, 1, 1, 9, 0), RW, "TRCRSCTLR9"},
    {S(2, 1, 1, 9, 1), RW, "TRCRSCTLR25"},
    {S(2, 1, 1, 9, 2), RW, "TRCSSCSR1"},
    {S(2, 1, 1, 10, 0), RW, "TRCRSCTLR10"},
    {S(2, 1, 1, 10, 1), RW, "TRCRSCTLR26"},
    {S(2, 1, 1, 10, 2), RW, "TRCSSCSR2"},
    {S(2, 1, 1, 11, 0), RW, "TRCRSCTLR11"},
    {S(2, 1, 1, 11, 1), RW, "TRCRSCTLR27"},
    {S(2, 1, 1, 11, 2), RW, "TRCSSCSR3"},
    {S(2, 1, 1, 12, 0), RW, "TRCRSCTLR12"},
    {S(2, 1, 1, 12, 1), RW, "TRCRSCTLR28"},
    {S(2, 1, 1, 12, 2), RW, "TRCSSCSR4"},
    {S(2, 1, 1, 13, 0), RW, "TRCRSCTLR13"},
    {S(2, 1, 1, 13, 1), RW, "TRCRSCTLR29"},
    {S(2, 1, 1, 13, 2), RW, "TRCSSCSR5"},
    {S(2, 1, 1, 14, 0), RW, "TRCRSCTLR14"},
    {S(2, 1, 1, 14, 1), RW, "TRCRSCTLR30"},
    {S(2, 1, 1, 14, 2), RW, "TRCSSCSR6"},
    {S(2, 1, 1, 15, 0), RW, "TRCRSCTLR15"},
    {S(2, 1, 1, 15, 1), RW, "TRCRSCTLR31"},
    {S(2, 1, 1, 15, 2), RW, "TRCSSCSR7"},
    {S(2, 1, 2, 0, 0), RW, "TRCACVR0"},
    {S(2, 1, 2, 0, 1), RW, "TRCACVR8"},
    {S(2, 1, 2, 0, 2), RW, "TRCACATR0"},
    {S(2, 1, 2, 0, 3), RW, "TRCACATR8"},
    {S(2, 1, 2, 0, 4), RW, "TRCDVCVR0"},
    {S(2, 1, 2, 0, 5), RW, "TRCDVCVR4"},
    {S(2, 1, 2, 0, 6), RW, "TRCDVCMR0"},
    {S(2, 1, 2, 0, 7), RW, "TRCDVCMR4"},
    {S(2, 1, 2, 2, 0), RW, "TRCACVR1"},
    {S(2, 1, 2, 2, 1), RW, "TRCACVR9"},
    {S(2, 1, 2, 2, 2), RW, "TRCACATR1"},
    {S(2, 1, 2, 2, 3), RW, "TRCACATR9"},
    {S(2, 1, 2, 4, 0), RW, "TRCACVR2"},
    {S(2, 1, 2, 4, 1), RW, "TRCACVR10"},
    {S(2, 1, 2, 4, 2), RW, "TRCACATR2"},
    {S(2, 1, 2, 4, 3), RW, "TRCACATR10"},
    {S(2, 1, 2, 4, 4), RW, "TRCDVCVR1"},
    {S(2, 1, 2, 4, 5), RW, "TRCDVCVR5"},
    {S(2, 1, 2, 4, 6), RW, "TRCDVCMR1"},
    {S(2, 1, 2, 4, 7), RW, "TRCDVCMR5"},
    {S(2, 1, 2, 6, 0), RW, "TRCACVR3"},
    {S(2, 1, 2, 6, 1), RW, "TRCACVR11"},
    {S(2, 1, 2, 6, 2), RW, "TRCACATR3"},
    {S(2, 1, 2, 6, 3), RW, "TRCACATR11"},
    {S(2, 1, 2, 8, 0), RW, "TRCACVR4"},
    {S(2, 1, 2, 8, 1), RW, "TRCACVR12"},
    {S(2, 1, 2, 8, 2), RW, "TRCACATR4"},
    {S(2, 1, 2, 8, 3), RW, "TRCACATR12"},
    {S(2, 1, 2, 8, 4), RW, "TRCDVCVR2"},
    {S(2, 1, 2, 8, 5), RW, "TRCDVCVR6"},
    {S(2, 1, 2, 8, 6), RW, "TRCDVCMR2"},
    {S(2, 1, 2, 8, 7), RW, "TRCDVCMR6"},
    {S(2, 1, 2, 10, 0), RW, "TRCACVR5"},
    {S(2, 1, 2, 10, 1), RW, "TRCACVR13"},
    {S(2, 1, 2, 10, 2), RW, "TRCACATR5"},
    {S(2, 1, 2, 10, 3), RW, "TRCACATR13"},
    {S(2, 1, 2, 12, 0), RW, "TRCACVR6"},
    {S(2, 1, 2, 12, 1), RW, "TRCACVR14"},
    {S(2, 1, 2, 12, 2), RW, "TRCACATR6"},
    {S(2, 1, 2, 12, 3), RW, "TRCACATR14"},
    {S(2, 1, 2, 12, 4), RW, "TRCDVCVR3"},
    {S(2, 1, 2, 12, 5), RW, "TRCDVCVR7"},
    {S(2, 1, 2, 12, 6), RW, "TRCDVCMR3"},
    {S(2, 1, 2, 12, 7), RW, "TRCDVCMR7"},
    {S(2, 1, 2, 14, 0), RW, "TRCACVR7"},
    {S(2, 1, 2, 14, 1), RW, "TRCACVR15"},
    {S(2, 1, 2, 14, 2), RW, "TRCACATR7"},
    {S(2, 1, 2, 14, 3), RW, "TRCACATR15"},
    {S(2, 1, 3, 0, 0), RW, "TRCCIDCVR0"},
    {S(2, 1, 3, 0, 1), RW, "TRCVMIDCVR0"},
    {S(2, 1, 3, 0, 2), RW, "TRCCIDCCTLR0"},
    {S(2, 1, 3, 1, 2), RW, "TRCCIDCCTLR1"},
    {S(2, 1, 3, 2, 0), RW, "TRCCIDCVR1"},
    {S(2, 1, 3, 2, 1), RW, "TRCVMIDCVR1"},
    {S(2, 1, 3, 2, 2), RW, "TRCVMIDCCTLR0"},
    {S(2, 1, 3, 3, 2), RW, "TRCVMIDCCTLR1"},
    {S(2, 1, 3, 4, 0), RW, "TRCCIDCVR2"},
    {S(2, 1, 3, 4, 1), RW, "TRCVMIDCVR2"},
    {S(2, 1, 3, 6, 0), RW, "TRCCIDCVR3"},
    {S(2, 1, 3, 6, 1), RW, "TRCVMIDCVR3"},
    {S(2, 1, 3, 8, 0), RW, "TRCCIDCVR4"},
    {S(2, 1, 3, 8, 1), RW, "TRCVMIDCVR4"},
    {S(2, 1, 3, 10, 0), RW, "TRCCIDCVR5"},
    {S(2, 1, 3, 10, 1), RW, "TRCVMIDCVR5"},
    {S(2, 1, 3, 12, 0), RW, "TRCCIDCVR6"},
    {S(2, 1, 3, 12, 1), RW, "TRCVMIDCVR6"},
    {S(2, 1, 3, 14, 0), RW, "TRCCIDCVR7"},
    {S(2, 1, 3, 14, 1), RW, "TRCVMIDCVR7"},
    {S(2, 1, 7, 0, 4), RW, "TRCITCTRL"},
    {S(2, 1, 7, 2, 7), R, "TRCDEVID"},
    {S(2, 1, 7, 3, 7), R, "TRCDEVTYPE"},
    {S(2, 1, 7, 4, 7), R, "TRCPIDR4"},
    {S(2, 1, 7, 5, 7), R, "TRCPIDR5"},
    {S(2, 1, 7, 6, 7), R, "TRCPIDR6"},
    {S(2, 1, 7, 7, 7), R, "TRCPIDR7"},
    {S(2, 1, 7, 8, 6), RW, "TRCCLAIMSET"},
    {S(2, 1, 7, 8, 7), R, "TRCPIDR0"},
    {S(2, 1, 7, 9, 6), RW, "TRCCLAIMCLR"},
    {S(2, 1, 7, 9, 7), R, "TRCPIDR1"},
    {S(2, 1, 7, 10, 6), R, "TRCDEVAFF0"},
    {S(2, 1, 7, 10, 7), R, "TRCPIDR2"},
    {S(2, 1, 7, 11, 6), R, "TRCDEVAFF1"},
    {S(2, 1, 7, 11, 7), R, "TRCPIDR3"},
    {S(2, 1, 7, 12, 6), W, "TRCLAR"},
    {S(2, 1, 7, 12, 7), R, "TRCCIDR0"},
    {S(2, 1, 7, 13, 6), R, "TRCLSR"},
    {S(2, 1, 7, 13, 7), R, "TRCCIDR1"},
    {S(2, 1, 7, 14, 6), R, "TRCAUTHSTATUS"},
    {S(2, 1, 7, 14, 7), R, "TRCCIDR2"},
    {S(2, 1, 7, 15, 6), R, "TRCDEVARCH"},
    {S(2, 1, 7, 15, 7), R, "TRCCIDR3"},
    {S(2, 2, 0, 0, 0), RW, "TEECR32_EL1"},
    {S(2, 2, 1, 0, 0), RW, "TEEHBR32_EL1"},
    {S(2, 3, 0, 1, 0), R, "MDCCSR_EL0"},
    {S(2, 3, 0, 4, 0), RW, "DBGDTR_EL0"},
    {S(2, 3, 0, 5, 0), R, "DBGDTRRX_EL0"},
    {S(2, 3, 0, 5, 0), W, "DBGDTRTX_EL0"},
    {S(2, 3, 9, 12, 0), RW, "SPMCR_EL0"},
    {S(2, 3, 9, 12, 1), RW, "SPMCNTENSET_EL0"},
    {S(2, 3, 9, 12, 2), RW, "SPMCNTENCLR_EL0"},
    {S(2, 3, 9, 12, 3), RW, "SPMOVSCLR_EL0"},
    {S(2, 3, 9, 12, 5), RW, "SPMSELR_EL0"},
    {S(2, 3, 9, 14, 3), RW, "SPMOVSSET_EL0"},
    {S(2, 3, 14, 0, 0), RW, "SPMEVCNTR0_EL0"},
    {S(2, 3, 14, 0, 1), RW, "SPMEVCNTR1_EL0"},
    {S(2, 3, 14, 0, 2), RW, "SPMEVCNTR2_EL0"},
    {S(2, 3, 14, 0, 3), RW, "SPMEVCNTR3_EL0"},
    {S(2, 3, 14, 0, 4), RW, "SPMEVCNTR4_EL0"},
    {S(2, 3, 14, 0, 5), RW, "SPMEVCNTR5_EL0"},
    {S(2, 3, 14, 0, 6), RW, "SPMEVCNTR6_EL0"},
    {S(2, 3, 14, 0, 7), RW, "SPMEVCNTR7_EL0"},
    {S(2, 3, 14, 1, 0), RW, "SPMEVCNTR8_EL0"},
    {S(2, 3, 14, 1, 1), RW, "SPMEVCNTR9_EL0"},
    {S(2, 3, 14, 1, 2), RW, "SPMEVCNTR10_EL0"},
    {S(2, 3, 14, 1, 3), RW, "SPMEVCNTR11_EL0"},
    {S(2, 3, 14, 1, 4), RW, "SPMEVCNTR12_EL0"},
    {S(2, 3, 14, 1, 5), RW, "SPMEVCNTR13_EL0"},
    {S(2, 3, 14, 1, 6), RW, "SPMEVCNTR14_EL0"},
    {S(2, 3, 14, 1, 7), RW, "SPMEVCNTR15_EL0"},
    {S(2, 3, 14, 2, 0), RW, "SPMEVTYPER0_EL0"},
    {S(2, 3, 14, 2, 1), RW, "SPMEVTYPER1_EL0"},
    {S(2, 3, 14, 2, 2), RW, "SPMEVTYPER2_EL0"},
    {S(2, 3, 14, 2, 3), RW, "SPMEVTYPER3_EL0"},
    {S(2, 3, 14, 2, 4), RW, "SPMEVTYPER4_EL0"},
    {S(2, 3, 14, 2, 5), RW, "SPMEVTYPER5_EL0"},
    {S(2, 3, 14, 2, 6), RW, "SPMEVTYPER6_EL0"},
    {S(2, 3, 14, 2, 7), RW, "SPMEVTYPER7_EL0"},
    {S(2, 3, 14, 3, 0), RW, "SPMEVTYPER8_EL0"},
    {S(2, 3, 14, 3, 1), RW, "SPMEVTYPER9_EL0"},
    {S(2, 3, 14, 3, 2), RW, "SPMEVTYPER10_EL0"},
    {S(2, 3, 14, 3, 3), RW, "SPMEVTYPER11_EL0"},
    {S(2, 3, 14, 3, 4), RW, "SPMEVTYPER12_EL0"},
    {S(2, 3, 14, 3, 5), RW, "SPMEVTYPER13_EL0"},
    {S(2, 3, 14, 3, 6), RW, "SPMEVTYPER14_EL0"},
    {S(2, 3, 14, 3, 7), RW, "SPMEVTYPER15_EL0"},
    {S(2, 3, 14, 4, 0), RW, "SPMEVFILTR0_EL0"},
    {S(2, 3, 14, 4, 1), RW, "SPMEVFILTR1_EL0"},
    {S(2, 3, 14, 4, 2), RW, "SPMEVFILTR2_EL0"},
    {S(2, 3, 14, 4, 3), RW, "SPMEVFILTR3_EL0"},
    {S(2, 3, 14, 4, 4), RW, "SPMEVFILTR4_EL0"},
    {S(2, 3, 14, 4, 5), RW, "SPMEVFILTR5_EL0"},
    {S(2, 3, 14, 4, 6), RW, "SPMEVFILTR6_EL0"},
    {S(2, 3, 14, 4, 7), RW, "SPMEVFILTR7_EL0"},
    {S(2, 3, 14, 5, 0), RW, "SPMEVFILTR8_EL0"},
    {S(2, 3, 14, 5, 1), RW, "SPMEVFILTR9_EL0"},
    {S(2, 3, 14, 5, 2), RW, "SPMEVFILTR10_EL0"},
    {S(2, 3, 14, 5, 3), RW, "SPMEVFILTR11_EL0"},
    {S(2, 3, 14, 5, 4), RW, "SPMEVFILTR12_EL0"},
    {S(2, 3, 14, 5, 5), RW, "SPMEVFILTR13_EL0"},
    {S(2, 3, 14, 5, 6), RW, "SPMEVFILTR14_EL0"},
    {S(2, 3, 14, 5, 7), RW, "SPMEVFILTR15_EL0"},
    {S(2, 3, 14, 6, 0), RW, "SPMEVFILT2R0_EL0"},
    {S(2, 3, 14, 6, 1), RW, "SPMEVFILT2R1_EL0"},
    {S(2, 3, 14, 6, 2), RW, "SPMEVFILT2R2_EL0"},
    {S(2, 3, 14, 6, 3), RW, "SPMEVFILT2R3_EL0"},
    {S(2, 3, 14, 6, 4), RW, "SPMEVFILT2R4_EL0"},
    {S(2, 3, 14, 6, 5), RW, "SPMEVFILT2R5_EL0"},
    {S(2, 3, 14, 6, 6), RW, "SPMEVFILT2R6_EL0"},
    {S(2, 3, 14, 6, 7), RW, "SPMEVFILT2R7_EL0"},
    {S(2, 3, 14, 7, 0), RW, "SPMEVFILT2R8_EL0"},
    {S(2, 3, 14, 7, 1), RW, "SPMEVFILT2R9_EL0"},
    {S(2, 3, 14, 7, 2), RW, "SPMEVFILT2R10_EL0"},
    {S(2, 3, 14, 7, 3), RW, "SPMEVFILT2R11_EL0"},
    {S(2, 3, 14, 7, 4), RW, "SPMEVFILT2R12_EL0"},
    {S(2, 3, 14, 7, 5), RW, "SPMEVFILT2R13_EL0"},
    {S(2, 3, 14, 7, 6), RW, "SPMEVFILT2R14_EL0"},
    {S(2, 3, 14, 7, 7), RW, "SPMEVFILT2R15_EL0"},
    {S(2, 4, 0, 7, 0), RW, "DBGVCR32_EL2"},
    {S(2, 4, 9, 13, 3), RW, "SPMACCESSR_EL2"},
    {S(2, 5, 9, 13, 3), RW, "SPMACCESSR_EL12"},
    {S(2, 6, 9, 13, 3), RW, "SPMACCESSR_EL3"},
    {S(2, 6, 9, 14, 7), RW, "SPMROOTCR_EL3"},
    {S(2, 7, 9, 14, 7), RW, "SPMSCR_EL1"},
    {S(3, 0, 0, 0, 0), R, "MIDR_EL1"},
    {S(3, 0, 0, 0, 5), R, "MPIDR_EL1"},
    {S(3, 0, 0, 0, 6), R, "REVIDR_EL1"},
    {S(3, 0, 0, 1, 0), R, "ID_PFR0_EL1"},
    {S(3, 0, 0, 1, 1), R, "ID_PFR1_EL1"},
    {S(3, 0, 0, 1, 2), R, "ID_DFR0_EL1"},
    {S(3, 0, 0, 1, 3), R, "ID_AFR0_EL1"},
    {S(3, 0, 0, 1, 4), R, "ID_MMFR0_EL1"},
    {S(3, 0, 0, 1, 5), R, "ID_MMFR1_EL1"},
    {S(3, 0, 0, 1, 6), R, "ID_MMFR2_EL1"},
    {S(3, 0, 0, 1, 7), R, "ID_MMFR3_EL1"},
    {S(3, 0, 0, 2, 0), R, "ID_ISAR0_EL1"},
    {S(3, 0, 0, 2, 1), R, "ID_ISAR1_EL1"},
    {S(3, 0, 0, 2, 2), R, "ID_ISAR2_EL1"},
    {S(3, 0, 0, 2, 3), R, "ID_ISAR3_EL1"},
    {S(3, 0, 0, 2, 4), R, "ID_ISAR4_EL1"},
    {S(3, 0, 0, 2, 5), R, "ID_ISAR5_EL1"},
    {S(3, 0, 0, 2, 6), R, "ID_MMFR4_EL1"},
    {S(3, 0, 0, 3, 0), R, "MVFR0_EL1"},
    {S(3, 0, 0, 3, 1), R, "MVFR1_EL1"},
    {S(3, 0, 0, 3, 2), R, "MVFR2_EL1"},
    {S(3, 0, 0, 3, 5), R, "ID_DFR1_EL1"},
    {S(3, 0, 0, 3, 6), R, "ID_MMFR5_EL1"},
    {S(3, 0, 0, 4, 0), R, "ID_AA64PFR0_EL1"},
    {S(3, 0, 0, 4, 1), R, "ID_AA64PFR1_EL1"},
    {S(3, 0, 0, 4, 2), R, "ID_AA64PFR2_EL1"},
    {S(3, 0, 0, 5, 0), R, "ID_AA64DFR0_EL1"},
    {S(3, 0, 0, 5, 1), R, "ID_AA64DFR1_EL1"},
    {S(3, 0, 0, 5, 4), R, "ID_AA64AFR0_EL1"},
    {S(3, 0, 0, 5, 5), R, "ID_AA64AFR1_EL1"},
    {S(3, 0, 0, 6, 0), R, "ID_AA64ISAR0_EL1"},
    {S(3, 0, 0, 6, 1), R, "ID_AA64ISAR1_EL1"},
    {S(3, 0, 0, 6, 2), R, "ID_AA64ISAR2_EL1"},
    {S(3, 0, 0, 7, 0), R, "ID_AA64MMFR0_EL1"},
    {S(3, 0, 0, 7, 1), R, "ID_AA64MMFR1_EL1"},
    {S(3, 0, 0, 7, 2), R, "ID_AA64MMFR2_EL1"},
    {S(3, 0, 0, 7, 3), R, "ID_AA64MMFR3_EL1"},
    {S(3, 0, 0, 7, 4), R, "ID_AA64MMFR4_EL1"},
    {S(3, 0, 1, 0, 0), RW, "SCTLR_EL1"},
    {S(3, 0, 1, 0, 1), RW, "ACTLR_EL1"},
    {S(3, 0, 1, 0, 2), RW, "CPACR_EL1"},
    {S(3, 0, 1, 0, 3), RW, "SCTLR2_EL1"},
    {S(3, 0, 2, 0, 0), RW, "TTBR0_EL1"},
    {S(3, 0, 2, 0, 1), RW, "TTBR1_EL1"},
    {S(3, 0, 2, 0, 2), RW, "TCR_EL1"},
    {S(3, 0, 2, 0, 3), RW, "TCR2_EL1"},
    {S(3, 0, 4, 0, 0), RW, "SPSR_EL1"},
    {S(3, 0, 4, 0, 1), RW, "ELR_EL1"},
    {S(3, 0, 4, 1, 0), RW, "SP_EL0"},
    {S(3, 0, 4, 2, 0), RW, "SPSel"},
    {S(3, 0, 4, 2, 2), R, "CurrentEL"},
    {S(3, 0, 4, 3, 1), RW, "PM"},
    {S(3, 0, 4, 6, 0), RW, "ICC_PMR_EL1"},
    {S(3, 0, 5, 1, 0), RW, "AFSR0_EL1"},
    {S(3, 0, 5, 1, 1), RW, "AFSR1_EL1"},
    {S(3, 0, 5, 2, 0), RW, "ESR_EL1"},
    {S(3, 0, 5, 4, 4), R, "ERXPFGF_EL1"},
    {S(3, 0, 5, 4, 5), RW, "ERXPFGCTL_EL1"},
    {S(3, 0, 5, 4, 6), RW, "ERXPFGCDN_EL1"},
    {S(3, 0, 5, 5, 2), RW, "ERXMISC2_EL1"},
    {S(3, 0, 5, 5, 3), RW, "ERXMISC3_EL1"},
    {S(3, 0, 6, 0, 0), RW, "FAR_EL1"},
    {S(3, 0, 6, 0, 5), RW, "PFAR_EL1"},
    {S(3, 0, 7, 4, 0), RW, "PAR_EL1"},
    {S(3, 0, 9, 10, 4), RW, "PMSDSFR_EL1"},
    {S(3, 0, 9, 11, 0), RW, "TRBLIMITR_EL1"},
    {S(3, 0, 9, 11, 1), RW, "TRBPTR_EL1"},
    {S(3, 0, 9, 11, 2), RW, "TRBBASER_EL1"},
    {S(3, 0, 9, 11, 3), RW, "TRBSR_EL1"},
    {S(3, 0, 9, 11, 4), RW, "TRBMAR_EL1"},
    {S(3, 0, 9, 11, 6), RW, "TRBTRG_EL1"},
    {S(3, 0, 9, 11, 7), R, "TRBIDR_EL1"},
    {S(3, 0, 9, 13, 3), RW, "PMSSCR_EL1"},
    {S(3, 0, 9, 14, 1), RW, "PMINTENSET_EL1"},
    {S(3, 0, 9, 14, 2), RW, "PMINTENCLR_EL1"},
    {S(3, 0, 9, 14, 4), RW, "PMUACR_EL1"},
    {S(3, 0, 9, 14, 5), RW, "PMECR_EL1"},
    {S(3, 0, 9, 14, 6), R, "PMMIR_EL1"},
    {S(3, 0, 9, 14, 7), RW, "PMIAR_EL1"},
    {S(3, 0, 10, 2, 0), RW, "MAIR_EL1"},
    {S(3, 0, 10, 2, 1), RW, "MAIR2_EL1"},
    {S(3, 0, 10, 2, 2), RW, "PIRE0_EL1"},
    {S(3, 0, 10, 2, 3), RW, "PIR_EL1"},
    {S(3, 0, 10, 2, 4), RW, "POR_EL1"},
    {S(3, 0, 10, 2, 5), RW, "S2POR_EL1"},
    {S(3, 0, 10, 3, 0), RW, "AMAIR_EL1"},
    {S(3, 0, 10, 3, 1), RW, "AMAIR2_EL1"},
    {S(3, 0, 12, 0, 0), RW, "VBAR_EL1"},
    {S(3, 0, 12, 0, 1), R, "RVBAR_EL1"},
    {S(3, 0, 12, 0, 2), RW, "RMR_EL1"},
    {S(3, 0, 12, 1, 0), R, "ISR_EL1"},
    {S(3, 0, 12, 8, 0), R, "ICC_IAR0_EL1"},
    {S(3, 0, 12, 8, 1), W, "ICC_EOIR0_EL1"},
    {S(3, 0, 12, 8, 2), R, "ICC_HPPIR0_EL1"},
    {S(3, 0, 12, 8, 3), RW, "ICC_BPR0_EL1"},
    {S(3, 0, 12, 8, 4), RW, "ICC_AP0R0_EL1"},
    {S(3, 0, 12, 8, 5), RW, "ICC_AP0R1_EL1"},
    {S(3, 0, 12, 8, 6), RW, "ICC_AP0R2_EL1"},
    {S(3, 0, 12, 8, 7), RW, "ICC_AP0R3_EL1"},
    {S(3, 0, 12, 9, 0), RW, "ICC_AP1R0_EL1"},
    {S(3, 0, 12, 9, 1), RW, "ICC_AP1R1_EL1"},
    {S(3, 0, 12, 9, 2), RW, "ICC_AP1R2_EL1"},
    {S(3, 0, 12, 9, 3), RW, "ICC_AP1R3_EL1"},
    {S(3, 0, 12, 11, 1), W, "ICC_DIR_EL1"},
    {S(3, 0, 12, 11, 3), R, "ICC_RPR_EL1"},
    {S(3, 0, 12, 11, 5), W, "ICC_SGI1R_EL1"},
    {S(3, 0, 12, 11, 6), W, "ICC_ASGI1R_EL1"},
    {S(3, 0, 12, 11, 7), W, "ICC_SGI0R_EL1"},
    {S(3, 0, 12, 12, 0), R, "ICC_IAR1_EL1"},
    {S(3, 0, 12, 12, 1), W, "ICC_EOIR1_EL1"},
    {S(3, 0, 12, 12, 2), R, "ICC_HPPIR1_EL1"},
    {S(3, 0, 12, 12, 3), RW, "ICC_BPR1_EL1"},
    {S(3, 0, 12, 12, 4), RW, "ICC_CTLR_EL1"},
    {S(3, 0, 12, 12, 5), RW, "ICC_SRE_EL1"},
    {S(3, 0, 12, 12, 6), RW, "ICC_IGRPEN0_EL1"},
    {S(3, 0, 12, 12, 7), RW, "ICC_IGRPEN1_EL1"},
    {S(3, 0, 13, 0, 1), RW, "CONTEXTIDR_EL1"},
    {S(3, 0, 13, 0, 4), RW, "TPIDR_EL1"},
    {S(3, 0, 14, 1, 0), RW, "CNTKCTL_EL1"},
    {S(3, 1, 0, 0, 0), R, "CCSIDR_EL1"},
    {S(3, 1, 0, 0, 1), R, "CLIDR_EL1"},
    {S(3, 1, 0, 0, 7), R, "AIDR_EL1"},
    {S(3, 2, 0, 0, 0), RW, "CSSELR_EL1"},
    {S(3, 3, 0, 0, 1), R, "CTR_EL0"},
    {S(3, 3, 0, 0, 7), R, "DCZID_EL0"},
    {S(3, 3, 4, 2, 0), RW, "NZCV"},
    {S(3, 3, 4, 2, 1), RW, "DAIF"},
    {S(3, 3, 4, 4, 0), RW, "FPCR"},
    {S(3, 3, 4, 4, 1), RW, "FPSR"},
    {S(3, 3, 4, 5, 0), RW, "DSPSR_EL0"},
    {S(3, 3, 4, 5, 1), RW, "DLR_EL0"},
    {S(3, 3, 9, 4, 0), RW, "PMICNTR_EL0"},
    {S(3, 3, 9, 6, 0), RW, "PMICFILTR_EL0"},
    {S(3, 3, 9, 12, 0), RW, "PMCR_EL0"},
    {S(3, 3, 9, 12, 1), RW, "PMCNTENSET_EL0"},
    {S(3, 3, 9, 12, 2), RW, "PMCNTENCLR_EL0"},
    {S(3, 3, 9, 12, 3), RW, "PMOVSCLR_EL0"},
    {S(3, 3, 9, 12, 4), W, "PMSWINC_EL0"},
    {S(3, 3, 9, 12, 5), RW, "PMSELR_EL0"},
    {S(3, 3, 9, 12, 6), R, "PMCEID0_EL0"},
    {S(3, 3, 9, 12, 7), R, "PMCEID1_EL0"},
    {S(3, 3, 9, 13, 0), RW, "PMCCNTR_EL0"},
    {S(3, 3, 9, 13, 1), RW, "PMXEVTYPER_EL0"},
    {S(3, 3, 9, 13, 2), RW, "PMXEVCNTR_EL0"},
    {S(3, 3, 9, 13, 4), W, "PMZR_EL0"},
    {S(3, 3, 9, 14, 0), RW, "PMUSERENR_EL0"},
    {S(3, 3, 9, 14, 3), RW, "PMOVSSET_EL0"},
    {S(3, 3, 10, 2, 4), RW, "POR_EL0"},
    {S(3, 3, 13, 0, 2), RW, "TPIDR_EL0"},
    {S(3, 3, 13, 0, 3), RW, "TPIDRRO_EL0"},
    {S(3, 3, 14, 0, 0), RW, "CNTFRQ_EL0"},
    {S(3, 3, 14, 0, 1), R, "CNTPCT_EL0"},
    {S(3, 3, 14, 0, 2), R, "CNTVCT_EL0"},
    {S(3, 3, 14, 2, 0), RW, "CNTP_TVAL_EL0"},
    {S(3, 3, 14, 2, 1), RW, "CNTP_CTL_EL0"},
    {S(3, 3, 14, 2, 2), RW, "CNTP_CVAL_EL0"},
    {S(3, 3, 14, 3, 0), RW, "CNTV_TVAL_EL0"},
    {S(3, 3, 14, 3, 1), RW, "CNTV_CTL_EL0"},
    {S(3, 3, 14, 3, 2), RW, "CNTV_CVAL_EL0"},
    {S(3, 3, 14, 8, 0), RW, "PMEVCNTR0_EL0"},
    {S(3, 3, 14, 8, 1), RW, "PMEVCNTR1_EL0"},
    {S(3, 3, 14, 8, 2), RW, "PMEVCNTR2_EL0"},
    {S(3, 3, 14, 8, 3), RW, "PMEVCNTR3_EL0"},
    {S(3, 3, 14, 8, 4), RW, "PMEVCNTR4_EL0"},
    {S(3, 3, 14, 8, 5), RW, "PMEVCNTR5_EL0"},
    {S(3, 3, 14, 8, 6), RW, "PMEVCNTR6_EL0"},
    {S(3, 3, 14, 8, 7), RW, "PMEVCNTR7_EL0"},
    {S(3, 3, 14, 9, 0), RW, "PMEVCNTR8_EL0"},
    {S(3, 3, 14, 9, 1), RW, "PMEVCNTR9_EL0"},
    {S(3, 3, 14, 9, 2), RW, "PMEVCNTR10_EL0"},
    {S(3, 3, 14, 9, 3), RW, "PMEVCNTR11_EL0"},
    {S(3, 3, 14, 9, 4), RW, "PMEVCNTR12_EL0"},
    {S(3, 3, 14, 9, 5), RW, "PMEVCNTR13_EL0"},
    {S(3, 3, 14, 9, 6), RW, "PMEVCNTR14_EL0"},
    {S(3, 3, 14, 9, 7), RW, "PMEVCNTR15_EL0"},
    {S(3, 3, 14, 10, 0), RW, "PMEVCNTR16_EL0"},
    {S(3, 3, 14, 10, 1), RW, "PMEVCNTR17_EL0"},
    {S(3, 3, 14, 10, 2), RW, "PMEVCNTR18_EL0"},
    {S(3, 3, 14, 10, 3), RW, "PMEVCNTR19_EL0"},
    {S(3, 3, 14, 10, 4), RW, "PMEVCNTR20_EL0"},
    {S(3, 3, 14, 10, 5), RW, "PMEVCNTR21_EL0"},
    {S(3, 3, 14, 10, 6), RW, "PMEVCNTR22_EL0"},
    {S(3, 3, 14, 10, 7), RW, "PMEVCNTR23_EL0"},
    {S(3, 3, 14, 11, 0), RW, "PMEVCNTR24_EL0"},
    {S(3, 3, 14, 11, 1), RW, "PMEVCNTR25_EL0"},
    {S(3, 3, 14, 11, 2), RW, "PMEVCNTR26_EL0"},
    {S(3, 3, 14, 11, 3), RW, "PMEVCNTR27_EL0"},
    {S(3, 3, 14, 11, 4), RW, "PMEVCNTR28_EL0"},
    {S(3, 3, 14, 11, 5), RW, "PMEVCNTR29_EL0"},
    {S(3, 3, 14, 11, 6), RW, "PMEVCNTR30_EL0"},
    {S(3, 3, 14, 12, 0), RW, "PMEVTYPER0_EL0"},
    {S(3, 3, 14, 12, 1), RW, "PMEVTYPER1_EL0"},
    {S(3, 3, 14, 12, 2), RW, "PMEVTYPER2_EL0"},
    {S(3, 3, 14, 12, 3), RW, "PMEVTYPER3_EL0"},
    {S(3, 3, 14, 12, 4), RW, "PMEVTYPER4_EL0"},
    {S(3, 3, 14, 12, 5), RW, "PMEVTYPER5_EL0"},
    {S(3, 3, 14, 12, 6), RW, "PMEVTYPER6_EL0"},
    {S(3, 3, 14, 12, 7), RW, "PMEVTYPER7_EL0"},
    {S(3, 3, 14, 13, 0), RW, "PMEVTYPER8_EL0"},
    {S(3, 3, 14, 13, 1), RW, "PMEVTYPER9_EL0"},
    {S(3, 3, 14, 13, 2), RW, "PMEVTYPER10_EL0"},
    {S(3, 3, 14, 13, 3), RW, "PMEVTYPER11_EL0"},
    {S(3, 3, 14, 13, 4), RW, "PMEVTYPER12_EL0"},
    {S(3, 3, 14, 13, 5), RW, "PMEVTYPER13_EL0"},
    {S(3, 3, 14, 13, 6), RW, "PMEVTYPER14_EL0"},
    {S(3, 3, 14, 13, 7), RW, "PMEVTYPER15_EL0"},
    {S(3, 3, 14, 14, 0), RW, "PMEVTYPER16_EL0"},
    {S(3, 3, 14, 14, 1), RW, "PMEVTYPER17_EL0"},
    {S(3, 3, 14, 14, 2), RW, "PMEVTYPER18_EL0"},
    {S(3, 3, 14, 14, 3), RW, "PMEVTYPER19_EL0"},
    {S(3, 3, 14, 14, 4), RW, "PMEVTYPER20_EL0"},
    {S(3, 3, 14, 14, 5), RW, "PMEVTYPER21_EL0"},
    {S(3, 3, 14, 14, 6), RW, "PMEVTYPER22_EL0"},
    {S(3, 3, 14, 14, 7), RW, "PMEVTYPER23_EL0"},
    {S(3, 3, 14, 15, 0), RW, "PMEVTYPER24_EL0"},
    {S(3, 3, 14, 15, 1), RW, "PMEVTYPER25_EL0"},
    {S(3, 3, 14, 15, 2), RW, "PMEVTYPER26_EL0"},
    {S(3, 3, 14, 15, 3), RW, "PMEVTYPER27_EL0"},
    {S(3, 3, 14, 15, 4), RW, "PMEVTYPER28_EL0"},
    {S(3, 3, 14, 15, 5), RW, "PMEVTYPER29_EL0"},
    {S(3, 3, 14, 15, 6), RW, "PMEVTYPER30_EL0"},
    {S(3, 3, 14, 15, 7), RW, "PMCCFILTR_EL0"},
    {S(3, 4, 0, 0, 0), RW, "VPIDR_EL2"},
    {S(3, 4, 0, 0, 5), RW, "VMPIDR_EL2"},
    {S(3, 4, 1, 0, 0), RW, "SCTLR_EL2"},
    {S(3, 4, 1, 0, 1), RW, "ACTLR_EL2"},
    {S(3, 4, 1, 0, 3), RW, "SCTLR2_EL2"},
    {S(3, 4, 1, 1, 0), RW, "HCR_EL2"},
    {S(3, 4, 1, 1, 1), RW, "MDCR_EL2"},
    {S(3, 4, 1, 1, 2), RW, "CPTR_EL2"},
    {S(3, 4, 1, 1, 3), RW, "HSTR_EL2"},
    {S(3, 4, 1, 1, 7), RW, "HACR_EL2"},
    {S(3, 4, 2, 0, 0), RW, "TTBR0_EL2"},
    {S(3, 4, 2, 0, 2), RW, "TCR_EL2"},
    {S(3, 4, 2, 0, 3), RW, "TCR2_EL2"},
    {S(3, 4, 2, 1, 0), RW, "VTTBR_EL2"},
    {S(3, 4, 2, 1, 2), RW, "VTCR_EL2"},
    {S(3, 4, 2, 6, 0), RW, "VSTTBR_EL2"},
    {S(3, 4, 3, 0, 0), RW, "DACR32_EL2"},
    {S(3, 4, 4, 0, 0), RW, "SPSR_EL2"},
    {S(3, 4, 4, 0, 1), RW, "ELR_EL2"},
    {S(3, 4, 4, 1, 0), RW, "SP_EL1"},
    {S(3, 4, 4, 3, 0), RW, "SPSR_irq"},
    {S(3, 4, 4, 3, 1), RW, "SPSR_abt"},
    {S(3, 4, 4, 3, 2), RW, "SPSR_und"},
    {S(3, 4, 4, 3, 3), RW, "SPSR_fiq"},
    {S(3, 4, 5, 0, 1), RW, "IFSR32_EL2"},
    {S(3, 4, 5, 1, 0), RW, "AFSR0_EL2"},
    {S(3, 4, 5, 1, 1), RW, "AFSR1_EL2"},
    {S(3, 4, 5, 2, 0), RW, "ESR_EL2"},
    {S(3, 4, 5, 3, 0), RW, "FPEXC32_EL2"},
    {S(3, 4, 6, 0, 0), RW, "FAR_EL2"},
    {S(3, 4, 6, 0, 4), RW, "HPFAR_EL2"},
    {S(3, 4, 6, 0, 5), RW, "PFAR_EL2"},
    {S(3, 4, 10, 1, 1), RW, "MAIR2_EL2"},
    {S(3, 4, 10, 2, 0), RW, "MAIR_EL2"},
    {S(3, 4, 10, 2, 2), RW, "PIRE0_EL2"},
    {S(3, 4, 10, 2, 3), RW, "PIR_EL2"},
    {S(3, 4, 10, 2, 4), RW, "POR_EL2"},
    {S(3, 4, 10, 2, 5), RW, "S2PIR_EL2"},
    {S(3, 4, 10, 3, 0), RW, "AMAIR_EL2"},
    {S(3, 4, 10, 3, 1), RW, "AMAIR2_EL2"},
    {S(3, 4, 12, 0, 0), RW, "VBAR_EL2"},
    {S(3, 4, 12, 0, 1), R, "RVBAR_EL2"},
    {S(3, 4, 12, 0, 2), RW, "RMR_EL2"},
    {S(3, 4, 12, 8, 0), RW, "ICH_AP0R0_EL2"},
    {S(3, 4, 12, 8, 1), RW, "ICH_AP0R1_EL2"},
    {S(3, 4, 12, 8, 2), RW, "ICH_AP0R2_EL2"},
    {S(3, 4, 12, 8, 3), RW, "ICH_AP0R3_EL2"},
    {S(3, 4, 12, 9, 0), RW, "ICH_AP1R0_EL2"},
    {S(3, 4, 12, 9, 1), RW, "ICH_AP1R1_EL2"},
    {S(3, 4, 12, 9, 2), RW, "ICH_AP1R2_EL2"},
    {S(3, 4, 12, 9, 3), RW, "ICH_AP1R3_EL2"},
    {S(3, 4, 12, 9, 5), RW, "ICC_SRE_EL2"},
    {S(3, 4, 12, 11, 0), RW, "ICH_HCR_EL2"},
    {S(3, 4, 12, 11, 1), R, "ICH_VTR_EL2"},
    {S(3, 4, 12, 11, 2), R, "ICH_MISR_EL2"},
    {S(3, 4, 12, 11, 3), R, "ICH_EISR_EL2"},
    {S(3, 4, 12, 11, 5), R, "ICH_ELRSR_EL2"},
    {S(3, 4, 12, 11, 7), RW, "ICH_VMCR_EL2"},
    {S(3, 4, 12, 12, 0), RW, "ICH_LR0_EL2"},
    {S(3, 4, 12, 12, 1), RW, "ICH_LR1_EL2"},
    {S(3, 4, 12, 12, 2), RW, "ICH_LR2_EL2"},
    {S(3, 4, 12, 12, 3), RW, "ICH_LR3_EL2"},
    {S(3, 4, 12, 12, 4), RW, "ICH_LR4_EL2"},
    {S(3, 4, 12, 12, 5), RW, "ICH_LR5_EL2"},
    {S(3, 4, 12, 12, 6), RW, "ICH_LR6_EL2"},
    {S(3, 4, 12, 12, 7), RW, "ICH_LR7_EL2"},
    {S(3, 4, 12, 13, 0), RW, "ICH_LR8_EL2"},
    {S(3, 4, 12, 13, 1), RW, "ICH_LR9_EL2"},
    {S(3, 4, 12, 13, 2), RW, "ICH_LR10_EL2"},
    {S(3, 4, 12, 13, 3), RW, "ICH_LR11_EL2"},
    {S(3, 4, 12, 13, 4), RW, "ICH_LR12_EL2"},
    {S(3, 4, 12, 13, 5), RW, "ICH_LR13_EL2"},
    {S(3, 4, 12, 13, 6), RW, "ICH_LR14_EL2"},
    {S(3, 4, 12, 13, 7), RW, "ICH_LR15_EL2"},
    {S(3, 4, 13, 0, 2), RW, "TPIDR_EL2"},
    {S(3, 4, 14, 0, 3), RW, "CNTVOFF_EL2"},
    {S(3, 4, 14, 1, 0), RW, "CNTHCTL_EL2"},
    {S(3, 4, 14, 2, 0), RW, "CNTHP_TVAL_EL2"},
    {S(3, 4, 14, 2, 1), RW, "CNTHP_CTL_EL2"},
    {S(3, 4, 14, 2, 2), RW, "CNTHP_CVAL_EL2"},
    {S(3, 5, 1, 0, 3), RW, "SCTLR2_EL12"},
    {S(3, 5, 2, 0, 3), RW, "TCR2_EL12"},
    {S(3, 5, 6, 0, 5), RW, "PFAR_EL12"},
    {S(3, 5, 10, 2, 1), RW, "MAIR2_EL12"},
    {S(3, 5, 10, 2, 2), RW, "PIRE0_EL12"},
    {S(3, 5, 10, 2, 3), RW, "PIR_EL12"},
    {S(3, 5, 10, 2, 4), RW, "POR_EL12"},
    {S(3, 5, 10, 3, 1), RW, "AMAIR2_EL12"},
    {S(3, 6, 1, 0, 0), RW, "SCTLR_EL3"},
    {S(3, 6, 1, 0, 1), RW, "ACTLR_EL3"},
    {S(3, 6, 1, 0, 3), RW, "SCTLR2_EL3"},
    {S(3, 6, 1, 1, 0), RW, "SCR_EL3"},
    {S(3, 6, 1, 1, 1), RW, "SDER32_EL3"},
    {S(3, 6, 1, 1, 2), RW, "CPTR_EL3"},
    {S(3, 6, 1, 3, 1), RW, "MDCR_EL3"},
    {S(3, 6, 2, 0, 0), RW, "TTBR0_EL3"},
    {S(3, 6, 2, 0, 2), RW, "TCR_EL3"},
    {S(3, 6, 4, 0, 0), RW, "SPSR_EL3"},
    {S(3, 6, 4, 0, 1), RW, "ELR_EL3"},
    {S(3, 6, 4, 1, 0), RW, "SP_EL2"},
    {S(3, 6, 5, 1, 0), RW, "AFSR0_EL3"},
    {S(3, 6, 5, 1, 1), RW, "AFSR1_EL3"},
    {S(3, 6, 5, 2, 0), RW, "ESR_EL3"},
    {S(3, 6, 6, 0, 0), RW, "FAR_EL3"},
    {S(3, 6, 6, 0, 5), RW, "MFAR_EL3"},
    {S(3, 6, 10, 1, 1), RW, "MAIR2_EL3"},
    {S(3, 6, 10, 2, 0), RW, "MAIR_EL3"},
    {S(3, 6, 10, 2, 3), RW, "PIR_EL3"},
    {S(3, 6, 10, 2, 4), RW, "POR_EL3"},
    {S(3, 6, 10, 3, 0), RW, "AMAIR_EL3"},
    {S(3, 6, 10, 3, 1), RW, "AMAIR2_EL3"},
    {S(3, 6, 12, 0, 0), RW, "VBAR_EL3"},
    {S(3, 6, 12, 0, 1), R, "RVBAR_EL3"},
    {S(3, 6, 12, 0, 2), RW, "RMR_EL3"},
    {S(3, 6, 12, 12, 4), RW, "ICC_CTLR_EL3"},
    {S(3, 6, 12, 12, 5), RW, "ICC_SRE_EL3"},
    {S(3, 6, 12, 12, 7), RW, "ICC_IGRPEN1_EL3"},
    {S(3, 6, 13, 0, 2), RW, "TPIDR_EL3"},
    {S(3, 7, 14, 2, 0), RW, "CNTPS_TVAL_EL1"},
    {S(3, 7, 14, 2, 1), RW, "CNTPS_CTL_EL1"},
    {S(3, 7, 14, 2, 2), RW, "CNTPS_CVAL_EL1"},
};

// SYS instructions that have a DC/IC/AT/TLBI alias (Armv8.0 set, as LLVM 16 prints them): op1, CRn, CRm,
// op2, the alias text, and whether it takes a register (those without print no register whatever Rt is).
struct SysAlias {
  unsigned op1, crn, crm, op2;
  const char* text;
  bool has_reg;
};
constexpr SysAlias kSysAliases[] = {
    {0, 7, 1, 0, "ic ialluis", false},
    {0, 7, 5, 0, "ic iallu", false},
    {0, 7, 6, 1, "dc ivac", true},
    {0, 7, 6, 2, "dc isw", true},
    {0, 7, 8, 0, "at s1e1r", true},
    {0, 7, 8, 1, "at s1e1w", true},
    {0, 7, 8, 2, "at s1e0r", true},
    {0, 7, 8, 3, "at s1e0w", true},
    {0, 7, 10, 2, "dc csw", true},
    {0, 7, 14, 2, "dc cisw", true},
    {0, 8, 3, 0, "tlbi vmalle1is", false},
    {0, 8, 3, 1, "tlbi vae1is", true},
    {0, 8, 3, 2, "tlbi aside1is", true},
    {0, 8, 3, 3, "tlbi vaae1is", true},
    {0, 8, 3, 5, "tlbi vale1is", true},
    {0, 8, 3, 7, "tlbi vaale1is", true},
    {0, 8, 7, 0, "tlbi vmalle1", false},
    {0, 8, 7, 1, "tlbi vae1", true},
    {0, 8, 7, 2, "tlbi aside1", true},
    {0, 8, 7, 3, "tlbi vaae1", true},
    {0, 8, 7, 5, "tlbi vale1", true},
    {0, 8, 7, 7, "tlbi vaale1", true},
    {3, 7, 4, 1, "dc zva", true},
    {3, 7, 5, 1, "ic ivau", true},
    {3, 7, 10, 1, "dc cvac", true},
    {3, 7, 11, 1, "dc cvau", true},
    {3, 7, 14, 1, "dc civac", true},
    {4, 7, 8, 0, "at s1e2r", true},
    {4, 7, 8, 1, "at s1e2w", true},
    {4, 7, 8, 4, "at s12e1r", true},
    {4, 7, 8, 5, "at s12e1w", true},
    {4, 7, 8, 6, "at s12e0r", true},
    {4, 7, 8, 7, "at s12e0w", true},
    {4, 8, 0, 1, "tlbi ipas2e1is", true},
    {4, 8, 0, 5, "tlbi ipas2le1is", true},
    {4, 8, 3, 0, "tlbi alle2is", false},
    {4, 8, 3, 1, "tlbi vae2is", true},
    {4, 8, 3, 4, "tlbi alle1is", false},
    {4, 8, 3, 5, "tlbi vale2is", true},
    {4, 8, 3, 6, "tlbi vmalls12e1is", false},
    {4, 8, 4, 1, "tlbi ipas2e1", true},
    {4, 8, 4, 5, "tlbi ipas2le1", true},
    {4, 8, 7, 0, "tlbi alle2", false},
    {4, 8, 7, 1, "tlbi vae2", true},
    {4, 8, 7, 4, "tlbi alle1", false},
    {4, 8, 7, 5, "tlbi vale2", true},
    {4, 8, 7, 6, "tlbi vmalls12e1", false},
    {6, 7, 8, 0, "at s1e3r", true},
    {6, 7, 8, 1, "at s1e3w", true},
    {6, 8, 3, 0, "tlbi alle3is", false},
    {6, 8, 3, 1, "tlbi vae3is", true},
    {6, 8, 3, 5, "tlbi vale3is", true},
    {6, 8, 7, 0, "tlbi alle3", false},
    {6, 8, 7, 1, "tlbi vae3", true},
    {6, 8, 7, 5, "tlbi vale3", true},
};

} // namespace

// ---------------------------------------------------------------------------------------- system model
// MRS/MSR and SYS of the registers and operations an EL0/EL1-only Armv8.0-A core has (Arm ARM D13, D17).

namespace {

using vplat::cpu::Access;
using vplat::cpu::Core;
using vplat::cpu::TimerReg;
using vplat::cpu::Translation;

constexpr uint32_t kEcSysTrap = 0x18;

// ISS of an MSR/MRS/SYS trap (EC 0x18): Op0, Op2, Op1, CRn, Rt, CRm, Direction (1 = read).
uint32_t sys_iss(uint32_t op0, uint32_t op1, uint32_t crn, uint32_t crm, uint32_t op2, uint32_t rt, bool read) {
  return op0 << 20 | op2 << 17 | op1 << 14 | crn << 10 | rt << 5 | crm << 1 | uint32_t(read);
}

// Who may access a register from EL0 (EL1 always may).
enum class El0 : uint8_t {
  No,      // UNDEFINED at EL0
  Yes,
  Uct,     // SCTLR_EL1.UCT, else trapped
  Uma,     // SCTLR_EL1.UMA, else trapped
  ReadOnly, // readable at EL0, writes UNDEFINED there
  Pct,     // CNTKCTL_EL1.EL0PCTEN
  Vct,     // CNTKCTL_EL1.EL0VCTEN
  Frq,     // EL0PCTEN or EL0VCTEN (reads only)
  Pt,      // CNTKCTL_EL1.EL0PTEN
  Vt,      // CNTKCTL_EL1.EL0VTEN
};

enum class Id : uint8_t {
  Midr, Mpidr, Revidr, Ccsidr, Clidr, Aidr, Csselr, Ctr, Dczid,
  Sctlr, Actlr, Cpacr, Ttbr0, Ttbr1, Tcr, Spsr, Elr, SpEl0, SpSel, CurrentEl, Daif,
  Afsr0, Afsr1, Esr, Far, Par, Mair, Amair, Vbar, Contextidr, TpidrEl1, TpidrEl0, TpidrroEl0,
  Cntkctl, Cntfrq, Cntpct, Cntvct, CntpTval, CntpCtl, CntpCval, CntvTval, CntvCtl, CntvCval,
  Mdscr, Oslar, Oslsr, Osdlr, Mdccint, Dbgprcr, DbgclaimSet, DbgclaimClr, Dbgauthstatus, Mdrar, Oseccr,
  Osdtrrx, Osdtrtx,
};

struct RegDef {
  uint32_t enc;
  unsigned access; // R, W, RW
  El0 el0;
  Id id;
};

// The implemented system registers, keyed by op0:op1:CRn:CRm:op2. The ID register space (op0 = 3, op1 = 0,
// CRn = 0, CRm = 1..7) and the debug breakpoint/watchpoint banks are decoded separately (see find_reg).
constexpr RegDef kRegs[] = {
    {S(2, 0, 0, 0, 2), RW, El0::No, Id::Osdtrrx},
    {S(2, 0, 0, 2, 0), RW, El0::No, Id::Mdccint},
    {S(2, 0, 0, 2, 2), RW, El0::No, Id::Mdscr},
    {S(2, 0, 0, 3, 2), RW, El0::No, Id::Osdtrtx},
    {S(2, 0, 0, 6, 2), RW, El0::No, Id::Oseccr},
    {S(2, 0, 1, 0, 0), R, El0::No, Id::Mdrar},
    {S(2, 0, 1, 0, 4), W, El0::No, Id::Oslar},
    {S(2, 0, 1, 1, 4), R, El0::No, Id::Oslsr},
    {S(2, 0, 1, 3, 4), RW, El0::No, Id::Osdlr},
    {S(2, 0, 1, 4, 4), RW, El0::No, Id::Dbgprcr},
    {S(2, 0, 7, 8, 6), RW, El0::No, Id::DbgclaimSet},
    {S(2, 0, 7, 9, 6), RW, El0::No, Id::DbgclaimClr},
    {S(2, 0, 7, 14, 6), R, El0::No, Id::Dbgauthstatus},
    {S(3, 0, 0, 0, 0), R, El0::No, Id::Midr},
    {S(3, 0, 0, 0, 5), R, El0::No, Id::Mpidr},
    {S(3, 0, 0, 0, 6), R, El0::No, Id::Revidr},
    {S(3, 0, 1, 0, 0), RW, El0::No, Id::Sctlr},
    {S(3, 0, 1, 0, 1), RW, El0::No, Id::Actlr},
    {S(3, 0, 1, 0, 2), RW, El0::No, Id::Cpacr},
    {S(3, 0, 2, 0, 0), RW, El0::No, Id::Ttbr0},
    {S(3, 0, 2, 0, 1), RW, El0::No, Id::Ttbr1},
    {S(3, 0, 2, 0, 2), RW, El0::No, Id::Tcr},
    {S(3, 0, 4, 0, 0), RW, El0::No, Id::Spsr},
    {S(3, 0, 4, 0, 1), RW, El0::No, Id::Elr},
    {S(3, 0, 4, 1, 0), RW, El0::No, Id::SpEl0},
    {S(3, 0, 4, 2, 0), RW, El0::No, Id::SpSel},
    {S(3, 0, 4, 2, 2), R, El0::No, Id::CurrentEl},
    {S(3, 0, 5, 1, 0), RW, El0::No, Id::Afsr0},
    {S(3, 0, 5, 1, 1), RW, El0::No, Id::Afsr1},
    {S(3, 0, 5, 2, 0), RW, El0::No, Id::Esr},
    {S(3, 0, 6, 0, 0), RW, El0::No, Id::Far},
    {S(3, 0, 7, 4, 0), RW, El0::No, Id::Par},
    {S(3, 0, 10, 2, 0), RW, El0::No, Id::Mair},
    {S(3, 0, 10, 3, 0), RW, El0::No, Id::Amair},
    {S(3, 0, 12, 0, 0), RW, El0::No, Id::Vbar},
    {S(3, 0, 13, 0, 1), RW, El0::No, Id::Contextidr},
    {S(3, 0, 13, 0, 4), RW, El0::No, Id::TpidrEl1},
    {S(3, 0, 14, 1, 0), RW, El0::No, Id::Cntkctl},
    {S(3, 1, 0, 0, 0), R, El0::No, Id::Ccsidr},
    {S(3, 1, 0, 0, 1), R, El0::No, Id::Clidr},
    {S(3, 1, 0, 0, 7), R, El0::No, Id::Aidr},
    {S(3, 2, 0, 0, 0), RW, El0::No, Id::Csselr},
    {S(3, 3, 0, 0, 1), R, El0::Uct, Id::Ctr},
    {S(3, 3, 0, 0, 7), R, El0::Yes, Id::Dczid},
    {S(3, 3, 4, 2, 1), RW, El0::Uma, Id::Daif},
    {S(3, 3, 13, 0, 2), RW, El0::Yes, Id::TpidrEl0},
    {S(3, 3, 13, 0, 3), RW, El0::ReadOnly, Id::TpidrroEl0},
    {S(3, 3, 14, 0, 0), RW, El0::Frq, Id::Cntfrq},
    {S(3, 3, 14, 0, 1), R, El0::Pct, Id::Cntpct},
    {S(3, 3, 14, 0, 2), R, El0::Vct, Id::Cntvct},
    {S(3, 3, 14, 2, 0), RW, El0::Pt, Id::CntpTval},
    {S(3, 3, 14, 2, 1), RW, El0::Pt, Id::CntpCtl},
    {S(3, 3, 14, 2, 2), RW, El0::Pt, Id::CntpCval},
    {S(3, 3, 14, 3, 0), RW, El0::Vt, Id::CntvTval},
    {S(3, 3, 14, 3, 1), RW, El0::Vt, Id::CntvCtl},
    {S(3, 3, 14, 3, 2), RW, El0::Vt, Id::CntvCval},
};

// ID registers with a non-zero value; the rest of the ID space reads as zero.
constexpr uint64_t kIdAa64Pfr0 = 0x11;        // EL0, EL1: AArch64 only; FP, AdvSIMD present; no GIC sysregs
constexpr uint64_t kIdAa64Dfr0 = 0x10305006;  // DebugVer v8, no PMU, 6 breakpoints, 4 watchpoints, 2 context
constexpr uint64_t kIdAa64Isar0 = 0x10000;    // CRC32 only
constexpr uint64_t kIdAa64Mmfr0 = 0x0F000022; // PARange 40 bits, 16-bit ASIDs, 4 KiB granule only
constexpr unsigned kBreakpoints = 6, kWatchpoints = 4;

uint64_t id_register(uint32_t crm, uint32_t op2) {
  if (crm == 4 && op2 == 0) return kIdAa64Pfr0;
  if (crm == 5 && op2 == 0) return kIdAa64Dfr0;
  if (crm == 6 && op2 == 0) return kIdAa64Isar0;
  if (crm == 7 && op2 == 0) return kIdAa64Mmfr0;
  return 0;
}

// By encoding (16 bits): translated code reads SP_EL0 and the thread registers through here on every MRS
// (the kernel's `current`), and a search of the list had made it ~2% of the guest thread's time in a
// shell loop.
const RegDef* find_reg(uint32_t enc) {
  static_assert(std::size(kRegs) < 255);
  static const std::vector<uint8_t> index = [] {
    std::vector<uint8_t> v(1u << 16, 0xff);
    for (size_t i = 0; i < std::size(kRegs); ++i) v[kRegs[i].enc] = static_cast<uint8_t>(i);
    return v;
  }();
  const uint8_t i = enc < index.size() ? index[enc] : 0xff;
  return i == 0xff ? nullptr : &kRegs[i];
}

// Cortex-A72-like cache geometry: 32 KiB 2-way L1D, 48 KiB 3-way L1I, 2 MiB 16-way L2, 64-byte lines.
uint64_t ccsidr(uint64_t csselr) {
  switch (csselr & 0xf) {
  case 0: return 0x701FE00A;
  case 1: return 0x201FE012;
  case 2: return 0x70FFE07A;
  default: return 0;
  }
}

struct Fields {
  uint32_t op0, op1, crn, crm, op2, rt;
  explicit Fields(uint64_t insn)
      : op0(uint32_t(insn >> 19) & 3), op1(uint32_t(insn >> 16) & 7), crn(uint32_t(insn >> 12) & 15),
        crm(uint32_t(insn >> 8) & 15), op2(uint32_t(insn >> 5) & 7), rt(uint32_t(insn) & 31) {}
  uint32_t enc() const { return S(op0, op1, crn, crm, op2); }
};

constexpr uint64_t kCtr = 0x8444C004; // 64-byte lines, ERG/CWG 64 bytes, PIPT instruction cache
constexpr uint64_t kDczid = 4;        // 64-byte DC ZVA blocks (DZP added where it applies)

// Checks EL0 access; raises UNDEFINED or the trap and returns false if not allowed.
bool el0_allowed(Core& c, const Fields& f, El0 rule, bool read) {
  if (c.el() != 0) return true;
  uint64_t sctlr = c.sys.sctlr, k = c.sys.cntkctl;
  bool ok;
  switch (rule) {
  case El0::No: c.raise_undefined(); return false;
  case El0::Yes: return true;
  case El0::ReadOnly:
    if (read) return true;
    c.raise_undefined();
    return false;
  case El0::Uct: ok = sctlr >> 15 & 1; break;
  case El0::Uma: ok = sctlr >> 9 & 1; break;
  case El0::Pct: ok = k & 1; break;
  case El0::Vct: ok = k >> 1 & 1; break;
  case El0::Frq:
    if (!read) {
      c.raise_undefined();
      return false;
    }
    ok = k & 3;
    break;
  case El0::Pt: ok = k >> 9 & 1; break;
  case El0::Vt: ok = k >> 8 & 1; break;
  default: ok = false;
  }
  if (!ok) c.raise_trap(kEcSysTrap, sys_iss(f.op0, f.op1, f.crn, f.crm, f.op2, f.rt, read));
  return ok;
}

bool timer_id(Id id, TimerReg& t) {
  switch (id) {
  case Id::Cntpct: t = TimerReg::Cntpct; return true;
  case Id::Cntvct: t = TimerReg::Cntvct; return true;
  case Id::CntpTval: t = TimerReg::CntpTval; return true;
  case Id::CntpCtl: t = TimerReg::CntpCtl; return true;
  case Id::CntpCval: t = TimerReg::CntpCval; return true;
  case Id::CntvTval: t = TimerReg::CntvTval; return true;
  case Id::CntvCtl: t = TimerReg::CntvCtl; return true;
  case Id::CntvCval: t = TimerReg::CntvCval; return true;
  default: return false;
  }
}

// The debug breakpoint/watchpoint banks DBG{B,W}{V,C}R<n>_EL1: op0 = 2, op1 = 0, CRn = 0, CRm = n,
// op2 = 4..7. Plain storage for the implemented n (breakpoints and watchpoints never fire).
uint64_t* debug_bank(Core& c, const Fields& f) {
  if (f.op0 != 2 || f.op1 != 0 || f.crn != 0 || f.op2 < 4) return nullptr;
  unsigned n = f.crm;
  switch (f.op2) {
  case 4: return n < kBreakpoints ? &c.sys.dbgbvr[n] : nullptr;
  case 5: return n < kBreakpoints ? &c.sys.dbgbcr[n] : nullptr;
  case 6: return n < kWatchpoints ? &c.sys.dbgwvr[n] : nullptr;
  default: return n < kWatchpoints ? &c.sys.dbgwcr[n] : nullptr;
  }
}

uint64_t xreg(Core& c, uint32_t rt) { return rt == 31 ? 0 : c.X[rt]; }

// Cache maintenance by VA: the translation checks the architecture requires (DC IVAC needs write
// permission; the others fault on translation, access flag and, at EL0, read permission). Faults are data
// aborts with CM = 1 and WnR = 1.
void cache_maint(Core& c, uint64_t va, bool needs_write) {
  Translation t = c.walk(va, needs_write ? Access::Write : Access::Read, c.el());
  if (t.ok) return;
  bool permission = (t.fault & 0x3c) == vplat::cpu::fsc::kPermission;
  if (permission && !needs_write && c.el() == 1) return;
  c.raise_data_abort(va, t.fault, true, true);
}

void address_translate(Core& c, uint32_t op2, uint64_t va) {
  unsigned el = op2 >= 2 ? 0 : 1;
  Translation t = c.walk(va, (op2 & 1) ? Access::Write : Access::Read, el);
  if (t.ok) {
    uint64_t attr = (c.sys.sctlr & 1) ? (c.sys.mair >> (8 * t.attr_index)) & 0xff : 0;
    c.sys.par = attr << 56 | (t.pa & 0x000000fffffff000ull) | 1u << 11;
  } else {
    c.sys.par = 1u << 11 | uint64_t(t.fault) << 1 | 1; // F = 1, FST, S = 0 (stage 1), PTW = 0
  }
}

void sys_op(Core& c, uint64_t insn) {
  Fields f(insn);
  uint64_t va = xreg(c, f.rt);
  bool el0 = c.el() == 0;
  auto trap = [&] { c.raise_trap(kEcSysTrap, sys_iss(1, f.op1, f.crn, f.crm, f.op2, f.rt, false)); };
  if (f.op1 == 0 && f.crn == 7) {
    if (el0) return c.raise_undefined();
    if (f.crm == 1 && f.op2 == 0) { // IC IALLUIS
      // Cores of a group share one translation cache: checking it once covers them all.
      if (c.group)
        for (Core* o : c.group->cores())
          if (o != &c && o->jit() != c.jit()) o->icache_invalidate();
      return c.icache_invalidate();
    }
    if (f.crm == 5 && f.op2 == 0) return c.icache_invalidate(); // IC IALLU
    if (f.crm == 6 && f.op2 == 1) return cache_maint(c, va, true); // DC IVAC
    if ((f.crm == 6 || f.crm == 10 || f.crm == 14) && f.op2 == 2) return; // DC ISW/CSW/CISW: no caches
    if (f.crm == 8 && f.op2 < 4) return address_translate(c, f.op2, va);
    return c.raise_undefined();
  }
  if (f.op1 == 0 && f.crn == 8) {
    if (el0) return c.raise_undefined();
    bool known = f.op2 <= 3 || f.op2 == 5 || f.op2 == 7;
    if (!known || (f.crm != 3 && f.crm != 7)) return c.raise_undefined();
    // By VA (op2 1, 3, 5, 7: any ASID, last level or not, all drop the page's entries) or everything (by
    // ASID too: the TLB keeps no ASIDs); the Inner Shareable forms (CRm = 3) on every core of the group.
    // The operand's bits 43:0 are VA bits 55:12.
    const bool by_va = f.op2 & 1;
    const uint64_t page = va << 12;
    if (f.crm == 3 && c.group) return by_va ? c.group->flush_tlbs_va(c, page) : c.group->flush_tlbs(c);
    return by_va ? c.flush_tlb_va(page) : c.flush_tlb();
  }
  if (f.op1 == 3 && f.crn == 7) {
    if (f.crm == 4 && f.op2 == 1) { // DC ZVA
      if (el0 && !(c.sys.sctlr >> 14 & 1)) return trap();
      return c.zero_block(va);
    }
    bool ivau = f.crm == 5 && f.op2 == 1;
    bool by_va = ivau || (f.op2 == 1 && (f.crm == 10 || f.crm == 11 || f.crm == 14)); // CVAC, CVAU, CIVAC
    if (!by_va) return c.raise_undefined();
    if (el0 && !(c.sys.sctlr >> 26 & 1)) return trap();
    cache_maint(c, va, false);
    if (ivau && !c.EXC) c.icache_invalidate_va(va);
    return;
  }
  c.raise_undefined();
}

void msr_imm(Core& c, uint64_t insn) {
  Fields f(insn);
  if (f.op1 == 0 && f.op2 == 5) { // SPSel
    if (c.el() == 0) return c.raise_undefined();
    c.set_sp_sel(1, f.crm & 1);
    return;
  }
  if (f.op1 == 3 && (f.op2 == 6 || f.op2 == 7)) { // DAIFSet, DAIFClr
    if (c.el() == 0 && !(c.sys.sctlr >> 9 & 1))
      return c.raise_trap(kEcSysTrap, sys_iss(0, f.op1, 4, f.crm, f.op2, 31, false));
    uint32_t bits = f.crm << 6;
    c.set_daif(f.op2 == 6 ? (c.daif() | bits) : (c.daif() & ~bits));
    return;
  }
  c.raise_undefined(); // PM and the other PSTATE fields are not implemented
}

void system_instruction(Core& c, uint64_t word) {
  if (word < 0x10000) return c.raise_undefined(); // DCPSn: not in Debug state
  if (word == 0xd69f03e0) return c.eret();
  if (word == 0xd6bf03e0) return c.raise_undefined(); // DRPS: not in Debug state
  Fields f(word);
  bool sysl = word >> 21 & 1;
  if (f.op0 == 0 && f.crn == 4 && !sysl) return msr_imm(c, word);
  if (f.op0 == 1 && !sysl) return sys_op(c, word);
  c.raise_undefined(); // SYSL: nothing is allocated in Armv8.0
}

} // namespace

void check_alignment(State& s, uint64_t addr, uint64_t size) {
  if (addr & (size - 1)) core_of(s).raise(Exception::Alignment, addr);
}

void raise_exception(State& s, uint64_t kind, uint64_t syndrome) {
  auto& c = core_of(s);
  auto e = static_cast<Exception>(kind);
  if (e == Exception::System) return system_instruction(c, syndrome);
  c.exception_syndrome = static_cast<uint32_t>(syndrome);
  if (!c.config.system) return c.raise(e); // user level: stop with the kind
  switch (e) {
  case Exception::SupervisorCall:
  case Exception::Breakpoint: return c.raise(e);
  case Exception::SecureMonitorCall:
    // SMC at EL1 goes to the platform's firmware (PSCI); there is no EL3 to take it otherwise.
    if (c.el() == 1 && c.hooks && c.hooks->firmware_call(c)) return;
    return c.raise_undefined();
  default: return c.raise_undefined(); // HVC (no EL2), HLT (halting debug disabled)
  }
}

uint64_t sysreg_read(State& s, uint64_t insn) {
  auto& c = core_of(s);
  Fields f(insn);
  uint32_t enc = f.enc();
  if (f.op0 == 3 && f.op1 == 0 && f.crn == 0 && f.crm >= 1) { // the ID register space
    if (c.el() == 0) {
      c.raise_undefined();
      return 0;
    }
    return id_register(f.crm, f.op2);
  }
  if (uint64_t* bank = debug_bank(c, f)) {
    if (c.el() == 0) {
      c.raise_undefined();
      return 0;
    }
    return *bank;
  }
  const RegDef* r = find_reg(enc);
  if (!r || !(r->access & R)) {
    c.raise_undefined();
    return 0;
  }
  if (!el0_allowed(c, f, r->el0, true)) return 0;
  auto& sr = c.sys;
  TimerReg t;
  if (timer_id(r->id, t)) {
    if (!c.hooks) {
      c.raise_undefined();
      return 0;
    }
    return c.hooks->timer_read(c, t);
  }
  switch (r->id) {
  case Id::Midr: return c.config.midr;
  case Id::Mpidr: return c.config.mpidr | 1ull << 31;
  case Id::Revidr: return c.config.revidr;
  case Id::Ccsidr: return ccsidr(sr.csselr);
  case Id::Clidr: return 0x0A200023; // L1 I+D, L2 unified; LoUIS 1, LoC 2, LoUU 1
  case Id::Aidr: return 0;
  case Id::Csselr: return sr.csselr;
  case Id::Ctr:
    return kCtr;
  case Id::Dczid: // DZP says whether DC ZVA is prohibited at this EL
    return kDczid | uint64_t(c.el() == 0 && !(sr.sctlr >> 14 & 1)) << 4;
  case Id::Sctlr: return sr.sctlr;
  case Id::Actlr: return 0;
  case Id::Cpacr: return sr.cpacr;
  case Id::Ttbr0: return sr.ttbr0;
  case Id::Ttbr1: return sr.ttbr1;
  case Id::Tcr: return sr.tcr;
  case Id::Spsr: return sr.spsr;
  case Id::Elr: return sr.elr;
  case Id::SpEl0:
    if (c.spsel() == 0) break; // UNDEFINED while SP_EL0 is the current stack pointer
    return c.get_sp_el0();
  case Id::SpSel: return c.spsel();
  case Id::CurrentEl: return uint64_t(c.el()) << 2;
  case Id::Daif: return c.daif();
  case Id::Afsr0: return sr.afsr0;
  case Id::Afsr1: return sr.afsr1;
  case Id::Esr: return sr.esr;
  case Id::Far: return sr.far;
  case Id::Par: return sr.par;
  case Id::Mair: return sr.mair;
  case Id::Amair: return sr.amair;
  case Id::Vbar: return sr.vbar;
  case Id::Contextidr: return sr.contextidr;
  case Id::TpidrEl1: return sr.tpidr_el1;
  case Id::TpidrEl0: return c.tpidr_el0;
  case Id::TpidrroEl0: return sr.tpidrro_el0;
  case Id::Cntkctl: return sr.cntkctl;
  case Id::Cntfrq: return c.config.cntfrq;
  case Id::Mdscr: return sr.mdscr;
  case Id::Oslsr: return 1u << 3 | sr.oslsr_oslk << 1; // OSLM = 0b10: OS lock implemented
  case Id::Osdlr: return sr.osdlr;
  case Id::Mdccint: return sr.mdccint;
  case Id::Dbgprcr: return sr.dbgprcr;
  case Id::DbgclaimSet: return 0xff; // eight claim tag bits implemented
  case Id::DbgclaimClr: return sr.dbgclaim;
  case Id::Dbgauthstatus: return 0; // no debug authentication signals enabled
  case Id::Mdrar: return 0;        // no memory-mapped debug components
  case Id::Oseccr: return sr.oseccr;
  case Id::Osdtrrx:
  case Id::Osdtrtx: return 0;
  default: break;
  }
  c.raise_undefined();
  return 0;
}

void sysreg_write(State& s, uint64_t insn, uint64_t value) {
  auto& c = core_of(s);
  Fields f(insn);
  uint32_t enc = f.enc();
  if (uint64_t* bank = debug_bank(c, f)) {
    if (c.el() == 0) return c.raise_undefined();
    *bank = value;
    return;
  }
  const RegDef* r = find_reg(enc);
  if (!r || !(r->access & W)) return c.raise_undefined();
  if (!el0_allowed(c, f, r->el0, false)) return;
  auto& sr = c.sys;
  TimerReg t;
  if (timer_id(r->id, t)) {
    if (!c.hooks) return c.raise_undefined();
    return c.hooks->timer_write(c, t, value);
  }
  switch (r->id) {
  case Id::Csselr: sr.csselr = value & 0xf; return;
  case Id::Sctlr: return c.write_sctlr(value);
  case Id::Actlr: return;
  case Id::Cpacr: return c.write_cpacr(value);
  case Id::Ttbr0:
  case Id::Ttbr1:
  case Id::Tcr: {
    uint64_t& reg = r->id == Id::Ttbr0 ? sr.ttbr0 : r->id == Id::Ttbr1 ? sr.ttbr1 : sr.tcr;
    // The TLB holds no ASID tags: any change of the translation base, ASID or control drops it.
    if (reg != value) c.flush_tlb();
    reg = value;
    return;
  }
  case Id::Spsr: sr.spsr = value & 0xf03003ff; return; // NZCV, SS, IL, DAIF, M[4:0] (no AArch32 bits)
  case Id::Elr: sr.elr = value; return;
  case Id::SpEl0:
    if (c.spsel() == 0) break;
    return c.set_sp_el0(value);
  case Id::SpSel: return c.set_sp_sel(c.el(), value & 1);
  case Id::Daif: return c.set_daif(static_cast<uint32_t>(value));
  case Id::Afsr0: sr.afsr0 = value; return;
  case Id::Afsr1: sr.afsr1 = value; return;
  case Id::Esr: sr.esr = value & 0xffffffff; return;
  case Id::Far: sr.far = value; return;
  case Id::Par: sr.par = value; return;
  case Id::Mair: sr.mair = value; return;
  case Id::Amair: sr.amair = value; return;
  case Id::Vbar: sr.vbar = value & ~0x7ffull; return;
  case Id::Contextidr: sr.contextidr = value & 0xffffffff; return;
  case Id::TpidrEl1: sr.tpidr_el1 = value; return;
  case Id::TpidrEl0: c.tpidr_el0 = value; return;
  case Id::TpidrroEl0: sr.tpidrro_el0 = value; return;
  case Id::Cntkctl: sr.cntkctl = value & 0x3ff; return;
  case Id::Cntfrq: c.config.cntfrq = value & 0xffffffff; return;
  case Id::Mdscr: sr.mdscr = value & 0xffffffff; return;
  case Id::Oslar: sr.oslsr_oslk = value & 1; return;
  case Id::Osdlr: sr.osdlr = value & 1; return;
  case Id::Mdccint: sr.mdccint = value & 0xffffffff; return;
  case Id::Dbgprcr: sr.dbgprcr = value & 1; return;
  case Id::DbgclaimSet: sr.dbgclaim |= value & 0xff; return;
  case Id::DbgclaimClr: sr.dbgclaim &= ~(value & 0xff); return;
  case Id::Oseccr: sr.oseccr = value & 0xffffffff; return;
  case Id::Osdtrrx:
  case Id::Osdtrtx: return;
  default: break;
  }
  c.raise_undefined();
}


std::string sysreg_name(uint64_t write, uint64_t op0, uint64_t op1, uint64_t crn, uint64_t crm, uint64_t op2) {
  uint32_t enc = S(static_cast<unsigned>(op0), static_cast<unsigned>(op1), static_cast<unsigned>(crn),
                   static_cast<unsigned>(crm), static_cast<unsigned>(op2));
  unsigned need = write ? W : R;
  for (const auto& r : kSysRegs)
    if (r.enc == enc && (r.access & need)) return r.name;
  char b[32];
  std::snprintf(b, sizeof b, "S%u_%u_C%u_C%u_%u", unsigned(op0), unsigned(op1), unsigned(crn), unsigned(crm),
                unsigned(op2));
  return b;
}

std::string sys_text(uint64_t op1, uint64_t crn, uint64_t crm, uint64_t op2, uint64_t rt) {
  std::string reg = rt == 31 ? "xzr" : "x" + std::to_string(rt);
  for (const auto& a : kSysAliases) {
    if (a.op1 != op1 || a.crn != crn || a.crm != crm || a.op2 != op2) continue;
    return a.has_reg ? std::string(a.text) + ", " + reg : a.text;
  }
  char b[48];
  std::snprintf(b, sizeof b, "sys #%u, c%u, c%u, #%u", unsigned(op1), unsigned(crn), unsigned(crm), unsigned(op2));
  return rt == 31 ? std::string(b) : b + (", " + reg);
}

} // namespace vplat::gen::aarch64

namespace vplat::cpu {

PlainSysreg plain_sysreg_access(uint32_t insn, unsigned el, bool read) {
  using namespace vplat::gen::aarch64;
  using What = PlainSysreg::What;
  const Fields f(insn);
  if (f.op0 != 3 || (f.op1 == 0 && f.crn == 0 && f.crm >= 1)) return {}; // debug registers, the ID space
  const RegDef* r = find_reg(f.enc());
  if (!r || !(r->access & (read ? R : W))) return {};
  // At EL0 only the rules that allow the access whatever the control registers say (traps and UNDEFINED
  // are the helpers' to raise).
  if (el == 0 && r->el0 != El0::Yes && !(r->el0 == El0::ReadOnly && read)) return {};
  switch (r->id) {
  case Id::TpidrEl0:
    return {What::kTpidrEl0};
  case Id::TpidrEl1:
    return {What::kTpidrEl1};
  case Id::TpidrroEl0:
    return {What::kTpidrroEl0};
  case Id::SpEl0:
    return {el == 1 ? What::kSpEl0 : What::kCall};
  case Id::Ctr:
    return {What::kConstant, kCtr};
  case Id::Dczid:
    return el == 0 ? PlainSysreg{} : PlainSysreg{What::kConstant, kDczid}; // DZP at EL0 only
  default:
    return {};
  }
}

} // namespace vplat::cpu
