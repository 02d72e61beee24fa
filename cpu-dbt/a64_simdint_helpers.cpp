// URECPE/URSQRTE estimates for archdesc/aarch64/simd_int.adl.
//
// archdesc/aarch64/fp_helpers.adl declares these helpers, and the FP glue (cpu-dbt/a64_fp_helpers.cpp,
// another group's branch) defines them. Until that file is on main these weak definitions let the SIMD
// integer group link and be tested on its own; once both are merged the strong definitions win and these
// can be deleted. Both forward to the same cpu-dbt/fp functions.
#include "aarch64_helpers.h"
#include "cpu-dbt/fp/arm_fp.h"

namespace vplat::gen::aarch64 {

__attribute__((weak)) uint64_t unsigned_recip_estimate(uint64_t a) { return fp::urecpe(uint32_t(a)); }
__attribute__((weak)) uint64_t unsigned_rsqrt_estimate(uint64_t a) { return fp::ursqrte(uint32_t(a)); }

} // namespace vplat::gen::aarch64
