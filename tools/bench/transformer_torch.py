"""PyTorch reference for 10.7 Transformer (sec_transformer).

Trains the book's 2-layer Transformer encoder-decoder on the first 600
fra-eng pairs with the book's hyper-parameters and prints the book's lines:
  loss 0.xxx, NNNN.N tokens/sec on cpu
  go . => va !, bleu 1.000   (x4)
then a `bench=` summary and peak_rss_mb. Comparison only, not a build or
test dependency. Run from the repository root:
  /usr/bin/python3 tools/bench/transformer_torch.py --threads 2 --seed 0

--pe-offset (not the book): during step-by-step prediction the book feeds one
token at a time, so PositionalEncoding adds position 0 at every step; with
--pe-offset the decoder adds the token's true position instead.
"""
import math

import torch_common as d2l  # sets OPENBLAS_NUM_THREADS from --threads first
import torch
from torch import nn


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
        self.attention = d2l.MultiHeadAttention(
            key_size, query_size, value_size, num_hiddens, num_heads, dropout,
            use_bias)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(norm_shape, dropout)

    def forward(self, X, valid_lens):
        Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
        return self.addnorm2(Y, self.ffn(Y))


class TransformerEncoder(d2l.Encoder):
    def __init__(self, vocab_size, key_size, query_size, value_size,
                 num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens,
                 num_heads, num_layers, dropout, use_bias=False):
        super().__init__()
        self.num_hiddens = num_hiddens
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = d2l.PositionalEncoding(num_hiddens, dropout)
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
        self.attention1 = d2l.MultiHeadAttention(
            key_size, query_size, value_size, num_hiddens, num_heads, dropout)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.attention2 = d2l.MultiHeadAttention(
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


class TransformerDecoder(d2l.AttentionDecoder):
    def __init__(self, vocab_size, key_size, query_size, value_size,
                 num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens,
                 num_heads, num_layers, dropout, pe_offset=False):
        super().__init__()
        self.num_hiddens = num_hiddens
        self.num_layers = num_layers
        self.pe_offset = pe_offset
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = d2l.PositionalEncoding(num_hiddens, dropout)
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


def main():
    p = d2l.arg_parser(__doc__.split('\n')[0], d2l.DEFAULT_FRA, 200, '10 epochs (smoke test)')
    p.add_argument('--pe-offset', action='store_true',
                   help='true positions when predicting (not the book)')
    p.add_argument('--log-every', type=int, default=0)
    args = p.parse_args()
    epochs = 10 if args.quick else args.epochs
    d2l.require_file(args.data)
    d2l.setup(args.seed, args.threads)

    # The book's hyper-parameters (10.7).
    num_hiddens, num_layers, dropout, batch_size, num_steps = 32, 2, 0.1, 64, 10
    lr, device = 0.005, 'cpu'
    ffn_num_input, ffn_num_hiddens, num_heads = 32, 64, 4
    key_size, query_size, value_size = 32, 32, 32
    norm_shape = [32]

    train_iter, src_vocab, tgt_vocab = d2l.load_data_nmt(
        batch_size, num_steps, path=args.data)
    encoder = TransformerEncoder(
        len(src_vocab), key_size, query_size, value_size, num_hiddens,
        norm_shape, ffn_num_input, ffn_num_hiddens, num_heads, num_layers,
        dropout)
    decoder = TransformerDecoder(
        len(tgt_vocab), key_size, query_size, value_size, num_hiddens,
        norm_shape, ffn_num_input, ffn_num_hiddens, num_heads, num_layers,
        dropout, pe_offset=args.pe_offset)
    net = d2l.EncoderDecoder(encoder, decoder)
    loss, speed = d2l.train_seq2seq(net, train_iter, lr, epochs, tgt_vocab,
                                    device, args.log_every)
    scores = d2l.translate_book_sentences(net, src_vocab, tgt_vocab, num_steps,
                                          device)
    if not args.pe_offset:
        # Same trained weights, true positions while predicting (not the book).
        decoder.pe_offset = True
        print('with --pe-offset:')
        alt = d2l.translate_book_sentences(net, src_vocab, tgt_vocab,
                                           num_steps, device)
        decoder.pe_offset = False
    else:
        alt = scores
    print(f'bench=transformer_torch seed={args.seed} threads={torch.get_num_threads()} '
          f'epochs={epochs} loss={loss:.4f} tokens_per_sec={speed:.1f} '
          f'bleu={",".join(f"{s:.3f}" for s in scores)} '
          f'bleu_ones={sum(s == 1.0 for s in scores)} '
          f'bleu_pe_offset={",".join(f"{s:.3f}" for s in alt)}')
    d2l.print_peak_rss()


if __name__ == '__main__':
    main()
