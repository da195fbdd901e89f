"""tests/module_repr_torch.py -- prints what PyTorch's print(net) shows for the book's modules.

The strings in tests/test_module_print.cpp are this script's output, pasted as constants:

    /usr/bin/python3 tests/module_repr_torch.py

(Debian's python3-torch; run with 1.13.) Each class below has the book's name and registers
its children in the book's order with the book's sizes, so nn.Module.__repr__ prints the
same tree as the book's models. The forward passes are left out: only the structure
matters for the printout. Each case is printed between '=== name' lines.
"""
import torch
from torch import nn


class DotProductAttention(nn.Module):  # 10.3
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)


class AdditiveAttention(nn.Module):  # 10.3
    def __init__(self, key_size, query_size, num_hiddens, dropout):
        super().__init__()
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)


class MultiHeadAttention(nn.Module):  # 10.5
    def __init__(self, key_size, query_size, value_size, num_hiddens, num_heads, dropout,
                 bias=False):
        super().__init__()
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=bias)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=bias)
        self.W_v = nn.Linear(value_size, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)


class PositionalEncoding(nn.Module):  # 10.6 (P is a plain tensor, not a child)
    def __init__(self, num_hiddens, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)


class PositionWiseFFN(nn.Module):  # 10.7
    def __init__(self, ffn_num_input, ffn_num_hiddens, ffn_num_outputs):
        super().__init__()
        self.dense1 = nn.Linear(ffn_num_input, ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.Linear(ffn_num_hiddens, ffn_num_outputs)


class AddNorm(nn.Module):  # 10.7
    def __init__(self, normalized_shape, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(normalized_shape)


class EncoderBlock(nn.Module):  # 10.7
    def __init__(self, key_size, query_size, value_size, num_hiddens, norm_shape,
                 ffn_num_input, ffn_num_hiddens, num_heads, dropout, use_bias=False):
        super().__init__()
        self.attention = MultiHeadAttention(key_size, query_size, value_size, num_hiddens,
                                            num_heads, dropout, use_bias)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(norm_shape, dropout)


class DecoderBlock(nn.Module):  # 10.7
    def __init__(self, key_size, query_size, value_size, num_hiddens, norm_shape,
                 ffn_num_input, ffn_num_hiddens, num_heads, dropout, i):
        super().__init__()
        self.i = i
        self.attention1 = MultiHeadAttention(key_size, query_size, value_size, num_hiddens,
                                             num_heads, dropout)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.attention2 = MultiHeadAttention(key_size, query_size, value_size, num_hiddens,
                                             num_heads, dropout)
        self.addnorm2 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm3 = AddNorm(norm_shape, dropout)


class TransformerEncoder(nn.Module):  # 10.7
    def __init__(self, vocab_size, key_size, query_size, value_size, num_hiddens, norm_shape,
                 ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout, use_bias=False):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module('block' + str(i), EncoderBlock(
                key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                ffn_num_hiddens, num_heads, dropout, use_bias))


class TransformerDecoder(nn.Module):  # 10.7
    def __init__(self, vocab_size, key_size, query_size, value_size, num_hiddens, norm_shape,
                 ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module('block' + str(i), DecoderBlock(
                key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                ffn_num_hiddens, num_heads, dropout, i))
        self.dense = nn.Linear(num_hiddens, vocab_size)


class Seq2SeqEncoder(nn.Module):  # 9.7
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)


class Seq2SeqAttentionDecoder(nn.Module):  # 10.4
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.attention = AdditiveAttention(num_hiddens, num_hiddens, num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.Linear(num_hiddens, vocab_size)


class EncoderDecoder(nn.Module):  # 9.6
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder


def mlp(num_inputs, num_hiddens, flatten):  # 15.5
    net = [nn.Dropout(0.2), nn.Linear(num_inputs, num_hiddens), nn.ReLU()]
    if flatten:
        net.append(nn.Flatten(start_dim=1))
    net += [nn.Dropout(0.2), nn.Linear(num_hiddens, num_hiddens), nn.ReLU()]
    if flatten:
        net.append(nn.Flatten(start_dim=1))
    return nn.Sequential(*net)


class Attend(nn.Module):  # 15.5
    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.f = mlp(num_inputs, num_hiddens, flatten=False)


class Compare(nn.Module):  # 15.5
    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.g = mlp(num_inputs, num_hiddens, flatten=False)


class Aggregate(nn.Module):  # 15.5
    def __init__(self, num_inputs, num_hiddens, num_outputs):
        super().__init__()
        self.h = mlp(num_inputs, num_hiddens, flatten=True)
        self.linear = nn.Linear(num_hiddens, num_outputs)


class DecomposableAttention(nn.Module):  # 15.5, with len(vocab) = vocab_size
    def __init__(self, vocab_size, embed_size, num_hiddens, num_inputs_attend=100,
                 num_inputs_compare=200, num_inputs_agg=400):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.attend = Attend(num_inputs_attend, num_hiddens)
        self.compare = Compare(num_inputs_compare, num_hiddens)
        self.aggregate = Aggregate(num_inputs_agg, num_hiddens, num_outputs=3)


class NWKernelRegression(nn.Module):  # 10.2
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand((1,)))


class WithSettings(nn.Module):  # a module with its own settings and a child
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 3, bias=False)

    def extra_repr(self):
        return 'scale=0.5'


CASES = [
    ('multihead_attention', MultiHeadAttention(100, 100, 100, 100, 5, 0.5)),
    ('additive_attention', AdditiveAttention(2, 20, 8, 0.1)),
    ('nw_kernel_regression', NWKernelRegression()),
    ('layer_norm_linear', nn.Sequential(nn.LayerNorm(2), nn.Linear(3, 4))),
    ('bahdanau', EncoderDecoder(Seq2SeqEncoder(10, 8, 16, 2, 0.1),
                                Seq2SeqAttentionDecoder(10, 8, 16, 2, 0.1))),
    ('gru_one_layer', nn.GRU(4, 6)),
    ('transformer_encoder',
     TransformerEncoder(200, 24, 24, 24, 24, [100, 24], 24, 48, 8, 2, 0.5)),
    ('transformer_decoder', TransformerDecoder(20, 8, 8, 8, 8, [8], 8, 16, 2, 1, 0.1)),
    ('decomposable_attention', DecomposableAttention(50, 100, 200)),
    ('with_settings', WithSettings()),
]

if __name__ == '__main__':
    for name, net in CASES:
        print('=== ' + name)
        print(net)
    print('=== end')
