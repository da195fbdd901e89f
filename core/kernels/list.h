// core/kernels/list.h — every kernel of the seam: the headers of core/kernels/, one per file
// of core/kernels/reference/ and core/kernels/fast/ (core/kernels/seam.h explains the seam). Adding a kernel: a
// D2L_KERNEL line with its legend in the header of its file, a definition in each tier, and
// a check in tests/test_core_kernel_tiers*.cpp whose mismatches() label starts with its
// name (suite core_kernel_tiers_cover finds a kernel that has none).
#pragma once
#include "core/kernels/copy.h"
#include "core/kernels/elementwise.h"
#include "core/kernels/memory_efficient_attention.h"
#include "core/kernels/gru.h"
#include "core/kernels/matmul.h"
#include "core/kernels/nn.h"
#include "core/kernels/optim.h"
#include "core/kernels/reduce.h"
#include "core/kernels/softmax.h"

namespace d2l {
namespace kernels {
const char* tier_name();  // "fast" or "reference": the tier this build calls (core/kernels/seam.cpp)
}  // namespace kernels
}  // namespace d2l
