// Arm-exact IEEE 754 floating point for the AArch64 interpreter.
//
// Every function mirrors the Arm ARM pseudocode of the same name (FPAdd, FPMulAdd, FPConvert, FPToFixed,
// FPRecipEstimate, ...) with FPCR.AH == 0 semantics, bit for bit, including NaN propagation order,
// default-NaN mode, flush-to-zero of inputs (IDC) and outputs (UFC), tininess detected before rounding, and
// the cumulative exception flags.  Values are raw bit patterns: uint16_t = half, uint32_t = single, uint64_t
// = double.
//
// Calling convention shared by all operations:
//   fpcr  - the AArch64 FPCR value (AHP 26, DN 25, FZ 24, RMode 23:22, FZ16 19; other bits ignored).
//   fpsr  - flags are ORed into it (IOC 0, DZC 1, OFC 2, UFC 3, IXC 4, IDC 7); never cleared.
// The implementation is integer soft-float: no host FP state is touched, there is no global mutable state,
// and all functions are thread-safe and reentrant.
//
// Half-precision arithmetic (FEAT_FP16) is available through the `*16` variants; it honours FPCR.FZ16 instead
// of FPCR.FZ, as the architecture does.
#pragma once

#include <cstdint>

namespace vplat::fp {

// FPSR cumulative exception bits.
inline constexpr uint32_t kIOC = 1u << 0;
inline constexpr uint32_t kDZC = 1u << 1;
inline constexpr uint32_t kOFC = 1u << 2;
inline constexpr uint32_t kUFC = 1u << 3;
inline constexpr uint32_t kIXC = 1u << 4;
inline constexpr uint32_t kIDC = 1u << 7;

// FPCR control bits.
inline constexpr uint32_t kFPCR_AHP = 1u << 26;
inline constexpr uint32_t kFPCR_DN = 1u << 25;
inline constexpr uint32_t kFPCR_FZ = 1u << 24;
inline constexpr uint32_t kFPCR_RMODE_SHIFT = 22;
inline constexpr uint32_t kFPCR_FZ16 = 1u << 19;

// Values 0..3 equal FPCR.RMode, so `Rounding(fpcr >> 22 & 3)` is the FPCR mode.
enum class Rounding : uint8_t {
  TieEven = 0, // RN
  PosInf = 1,  // RP
  NegInf = 2,  // RM
  Zero = 3,    // RZ
  TieAway = 4, // FCVTA*, FRINTA only
  Odd = 5,     // FCVTXN only
};

constexpr Rounding fpcr_rounding(uint32_t fpcr) {
  return static_cast<Rounding>((fpcr >> kFPCR_RMODE_SHIFT) & 3);
}

// ---- classification (pure bit tests, no flags) ------------------------------------------------------------
constexpr bool is_nan16(uint16_t v) {
  return (v & 0x7C00) == 0x7C00 && (v & 0x03FF) != 0;
}
constexpr bool is_nan32(uint32_t v) {
  return (v & 0x7F800000u) == 0x7F800000u && (v & 0x007FFFFFu) != 0;
}
constexpr bool is_nan64(uint64_t v) {
  return (v & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (v & 0x000FFFFFFFFFFFFFull) != 0;
}
constexpr bool is_snan16(uint16_t v) {
  return is_nan16(v) && !(v & 0x0200);
}
constexpr bool is_snan32(uint32_t v) {
  return is_nan32(v) && !(v & 0x00400000u);
}
constexpr bool is_snan64(uint64_t v) {
  return is_nan64(v) && !(v & 0x0008000000000000ull);
}
constexpr bool is_inf32(uint32_t v) {
  return (v & 0x7FFFFFFFu) == 0x7F800000u;
}
constexpr bool is_inf64(uint64_t v) {
  return (v & 0x7FFFFFFFFFFFFFFFull) == 0x7FF0000000000000ull;
}
constexpr bool is_zero32(uint32_t v) {
  return (v & 0x7FFFFFFFu) == 0;
}
constexpr bool is_zero64(uint64_t v) {
  return (v & 0x7FFFFFFFFFFFFFFFull) == 0;
}
constexpr bool is_denormal32(uint32_t v) {
  return (v & 0x7F800000u) == 0 && (v & 0x007FFFFFu) != 0;
}
constexpr bool is_denormal64(uint64_t v) {
  return (v & 0x7FF0000000000000ull) == 0 && (v & 0x000FFFFFFFFFFFFFull) != 0;
}

inline constexpr uint16_t kDefaultNaN16 = 0x7E00;
inline constexpr uint32_t kDefaultNaN32 = 0x7FC00000u;
inline constexpr uint64_t kDefaultNaN64 = 0x7FF8000000000000ull;

// ---- arithmetic: FPAdd, FPSub, FPMul, FPDiv, FPMulX, FPSqrt, FPMax/Min(Num)
// ---------------------------------
#define VPLAT_FP_BINARY(name)                                                                                \
  uint16_t name##16(uint16_t a, uint16_t b, uint32_t fpcr, uint32_t & fpsr);                                 \
  uint32_t name##32(uint32_t a, uint32_t b, uint32_t fpcr, uint32_t & fpsr);                                 \
  uint64_t name##64(uint64_t a, uint64_t b, uint32_t fpcr, uint32_t & fpsr);
VPLAT_FP_BINARY(add)
VPLAT_FP_BINARY(sub)
VPLAT_FP_BINARY(mul)
VPLAT_FP_BINARY(div)
VPLAT_FP_BINARY(mulx)   // FMULX: (+-inf) * (+-0) = +-2.0
VPLAT_FP_BINARY(max)    // FMAX
VPLAT_FP_BINARY(min)    // FMIN
VPLAT_FP_BINARY(maxnum) // FMAXNM: a single quiet NaN operand is ignored
VPLAT_FP_BINARY(minnum) // FMINNM
VPLAT_FP_BINARY(recps)  // FRECPS: 2 - a*b, fused
VPLAT_FP_BINARY(rsqrts) // FRSQRTS: (3 - a*b) / 2, fused
#undef VPLAT_FP_BINARY

// FPMulAdd: addend + a*b with a single rounding.  FMADD d = muladd(Ra, Rn, Rm); FMSUB negates a, FNMADD
// negates addend and a, FNMSUB negates addend (negation = sign-bit flip applied before the call, NaNs too).
uint16_t muladd16(uint16_t addend, uint16_t a, uint16_t b, uint32_t fpcr, uint32_t& fpsr);
uint32_t muladd32(uint32_t addend, uint32_t a, uint32_t b, uint32_t fpcr, uint32_t& fpsr);
uint64_t muladd64(uint64_t addend, uint64_t a, uint64_t b, uint32_t fpcr, uint32_t& fpsr);

uint16_t sqrt16(uint16_t a, uint32_t fpcr, uint32_t& fpsr);
uint32_t sqrt32(uint32_t a, uint32_t fpcr, uint32_t& fpsr);
uint64_t sqrt64(uint64_t a, uint32_t fpcr, uint32_t& fpsr);

// ---- estimates: FPRecipEstimate, FPRSqrtEstimate, FPRecpX, UnsignedRecipEstimate, UnsignedRSqrtEstimate ---
uint16_t recpe16(uint16_t a, uint32_t fpcr, uint32_t& fpsr);
uint32_t recpe32(uint32_t a, uint32_t fpcr, uint32_t& fpsr);
uint64_t recpe64(uint64_t a, uint32_t fpcr, uint32_t& fpsr);
uint16_t rsqrte16(uint16_t a, uint32_t fpcr, uint32_t& fpsr);
uint32_t rsqrte32(uint32_t a, uint32_t fpcr, uint32_t& fpsr);
uint64_t rsqrte64(uint64_t a, uint32_t fpcr, uint32_t& fpsr);
uint16_t recpx16(uint16_t a, uint32_t fpcr, uint32_t& fpsr);
uint32_t recpx32(uint32_t a, uint32_t fpcr, uint32_t& fpsr);
uint64_t recpx64(uint64_t a, uint32_t fpcr, uint32_t& fpsr);
uint32_t urecpe(uint32_t a);  // URECPE, one 32-bit lane
uint32_t ursqrte(uint32_t a); // URSQRTE, one 32-bit lane

// ---- comparisons
// ------------------------------------------------------------------------------------------- FCMP/FCMPE:
// returns NZCV in bits 3:0 (unordered 0b0011, equal 0b0110, less 0b1000, greater 0b0010). `signalling`
// (FCMPE) raises IOC for any NaN; otherwise only for signalling NaNs.
uint32_t cmp16(uint16_t a, uint16_t b, bool signalling, uint32_t fpcr, uint32_t& fpsr);
uint32_t cmp32(uint32_t a, uint32_t b, bool signalling, uint32_t fpcr, uint32_t& fpsr);
uint32_t cmp64(uint64_t a, uint64_t b, bool signalling, uint32_t fpcr, uint32_t& fpsr);
// FPCompareEQ (IOC only for sNaN), FPCompareGE / FPCompareGT (IOC for any NaN); a >= b, a > b.
bool cmp_eq16(uint16_t a, uint16_t b, uint32_t fpcr, uint32_t& fpsr);
bool cmp_eq32(uint32_t a, uint32_t b, uint32_t fpcr, uint32_t& fpsr);
bool cmp_eq64(uint64_t a, uint64_t b, uint32_t fpcr, uint32_t& fpsr);
bool cmp_ge16(uint16_t a, uint16_t b, uint32_t fpcr, uint32_t& fpsr);
bool cmp_ge32(uint32_t a, uint32_t b, uint32_t fpcr, uint32_t& fpsr);
bool cmp_ge64(uint64_t a, uint64_t b, uint32_t fpcr, uint32_t& fpsr);
bool cmp_gt16(uint16_t a, uint16_t b, uint32_t fpcr, uint32_t& fpsr);
bool cmp_gt32(uint32_t a, uint32_t b, uint32_t fpcr, uint32_t& fpsr);
bool cmp_gt64(uint64_t a, uint64_t b, uint32_t fpcr, uint32_t& fpsr);

// ---- FPRoundInt (FRINTN/A/P/M/Z with an explicit mode, FRINTI/X with fpcr_rounding(fpcr))
// ------------------- `exact` (FRINTX) raises IXC when the result differs from the input.
uint16_t round_int16(uint16_t a, Rounding rm, bool exact, uint32_t fpcr, uint32_t& fpsr);
uint32_t round_int32(uint32_t a, Rounding rm, bool exact, uint32_t fpcr, uint32_t& fpsr);
uint64_t round_int64(uint64_t a, Rounding rm, bool exact, uint32_t fpcr, uint32_t& fpsr);

// ---- FPConvert between formats (FCVT), rounding per FPCR.  Half-precision sides honour FPCR.AHP;
// FPCR.FZ applies to single/double sides only, FPCR.FZ16 is ignored, as in FPUnpackCV / FPRoundCV.
uint32_t f16_to_f32(uint16_t a, uint32_t fpcr, uint32_t& fpsr);
uint64_t f16_to_f64(uint16_t a, uint32_t fpcr, uint32_t& fpsr);
uint16_t f32_to_f16(uint32_t a, uint32_t fpcr, uint32_t& fpsr);
uint64_t f32_to_f64(uint32_t a, uint32_t fpcr, uint32_t& fpsr);
uint16_t f64_to_f16(uint64_t a, uint32_t fpcr, uint32_t& fpsr);
uint32_t f64_to_f32(uint64_t a, uint32_t fpcr, uint32_t& fpsr);
uint32_t f64_to_f32_odd(uint64_t a, uint32_t fpcr, uint32_t& fpsr); // FCVTXN: round to odd

// ---- FPToFixed: float -> integer (FCVT{N,A,P,M,Z}{S,U} and fixed-point FCVTZ*)
// -------------------------------- Result is the integer's bit pattern, zero-extended to 64 bits when
// int_bits == 32.  `fbits` (0..64, and
// <= int_bits) scales by 2^fbits first.  Saturates and raises IOC on overflow and on NaN (NaN gives 0).
uint64_t f16_to_int(uint16_t a, unsigned int_bits, bool is_unsigned, unsigned fbits, Rounding rm,
                    uint32_t fpcr, uint32_t& fpsr);
uint64_t f32_to_int(uint32_t a, unsigned int_bits, bool is_unsigned, unsigned fbits, Rounding rm,
                    uint32_t fpcr, uint32_t& fpsr);
uint64_t f64_to_int(uint64_t a, unsigned int_bits, bool is_unsigned, unsigned fbits, Rounding rm,
                    uint32_t fpcr, uint32_t& fpsr);

// ---- FixedToFP: integer -> float (SCVTF/UCVTF), rounding per FPCR
// ---------------------------------------------- `a` holds the integer in its low int_bits bits (32 or 64);
// the value is divided by 2^fbits.
uint16_t int_to_f16(uint64_t a, unsigned int_bits, bool is_unsigned, unsigned fbits, uint32_t fpcr,
                    uint32_t& fpsr);
uint32_t int_to_f32(uint64_t a, unsigned int_bits, bool is_unsigned, unsigned fbits, uint32_t fpcr,
                    uint32_t& fpsr);
uint64_t int_to_f64(uint64_t a, unsigned int_bits, bool is_unsigned, unsigned fbits, uint32_t fpcr,
                    uint32_t& fpsr);

} // namespace vplat::fp
