//===- Context.cpp - contexts, streams, events, memory, graphs ------------===//
//
// Thin RAII over the Driver API. Everything here is off the launch hot path,
// so each call makes its context current (ScopedContext) rather than relying
// on the calling thread's state.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tilec::runtime {

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

ContextState::~ContextState() {
  if (context)
    driver->cuDevicePrimaryCtxRelease(device);
}

/// Retains the primary context of `device` (ordinal `ordinal`).
static Expected<std::shared_ptr<ContextState>> retainPrimary(const Driver *d,
                                                             int ordinal) {
  auto s = std::make_shared<ContextState>();
  s->driver = d;
  s->ordinal = ordinal;
  if (CUresult r = d->cuDeviceGet(&s->device, ordinal); r != CUDA_SUCCESS)
    return d->error("cuDeviceGet", r);
  char name[256] = {};
  if (CUresult r = d->cuDeviceGetName(name, sizeof name - 1, s->device);
      r != CUDA_SUCCESS)
    return d->error("cuDeviceGetName", r);
  s->name = name;
  struct {
    CUdevice_attribute attr;
    int *out;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &s->ccMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &s->ccMinor},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &s->sharedOptin},
  };
  for (auto &a : attrs)
    if (CUresult r = d->cuDeviceGetAttribute(a.out, a.attr, s->device);
        r != CUDA_SUCCESS)
      return d->error("cuDeviceGetAttribute", r);
  CUcontext ctx = nullptr;
  if (CUresult r = d->cuDevicePrimaryCtxRetain(&ctx, s->device);
      r != CUDA_SUCCESS)
    return d->error("cuDevicePrimaryCtxRetain", r)
        .withContext("cannot open " + s->describe());
  s->context = ctx;
  return s;
}

Expected<Context> Context::create(int ordinal) {
  auto driver = Driver::get();
  if (!driver.ok())
    return driver.status();
  const Driver *d = *driver;
  int count = 0;
  if (CUresult r = d->cuDeviceGetCount(&count); r != CUDA_SUCCESS)
    return d->error("cuDeviceGetCount", r);
  if (ordinal < 0 || ordinal >= count)
    return Status::error("there is no CUDA device " + std::to_string(ordinal) +
                         " (the driver sees " + std::to_string(count) +
                         " device" + (count == 1 ? "" : "s") + ")");
  auto state = retainPrimary(d, ordinal);
  if (!state.ok())
    return state.status();
  if (CUresult r = d->cuCtxSetCurrent((*state)->context); r != CUDA_SUCCESS)
    return d->error("cuCtxSetCurrent", r);
  return Context(std::move(*state));
}

Expected<Context> Context::current() {
  auto driver = Driver::get();
  if (!driver.ok())
    return driver.status();
  const Driver *d = *driver;
  CUcontext ctx = nullptr;
  if (CUresult r = d->cuCtxGetCurrent(&ctx); r != CUDA_SUCCESS)
    return d->error("cuCtxGetCurrent", r);
  if (!ctx)
    return Status::error("no CUDA context is current on this thread: create "
                         "a tilec::runtime::Context first");
  CUdevice device;
  if (CUresult r = d->cuCtxGetDevice(&device); r != CUDA_SUCCESS)
    return d->error("cuCtxGetDevice", r);
  // CUdevice values are the devices' ordinals.
  auto state = retainPrimary(d, static_cast<int>(device));
  if (!state.ok())
    return state.status();
  return Context(std::move(*state));
}

Expected<int> Context::deviceCount() {
  auto driver = Driver::get();
  if (!driver.ok())
    return driver.status();
  int count = 0;
  if (CUresult r = (*driver)->cuDeviceGetCount(&count); r != CUDA_SUCCESS)
    return (*driver)->error("cuDeviceGetCount", r);
  return count;
}

Status Context::makeCurrent() const {
  if (CUresult r = state_->driver->cuCtxSetCurrent(state_->context);
      r != CUDA_SUCCESS)
    return state_->driver->error("cuCtxSetCurrent", r);
  return Status();
}

Status Context::synchronize() const {
  ScopedContext scope(*state_);
  TILEC_RETURN_IF_ERROR(scope.status());
  if (CUresult r = state_->driver->cuCtxSynchronize(); r != CUDA_SUCCESS)
    return state_->driver->error("cuCtxSynchronize", r);
  return Status();
}

CUcontext Context::get() const { return state_->context; }
CUdevice Context::device() const { return state_->device; }
int Context::ordinal() const { return state_->ordinal; }
const std::string &Context::deviceName() const { return state_->name; }
int Context::computeCapabilityMajor() const { return state_->ccMajor; }
int Context::computeCapabilityMinor() const { return state_->ccMinor; }
std::string Context::arch() const {
  return "sm_" + std::to_string(state_->ccMajor) +
         std::to_string(state_->ccMinor);
}
const Driver &Context::driver() const { return *state_->driver; }

//===----------------------------------------------------------------------===//
// Stream and Event
//===----------------------------------------------------------------------===//

Expected<Stream> Stream::create(const Context &context) {
  const auto &s = context.state();
  ScopedContext scope(*s);
  TILEC_RETURN_IF_ERROR(scope.status());
  Stream stream;
  if (CUresult r =
          s->driver->cuStreamCreate(&stream.stream_, CU_STREAM_NON_BLOCKING);
      r != CUDA_SUCCESS)
    return s->driver->error("cuStreamCreate", r);
  stream.context_ = s;
  return stream;
}

Status Stream::synchronize() const {
  if (CUresult r = context_->driver->cuStreamSynchronize(stream_);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuStreamSynchronize", r);
  return Status();
}

Stream::Stream(Stream &&other) noexcept
    : context_(std::move(other.context_)),
      stream_(std::exchange(other.stream_, nullptr)) {}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    this->~Stream();
    new (this) Stream(std::move(other));
  }
  return *this;
}

Stream::~Stream() {
  if (stream_ && context_) {
    ScopedContext scope(*context_);
    context_->driver->cuStreamDestroy(stream_);
  }
}

Expected<Event> Event::create(const Context &context) {
  const auto &s = context.state();
  ScopedContext scope(*s);
  TILEC_RETURN_IF_ERROR(scope.status());
  Event event;
  if (CUresult r = s->driver->cuEventCreate(&event.event_, CU_EVENT_DEFAULT);
      r != CUDA_SUCCESS)
    return s->driver->error("cuEventCreate", r);
  event.context_ = s;
  return event;
}

Status Event::record(CUstream stream) const {
  if (CUresult r = context_->driver->cuEventRecord(event_, stream);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuEventRecord", r);
  return Status();
}

Status Event::synchronize() const {
  if (CUresult r = context_->driver->cuEventSynchronize(event_);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuEventSynchronize", r);
  return Status();
}

Expected<float> Event::elapsedMs(const Event &start, const Event &end) {
  float ms = 0;
  if (CUresult r = start.context_->driver->cuEventElapsedTime(&ms, start.event_,
                                                              end.event_);
      r != CUDA_SUCCESS)
    return start.context_->driver->error("cuEventElapsedTime", r);
  return ms;
}

Event::Event(Event &&other) noexcept
    : context_(std::move(other.context_)),
      event_(std::exchange(other.event_, nullptr)) {}

Event &Event::operator=(Event &&other) noexcept {
  if (this != &other) {
    this->~Event();
    new (this) Event(std::move(other));
  }
  return *this;
}

Event::~Event() {
  if (event_ && context_) {
    ScopedContext scope(*context_);
    context_->driver->cuEventDestroy(event_);
  }
}

//===----------------------------------------------------------------------===//
// DeviceMemory
//===----------------------------------------------------------------------===//

Expected<DeviceMemory> DeviceMemory::allocate(const Context &context,
                                              size_t bytes) {
  const auto &s = context.state();
  DeviceMemory m;
  m.context_ = s;
  if (bytes == 0) // the driver refuses empty allocations; an empty buffer is
    return m;     // still a useful value
  ScopedContext scope(*s);
  TILEC_RETURN_IF_ERROR(scope.status());
  CUdeviceptr p = 0;
  if (CUresult r = s->driver->cuMemAlloc(&p, bytes); r != CUDA_SUCCESS)
    return s->driver->error("cuMemAlloc", r)
        .withContext("cannot allocate " + std::to_string(bytes) + " bytes on " +
                     s->describe());
  m.address_ = p;
  m.bytes_ = bytes;
  return m;
}

DeviceMemory::DeviceMemory(DeviceMemory &&other) noexcept
    : context_(std::move(other.context_)),
      address_(std::exchange(other.address_, 0)),
      bytes_(std::exchange(other.bytes_, 0)) {}

DeviceMemory &DeviceMemory::operator=(DeviceMemory &&other) noexcept {
  if (this != &other) {
    this->~DeviceMemory();
    new (this) DeviceMemory(std::move(other));
  }
  return *this;
}

DeviceMemory::~DeviceMemory() {
  if (address_ && context_) {
    ScopedContext scope(*context_);
    context_->driver->cuMemFree(address_);
  }
}

Status DeviceMemory::checkRange(const char *what, size_t bytes,
                                size_t offset) const {
  if (!context_)
    return Status::error(std::string(what) +
                         ": the device buffer was moved from or never made");
  if (offset > bytes_ || bytes > bytes_ - offset)
    return Status::error(std::string(what) + " of " + std::to_string(bytes) +
                         " bytes at offset " + std::to_string(offset) +
                         " does not fit in a device buffer of " +
                         std::to_string(bytes_) + " bytes");
  return Status();
}

Status DeviceMemory::copyFromHost(const void *src, size_t bytes,
                                  size_t offset) {
  TILEC_RETURN_IF_ERROR(checkRange("copy to the device", bytes, offset));
  if (bytes == 0)
    return Status();
  ScopedContext scope(*context_);
  TILEC_RETURN_IF_ERROR(scope.status());
  if (CUresult r =
          context_->driver->cuMemcpyHtoD(address_ + offset, src, bytes);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuMemcpyHtoD", r);
  return Status();
}

Status DeviceMemory::copyToHost(void *dst, size_t bytes, size_t offset) const {
  TILEC_RETURN_IF_ERROR(checkRange("copy to the host", bytes, offset));
  if (bytes == 0)
    return Status();
  ScopedContext scope(*context_);
  TILEC_RETURN_IF_ERROR(scope.status());
  if (CUresult r =
          context_->driver->cuMemcpyDtoH(dst, address_ + offset, bytes);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuMemcpyDtoH", r);
  return Status();
}

Status DeviceMemory::copyFromHostAsync(const void *src, size_t bytes,
                                       CUstream stream, size_t offset) {
  TILEC_RETURN_IF_ERROR(checkRange("copy to the device", bytes, offset));
  if (bytes == 0)
    return Status();
  if (CUresult r = context_->driver->cuMemcpyHtoDAsync(address_ + offset, src,
                                                       bytes, stream);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuMemcpyHtoDAsync", r);
  return Status();
}

Status DeviceMemory::copyToHostAsync(void *dst, size_t bytes, CUstream stream,
                                     size_t offset) const {
  TILEC_RETURN_IF_ERROR(checkRange("copy to the host", bytes, offset));
  if (bytes == 0)
    return Status();
  if (CUresult r = context_->driver->cuMemcpyDtoHAsync(dst, address_ + offset,
                                                       bytes, stream);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuMemcpyDtoHAsync", r);
  return Status();
}

Status DeviceMemory::copyFrom(const DeviceMemory &src, CUstream stream) {
  TILEC_RETURN_IF_ERROR(checkRange("device copy", src.bytes_, 0));
  if (src.bytes_ == 0)
    return Status();
  if (CUresult r = context_->driver->cuMemcpyDtoDAsync(address_, src.address_,
                                                       src.bytes_, stream);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuMemcpyDtoDAsync", r);
  return Status();
}

Status DeviceMemory::fill8(uint8_t value) {
  TILEC_RETURN_IF_ERROR(checkRange("fill", 0, 0));
  if (bytes_ == 0)
    return Status();
  ScopedContext scope(*context_);
  TILEC_RETURN_IF_ERROR(scope.status());
  if (CUresult r = context_->driver->cuMemsetD8(address_, value, bytes_);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuMemsetD8", r);
  return Status();
}

Status DeviceMemory::fill16(uint16_t value) {
  TILEC_RETURN_IF_ERROR(checkRange("fill", 0, 0));
  if (bytes_ % 2)
    return Status::error("fill16 needs a size that is a multiple of 2 bytes, "
                         "not " +
                         std::to_string(bytes_));
  if (bytes_ == 0)
    return Status();
  ScopedContext scope(*context_);
  TILEC_RETURN_IF_ERROR(scope.status());
  if (CUresult r = context_->driver->cuMemsetD16(address_, value, bytes_ / 2);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuMemsetD16", r);
  return Status();
}

Status DeviceMemory::fill32(uint32_t value) {
  TILEC_RETURN_IF_ERROR(checkRange("fill", 0, 0));
  if (bytes_ % 4)
    return Status::error("fill32 needs a size that is a multiple of 4 bytes, "
                         "not " +
                         std::to_string(bytes_));
  if (bytes_ == 0)
    return Status();
  ScopedContext scope(*context_);
  TILEC_RETURN_IF_ERROR(scope.status());
  if (CUresult r = context_->driver->cuMemsetD32(address_, value, bytes_ / 4);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuMemsetD32", r);
  return Status();
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

Expected<Graph> Graph::capture(const Context &context, CUstream stream,
                               const std::function<Status()> &record) {
  const auto &s = context.state();
  const Driver *d = s->driver;
  if (!stream)
    return Status::error("graph capture needs a created stream "
                         "(Stream::create), not the default stream");
  ScopedContext scope(*s);
  TILEC_RETURN_IF_ERROR(scope.status());
  if (CUresult r =
          d->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
      r != CUDA_SUCCESS)
    return d->error("cuStreamBeginCapture", r);
  Status recorded = record();
  CUgraph graph = nullptr;
  CUresult ended = d->cuStreamEndCapture(stream, &graph);
  if (!recorded.ok()) {
    if (graph)
      d->cuGraphDestroy(graph);
    return recorded.withContext("graph capture");
  }
  if (ended != CUDA_SUCCESS)
    return d->error("cuStreamEndCapture", ended)
        .withContext("graph capture (was something not capturable, such as "
                     "a synchronous copy, put on the stream?)");
  Graph g;
  CUresult inst = d->cuGraphInstantiateWithFlags(&g.exec_, graph, 0);
  d->cuGraphDestroy(graph);
  if (inst != CUDA_SUCCESS)
    return d->error("cuGraphInstantiateWithFlags", inst);
  g.context_ = s;
  return g;
}

Status Graph::launch(CUstream stream) const {
  if (CUresult r = context_->driver->cuGraphLaunch(exec_, stream);
      r != CUDA_SUCCESS)
    return context_->driver->error("cuGraphLaunch", r);
  return Status();
}

Graph::Graph(Graph &&other) noexcept
    : context_(std::move(other.context_)),
      exec_(std::exchange(other.exec_, nullptr)) {}

Graph &Graph::operator=(Graph &&other) noexcept {
  if (this != &other) {
    this->~Graph();
    new (this) Graph(std::move(other));
  }
  return *this;
}

Graph::~Graph() {
  if (exec_ && context_) {
    ScopedContext scope(*context_);
    context_->driver->cuGraphExecDestroy(exec_);
  }
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

Expected<std::string> readFile(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Status::error("cannot read " + path + ": " + std::strerror(errno));
  std::string data;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    data.append(buf, n);
  bool failed = std::ferror(f);
  std::fclose(f);
  if (failed)
    return Status::error("cannot read " + path + ": read error");
  return data;
}

} // namespace tilec::runtime
