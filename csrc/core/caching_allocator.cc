// This file implements CachingAllocator.
#include "core/caching_allocator.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>

#include "core/stream.h"

namespace ember {

// Note [Caching allocator sizes]
// Block sizes are rounded up to kMinBlockSize (512 bytes; 0 bytes gets a
// 512-byte block), so every block is 512-aligned within its segment.
// Requests up to kSmallSize (1 MiB) come from the small pool, whose
// segments are kSmallBuffer (2 MiB): many small tensors share one source
// allocation. Larger requests come from the large pool: below
// kMinLargeAlloc (10 MiB) they share kLargeBuffer (20 MiB) segments; from
// 10 MiB up each gets a segment of its own, rounded up to kRoundLarge
// (2 MiB) so that a slightly larger request later can reuse it.
//
// A free block bigger than the request is split when the rest is worth
// keeping: any rest in the small pool; in the large pool only a rest over
// kSmallSize, since a smaller one could serve only small requests, which
// never look in the large pool. Freed blocks merge with free neighbours of
// their segment. A segment belongs to one pool and one stream for life.
//
// If the preferred segment would pass the limit or the source refuses it,
// a segment of exactly the rounded request is tried; if that fails too,
// every fully free segment goes back to the source (EmptyCache) and both
// are tried once more before Allocate returns null.

namespace {

// Largest request served; rounding anything bigger could overflow.
constexpr size_t kMaxRequest = SIZE_MAX / 2;

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

size_t RoundSize(size_t bytes) {
  return bytes == 0 ? CachingAllocator::kMinBlockSize
                    : RoundUp(bytes, CachingAllocator::kMinBlockSize);
}

size_t SegmentSize(size_t size) {
  if (size <= CachingAllocator::kSmallSize) return CachingAllocator::kSmallBuffer;
  if (size < CachingAllocator::kMinLargeAlloc) return CachingAllocator::kLargeBuffer;
  return RoundUp(size, CachingAllocator::kRoundLarge);
}

}  // namespace

struct CachingAllocator::Block {
  enum class State : uint8_t {
    kFree,       // in its pool
    kAllocated,  // handed out, in allocated_
    kPending,    // freed, in pending_ until its fences passed
  };

  Block(char* p, size_t s, Stream* st, bool sm) : ptr(p), size(s), stream(st), small(sm) {}

  char* ptr;
  size_t size;
  Stream* stream;  // the stream it was allocated for; null: host-ordered
  bool small;      // from the small pool
  State state = State::kFree;
  // Neighbours in the same segment, by address.
  Block* prev = nullptr;
  Block* next = nullptr;
  // Other streams that used it (RecordStream), while allocated.
  std::vector<Stream*> uses;
  // (stream, ticket) each must pass before reuse, while pending.
  std::vector<std::pair<Stream*, uint64_t>> fences;
};

bool CachingAllocator::BlockLess::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return std::less<Stream*>()(a->stream, b->stream);
  if (a->size != b->size) return a->size < b->size;
  return std::less<char*>()(a->ptr, b->ptr);
}

CachingAllocator::CachingAllocator(std::string name, std::unique_ptr<SubAllocator> source)
    : name_(std::move(name)), source_(std::move(source)) {}

CachingAllocator::~CachingAllocator() {
  for (Block* b : small_pool_) delete b;
  for (Block* b : large_pool_) delete b;
  for (Block* b : pending_) delete b;
  for (auto& entry : allocated_) delete entry.second;
  for (auto& entry : segments_) source_->Free(entry.first, entry.second);
}

void* CachingAllocator::Allocate(size_t bytes, Stream* stream) {
  if (bytes > kMaxRequest) return nullptr;
  const size_t size = RoundSize(bytes);
  const bool small = size <= kSmallSize;
  std::lock_guard<std::mutex> lock(mu_);
  if (!pending_.empty()) ProcessPending();
  Block* block = TakeFreeBlock(size, stream, small);
  if (block == nullptr) block = NewSegment(size, stream, small);
  if (block == nullptr) {
    ReleaseCached();
    block = NewSegment(size, stream, small);
    if (block == nullptr) return nullptr;
  }
  Split(block, size);
  block->state = Block::State::kAllocated;
  allocated_.emplace(block->ptr, block);
  // The whole block, which may exceed `size` when the rest was not split
  // off: bytes_in_use is what this allocator handed out.
  CountAllocated(block->size);
  return block->ptr;
}

namespace {
thread_local CaptureSink* t_capture_sink = nullptr;  // Note [Capture sink]
}  // namespace

CaptureSinkScope::CaptureSinkScope(CaptureSink* sink) : previous_(t_capture_sink) { t_capture_sink = sink; }
CaptureSinkScope::~CaptureSinkScope() { t_capture_sink = previous_; }

CaptureSink::~CaptureSink() {
  CaptureSinkScope none(nullptr);  // freed for real, even during another capture
  for (const auto& [ptr, bytes] : blocks_) allocator_->Deallocate(ptr, bytes);
}

void CachingAllocator::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  if (t_capture_sink != nullptr && t_capture_sink->allocator_ == this) {
    t_capture_sink->blocks_.emplace_back(ptr, bytes);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = allocated_.find(ptr);
  if (it == allocated_.end()) return;
  Block* block = it->second;
  allocated_.erase(it);
  CountFreed(block->size);
  // Note [Stream-ordered memory]: the block's own stream may reuse it at
  // once; every other stream that used it must first pass what it had
  // queued when the block was freed.
  for (Stream* s : block->uses) {
    const uint64_t ticket = s->LastPosted();
    if (!s->Passed(ticket)) block->fences.emplace_back(s, ticket);
  }
  block->uses.clear();
  if (block->fences.empty()) {
    FreeBlock(block);
  } else {
    block->state = Block::State::kPending;
    pending_.push_back(block);
  }
}

void CachingAllocator::RecordStream(void* ptr, Stream* stream) {
  if (ptr == nullptr || stream == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = allocated_.find(ptr);
  if (it == allocated_.end()) return;
  Block* block = it->second;
  if (stream == block->stream) return;
  if (std::find(block->uses.begin(), block->uses.end(), stream) == block->uses.end()) {
    block->uses.push_back(stream);
  }
}

void CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseCached();
}

CachingAllocator::Pool& CachingAllocator::PoolOf(const Block* block) {
  return block->small ? small_pool_ : large_pool_;
}

// Best fit: the smallest free block of this pool and stream that holds
// `size`; the lowest address among equals.
CachingAllocator::Block* CachingAllocator::TakeFreeBlock(size_t size, Stream* stream, bool small) {
  Pool& pool = small ? small_pool_ : large_pool_;
  Block key(nullptr, size, stream, small);
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.erase(it);
  return block;
}

CachingAllocator::Block* CachingAllocator::NewSegment(size_t size, Stream* stream, bool small) {
  const size_t preferred = SegmentSize(size);
  Block* block = TryNewSegment(preferred, stream, small);
  if (block == nullptr && preferred != size) block = TryNewSegment(size, stream, small);
  return block;
}

CachingAllocator::Block* CachingAllocator::TryNewSegment(size_t segment_size, Stream* stream,
                                                         bool small) {
  const size_t limit = this->limit();
  const size_t reserved = reserved_.load(std::memory_order_relaxed);
  if (limit != 0 && (segment_size > limit || reserved > limit - segment_size)) return nullptr;
  void* ptr = source_->Alloc(segment_size);
  if (ptr == nullptr) return nullptr;
  segments_.emplace(ptr, segment_size);
  reserved_.store(reserved + segment_size, std::memory_order_relaxed);
  return new Block(static_cast<char*>(ptr), segment_size, stream, small);
}

// Cuts `block` down to `size`, putting the rest in the pool when it is
// worth keeping (Note [Caching allocator sizes]).
void CachingAllocator::Split(Block* block, size_t size) {
  const size_t rest = block->size - size;
  const bool keep = block->small ? rest >= kMinBlockSize : rest > kSmallSize;
  if (!keep) return;
  Block* remainder = new Block(block->ptr + size, rest, block->stream, block->small);
  remainder->prev = block;
  remainder->next = block->next;
  if (block->next != nullptr) block->next->prev = remainder;
  block->next = remainder;
  block->size = size;
  PoolOf(remainder).insert(remainder);
}

// Merges `block` with its free neighbours and puts the result in its pool.
void CachingAllocator::FreeBlock(Block* block) {
  block->state = Block::State::kFree;
  block->fences.clear();
  Pool& pool = PoolOf(block);
  if (Block* prev = block->prev; prev != nullptr && prev->state == Block::State::kFree) {
    pool.erase(prev);  // before its size, part of the key, changes
    prev->size += block->size;
    prev->next = block->next;
    if (block->next != nullptr) block->next->prev = prev;
    delete block;
    block = prev;
  }
  if (Block* next = block->next; next != nullptr && next->state == Block::State::kFree) {
    pool.erase(next);
    block->size += next->size;
    block->next = next->next;
    if (next->next != nullptr) next->next->prev = block;
    delete next;
  }
  pool.insert(block);
}

// Frees the pending blocks whose fences all passed.
void CachingAllocator::ProcessPending() {
  size_t kept = 0;
  for (Block* block : pending_) {
    auto& fences = block->fences;
    fences.erase(std::remove_if(fences.begin(), fences.end(),
                                [](const std::pair<Stream*, uint64_t>& fence) {
                                  return fence.first->Passed(fence.second);
                                }),
                 fences.end());
    if (fences.empty()) {
      FreeBlock(block);  // merges only with free blocks, never a pending one
    } else {
      pending_[kept++] = block;
    }
  }
  pending_.resize(kept);
}

void CachingAllocator::ReleaseCached() {
  if (!pending_.empty()) ProcessPending();
  for (Pool* pool : {&small_pool_, &large_pool_}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* block = *it;
      if (block->prev != nullptr || block->next != nullptr) {
        ++it;
        continue;
      }
      // A free block without neighbours is a whole segment.
      it = pool->erase(it);
      auto segment = segments_.find(block->ptr);
      source_->Free(block->ptr, segment->second);
      reserved_.fetch_sub(segment->second, std::memory_order_relaxed);
      segments_.erase(segment);
      delete block;
    }
  }
}

}  // namespace ember
