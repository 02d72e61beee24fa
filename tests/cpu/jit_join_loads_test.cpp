// The first tier's pass that loads registers stored on every path into a join from a phi of the stored
// values (cpu-dbt/jit_join_loads.h): which loads it replaces, which it must leave, and that the function
// computes what it did.
#include "cpu-dbt/jit_join_loads.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <string>

namespace {

// %s is the state (registers at 64 and 72, flags as bytes at 272-275), %m guest memory. Six joins, each
// after a branch on a bit of %c; the loads at the top of each join are what is tested. `clobber` writes the
// register at 64 (a helper that takes the state).
const char* const kFunction = R"(define void @clobber_NAME(ptr %s) noinline {
  %r = getelementptr inbounds i8, ptr %s, i64 64
  store i64 99, ptr %r
  ret void
}

define i64 @NAME(ptr %s, ptr %m, i64 %a, i64 %c) {
entry:
  %c0 = trunc i64 %c to i1
  br i1 %c0, label %a0, label %b0
a0:                              ; 0: each way stores the register (64 bits), then a guest store
  %p0a = getelementptr inbounds i8, ptr %s, i64 64
  store i64 %a, ptr %p0a, !alias.scope !1
  br label %j0
b0:
  %p0b = getelementptr inbounds i8, ptr %s, i64 64
  %a1 = add i64 %a, 4294967297
  store i64 %a1, ptr %p0b, !alias.scope !1
  store i64 %a, ptr %m, !noalias !1
  br label %j0
j0:                              ; a 32-bit load through a phi of the addresses, after a store to another
  %p0 = phi ptr [ %p0a, %a0 ], [ %p0b, %b0 ] ; register and a guest store: replaced
  %q0 = getelementptr inbounds i8, ptr %s, i64 72
  store i64 %c, ptr %q0, !alias.scope !1
  store i64 %c, ptr %m, !noalias !1
  %v0 = load i32, ptr %p0, !alias.scope !1
  %v0z = zext i32 %v0 to i64
  %c1s = lshr i64 %c, 1
  %c1 = trunc i64 %c1s to i1
  br i1 %c1, label %a1b, label %b1
a1b:                             ; 1: a call that may write the register after one way's store: left
  %p1a = getelementptr inbounds i8, ptr %s, i64 64
  store i64 %a, ptr %p1a, !alias.scope !1
  call void @clobber_NAME(ptr %s)
  br label %j1
b1:
  %p1b = getelementptr inbounds i8, ptr %s, i64 64
  store i64 7, ptr %p1b, !alias.scope !1
  br label %j1
j1:
  %p1 = getelementptr inbounds i8, ptr %s, i64 64
  %v1 = load i64, ptr %p1, !alias.scope !1
  %c2s = lshr i64 %c, 2
  %c2 = trunc i64 %c2s to i1
  br i1 %c2, label %a2, label %b2
a2:                              ; 2: a store that overlaps part of the register after one way's: left
  %p2a = getelementptr inbounds i8, ptr %s, i64 72
  store i64 %a, ptr %p2a, !alias.scope !1
  %p2o = getelementptr inbounds i8, ptr %s, i64 76
  store i32 5, ptr %p2o, !alias.scope !1
  br label %j2
b2:
  %p2b = getelementptr inbounds i8, ptr %s, i64 72
  store i64 8, ptr %p2b, !alias.scope !1
  br label %j2
j2:
  %p2 = getelementptr inbounds i8, ptr %s, i64 72
  %v2 = load i64, ptr %p2, !alias.scope !1
  %c3s = lshr i64 %c, 3
  %c3 = trunc i64 %c3s to i1
  br i1 %c3, label %a3, label %b3
a3:                              ; 3: flags stored as bytes on both ways (a conditional compare): replaced
  %n3a = getelementptr inbounds i8, ptr %s, i64 272
  %a3t = trunc i64 %a to i8
  %a3b = and i8 %a3t, 1
  store i8 %a3b, ptr %n3a, !alias.scope !1
  br label %j3
b3:
  %n3b = getelementptr inbounds i8, ptr %s, i64 272
  store i8 0, ptr %n3b, !alias.scope !1
  br label %j3
j3:
  %n3 = getelementptr inbounds i8, ptr %s, i64 272
  %v3 = load i8, ptr %n3, !alias.scope !1
  %v3z = zext i8 %v3 to i64
  %c4s = lshr i64 %c, 4
  %c4 = trunc i64 %c4s to i1
  br i1 %c4, label %a4, label %b4
a4:                              ; 4: one way stored two blocks up (a guest load between): replaced
  %p4a = getelementptr inbounds i8, ptr %s, i64 72
  %a4v = mul i64 %a, 3
  store i64 %a4v, ptr %p4a, !alias.scope !1
  br label %a4m
a4m:
  %g = load i64, ptr %m, !noalias !1
  br label %j4
b4:
  %p4b = getelementptr inbounds i8, ptr %s, i64 72
  store i64 %c, ptr %p4b, !alias.scope !1
  br label %j4
j4:
  %gp = phi i64 [ %g, %a4m ], [ 0, %b4 ]
  %p4 = getelementptr inbounds i8, ptr %s, i64 72
  %v4 = load i64, ptr %p4, !alias.scope !1
  %c5s = lshr i64 %c, 5
  %c5 = trunc i64 %c5s to i1
  br i1 %c5, label %a5, label %b5
a5:                              ; 5: both ways store the register, but the join stores part of it first:
  %p5a = getelementptr inbounds i8, ptr %s, i64 64 ; left
  store i64 %a, ptr %p5a, !alias.scope !1
  br label %j5
b5:
  %p5b = getelementptr inbounds i8, ptr %s, i64 64
  store i64 %c, ptr %p5b, !alias.scope !1
  br label %j5
j5:
  %q5 = getelementptr inbounds i8, ptr %s, i64 68
  store i32 3, ptr %q5, !alias.scope !1
  %p5 = getelementptr inbounds i8, ptr %s, i64 64
  %v5 = load i64, ptr %p5, !alias.scope !1
  %r0 = add i64 %v0z, %v1
  %r1 = mul i64 %r0, 31
  %r2 = add i64 %r1, %v2
  %r3 = mul i64 %r2, 31
  %r4 = add i64 %r3, %v3z
  %r5 = mul i64 %r4, 31
  %r6 = add i64 %r5, %v4
  %r7 = add i64 %r6, %gp
  %r8 = mul i64 %r7, 31
  %r9 = add i64 %r8, %v5
  ret i64 %r9
}

!0 = distinct !{!0, !"registers domain"}
!1 = !{!2}
!2 = distinct !{!2, !0, !"registers"}
)";

std::string function(const std::string& name) {
  std::string ir = kFunction;
  for (size_t at; (at = ir.find("NAME")) != std::string::npos;) ir.replace(at, 4, name);
  return ir;
}

void run_pass(llvm::Function& f) {
  vplat::test::run_function_pass<vplat::cpu::ForwardStoresToJoins>(f);
}

TEST(ForwardStoresToJoins, LoadsAfterJoinsComeFromWhatEachWayStored) {
  llvm::LLVMContext ctx;
  auto m = vplat::test::parse_ir(ctx, function("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  ASSERT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  auto loads_in = [&](const char* block) {
    unsigned n = 0;
    for (llvm::BasicBlock& bb : f)
      if (bb.getName() == block)
        for (llvm::Instruction& i : bb) n += llvm::isa<llvm::LoadInst>(i);
    return n;
  };
  EXPECT_EQ(loads_in("j0"), 0u); // 32 bits of the 64 stored, through a phi of addresses
  EXPECT_EQ(loads_in("j1"), 1u); // a call after one way's store
  EXPECT_EQ(loads_in("j2"), 1u); // an overlapping store after one way's
  EXPECT_EQ(loads_in("j3"), 0u); // flag bytes
  EXPECT_EQ(loads_in("j4"), 0u); // stored two blocks up, a guest load after it
  EXPECT_EQ(loads_in("j5"), 1u); // the join itself stored part of it first
}

// Both functions, as written and after the pass, run on the host for every way through them: the same
// result and the same state and memory after.
TEST(ForwardStoresToJoins, TheFunctionComputesWhatItDidBefore) {
  using Fn = uint64_t (*)(uint8_t*, uint64_t*, uint64_t, uint64_t);
  auto code = vplat::test::compile_before_and_after<Fn>(function, run_pass);
  ASSERT_TRUE(code.as_written && code.after_pass);
  for (uint64_t a : {0ull, 1ull, 0xfffffffeull, 0x123456789abcdef1ull})
    for (uint64_t c = 0; c < 64; ++c) {
      uint8_t want_state[512] = {}, got_state[512] = {};
      uint64_t want_mem = 11, got_mem = 11;
      const uint64_t want = code.as_written(want_state, &want_mem, a, c);
      const uint64_t got = code.after_pass(got_state, &got_mem, a, c);
      EXPECT_EQ(want, got) << std::hex << a << " " << c;
      EXPECT_EQ(0, std::memcmp(want_state, got_state, sizeof want_state)) << std::hex << a << " " << c;
      EXPECT_EQ(want_mem, got_mem);
    }
}

} // namespace
