// layers/vision_transformer.cpp — 10.7 exercise 6: a vision Transformer.
#include "layers/vision_transformer.h"

#include <string>

#include "core/ops.h"

namespace d2l {

Tensor patchify(const Tensor& images, int64_t p) {
  check(images.defined() && images.ndim() == 3 && p > 0 && images.size(1) % p == 0 && images.size(2) % p == 0,
        "patchify", "images must be (batch_size, height, width) with sides divisible by patch_size ", p, ", got ",
        images.defined() ? images.shape() : Shape{});
  const int64_t B = images.size(0), rows = images.size(1) / p, cols = images.size(2) / p;
  // (B, rows, p, cols, p): image row r * p + i, column c * p + j
  const Tensor X = reshape(images, {B, rows, p, cols, p});
  // (B, rows, cols, p, p) -> (B, rows * cols, p * p)
  return reshape(permute(X, {0, 1, 3, 2, 4}), {B, rows * cols, p * p});
}

VisionTransformer::VisionTransformer(int64_t image_size_, int64_t patch_size_, int64_t num_hiddens_,
                                     int64_t ffn_num_hiddens, int64_t num_heads, int64_t num_layers,
                                     int64_t num_classes, float dropout)
    : image_size(image_size_),
      patch_size(patch_size_),
      num_patches((image_size_ / patch_size_) * (image_size_ / patch_size_)),
      num_hiddens(num_hiddens_),
      patch_embedding(add_module<Linear>("patch_embedding", patch_size_ * patch_size_, num_hiddens_)),
      blks(add_module<Blocks<EncoderBlock>>("blks")),
      norm(add_module<LayerNorm>("norm", num_hiddens_)),
      head(add_module<Linear>("head", num_hiddens_, num_classes)) {
  check(image_size > 0 && patch_size > 0 && image_size % patch_size == 0, "VisionTransformer", "image_size ",
        image_size, " is not a multiple of patch_size ", patch_size);
  // Both start small, N(0, 0.02²), as ViT's reference code starts its position embedding.
  cls_token = register_parameter("cls_token", normal(0.0f, 0.02f, {1, 1, num_hiddens}));
  pos_embedding = register_parameter("pos_embedding", normal(0.0f, 0.02f, {1, num_patches + 1, num_hiddens}));
  for (int64_t i = 0; i < num_layers; ++i)
    blks.add("block" + std::to_string(i), num_hiddens, num_hiddens, num_hiddens, num_hiddens, Shape{num_hiddens},
             num_hiddens, ffn_num_hiddens, num_heads, dropout);
}

Tensor VisionTransformer::forward(const Tensor& images) {
  check(images.defined() && images.ndim() == 3 && images.size(1) == image_size && images.size(2) == image_size,
        "VisionTransformer", "images must be (batch_size, ", image_size, ", ", image_size, "), got ",
        images.defined() ? images.shape() : Shape{});
  const int64_t B = images.size(0);
  // tokens: (batch_size, no. of patches, num_hiddens)
  const Tensor tokens = patch_embedding(patchify(images, patch_size));
  // the class token in front of every image's patches: (batch_size, no. of patches + 1, num_hiddens)
  Tensor H = concat({repeat(cls_token, {B, 1, 1}), tokens}, 1) + pos_embedding;
  for (EncoderBlock* blk : blks) H = (*blk)(H, Tensor());  // no valid_lens: every token sees every token
  return head(norm(select(H, 1, 0)));  // the class token's output -> (batch_size, num_classes)
}

Tensor VisionTransformer::class_token_attention() const {
  const Tensor& w = blks.back()->attention.attention->attention_weights;  // (B * heads, N + 1, N + 1)
  check(w.defined(), "VisionTransformer", "no attention weights yet: run a forward first");
  const int64_t heads = blks.back()->attention.num_heads;
  // query 0 (the class token), keys 1.. (the patches)
  return reshape(slice(select(w, 1, 0), 1, 1, num_patches + 1), {-1, heads, num_patches});
}

}  // namespace d2l
