// Small shaders over GPU memory: a vector add across several quads of a workgroup through the MMU, a divergent
// loop, and the faults a shader can raise (MMU fault on a bad address, INSTR_INVALID_ENC on an unknown encoding,
// an unreadable clause address) without touching host memory. Expected values are computed on the CPU here.
#include "bifrost_env.h"
#include "bifrost_isa.h"
#include "vector_add_kernel.h"
#include <cstring>

using namespace bifrost_test;

namespace {

uint32_t fbits(float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}

TEST(Shader, VectorAddOverGpuMemory) {
  GpuEnv env;
  uint64_t at = kCodeVa;
  for (const std::string& clause : vector_add_clauses())
    at = env.load_code(at, bifrost_asm::assemble(clause));
  constexpr unsigned n = 37; // not a multiple of 4: the last quad is partial
  uint64_t a = kDataVa, b = kDataVa + 0x1000, out = kDataVa + 0x2000;
  std::vector<float> fa(n), fb(n);
  for (unsigned i = 0; i < n; ++i) {
    fa[i] = 0.5f * i - 3.0f;
    fb[i] = 1.0f / (i + 1);
    env.write32(a + 4 * i, fbits(fa[i]));
    env.write32(b + 4 * i, fbits(fb[i]));
    env.write32(out + 4 * i, 0xdeadbeef);
  }
  env.write32(out + 4 * n, 0xdeadbeef);
  std::vector<uint64_t> uniforms = {a, b, out};
  ShaderCore::Workgroup wg;
  wg.entry = kCodeVa;
  wg.uniforms = uniforms.data();
  wg.uniform_count = 3;
  wg.size = {n, 1, 1};
  auto r = env.core->run_workgroup(wg);
  ASSERT_EQ(r.status, QuadResult::Status::Done) << r.error;
  for (unsigned i = 0; i < n; ++i) EXPECT_EQ(env.read32(out + 4 * i), fbits(fa[i] + fb[i])) << i;
  EXPECT_EQ(env.read32(out + 4 * n), 0xdeadbeefu); // the partial quad's missing lanes store nothing
  EXPECT_EQ(r.clauses, 4u * ((n + 3) / 4));
  // Each clause was decoded once; the other quads hit the cache.
  EXPECT_EQ(env.cache.stats().decodes, 4u);
}

// A workgroup of two quads exchanging data through memory: every thread first spins (global id + 1) times, so
// the second quad is late, then writes its slot, meets the others at a barrier and reads the slot four threads
// away. Without the barrier the first quad would read the second quad's slots before they are written; the
// test shows that too, by replacing +BARRIER with +NOP.
std::vector<uint32_t> run_exchange(bool with_barrier) {
  GpuEnv env;
  const std::string barrier = with_barrier ? "+BARRIER" : "+NOP";
  const char* prologue = "header flow=3\ntuple p0=r60 fau=c0 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r0\nconst 0x1\n";
  const char* spin = R"(
header flow=1
tuple p0=r0 fau=c1 ; *NOP ; +ISUB.s32 src0=0 src1=4 ; add->r0
tuple fau=c0 ; *NOP ; +BRANCHZ.i32 src0=7 src2=5 eq=0
const pchi 0
const 0x1
)";
  const char* write = R"(
header flow=3 sr=21 msg=6
tuple p0=r60 fau=c0 ; *LSHIFT_OR.i32 src0=0 src1=3 src2=4 not1=1 ; +IADD.s32 src0=0 src1=5 ; add->r21
tuple fau=u0 ; *NOP ; +IADD.s32 src0=6 src1=4
tuple fau=u0 ; *NOP ; +STORE.i32 src0=7 src1=5 seg=1
const 0x6400000002
)";
  std::string meet = "header flow=3 msg=8\ntuple ; *NOP ; " + barrier + "\n";
  const char* read = R"(
header flow=3 sr=23 msg=5
tuple p0=r60 fau=c0 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r24
tuple ; *NOP ; +NOP
tuple p0=r24 fau=c0 ; *LSHIFT_AND.i32 src0=0 src1=5 src2=3 not_result=1 ; +NOP
tuple fau=c1 ; *LSHIFT_OR.i32 src0=6 src1=3 src2=4 not1=1 ; +NOP
tuple fau=u0 ; *NOP ; +IADD.s32 src0=6 src1=4
tuple fau=u0 ; *NOP ; +LOAD.i32 src0=7 src1=5 seg=1
const 0x0000000700000004
const 0x2
)";
  const char* store = R"(
header sr=23 msg=6
tuple p0=r60 fau=c0 ; *LSHIFT_OR.i32 src0=0 src1=3 src2=4 not1=1 ; +NOP
tuple fau=u1 ; *NOP ; +IADD.s32 src0=6 src1=4
tuple fau=u1 ; *NOP ; +STORE.i32 src0=7 src1=5 seg=1
const 0x2
)";
  uint64_t at = kCodeVa;
  for (const std::string& c : {std::string(prologue), std::string(spin), std::string(write), meet, std::string(read),
                               std::string(store)})
    at = env.load_code(at, bifrost_asm::assemble(c));
  uint64_t slots = kDataVa, out = kDataVa + 0x100;
  std::vector<uint64_t> uniforms = {slots, out};
  ShaderCore::Workgroup wg;
  wg.entry = kCodeVa;
  wg.uniforms = uniforms.data();
  wg.uniform_count = 2;
  wg.size = {8, 1, 1};
  auto r = env.core->run_workgroup(wg);
  EXPECT_EQ(r.status, QuadResult::Status::Done) << r.error;
  std::vector<uint32_t> v;
  for (unsigned i = 0; i < 8; ++i) v.push_back(env.read32(out + 4 * i));
  return v;
}

TEST(Shader, BarrierOrdersAWorkgroupsQuads) {
  std::vector<uint32_t> want;
  for (unsigned i = 0; i < 8; ++i) want.push_back(((i + 4) & 7) + 100);
  EXPECT_EQ(run_exchange(true), want);
  EXPECT_NE(run_exchange(false), want); // the barrier is what makes it work
}

// A loop whose trip count differs per lane: r1 = r0 * 3 by repeated addition, r0 = lane's count. Lanes leave the
// loop at different times and wait at the exit until all have (lowest-PC-first scheduling).
TEST(Shader, DivergentLoopReconverges) {
  GpuEnv env;
  // The loop clause: r1 += 3 (constant 0's high word); r0 -= 1 (its low word); branch to itself while the
  // new r0 (the previous tuple's ADD result, t1) is not zero.
  const char* loop = R"(
header flow=1
tuple p0=r1 fau=c0 ; *NOP ; +IADD.s32 src0=0 src1=5 ; add->r1
tuple p0=r0 fau=c0 ; *NOP ; +ISUB.s32 src0=0 src1=4 ; add->r0
tuple fau=c1 ; *NOP ; +BRANCHZ.i32 src0=7 src2=5 eq=0
const 0x300000001
const pchi 0
)";
  const char* tail = R"(
tuple p0=r1 ; *MOV.i32 src0=0 ; +NOP ; fma->r2
)";
  uint64_t at = env.load_code(kCodeVa, bifrost_asm::assemble(loop));
  env.load_code(at, bifrost_asm::assemble(tail));
  QuadLaunch l;
  l.entry = kCodeVa;
  std::array<uint32_t, 4> count = {1, 4, 2, 7};
  for (unsigned i = 0; i < 4; ++i) l.regs[i][0] = count[i];
  auto r = env.core->run_quad(l);
  ASSERT_EQ(r.status, QuadResult::Status::Done) << r.error;
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(r.regs[i][0], 0u);
    EXPECT_EQ(r.regs[i][2], 3 * count[i]) << "lane " << i;
  }
  // The loop clause ran 7 times (the longest lane) and the tail once: the quad reconverged.
  EXPECT_EQ(r.clauses, 8u);
}

// Mesa ends threads by branching to address 0 (its terminal-branch lowering: an absolute constant 0), from
// a conditional branch in the middle of a program as well as a JUMP in the last clause. Lanes 0 and 2 (r0 ==
// 0) take the BRANCHZ and end; lanes 1 and 3 fall through to the tail, whose END clause then jumps to 0.
TEST(Shader, BranchToAddressZeroEndsTheThread) {
  GpuEnv env;
  const char* head = R"(
header flow=1
tuple p0=r0 fau=c0 ; *NOP ; +BRANCHZ.i32 src0=0 src2=5 eq=1
const 0
)";
  const char* tail = R"(
header flow=1
tuple p0=r1 fau=c0 ; *MOV.i32 src0=0 ; +JUMP src2=5 ; fma->r2
const 0
)";
  uint64_t at = env.load_code(kCodeVa, bifrost_asm::assemble(head));
  at = env.load_code(at, bifrost_asm::assemble(tail));
  // What a thread would run if the JUMP fell through: a store to an unmapped address, which would fault.
  env.load_code(at, bifrost_asm::assemble(
                        "header sr=5 msg=6\ntuple p0=r3 p1=r4 ; *NOP ; +STORE.i32 src0=0 src1=1 seg=1"));
  QuadLaunch l;
  l.entry = kCodeVa;
  for (unsigned i = 0; i < 4; ++i) {
    l.regs[i][0] = i & 1;
    l.regs[i][1] = 0x100 + i;
    l.regs[i][3] = 0x7000000;
  }
  auto r = env.core->run_quad(l);
  ASSERT_EQ(r.status, QuadResult::Status::Done) << r.error;
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(r.regs[i][2], (i & 1) ? 0x100u + i : 0u) << "lane " << i;
  EXPECT_EQ(r.clauses, 2u); // the head once for all four lanes, the tail once for lanes 1 and 3
}

TEST(Shader, BadAddressRaisesTheMmuFault) {
  GpuEnv env;
  env.load_code(kCodeVa, bifrost_asm::assemble("header sr=5 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i32 src0=0 src1=1 seg=1"));
  QuadLaunch l;
  l.entry = kCodeVa;
  for (unsigned i = 0; i < 4; ++i) l.regs[i][0] = uint32_t(kDataVa) + 4 * i;
  l.regs[2][0] = 0x7000000; // lane 2: unmapped
  auto r = env.core->run_quad(l);
  ASSERT_EQ(r.status, QuadResult::Status::Fault);
  ASSERT_TRUE(r.mmu_fault.has_value());
  EXPECT_EQ(r.mmu_fault->va, 0x7000000u);
  EXPECT_EQ(r.exception & 0xf8u, 0xc0u); // a translation fault (at the level the walk stopped)
  EXPECT_EQ(r.fault_pc, kCodeVa);
}

// A 16-byte load whose last word is on an unmapped page faults there and writes none of its staging registers.
TEST(Shader, FaultingWideLoadWritesNoRegister) {
  GpuEnv env;
  env.load_code(kCodeVa, bifrost_asm::assemble("header sr=5 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i128 src0=0 src1=1 seg=1"));
  QuadLaunch l;
  l.entry = kCodeVa;
  uint64_t last_page_end = kDataVa + 4096ull * kDataPages;
  for (unsigned i = 0; i < 4; ++i) {
    l.regs[i][0] = uint32_t(last_page_end - 8); // words 2 and 3 lie beyond the mapping
    for (unsigned k = 5; k < 9; ++k) l.regs[i][k] = 0x1111 * k;
  }
  auto r = env.core->run_quad(l);
  ASSERT_EQ(r.status, QuadResult::Status::Fault);
  ASSERT_TRUE(r.mmu_fault.has_value());
  EXPECT_EQ(r.mmu_fault->va, last_page_end);
  for (unsigned k = 5; k < 9; ++k) EXPECT_EQ(r.regs[0][k], 0x1111u * k);
}

TEST(Shader, WriteToReadOnlyMemoryFaults) {
  GpuEnv env;
  env.load_code(kCodeVa, bifrost_asm::assemble("header sr=5 msg=6\ntuple p0=r0 p1=r1 ; *NOP ; +STORE.i32 src0=0 src1=1 seg=1"));
  QuadLaunch l;
  l.entry = kCodeVa;
  for (unsigned i = 0; i < 4; ++i) l.regs[i][0] = uint32_t(kCodeVa) + 0x800; // the code pages are read-only
  auto r = env.core->run_quad(l);
  ASSERT_EQ(r.status, QuadResult::Status::Fault);
  EXPECT_EQ(r.exception & 0xf8u, 0xc8u); // permission fault
}

TEST(Shader, UnknownEncodingRaisesInstrInvalidEnc) {
  GpuEnv env;
  // A valid clause whose ADD word is then replaced by one the description does not allocate (LD_ATTR_IMM).
  auto words = bifrost_asm::assemble("tuple ; *NOP ; +NOP");
  DecodedClause dc;
  size_t i = 0;
  ASSERT_TRUE(decode_clause(kCodeVa, [&](uint64_t, uint64_t& lo, uint64_t& hi) {
    lo = words[i];
    hi = words[i + 1];
    i += 2;
    return true;
  }, dc));
  // The ADD word sits in tuple bits [77:58]: quadword bits [67:8] hold tuple bits [59:0] for format 0.
  uint32_t ld_attr_imm = 0x43808;
  uint64_t old_add = dc.tuples[0].add_word;
  vplat::adlrt::u128 q = (vplat::adlrt::u128(words[1]) << 64) | words[0];
  q ^= vplat::adlrt::u128((old_add ^ ld_attr_imm) & 0x3) << (8 + 58); // add bits [1:0] live in s0_s3
  q ^= vplat::adlrt::u128(((old_add ^ ld_attr_imm) >> 2) & 0x7fff) << 68; // bits [16:2] in s4
  q ^= vplat::adlrt::u128(((old_add ^ ld_attr_imm) >> 17) & 0x7) << 0;  // bits [19:17] in tag3 (U0)
  words[0] = static_cast<uint64_t>(q);
  words[1] = static_cast<uint64_t>(q >> 64);
  env.load_code(kCodeVa, words);
  QuadLaunch l;
  l.entry = kCodeVa;
  auto r = env.core->run_quad(l);
  ASSERT_EQ(r.status, QuadResult::Status::Fault) << r.error;
  EXPECT_EQ(r.exception, kInstrInvalidEnc);
  EXPECT_NE(r.error.find("ADD word 0x43808"), std::string::npos) << r.error;
}

// bi_pack.c: the first tuple's block must have reg2 == reg3 unless both slots are in use, or the hardware
// raises INSTR_INVALID_ENC.
TEST(Shader, FirstBlockNeedsReg2EqualReg3) {
  GpuEnv env;
  auto words = bifrost_asm::assemble("tuple p0=r1 ; *MOV.i32 src0=0 ; +NOP ; fma->r7");
  QuadLaunch l;
  l.entry = kCodeVa;
  env.load_code(kCodeVa, words);
  ASSERT_EQ(env.core->run_quad(l).status, QuadResult::Status::Done);
  // reg3 is tuple bits [13:8] = quadword bits [21:16] (format 0: s0_s3 holds tuple bits [59:0] from bit 8).
  words[0] ^= uint64_t(1) << 16;
  env.load_code(kCodeVa, words);
  auto r = env.core->run_quad(l);
  EXPECT_EQ(r.status, QuadResult::Status::Fault);
  EXPECT_EQ(r.exception, kInstrInvalidEnc);
}

TEST(Shader, InvalidTagAndUnmappedEntry) {
  GpuEnv env;
  std::vector<uint64_t> junk = {0xffffffffffffffffull, 0xffffffffffffffffull}; // tag 0xff: no format
  env.load_code(kCodeVa, junk);
  QuadLaunch l;
  l.entry = kCodeVa;
  auto r = env.core->run_quad(l);
  EXPECT_EQ(r.status, QuadResult::Status::Fault);
  EXPECT_EQ(r.exception, kInstrInvalidEnc);
  l.entry = 0x5000000; // not mapped
  r = env.core->run_quad(l);
  EXPECT_EQ(r.status, QuadResult::Status::Fault);
  ASSERT_TRUE(r.mmu_fault.has_value());
  EXPECT_EQ(r.mmu_fault->access, vplat::gpu::Access::Execute);
}

TEST(Shader, RunawayShaderStopsAtItsBudget) {
  GpuEnv env;
  env.load_code(kCodeVa, bifrost_asm::assemble("header flow=1\ntuple fau=c0 ; *NOP ; +JUMP src2=5\nconst pchi 0"));
  QuadLaunch l;
  l.entry = kCodeVa;
  l.max_clauses = 1000;
  auto r = env.core->run_quad(l);
  EXPECT_EQ(r.status, QuadResult::Status::Timeout);
  EXPECT_EQ(r.clauses, 1000u);
}

TEST(Shader, RewrittenCodeIsDecodedAgainInTheNextJob) {
  GpuEnv env;
  env.load_code(kCodeVa, bifrost_asm::assemble("tuple p0=r0 ; *MOV.i32 src0=0 ; +NOP ; fma->r1"));
  QuadLaunch l;
  l.entry = kCodeVa;
  for (unsigned i = 0; i < 4; ++i) l.regs[i][0] = 10 + i;
  EXPECT_EQ(env.core->run_quad(l).regs[3][1], 13u);
  env.load_code(kCodeVa, bifrost_asm::assemble("tuple p0=r0 p1=r5 ; *IMUL.i32 src0=0 src1=0 ; +NOP ; fma->r1"));
  EXPECT_EQ(env.core->run_quad(l).regs[3][1], 169u);
  EXPECT_EQ(env.cache.stats().decodes, 2u);
}

} // namespace
