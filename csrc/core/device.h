// This file declares Device, Executor and DeviceManager: the interface a
// device runtime (CPU, CUDA, ...) implements to plug into Ember.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/status.h"

namespace ember {

// A unit of work for an executor. The executor owns it once enqueued.
class Task {
 public:
  virtual ~Task() = default;
  virtual void Run() = 0;
};

// Runs tasks in FIFO order, asynchronously. Thread-safe.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual void Enqueue(std::unique_ptr<Task> task) = 0;
  // Blocks until every task enqueued before the call has run.
  virtual void WaitIdle() = 0;
  // Like WaitIdle, for at most `timeout`; true if the executor went idle.
  // Lets a waiting Python thread check for KeyboardInterrupt now and then.
  virtual bool WaitIdleFor(std::chrono::milliseconds timeout) = 0;
  // Tasks enqueued and not yet started (approximate; for back-pressure).
  virtual size_t QueueLength() const { return 0; }
};

// Device types get small integer ids at registration, so kernel lookups
// compare integers. "cpu" is always id 0.
using DeviceTypeId = int;
inline constexpr DeviceTypeId kCpuDeviceType = 0;
DeviceTypeId RegisterDeviceType(const std::string& type_name);
const std::string& DeviceTypeName(DeviceTypeId id);
Status LookupDeviceType(const std::string& type_name, DeviceTypeId* out);

class Device {
 public:
  Device(DeviceTypeId type, int index, int placement_priority);
  virtual ~Device() = default;

  const std::string& name() const { return name_; }  // "cpu:0"
  DeviceTypeId type() const { return type_; }
  int index() const { return index_; }
  // Higher wins when placement picks "the best device with a kernel".
  int placement_priority() const { return placement_priority_; }

  virtual Allocator* allocator() = 0;
  virtual Executor* executor() = 0;
  // True if buffers of this device are ordinary host memory (NumPy may view
  // them without a copy).
  virtual bool host_memory() const = 0;

 private:
  DeviceTypeId type_;
  int index_;
  int placement_priority_;
  std::string name_;
};

// Owns every device. Devices are added at start-up and never removed, so
// Device* stays valid for the life of the process.
class DeviceManager {
 public:
  static DeviceManager& Global();

  Device* Add(std::unique_ptr<Device> device);
  // Accepts "cpu", "cpu:0", "/cpu:0", "/device:CPU:0" (case-insensitive).
  Status Find(const std::string& spec, Device** out) const;
  const std::vector<Device*>& devices() const { return raw_; }
  Device* cpu() const { return raw_.empty() ? nullptr : raw_[0]; }

 private:
  std::vector<std::unique_ptr<Device>> owned_;
  std::vector<Device*> raw_;
};

}  // namespace ember
