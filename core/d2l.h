// core/d2l.h — the whole engine in one include, for a program of your own:
//
//   #include "core/d2l.h"
//   using namespace d2l;
//
// Tensor and its creation functions (randn as normal(0, 1, shape), rand, randint, ...),
// grad mode (NoGrad), every op (arithmetic, comparisons, reductions, shapes, matmul,
// softmax, dropout, layer_norm, cross-entropy, abs, allclose, accuracy), Module with
// ModuleList and Sequential, the optimisers (SGD, Adam, clip_grad_norm), the initialisers,
// the seeded generator (manual_seed) and the debug switches (trace, profile, numerics
// check, to_dot). The book's layers are in layers/, one header per section; the data sets and training loops in tools/.
#pragma once
#include "core/autograd.h"
#include "core/nn/container.h"
#include "core/debug/debug.h"
#include "core/nn/init.h"
#include "core/nn/module.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "core/random.h"
#include "core/tensor.h"
