// This file implements CopyToDevice (Note [Device copies]).
#include "runtime/device_copy.h"

#include <cstring>
#include <list>
#include <mutex>

#include "runtime/context.h"
#include "runtime/profiler.h"

namespace ember {
namespace {

// The device that performs a copy from `from` to `to`.
Device* Performer(Device* from, Device* to) { return from->host_memory() ? to : from; }

class CopyLaunch final : public Task {
 public:
  CopyLaunch(RefPtr<TensorHandle> src, RefPtr<TensorHandle> dst, Device* performer)
      : src_(std::move(src)), dst_(std::move(dst)), performer_(performer) {
    error_sink_ = ErrorSink::ForCurrentThread();
    sequence_ = error_sink_->NextSequence();
  }

  bool WaitBeforeRun(const std::function<void()>& wake) override {
    if (!MustWait()) return false;
    src_->WhenDefined(wake);
    return true;
  }

  void Run() override {
    const int64_t start = profiler::Enabled() ? profiler::NowNs() : 0;
    try {
      RunGuarded();
    } catch (const std::bad_alloc&) {
      Fail(ResourceExhausted(Where() + "out of memory"));
    } catch (const std::exception& e) {
      Fail(Internal(Where() + e.what()));
    }
    // Note [Profiler]: on a device with a stream the span covers issuing
    // the copy; the transfer itself finishes later, on the stream.
    if (start != 0 && profiler::Enabled()) {
      const int64_t bytes = src_->shape().NumElements() * static_cast<int64_t>(DTypeSize(src_->dtype()));
      profiler::Record(profiler::Event{"copy", profiler::Category::kCopy, start, profiler::NowNs(), 0,
                                       "\"from\":\"" + src_->device()->name() + "\",\"to\":\"" +
                                           dst_->device()->name() + "\",\"bytes\":" + std::to_string(bytes)});
    }
  }

 private:
  // The copy needs the source's buffer, not its data: the device orders
  // the copy after the source's event.
  bool MustWait() const { return !src_->IsDefined() && !src_->IsAvailable(); }

  std::string Where() const {
    return "copy from " + src_->device()->name() + " to " + dst_->device()->name() + ": ";
  }

  void RunGuarded() {
    if (MustWait()) src_->AwaitDefined();  // sync mode: run outside an executor
    if (src_->IsError()) return dst_->SetError(src_->error());
    Device* to = dst_->device();
    const Tensor& source = src_->tensor();
    RefPtr<Buffer> buffer = AllocateCopyDestination(src_->device(), to, source.NumBytes());
    if (!buffer) {
      return Fail(ResourceExhausted(Where() + "out of memory allocating " + std::to_string(source.NumBytes()) +
                                    " bytes on " + to->name()));
    }
    if (to->stream() != nullptr && performer_->stream() != nullptr && to != performer_) {
      to->allocator()->RecordStream(buffer->data(), performer_->stream());
    }
    Tensor dst(source.dtype(), source.shape(), std::move(buffer));
    const Event after = src_->IsAvailable() ? Event{} : src_->event();
    Event done;
    Status s = CopyTensor(src_->device(), to, source, dst, after, &done);
    if (!s.ok()) return Fail(s.WithPrefix(Where()));
    dst_->SetTensor(std::move(dst));
    dst_->SetErrorSource(src_);
    // Values computed from the copy carry the source's unresolved verdict
    // on (Note [Deferred errors in handles]).
    if (src_->deferred_error() && !src_->deferred_error()->KnownOk()) dst_->SetDeferredError(src_->deferred_error());
    dst_->MarkDefined(done);
  }

  void Fail(const Status& s) {
    error_sink_->Record(s, sequence_);
    dst_->SetError(s);
  }

  RefPtr<TensorHandle> src_;
  RefPtr<TensorHandle> dst_;
  Device* performer_;
  std::shared_ptr<ErrorSink> error_sink_;
  uint64_t sequence_ = 0;
};

}  // namespace

RefPtr<Buffer> AllocateCopyDestination(Device* from, Device* to, size_t bytes) {
  if (to->host_memory() && from->pinned_allocator() != nullptr) {
    if (RefPtr<Buffer> pinned = Buffer::Allocate(from->pinned_allocator(), bytes)) return pinned;
  }
  return Buffer::Allocate(to->allocator(), bytes, to->stream());
}

Status CopyTensor(Device* from, Device* to, const Tensor& src, Tensor dst, const Event& after, Event* done) {
  if (Performer(from, to) == to) return to->CopyFromHost(src, std::move(dst), after, done);
  if (to->host_memory()) return from->CopyToHost(src, std::move(dst), after, done);
  return from->CopyToDevice(src, to, std::move(dst), after, done);
}

namespace {

// Note [Device scalar cache]
// A Python scalar in a device op (`x + 1.0` under a GPU scope) arrives as
// a host scalar, which the copy stage would move with a transfer and a
// device-side wait per op. Values are immutable, so a small cache per
// device, keyed by dtype and bits, hands back the device copy made
// before: 100 `x + 1.0` on sim:0 make 1 copy, not 100. Bounded (least
// recently used out), emptied by ember.config.empty_cache. A cached
// handle is shared by every op that uses the value, so it is marked saved:
// no op may take over its buffer (Note [Buffer donation]), even one whose
// Python caller donated the tensor wrapping it.
class ScalarCache {
 public:
  static ScalarCache& Global() {
    static ScalarCache* cache = new ScalarCache();  // leaked: handles may outlive static destruction
    return *cache;
  }

  // The bits of `src` if it is a ready host scalar worth caching.
  static bool KeyOf(const TensorHandle& src, uint64_t* bits) {
    if (!src.device()->host_memory() || src.shape().rank() != 0 || !src.IsAvailable() || src.IsError()) {
      return false;
    }
    const Tensor& t = src.tensor();
    if (!t.buffer() || t.NumBytes() > sizeof(uint64_t)) return false;
    *bits = 0;
    std::memcpy(bits, t.raw_data(), t.NumBytes());
    return true;
  }

  RefPtr<TensorHandle> Find(Device* device, DType dtype, uint64_t bits) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->device == device && it->dtype == dtype && it->bits == bits) {
        if (it->handle->IsError()) {  // its copy failed: make a new one
          entries_.erase(it);
          return nullptr;
        }
        entries_.splice(entries_.begin(), entries_, it);  // most recently used first
        return entries_.front().handle;
      }
    }
    return nullptr;
  }

  void Insert(Device* device, DType dtype, uint64_t bits, RefPtr<TensorHandle> handle) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.push_front(Entry{device, dtype, bits, std::move(handle)});
    if (entries_.size() > kCapacity) entries_.pop_back();
  }

  void Clear(Device* device) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.remove_if([&](const Entry& e) { return e.device == device; });
  }

 private:
  // A linear scan of a short list costs less than hashing would save.
  static constexpr size_t kCapacity = 64;
  struct Entry {
    Device* device;
    DType dtype;
    uint64_t bits;
    RefPtr<TensorHandle> handle;
  };
  std::mutex mu_;
  std::list<Entry> entries_;
};

RefPtr<TensorHandle> IssueCopy(const RefPtr<TensorHandle>& src, Device* dst) {
  Device* performer = Performer(src->device(), dst);
  RefPtr<TensorHandle> out = TensorHandle::CreatePending(src->dtype(), src->shape(), dst);
  performer->executor()->Enqueue(std::make_unique<CopyLaunch>(src, out, performer));
  return out;
}

}  // namespace

void ClearDeviceScalarCache(Device* device) { ScalarCache::Global().Clear(device); }

RefPtr<TensorHandle> CopyToDevice(const RefPtr<TensorHandle>& src, Device* dst) {
  if (!NeedsCopy(src->device(), dst)) return src;
  uint64_t bits;
  if (!dst->host_memory() && ScalarCache::KeyOf(*src, &bits)) {
    ScalarCache& cache = ScalarCache::Global();
    if (RefPtr<TensorHandle> cached = cache.Find(dst, src->dtype(), bits)) return cached;
    RefPtr<TensorHandle> out = IssueCopy(src, dst);
    out->MarkSaved();
    cache.Insert(dst, src->dtype(), bits, out);
    return out;
  }
  return IssueCopy(src, dst);
}

}  // namespace ember
