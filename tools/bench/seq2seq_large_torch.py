"""The book's Bahdanau seq2seq model at larger sizes, timed in PyTorch
(tools/bench/seq2seq.cpp times the same on our side): Seq2SeqEncoder(vocab 5000, embed 256, hidden 512, 2 layers)
and Seq2SeqAttentionDecoder(5000, 256, 512, 2 layers, dropout 0.1) on random
token batches src, tgt of shape (32, 20); output (32, 20, 5000).

The encoder has no dropout (it is not passed one), the
decoder's state comes from init_state(encoder(src), None), so there is no
valid-length masking. Weights keep PyTorch's default init. Both modules are
in training mode (decoder dropout active) for both measurements:
  fwd_ms    median of forward passes under torch.no_grad()
  fwdbwd_ms median of forward + output.sum().backward() + zeroing the grads
printed as
  bench=seq2seq_large_torch threads=.. fwd_ms=.. fwdbwd_ms=..
Comparison only, not a build or test dependency. Run from the repository root:
  /usr/bin/python3 tools/bench/seq2seq_large_torch.py --threads 2
"""
import time

import torch_common as d2l  # sets OPENBLAS_NUM_THREADS from --threads first
import torch


def main():
    args, reps, warmup = d2l.timing_args(__doc__.split('\n')[0], 20, 3, 3)
    d2l.setup(args.seed, args.threads)

    vocab_size, embed_size, num_hiddens, num_layers = 5000, 256, 512, 2
    encoder = d2l.Seq2SeqEncoder(vocab_size, embed_size, num_hiddens,
                                 num_layers)
    decoder = d2l.Seq2SeqAttentionDecoder(vocab_size, embed_size, num_hiddens,
                                      num_layers, dropout=0.1)
    encoder.train()
    decoder.train()
    src = torch.randint(0, vocab_size, (32, 20))
    tgt = torch.randint(0, vocab_size, (32, 20))
    params = list(encoder.parameters()) + list(decoder.parameters())

    def forward():
        state = decoder.init_state(encoder(src), None)
        output, _ = decoder(tgt, state)
        return output

    with torch.no_grad():
        print('output shape', tuple(forward().shape))
    fwd, fwdbwd = [], []
    for r in range(warmup + reps):
        t0 = time.perf_counter()
        with torch.no_grad():
            forward()
        t1 = time.perf_counter()
        forward().sum().backward()
        for q in params:
            q.grad = None
        t2 = time.perf_counter()
        if r >= warmup:
            fwd.append((t1 - t0) * 1e3)
            fwdbwd.append((t2 - t1) * 1e3)
    print(f'bench=seq2seq_large_torch threads={torch.get_num_threads()} '
          f'fwd_ms={d2l.median(fwd):.2f} fwdbwd_ms={d2l.median(fwdbwd):.2f}')
    d2l.print_peak_rss()


if __name__ == '__main__':
    main()
