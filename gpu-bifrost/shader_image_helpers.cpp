// The image helpers archdesc/bifrost/image.adl declares: resolving (image, coordinates) to a texel's GPU address
// through the job's attribute tables, and converting texels between memory formats and register formats.
// Descriptors and texels are read and written through the thread's memory path (the GPU MMU), so a bad pointer
// is an MMU fault and nothing outside guest RAM is reachable. Layouts and the model's choices: image.adl.
#include "gpu-bifrost/mali_regs.h"
#include "gpu-bifrost/shader_thread.h"
#include <cmath>
#include <cstring>
#include <limits>

namespace vplat::gen::bifrost {

namespace {

namespace g = vplat::gpu;

constexpr uint32_t kDataInvalidFault = g::exc::DATA_INVALID_FAULT; // 0x58
constexpr uint32_t kAddrRangeFault = 0x5a;

// Attribute Buffer types (genxml mali_attribute_type).
constexpr uint32_t kType1D = 1, kType3DLinear = 5, kTypeContinuation = 32;

// Register formats as image.adl passes them (ISA.xml order; 8 = auto).
enum RegFmt : uint32_t { kF32 = 1, kS32 = 2, kU32 = 3, kAuto = 8 };

enum class Kind { Float32, Unorm, Uint, Sint };
struct Format {
  Kind kind;
  unsigned channels;
  unsigned bytes; // per channel
};

// The mali_format numbers implemented (genxml v6.xml enum "Format").
bool lookup_format(uint32_t id, Format& f) {
  switch (id) {
  case 167: f = {Kind::Float32, 1, 4}; return true; // R32F
  case 175: f = {Kind::Float32, 2, 4}; return true; // RG32F
  case 183: f = {Kind::Float32, 3, 4}; return true; // RGB32F
  case 191: f = {Kind::Float32, 4, 4}; return true; // RGBA32F
  case 133: f = {Kind::Uint, 1, 4}; return true;    // R32UI
  case 141: f = {Kind::Uint, 2, 4}; return true;    // RG32UI
  case 149: f = {Kind::Uint, 3, 4}; return true;    // RGB32UI
  case 157: f = {Kind::Uint, 4, 4}; return true;    // RGBA32UI
  case 197: f = {Kind::Sint, 1, 4}; return true;    // R32I
  case 205: f = {Kind::Sint, 2, 4}; return true;    // RG32I
  case 213: f = {Kind::Sint, 3, 4}; return true;    // RGB32I
  case 221: f = {Kind::Sint, 4, 4}; return true;    // RGBA32I
  case 163: f = {Kind::Unorm, 1, 1}; return true;   // R8 UNORM
  case 171: f = {Kind::Unorm, 2, 1}; return true;   // RG8 UNORM
  case 187: f = {Kind::Unorm, 4, 1}; return true;   // RGBA8 UNORM
  case 131: f = {Kind::Uint, 1, 1}; return true;    // R8UI
  case 139: f = {Kind::Uint, 2, 1}; return true;    // RG8UI
  case 155: f = {Kind::Uint, 4, 1}; return true;    // RGBA8UI
  case 195: f = {Kind::Sint, 1, 1}; return true;    // R8I
  case 203: f = {Kind::Sint, 2, 1}; return true;    // RG8I
  case 219: f = {Kind::Sint, 4, 1}; return true;    // RGBA8I
  default: return false;
  }
}

void raise_mmu(State& s, g::bifrost::ShaderThread& t) {
  s.FAULT = t.mmu_fault.exception ? t.mmu_fault.exception : g::exc::JOB_BUS_FAULT;
}

bool read_mem(State& s, uint64_t va, void* dst, size_t len) {
  auto& t = g::bifrost::thread_of(s);
  if (!t.mmu || !t.mmu->read(t.as, va, dst, len, t.mmu_fault, g::Access::Read)) {
    raise_mmu(s, t);
    return false;
  }
  return true;
}

uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

struct Attribute {
  uint32_t buffer_index = 0, format = 0;
  bool offset_enable = false;
  int32_t offset = 0;
};

// The Attribute record a (DTSEL-tagged) handle names, or false with FAULT set.
bool read_attribute(State& s, uint32_t handle, Attribute& a) {
  auto& t = g::bifrost::thread_of(s);
  // An untagged handle selects the secondary table; only the primary one (0) exists in a compute job.
  uint32_t table = (handle >> 31) ? (handle >> 24) & 3 : 1;
  uint32_t index = (handle >> 31) ? handle & 0xffffff : handle;
  if (table != 0) {
    s.FAULT = kDataInvalidFault;
    return false;
  }
  if (index >= t.attr_count) {
    s.FAULT = kAddrRangeFault;
    return false;
  }
  uint8_t d[8];
  if (!read_mem(s, t.attr_table + 8ull * index, d, sizeof d)) return false;
  uint32_t w0 = le32(d);
  a.buffer_index = w0 & 0x1ff;
  a.offset_enable = (w0 >> 9) & 1;
  a.format = w0 >> 10;
  a.offset = static_cast<int32_t>(le32(d + 4));
  return true;
}

bool decode_format(State& s, uint32_t format, Format& f) {
  // sRGB and big-endian layouts are not implemented.
  if ((format >> 20) != 0 || !lookup_format((format >> 12) & 0xff, f)) {
    s.FAULT = kDataInvalidFault;
    return false;
  }
  return true;
}

// ---- channel conversions

uint32_t clamp_signed(int64_t v, unsigned bytes) {
  int64_t lo = bytes == 4 ? std::numeric_limits<int32_t>::min() : -128;
  int64_t hi = bytes == 4 ? std::numeric_limits<int32_t>::max() : 127;
  return static_cast<uint32_t>(static_cast<int32_t>(v < lo ? lo : v > hi ? hi : v));
}
uint32_t clamp_unsigned(int64_t v, unsigned bytes) {
  int64_t hi = bytes == 4 ? int64_t{0xffffffff} : 255;
  return static_cast<uint32_t>(v < 0 ? 0 : v > hi ? hi : v);
}

// The register format a conversion word asks for, with auto resolved to the format's own type; false (FAULT
// set) for an unimplemented one or one of the other class than the format.
bool register_format(State& s, uint32_t regfmt, const Format& f, uint32_t& out) {
  bool is_float = f.kind == Kind::Float32 || f.kind == Kind::Unorm;
  if (regfmt == kAuto) regfmt = is_float ? kF32 : f.kind == Kind::Uint ? kU32 : kS32;
  if ((regfmt == kF32) != is_float || (regfmt != kF32 && regfmt != kS32 && regfmt != kU32)) {
    s.FAULT = kDataInvalidFault;
    return false;
  }
  out = regfmt;
  return true;
}

// A memory channel (raw little-endian bits) as a register value of format `reg`.
uint32_t channel_to_reg(uint32_t raw, const Format& f, uint32_t reg) {
  switch (f.kind) {
  case Kind::Float32: return raw;
  case Kind::Unorm: {
    float v = static_cast<float>(raw) / 255.0f;
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  }
  case Kind::Uint: return reg == kS32 ? clamp_signed(raw, 4) : raw;
  case Kind::Sint: {
    int64_t v = f.bytes == 1 ? static_cast<int8_t>(raw) : static_cast<int32_t>(raw);
    return reg == kU32 ? clamp_unsigned(v, 4) : static_cast<uint32_t>(v);
  }
  }
  return 0;
}

// A register value of format `reg` as a memory channel's raw bits.
uint32_t reg_to_channel(uint32_t v, const Format& f, uint32_t reg) {
  switch (f.kind) {
  case Kind::Float32: return v;
  case Kind::Unorm: {
    float x;
    std::memcpy(&x, &v, 4);
    if (!(x > 0.0f)) return 0; // also NaN
    if (x >= 1.0f) return 255;
    return static_cast<uint32_t>(std::nearbyint(x * 255.0f)); // default rounding: to nearest even
  }
  case Kind::Uint: {
    int64_t x = reg == kS32 ? int64_t{static_cast<int32_t>(v)} : int64_t{v};
    return clamp_unsigned(x, f.bytes);
  }
  case Kind::Sint: {
    int64_t x = reg == kU32 ? int64_t{v} : int64_t{static_cast<int32_t>(v)};
    return clamp_signed(x, f.bytes) & (f.bytes == 4 ? 0xffffffffu : 0xffu);
  }
  }
  return 0;
}

uint32_t one_of(uint32_t reg) { return reg == kF32 ? 0x3f800000u : 1u; }

} // namespace

uint64_t attr_texel_address(State& s, uint64_t handle, uint64_t xy, uint64_t zw) {
  auto& t = g::bifrost::thread_of(s);
  Attribute a;
  if (!read_attribute(s, static_cast<uint32_t>(handle), a)) return 0;
  Format f;
  if (!decode_format(s, a.format, f)) return 0;
  uint8_t b[32];
  uint64_t buf = t.attr_buffers + 16ull * a.buffer_index;
  if (!read_mem(s, buf, b, 16)) return 0;
  uint64_t w0 = le32(b) | uint64_t{le32(b + 4)} << 32;
  uint32_t type = w0 & 0x3f;
  uint64_t pointer = (w0 & 0x00ffffffffffffc0ull);
  uint64_t stride = le32(b + 8), size = le32(b + 12);
  uint64_t offset = 0;
  if (type == kType1D) {
    offset = (xy & 0xffffffffu) * stride;
  } else if (type == kType3DLinear) {
    if (!read_mem(s, buf + 16, b + 16, 16)) return 0;
    uint64_t c0 = le32(b + 16), c1 = le32(b + 20);
    if ((c0 & 0x3f) != kTypeContinuation) {
      s.FAULT = kDataInvalidFault;
      return 0;
    }
    uint64_t width = (c0 >> 16) + 1, height = (c1 & 0xffff) + 1, depth = (c1 >> 16) + 1;
    uint64_t x = xy & 0xffff, y = (xy >> 16) & 0xffff, z = zw & 0xffffffffu;
    if (x >= width || y >= height || z >= depth) {
      s.FAULT = kAddrRangeFault;
      return 0;
    }
    offset = x * stride + y * le32(b + 24) + z * uint64_t{le32(b + 28)};
  } else {
    s.FAULT = kDataInvalidFault; // 3D interleaved (tiled) and the vertex-attribute types are not modelled
    return 0;
  }
  if (a.offset_enable) offset += static_cast<uint64_t>(static_cast<int64_t>(a.offset));
  uint64_t texel = uint64_t{f.channels} * f.bytes;
  // Offsets wrap as 64-bit values; a negative one is as far out of range as a huge one.
  if (offset > size || size - offset < texel) {
    s.FAULT = kAddrRangeFault;
    return 0;
  }
  return pointer + offset;
}

uint64_t attr_conversion(State& s, uint64_t handle, uint64_t regfmt) {
  Attribute a;
  if (!read_attribute(s, static_cast<uint32_t>(handle), a)) return 0;
  return (a.format & 0x3fffff) | (regfmt & 0xf) << 22;
}

uint64_t cvt_load(State& s, uint64_t va, uint64_t cvt, uint64_t comp) {
  Format f;
  uint32_t reg;
  if (!decode_format(s, cvt & 0x3fffff, f) || !register_format(s, (cvt >> 22) & 0xf, f, reg)) return 0;
  uint8_t texel[16] = {};
  if (!read_mem(s, va, texel, f.channels * f.bytes)) return 0;
  // One texel read per message (image_load_regs asks for component 0 first, then the others of the same
  // texel).
  if (comp == 0)
    if (uint64_t* bytes = g::bifrost::thread_of(s).image_bytes) bytes[0] += f.channels * f.bytes;
  // The format's channel selector for this component: R, G, B, A, constant 0, constant 1.
  uint32_t sel = (cvt >> (3 * comp)) & 7;
  if (sel == 4) return 0;
  if (sel == 5) return one_of(reg);
  if (sel > 5) {
    s.FAULT = kDataInvalidFault;
    return 0;
  }
  if (sel >= f.channels) return sel == 3 ? one_of(reg) : 0;
  uint32_t raw = 0;
  std::memcpy(&raw, texel + sel * f.bytes, f.bytes);
  return channel_to_reg(raw, f, reg);
}

void cvt_store(State& s, uint64_t va, uint64_t cvt, uint64_t vecsize, uint64_t v0, uint64_t v1, uint64_t v2,
               uint64_t v3) {
  auto& t = g::bifrost::thread_of(s);
  Format f;
  uint32_t reg;
  if (!decode_format(s, cvt & 0x3fffff, f) || !register_format(s, (cvt >> 22) & 0xf, f, reg)) return;
  const uint32_t v[4] = {uint32_t(v0), uint32_t(v1), uint32_t(v2), uint32_t(v3)};
  uint8_t texel[16] = {};
  for (unsigned c = 0; c < f.channels; ++c) {
    uint32_t value = c <= vecsize ? v[c] : c == 3 ? one_of(reg) : 0;
    uint32_t raw = reg_to_channel(value, f, reg);
    std::memcpy(texel + c * f.bytes, &raw, f.bytes);
  }
  if (!t.mmu || !t.mmu->write(t.as, va, texel, f.channels * f.bytes, t.mmu_fault)) {
    raise_mmu(s, t);
    return;
  }
  if (t.image_bytes) t.image_bytes[1] += f.channels * f.bytes;
}

} // namespace vplat::gen::bifrost
