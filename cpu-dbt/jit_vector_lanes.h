// Second-tier IR pass: vector register elements as vector operations.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// The description computes a SIMD instruction one element at a time (archdesc/aarch64 `lane` and
// `with_lane`), which the second tier emits as extractelement and insertelement on the 128-bit register seen
// as a vector (adljit::Ctx::vector_lanes). This pass runs LLVM's SLP vectorizer on the functions that contain
// such element operations, so that the sixteen byte compares of a CMEQ become one vector compare; functions
// without them (most) are left alone, at the cost of one scan.
struct VectorLanes : llvm::PassInfoMixin<VectorLanes> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
