/* LZ77 match finding in the shape of gzip's and xz's: a hash of three bytes, hash chains through head[] and
   prev_[], a byte-by-byte match loop; the result is a checksum of the matches found. */
#include "common.h"
#define N (256 * 1024)
static u8 buf[N];
static int head[1 << 15];
static int prev_[N];
u64 run(void) {
  for (int i = 0; i < N; i++) {
    u32 r = rnd();
    buf[i] = (r & 3) == 0 ? (u8)r : (i > 8 ? buf[i - 1 - (r >> 8) % 8] : (u8)r);
  }
  for (int i = 0; i < (1 << 15); i++) head[i] = -1;
  u64 acc = 0;
  int i = 0;
  while (i < N - 4) {
    u32 h = ((buf[i] << 10) ^ (buf[i + 1] << 5) ^ buf[i + 2]) & ((1 << 15) - 1);
    int best = 0, bd = 0, c = head[h], chain = 0;
    while (c >= 0 && chain < 16) {
      int l = 0;
      while (i + l < N && l < 258 && buf[c + l] == buf[i + l]) l++;
      if (l > best) {
        best = l;
        bd = i - c;
      }
      c = prev_[c];
      chain++;
    }
    prev_[i] = head[h];
    head[h] = i;
    if (best >= 3) {
      acc = acc * 31 + best * 65536 + bd;
      for (int k = 1; k < best && i + k < N - 4; k++) {
        u32 h2 = ((buf[i + k] << 10) ^ (buf[i + k + 1] << 5) ^ buf[i + k + 2]) & ((1 << 15) - 1);
        prev_[i + k] = head[h2];
        head[h2] = i + k;
      }
      i += best;
    } else {
      acc = acc * 31 + buf[i];
      i++;
    }
  }
  return acc;
}
void _start(void) {
  u64 r = run();
  for (int rep = 0; rep < 3; rep++) r ^= run() + rep;
  __asm__ volatile("mov x0,%0; brk #0" ::"r"(r));
}
