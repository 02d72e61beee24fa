// Tests of the image group (archdesc/bifrost/image.adl): *DTSEL_IMM, +LEA_ATTR_TEX, +LD_ATTR_TEX, +LD_CVT,
// +ST_CVT on small images in GPU memory. The descriptors (genxml v6 Attribute / Attribute Buffer / Continuation
// 3D) and the texel contents are laid out here; every expected address and value is computed here with plain C++
// from that layout (address arithmetic, byte / 255, round-to-nearest of x * 255, clamps), never from the model.
#include "isa_cases.h"
#include <cmath>

namespace bifrost_isa_test {
namespace {

constexpr uint64_t kAttrTable = kDataVa + 0x1000; // 8-byte Attribute records
constexpr uint64_t kBufTable = kDataVa + 0x1400;  // 16-byte Attribute Buffer records, two per image
constexpr uint32_t kSwzRGBA = 0 | 1 << 3 | 2 << 6 | 3 << 9;
constexpr uint32_t kSwzR001 = 0 | 4 << 3 | 4 << 6 | 5 << 9;

struct Image {
  uint32_t format_id, swizzle, bytes; // mali_format number, channel selectors, bytes per texel
  uint32_t w, h, d, row, slice;       // dimensions and strides
  uint64_t va;
};
// Image i is attribute i, using buffers 2i (the image) and 2i + 1 (its 3D continuation), as panfrost lays them.
const Image kImages[] = {
    {167, kSwzR001, 4, 5, 4, 1, 32, 128, kDataVa + 0x2000},    // 0: R32F, rows padded to 32 bytes
    {187, kSwzRGBA, 4, 4, 3, 2, 16, 64, kDataVa + 0x2400},     // 1: RGBA8 UNORM, 2 slices
    {133, kSwzR001, 4, 4, 4, 1, 16, 64, kDataVa + 0x2800},     // 2: R32UI
    {197, kSwzR001, 4, 4, 4, 1, 16, 64, kDataVa + 0x2c00},     // 3: R32I
    {191, kSwzRGBA, 16, 3, 3, 1, 48, 144, kDataVa + 0x3000},   // 4: RGBA32F
};
constexpr unsigned kNumImages = 5;
constexpr uint64_t kImageBytes = 0x2000; // the image area kDataVa + 0x2000 .. + 0x4000

uint8_t pattern(uint64_t va) {
  uint64_t i = va - kDataVa;
  return static_cast<uint8_t>(i * 37 + 11 + (i >> 7));
}

uint64_t texel_va(const Image& im, uint32_t x, uint32_t y, uint32_t z) {
  return im.va + uint64_t{x} * im.bytes + uint64_t{y} * im.row + uint64_t{z} * im.slice;
}
uint32_t format_word(const Image& im) { return im.format_id << 12 | im.swizzle; }

struct Rig {
  GpuEnv gpu;
  Rig() {
    std::vector<uint8_t> bytes(kImageBytes);
    for (uint64_t i = 0; i < kImageBytes; ++i) bytes[i] = pattern(kDataVa + 0x2000 + i);
    EXPECT_TRUE(gpu.bus.copy_to(kDataPa + 0x2000, bytes.data(), bytes.size()));
    for (unsigned i = 0; i < kNumImages; ++i) {
      const Image& im = kImages[i];
      uint32_t attr[2] = {(2 * i) | format_word(im) << 10, 0};
      put(kAttrTable + 8 * i, attr, 8);
      uint32_t size = im.slice * im.d;
      uint32_t buf[4] = {uint32_t(im.va) | 5, uint32_t(im.va >> 32), im.bytes, size};
      uint32_t cont[4] = {32u | (im.w - 1) << 16, (im.h - 1) | (im.d - 1) << 16, im.row, im.slice};
      put(kBufTable + 32 * i, buf, 16);
      put(kBufTable + 32 * i + 16, cont, 16);
    }
  }
  void put(uint64_t va, const void* p, size_t n) { EXPECT_TRUE(gpu.bus.copy_to(kDataPa + (va - kDataVa), p, n)); }
  uint8_t byte(uint64_t va) {
    uint8_t v = 0;
    EXPECT_TRUE(gpu.bus.copy_from(kDataPa + (va - kDataVa), &v, 1));
    return v;
  }
  uint32_t word(uint64_t va) { return gpu.read32(va); }
  QuadResult run(const std::vector<std::string>& clauses, const std::vector<Lanes>& in, uint32_t attr_count = kNumImages) {
    uint64_t at = kCodeVa;
    for (auto& c : clauses) at = gpu.load_code(at, bifrost_asm::assemble(c));
    QuadLaunch l;
    l.entry = kCodeVa;
    for (unsigned lane = 0; lane < 4; ++lane)
      for (size_t r = 0; r < in.size(); ++r) l.regs[lane][r] = in[r][lane];
    l.attr_table = kAttrTable;
    l.attr_buffers = kBufTable;
    l.attr_count = attr_count;
    return gpu.core->run_quad(l);
  }
};

// Per-lane inputs: r0 = image index, r1 = {y:x}, r2 = z.
struct Coords {
  Lanes xy, z, image;
};
Coords coords(unsigned image, const uint32_t (&c)[4][3]) {
  Coords k;
  for (unsigned l = 0; l < 4; ++l) {
    k.xy[l] = c[l][0] | c[l][1] << 16;
    k.z[l] = c[l][2];
    k.image[l] = image;
  }
  return k;
}

// Mesa's sequence: the table selection on the FMA unit, the attribute message on the ADD unit reading it.
std::string dtsel_then(const std::string& add_op) {
  return "tuple p0=r0 p1=r1 p2=r2 ; *DTSEL_IMM src0=0 table=0 ; " + add_op + " src0=1 src1=2 src2=3";
}

float unorm(uint8_t b) { return static_cast<float>(b) / 255.0f; }
uint32_t fbits(float f) { return bits(f); }

bool expect_fault(const QuadResult& r, uint32_t code, const char* what, std::string& why) {
  if (r.status == QuadResult::Status::Fault && r.exception == code) return true;
  char b[160];
  std::snprintf(b, sizeof b, "%s: status %d exception 0x%x, want fault 0x%x", what, int(r.status), r.exception, code);
  why = b;
  return false;
}

// LEA on every lane (different texels of `image`): {address lo, hi, conversion} in r12..r14.
bool lea_case(const std::string& op, unsigned image, uint32_t regfmt_field, std::string& why) {
  const uint32_t c[4][3] = {{0, 0, 0}, {3, 2, 0}, {1, 1, 1}, {2, 0, 1}};
  const Image& im = kImages[image];
  uint32_t cd[4][3];
  for (unsigned l = 0; l < 4; ++l)
    for (unsigned k = 0; k < 3; ++k) cd[l][k] = std::min(c[l][k], (k == 0 ? im.w : k == 1 ? im.h : im.d) - 1);
  Coords k = coords(image, cd);
  Rig rig;
  auto r = rig.run({"header sr=12 msg=2\n" + dtsel_then(op)}, {k.image, k.xy, k.z});
  for (unsigned reg = 12; reg <= 14; ++reg)
    if (!check_lanes(
            r, reg,
            [&](unsigned l) {
              uint64_t va = texel_va(im, cd[l][0], cd[l][1], cd[l][2]);
              return reg == 12 ? uint32_t(va) : reg == 13 ? uint32_t(va >> 32) : format_word(im) | regfmt_field << 22;
            },
            why))
      return false;
  return true;
}

// The texel channels of RGBA8 image 1 at (x, y, z) as f32 bits.
std::array<uint32_t, 4> rgba8_f32(uint32_t x, uint32_t y, uint32_t z) {
  uint64_t va = texel_va(kImages[1], x, y, z);
  return {fbits(unorm(pattern(va))), fbits(unorm(pattern(va + 1))), fbits(unorm(pattern(va + 2))),
          fbits(unorm(pattern(va + 3)))};
}
uint32_t pattern32(uint64_t va) {
  return pattern(va) | uint32_t(pattern(va + 1)) << 8 | uint32_t(pattern(va + 2)) << 16 | uint32_t(pattern(va + 3)) << 24;
}

void add_image_cases(CaseMap& c) {
  c["FMA_DTSEL_IMM"] = [](std::string& why) {
    // The table the FMA half selects decides which table the ADD half reads: attribute_1 is the job's table;
    // attribute_2, flat, and no DTSEL at all (the secondary table) are tables a compute job does not have.
    const uint32_t cd[4][3] = {{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {4, 3, 0}};
    Coords k = coords(0, cd);
    {
      Rig rig;
      auto r = rig.run({"header sr=12 msg=2\n" + dtsel_then("+LEA_ATTR_TEX fmt=1")}, {k.image, k.xy, k.z});
      if (!check_lanes(r, 12, [&](unsigned l) { return uint32_t(texel_va(kImages[0], cd[l][0], cd[l][1], 0)); }, why))
        return false;
    }
    for (unsigned table : {1u, 3u}) {
      Rig rig;
      auto r = rig.run({"header sr=12 msg=2\ntuple p0=r0 p1=r1 p2=r2 ; *DTSEL_IMM src0=0 table=" +
                        std::to_string(table) + " ; +LEA_ATTR_TEX src0=1 src1=2 src2=3 fmt=1"},
                       {k.image, k.xy, k.z});
      if (!expect_fault(r, 0x58, "other table", why)) return false;
    }
    Rig rig;
    auto r = rig.run({"header sr=12 msg=2\ntuple p0=r0 p1=r1 p2=r2 ; *NOP ; +LEA_ATTR_TEX src0=1 src1=2 src2=0 fmt=1"},
                     {k.image, k.xy, k.z});
    return expect_fault(r, 0x58, "no DTSEL", why);
  };
  c["ADD_LEA_ATTR_TEX"] = [](std::string& why) {
    return lea_case("+LEA_ATTR_TEX fmt=1", 0, 1, why) && lea_case("+LEA_ATTR_TEX fmt=3", 2, 3, why) &&
           lea_case("+LEA_ATTR_TEX fmt=2", 1, 2, why) && lea_case("+LEA_ATTR_TEX fmt=1", 4, 1, why);
  };
  c["ADD_LEA_ATTR_TEX_auto"] = [](std::string& why) {
    return lea_case("ADD_LEA_ATTR_TEX_auto", 1, 8, why) && lea_case("ADD_LEA_ATTR_TEX_auto", 3, 8, why);
  };
  c["ADD_LD_ATTR_TEX"] = [](std::string& why) {
    // RGBA8 UNORM as f32 .v4, lanes on different texels and slices.
    {
      const uint32_t cd[4][3] = {{0, 0, 0}, {3, 2, 1}, {1, 1, 0}, {2, 0, 1}};
      Coords k = coords(1, cd);
      Rig rig;
      auto r = rig.run({"header sr=12 msg=2\n" + dtsel_then("+LD_ATTR_TEX fmt=1 vec=3")}, {k.image, k.xy, k.z});
      for (unsigned ch = 0; ch < 4; ++ch)
        if (!check_lanes(r, 12 + ch, [&](unsigned l) { return rgba8_f32(cd[l][0], cd[l][1], cd[l][2])[ch]; }, why))
          return false;
    }
    // R32F .v4 with the R001 selectors: channel, 0, 0, 1.0.
    {
      const uint32_t cd[4][3] = {{4, 3, 0}, {0, 1, 0}, {2, 2, 0}, {1, 0, 0}};
      Coords k = coords(0, cd);
      Rig rig;
      auto r = rig.run({"header sr=12 msg=2\n" + dtsel_then("+LD_ATTR_TEX fmt=1 vec=3")}, {k.image, k.xy, k.z});
      if (!check_lanes(r, 12, [&](unsigned l) { return pattern32(texel_va(kImages[0], cd[l][0], cd[l][1], 0)); }, why) ||
          !check_lanes(r, 13, [](unsigned) { return 0u; }, why) || !check_lanes(r, 14, [](unsigned) { return 0u; }, why) ||
          !check_lanes(r, 15, [](unsigned) { return fbits(1.0f); }, why))
        return false;
    }
    // R32I read as u32 clamps negatives to 0; R32UI read as s32 clamps above INT32_MAX; .v1 leaves r13 alone.
    for (unsigned image : {2u, 3u}) {
      const uint32_t cd[4][3] = {{0, 0, 0}, {1, 1, 0}, {2, 2, 0}, {3, 3, 0}};
      Coords k = coords(image, cd);
      Lanes keep = {0x1111, 0x2222, 0x3333, 0x4444};
      Rig rig;
      std::vector<Lanes> in = {k.image, k.xy, k.z};
      in.resize(14);
      in[13] = keep;
      auto r = rig.run({"header sr=12 msg=2\n" + dtsel_then(image == 2 ? "+LD_ATTR_TEX fmt=2 vec=0" : "+LD_ATTR_TEX fmt=3 vec=0")}, in);
      if (!check_lanes(
              r, 12,
              [&](unsigned l) {
                uint32_t v = pattern32(texel_va(kImages[image], cd[l][0], cd[l][1], 0));
                if (image == 2) return v > 0x7fffffffu ? 0x7fffffffu : v;
                return int32_t(v) < 0 ? 0u : v;
              },
              why) ||
          !check_lanes(r, 13, [&](unsigned l) { return keep[l]; }, why))
        return false;
    }
    // A float register format on an integer image is the other class: DATA_INVALID_FAULT.
    const uint32_t cd[4][3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
    Coords k = coords(2, cd);
    Rig rig;
    auto r = rig.run({"header sr=12 msg=2\n" + dtsel_then("+LD_ATTR_TEX fmt=1 vec=0")}, {k.image, k.xy, k.z});
    return expect_fault(r, 0x58, "f32 from R32UI", why);
  };
  c["ADD_LD_ATTR_TEX_auto"] = [](std::string& why) {
    // .auto takes the format's own type: R32I as s32 (no clamping), RGBA32F as f32 .v3.
    const uint32_t cd[4][3] = {{0, 2, 0}, {1, 2, 0}, {2, 1, 0}, {2, 0, 0}};
    for (unsigned image : {3u, 4u}) {
      Coords k = coords(image, cd);
      Rig rig;
      auto r = rig.run({"header sr=12 msg=2\n" + dtsel_then("ADD_LD_ATTR_TEX_auto vec=2")}, {k.image, k.xy, k.z});
      for (unsigned ch = 0; ch < 3; ++ch)
        if (!check_lanes(
                r, 12 + ch,
                [&](unsigned l) {
                  uint64_t va = texel_va(kImages[image], cd[l][0], cd[l][1], 0);
                  if (image == 3) return ch == 0 ? pattern32(va) : 0u;
                  return pattern32(va + 4 * ch);
                },
                why))
          return false;
    }
    return true;
  };
  c["ADD_ST_CVT"] = [](std::string& why) {
    // Mesa's store: LEA_ATTR_TEX (with the source's register format) then ST_CVT of its three words.
    // RGBA8 UNORM from f32 .v4: clamp to [0, 1], x * 255 rounded to nearest; NaN -> 0.
    const uint32_t cd[4][3] = {{0, 0, 0}, {3, 2, 1}, {1, 1, 0}, {2, 0, 1}};
    Coords k = coords(1, cd);
    const float vals[4][4] = {{0.0f, 1.0f, 0.5f, 0.2f}, {-1.0f, 2.0f, 0.0019607844f, 0.9980392f},
                              {std::nanf(""), 0.25f, 0.75f, 1.0f}, {0.003921569f, 0.50196f, 0.123f, 0.999f}};
    std::vector<Lanes> in(20);
    in[0] = k.image;
    in[1] = k.xy;
    in[2] = k.z;
    for (unsigned ch = 0; ch < 4; ++ch)
      for (unsigned l = 0; l < 4; ++l) in[16 + ch][l] = fbits(vals[l][ch]);
    Rig rig;
    auto r = rig.run({"header flow=3 sr=12 msg=2\n" + dtsel_then("+LEA_ATTR_TEX fmt=1"),
                      "header sr=16 msg=6\ntuple p0=r12 p1=r13 p2=r14 ; *NOP ; +ST_CVT src0=0 src1=1 src2=2 vec=3"},
                     in);
    if (r.status != QuadResult::Status::Done) return why = "run failed: " + r.error, false;
    for (unsigned l = 0; l < 4; ++l) {
      uint64_t va = texel_va(kImages[1], cd[l][0], cd[l][1], cd[l][2]);
      for (unsigned ch = 0; ch < 4; ++ch) {
        float x = vals[l][ch];
        uint8_t want = std::isnan(x) || x <= 0 ? 0 : x >= 1 ? 255 : uint8_t(std::lrint(x * 255.0f));
        if (rig.byte(va + ch) != want)
          return why = "lane " + std::to_string(l) + " channel " + std::to_string(ch) + ": got " +
                       std::to_string(rig.byte(va + ch)) + " want " + std::to_string(want),
                 false;
      }
      // No lane writes the texel after another lane's.
      if (rig.byte(va + 4) != pattern(va + 4)) return why = "neighbour texel changed", false;
    }
    // R32I from u32 clamps to INT32_MAX; .auto stores the bits (Mesa's write_imagei path); R32F .v1 stores only r16.
    {
      const uint32_t cd2[4][3] = {{0, 0, 0}, {1, 0, 0}, {2, 3, 0}, {3, 3, 0}};
      Lanes v = {5, 0x80000000u, 0xffffffffu, 0x7fffffffu};
      for (bool use_auto : {false, true}) {
        Coords k2 = coords(3, cd2);
        std::vector<Lanes> in2(17);
        in2[0] = k2.image;
        in2[1] = k2.xy;
        in2[2] = k2.z;
        in2[16] = v;
        Rig rig2;
        auto r2 = rig2.run({"header flow=3 sr=12 msg=2\n" + dtsel_then(use_auto ? "ADD_LEA_ATTR_TEX_auto" : "+LEA_ATTR_TEX fmt=3"),
                            "header sr=16 msg=6\ntuple p0=r12 p1=r13 p2=r14 ; *NOP ; +ST_CVT src0=0 src1=1 src2=2 vec=0"},
                           in2);
        if (r2.status != QuadResult::Status::Done) return why = "run failed: " + r2.error, false;
        for (unsigned l = 0; l < 4; ++l) {
          uint32_t want = use_auto ? v[l] : (v[l] > 0x7fffffffu ? 0x7fffffffu : v[l]);
          if (rig2.word(texel_va(kImages[3], cd2[l][0], cd2[l][1], 0)) != want)
            return why = std::string(use_auto ? "auto" : "u32") + " store to R32I lane " + std::to_string(l), false;
        }
      }
    }
    // Out of the image: ADDR_RANGE_FAULT, nothing written.
    const uint32_t bad[4][3] = {{0, 0, 0}, {4, 0, 0}, {0, 3, 0}, {0, 0, 2}};
    for (unsigned l = 1; l < 4; ++l) {
      uint32_t one[4][3];
      for (unsigned j = 0; j < 4; ++j)
        for (unsigned q = 0; q < 3; ++q) one[j][q] = bad[l][q];
      Coords kb = coords(1, one);
      Rig rig3;
      auto r3 = rig3.run({"header flow=3 sr=12 msg=2\n" + dtsel_then("+LEA_ATTR_TEX fmt=1"),
                          "header sr=16 msg=6\ntuple p0=r12 p1=r13 p2=r14 ; *NOP ; +ST_CVT src0=0 src1=1 src2=2 vec=3"},
                         {kb.image, kb.xy, kb.z});
      if (!expect_fault(r3, 0x5a, "coordinate outside the image", why)) return false;
    }
    return true;
  };
  c["ADD_LD_CVT"] = [](std::string& why) {
    // LEA_ATTR_TEX.auto + LD_CVT.v4 (how newer Mesa fetches texel buffers) on RGBA8 UNORM and RGBA32F.
    const uint32_t cd[4][3] = {{0, 0, 0}, {2, 2, 0}, {1, 1, 0}, {2, 0, 0}};
    for (unsigned image : {1u, 4u}) {
      Coords k = coords(image, cd);
      Rig rig;
      auto r = rig.run({"header flow=3 sr=12 msg=2\n" + dtsel_then("ADD_LEA_ATTR_TEX_auto"),
                        "header sr=16 msg=5\ntuple p0=r12 p1=r13 p2=r14 ; *NOP ; +LD_CVT src0=0 src1=1 src2=2 vec=3"},
                       {k.image, k.xy, k.z});
      for (unsigned ch = 0; ch < 4; ++ch)
        if (!check_lanes(
                r, 16 + ch,
                [&](unsigned l) {
                  if (image == 1) return rgba8_f32(cd[l][0], cd[l][1], 0)[ch];
                  return pattern32(texel_va(kImages[4], cd[l][0], cd[l][1], 0) + 4 * ch);
                },
                why))
          return false;
    }
    return true;
  };
}

// Hand-written Mesa-syntax disassembly of each instruction.
const std::initializer_list<RoundTrip> kImageRoundTrips = {
    {"FMA_DTSEL_IMM", "tuple p0=r1 ; *DTSEL_IMM src0=0 table=0 ; +NOP ; fma->r3",
     "ds(0) eos \n{\n*DTSEL_IMM.attribute_1 r3:t0, r1\n+NOP t1\n}\n"},
    {"ADD_LEA_ATTR_TEX",
     "header sr=8 msg=2\ntuple p0=r1 p1=r2 p2=r5 ; *DTSEL_IMM src0=0 table=0 ; +LEA_ATTR_TEX src0=1 src1=2 src2=3 fmt=3",
     "ds(0) eos attr \n{\n*DTSEL_IMM.attribute_1 t0, r1\n+LEA_ATTR_TEX.u32 t1, r2, r5, t, @r8\n}\n"},
    {"ADD_LEA_ATTR_TEX_auto", "header sr=8 msg=2\ntuple p0=r1 p1=r2 p2=r5 ; *NOP ; ADD_LEA_ATTR_TEX_auto src0=0 src1=1 src2=2",
     "ds(0) eos attr \n{\n*NOP t0\n+LEA_ATTR_TEX.auto t1, r1, r2, r5, @r8\n}\n"},
    {"ADD_LD_ATTR_TEX", "header sr=8 msg=2\ntuple p0=r1 p1=r2 p2=r5 ; *NOP ; +LD_ATTR_TEX src0=0 src1=1 src2=2 fmt=1 vec=3",
     "ds(0) eos attr \n{\n*NOP t0\n+LD_ATTR_TEX.f32.v4 t1, r1, r2, r5, @r8\n}\n"},
    {"ADD_LD_ATTR_TEX_auto", "header sr=8 msg=2\ntuple p0=r1 p1=r2 p2=r5 ; *NOP ; ADD_LD_ATTR_TEX_auto src0=0 src1=1 src2=2 vec=0",
     "ds(0) eos attr \n{\n*NOP t0\n+LD_ATTR_TEX.auto t1, r1, r2, r5, @r8\n}\n"},
    {"ADD_LD_CVT", "header sr=8 msg=5\ntuple p0=r1 p1=r2 p2=r5 ; *NOP ; +LD_CVT src0=0 src1=1 src2=2 vec=1",
     "ds(0) eos load \n{\n*NOP t0\n+LD_CVT.v2 t1, r1, r2, r5, @r8\n}\n"},
    {"ADD_ST_CVT", "header sr=8 msg=6\ntuple p0=r1 p1=r2 p2=r5 ; *NOP ; +ST_CVT src0=0 src1=1 src2=2 vec=3",
     "ds(0) eos store \n{\n*NOP t0\n+ST_CVT.v4 t1, r1, r2, r5, @r8\n}\n"},
};

const CaseGroup kImage(add_image_cases, kImageRoundTrips);

// Descriptor problems end the quad with a fault, never a host crash or an access outside the image.
TEST(ImageFaults, BadDescriptorsFault) {
  const uint32_t cd[4][3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
  const std::string lea = "header sr=12 msg=2\n" + dtsel_then("+LEA_ATTR_TEX fmt=1");
  {
    // An index past the job's attribute count.
    Coords k = coords(3, cd);
    Rig rig;
    auto r = rig.run({lea}, {k.image, k.xy, k.z}, 3);
    EXPECT_EQ(r.status, QuadResult::Status::Fault);
    EXPECT_EQ(r.exception, 0x5au);
  }
  {
    // A format the model does not implement (R16F, 199) and a 3D interleaved buffer (type 6).
    Coords k = coords(0, cd);
    Rig rig;
    uint32_t attr = 0 | (199u << 12 | kSwzR001) << 10;
    rig.put(kAttrTable, &attr, 4);
    auto r = rig.run({lea}, {k.image, k.xy, k.z});
    EXPECT_EQ(r.status, QuadResult::Status::Fault);
    EXPECT_EQ(r.exception, 0x58u);
    Rig rig2;
    uint32_t w0 = uint32_t(kImages[0].va) | 6;
    rig2.put(kBufTable, &w0, 4);
    r = rig2.run({lea}, {k.image, k.xy, k.z});
    EXPECT_EQ(r.status, QuadResult::Status::Fault);
    EXPECT_EQ(r.exception, 0x58u);
  }
  {
    // A buffer whose size does not cover the texel: the last row is cut short.
    Rig rig;
    uint32_t size = kImages[0].row * 3 + 8; // rows 0-2 and two texels of row 3
    rig.put(kBufTable + 12, &size, 4);
    const uint32_t last[4][3] = {{0, 3, 0}, {1, 3, 0}, {1, 3, 0}, {0, 3, 0}};
    Coords ok = coords(0, last);
    auto r = rig.run({lea}, {ok.image, ok.xy, ok.z});
    EXPECT_EQ(r.status, QuadResult::Status::Done) << r.error;
    const uint32_t past[4][3] = {{0, 3, 0}, {2, 3, 0}, {1, 3, 0}, {0, 3, 0}};
    Coords bad = coords(0, past);
    r = rig.run({lea}, {bad.image, bad.xy, bad.z});
    EXPECT_EQ(r.status, QuadResult::Status::Fault);
    EXPECT_EQ(r.exception, 0x5au);
  }
  {
    // An image pointer and an attribute table nobody mapped: the MMU's fault.
    Coords k = coords(0, cd);
    Rig rig;
    uint64_t unmapped = kDataVa + uint64_t{kDataPages} * 4096 + 0x10000;
    uint32_t w[2] = {uint32_t(unmapped) | 5, uint32_t(unmapped >> 32)};
    rig.put(kBufTable, w, 8);
    auto r = rig.run({"header flow=3 sr=12 msg=2\n" + dtsel_then("+LEA_ATTR_TEX fmt=1"),
                      "header sr=16 msg=6\ntuple p0=r12 p1=r13 p2=r14 ; *NOP ; +ST_CVT src0=0 src1=1 src2=2 vec=0"},
                     {k.image, k.xy, k.z});
    EXPECT_EQ(r.status, QuadResult::Status::Fault);
    EXPECT_TRUE(r.mmu_fault.has_value());
    Rig rig2;
    rig2.gpu.load_code(kCodeVa, bifrost_asm::assemble(lea));
    QuadLaunch l;
    l.entry = kCodeVa;
    l.attr_table = unmapped;
    l.attr_buffers = kBufTable;
    l.attr_count = 1;
    r = rig2.gpu.core->run_quad(l);
    EXPECT_EQ(r.status, QuadResult::Status::Fault);
    EXPECT_TRUE(r.mmu_fault.has_value());
  }
}

} // namespace
} // namespace bifrost_isa_test
