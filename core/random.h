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

}  // namespace d2l
