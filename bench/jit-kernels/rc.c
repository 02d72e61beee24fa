typedef unsigned long u64;
typedef unsigned int u32;
typedef unsigned char u8;
typedef unsigned short u16;
/* The shape of liblzma's range encoder: a struct updated through a pointer, small probability array,
   output bytes through a position field; plus calls with stack frames. */
struct rc {
  u64 low;
  u32 range;
  u32 cache_size;
  u8 cache;
  u8* out;
  u64 out_pos;
  u64 count;
};
static u8 outbuf[1 << 20];
static u16 probs[1024];
static u32 rng = 12345;
static __attribute__((noinline)) u32 rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}
static __attribute__((noinline)) void shift_low(struct rc* rc) {
  if ((u32)rc->low < 0xFF000000u || (u32)(rc->low >> 32) != 0) {
    u8 c = rc->cache;
    do {
      rc->out[rc->out_pos++ & ((1 << 20) - 1)] = (u8)(c + (u8)(rc->low >> 32));
      c = 0xFF;
    } while (--rc->cache_size != 0);
    rc->cache = (u8)(rc->low >> 24);
  }
  rc->cache_size++;
  rc->low = (rc->low & 0x00FFFFFF) << 8;
}
static __attribute__((noinline)) void encode_bit(struct rc* rc, u16* p, u32 bit) {
  u32 bound = (rc->range >> 11) * *p;
  if (bit == 0) {
    rc->range = bound;
    *p += (2048 - *p) >> 5;
  } else {
    rc->low += bound;
    rc->range -= bound;
    *p -= *p >> 5;
  }
  while (rc->range < (1u << 24)) {
    rc->range <<= 8;
    shift_low(rc);
  }
  rc->count++;
}
static __attribute__((noinline)) void encode_byte(struct rc* rc, u32 sym) {
  u32 ctx = 1;
  for (int i = 7; i >= 0; --i) {
    u32 bit = (sym >> i) & 1;
    encode_bit(rc, &probs[ctx], bit);
    ctx = (ctx << 1) | bit;
  }
}
u64 run(void) {
  struct rc rc = {0, 0xFFFFFFFFu, 1, 0, outbuf, 0, 0};
  for (int i = 0; i < 1024; i++) probs[i] = 1024;
  u64 acc = 0;
  for (u32 i = 0; i < 400000; i++) {
    u32 r = rnd();
    encode_byte(&rc, (r & 3) ? (r >> 8) & 15 : r >> 24);
    acc += rc.low ^ rc.out_pos;
  }
  return acc + rc.count;
}
void _start(void) {
  u64 r = run();
  __asm__ volatile("mov x0,%0; brk #0" ::"r"(r));
}
