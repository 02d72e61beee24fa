# Thin wrapper over CMake. `make run` and `make check` are the two commands the README promises.
BUILD ?= build
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: all deps configure build run check bench bench-boot bench-cpu clean format workloads-host workloads-arm64 gpu-suite

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Boots the default guest image (Debian bookworm kernel + busybox initramfs) with a shell on the console;
# Ctrl-A x quits.
run: build image
	@$(BUILD)/vplat --platform juno

# Every test, including full-system boots of the default image.
check: build image image-disk image-gpu
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	@./bench/interp-loops.sh $(BUILD)

# Seconds from process start to the first line of /init, vplat against QEMU (bench/README.md).
bench-boot: build image
	@./bench/boot.sh $(BUILD)

# Debian's compressors and a shell loop in the guest, host seconds per workload, vplat against QEMU (bench/README.md).
bench-cpu: build image
	@./bench/cpu-workloads.sh $(BUILD)

# The GPU workload suite (guest-images/workloads/README.md): native build (tested on the host's Mesa by ctest),
# the arm64 build for the Mesa guest image, and the suite's table (GPU_SUITE=--host runs it on the host's Mesa).
# In the guest, gpu-suite also cross-checks the shaders: Mesa's disassembly against the model's (--shader-diff).
workloads-host: configure
	@cmake --build $(BUILD) -j $(JOBS) --target workloads-host

workloads-arm64:
	@./guest-images/build-workloads.sh $(BUILD)/workloads-arm64

gpu-suite: build
	@./bench/gpu-suite.sh --shader-diff $(GPU_SUITE) $(BUILD)

format:
	@git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	@rm -rf $(BUILD)

# Guest images from Debian arm64 packages (guest-images/README.md); downloads are cached outside the repo.
# Each carries Debian's panfrost module and our GPU test program panfrost-smoke; in the guest, vplat-gpu-load
# loads the module.
.PHONY: image image-trixie image-disk image-gpu image-gpu-trixie
image:
	@./guest-images/build-default.sh $(BUILD)/guest

image-trixie:
	@./guest-images/build-default.sh --suite trixie $(BUILD)/guest-trixie

image-disk:
	@./guest-images/build-disk.sh $(BUILD)/guest-disk

# The GPU guest: an initramfs whose /init loads panfrost and the disk modules at boot, plus a disk with Debian's
# Mesa (EGL/GLES on panfrost) and our GLES compute workloads (boot it with --disk and vplat.root=/dev/vda).
image-gpu:
	@./guest-images/build-gpu.sh $(BUILD)/guest-gpu

# trixie's Mesa 25 with Rusticl (OpenCL) on a disk, with the GLES and OpenCL workloads (guest-images/workloads).
image-gpu-trixie:
	@./guest-images/build-gpu-trixie.sh $(BUILD)/guest-gpu-trixie
