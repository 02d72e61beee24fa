/* What the LZ kernels share: fixed-width names and a xorshift generator for their deterministic input. */
typedef unsigned long u64;
typedef unsigned int u32;
typedef unsigned char u8;
typedef unsigned short u16;
static u32 rng = 12345;
static u32 rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}
