/* Byte scanning with Advanced SIMD, in the shapes of glibc's string functions (compare 16 bytes, fold the
   result to a 64-bit syndrome with SHRN or UMAXP, test it in a general register) and of zstd's row match
   finder (DUP a tag, CMEQ against a row of tags, SHRN to a nibble mask). */
#include "common.h"
#include <arm_neon.h>
static u8 text[8192] __attribute__((aligned(16)));
static u8 row[16 * 64] __attribute__((aligned(16)));
static __attribute__((noinline)) u64 find_byte(const u8* p, u8 c, u64 n) {
  u64 hits = 0;
  const uint8x16_t want = vdupq_n_u8(c);
  for (u64 i = 0; i < n; i += 16) {
    const uint8x16_t d = vld1q_u8(p + i);
    const uint8x16_t eq = vceqq_u8(d, want);
    const uint8x8_t nibbles = vshrn_n_u16(vreinterpretq_u16_u8(eq), 4);
    const u64 syndrome = vget_lane_u64(vreinterpret_u64_u8(nibbles), 0);
    if (syndrome) hits += (u64)__builtin_ctzll(syndrome) >> 2;
  }
  return hits;
}
static __attribute__((noinline)) u64 any_end(const u8* p, u64 n) {
  u64 ends = 0;
  const uint8x16_t high = vdupq_n_u8(0xf0);
  for (u64 i = 0; i < n; i += 16) {
    const uint8x16_t d = vld1q_u8(p + i);
    const uint8x16_t folded = vpmaxq_u8(vceqzq_u8(d), vcgeq_u8(d, high));
    ends += vgetq_lane_u64(vreinterpretq_u64_u8(folded), 0) != 0;
  }
  return ends;
}
static __attribute__((noinline)) u64 row_matches(u32 tag) {
  u64 acc = 0;
  for (u32 r = 0; r < 64; r++) {
    const uint8x16_t tags = vld1q_u8(row + 16 * r);
    const uint8x16_t eq = vceqq_u8(tags, vdupq_n_u8((u8)tag));
    acc += vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(eq), 4)), 0) ^ r;
    tag = tag * 33 + 7;
  }
  return acc;
}
void _start(void) {
  for (u32 i = 0; i < sizeof text; i++) text[i] = (u8)rnd();
  for (u32 i = 0; i < sizeof row; i++) row[i] = (u8)(rnd() & 15);
  u64 r = 0;
  for (u32 rep = 0;; rep++) {
    r = r * 31 + find_byte(text, (u8)rep, sizeof text);
    r = r * 31 + any_end(text, sizeof text);
    r = r * 31 + row_matches(rep);
    if (rep == 0x7fffffff) break;
  }
  __asm__ volatile("mov x0,%0; brk #0" ::"r"(r));
}
