// core/backward_fn.h — BackwardFn, the type of a graph node's backward closure: what
// std::function<void(Node&)> does, minus a heap allocation per op.
//
// std::function stores a closure inside itself only up to 16 bytes (libstdc++); an op's
// closure usually captures a few sizes and flags (matmul's batch, M, N, K and two flags: 40
// bytes), so every op paid one malloc and one free for it. BackwardFn keeps closures of up
// to kInlineBytes in the node itself and puts larger ones in the engine's object pool
// (core/allocator.h, allocate_object). It is move-only (a node's closure is never copied),
// so a closure may capture move-only things, such as another BackwardFn.
#pragma once
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "core/allocator.h"

namespace d2l {

struct Node;

class BackwardFn {
 public:
  static constexpr size_t kInlineBytes = 64;  // matmul's, permute's and the GRU's closures fit

  BackwardFn() = default;
  BackwardFn(std::nullptr_t) {}
  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, BackwardFn> && !std::is_same_v<D, std::nullptr_t>>>
  BackwardFn(F&& f) {
    static_assert(std::is_invocable_v<D&, Node&>, "a backward closure takes (Node&)");
    static_assert(alignof(D) <= 16, "closure over-aligned for the object pool");
    if constexpr (fits_inline<D>()) {
      new (buf_) D(std::forward<F>(f));
      ops_ = &kInlineOps<D>;
    } else {
      D* heap = static_cast<D*>(allocate_object(sizeof(D)));
      try {
        new (heap) D(std::forward<F>(f));
      } catch (...) {
        release_object(heap, sizeof(D));
        throw;
      }
      new (buf_) D*(heap);
      ops_ = &kHeapOps<D>;
    }
  }
  BackwardFn(BackwardFn&& o) noexcept { take(o); }
  BackwardFn& operator=(BackwardFn&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  BackwardFn& operator=(std::nullptr_t) {
    reset();
    return *this;
  }
  BackwardFn(const BackwardFn&) = delete;
  BackwardFn& operator=(const BackwardFn&) = delete;
  ~BackwardFn() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()(Node& node) const { ops_->call(buf_, node); }
  // The stored closure if it is a T, else nullptr (std::function::target): the debug
  // switches use it to read back the step they wrapped.
  template <class T>
  const T* target() const {
    if (ops_ == &kInlineOps<T>) return reinterpret_cast<const T*>(buf_);
    if (ops_ == &kHeapOps<T>) return *reinterpret_cast<T* const*>(buf_);
    return nullptr;
  }

 private:
  struct Ops {
    void (*call)(void* storage, Node& node);
    void (*move)(void* to, void* from);  // move-constructs into `to`, destroys `from`
    void (*destroy)(void* storage);
  };
  template <class D>
  static constexpr bool fits_inline() {
    return sizeof(D) <= kInlineBytes && alignof(D) <= 16 && std::is_nothrow_move_constructible_v<D>;
  }
  template <class D>
  static constexpr Ops kInlineOps{
      [](void* s, Node& n) { (*static_cast<D*>(s))(n); },
      [](void* to, void* from) {
        new (to) D(std::move(*static_cast<D*>(from)));
        static_cast<D*>(from)->~D();
      },
      [](void* s) { static_cast<D*>(s)->~D(); }};
  template <class D>
  static constexpr Ops kHeapOps{
      [](void* s, Node& n) { (**static_cast<D**>(s))(n); },
      [](void* to, void* from) { new (to) D*(*static_cast<D**>(from)); },
      [](void* s) {
        D* p = *static_cast<D**>(s);
        p->~D();
        release_object(p, sizeof(D));
      }};

  void take(BackwardFn& o) noexcept {
    if (!o.ops_) return;
    o.ops_->move(buf_, o.buf_);
    ops_ = o.ops_;
    o.ops_ = nullptr;
  }
  void reset() {
    if (!ops_) return;
    const Ops* ops = ops_;
    ops_ = nullptr;
    ops->destroy(buf_);
  }

  alignas(16) mutable unsigned char buf_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace d2l
