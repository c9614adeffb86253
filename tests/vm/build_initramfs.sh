#!/bin/bash
# Build the test guest's initramfs: busybox, our idlereplay binary and
# hackbench with the shared libraries they load, the virtio-blk modules of
# kernel KV, and tests/vm/init.  Usage: build_initramfs.sh IDLEREPLAY KV OUT.cpio.gz
set -euo pipefail
IR=$1 KV=$2 OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,out,root,etc,run}
cp /bin/busybox "$ROOT/bin/busybox"
for a in $("$ROOT/bin/busybox" --list); do
	[ -e "$ROOT/bin/$a" ] || ln -s busybox "$ROOT/bin/$a"
done
for b in "$IR" "$(command -v hackbench)"; do
	cp "$b" "$ROOT/usr/bin/"
	# ldd: "libx.so => /path (addr)" and the loader as "/lib64/ld-... (addr)"
	for l in $(ldd "$b" | awk '/=>/ && $3 ~ /^\// {print $3} !/=>/ && $1 ~ /^\// {print $1}'); do
		mkdir -p "$ROOT$(dirname "$l")"
		cp -L "$l" "$ROOT$l"
	done
done
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
	f=$(find "/lib/modules/$KV" -name "$m.ko*" | head -1)
	[ -n "$f" ] || continue		# built in, or absent from this kernel
	mkdir -p "$ROOT$(dirname "$f")"
	cp "$f" "$ROOT$f"
done
# the recorder reads CONFIG_HZ from /boot/config-<release>
mkdir -p "$ROOT/boot"
[ -r "/boot/config-$KV" ] && cp "/boot/config-$KV" "$ROOT/boot/"
echo "root:x:0:0:root:/root:/bin/sh" >"$ROOT/etc/passwd"
echo "root:x:0:" >"$ROOT/etc/group"
install -m 755 "$HERE/init" "$ROOT/init"
# library leaks LeakSanitizer must not report (for a sanitizer build)
cp "$HERE/../lsan.supp" "$ROOT/etc/lsan.supp"
(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$OUT"
