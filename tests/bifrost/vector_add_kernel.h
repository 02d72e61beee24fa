// The vector-add shader the Bifrost tests share (shader_test.cpp on lone workgroups, compute_fixture.h as a
// complete compute job): out[i] = a[i] + b[i] (f32), i = the global invocation id x (r60); the array bases
// are uniforms 0..2 (64-bit GPU addresses). Clause 1 computes the byte offset and the three addresses
// (r1/r2/r3, low words; the high words are uniform 0's, which all buffers share); clause 2 loads a[i]; clause
// 3 loads b[i]; clause 4 adds and stores. The address arithmetic ignores carries into the high word (the
// buffers sit below 4 GiB), as a 32-bit IADD would.
#pragma once
#include <string>
#include <vector>

inline std::vector<std::string> vector_add_clauses() {
  return {R"(
header flow=3
tuple p0=r60 fau=c0 ; *LSHIFT_OR.i32 src0=0 src1=3 src2=4 not1=1 ; +NOP ; fma->r0
tuple fau=u0 ; *NOP ; +IADD.s32 src0=6 src1=4 ; add->r1
tuple p0=r0 fau=u1 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r2
tuple p0=r0 fau=u2 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r3
const 0x2
)",
          "header flow=3 sr=10 msg=5\ntuple p0=r1 fau=u0 ; *NOP ; +LOAD.i32 src0=0 src1=5 seg=1",
          "header flow=3 sr=11 msg=5\ntuple p0=r2 fau=u0 ; *NOP ; +LOAD.i32 src0=0 src1=5 seg=1", R"(
header sr=12 msg=6
tuple p0=r10 p1=r11 ; *FADD.f32 src0=0 src1=1 ; +NOP ; fma->r12
tuple ; *NOP ; +NOP
tuple p0=r3 fau=u0 ; *NOP ; +STORE.i32 src0=0 src1=5 seg=1
)"};
}
