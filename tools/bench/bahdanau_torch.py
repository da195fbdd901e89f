"""PyTorch reference for 10.4 Bahdanau attention (sec_seq2seq_attention).

Trains the book's GRU encoder + Seq2SeqAttentionDecoder on the first 600
fra-eng pairs with the book's hyper-parameters and prints the book's lines:
  loss 0.xxx, NNNN.N tokens/sec on cpu
  go . => va !, bleu 1.000   (x4)
then a `bench=` summary and peak_rss_mb. Comparison only, not a build or
test dependency. Run from the repository root:
  /usr/bin/python3 tools/bench/bahdanau_torch.py --threads 2 --seed 0
"""

import torch_common as d2l  # sets OPENBLAS_NUM_THREADS from --threads first
import torch


def main():
    p = d2l.arg_parser(__doc__.split('\n')[0], d2l.DEFAULT_FRA, 250, '10 epochs (smoke test)')
    p.add_argument('--log-every', type=int, default=0,
                   help='print loss every N epochs (0: only the book\'s line)')
    args = p.parse_args()
    epochs = 10 if args.quick else args.epochs
    d2l.require_file(args.data)
    d2l.setup(args.seed, args.threads)

    # The book's hyper-parameters (10.4).
    embed_size, num_hiddens, num_layers, dropout = 32, 32, 2, 0.1
    batch_size, num_steps = 64, 10
    lr, device = 0.005, 'cpu'

    train_iter, src_vocab, tgt_vocab = d2l.load_data_nmt(
        batch_size, num_steps, path=args.data)
    encoder = d2l.Seq2SeqEncoder(len(src_vocab), embed_size, num_hiddens,
                                 num_layers, dropout)
    decoder = d2l.Seq2SeqAttentionDecoder(len(tgt_vocab), embed_size,
                                          num_hiddens, num_layers, dropout)
    net = d2l.EncoderDecoder(encoder, decoder)
    loss, speed = d2l.train_seq2seq(net, train_iter, lr, epochs, tgt_vocab,
                                    device, args.log_every)
    scores = d2l.translate_book_sentences(net, src_vocab, tgt_vocab, num_steps,
                                          device)
    print(f'bench=bahdanau_torch seed={args.seed} threads={torch.get_num_threads()} '
          f'epochs={epochs} loss={loss:.4f} tokens_per_sec={speed:.1f} '
          f'bleu={",".join(f"{s:.3f}" for s in scores)} '
          f'bleu_ones={sum(s == 1.0 for s in scores)}')
    d2l.print_peak_rss()


if __name__ == '__main__':
    main()
