// Counter-based random numbers: every value is a pure function of (seed, stream, index), so data
// and initial weights are the same on every rank, platform and run, and any sample can be made
// without generating the ones before it.
#pragma once

#include <cstdint>

namespace trainer {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline std::uint64_t hash3(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index);
}

// Uniform in [0, 1) with 24 random bits (exact in float).
inline float uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return static_cast<float>(hash3(seed, stream, index) >> 40) * 0x1p-24f;
}

// Uniform in [-a, a).
inline float uniform_sym(std::uint64_t seed, std::uint64_t stream, std::uint64_t index, float a) {
  return (2.0f * uniform01(seed, stream, index) - 1.0f) * a;
}

// The streams (one per use, so that no two uses share numbers).
enum Stream : std::uint64_t {
  stream_weights = 1,    // + layer index * 2
  stream_teacher = 101,  // + teacher layer
  stream_inputs = 201,
  stream_jitter = 301,  // index: rank * 2^32 + iteration
};

}  // namespace trainer
