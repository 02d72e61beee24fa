// Memory-mapped devices and interrupt lines: the interfaces every device model implements.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace vplat::dev {

// A device register window. Offsets are relative to the window's base; size is 1, 2, 4 or 8 bytes.
// A device answers every access in its window: registers it does not have read as zero and ignore
// writes (what most Arm peripherals do), so a wild guest access never reaches the host.
class MmioDevice {
public:
  virtual ~MmioDevice() = default;
  virtual uint64_t read(uint64_t offset, unsigned size) = 0;
  virtual void write(uint64_t offset, unsigned size, uint64_t value) = 0;
  virtual std::string name() const = 0;
};

// A level-sensitive interrupt wire from a device to an interrupt controller input.
class IrqLine {
public:
  IrqLine() = default;
  explicit IrqLine(std::function<void(bool)> sink) : sink_(std::move(sink)) {}
  void set(bool level) {
    if (level == level_) return;
    level_ = level;
    if (sink_) sink_(level);
  }
  bool level() const { return level_; }

private:
  std::function<void(bool)> sink_;
  bool level_ = false;
};

} // namespace vplat::dev
