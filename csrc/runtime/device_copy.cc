// This file implements CopyToDevice (Note [Device copies]).
#include "runtime/device_copy.h"

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
    src_->AndThen(wake);
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
  // The performing queue orders its own values; others must be ready.
  bool MustWait() const {
    if (src_->IsAvailable()) return false;
    return !(src_->IsDefined() && src_->producer() == performer_ && performer_->stream() != nullptr);
  }

  std::string Where() const {
    return "copy from " + src_->device()->name() + " to " + dst_->device()->name() + ": ";
  }

  void RunGuarded() {
    if (MustWait()) src_->Await();  // sync mode: run outside an executor
    if (src_->IsError()) return dst_->SetError(src_->error());
    Device* to = dst_->device();
    const Tensor& source = src_->tensor();
    RefPtr<Buffer> buffer = Buffer::Allocate(to->allocator(), source.NumBytes(), to->stream());
    if (!buffer) {
      return Fail(ResourceExhausted(Where() + "out of memory allocating " + std::to_string(source.NumBytes()) +
                                    " bytes on " + to->name()));
    }
    if (to->stream() != nullptr && performer_->stream() != nullptr && to != performer_) {
      to->allocator()->RecordStream(buffer->data(), performer_->stream());
    }
    Tensor dst(source.dtype(), source.shape(), std::move(buffer));
    dst_->SetTensor(dst);
    RefPtr<TensorHandle> src = src_, out = dst_;
    auto sink = error_sink_;
    const uint64_t sequence = sequence_;
    const std::string where = Where();
    DoneCallback done = [src, out, sink, sequence, where](Status s) {
      if (src->IsError()) return out->SetError(src->error());
      if (!s.ok()) {
        Status error = s.WithPrefix(where);
        sink->Record(error, sequence);
        return out->SetError(error);
      }
      out->SetReady();
    };
    CopyTensor(src_->device(), to, source, dst, std::move(done));
    dst_->MarkDefined();
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

void CopyTensor(Device* from, Device* to, const Tensor& src, Tensor dst, DoneCallback done) {
  Device* performer = Performer(from, to);
  if (performer == to) {
    to->CopyFromHost(src, std::move(dst), std::move(done));
  } else if (to->host_memory()) {
    from->CopyToHost(src, std::move(dst), std::move(done));
  } else {
    from->CopyToDevice(src, to, std::move(dst), std::move(done));
  }
}

RefPtr<TensorHandle> CopyToDevice(const RefPtr<TensorHandle>& src, Device* dst) {
  if (!NeedsCopy(src->device(), dst)) return src;
  Device* performer = Performer(src->device(), dst);
  RefPtr<TensorHandle> out = TensorHandle::CreatePending(src->dtype(), src->shape(), dst, performer);
  performer->executor()->Enqueue(std::make_unique<CopyLaunch>(src, out, performer));
  return out;
}

}  // namespace ember
