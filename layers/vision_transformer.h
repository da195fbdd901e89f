// layers/vision_transformer.h — 10.7 Transformer (sec_transformer), exercise 6: a Transformer
// for images, without convolutions (the vision Transformer of Dosovitskiy et al., 2021).
//
// The image is cut into patch_size x patch_size patches; each patch, flattened, is one token,
// embedded by one Linear (patch embedding). A learned class token is put in front, a learned
// position vector added to every token, and the chapter's EncoderBlocks (10.7: multi-head
// self-attention + AddNorm, FFN + AddNorm, no mask: every patch sees every patch) run over
// the sequence. The class token's output, through a LayerNorm and a Linear, gives the class
// scores: the class token has no content of its own, so what it holds at the end is what
// its attention gathered from the patches.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "layers/transformer.h"

namespace d2l {

// images (batch_size, height, width) -> patches (batch_size, no. of patches, patch_size²),
// patches in row-major order over the image, each patch's pixels row-major.
Tensor patchify(const Tensor& images, int64_t patch_size);

// images (batch_size, image_size, image_size) -> class scores (batch_size, num_classes).
class VisionTransformer : public Layer<VisionTransformer> {
 public:
  static constexpr const char* section = "10.7 VisionTransformer";
  VisionTransformer(int64_t image_size, int64_t patch_size, int64_t num_hiddens, int64_t ffn_num_hiddens,
                    int64_t num_heads, int64_t num_layers, int64_t num_classes, float dropout);
  Tensor forward(const Tensor& images);
  // The last block's attention of the class token (query 0) over the patches (keys 1..):
  // (batch_size, num_heads, no. of patches), from the last forward.
  Tensor class_token_attention() const;

  int64_t image_size, patch_size, num_patches, num_hiddens;
  Linear& patch_embedding;  // (num_hiddens, patch_size²)
  Tensor cls_token;        // (1, 1, num_hiddens)
  Tensor pos_embedding;    // (1, num_patches + 1, num_hiddens)
  Blocks<EncoderBlock>& blks;  // "block0", "block1", ...
  LayerNorm& norm;
  Linear& head;
};

}  // namespace d2l
