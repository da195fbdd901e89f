// core/random.h — the one seeded random generator every random op draws from.
//
// manual_seed(s) makes every later normal(), rand(), dropout mask and initialiser
// reproducible bit for bit (torch.manual_seed). The generator is xoshiro256** seeded by
// splitmix64 and the normal draws use Box–Muller written out here, so results do not depend
// on the standard library's distribution code. Draws happen on the calling thread in a
// fixed order, never inside an OpenMP region, so they do not depend on the thread count.
#pragma once
#include <cstdint>

namespace d2l {

void manual_seed(uint64_t seed);
uint64_t random_u64();          // 64 random bits
float random_uniform();         // [0, 1)
float random_normal();          // N(0, 1)
int64_t random_int(int64_t n);  // uniform in [0, n)

// Chris Wellons' "lowbias32" integer hash: every output bit depends on every input bit.
inline uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Dropout's mask as a pure function of the element index i and a key (one random_u64() per
// dropout call, so masks follow manual_seed): element i is kept iff
// hash32(hash32(i ^ key_lo) + key_hi) >= threshold, where threshold = p * 2^32. Being
// counter-based, the mask needs no storage (backward recomputes it), can be computed in any
// order by any thread with the same bits, and vectorises (32-bit integer multiplies).
inline bool dropout_keeps(uint32_t i, uint64_t key, uint32_t threshold) {
  return hash32(hash32(i ^ static_cast<uint32_t>(key)) + static_cast<uint32_t>(key >> 32)) >= threshold;
}

// The generator's whole state (torch.get_rng_state / set_rng_state): a run that saves it
// after epoch N and restores it before epoch N + 1 draws the same shuffles and dropout masks
// as a run that never stopped.
struct RngState {
  uint64_t s[4] = {0, 0, 0, 0};
  bool has_spare = false;  // Box–Muller's second normal, waiting for the next random_normal()
  float spare = 0.0f;
};
RngState get_rng_state();
void set_rng_state(const RngState& state);  // refuses the all-zero state xoshiro cannot leave

}  // namespace d2l
