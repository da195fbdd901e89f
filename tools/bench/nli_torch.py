"""PyTorch reference for 15.5 NLI with decomposable attention
(sec_natural-language-inference-attention).

Trains the book's DecomposableAttention (embed 100, hidden 200, batch 256,
num_steps 50, Adam lr 0.001, 4 epochs, loss = CrossEntropyLoss(reduction
'none') summed per batch) with the book's train_ch13 bookkeeping and prints:
  loss 0.xxx, train acc 0.xxx, test acc 0.xxx
  NNNN.N examples/sec on cpu
Data (--data DIR): the shared SNLI export, training on validation.tsv and
testing on test.tsv (tokens from torch_common.tokenize_snli, as the export
holds raw sentences); or, without it, the book's SNLI 1.0 from `make data`
(data/snli_1.0/, the full training split).
No GloVe offline: unlike the book, the embedding keeps PyTorch's default
init N(0, 1) and is trained. Comparison only, not a build or test
dependency. Run from the repository root:
  /usr/bin/python3 tools/bench/nli_torch.py --threads 2 --seed 0
"""
import os

import torch_common as d2l  # sets OPENBLAS_NUM_THREADS from --threads first
import torch
from torch import nn


def main():
    p = d2l.arg_parser(__doc__.split('\n')[0], d2l.DEFAULT_SNLI, 4, '1 epoch (smoke test)')
    args = p.parse_args()
    epochs = 1 if args.quick else args.epochs
    d2l.require_file(os.path.join(args.data, 'snli_1.0_train.txt')
                     if os.path.exists(os.path.join(args.data, 'snli_1.0_train.txt'))
                     else os.path.join(args.data, 'validation.tsv'))
    d2l.require_file(os.path.join(args.data, 'test.tsv'))
    d2l.setup(args.seed, args.threads)

    batch_size, num_steps = 256, 50
    print(f'data: {args.data} (train validation.tsv, test test.tsv)')
    train_iter, test_iter, vocab = d2l.load_data_snli(batch_size, num_steps,
                                                      args.data)
    print(f'vocab {len(vocab)}; embeddings: default init N(0, 1), no GloVe')
    embed_size, num_hiddens = 100, 200
    net = d2l.DecomposableAttention(vocab, embed_size, num_hiddens)
    lr = 0.001
    trainer = torch.optim.Adam(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss(reduction='none')
    train_loss, train_acc, test_acc, speed = d2l.train_ch13(
        net, train_iter, test_iter, loss, trainer, epochs)
    print('d2l.predict_snli(he is good . / he is bad .):',
          d2l.predict_snli(net, vocab, ['he', 'is', 'good', '.'],
                       ['he', 'is', 'bad', '.']))
    print(f'bench=nli_torch seed={args.seed} threads={torch.get_num_threads()} '
          f'epochs={epochs} loss={train_loss:.4f} train_acc={train_acc:.4f} '
          f'test_acc={test_acc:.4f} examples_per_sec={speed:.1f}')
    d2l.print_peak_rss()


if __name__ == '__main__':
    main()
