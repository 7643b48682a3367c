// This file implements DeferredError (Note [Device error words]).
#include "core/device_error.h"

#include <algorithm>

namespace ember {

RefPtr<DeferredError> DeferredError::ForWord(DeviceErrorWords* words, DeviceErrorWord* word, std::string op,
                                             DescribeDeviceError describe) {
  RefPtr<DeferredError> d = RefPtr<DeferredError>::Adopt(new DeferredError());
  d->words_ = words;
  d->word_ = word;
  d->op_ = std::move(op);
  d->describe_ = std::move(describe);
  return d;
}

RefPtr<DeferredError> DeferredError::Joint(const std::vector<RefPtr<DeferredError>>& parts) {
  std::vector<RefPtr<DeferredError>> words;
  for (const auto& p : parts) {
    if (p) p->AppendWords(&words);
  }
  // One word read through two inputs is one part.
  std::vector<RefPtr<DeferredError>> unique;
  for (auto& w : words) {
    if (std::none_of(unique.begin(), unique.end(), [&](const auto& u) { return u.get() == w.get(); })) {
      unique.push_back(std::move(w));
    }
  }
  if (unique.empty()) return nullptr;
  if (unique.size() == 1) return unique[0];
  RefPtr<DeferredError> d = RefPtr<DeferredError>::Adopt(new DeferredError());
  d->parts_ = std::move(unique);
  return d;
}

DeferredError::~DeferredError() {
  if (word_ != nullptr) words_->Release(word_);
}

void DeferredError::SetEvent(const Event& event) {
  if (parts_.empty()) {
    event_ = event;
    return;
  }
  for (auto& p : parts_) p->SetEvent(event);
}

void DeferredError::AppendWords(std::vector<RefPtr<DeferredError>>* out) const {
  if (parts_.empty()) {
    out->push_back(RefPtr<DeferredError>::Share(const_cast<DeferredError*>(this)));
    return;
  }
  out->insert(out->end(), parts_.begin(), parts_.end());
}

// The kernel wrote the word (or not) before its event happened; volatile
// reads, as the device wrote the memory behind the compiler's back.
Status DeferredError::ReadWord() const {
  event_.Synchronize();
  // A device that failed for good reports that failure to every reader;
  // what its kernels left in the word means nothing.
  if (event_.stream != nullptr && !event_.stream->Failure().ok()) return Status::OK();
  const volatile DeviceErrorWord* w = word_;
  if (w->code == kDeviceErrorNone) return Status::OK();
  DeviceErrorWord copy;
  copy.code = w->code;
  copy.operand = w->operand;
  copy.position = w->position;
  copy.value = w->value;
  copy.bound = w->bound;
  std::string message = describe_ ? describe_(copy) : "bad data (device error code " + std::to_string(copy.code) + ")";
  return InvalidArgument(op_ + ": " + message);
}

const Status& DeferredError::Resolve() const {
  std::call_once(resolved_once_, [this] {
    if (parts_.empty()) {
      status_ = ReadWord();
    } else {
      for (const auto& p : parts_) {
        const Status& s = p->Resolve();
        if (!s.ok()) {
          status_ = s;
          break;
        }
      }
    }
    resolved_.store(true, std::memory_order_release);
  });
  return status_;
}

bool DeferredError::KnownOk() const {
  if (resolved_.load(std::memory_order_acquire)) return status_.ok();
  if (parts_.empty()) return event_.HasHappened() && Resolve().ok();
  for (const auto& p : parts_) {
    if (!p->KnownOk()) return false;
  }
  return true;
}

}  // namespace ember
