#!/usr/bin/python3
"""Crossing over to PyTorch and back: the chapters' models as safetensors files.

The book's PyTorch models are built by the project's one PyTorch mirror of
them, tools/bench/torch_common.py (shared with the benchmarks and the tests),
with the book's state_dict() names, which are also the names our models register: a
file loads on either side without renaming.
safetensors is read and written here with json and struct only. Needs
/usr/bin/python3 with Debian's python3-torch; run from the repository root
after `make` (it runs build/tools/crossover, which prints our outputs as JSON).

  # here -> PyTorch: a model trained by a chapter program, run by both sides
  build/chapters/bahdanau_attention --save b.safetensors
  /usr/bin/python3 tools/scripts/crossover_torch.py to-torch b.safetensors

  # PyTorch -> here: the book's model trained by PyTorch (its train_seq2seq or
  # Adam on the same data, the vocabularies and settings taken from a file of
  # ours), written as safetensors, run by both sides
  /usr/bin/python3 tools/scripts/crossover_torch.py from-torch --like b.safetensors --out t.safetensors
  build/chapters/bahdanau_attention --load t.safetensors

  # the test suite's fixtures (tests/fixtures/safetensors/), written once
  /usr/bin/python3 tools/scripts/crossover_torch.py fixtures

Compared: translations of the book's four sentences (exactly) and every
attention weight of every decoding step (and, for 10.7, the encoder's
self-attention) within --tol; for 15.5 the predictions (exactly), the logits
and both soft alignments within --tol; for 10.2 (nadaraya_watson --save) w, the
predictions and the attention weights on fixed inputs within --tol. Exit status 1 when anything differs.
"""
import argparse
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bench'))
import torch_common as d2l  # noqa: E402  (before torch: thread settings)
import torch  # noqa: E402

ENGS = ['go .', 'i lost .', "he's calm .", "i'm home ."]
FRAS = ['va !', "j'ai perdu .", 'il est calme .', 'je suis chez moi .']
NLI_PAIRS = [('he is good .', 'he is bad .'),
             ('a man is playing a guitar .', 'a man is playing music .'),
             ('two dogs are running in a park .', 'the cat is sleeping on a sofa .'),
             ('a woman is sleeping .', 'a woman is awake .')]
TOOL = os.path.join('build', 'tools', 'crossover')

# ------------------------------------------------------------- safetensors

_DTYPES = {'F32': (torch.float32, 4), 'F16': (torch.float16, 2),
           'BF16': (torch.bfloat16, 2), 'F64': (torch.float64, 8)}


def read_safetensors(path):
    """(metadata dict, {name: float32 tensor}), converting F16/BF16/F64."""
    with open(path, 'rb') as f:
        raw = f.read()
    (n,) = struct.unpack('<Q', raw[:8])
    header = json.loads(raw[8:8 + n].decode('utf-8'))
    meta = header.pop('__metadata__', {})
    data = raw[8 + n:]
    tensors = {}
    for name, e in header.items():
        dtype, size = _DTYPES[e['dtype']]
        b, end = e['data_offsets']
        t = torch.frombuffer(bytearray(data[b:end]), dtype=dtype) if end > b else torch.zeros(0, dtype=dtype)
        tensors[name] = t.reshape(e['shape']).float()
    return meta, tensors


def write_safetensors(path, tensors, meta, dtype='F32'):
    """tensors: {name: tensor} in order, stored as dtype (F32, F16, BF16, F64)."""
    torch_dtype, size = _DTYPES[dtype]
    header, blobs, offset = {'__metadata__': meta}, [], 0
    for name, t in tensors.items():
        b = t.detach().to(torch_dtype).contiguous().view(torch.uint8).numpy().tobytes() if t.numel() else b''
        header[name] = {'dtype': dtype, 'shape': list(t.shape), 'data_offsets': [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    text = json.dumps(header, ensure_ascii=False, separators=(',', ':')).encode('utf-8')
    text += b' ' * (-len(text) % 8)
    with open(path + '.tmp', 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))
    os.replace(path + '.tmp', path)


# ------------------------------------------------------------- the models

def vocab_fingerprint(tokens):
    """Our settings' "N tokens, fnv1a64 H": standard FNV-1a 64 over the tokens in index order,
    each as its byte count (8 bytes, little-endian) and its UTF-8 bytes. The three lines:
        data = b''.join(len(t.encode()).to_bytes(8, 'little') + t.encode() for t in tokens)
        h = 0xcbf29ce484222325
        for b in data: h = (h ^ b) * 0x100000001b3 % 2**64
    """
    data = b''.join(len(t.encode()).to_bytes(8, 'little') + t.encode() for t in tokens)
    h = 0xcbf29ce484222325
    for b in data: h = (h ^ b) * 0x100000001b3 % 2**64
    return f'{len(tokens)} tokens, fnv1a64 {h:016x}'


def vocab_from(tokens):
    v = d2l.Vocab()
    v.idx_to_token = list(tokens)
    v.token_to_idx = {t: i for i, t in enumerate(tokens)}
    return v


def build(meta):
    """The book's PyTorch model for a file's metadata, and its vocabularies."""
    kind = meta['model']
    if kind == 'nadaraya_watson':
        return d2l.NWKernelRegression(), ()
    for variant in ('rnn', 'scoring', 'pe'):
        if variant in meta:
            raise SystemExit(f'an exercise variant ({variant}={meta[variant]}): only the book\'s models cross over')
    if kind == 'decomposable_attention':
        vocab = vocab_from(json.loads(meta['vocab.tokens']))
        e, h = int(meta['embed_size']), int(meta['num_hiddens'])
        return d2l.DecomposableAttention(vocab, e, h, e, 2 * e, 2 * h), (vocab,)
    src = vocab_from(json.loads(meta['src_vocab.tokens']))
    tgt = vocab_from(json.loads(meta['tgt_vocab.tokens']))
    dropout = float(meta['dropout'])
    if kind == 'bahdanau_attention':
        e, h, n = int(meta['embed_size']), int(meta['num_hiddens']), int(meta['num_layers'])
        encoder = d2l.Seq2SeqEncoder(len(src), e, h, n, dropout)
        decoder = d2l.Seq2SeqAttentionDecoder(len(tgt), e, h, n, dropout)
    elif kind == 'transformer':
        h, n = int(meta['num_hiddens']), int(meta['num_layers'])
        k, q, v = int(meta['key_size']), int(meta['query_size']), int(meta['value_size'])
        ffn, heads = int(meta['ffn_num_hiddens']), int(meta['num_heads'])
        encoder = d2l.TransformerEncoder(len(src), k, q, v, h, [h], h, ffn, heads, n, dropout)
        decoder = d2l.TransformerDecoder(len(tgt), k, q, v, h, [h], h, ffn, heads, n, dropout)
    else:
        raise SystemExit(f'unknown model {kind!r}')
    return d2l.EncoderDecoder(encoder, decoder), (src, tgt)


def as_json(t):
    return {'shape': list(t.shape), 'data': t.detach().reshape(-1).tolist()}


def torch_outputs(meta, net, vocabs, sentences=ENGS):
    """What build/tools/crossover prints, computed by PyTorch."""
    net.eval()
    results = []
    if meta['model'] == 'nadaraya_watson':  # the inputs of tools/programs/crossover/crossover.cpp
        q = torch.arange(10, dtype=torch.float32) * 0.5
        k = 0.3 + 0.6 * torch.arange(8, dtype=torch.float32)
        v = 2 * torch.sin(k) + k ** 0.8
        with torch.no_grad():
            y = net(q, k.repeat(10, 1), v.repeat(10, 1))
        return {'results': [{'w': as_json(net.w), 'prediction': as_json(y), 'attention': as_json(net.attention_weights)}]}
    if meta['model'] == 'decomposable_attention':
        (vocab,) = vocabs
        attend = net.attend
        for p, q in NLI_PAIRS:
            P = torch.tensor(vocab[p.split()]).reshape(1, -1)
            Q = torch.tensor(vocab[q.split()]).reshape(1, -1)
            with torch.no_grad():
                logits = net([P, Q])
                A, B = net.embedding(P), net.embedding(Q)
                e = torch.bmm(attend.f(A), attend.f(B).permute(0, 2, 1))
                beta = torch.softmax(e, dim=-1)                     # (1, m, n)
                alpha = torch.softmax(e.permute(0, 2, 1), dim=-1)   # (1, n, m)
            results.append({'premise': p, 'hypothesis': q,
                            'prediction': d2l.predict_snli(net, vocab, p.split(), q.split()),
                            'logits': as_json(logits), 'beta': as_json(beta), 'alpha': as_json(alpha)})
        return {'results': results}
    src, tgt = vocabs
    num_steps = int(meta['num_steps'])
    for s in sentences:
        translation, steps = d2l.predict_seq2seq(net, s, src, tgt, num_steps, 'cpu', True)
        r = {'src': s, 'translation': translation}
        if meta['model'] == 'transformer':  # [self of each block, then enc-dec of each block]
            r['steps'] = [[as_json(w) for kind in step for w in kind] for step in steps]
            r['encoder'] = [as_json(w) for w in net.encoder.attention_weights]
        else:
            r['steps'] = [[as_json(w) for w in step] for step in steps]
        results.append(r)
    return {'results': results}


def our_outputs(path):
    if not os.path.exists(TOOL):
        raise SystemExit(f'{TOOL} is missing: run make first')
    out = subprocess.run([TOOL, '--model', path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f'{TOOL} --model {path} failed:\n{out.stderr}')
    return json.loads(out.stdout)


def compare(ours, theirs, tol):
    """Prints one line per input; returns (the number of mismatches, the largest difference)."""
    bad, worst = 0, 0.0

    def tensors(a, b, what):
        nonlocal bad, worst
        if a['shape'] != b['shape']:
            print(f'  {what}: shape {a["shape"]} here, {b["shape"]} in PyTorch')
            bad += 1
            return
        d = max((abs(x - y) for x, y in zip(a['data'], b['data'])), default=0.0)
        worst = max(worst, d)
        if d > tol:
            print(f'  {what}: differs by {d:.3g} (> {tol:g})')
            bad += 1

    for o, t in zip(ours['results'], theirs['results']):
        if 'translation' in o:
            same = o['translation'] == t['translation']
            print(f'{o["src"]} => here: {o["translation"]!r}, PyTorch: {t["translation"]!r}'
                  f'{"" if same else "  DIFFERENT"}')
            bad += not same
            if len(o['steps']) != len(t['steps']):
                print(f'  {len(o["steps"])} decoding steps here, {len(t["steps"])} in PyTorch')
                bad += 1
            for s, (a, b) in enumerate(zip(o['steps'], t['steps'])):
                for k, (x, y) in enumerate(zip(a, b)):
                    tensors(x, y, f'step {s} attention {k}')
            for k, (x, y) in enumerate(zip(o.get('encoder', []), t.get('encoder', []))):
                tensors(x, y, f'encoder block {k} self-attention')
        elif 'w' in o:
            print(f'w = {o["w"]["data"][0]:.6g} here, {t["w"]["data"][0]:.6g} in PyTorch')
            for key in ('w', 'prediction', 'attention'):
                tensors(o[key], t[key], key)
        else:
            same = o['prediction'] == t['prediction']
            print(f'{o["premise"]} / {o["hypothesis"]} => here: {o["prediction"]}, PyTorch: {t["prediction"]}'
                  f'{"" if same else "  DIFFERENT"}')
            bad += not same
            for key in ('logits', 'beta', 'alpha'):
                tensors(o[key], t[key], key)
    if len(ours['results']) != len(theirs['results']):
        bad += 1
    return bad, worst


def report(bad, worst, tol):
    print(f'largest difference {worst:.3g} (tolerance {tol:g}); '
          f'{"all outputs agree" if not bad else str(bad) + " mismatches"}')
    return 1 if bad else 0


# ------------------------------------------------------------- commands

def to_torch(args):
    meta, tensors = read_safetensors(args.model)
    net, vocabs = build(meta)
    net.load_state_dict(tensors, strict=True)  # every name and shape, nothing left over
    print(f'{args.model}: {meta["model"]}, {len(tensors)} tensors loaded into PyTorch (strict)')
    return report(*compare(our_outputs(args.model), torch_outputs(meta, net, vocabs), args.tol), args.tol)


def train_torch(meta, net, vocabs, epochs, data_path):
    """The book's training of this model, in PyTorch, on the data with the file's vocabularies."""
    if meta['model'] == 'nadaraya_watson':  # 10.2's data and loop: 50 points, SGD lr 0.5
        n_train = 50
        x_train, _ = torch.sort(torch.rand(n_train) * 5)
        y_train = 2 * torch.sin(x_train) + x_train ** 0.8 + torch.normal(0.0, 0.5, (n_train,))
        X_tile, Y_tile = x_train.repeat((n_train, 1)), y_train.repeat((n_train, 1))
        mask = (1 - torch.eye(n_train)).type(torch.bool)
        keys, values = X_tile[mask].reshape((n_train, -1)), Y_tile[mask].reshape((n_train, -1))
        loss = torch.nn.MSELoss(reduction='none')
        trainer = torch.optim.SGD(net.parameters(), lr=0.5)
        for epoch in range(epochs):
            trainer.zero_grad()
            l = loss(net(x_train, keys, values), y_train) / 2
            l.sum().backward()
            trainer.step()
            print(f'epoch {epoch + 1}, loss {float(l.sum()):.6f}')
        return
    if meta['model'] == 'decomposable_attention':
        (vocab,) = vocabs
        dataset = d2l.SNLIDataset(d2l.read_snli(data_path), int(meta['num_steps']), vocab, tokenize=str.split)
        it = torch.utils.data.DataLoader(dataset, 256, shuffle=True)
        trainer = torch.optim.Adam(net.parameters(), lr=0.001)
        loss = torch.nn.CrossEntropyLoss(reduction='none')
        for epoch in range(epochs):
            net.train()
            total, n = 0.0, 0
            for (P, Q), y in it:
                trainer.zero_grad()
                ls = loss(net([P, Q]), y)
                ls.sum().backward()
                trainer.step()
                total, n = total + float(ls.sum()), n + len(y)
        print(f'PyTorch: {epochs} epochs of Adam on {len(dataset)} pairs, loss {total / n:.3f}')
        return
    src, tgt = vocabs
    num_steps = int(meta['num_steps'])
    _, target = d2l.tokenize_nmt(d2l.preprocess_nmt(d2l.read_data_nmt(data_path)), 600)
    source, _ = d2l.tokenize_nmt(d2l.preprocess_nmt(d2l.read_data_nmt(data_path)), 600)
    src_array, src_valid = d2l.build_array_nmt(source, src, num_steps)
    tgt_array, tgt_valid = d2l.build_array_nmt(target, tgt, num_steps)
    it = d2l.load_array((src_array, src_valid, tgt_array, tgt_valid), 64)
    d2l.train_seq2seq(net, it, 0.005, epochs, tgt)


def from_torch(args):
    meta, _ = read_safetensors(args.like)
    torch.manual_seed(args.seed)
    net, vocabs = build(meta)
    default = ('chapters/data/snli-small/train.tsv' if meta['model'] == 'decomposable_attention'
               else 'chapters/data/fra-eng-small.txt')
    train_torch(meta, net, vocabs, args.epochs, args.data or default)
    state = net.state_dict()
    write_safetensors(args.out, {k: v for k, v in state.items()}, meta)
    print(f'wrote {args.out}: PyTorch\'s {meta["model"]}, {len(state)} tensors, the settings and vocabularies of {args.like}')
    return report(*compare(our_outputs(args.out), torch_outputs(meta, net, vocabs), args.tol), args.tol)


def fit_fixture(meta, net, vocabs):
    """A few hundred Adam steps on the inputs the fixture is run on, so that its outputs are
    the book's translations and distinct labels rather than an untrained model's repeats."""
    torch.manual_seed(1)
    if meta['model'] == 'decomposable_attention':
        (vocab,) = vocabs
        labels = [1, 0, 2, 1]  # contradiction, entailment, neutral, contradiction
        trainer = torch.optim.Adam(net.parameters(), lr=0.01)
        net.train()
        for _ in range(100):
            for (p, q), y in zip(NLI_PAIRS, labels):
                trainer.zero_grad()
                out = net([torch.tensor(vocab[p.split()]).reshape(1, -1), torch.tensor(vocab[q.split()]).reshape(1, -1)])
                torch.nn.functional.cross_entropy(out, torch.tensor([y])).backward()
                trainer.step()
        return
    src, tgt = vocabs
    n = int(meta['num_steps'])
    src_array, src_valid = d2l.build_array_nmt([e.split(' ') for e in ENGS], src, n)
    tgt_array, tgt_valid = d2l.build_array_nmt([f.split(' ') for f in FRAS], tgt, n)
    d2l.train_seq2seq(net, d2l.load_array((src_array, src_valid, tgt_array, tgt_valid), 4), 0.01, 300, tgt)


def fixtures(args):
    """Small models trained by PyTorch on their inputs, stored in three dtypes, and their outputs."""
    os.makedirs(args.out, exist_ok=True)
    src = ['<unk>', '<pad>', '<bos>', '<eos>', '.', 'i', 'go', 'lost', "he's", 'calm', "i'm", 'home']
    tgt = ['<unk>', '<pad>', '<bos>', '<eos>', '.', '!', 'va', "j'ai", 'perdu', 'il', 'est', 'calme', 'je', 'suis', 'chez', 'moi']
    words = ['<unk>', '<pad>', '.', 'a', 'he', 'is', 'good', 'bad', 'man', 'woman', 'playing', 'sleeping']
    common = {'format': 'pt', 'num_steps': '6', 'dropout': '0.1',
              'src_vocab': vocab_fingerprint(src), 'tgt_vocab': vocab_fingerprint(tgt),
              'src_vocab.tokens': json.dumps(src, separators=(',', ':')),
              'tgt_vocab.tokens': json.dumps(tgt, separators=(',', ':'))}
    models = [
        ('bahdanau_attention', 'F32', dict(common, model='bahdanau_attention', embed_size='8', num_hiddens='8',
                                           num_layers='2')),
        ('transformer', 'BF16', dict(common, model='transformer', num_hiddens='8', num_layers='2', num_heads='2',
                                     ffn_num_hiddens='16', key_size='8', query_size='8', value_size='8')),
        ('decomposable_attention', 'F64', {'format': 'pt', 'model': 'decomposable_attention', 'embed_size': '6',
                                           'num_hiddens': '8', 'num_steps': '50', 'mask_pad': '0',
                                           'vocab': vocab_fingerprint(words),
                                           'vocab.tokens': json.dumps(words, separators=(',', ':'))}),
    ]
    for name, dtype, meta in models:
        torch.manual_seed(0)
        net, vocabs = build(meta)
        fit_fixture(meta, net, vocabs)
        # The weights as the file stores them, so both sides compute with the same values.
        with torch.no_grad():
            for p in net.parameters():
                p.copy_(p.to(_DTYPES[dtype][0]).float())
        path = os.path.join(args.out, f'{name}.safetensors')
        write_safetensors(path, dict(net.state_dict()), meta, dtype)
        with open(os.path.join(args.out, f'{name}.expected.json'), 'w', encoding='utf-8') as f:
            json.dump(torch_outputs(meta, net, vocabs), f, separators=(',', ':'))
            f.write('\n')
        print(f'wrote {path} ({dtype}) and {name}.expected.json')
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='command', required=True)
    a = sub.add_parser('to-torch', help='load a model of ours into the book\'s PyTorch model and compare outputs')
    a.add_argument('model')
    b = sub.add_parser('from-torch', help='train the book\'s model in PyTorch, export it, compare outputs here')
    b.add_argument('--like', required=True, help='a .safetensors of ours: settings and vocabularies')
    b.add_argument('--out', required=True)
    b.add_argument('--epochs', type=int, default=20)
    b.add_argument('--data', default='', help='fra.txt (10.4, 10.7) or an NLI .tsv (15.5); default: the bundled one')
    b.add_argument('--seed', type=int, default=0)
    c = sub.add_parser('fixtures', help='write the test suite\'s safetensors fixtures')
    c.add_argument('--out', default='tests/fixtures/safetensors')
    for s in (a, b):
        s.add_argument('--tol', type=float, default=1e-4, help='largest difference of a weight or logit')
    args = p.parse_args()
    return {'to-torch': to_torch, 'from-torch': from_torch, 'fixtures': fixtures}[args.command](args)


if __name__ == '__main__':
    sys.exit(main())
