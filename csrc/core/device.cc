// This file implements device-type ids and DeviceManager.
#include "core/device.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>

namespace ember {
namespace {

std::mutex& TypeMutex() {
  static std::mutex mu;
  return mu;
}

std::vector<std::string>& TypeNames() {
  static std::vector<std::string>* names = new std::vector<std::string>{"cpu"};
  return *names;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

DeviceTypeId RegisterDeviceType(const std::string& type_name) {
  std::lock_guard<std::mutex> lock(TypeMutex());
  auto& names = TypeNames();
  auto it = std::find(names.begin(), names.end(), type_name);
  if (it != names.end()) return static_cast<DeviceTypeId>(it - names.begin());
  names.push_back(type_name);
  return static_cast<DeviceTypeId>(names.size() - 1);
}

const std::string& DeviceTypeName(DeviceTypeId id) {
  std::lock_guard<std::mutex> lock(TypeMutex());
  return TypeNames().at(id);
}

Status LookupDeviceType(const std::string& type_name, DeviceTypeId* out) {
  std::lock_guard<std::mutex> lock(TypeMutex());
  auto& names = TypeNames();
  auto it = std::find(names.begin(), names.end(), Lower(type_name));
  if (it == names.end()) return NotFound("unknown device type '" + type_name + "'");
  *out = static_cast<DeviceTypeId>(it - names.begin());
  return Status::OK();
}

Device::Device(DeviceTypeId type, int index, int placement_priority)
    : type_(type),
      index_(index),
      placement_priority_(placement_priority),
      name_(DeviceTypeName(type) + ":" + std::to_string(index)) {
  context_.device = this;
}

namespace {
std::atomic<bool> g_graph_replay{true};
}  // namespace

void SetGraphReplayEnabled(bool enabled) { g_graph_replay.store(enabled, std::memory_order_relaxed); }
bool GraphReplayEnabled() { return g_graph_replay.load(std::memory_order_relaxed); }

Status Device::CaptureGraph(const std::function<Status()>&, std::shared_ptr<DeviceGraph>*) {
  return Unimplemented(name() + " cannot capture graphs");
}

Status Device::ReplayGraph(const std::shared_ptr<DeviceGraph>&, const std::vector<GraphCopy>&,
                           const std::vector<GraphCopy>&, std::vector<Tensor>, Event*) {
  return Unimplemented(name() + " cannot replay graphs");
}

Status Device::CopyFromHost(const Tensor&, Tensor, const Event&, Event*) {
  return Unimplemented(name() + " has host memory: the runtime shares host buffers instead of copying");
}

Status Device::CopyToHost(const Tensor&, Tensor, const Event&, Event*) {
  return Unimplemented(name() + " has host memory: the runtime shares host buffers instead of copying");
}

// Stages through host memory: this device -> host, then host -> there,
// the second copy ordered after the first on the device. The staging
// buffer rides along with the second copy's work.
Status Device::CopyToDevice(const Tensor& src, Device* dst_device, Tensor dst, const Event& after, Event* done) {
  RefPtr<Buffer> staging = Buffer::Allocate(HostAllocator(), src.NumBytes());
  if (!staging) return ResourceExhausted("out of host memory staging a copy to " + dst_device->name());
  Tensor host(src.dtype(), src.shape(), std::move(staging));
  Event staged;
  EMBER_RETURN_IF_ERROR(CopyToHost(src, host, after, &staged));
  return dst_device->CopyFromHost(host, std::move(dst), staged, done);
}

DeviceManager& DeviceManager::Global() {
  static DeviceManager* manager = new DeviceManager();
  return *manager;
}

Device* DeviceManager::Add(std::unique_ptr<Device> device) {
  raw_.push_back(device.get());
  owned_.push_back(std::move(device));
  return raw_.back();
}

Status DeviceManager::Find(const std::string& spec, Device** out) const {
  // Normalise TensorFlow-style names: "/device:GPU:1" -> "gpu:1".
  std::string s = Lower(spec);
  if (s.rfind("/device:", 0) == 0) s = s.substr(8);
  if (!s.empty() && s[0] == '/') s = s.substr(1);
  std::string type = s;
  int index = 0;
  size_t colon = s.find(':');
  if (colon != std::string::npos) {
    type = s.substr(0, colon);
    std::string idx = s.substr(colon + 1);
    if (idx.empty() || !std::all_of(idx.begin(), idx.end(), ::isdigit)) {
      return InvalidArgument("malformed device name '" + spec + "'; expected e.g. 'cpu:0'");
    }
    // Digits only, so the sole failure is a value past int's range.
    if (idx.size() > 9) return InvalidArgument("no device '" + spec + "': index out of range");
    index = std::atoi(idx.c_str());
  }
  for (Device* d : raw_) {
    if (DeviceTypeName(d->type()) == type && d->index() == index) {
      *out = d;
      return Status::OK();
    }
  }
  std::string known;
  for (Device* d : raw_) known += (known.empty() ? "" : ", ") + d->name();
  auto note = missing_notes_.find(type);
  return InvalidArgument("no device '" + spec + "'" + (note != missing_notes_.end() ? " (" + note->second + ")" : "") +
                         "; available devices: " + known);
}

}  // namespace ember
