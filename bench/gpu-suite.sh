#!/usr/bin/env bash
# The GPU workload suite (guest-images/workloads/): runs every workload, prints a table (kernel, sizes, GPU jobs,
# the program's own GPU seconds, host seconds, PASS/FAIL; in the guest also per workload the GPU
# thread-instructions, the host seconds in the GPU model, their ratio and the timing models' estimate) and exits
# non-zero if any workload fails.
#
#   bench/gpu-suite.sh [--quick] [BUILD_DIR]          in the Mesa guest under vplat (BUILD_DIR/vplat)
#   bench/gpu-suite.sh --host [--quick] [BUILD_DIR]   natively, on the host's Mesa (llvmpipe without a GPU),
#                                                     from BUILD_DIR/workloads-host (cmake target workloads-host)
# Options: --api cl runs the OpenCL versions (wlcl-NAME; on the host through the OpenCL ICD loader, e.g. PoCL;
# in the guest through Mesa's Rusticl, which needs an image with mesa-opencl-icd: build-gpu-trixie.sh) of the
# workloads that have one. --bin-dir DIR and --suite FILE replace the workload directory and list (tests use them).
# --only NAME[,NAME...] runs just those workloads of the list (in the guest too, with the guest list's arguments).
# --shader-diff (guest; `make gpu-suite` passes it, host runs ignore it): the guest runs with
# BIFROST_MESA_DEBUG=shaders and Mesa's shader cache off, vplat dumps every shader the GPU ran (--dump-shaders),
# and bench/shader-diff.py compares the two disassemblies after the table.
# Environment: GPU_SUITE_IMAGE_DIR (guest image, default BUILD_DIR/guest-gpu: make image-gpu), GPU_SUITE_TIMEOUT
# (seconds for the whole run, default 3600), GPU_SUITE_VPLAT_ARGS (extra vplat options, e.g. "--gpu-threads 2").
# Exit status: 0 all passed, 1 a failure, 2 something missing, 77 (host mode) no EGL device at all.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { printf 'gpu-suite: %s\n' "$*" >&2; exit 2; }

mode=guest quick='' build='' bindir='' suite='' only='' api=gles model_args=() shader_diff=0
while [ $# -gt 0 ]; do
  case $1 in
    --host) mode=host ;;
    --quick) quick=--quick ;;
    --api) api=${2:?}; shift; [ "$api" = gles ] || [ "$api" = cl ] || die "--api gles|cl" ;;
    --bin-dir) bindir=${2:?}; shift ;;
    --suite) suite=${2:?}; shift ;;
    --only) only=${2:?}; shift; [[ $only =~ ^[a-z0-9_]+(,[a-z0-9_]+)*$ ]] || die "--only NAME[,NAME...]" ;;
    --shader-diff) shader_diff=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *) [ -z "$build" ] || die "more than one BUILD_DIR"; build=$1 ;;
  esac
  shift
done
build=${build:-build}
suite=${suite:-$repo/guest-images/workloads/suite.txt}
timeout=${GPU_SUITE_TIMEOUT:-3600}
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "GPU_SUITE_TIMEOUT must be a positive number of seconds"
command -v python3 >/dev/null || die "python3 is needed"
[ -f "$suite" ] || die "no suite list $suite"
mkdir -p "$build"
if [ "$api" = cl ]; then
  # Only the workloads whose source carries an OpenCL C kernel (as CMake and build-workloads.sh decide); the
  # runner leaves the others out, so the table must not expect them.
  src=$repo/guest-images/workloads
  cl_suite=$build/gpu-suite-cl.txt
  while read -r name rest; do
    case $name in ''|'#'*) continue ;; esac
    if grep -q 'struct wl_kernel_src' "$src/$name.c" 2>/dev/null || [ -x "${bindir:-$build/workloads-host}/wlcl-$name" ]; then
      echo "$name${rest:+ $rest}"
    fi
  done <"$suite" >"$cl_suite"
  suite=$cl_suite
fi
if [ -n "$only" ]; then
  only_suite=$build/gpu-suite-only.txt
  awk -v only="$only" 'BEGIN { n = split(only, w, ","); for (i = 1; i <= n; i++) want[w[i]] = 1 }
                       $1 in want { print; found[$1] = 1 }
                       END { for (x in want) if (!(x in found)) { print "gpu-suite: " x " is not in the list" > "/dev/stderr"; exit 2 } }' \
    "$suite" >"$only_suite" || exit 2
  suite=$only_suite
fi

if [ "$mode" = host ]; then
  bindir=${bindir:-$build/workloads-host}
  [ -d "$bindir" ] || die "no host workloads in $bindir (cmake --build $build --target workloads-host)"
  cmd=(sh "$repo/guest-images/workloads/run-suite.sh" --host --api "$api" ${quick:+"$quick"} --bin-dir "$bindir" --suite "$suite")
  echo "gpu-suite: host ($api), workloads from $bindir${quick:+ (quick sizes)}"
else
  # The Mesa guest image (issue #7) is made by the image builder from guest-images/build-workloads.sh's tree;
  # inside it run-suite.sh is /usr/bin/vplat-gpu-suite with the workloads in /usr/lib/vplat-workloads.
  image=${GPU_SUITE_IMAGE_DIR:-$build/guest-gpu}
  [ -x "$build/vplat" ] || die "no $build/vplat (build first)"
  if [ ! -f "$image/Image" ] || [ ! -f "$image/initramfs.cpio.gz" ]; then
    die "no Mesa guest image in $image (Image, initramfs.cpio.gz[, disk.img]); set GPU_SUITE_IMAGE_DIR"
  fi
  [ -z "$bindir" ] || die "--bin-dir is for --host"
  vargs=(--platform juno --kernel "$image/Image" --initrd "$image/initramfs.cpio.gz")
  append="console=ttyAMA0 vplat.gpu=1"
  if [ -f "$image/disk.img" ]; then
    vargs+=(--disk "$image/disk.img")
    append+=" vplat.root=/dev/vda"
  fi
  # shellcheck disable=SC2206  # word splitting of the extra options is intended
  extra=(${GPU_SUITE_VPLAT_ARGS:-})
  # The GPU model columns: per-job statistics with host seconds, and the console with virtual times, from
  # which gpu_suite.py attributes each job to the workload running at its start.
  stats=$build/gpu-suite-$mode-$api${quick:+-quick}.stats.json
  console_log=$build/gpu-suite-$mode-$api${quick:+-quick}.console.log
  model_args=(--stats "$stats" --console-log "$console_log")
  guest_cmd="vplat-gpu-suite --api $api $quick"
  if [ -n "$only" ]; then
    # The guest's own list carries the guest arguments (fault: --expect-fault); keep its lines for these names.
    guest_cmd="grep -E '^(${only//,/|})( |\$)' /usr/lib/vplat-workloads/suite.txt >/tmp/vplat-suite.txt && $guest_cmd --suite /tmp/vplat-suite.txt"
  fi
  if [ "$shader_diff" = 1 ]; then
    shaders=$build/gpu-suite-$mode-$api${quick:+-quick}.shaders
    rm -rf "$shaders"
    extra+=(--dump-shaders "$shaders")
    # Mesa prints a listing only when it compiles; a shader found in its disk cache (kept on the image's disk
    # from an earlier boot) would run with no listing to compare against.
    guest_cmd="BIFROST_MESA_DEBUG=shaders MESA_SHADER_CACHE_DISABLE=true $guest_cmd"
  fi
  cmd=("$build/vplat" "${vargs[@]}" "${extra[@]}" --stats "$stats" --stats-host-time --console-log "$console_log"
       --append "$append vplat.cmd=\"$guest_cmd\"")
  echo "gpu-suite: guest $image under $build/vplat${quick:+ (quick sizes)}"
fi
log=$build/gpu-suite-$mode-$api${quick:+-quick}.log
set +e
python3 "$here/gpu_suite.py" --suite "$suite" --log "$log" --timeout "$timeout" "${model_args[@]}" -- "${cmd[@]}"
status=$?
if [ "$shader_diff" = 1 ] && [ "$mode" = guest ]; then
  python3 "$here/shader-diff.py" "$console_log" "$shaders" || { [ $status != 0 ] || status=1; }
fi
exit $status
