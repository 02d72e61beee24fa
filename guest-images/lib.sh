# shellcheck shell=bash disable=SC2034  # globals (KPKG, APT_MODE, ...) are read by the sourcing scripts
# Shared helpers for the guest-image scripts. Sourced, not executed.
#
# Package selection goes through apt only (apt-cache show / apt-get download); nothing is ever
# installed on the host. Two apt "modes":
#   host    the suite is the host's own release (bookworm on our build machines): the host's apt
#           configuration is used; arm64 is added as a foreign architecture and the lists refreshed
#           only if the arm64 lists are missing (needs root once).
#   private any other suite (trixie, ...): a self-contained apt tree under the cache dir
#           (own sources.list, lists, status file, archive cache); the host's apt state is untouched
#           and no root is needed.

VPLAT_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/vplat
DEB_CACHE=$VPLAT_CACHE/debs

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

need_tools() {
  local t missing=()
  for t in "$@"; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
  [ ${#missing[@]} -eq 0 ] || die "missing host tools: ${missing[*]} (run scripts/install-deps.sh)"
}

host_codename() {
  # shellcheck disable=SC1091
  (. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
}

# Prints "URI<TAB>suite<TAB>components<TAB>signed-by" for every enabled "deb" source of the host,
# from both the one-line (*.list) and the deb822 (*.sources) formats.
host_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '
      /^[ \t]*deb[ \t]/ {
        sb = ""; i = 2
        if ($2 ~ /^\[/) {
          while (i <= NF) { o = $i; if (o ~ /^\[?signed-by=/) { sub(/^\[?signed-by=/, "", o); sub(/\]$/, "", o); sb = o }
                            if ($i ~ /\]$/) { i++; break } i++ }
        }
        uri = $i; suite = $(i + 1); comps = ""
        for (j = i + 2; j <= NF; j++) comps = comps (comps == "" ? "" : " ") $j
        print uri "\t" suite "\t" comps "\t" sb
      }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk '
      function flush(   nu, ns, u, s, U, S) {
        if (types ~ /(^| )deb( |$)/ && enabled !~ /^(no|false|0)$/) {
          nu = split(uris, U, " "); ns = split(suites, S, " ")
          for (u = 1; u <= nu; u++) for (s = 1; s <= ns; s++) print U[u] "\t" S[s] "\t" comps "\t" sb
        }
        types = uris = suites = comps = sb = enabled = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      {
        key = tolower($1); sub(/:$/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
        if (key == "types") types = val; else if (key == "uris") uris = val
        else if (key == "suites") suites = val; else if (key == "components") comps = val
        else if (key == "signed-by") sb = val; else if (key == "enabled") enabled = tolower(val)
      }
      END { flush() }' "$f"
  done
}

# apt_setup SUITE [force-update]: fills the APT_GET / APT_CACHE command arrays and MIRROR.
apt_setup() {
  local suite=$1 update=${2:-0} host
  host=$(host_codename)
  [ -n "$host" ] || die "cannot read VERSION_CODENAME from /etc/os-release"
  local sandbox=()
  # As root apt drops privileges to _apt for downloads, which cannot enter $HOME/.cache; say so up front.
  [ "$(id -u)" -eq 0 ] && sandbox=(-o APT::Sandbox::User=root)

  # The mirror the host uses for its main suite; the private trees use the same one.
  MIRROR=$(host_sources | awk -F'\t' -v s="$host" '$2 == s && !found { print $1; found = 1 }')
  [ -n "$MIRROR" ] || die "no apt source for suite '$host' found in /etc/apt/sources.list{,.d/*}"

  if [ "$suite" = "$host" ]; then
    APT_MODE=host
    # Debian's docker images turn apt's binary cache off, making every apt-cache call re-parse
    # all lists (seconds each); keep our own copy of that cache (apt revalidates it against the lists).
    local pc=(-o "Dir::Cache::pkgcache=$VPLAT_CACHE/apt/host/pkgcache.bin"
              -o "Dir::Cache::srcpkgcache=$VPLAT_CACHE/apt/host/srcpkgcache.bin")
    mkdir -p "$VPLAT_CACHE/apt/host"
    APT_SOURCES=$(host_sources | awk -F'\t' -v h="$host" '$2 == h || index($2, h "-") == 1 { print "deb " $1 " " $2 " " $3 }')
    APT_GET=(apt-get -q "${sandbox[@]}" "${pc[@]}")
    APT_CACHE=(apt-cache "${pc[@]}")
    local lists=/var/lib/apt/lists
    eval "$(apt-config shell lists Dir::State::Lists/d)"
    if ! dpkg --print-foreign-architectures | grep -x arm64 >/dev/null ||
       ! compgen -G "${lists%/}/*_binary-arm64_Packages*" >/dev/null || [ "$update" = 1 ]; then
      [ "$(id -u)" -eq 0 ] ||
        die "the host's apt has no arm64 lists; run once as root: dpkg --add-architecture arm64 && apt-get update"
      log "adding arm64 to the host's dpkg architectures and refreshing apt lists"
      dpkg --add-architecture arm64
      apt-get update -q >&2 || die "apt-get update failed"
    fi
    return
  fi

  APT_MODE=private
  local d=$VPLAT_CACHE/apt/$suite
  mkdir -p "$d/lists/partial" "$d/archives/partial" "$d/sources.list.d" "$d/preferences.d" "$d/apt.conf.d"
  : >>"$d/status"
  # sources.list: every host source of the host's release family, with the suite renamed
  # (bookworm -> trixie, bookworm-updates -> trixie-updates, bookworm-security -> trixie-security).
  local tmp
  tmp=$(mktemp)
  host_sources | awk -F'\t' -v h="$host" -v t="$suite" '
    $2 == h || index($2, h "-") == 1 {
      s = t substr($2, length(h) + 1); o = "arch=arm64,amd64"
      if ($4 != "") o = o " signed-by=" $4
      print "deb [" o "] " $1 " " s " " $3
    }' >"$tmp"
  [ -s "$tmp" ] || { rm -f "$tmp"; die "could not derive a $suite sources.list from the host's apt sources"; }
  if ! cmp -s "$tmp" "$d/sources.list"; then mv "$tmp" "$d/sources.list"; update=1; else rm -f "$tmp"; fi
  APT_SOURCES=$(sed 's/^deb \[[^]]*\] /deb /' "$d/sources.list")
  cat >"$d/apt.conf" <<EOF
// Private apt configuration for fetching $suite arm64 packages; generated by guest-images/lib.sh.
Dir::State "$d";
Dir::State::Lists "$d/lists";
Dir::State::status "$d/status";
Dir::Cache "$d";
Dir::Cache::Archives "$d/archives";
Dir::Cache::pkgcache "$d/pkgcache.bin";
Dir::Cache::srcpkgcache "$d/srcpkgcache.bin";
Dir::Etc::SourceList "$d/sources.list";
Dir::Etc::SourceParts "$d/sources.list.d";
Dir::Etc::Preferences "$d/preferences";
Dir::Etc::PreferencesParts "$d/preferences.d";
APT::Architecture "arm64";
APT::Architectures { "arm64"; "amd64"; };
APT::Get::List-Cleanup "false";
EOF
  APT_GET=(apt-get -q -c "$d/apt.conf" "${sandbox[@]}")
  APT_CACHE=(apt-cache -c "$d/apt.conf")
  if [ "$update" = 1 ] || ! compgen -G "$d/lists/*_Packages*" >/dev/null; then
    log "refreshing private apt lists for $suite ($d)"
    "${APT_GET[@]}" update >&2 || die "apt-get update for $suite failed (network? mirror $MIRROR)"
  fi
}

# deb_field TEXT FIELD: value of a control field in an apt-cache show stanza.
# No pipe into a reader that stops early (awk's exit, head, grep -q) anywhere in these scripts: the writer
# then dies of SIGPIPE, now and then, and pipefail turns that into a failed build (status 141).
deb_field() { awk -v f="$2:" '$1 == f { sub(/^[^:]*:[ \t]*/, ""); print; exit }' <<<"$1"; }

# fetch_deb NAME:ARCH -> sets DEB_PATH to the cached .deb; appends "name:arch version sha256 file" to
# the FETCHED array. Uses the candidate version; re-uses a cached file whose sha256 matches the
# index (so re-runs are offline), downloads with apt-get download otherwise.
FETCHED=()
declare -A APT_INFO=()
# apt_index NAME:ARCH...: one apt-cache call (each costs seconds) for the candidate stanzas of
# several packages, kept in APT_INFO[name:arch].
apt_index() {
  local out stanza key
  out=$("${APT_CACHE[@]}" show --no-all-versions "$@" 2>&1) ||
    die "package lookup failed in the $SUITE lists: $(printf '%s' "$out" | awk '/^(E|N):/ && n++ < 2' | tr '\n' ' ')"
  while IFS= read -r -d $'\x1e' stanza; do
    key="$(deb_field "$stanza" Package):$(deb_field "$stanza" Architecture)"
    APT_INFO[$key]=$stanza
  done < <(printf '%s\n' "$out" | awk 'BEGIN { RS = ""; ORS = "\036" } { print }')
}

fetch_deb() {
  local spec=$1 info ver file sha dest tmpd got
  [ -n "${APT_INFO[$spec]:-}" ] || apt_index "$spec"
  info=${APT_INFO[$spec]:-}
  [ -n "$info" ] || die "package $spec not found in the $SUITE package lists"
  ver=$(deb_field "$info" Version)
  file=$(deb_field "$info" Filename)
  sha=$(deb_field "$info" SHA256)
  [ -n "$ver" ] && [ -n "$file" ] && [ -n "$sha" ] || die "incomplete index entry for $spec"
  mkdir -p "$DEB_CACHE"
  dest=$DEB_CACHE/${file##*/}
  if [ ! -f "$dest" ] || [ "$(sha256sum <"$dest" | cut -d' ' -f1)" != "$sha" ]; then
    log "downloading $spec=$ver"
    tmpd=$(mktemp -d "$DEB_CACHE/.dl.XXXXXX")
    (cd "$tmpd" && "${APT_GET[@]}" download "$spec=$ver" >&2) || { rm -rf "$tmpd"; die "apt-get download $spec=$ver failed"; }
    got=$(find "$tmpd" -maxdepth 1 -name '*.deb' -print -quit)
    [ -n "$got" ] || { rm -rf "$tmpd"; die "apt-get download produced no .deb for $spec"; }
    [ "$(sha256sum <"$got" | cut -d' ' -f1)" = "$sha" ] || { rm -rf "$tmpd"; die "sha256 mismatch for $spec"; }
    mv "$got" "$dest"
    rm -rf "$tmpd"
  fi
  FETCHED+=("$spec $ver $sha ${file##*/}")
  DEB_PATH=$dest
}

# kernel_package: sets KPKG to the versioned linux-image-* package the linux-image-arm64 metapackage
# points at, and KERNEL_META_VERSION.
kernel_package() {
  local info dep
  [ -n "${APT_INFO[linux-image-arm64:arm64]:-}" ] || apt_index linux-image-arm64:arm64
  info=${APT_INFO[linux-image-arm64:arm64]}
  KERNEL_META_VERSION=$(deb_field "$info" Version)
  dep=$(deb_field "$info" Depends | tr ',|' '\n\n' | sed 's/^ *//; s/ .*//; s/:.*//' | awk '/^linux-image-[0-9]/ && !found { print; found = 1 }')
  [ -n "$dep" ] || die "cannot find the versioned kernel in linux-image-arm64's Depends"
  KPKG=$dep
}

# busybox_links TREE BUSYBOX_AMD64: installs TREE/bin/busybox links for every applet, as listed by
# the amd64 build of the same busybox-static version (the arm64 binary cannot run on the host).
busybox_links() {
  local tree=$1 host_bb=$2 path n=0
  while IFS= read -r path; do
    case $path in ''|linuxrc|bin/busybox|usr/bin/busybox) continue ;; esac
    mkdir -p "$tree/$(dirname "$path")"
    ln -sfn /bin/busybox "$tree/$path"
    n=$((n + 1))
  done < <("$host_bb" --list-full)
  [ "$n" -gt 100 ] || die "busybox --list-full returned only $n applets"
  printf '%s\n' "$n"
}

# make_userland TREE WORKDIR: the busybox userland shared by the initramfs and the disk image:
# directory skeleton, /bin/busybox (arm64, static), one symlink per applet, minimal /etc.
# Sets BUSYBOX_APPLETS. Requires apt_setup.
make_userland() {
  local tree=$1 work=$2 bb_arm64 bb_amd64
  fetch_deb busybox-static:arm64; bb_arm64=$DEB_PATH
  fetch_deb busybox-static:amd64; bb_amd64=$DEB_PATH
  rm -rf "$work/bb-arm64" "$work/bb-amd64"
  dpkg-deb -x "$bb_arm64" "$work/bb-arm64"
  dpkg-deb -x "$bb_amd64" "$work/bb-amd64"
  # bookworm ships /bin/busybox, trixie (merged /usr) /usr/bin/busybox.
  local p a=
  for p in bin/busybox usr/bin/busybox; do
    [ -x "$work/bb-arm64/$p" ] && [ -x "$work/bb-amd64/$p" ] && { a=$p; break; }
  done
  [ -n "$a" ] || die "busybox-static has no bin/busybox or usr/bin/busybox"
  "$work/bb-amd64/$a" true 2>/dev/null || die "cannot run the amd64 busybox on this host"
  mkdir -p "$tree"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,root,etc,mnt,newroot,var/tmp,lib/modules}
  chmod 1777 "$tree/tmp" "$tree/var/tmp"
  chmod 0700 "$tree/root"
  install -m 0755 "$work/bb-arm64/$a" "$tree/bin/busybox"
  BUSYBOX_APPLETS=$(busybox_links "$tree" "$work/bb-amd64/$a")
  # Sanity check: applet names the amd64 build reports must be in the arm64 binary's name table.
  local missing
  missing=$("$work/bb-amd64/$a" --list | awk 'length($0) >= 6' |
            grep -vxF -f <(strings -n 6 "$work/bb-arm64/$a" 2>/dev/null || true) | head -n3 || true)
  [ -z "$missing" ] || log "warning: applets not found in the arm64 busybox: $missing"
  printf 'root::0:0:root:/root:/bin/sh\n' >"$tree/etc/passwd"
  printf 'root:x:0:\n' >"$tree/etc/group"
  printf 'vplat\n' >"$tree/etc/hostname"
  printf '/bin/sh\n' >"$tree/etc/shells"
}

# write_cpio TREE OUT: newc cpio, gzip -9, files owned by root, sorted, fixed mtimes.
write_cpio() {
  local tree=$1 out=$2
  find "$tree" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
  (cd "$tree" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
     cpio --quiet -o -H newc -R 0:0) | gzip -9 -n >"$out.tmp"
  mv "$out.tmp" "$out"
}

# build_guest_programs TREE WORKDIR SRCDIR: cross-compiles each SRCDIR/NAME.c (guest-images/programs) into
# TREE/usr/bin/NAME, static (the initramfs has no libc), with aarch64-linux-gnu-gcc against a sysroot unpacked
# from the suite's libc6-dev:arm64 and linux-libc-dev. The DRM UAPI headers (drm/drm.h, drm/panfrost_drm.h) come from
# the linux-headers-<release>-common package of the very kernel the image boots: Debian's linux-libc-dev
# leaves include/drm out, and libdrm-dev has no panfrost_drm.h. Those headers are the kernel's
# un-exported copies, so __user (which headers_install would strip) is defined empty. Requires apt_setup
# and kernel_package. Sets GUEST_PROGRAMS ("name bytes sha256" per program, ';'-separated).
build_guest_programs() {
  local tree=$1 work=$2 src=$3
  need_tools aarch64-linux-gnu-gcc tar
  local headers=${KPKG/#linux-image-/linux-headers-}
  headers=${headers%-arm64}-common
  apt_index libc6-dev:arm64 linux-libc-dev:arm64 "$headers:all"
  local sysroot=$work/sysroot uapi=$work/uapi d
  rm -rf "$sysroot" "$uapi"
  mkdir -p "$sysroot" "$uapi"
  # trixie's linux-libc-dev is Architecture: all (one multiarch package); bookworm's is per architecture.
  local libc_headers=linux-libc-dev:arm64
  [ -n "${APT_INFO[$libc_headers]:-}" ] || libc_headers=linux-libc-dev:all
  for d in libc6-dev:arm64 "$libc_headers"; do
    fetch_deb "$d"
    dpkg-deb -x "$DEB_PATH" "$sysroot"
  done
  fetch_deb "$headers:all"
  # ./usr/src/linux-headers-<release>-common/include/uapi/drm/* -> $uapi/drm/*
  dpkg-deb --fsys-tarfile "$DEB_PATH" |
    tar -x -C "$uapi" --wildcards --strip-components=6 './usr/src/linux-headers-*-common/include/uapi/drm/*' ||
    die "no include/uapi/drm in $headers"
  [ -f "$uapi/drm/panfrost_drm.h" ] || die "$headers has no include/uapi/drm/panfrost_drm.h"
  GUEST_PROGRAMS=
  local c name out
  mkdir -p "$tree/usr/bin"
  for c in "$src"/*.c; do
    [ -f "$c" ] || continue
    name=$(basename "$c" .c)
    out=$tree/usr/bin/$name
    aarch64-linux-gnu-gcc --sysroot="$sysroot" -isystem "$uapi" -D__user= -std=gnu11 -Os -static -s \
      -Wall -Wextra -Werror -o "$out" "$c" || die "cross-compiling $c failed"
    chmod 0755 "$out"
    GUEST_PROGRAMS+="${GUEST_PROGRAMS:+; }$name $(stat -c %s "$out") $(sha256sum <"$out" | cut -d' ' -f1)"
  done
}

# gpu_disk_args HELP_END DEFAULT_OUTDIR ARG...: the command line of the GPU disk builders (build-gpu.sh,
# build-gpu-trixie.sh): [--size MiB] [--update] [OUTDIR]; --help prints the script's header comment up to line
# HELP_END. Sets SIZE_MIB (empty: write_ext4_disk sizes the disk from its tree), UPDATE and OUTDIR.
gpu_disk_args() {
  local help_end=$1 default_outdir=$2
  shift 2
  SIZE_MIB='' UPDATE=0 OUTDIR=''
  while [ $# -gt 0 ]; do
    case $1 in
      --size) [ $# -ge 2 ] || die "--size needs a value"; SIZE_MIB=$2; shift 2 ;;
      --update) UPDATE=1; shift ;;
      -h|--help) sed -n "2,${help_end}s/^# \{0,1\}//p" "$0"; exit 0 ;;
      -*) die "unknown option $1 (see --help)" ;;
      *) [ -z "$OUTDIR" ] || die "only one OUTDIR may be given"; OUTDIR=$1; shift ;;
    esac
  done
  [ -z "$SIZE_MIB" ] || { [[ $SIZE_MIB =~ ^[0-9]+$ ]] && [ "$SIZE_MIB" -ge 64 ]; } ||
    die "--size must be a number of MiB >= 64"
  OUTDIR=${OUTDIR:-$default_outdir}
}

# apt_closure NAME:arm64...: the run-time closure of the packages (Depends and Pre-Depends; no Recommends) from
# apt's own resolver, as sorted name:arch specs in CLOSURE_SPECS. How the resolver names a package depends on
# apt's native architecture: in the host's tree (amd64) an arm64 package is name:arm64 and an Architecture: all
# one has no suffix; in a private tree (arm64) neither has one. So the architecture is taken from each
# package's own stanza. Requires apt_setup.
apt_closure() {
  local names p arch
  mapfile -t names < <("${APT_CACHE[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
                         --no-breaks --no-replaces --no-enhances "$@" | grep -v '^[ <]' | LC_ALL=C sort -u)
  [ ${#names[@]} -ge $# ] || die "could not resolve the package closure of $*"
  declare -A arch_of=()
  while read -r p arch; do arch_of[$p]=$arch; done < <(
    "${APT_CACHE[@]}" show --no-all-versions "${names[@]}" 2>/dev/null |
    awk '$1 == "Package:" { p = $2 } $1 == "Architecture:" { print p, $2 }')
  local specs=()
  for p in "${names[@]%:arm64}"; do
    arch=${arch_of[$p]:-}
    case $arch in
      arm64|all) specs+=("$p:$arch") ;;
      '') die "apt has no stanza for $p, which the closure of $* needs" ;;
      *) die "the closure of $* reaches $p for $arch, not arm64" ;;
    esac
  done
  mapfile -t CLOSURE_SPECS < <(printf '%s\n' "${specs[@]}" | LC_ALL=C sort -u)
}

# unpack_debs TREE NAME:ARCH...: fetches each package and unpacks its files into TREE (no maintainer scripts
# run); DEB_OF[NAME:ARCH] is the cached .deb.
declare -A DEB_OF=()
unpack_debs() {
  local tree=$1 s
  shift
  for s in "$@"; do
    fetch_deb "$s"
    DEB_OF[$s]=$DEB_PATH
    dpkg-deb -x "$DEB_PATH" "$tree"
  done
}

# write_ext4_disk TREE LABEL OUT: an ext4 image of TREE at OUT, files owned by root. Without SIZE_MIB the size is
# the tree plus a quarter for the file system's own structures and the guest's scratch files; sets SIZE_MIB.
write_ext4_disk() {
  local tree=$1 label=$2 out=$3 used
  if [ -z "$SIZE_MIB" ]; then
    used=$(du -sm "$tree" | cut -f1)
    SIZE_MIB=$((used + used / 4 + 32))
  fi
  rm -f "$out.tmp"
  mke2fs -q -F -t ext4 -L "$label" -E root_owner=0:0 -d "$tree" "$out.tmp" "${SIZE_MIB}M" || die "mke2fs failed"
  mv "$out.tmp" "$out"
}

# manifest_debs_and_disk OUT: the manifest's closing lines: every package fetched (once) and the disk OUT.
manifest_debs_and_disk() {
  printf 'deb %s\n' "${FETCHED[@]}" | awk '!seen[$0]++'
  echo "out ${1##*/} $(stat -c %s "$1") $(sha256sum <"$1" | cut -d' ' -f1)"
}
