// core/random.cpp — xoshiro256** (Blackman & Vigna) seeded through splitmix64.
#include "core/random.h"

#include <cmath>

#include "core/shape.h"  // check

namespace d2l {
namespace {

struct Generator {
  uint64_t s[4];
  bool has_spare = false;  // Box–Muller makes normals in pairs; keep the second
  float spare = 0.0f;
};

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Generator make_generator(uint64_t seed) {
  Generator g;
  for (auto& w : g.s) w = splitmix64(seed);
  return g;
}

Generator& gen() {
  static Generator g = make_generator(0);
  return g;
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

void manual_seed(uint64_t seed) { gen() = make_generator(seed); }

RngState get_rng_state() {
  const Generator& g = gen();
  RngState r;
  for (int i = 0; i < 4; ++i) r.s[i] = g.s[i];
  r.has_spare = g.has_spare;
  r.spare = g.spare;
  return r;
}

void set_rng_state(const RngState& r) {
  check(r.s[0] || r.s[1] || r.s[2] || r.s[3], "set_rng_state", "the all-zero state is not one xoshiro256** can reach");
  Generator& g = gen();
  for (int i = 0; i < 4; ++i) g.s[i] = r.s[i];
  g.has_spare = r.has_spare;
  g.spare = r.spare;
}

uint64_t random_u64() {
  uint64_t* s = gen().s;
  const uint64_t result = rotl(s[1] * 5, 7) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

// The top 24 bits make every float in [0, 1) with spacing 2^-24, never 1.0f.
float random_uniform() { return static_cast<float>(random_u64() >> 40) * (1.0f / 16777216.0f); }

float random_normal() {
  Generator& g = gen();
  if (g.has_spare) {
    g.has_spare = false;
    return g.spare;
  }
  // Box–Muller on doubles: u1 in (0, 1] so log(u1) is finite.
  const double u1 = (static_cast<double>(random_u64() >> 11) + 1.0) * (1.0 / 9007199254740992.0);
  const double u2 = static_cast<double>(random_u64() >> 11) * (1.0 / 9007199254740992.0);
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 6.283185307179586 * u2;
  g.spare = static_cast<float>(r * std::sin(theta));
  g.has_spare = true;
  return static_cast<float>(r * std::cos(theta));
}

int64_t random_int(int64_t n) {
  if (n <= 1) return 0;
  // Rejection sampling avoids the bias of a plain modulo.
  const uint64_t un = static_cast<uint64_t>(n);
  const uint64_t limit = UINT64_MAX - UINT64_MAX % un;
  uint64_t x;
  do x = random_u64(); while (x >= limit);
  return static_cast<int64_t>(x % un);
}

}  // namespace d2l
