"""The book's PyTorch code, written once: the models and d2l helpers that the
comparison scripts of tools/bench/, tools/scripts/crossover_torch.py and
tests/module_repr_torch.py build on.

None of it is part of the C++ build or tests: it exists so that our numbers
can be set beside PyTorch's (Debian python3-torch, CPU) on the same data,
machine and thread count, and so that a model crosses over with the book's
parameter names. Run the scripts from the repository root with
/usr/bin/python3.

Everything here re-implements, in our own code, the d2l package helpers the
book's PyTorch tab uses (d2l-zh, d2l/torch.py), with the book's names,
defaults and arithmetic:
  9.5 machine-translation-and-dataset: read_data_nmt, preprocess_nmt,
      tokenize_nmt, truncate_pad, build_array_nmt, load_data_nmt
  8.2 text-preprocessing: Vocab
  8.5 rnn-scratch: grad_clipping
  9.7 seq2seq: sequence_mask, MaskedSoftmaxCELoss, train_seq2seq,
      predict_seq2seq, bleu
  15.4 natural-language-inference-and-dataset: read_snli (for the simple TSV
      export in ../shared/data/snli/), tokenize_snli, SNLIDataset,
      load_data_snli
  13.x / 15.5: train_ch13, predict_snli
  plus Timer, Accumulator, Encoder/Decoder/EncoderDecoder, Seq2SeqEncoder,
and the book's models: masked_softmax, AdditiveAttention, DotProductAttention
(10.3), NWKernelRegression (10.2), Seq2SeqAttentionDecoder (10.4),
MultiHeadAttention (10.5), PositionalEncoding (10.6), PositionWiseFFN,
AddNorm, EncoderBlock, TransformerEncoder, DecoderBlock, TransformerDecoder
(10.7), and mlp, Attend, Compare, Aggregate, DecomposableAttention (15.5).

Threads: Debian's torch links the pthread build of OpenBLAS, whose thread
count is read from OPENBLAS_NUM_THREADS when the library loads;
torch.set_num_threads() does not change it. So this module, which every
script imports before torch, copies --threads N from the command line into
OPENBLAS_NUM_THREADS and OMP_NUM_THREADS before importing torch.
"""
import os
import sys


def _preset_threads_from_argv():
    """Export --threads N to the BLAS/OpenMP environment before torch loads."""
    argv = sys.argv[1:]
    value = None
    for i, a in enumerate(argv):
        if a == '--threads' and i + 1 < len(argv):
            value = argv[i + 1]
        elif a.startswith('--threads='):
            value = a.split('=', 1)[1]
    if value is not None and value.isdigit() and int(value) > 0:
        os.environ['OPENBLAS_NUM_THREADS'] = value
        os.environ['OMP_NUM_THREADS'] = value


_preset_threads_from_argv()

import collections  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402
from torch.utils import data  # noqa: E402

# The real data sets, as the C++ benchmarks find them (run from the repository root):
# fra-eng from `make data` (data/, the book's file) or the shared copy beside the repository;
# SNLI from the shared export (a 9.8k-pair training split: a comparison takes minutes), else
# the book's SNLI 1.0 from `make data` (549k training pairs: an epoch takes hours).
def _first_existing(*paths):
    for p in paths:
        if os.path.exists(p):
            return p
    return paths[-1]


DEFAULT_FRA = _first_existing(os.path.join('data', 'fra-eng', 'fra.txt'),
                              os.path.join('..', 'shared', 'data', 'fra-eng', 'fra.txt'))
DEFAULT_SNLI = _first_existing(os.path.join('..', 'shared', 'data', 'snli'),
                               os.path.join('data', 'snli_1.0'))


# ----------------------------------------------------------------- utilities

def arg_parser(description, data_default, epochs, quick_help):
    """The options every training script shares: --data --epochs --seed --threads --quick."""
    import argparse
    p = argparse.ArgumentParser(description=description)
    p.add_argument('--data', default=data_default, help='the data set (file or directory)')
    p.add_argument('--epochs', type=int, default=epochs)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--threads', type=int, default=0,
                   help='intra-op and OpenBLAS threads (0: leave as is)')
    p.add_argument('--quick', action='store_true', help=quick_help)
    return p


def timing_args(description, reps, warmup, quick_reps):
    """Options of the timing scripts; returns (args, reps, warmup) with --quick applied."""
    import argparse
    p = argparse.ArgumentParser(description=description)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--threads', type=int, default=0,
                   help='intra-op and OpenBLAS threads (0: leave as is)')
    p.add_argument('--reps', type=int, default=reps)
    p.add_argument('--warmup', type=int, default=warmup)
    p.add_argument('--quick', action='store_true', help=f'{quick_reps} reps, 1 warm-up')
    args = p.parse_args()
    return (args, quick_reps, 1) if args.quick else (args, args.reps, args.warmup)


def setup(seed, threads):
    """Seed every generator the book's code draws from and set intra-op threads."""
    random.seed(seed)
    torch.manual_seed(seed)
    if threads:
        torch.set_num_threads(threads)
    print(f'torch {torch.__version__}, threads {torch.get_num_threads()}, '
          f'OPENBLAS_NUM_THREADS={os.environ.get("OPENBLAS_NUM_THREADS", "unset")}, '
          f'OMP_WAIT_POLICY={os.environ.get("OMP_WAIT_POLICY", "unset")}, '
          f'seed {seed}')


def require_file(path):
    """Benchmarks skip (exit 0) with a clear message when the data is absent."""
    if not os.path.exists(path):
        print(f'skipped: {path} not found (run from the repository root)')
        sys.exit(0)


def print_peak_rss():
    # ru_maxrss is in KiB on Linux.
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f'peak_rss_mb={kib / 1024:.1f}')


class Timer:
    """Records several running times (the book's d2l.Timer; perf_counter
    instead of time.time, which only makes it monotonic)."""
    def __init__(self):
        self.times = []
        self.start()

    def start(self):
        self.tik = time.perf_counter()

    def stop(self):
        self.times.append(time.perf_counter() - self.tik)
        return self.times[-1]

    def avg(self):
        return sum(self.times) / len(self.times)

    def sum(self):
        return sum(self.times)


class Accumulator:
    """Sums n running quantities (d2l.Accumulator)."""
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


# ------------------------------------------------------- vocabulary (8.2)

class Vocab:
    """Token vocabulary: index 0 is <unk>, then the reserved tokens in order,
    then the tokens by descending frequency (ties keep first-seen order, since
    Counter keeps insertion order and sorted() is stable), cut at min_freq."""
    def __init__(self, tokens=None, min_freq=0, reserved_tokens=None):
        tokens = tokens or []
        reserved_tokens = reserved_tokens or []
        if len(tokens) and isinstance(tokens[0], list):
            tokens = [tok for line in tokens for tok in line]
        counter = collections.Counter(tokens)
        self._token_freqs = sorted(counter.items(), key=lambda kv: kv[1],
                                   reverse=True)
        self.idx_to_token = ['<unk>'] + list(reserved_tokens)
        self.token_to_idx = {t: i for i, t in enumerate(self.idx_to_token)}
        for tok, freq in self._token_freqs:
            if freq < min_freq:
                break
            if tok not in self.token_to_idx:
                self.token_to_idx[tok] = len(self.idx_to_token)
                self.idx_to_token.append(tok)

    def __len__(self):
        return len(self.idx_to_token)

    def __getitem__(self, tokens):
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, self.unk)
        return [self[t] for t in tokens]

    def to_tokens(self, indices):
        if not isinstance(indices, (list, tuple)):
            return self.idx_to_token[indices]
        return [self.idx_to_token[i] for i in indices]

    @property
    def unk(self):
        return 0


# --------------------------------------------------------- fra-eng (9.5)

def read_data_nmt(path=DEFAULT_FRA):
    """The whole fra.txt as one string (the book downloads fra-eng.zip)."""
    with open(path, 'r', encoding='utf-8') as f:
        return f.read()


def preprocess_nmt(text):
    """U+202F and U+00A0 become spaces, lowercase, and a space is inserted
    before , . ! ? when the previous character is not already a space."""
    text = text.replace('\u202f', ' ').replace('\xa0', ' ').lower()
    out = []
    for i, ch in enumerate(text):
        if i > 0 and ch in ',.!?' and text[i - 1] != ' ':
            out.append(' ')
        out.append(ch)
    return ''.join(out)


def tokenize_nmt(text, num_examples=None):
    """Word tokens of source and target. Like the book, the loop stops only
    when i > num_examples, so lines 0..num_examples are read: 601 lines for
    num_examples=600. Lines without exactly two tab-separated parts are
    skipped."""
    source, target = [], []
    for i, line in enumerate(text.split('\n')):
        if num_examples and i > num_examples:
            break
        parts = line.split('\t')
        if len(parts) == 2:
            source.append(parts[0].split(' '))
            target.append(parts[1].split(' '))
    return source, target


def truncate_pad(line, num_steps, padding_token):
    if len(line) > num_steps:
        return line[:num_steps]
    return line + [padding_token] * (num_steps - len(line))


def build_array_nmt(lines, vocab, num_steps):
    """Indices + <eos>, truncated/padded; valid length = non-<pad> count."""
    rows = [truncate_pad(vocab[l] + [vocab['<eos>']], num_steps, vocab['<pad>'])
            for l in lines]
    array = torch.tensor(rows)
    valid_len = (array != vocab['<pad>']).type(torch.int32).sum(1)
    return array, valid_len


def load_array(data_arrays, batch_size, is_train=True):
    return data.DataLoader(data.TensorDataset(*data_arrays), batch_size,
                           shuffle=is_train)


def load_data_nmt(batch_size, num_steps, num_examples=600, path=DEFAULT_FRA):
    """Shuffled batches (X, X_valid_len, Y, Y_valid_len) and both vocabs;
    the shuffle draws from torch's global generator, seeded in setup()."""
    text = preprocess_nmt(read_data_nmt(path))
    source, target = tokenize_nmt(text, num_examples)
    reserved = ['<pad>', '<bos>', '<eos>']
    src_vocab = Vocab(source, min_freq=2, reserved_tokens=reserved)
    tgt_vocab = Vocab(target, min_freq=2, reserved_tokens=reserved)
    src_array, src_valid_len = build_array_nmt(source, src_vocab, num_steps)
    tgt_array, tgt_valid_len = build_array_nmt(target, tgt_vocab, num_steps)
    print(f'data: {path}, {len(source)} pairs, src vocab {len(src_vocab)}, '
          f'tgt vocab {len(tgt_vocab)}')
    data_iter = load_array((src_array, src_valid_len, tgt_array, tgt_valid_len),
                           batch_size)
    return data_iter, src_vocab, tgt_vocab


# ------------------------------------------- encoder-decoder (9.6, 9.7)

class Encoder(nn.Module):
    def forward(self, X, *args):
        raise NotImplementedError


class Decoder(nn.Module):
    def init_state(self, enc_outputs, *args):
        raise NotImplementedError

    def forward(self, X, state):
        raise NotImplementedError


class AttentionDecoder(Decoder):
    @property
    def attention_weights(self):
        raise NotImplementedError


class EncoderDecoder(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, enc_X, dec_X, *args):
        enc_outputs = self.encoder(enc_X, *args)
        dec_state = self.decoder.init_state(enc_outputs, *args)
        return self.decoder(dec_X, dec_state)


class Seq2SeqEncoder(Encoder):
    """Embedding then a multi-layer GRU; time is the first axis of the GRU."""
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers,
                 dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)

    def forward(self, X, *args):
        # (batch, steps) -> (steps, batch, embed); the state starts at zero.
        X = self.embedding(X).permute(1, 0, 2)
        output, state = self.rnn(X)
        return output, state  # (steps, batch, h), (layers, batch, h)


def sequence_mask(X, valid_len, value=0):
    """Sets X[i, j] = value for j >= valid_len[i] (in place, as the book)."""
    maxlen = X.size(1)
    mask = torch.arange(maxlen, dtype=torch.float32,
                        device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


class MaskedSoftmaxCELoss(nn.CrossEntropyLoss):
    """Per-sequence loss: cross-entropy per token, zero beyond valid_len,
    then the MEAN over num_steps (not over valid tokens), as the book."""
    def forward(self, pred, label, valid_len):
        weights = sequence_mask(torch.ones_like(label), valid_len)
        self.reduction = 'none'
        unweighted = super().forward(pred.permute(0, 2, 1), label)
        return (unweighted * weights).mean(dim=1)


def grad_clipping(net, theta):
    """Global-norm clipping over every parameter that requires a gradient."""
    params = [p for p in net.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum(p.grad ** 2) for p in params))
    if norm > theta:
        for p in params:
            p.grad[:] *= theta / norm


def xavier_init_weights(m):
    """train_seq2seq's init: Xavier-uniform on Linear weights and GRU weight
    matrices; biases, embeddings and LayerNorm keep PyTorch's defaults."""
    if type(m) == nn.Linear:
        nn.init.xavier_uniform_(m.weight)
    if type(m) == nn.GRU:
        for name in m._flat_weights_names:
            if 'weight' in name:
                nn.init.xavier_uniform_(m._parameters[name])


def train_seq2seq(net, data_iter, lr, num_epochs, tgt_vocab, device='cpu',
                  log_every=0):
    """The book's train_seq2seq. The final line uses the LAST epoch's figures:
    loss = sum of per-sequence losses / number of valid target tokens, and
    tokens/sec = that epoch's valid tokens / that epoch's wall time (a new
    Timer per epoch). The book also redraws its Animator inside the timed
    last epoch; we draw nothing. Returns (loss, tokens_per_sec)."""
    net.apply(xavier_init_weights)
    net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    loss = MaskedSoftmaxCELoss()
    net.train()
    for epoch in range(num_epochs):
        timer = Timer()
        metric = Accumulator(2)  # sum of losses, number of tokens
        for batch in data_iter:
            optimizer.zero_grad()
            X, X_valid_len, Y, Y_valid_len = [x.to(device) for x in batch]
            bos = torch.tensor([tgt_vocab['<bos>']] * Y.shape[0],
                               device=device).reshape(-1, 1)
            dec_input = torch.cat([bos, Y[:, :-1]], 1)  # teacher forcing
            Y_hat, _ = net(X, dec_input, X_valid_len)
            l = loss(Y_hat, Y, Y_valid_len)
            l.sum().backward()
            grad_clipping(net, 1)
            num_tokens = Y_valid_len.sum()
            optimizer.step()
            with torch.no_grad():
                metric.add(l.sum(), num_tokens)
        elapsed = timer.stop()
        if log_every and (epoch + 1) % log_every == 0:
            print(f'epoch {epoch + 1}, loss {metric[0] / metric[1]:.3f}, '
                  f'{metric[1] / elapsed:.1f} tokens/sec', flush=True)
    final_loss, speed = metric[0] / metric[1], metric[1] / elapsed
    print(f'loss {final_loss:.3f}, {speed:.1f} tokens/sec on {device}')
    return final_loss, speed


def predict_seq2seq(net, src_sentence, src_vocab, tgt_vocab, num_steps,
                    device='cpu', save_attention_weights=False):
    """Greedy decoding; <eos> stops. As the book, the encoder's valid length
    is counted before truncate_pad."""
    net.eval()
    src_tokens = src_vocab[src_sentence.lower().split(' ')] + [src_vocab['<eos>']]
    enc_valid_len = torch.tensor([len(src_tokens)], device=device)
    src_tokens = truncate_pad(src_tokens, num_steps, src_vocab['<pad>'])
    enc_X = torch.tensor(src_tokens, dtype=torch.long, device=device)[None, :]
    enc_outputs = net.encoder(enc_X, enc_valid_len)
    dec_state = net.decoder.init_state(enc_outputs, enc_valid_len)
    dec_X = torch.tensor([[tgt_vocab['<bos>']]], dtype=torch.long, device=device)
    output_seq, attention_weight_seq = [], []
    with torch.no_grad():
        for _ in range(num_steps):
            Y, dec_state = net.decoder(dec_X, dec_state)
            dec_X = Y.argmax(dim=2)
            pred = int(dec_X.squeeze(dim=0).item())
            if save_attention_weights:
                attention_weight_seq.append(net.decoder.attention_weights)
            if pred == tgt_vocab['<eos>']:
                break
            output_seq.append(pred)
    return ' '.join(tgt_vocab.to_tokens(output_seq)), attention_weight_seq


def bleu(pred_seq, label_seq, k):
    """BLEU as the book defines it (brevity penalty exp(min(0, 1 - len_label /
    len_pred)) times prod_n p_n^(1/2^n)). Departure, shared with our C++: when
    the prediction has fewer than n tokens for some n <= k the book divides by
    zero; we return 0 instead."""
    pred_tokens, label_tokens = pred_seq.split(' '), label_seq.split(' ')
    len_pred, len_label = len(pred_tokens), len(label_tokens)
    if len_pred < k:
        return 0.0
    score = math.exp(min(0, 1 - len_label / len_pred))
    for n in range(1, k + 1):
        num_matches, label_subs = 0, collections.defaultdict(int)
        for i in range(len_label - n + 1):
            label_subs[' '.join(label_tokens[i: i + n])] += 1
        for i in range(len_pred - n + 1):
            gram = ' '.join(pred_tokens[i: i + n])
            if label_subs[gram] > 0:
                num_matches += 1
                label_subs[gram] -= 1
        score *= math.pow(num_matches / (len_pred - n + 1), math.pow(0.5, n))
    return score


ENGS = ['go .', "i lost .", "he's calm .", "i'm home ."]
FRAS = ['va !', "j'ai perdu .", 'il est calme .', 'je suis chez moi .']


def translate_book_sentences(net, src_vocab, tgt_vocab, num_steps, device='cpu'):
    """The book's four test sentences, printed as `go . => va !, bleu 1.000`
    (the book's print() puts two spaces after the comma; we print one, like
    our C++ programs). Returns the list of BLEU scores."""
    scores = []
    for eng, fra in zip(ENGS, FRAS):
        translation, _ = predict_seq2seq(net, eng, src_vocab, tgt_vocab,
                                         num_steps, device, True)
        b = bleu(translation, fra, k=2)
        scores.append(b)
        print(f'{eng} => {translation}, bleu {b:.3f}')
    return scores


# ------------------------------------------------------- attention (10.3-10.6)

def masked_softmax(X, valid_lens):
    """Softmax over the last axis; positions >= valid_len get -1e6 first.
    valid_lens is None, 1-D (batch,) or 2-D (batch, queries)."""
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return F.softmax(X.reshape(shape), dim=-1)


class AdditiveAttention(nn.Module):
    """score(q, k) = w_v^T tanh(W_q q + W_k k), all Linear without bias."""
    def __init__(self, key_size, query_size, num_hiddens, dropout):
        super().__init__()
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        # (batch, q, 1, h) + (batch, 1, k, h) -> (batch, q, k, h)
        features = torch.tanh(queries.unsqueeze(2) + keys.unsqueeze(1))
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class DotProductAttention(nn.Module):
    """softmax(Q K^T / sqrt(d)) V with the book's masking and dropout."""
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


def transpose_qkv(X, num_heads):
    """(batch, n, h) -> (batch * heads, n, h / heads)."""
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1).permute(0, 2, 1, 3)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X, num_heads):
    """Inverse of transpose_qkv."""
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2]).permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


class MultiHeadAttention(nn.Module):
    """The book's MultiHeadAttention (10.5): W_q, W_k, W_v, W_o without bias by
    default, heads computed in parallel by a reshape."""
    def __init__(self, key_size, query_size, value_size, num_hiddens,
                 num_heads, dropout, bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=bias)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=bias)
        self.W_v = nn.Linear(value_size, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    def forward(self, queries, keys, values, valid_lens):
        queries = transpose_qkv(self.W_q(queries), self.num_heads)
        keys = transpose_qkv(self.W_k(keys), self.num_heads)
        values = transpose_qkv(self.W_v(values), self.num_heads)
        if valid_lens is not None:
            valid_lens = torch.repeat_interleave(valid_lens,
                                                 repeats=self.num_heads, dim=0)
        output = self.attention(queries, keys, values, valid_lens)
        return self.W_o(transpose_output(output, self.num_heads))


class PositionalEncoding(nn.Module):
    """P[i, 2j] = sin(i / 10000^(2j/d)), P[i, 2j+1] = cos(...), then dropout.
    `offset` (ours, default 0 = the book) adds positions offset.. instead of
    0.., used only by transformer_torch.py --pe-offset."""
    def __init__(self, num_hiddens, dropout, max_len=1000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X, offset=0):
        X = X + self.P[:, offset:offset + X.shape[1], :].to(X.device)
        return self.dropout(X)


# --------------------------------------------- the book's models (10.2-10.7)

class NWKernelRegression(nn.Module):
    """10.2's parametric attention pooling, as the book writes it."""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand((1,), requires_grad=True))

    def forward(self, queries, keys, values):
        queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
        self.attention_weights = F.softmax(-((queries - keys) * self.w) ** 2 / 2, dim=1)
        return torch.bmm(self.attention_weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)


class Seq2SeqAttentionDecoder(AttentionDecoder):
    """GRU decoder whose context at step t' is additive attention with the
    previous last-layer hidden state as query and the encoder outputs as keys
    and values; the GRU input is concat(context, embedding)."""
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers,
                 dropout=0):
        super().__init__()
        self.attention = AdditiveAttention(num_hiddens, num_hiddens,
                                               num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers,
                          dropout=dropout)
        self.dense = nn.Linear(num_hiddens, vocab_size)

    def init_state(self, enc_outputs, enc_valid_lens, *args):
        outputs, hidden_state = enc_outputs
        # keys/values (batch, steps, h); the decoder starts from the
        # encoder's final state (layers, batch, h).
        return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

    def forward(self, X, state):
        enc_outputs, hidden_state, enc_valid_lens = state
        X = self.embedding(X).permute(1, 0, 2)  # (steps, batch, embed)
        outputs, self._attention_weights = [], []
        for x in X:
            query = hidden_state[-1].unsqueeze(1)  # (batch, 1, h)
            context = self.attention(query, enc_outputs, enc_outputs,
                                     enc_valid_lens)
            x = torch.cat((context, x.unsqueeze(1)), dim=-1)
            out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
            outputs.append(out)
            self._attention_weights.append(self.attention.attention_weights)
        outputs = self.dense(torch.cat(outputs, dim=0))
        return outputs.permute(1, 0, 2), [enc_outputs, hidden_state,
                                          enc_valid_lens]

    @property
    def attention_weights(self):
        return self._attention_weights


class PositionWiseFFN(nn.Module):
    """Linear, ReLU, Linear applied at every position."""
    def __init__(self, ffn_num_input, ffn_num_hiddens, ffn_num_outputs):
        super().__init__()
        self.dense1 = nn.Linear(ffn_num_input, ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.Linear(ffn_num_hiddens, ffn_num_outputs)

    def forward(self, X):
        return self.dense2(self.relu(self.dense1(X)))


class AddNorm(nn.Module):
    """Post-norm residual: LayerNorm(dropout(Y) + X)."""
    def __init__(self, normalized_shape, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, X, Y):
        return self.ln(self.dropout(Y) + X)


class EncoderBlock(nn.Module):
    def __init__(self, key_size, query_size, value_size, num_hiddens,
                 norm_shape, ffn_num_input, ffn_num_hiddens, num_heads,
                 dropout, use_bias=False):
        super().__init__()
        self.attention = MultiHeadAttention(
            key_size, query_size, value_size, num_hiddens, num_heads, dropout,
            use_bias)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(norm_shape, dropout)

    def forward(self, X, valid_lens):
        Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
        return self.addnorm2(Y, self.ffn(Y))


class TransformerEncoder(Encoder):
    def __init__(self, vocab_size, key_size, query_size, value_size,
                 num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens,
                 num_heads, num_layers, dropout, use_bias=False):
        super().__init__()
        self.num_hiddens = num_hiddens
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module('block' + str(i), EncoderBlock(
                key_size, query_size, value_size, num_hiddens, norm_shape,
                ffn_num_input, ffn_num_hiddens, num_heads, dropout, use_bias))

    def forward(self, X, valid_lens, *args):
        # Embeddings are scaled by sqrt(d) because the encoding lies in [-1, 1].
        X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens))
        self.attention_weights = [None] * len(self.blks)
        for i, blk in enumerate(self.blks):
            X = blk(X, valid_lens)
            self.attention_weights[i] = blk.attention.attention.attention_weights
        return X


class DecoderBlock(nn.Module):
    """Block i of the decoder. state[2][i] caches this block's inputs of all
    steps so far (prediction); in training the whole target is given at once
    and the causal mask is valid_lens 1..T for every row."""
    def __init__(self, key_size, query_size, value_size, num_hiddens,
                 norm_shape, ffn_num_input, ffn_num_hiddens, num_heads,
                 dropout, i):
        super().__init__()
        self.i = i
        self.attention1 = MultiHeadAttention(
            key_size, query_size, value_size, num_hiddens, num_heads, dropout)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.attention2 = MultiHeadAttention(
            key_size, query_size, value_size, num_hiddens, num_heads, dropout)
        self.addnorm2 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm3 = AddNorm(norm_shape, dropout)

    def forward(self, X, state):
        enc_outputs, enc_valid_lens = state[0], state[1]
        if state[2][self.i] is None:
            key_values = X
        else:
            key_values = torch.cat((state[2][self.i], X), dim=1)
        state[2][self.i] = key_values
        if self.training:
            batch_size, num_steps, _ = X.shape
            dec_valid_lens = torch.arange(
                1, num_steps + 1, device=X.device).repeat(batch_size, 1)
        else:
            dec_valid_lens = None
        X2 = self.attention1(X, key_values, key_values, dec_valid_lens)
        Y = self.addnorm1(X, X2)
        Y2 = self.attention2(Y, enc_outputs, enc_outputs, enc_valid_lens)
        Z = self.addnorm2(Y, Y2)
        return self.addnorm3(Z, self.ffn(Z)), state


class TransformerDecoder(AttentionDecoder):
    def __init__(self, vocab_size, key_size, query_size, value_size,
                 num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens,
                 num_heads, num_layers, dropout, pe_offset=False):
        super().__init__()
        self.num_hiddens = num_hiddens
        self.num_layers = num_layers
        self.pe_offset = pe_offset
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module('block' + str(i), DecoderBlock(
                key_size, query_size, value_size, num_hiddens, norm_shape,
                ffn_num_input, ffn_num_hiddens, num_heads, dropout, i))
        self.dense = nn.Linear(num_hiddens, vocab_size)

    def init_state(self, enc_outputs, enc_valid_lens, *args):
        return [enc_outputs, enc_valid_lens, [None] * self.num_layers]

    def forward(self, X, state):
        # The book always adds positions 0.. (offset 0), also when predicting
        # one token at a time; --pe-offset starts at the number of cached steps.
        offset = 0
        if self.pe_offset and state[2][0] is not None:
            offset = state[2][0].shape[1]
        X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens),
                              offset)
        self._attention_weights = [[None] * len(self.blks) for _ in range(2)]
        for i, blk in enumerate(self.blks):
            X, state = blk(X, state)
            self._attention_weights[0][i] = blk.attention1.attention.attention_weights
            self._attention_weights[1][i] = blk.attention2.attention.attention_weights
        return self.dense(X), state

    @property
    def attention_weights(self):
        return self._attention_weights


# ------------------------------------------------------------ SNLI (15.4)

SNLI_LABELS = ['entailment', 'contradiction', 'neutral']  # the book's 0, 1, 2
# The shared export numbers its labels 0 entailment, 1 neutral, 2 contradiction.
_EXPORT_TO_BOOK = {'0': 0, '1': 2, '2': 1}

_SNLI_TOKEN = re.compile(r"\.\.\.|\d+(?:[.,]\d+)+|\w+(?:-\w+)*|'\w+|[^\w\s]")


def tokenize_snli(sentence):
    """Word tokens of one raw SNLI sentence, case kept (as the book).

    The book's files are pre-tokenised by a parser; the shared export holds
    raw sentences, so we split punctuation off words. Rules, tried left to
    right at each position after skipping whitespace (Python's `\\w` = a
    Unicode letter or digit, or `_`):
      1. `...`                                   -> one token
      2. digits followed by one or more groups of (`.` or `,`) + digits,
         e.g. `3.5`, `1,000`                     -> one token
      3. a word: a run of `\\w`, optionally joined by single hyphens to further
         runs, e.g. `well-dressed`               -> one token
      4. an apostrophe followed by a run of `\\w` (`'s`, `'t`, `'re`), so
         `man's` -> `man` `'s` and `don't` -> `don` `'t`  -> one token
      5. any other single non-space character (`.`, `,`, `"`, `!`, `-`, ...)
                                                 -> one token
    Example: `A man's 3.5-foot dog, "Rex"...` ->
      A | man | 's | 3.5 | - | foot | dog | , | " | Rex | " | ...
    """
    return _SNLI_TOKEN.findall(sentence)


def _unquote_tsv_field(field, where):
    """CSV-style quoting of the export: a field wrapped in double quotes holds
    doubled quotes inside ("" -> ")."""
    if field.startswith('"'):
        if len(field) < 2 or not field.endswith('"'):
            raise ValueError(f'read_snli: {where}: unterminated quoted field')
        inner = field[1:-1]
        if inner.replace('""', '').count('"'):
            raise ValueError(f'read_snli: {where}: stray quote in quoted field')
        return inner.replace('""', '"')
    return field


def read_snli(path):
    """(premises, hypotheses, labels) from one TSV of the shared export
    (header `premise<TAB>hypothesis<TAB>label`), with labels mapped to the
    book's numbering: entailment 0, contradiction 1, neutral 2."""
    premises, hypotheses, labels = [], [], []
    with open(path, 'r', encoding='utf-8') as f:
        lines = f.read().split('\n')
    if not lines or lines[0].rstrip('\r') != 'premise\thypothesis\tlabel':
        raise ValueError(f'read_snli: {path}:1: expected header '
                         f'premise<TAB>hypothesis<TAB>label')
    for lineno, line in enumerate(lines[1:], start=2):
        line = line.rstrip('\r')
        if not line:
            continue
        where = f'{path}:{lineno}'
        parts = line.split('\t')
        if len(parts) != 3:
            raise ValueError(f'read_snli: {where}: expected 3 columns, '
                             f'got {len(parts)}')
        if parts[2] not in _EXPORT_TO_BOOK:
            raise ValueError(f'read_snli: {where}: unknown label {parts[2]!r}')
        premises.append(_unquote_tsv_field(parts[0], where))
        hypotheses.append(_unquote_tsv_field(parts[1], where))
        labels.append(_EXPORT_TO_BOOK[parts[2]])
    if not labels:
        raise ValueError(f'read_snli: {path}: no examples')
    return premises, hypotheses, labels


def read_snli_official(path):
    """(premises, hypotheses, labels) from one file of the book's SNLI 1.0
    (snli_1.0_{train,test}.txt): sentences from the binary parses with the
    brackets removed, rows whose gold label is '-' dropped, as the book's
    read_snli."""
    label_set = {'entailment': 0, 'contradiction': 1, 'neutral': 2}
    premises, hypotheses, labels = [], [], []
    with open(path, 'r', encoding='utf-8') as f:
        rows = [line.rstrip('\r\n').split('\t') for line in f.readlines()[1:]]
    for row in rows:
        if len(row) > 2 and row[0] in label_set:
            premises.append(' '.join(row[1].replace('(', ' ').replace(')', ' ').split()))
            hypotheses.append(' '.join(row[2].replace('(', ' ').replace(')', ' ').split()))
            labels.append(label_set[row[0]])
    return premises, hypotheses, labels


class SNLIDataset(data.Dataset):
    """Token indices truncated/padded to num_steps; the vocab is built from
    this split's premises + hypotheses (min_freq 5, reserved <pad>) unless
    given. `tokenize` splits one sentence: tokenize_snli for the export's raw
    sentences, str.split for the book's pre-tokenised files."""
    def __init__(self, dataset, num_steps, vocab=None, tokenize=tokenize_snli):
        self.num_steps = num_steps
        premise_tokens = [tokenize(s) for s in dataset[0]]
        hypothesis_tokens = [tokenize(s) for s in dataset[1]]
        if vocab is None:
            self.vocab = Vocab(premise_tokens + hypothesis_tokens, min_freq=5,
                               reserved_tokens=['<pad>'])
        else:
            self.vocab = vocab
        self.premises = self._pad(premise_tokens)
        self.hypotheses = self._pad(hypothesis_tokens)
        self.labels = torch.tensor(dataset[2])
        print('read ' + str(len(self.premises)) + ' examples')

    def _pad(self, lines):
        return torch.tensor([truncate_pad(self.vocab[line], self.num_steps,
                                          self.vocab['<pad>']) for line in lines])

    def __getitem__(self, idx):
        return (self.premises[idx], self.hypotheses[idx]), self.labels[idx]

    def __len__(self):
        return len(self.premises)


def load_data_snli(batch_size, num_steps=50, data_dir=DEFAULT_SNLI):
    """The book's snli_1.0_train.txt / snli_1.0_test.txt when data_dir holds
    them (`make data`); else the export's validation.tsv for training and
    test.tsv for testing (its 550k train split is not in the export). The book
    uses 4 DataLoader workers; we load in the main process (the book's timer
    excludes loading anyway)."""
    official = os.path.join(data_dir, 'snli_1.0_train.txt')
    if os.path.exists(official):
        train_data = read_snli_official(official)
        test_data = read_snli_official(os.path.join(data_dir, 'snli_1.0_test.txt'))
        tokenize = str.split
    else:
        train_data = read_snli(os.path.join(data_dir, 'validation.tsv'))
        test_data = read_snli(os.path.join(data_dir, 'test.tsv'))
        tokenize = tokenize_snli
    train_set = SNLIDataset(train_data, num_steps, tokenize=tokenize)
    test_set = SNLIDataset(test_data, num_steps, train_set.vocab, tokenize=tokenize)
    train_iter = data.DataLoader(train_set, batch_size, shuffle=True)
    test_iter = data.DataLoader(test_set, batch_size, shuffle=False)
    return train_iter, test_iter, train_set.vocab


# ------------------------------------------- decomposable attention (15.5)

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
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


def train_ch13(net, train_iter, test_iter, loss, trainer, num_epochs):
    """The book's train_ch13 on one CPU device: the timer covers only the
    training batches (not loading, not evaluation); examples/sec = examples
    of the last epoch * epochs / total timed seconds."""
    timer = Timer()
    timer.times.clear()
    for epoch in range(num_epochs):
        metric = Accumulator(4)  # loss sum, correct, examples, labels
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
    return SNLI_LABELS[int(label)]
