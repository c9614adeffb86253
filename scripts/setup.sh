#!/usr/bin/env bash
# Install what idlereplay needs on Debian (as root) and build it into build/.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential meson ninja-build pkg-config
      libtracecmd-dev libtraceevent-dev libtracefs-dev libjson-c-dev libzstd-dev zlib1g-dev
      libcmocka-dev trace-cmd rt-tests valgrind python3 clang
      libbpf-dev bpftool       # record --probe-newidle reads the kernel's BTF; bpftool: its test's reference
      qemu-system-x86 linux-image-amd64 busybox-static cpio   # tests/vm: a kernel with kprobes, under qemu
      python3-jsonschema python3-pil chromium    # report tests: schema, screenshot check, HTML render
      groff-base                                 # man page check
      python3-pandas                             # python/ module: its optional pandas path
      sqlite3 parallel python3-yaml)             # fleet paths: SQL over jsonl rows, GNU parallel, k8s example
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
