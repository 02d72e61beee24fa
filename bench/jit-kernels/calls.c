typedef unsigned long u64;
typedef unsigned int u32;
typedef unsigned char u8;
/* Call-heavy code in the shape of a shell's arithmetic: a tokenizer and a recursive-descent evaluator
   over a small string, with a context struct passed by pointer and variables in a table. */
struct var {
  char name[8];
  long val;
};
struct ctx {
  const char* p;
  struct var* vars;
  int nvars;
  long err;
};
static struct var vars[16];
static __attribute__((noinline)) int is_digit(int c) {
  return c >= '0' && c <= '9';
}
static __attribute__((noinline)) int is_alpha(int c) {
  return (c >= 'a' && c <= 'z') || c == '_';
}
static __attribute__((noinline)) void skip_ws(struct ctx* c) {
  while (*c->p == ' ') c->p++;
}
static __attribute__((noinline)) struct var* lookup(struct ctx* c, const char* s, int n) {
  for (int i = 0; i < c->nvars; i++) {
    int j = 0;
    while (j < n && c->vars[i].name[j] == s[j]) j++;
    if (j == n && c->vars[i].name[j] == 0) return &c->vars[i];
  }
  return 0;
}
static long expr(struct ctx* c);
static __attribute__((noinline)) long primary(struct ctx* c) {
  skip_ws(c);
  if (*c->p == '(') {
    c->p++;
    long v = expr(c);
    skip_ws(c);
    if (*c->p == ')')
      c->p++;
    else
      c->err++;
    return v;
  }
  if (is_digit(*c->p)) {
    long v = 0;
    while (is_digit(*c->p)) v = v * 10 + (*c->p++ - '0');
    return v;
  }
  if (is_alpha(*c->p)) {
    const char* s = c->p;
    while (is_alpha(*c->p)) c->p++;
    struct var* v = lookup(c, s, (int)(c->p - s));
    return v ? v->val : (c->err++, 0);
  }
  c->err++;
  return 0;
}
static __attribute__((noinline)) long term(struct ctx* c) {
  long v = primary(c);
  for (;;) {
    skip_ws(c);
    char o = *c->p;
    if (o != '*' && o != '%') return v;
    c->p++;
    long r = primary(c);
    v = o == '*' ? v * r : (r ? v % r : 0);
  }
}
static __attribute__((noinline)) long expr(struct ctx* c) {
  long v = term(c);
  for (;;) {
    skip_ws(c);
    char o = *c->p;
    if (o != '+' && o != '-') return v;
    c->p++;
    long r = term(c);
    v = o == '+' ? v + r : v - r;
  }
}
static void setname(struct var* v, const char* s) {
  int i = 0;
  while (s[i]) {
    v->name[i] = s[i];
    i++;
  }
  v->name[i] = 0;
}
u64 run(void) {
  const char* names[] = {"a", "bb", "i", "count", "x_y", "z", "tmp", "n"};
  for (int k = 0; k < 8; k++) {
    setname(&vars[k], names[k]);
    vars[k].val = k + 3;
  }
  struct ctx c;
  u64 acc = 0;
  for (int it = 0; it < 200000; it++) {
    c.p = "(i + 1) * 3 + count % 7 - (bb * (n + 2)) + x_y";
    c.vars = vars;
    c.nvars = 8;
    c.err = 0;
    long v = expr(&c);
    vars[2].val = v & 1023;
    acc = acc * 31 + (u64)v + (u64)c.err;
  }
  return acc;
}
void _start(void) {
  u64 r = run();
  __asm__ volatile("mov x0,%0; brk #0" ::"r"(r));
}
