// This file declares RefCounted and RefPtr, intrusive reference counting.
#pragma once

#include <atomic>
#include <utility>

namespace ember {

// Intrusive counting keeps a handle to one allocation (object + count),
// which matters on the per-op path where every output is a new handle.
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

  void Ref() const { count_.fetch_add(1, std::memory_order_relaxed); }
  // Note [Last reference]: a count of one, read by a holder, is the
  // holder's own reference: no other thread has one to copy or drop, so
  // the count cannot change under it and the locked decrement is skipped.
  // The acquire load pairs with the release half of other holders' earlier
  // decrements, as the fetch_sub's would.
  void Unref() const {
    if (count_.load(std::memory_order_acquire) == 1 || count_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete this;
    }
  }
  // Exact only when the caller holds the sole reference it knows of.
  int RefCount() const { return count_.load(std::memory_order_acquire); }

 protected:
  virtual ~RefCounted() = default;

 private:
  mutable std::atomic<int> count_{1};
};

// Owns one reference. `RefPtr<T>::Adopt(new T)` takes the initial reference.
template <typename T>
class RefPtr {
 public:
  RefPtr() = default;
  RefPtr(std::nullptr_t) {}
  RefPtr(const RefPtr& o) : ptr_(o.ptr_) { if (ptr_) ptr_->Ref(); }
  RefPtr(RefPtr&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
  template <typename U>
  RefPtr(RefPtr<U> o) : ptr_(o.Release()) {}
  ~RefPtr() { if (ptr_) ptr_->Unref(); }

  RefPtr& operator=(RefPtr o) noexcept {
    std::swap(ptr_, o.ptr_);
    return *this;
  }

  static RefPtr Adopt(T* ptr) { RefPtr r; r.ptr_ = ptr; return r; }
  // Takes a new reference to an object someone else already owns.
  static RefPtr Share(T* ptr) { if (ptr) ptr->Ref(); return Adopt(ptr); }

  T* get() const { return ptr_; }
  T* operator->() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  T* Release() { return std::exchange(ptr_, nullptr); }

 private:
  T* ptr_ = nullptr;
};

template <typename T, typename... Args>
RefPtr<T> MakeRef(Args&&... args) {
  return RefPtr<T>::Adopt(new T(std::forward<Args>(args)...));
}

}  // namespace ember
