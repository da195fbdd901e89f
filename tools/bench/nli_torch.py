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
from torch.nn import functional as F


def mlp(num_inputs, num_hiddens, flatten):
    """Dropout 0.2, Linear, ReLU, Dropout 0.2, Linear, ReLU (+ Flatten after
    each ReLU when flatten, a no-op on the 2-D input of Aggregate)."""
    layers = [nn.Dropout(0.2), nn.Linear(num_inputs, num_hiddens), nn.ReLU()]
    if flatten:
        layers.append(nn.Flatten(start_dim=1))
    layers += [nn.Dropout(0.2), nn.Linear(num_hiddens, num_hiddens), nn.ReLU()]
    if flatten:
        layers.append(nn.Flatten(start_dim=1))
    return nn.Sequential(*layers)


class Attend(nn.Module):
    """e_ij = f(a_i)^T f(b_j); beta = softmax(e) B; alpha = softmax(e^T) A.
    Like the book, <pad> positions are not masked."""
    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.f = mlp(num_inputs, num_hiddens, flatten=False)

    def forward(self, A, B):
        f_A, f_B = self.f(A), self.f(B)
        e = torch.bmm(f_A, f_B.permute(0, 2, 1))  # (batch, m, n)
        beta = torch.bmm(F.softmax(e, dim=-1), B)
        alpha = torch.bmm(F.softmax(e.permute(0, 2, 1), dim=-1), A)
        return beta, alpha


class Compare(nn.Module):
    """v_A,i = g([a_i, beta_i]), v_B,j = g([b_j, alpha_j])."""
    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.g = mlp(num_inputs, num_hiddens, flatten=False)

    def forward(self, A, B, beta, alpha):
        return (self.g(torch.cat([A, beta], dim=2)),
                self.g(torch.cat([B, alpha], dim=2)))


class Aggregate(nn.Module):
    """Sum over positions, concat, h, then a Linear to the 3 classes."""
    def __init__(self, num_inputs, num_hiddens, num_outputs):
        super().__init__()
        self.h = mlp(num_inputs, num_hiddens, flatten=True)
        self.linear = nn.Linear(num_hiddens, num_outputs)

    def forward(self, V_A, V_B):
        return self.linear(self.h(torch.cat([V_A.sum(dim=1), V_B.sum(dim=1)],
                                            dim=1)))


class DecomposableAttention(nn.Module):
    def __init__(self, vocab, embed_size, num_hiddens, num_inputs_attend=100,
                 num_inputs_compare=200, num_inputs_agg=400):
        super().__init__()
        self.embedding = nn.Embedding(len(vocab), embed_size)
        self.attend = Attend(num_inputs_attend, num_hiddens)
        self.compare = Compare(num_inputs_compare, num_hiddens)
        self.aggregate = Aggregate(num_inputs_agg, num_hiddens, num_outputs=3)

    def forward(self, X):
        premises, hypotheses = X
        A, B = self.embedding(premises), self.embedding(hypotheses)
        beta, alpha = self.attend(A, B)
        V_A, V_B = self.compare(A, B, beta, alpha)
        return self.aggregate(V_A, V_B)


def accuracy(y_hat, y):
    return float((y_hat.argmax(dim=1).type(y.dtype) == y).sum())


def evaluate_accuracy(net, data_iter):
    net.eval()
    metric = d2l.Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


def train_ch13(net, train_iter, test_iter, loss, trainer, num_epochs):
    """The book's train_ch13 on one CPU device: the timer covers only the
    training batches (not loading, not evaluation); examples/sec = examples
    of the last epoch * epochs / total timed seconds."""
    timer = d2l.Timer()
    timer.times.clear()
    for epoch in range(num_epochs):
        metric = d2l.Accumulator(4)  # loss sum, correct, examples, labels
        for features, labels in train_iter:
            timer.start()
            net.train()
            trainer.zero_grad()
            pred = net(features)
            l = loss(pred, labels)
            l.sum().backward()
            trainer.step()
            metric.add(l.sum(), accuracy(pred, labels), labels.shape[0],
                       labels.numel())
            timer.stop()
        test_acc = evaluate_accuracy(net, test_iter)
        print(f'epoch {epoch + 1}, loss {metric[0] / metric[2]:.3f}, train acc '
              f'{metric[1] / metric[3]:.3f}, test acc {test_acc:.3f}', flush=True)
    train_loss, train_acc = metric[0] / metric[2], metric[1] / metric[3]
    speed = metric[2] * num_epochs / timer.sum()
    print(f'loss {train_loss:.3f}, train acc {train_acc:.3f}, '
          f'test acc {test_acc:.3f}')
    print(f'{speed:.1f} examples/sec on cpu')
    return train_loss, train_acc, test_acc, speed


def predict_snli(net, vocab, premise, hypothesis):
    net.eval()
    premise = torch.tensor(vocab[premise])
    hypothesis = torch.tensor(vocab[hypothesis])
    label = torch.argmax(net([premise.reshape((1, -1)),
                              hypothesis.reshape((1, -1))]), dim=1)
    return d2l.SNLI_LABELS[int(label)]


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
    net = DecomposableAttention(vocab, embed_size, num_hiddens)
    lr = 0.001
    trainer = torch.optim.Adam(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss(reduction='none')
    train_loss, train_acc, test_acc, speed = train_ch13(
        net, train_iter, test_iter, loss, trainer, epochs)
    print('predict_snli(he is good . / he is bad .):',
          predict_snli(net, vocab, ['he', 'is', 'good', '.'],
                       ['he', 'is', 'bad', '.']))
    print(f'bench=nli_torch seed={args.seed} threads={torch.get_num_threads()} '
          f'epochs={epochs} loss={train_loss:.4f} train_acc={train_acc:.4f} '
          f'test_acc={test_acc:.4f} examples_per_sec={speed:.1f}')
    d2l.print_peak_rss()


if __name__ == '__main__':
    main()
