// Arithmetic primitives that generated code uses. Values of an N-bit unsigned type live in uint64_t with
// the bits above N clear; values of an N-bit signed type live in int64_t, sign-extended from bit N-1.
// Every operation here is total: shifts by the width or more, division by zero and INT_MIN / -1 all have
// defined results (those the A64 and Bifrost semantics want), so no guest input reaches host UB.
#pragma once
#include <cstdint>
#include <string>

namespace vplat::adlrt {

using u128 = unsigned __int128;

template <int W> constexpr uint64_t cu(uint64_t v) {
  if constexpr (W >= 64) return v;
  else return v & ((uint64_t(1) << W) - 1);
}
template <int W> constexpr int64_t cs(uint64_t v) {
  if constexpr (W >= 64) return static_cast<int64_t>(v);
  else return static_cast<int64_t>(v << (64 - W)) >> (64 - W);
}
constexpr uint64_t field(uint64_t insn, int lsb, int width) {
  return width >= 64 ? insn >> lsb : (insn >> lsb) & ((uint64_t(1) << width) - 1);
}
template <int W> constexpr uint64_t shl(uint64_t v, uint64_t n) { return n >= 64 ? 0 : cu<W>(v << n); }
constexpr uint64_t lshr(uint64_t v, uint64_t n) { return n >= 64 ? 0 : v >> n; }
constexpr int64_t ashr(int64_t v, uint64_t n) { return v >> (n >= 64 ? 63 : n); }
constexpr u128 shl128(u128 v, uint64_t n) { return n >= 128 ? 0 : v << n; }
constexpr u128 lshr128(u128 v, uint64_t n) { return n >= 128 ? 0 : v >> n; }
constexpr uint64_t udiv(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }
constexpr uint64_t urem(uint64_t a, uint64_t b) { return b == 0 ? a : a % b; }
constexpr int64_t sdiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  return a / b;
}
constexpr int64_t srem(int64_t a, int64_t b) {
  if (b == 0) return a;
  if (b == -1) return 0;
  return a % b;
}
constexpr uint64_t bit(uint64_t v, uint64_t i) { return i >= 64 ? 0 : (v >> i) & 1; }
constexpr uint64_t bit128(u128 v, uint64_t i) { return i >= 128 ? 0 : static_cast<uint64_t>(v >> i) & 1; }
// Vector elements: element i of esize bits (1..64) of v, counted from the least significant end; an element
// wholly or partly beyond bit 127 reads its bits there as zero, and writes there are dropped.
constexpr uint64_t elem_mask(uint64_t esize) {
  return esize >= 64 ? ~uint64_t(0) : (uint64_t(1) << esize) - 1;
}
constexpr uint64_t lane(u128 v, uint64_t esize, uint64_t i) {
  return static_cast<uint64_t>(lshr128(v, i * esize)) & elem_mask(esize);
}
constexpr u128 with_lane(u128 v, uint64_t esize, uint64_t i, uint64_t x) {
  const uint64_t m = elem_mask(esize);
  return (v & ~shl128(m, i * esize)) | shl128(x & m, i * esize);
}
// The description language's builtin functions (generator/checker.cpp, find_builtin).
constexpr uint64_t clz64(uint64_t x) {
  return x == 0 ? 64 : static_cast<uint64_t>(__builtin_clzll(x));
}
constexpr uint64_t bswap64(uint64_t x) {
  return __builtin_bswap64(x);
}
constexpr uint64_t bitreverse64(uint64_t x) {
  x = ((x & 0x5555555555555555ull) << 1) | ((x >> 1) & 0x5555555555555555ull);
  x = ((x & 0x3333333333333333ull) << 2) | ((x >> 2) & 0x3333333333333333ull);
  x = ((x & 0x0f0f0f0f0f0f0f0full) << 4) | ((x >> 4) & 0x0f0f0f0f0f0f0f0full);
  return __builtin_bswap64(x);
}
constexpr uint64_t popcount64(uint64_t x) {
  return static_cast<uint64_t>(__builtin_popcountll(x));
}
inline std::string to_text(const std::string& s) { return s; }
inline std::string to_text(uint64_t v) { return std::to_string(v); }
inline std::string to_text(int64_t v) { return std::to_string(v); }

} // namespace vplat::adlrt
