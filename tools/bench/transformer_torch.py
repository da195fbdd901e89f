"""PyTorch reference for 10.7 Transformer (sec_transformer).

Trains the book's 2-layer Transformer encoder-decoder (torch_common.py) on
the first 600 fra-eng pairs with the book's hyper-parameters; prints the
lines bahdanau_torch.py prints (the book's loss and four translations, a
`bench=` summary, peak_rss_mb), for comparison only. From the repository root:
  /usr/bin/python3 tools/bench/transformer_torch.py --threads 2 --seed 0

--pe-offset (not the book): during step-by-step prediction the book feeds one
token at a time, so PositionalEncoding adds position 0 at every step; with
--pe-offset the decoder adds the token's true position instead.
"""
import torch_common as d2l  # sets OPENBLAS_NUM_THREADS from --threads first
import torch


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
    encoder = d2l.TransformerEncoder(
        len(src_vocab), key_size, query_size, value_size, num_hiddens,
        norm_shape, ffn_num_input, ffn_num_hiddens, num_heads, num_layers,
        dropout)
    decoder = d2l.TransformerDecoder(
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
