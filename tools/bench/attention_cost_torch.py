"""PyTorch's side of 10.7 exercises 4 and 5 (chapters/attention_cost.cpp): one
MultiHeadAttention layer (the book's, 10.5: linear projections without bias,
heads split, scaled dot-product attention as matmul, softmax, matmul, W_o),
batch 1, forward + out.sum().backward(), against the sequence length n.

As the C++ program, each measurement runs in a fresh process (this script
started again with --one N): the median time of --repeats runs, and the peak
resident memory (getrusage) minus what the process held before the first
forward. Prints one line per n and thread setting:
  bench=attention_cost_torch n=.. threads=.. seconds=.. peak_mb=..
--threads takes a list (1,2: the settings alternate, n by n); --csv FILE writes, per n,
the best setting's row as chapters/attention_cost --pytorch FILE reads it:
  n,threads,seconds,peak_mb
Comparison only, not a build or test dependency. From the repository root:
  /usr/bin/python3 tools/bench/attention_cost_torch.py --threads 1,2 --csv out/torch.csv
  build/chapters/attention_cost --layer attention --pytorch out/torch.csv
"""
import argparse
import resource
import subprocess
import sys
import time

import torch_common as d2l  # sets OPENBLAS_NUM_THREADS from --threads first
import torch


def resident_mb():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1048576.0


def measure(n, hidden, heads, repeats):
    torch.manual_seed(0)
    mha = d2l.MultiHeadAttention(hidden, hidden, hidden, hidden, heads, 0.0)
    mha.eval()  # dropout 0 anyway; no random mask
    X = torch.randn(1, n, hidden, requires_grad=True)
    before = resident_mb()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        mha(X, X, X, None).sum().backward()
        times.append(time.perf_counter() - t0)
    times.sort()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return times[len(times) // 2], peak - before


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--sizes', default='64,128,256,512,1024,2048,4096')
    p.add_argument('--num-hiddens', type=int, default=512)
    p.add_argument('--num-heads', type=int, default=8)
    p.add_argument('--repeats', type=int, default=3)
    p.add_argument('--threads', default='2', help='thread settings, comma-separated (the best is kept)')
    p.add_argument('--csv', default='', help='write the best setting per n here')
    p.add_argument('--one', type=int, default=0, help='measure this n in this process')
    a = p.parse_args()
    settings = [int(t) for t in a.threads.split(',')]
    if a.one:
        torch.set_num_threads(settings[0])
        s, mb = measure(a.one, a.num_hiddens, a.num_heads, a.repeats)
        print(f'bench=attention_cost_torch n={a.one} threads={settings[0]} seconds={s:.6f} peak_mb={mb:.1f}')
        return
    best = []
    for n in [int(x) for x in a.sizes.split(',')]:
        rows = []
        for threads in settings:
            out = subprocess.run([sys.executable, __file__, '--one', str(n), '--num-hiddens', str(a.num_hiddens),
                                  '--num-heads', str(a.num_heads), '--repeats', str(a.repeats),
                                  '--threads', str(threads)], capture_output=True, text=True, check=True)
            line = out.stdout.strip().splitlines()[-1]
            print(line, flush=True)
            fields = dict(w.split('=') for w in line.split())
            rows.append((float(fields['seconds']), threads, float(fields['peak_mb'])))
        seconds, threads, mb = min(rows)
        best.append(f'{n},{threads},{seconds:.6f},{mb:.1f}')
    if a.csv:
        with open(a.csv, 'w') as f:
            f.write('n,threads,seconds,peak_mb\n' + '\n'.join(best) + '\n')
        print(f'wrote {a.csv}')


if __name__ == '__main__':
    main()
