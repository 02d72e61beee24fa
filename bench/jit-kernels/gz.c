/* Deflate's longest_match in the shape of gzip's: a window of 256 KiB with 16-bit chain links, each candidate
   tested at its ends and first two bytes before the byte-by-byte match loop. */
#include "common.h"
#define N (256 * 1024)
#define WMASK 0x7fff
static u8 win[N + 512];
static u16 prev_[WMASK + 1];
static u16 head[1 << 15];
/* The shape of deflate's longest_match: every failed test continues at the chain step. */
static __attribute__((noinline)) int longest_match(u32 cur, u32 strstart, int best_len, u32 limit) {
  u8* scan = win + strstart;
  u32 chain = 64;
  u8 end1 = scan[best_len - 1], end = scan[best_len];
  int best = best_len;
  do {
    u8* m = win + cur;
    if (m[best] != end || m[best - 1] != end1 || m[0] != scan[0] || m[1] != scan[1]) continue;
    int l = 2;
    while (l < 258 && m[l] == scan[l]) l++;
    if (l > best) {
      best = l;
      if (l >= 258) break;
      end1 = scan[best - 1];
      end = scan[best];
    }
  } while ((cur = prev_[cur & WMASK]) > limit && --chain != 0);
  return best;
}
u64 run(void) {
  for (int i = 0; i < N + 512; i++) {
    u32 r = rnd();
    win[i] = (r & 7) == 0 ? (u8)(r >> 8) : (i > 8 ? win[i - 1 - (r >> 8) % 8] : (u8)r);
  }
  for (int i = 0; i < (1 << 15); i++) head[i] = 0;
  u64 acc = 0;
  for (u32 i = 1; i < N - 300; i++) {
    u32 h = ((win[i] << 10) ^ (win[i + 1] << 5) ^ win[i + 2]) & ((1 << 15) - 1);
    u32 c = head[h];
    prev_[i & WMASK] = (u16)c;
    head[h] = (u16)(i & 0xffff);
    if (c && c < i) acc = acc * 31 + longest_match(c, i, 2, i > 32768 ? i - 32768 : 0);
  }
  return acc;
}
void _start(void) {
  u64 r = run();
  for (int rep = 0; rep < 3; rep++) r ^= run() + rep;
  __asm__ volatile("mov x0,%0; brk #0" ::"r"(r));
}
