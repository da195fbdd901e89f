#!/usr/bin/python3
"""10.4's model trained by PyTorch with the book's code, saved as a plain state_dict.

The book's lines of sec_seq2seq_attention (through the project's PyTorch mirror in
tools/bench/), then net.state_dict() written as a safetensors file with json and struct
only: no settings, no vocabularies, unless --metadata adds the settings a chapter records,
the vocabulary fingerprints computed with the three-line recipe below. Either file loads
with

  build/chapters/bahdanau_attention --load model.safetensors --data CORPUS

which rebuilds the vocabularies from the same corpus (and checks the fingerprints when the
file has them) and translates as PyTorch did; this script prints PyTorch's translations of
the book's four sentences to compare. Needs /usr/bin/python3 with Debian's python3-torch;
run from the repository root:

  /usr/bin/python3 tools/scripts/state_dict_torch.py --data tests/fixtures/data/fra-eng/fra.txt \\
      --epochs 30 --out model.safetensors

The vocabulary fingerprint ("N tokens, fnv1a64 H") is standard FNV-1a 64 over the tokens
in index order, each as its byte count (8 bytes, little-endian) and its UTF-8 bytes:

  data = b''.join(len(t.encode()).to_bytes(8, 'little') + t.encode() for t in vocab.idx_to_token)
  h = 0xcbf29ce484222325
  for b in data: h = (h ^ b) * 0x100000001b3 % 2**64
"""
import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'bench'))
import torch_common as d2l  # noqa: E402  (before torch: thread settings)
import torch  # noqa: E402
Seq2SeqAttentionDecoder = d2l.Seq2SeqAttentionDecoder


def fingerprint(vocab):
    data = b''.join(len(t.encode()).to_bytes(8, 'little') + t.encode() for t in vocab.idx_to_token)
    h = 0xcbf29ce484222325
    for b in data: h = (h ^ b) * 0x100000001b3 % 2**64
    return f'{len(vocab.idx_to_token)} tokens, fnv1a64 {h:016x}'


def save_state_dict(state_dict, path, metadata):
    """safetensors: u64 header size, the JSON header, each tensor's float32 bytes."""
    header, blobs, offset = ({'__metadata__': metadata} if metadata else {}), [], 0
    for name, t in state_dict.items():
        b = t.detach().float().contiguous().numpy().tobytes()
        header[name] = {'dtype': 'F32', 'shape': list(t.shape), 'data_offsets': [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    text = json.dumps(header).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--data', default=d2l.DEFAULT_FRA, help='fra.txt')
    p.add_argument('--epochs', type=int, default=250)
    p.add_argument('--out', required=True, help='the .safetensors to write')
    p.add_argument('--metadata', action='store_true', help='record the settings and fingerprints too')
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()
    d2l.setup(args.seed, 2)

    # The book's code (10.4.3).
    embed_size, num_hiddens, num_layers, dropout = 32, 32, 2, 0.1
    batch_size, num_steps, lr = 64, 10, 0.005
    train_iter, src_vocab, tgt_vocab = d2l.load_data_nmt(batch_size, num_steps, path=args.data)
    encoder = d2l.Seq2SeqEncoder(len(src_vocab), embed_size, num_hiddens, num_layers, dropout)
    decoder = Seq2SeqAttentionDecoder(len(tgt_vocab), embed_size, num_hiddens, num_layers, dropout)
    net = d2l.EncoderDecoder(encoder, decoder)
    d2l.train_seq2seq(net, train_iter, lr, args.epochs, tgt_vocab)

    metadata = {'model': 'bahdanau_attention', 'embed_size': '32', 'num_hiddens': '32', 'num_layers': '2',
                'dropout': '0.1', 'num_steps': '10', 'src_vocab': fingerprint(src_vocab),
                'tgt_vocab': fingerprint(tgt_vocab)} if args.metadata else None
    save_state_dict(net.state_dict(), args.out, metadata)
    net.eval()
    for eng in d2l.ENGS:
        translation, _ = d2l.predict_seq2seq(net, eng, src_vocab, tgt_vocab, num_steps, 'cpu', True)
        print(f'{eng} => {translation}')


if __name__ == '__main__':
    main()
