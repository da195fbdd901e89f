// chapters/vision_transformer.cpp — 10.7 Transformer (sec_transformer), exercise 6: can a
// Transformer classify images without convolutions?
//
// Trains a small vision Transformer (layers/vision_transformer.h: patches embedded by a
// Linear, a class token, learned positions, the chapter's EncoderBlocks, a classification
// head) on shapes the project draws itself (tools/d2l/data/shapes.h: disc, square, ring, cross at
// random places and sizes, from a fixed seed), prints the loss and the training and test
// accuracy after every epoch (chance: 0.25), and writes
//   out/vision_transformer/test_images.png             one test image per class
//   out/vision_transformer/class_token_attention.png   the last block's class-token attention
//       over those images' patches, averaged over the heads, as weights (not rescaled); each
//       title names the true class and the predicted one
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "core/random.h"
#include "layers/vision_transformer.h"
#include "tools/d2l/cli/chapter.h"
#include "tools/d2l/data/shapes.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

namespace {

// Rows [begin, end) of a (n, ...) tensor.
Tensor rows(const Tensor& x, int64_t begin, int64_t end) { return slice(x, 0, begin, end); }

// Accuracy of net on a set, in eval mode, batches of 256.
double accuracy_on(VisionTransformer& net, const ShapeImages& set) {
  NoGrad no_grad;
  net.eval();
  const int64_t n = set.images.size(0);
  double correct = 0;
  for (int64_t i = 0; i < n; i += 256) {
    const int64_t j = std::min(n, i + 256);
    correct += accuracy(net(rows(set.images, i, j)), rows(set.labels, i, j));
  }
  net.train();
  return correct / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("vision_transformer",
               "10.7 Transformer, exercise 6: a vision Transformer trained on rendered shapes (disc, square, ring, "
               "cross); accuracy per epoch and the class token's attention over the image.");
  args.add_int("epochs", 10, "training epochs", 1, 10000);
  args.add_int("num-train", 2000, "training images", 8, 1000000);
  args.add_int("num-test", 400, "test images", 8, 1000000);
  args.add_int("image-size", 24, "image side in pixels (a multiple of --patch-size)", 12, 512);
  args.add_int("patch-size", 4, "patch side in pixels", 1, 512);
  args.add_int("num-hiddens", 48, "model width", 4, 4096);
  args.add_int("num-heads", 4, "attention heads", 1, 64);
  args.add_int("num-layers", 2, "encoder blocks", 1, 64);
  args.add_int("batch-size", 64, "images per batch", 1, 4096);
  args.add_float("lr", 0.002, "Adam's learning rate", 0.0, 10.0);
  args.add_float("dropout", 0.1, "dropout", 0.0, 0.9);
  args.add_flag("quick", "3 epochs of 512 images: the test suite's run");
  return run_chapter(args, argc, argv, [&](const std::string& out) {
    const bool quick = args.get_flag("quick");
    const int64_t S = args.get_int("image-size"), p = args.get_int("patch-size");
    check(S % p == 0, "vision_transformer", "--image-size ", S, " is not a multiple of --patch-size ", p);
    const int64_t epochs = quick ? 3 : args.get_int("epochs"), batch_size = args.get_int("batch-size");
    const ShapeImages train = render_shapes(quick ? 512 : args.get_int("num-train"), S, 1);
    const ShapeImages test = render_shapes(quick ? 200 : args.get_int("num-test"), S, 2);
    const int64_t n = train.images.size(0);
    std::printf("data: %lld training and %lld test images of %lldx%lld pixels, 4 classes (chance: 0.25), "
                "%lld patches of %lldx%lld\n",
                static_cast<long long>(n), static_cast<long long>(test.images.size(0)), static_cast<long long>(S),
                static_cast<long long>(S), static_cast<long long>((S / p) * (S / p)), static_cast<long long>(p),
                static_cast<long long>(p));
    const int64_t d = args.get_int("num-hiddens");
    VisionTransformer net(S, p, d, 2 * d, args.get_int("num-heads"), args.get_int("num-layers"), 4,
                          args.get_float("dropout"));
    std::printf("%lld parameters\n", static_cast<long long>(net.num_parameters()));
    Adam optimizer(net.parameters(), args.get_float("lr"));
    for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
      // a fresh order each epoch
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) order[i] = i;
      for (int64_t i = n; i > 1; --i) std::swap(order[i - 1], order[random_int(i)]);
      Tensor index = empty({n});
      for (int64_t i = 0; i < n; ++i) index.data()[i] = static_cast<float>(order[i]);
      const Tensor X = index_select(train.images, 0, index), y = index_select(train.labels, 0, index);
      double total = 0;
      for (int64_t i = 0; i < n; i += batch_size) {
        const int64_t j = std::min(n, i + batch_size);
        optimizer.zero_grad();
        Tensor loss = mean(softmax_cross_entropy(net(rows(X, i, j)), rows(y, i, j)));
        loss.backward();
        optimizer.step();
        total += loss.item() * static_cast<double>(j - i);
      }
      std::printf("epoch %lld/%lld, loss %.3f, train acc %.3f, test acc %.3f\n", static_cast<long long>(epoch),
                  static_cast<long long>(epochs), total / static_cast<double>(n), accuracy_on(net, train),
                  accuracy_on(net, test));
      std::fflush(stdout);
    }

    // The class token's attention over the patches of one test image per class.
    NoGrad no_grad;
    net.eval();
    const Tensor images = rows(test.images, 0, 4);  // classes 0, 1, 2, 3 in turn
    const Tensor predicted = argmax(net(images), 1);
    const Tensor w = mean(net.class_token_attention(), 1);  // (4, no. of patches), over the heads
    const int64_t side = S / p;
    // Two figures, each with its own colour bar: the images (pixel values) and the weights as
    // they are (each image's weights sum to 1 over the patches; the class token's own share
    // is left out), so the scale reads as attention.
    Tensor pixels = zeros({1, 4, S, S}), grid = zeros({1, 4, S, S});
    std::vector<std::string> names, titles;
    for (int64_t c = 0; c < 4; ++c) {
      for (int64_t y = 0; y < S; ++y)
        for (int64_t x = 0; x < S; ++x) {
          pixels.at({0, c, y, x}) = images.at({c, y, x});
          grid.at({0, c, y, x}) = w.at({c, (y / p) * side + x / p});
        }
      names.push_back(shape_class_names()[c]);
      titles.push_back(shape_class_names()[c] + ", predicted " +
                       shape_class_names()[static_cast<size_t>(predicted.at({c}))]);
    }
    const std::string images_path = out + "/test_images.png", path = out + "/class_token_attention.png";
    write_figure(images_path, [&] { show_heatmaps(pixels, "x", "y", names, {8.0f, 2.6f}, "Reds", images_path); });
    write_figure(path, [&] { show_heatmaps(grid, "x", "y", titles, {8.0f, 2.6f}, "Reds", path); });
  }, ChapterDefaults{/*threads=*/1});
}
