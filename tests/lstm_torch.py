"""tests/lstm_torch.py -- prints the expected values of test_sec_lstm's lstm_matches_pytorch.

    /usr/bin/python3 tests/lstm_torch.py

(Debian's python3-torch.) An nn.LSTM(3, 2, num_layers=2) whose every parameter k (in
named_parameters order: weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, then layer 1)
is filled with 0.8 sin(0.7 i + k), i the flat index; X (4, 2, 3), h0 and c0 (2, 2, 2) filled
the same way with offsets 10, 20 and 30. Prints output, h_n and c_n flattened, 6 decimals,
as the C++ test's constants.
"""
import math

import torch


def det(shape, off):
    n = math.prod(shape)
    return torch.tensor([0.8 * math.sin(0.7 * i + off) for i in range(n)], dtype=torch.float32).reshape(shape)


torch.set_default_dtype(torch.float32)
lstm = torch.nn.LSTM(3, 2, num_layers=2)
with torch.no_grad():
    for k, (name, p) in enumerate(lstm.named_parameters()):
        p.copy_(det(tuple(p.shape), float(k)))
    out, (h_n, c_n) = lstm(det((4, 2, 3), 10.0), (det((2, 2, 2), 20.0), det((2, 2, 2), 30.0)))
for name, t in (("output", out), ("h_n", h_n), ("c_n", c_n)):
    print(name, ", ".join(f"{v:.6f}f" for v in t.reshape(-1).tolist()))
