"""tests/module_repr_torch.py -- prints what PyTorch's print(net) shows for the book's modules.

tests/test_module_print.cpp compares our printouts with this script's output, kept in
tests/fixtures/module_repr_torch.txt:

    /usr/bin/python3 tests/module_repr_torch.py > tests/fixtures/module_repr_torch.txt

(Debian's python3-torch; run with 1.13.) The models are the project's one PyTorch mirror of
the book's, tools/bench/torch_common.py, which registers each model's children in the book's
order with the book's sizes, so nn.Module.__repr__ prints the same tree as the book's models.
Each case is printed between '=== name' lines.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools', 'bench'))
import torch_common as d2l  # noqa: E402
from torch import nn  # noqa: E402


class WithSettings(nn.Module):  # a module with its own settings and a child
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 3, bias=False)

    def extra_repr(self):
        return 'scale=0.5'


CASES = [
    ('multihead_attention', d2l.MultiHeadAttention(100, 100, 100, 100, 5, 0.5)),
    ('additive_attention', d2l.AdditiveAttention(2, 20, 8, 0.1)),
    ('nw_kernel_regression', d2l.NWKernelRegression()),
    ('layer_norm_linear', nn.Sequential(nn.LayerNorm(2), nn.Linear(3, 4))),
    ('bahdanau', d2l.EncoderDecoder(d2l.Seq2SeqEncoder(10, 8, 16, 2, 0.1),
                                    d2l.Seq2SeqAttentionDecoder(10, 8, 16, 2, 0.1))),
    ('gru_one_layer', nn.GRU(4, 6)),
    ('transformer_encoder',
     d2l.TransformerEncoder(200, 24, 24, 24, 24, [100, 24], 24, 48, 8, 2, 0.5)),
    ('transformer_decoder', d2l.TransformerDecoder(20, 8, 8, 8, 8, [8], 8, 16, 2, 1, 0.1)),
    ('decomposable_attention', d2l.DecomposableAttention(range(50), 100, 200)),  # len(vocab) 50
    ('with_settings', WithSettings()),
]

if __name__ == '__main__':
    for name, net in CASES:
        print('=== ' + name)
        print(net)
    print('=== end')
