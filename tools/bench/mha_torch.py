"""Forward+backward time of the book's MultiHeadAttention (10.5) in PyTorch.

Sizes (batch, seq, hidden, heads): (64, 10, 32, 4), (32, 50, 128, 8),
(8, 200, 512, 8). Self-attention: queries = keys = values = X of shape
(batch, seq, hidden), key/query/value size = num_hiddens = hidden, no bias
(the book's default), valid_lens None, dropout 0 (module in eval mode, so no
random mask). One timed step = forward, out.sum().backward() into X and the
four weight matrices, then zeroing the grads; the median over --reps steps
after --warmup untimed ones is printed as
  bench=mha_torch batch=.. seq=.. hidden=.. heads=.. threads=.. ms=<median>
Comparison only, not a build or test dependency. Run from the repository root:
  /usr/bin/python3 tools/bench/mha_torch.py --threads 2
"""
import time

import torch_common as d2l  # sets OPENBLAS_NUM_THREADS from --threads first
import torch

SIZES = [(64, 10, 32, 4), (32, 50, 128, 8), (8, 200, 512, 8)]


def bench_one(batch, seq, hidden, heads, reps, warmup):
    mha = d2l.MultiHeadAttention(hidden, hidden, hidden, hidden, heads, 0.0)
    mha.eval()
    X = torch.randn(batch, seq, hidden, requires_grad=True)
    times = []
    for r in range(warmup + reps):
        t0 = time.perf_counter()
        out = mha(X, X, X, None)
        out.sum().backward()
        X.grad = None
        for p in mha.parameters():
            p.grad = None
        t1 = time.perf_counter()
        if r >= warmup:
            times.append((t1 - t0) * 1e3)
    return d2l.median(times)


def main():
    args, reps, warmup = d2l.timing_args(__doc__.split('\n')[0], 50, 5, 5)
    d2l.setup(args.seed, args.threads)
    for batch, seq, hidden, heads in SIZES:
        ms = bench_one(batch, seq, hidden, heads, reps, warmup)
        print(f'bench=mha_torch batch={batch} seq={seq} hidden={hidden} '
              f'heads={heads} threads={torch.get_num_threads()} ms={ms:.3f}',
              flush=True)
    d2l.print_peak_rss()


if __name__ == '__main__':
    main()
