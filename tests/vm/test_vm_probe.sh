#!/bin/bash
# `idlereplay record --probe-newidle` where kprobes exist: boot Debian's
# kernel (package linux-image-amd64, a 6.1 kernel on bookworm, with
# kprobes and BTF) under qemu (TCG: no KVM needed) with 4 CPUs (2 cores x
# 2 threads: SMT and MC domains), run our own binary in a busybox
# initramfs (tests/vm/init), bring /out back through a virtio disk, and
# check it (check_probe_trace.py).  About a minute on a 2-CPU host.
#
# Env: IDLEREPLAY, IR_META_TOOL (set by meson); IRVM_KV to pick a kernel
# (default: the newest /lib/modules/*-amd64 with /boot/vmlinuz-*);
# IRVM_KEEP=DIR keeps the guest's output there.
# Skips only outside CI when the packages scripts/setup.sh installs are
# missing; in CI (CI=true) that is a failure.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
IR=${IDLEREPLAY:?}
IR_META=${IR_META_TOOL:?}

missing() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $* (scripts/setup.sh installs it)"
		exit 1
	fi
	echo "SKIP: $* (run scripts/setup.sh)"
	exit 77
}
for c in qemu-system-x86_64 busybox cpio hackbench trace-cmd python3; do
	command -v "$c" >/dev/null || missing "no $c"
done
KV=${IRVM_KV:-}
if [ -z "$KV" ]; then
	for d in $(ls -d /lib/modules/*-amd64 2>/dev/null | sort -V); do
		[ -r "/boot/vmlinuz-${d##*/}" ] && KV=${d##*/}
	done
fi
[ -n "$KV" ] && [ -r "/boot/vmlinuz-$KV" ] || missing "no Debian kernel image (linux-image-amd64)"

WORK=$(mktemp -d /tmp/ir-vm-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$HERE/build_initramfs.sh" "$IR" "$KV" "$WORK/initrd.gz" || { echo "FAIL: initramfs"; exit 1; }
# The guest kernel's own bugs are the environment, not ours: Debian's 6.1
# under TCG has been seen, rarely, to oops inside ring_buffer_resize()
# (NULL call from a tracefs buffer_size_kb write).  oops=panic turns an
# oops into a reboot, which -no-reboot turns into qemu's exit, so it costs
# seconds instead of the timeout; such a boot is printed and retried, at
# most IRVM_BOOTS times in all.  The same kernel under TCG has also hung
# at boot with three CPUs stuck (RCU stall reports from the first
# softirqs on, no progress for 20 minutes): panic_on_rcu_stall (sysctl,
# v4.10; settable from the command line since v5.8) turns that hang into
# a panic after rcu_cpu_stall_timeout seconds of guest time, retried the
# same way.  A boot is bounded by IRVM_BOOT_TIMEOUT (default 420 s, so
# three boots fit meson's 1500 s).  Anything else that leaves no trace
# fails.
boots=${IRVM_BOOTS:-3}
n=0
while :; do
	n=$((n + 1))
	rm -rf "$WORK/out" "$WORK/out.img" "$WORK/console.log"
	truncate -s 256M "$WORK/out.img"
	start=$(date +%s)
	# -no-reboot + poweroff -f in the guest ends qemu; the timeout is a guard.
	timeout -k 10 "${IRVM_BOOT_TIMEOUT:-420}" qemu-system-x86_64 -accel tcg -machine pc -cpu max,vendor=GenuineIntel \
		-m 1G -smp 4,sockets=1,cores=2,threads=2 \
		-kernel "/boot/vmlinuz-$KV" -initrd "$WORK/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1 oops=panic mitigations=off rcupdate.rcu_cpu_stall_timeout=60 sysctl.kernel.panic_on_rcu_stall=1" \
		-drive "file=$WORK/out.img,format=raw,if=virtio" \
		-display none -serial "file:$WORK/console.log" -monitor none -no-reboot </dev/null &
	qpid=$!
	# Host-side watchdog for a hang before the sysctl applies: the first
	# RCU stall report (60 s of guest time without a quiescent state) ends
	# the boot, which is then retried like a panic.
	while kill -0 "$qpid" 2>/dev/null; do
		if grep -q 'detected stalls on CPUs' "$WORK/console.log" 2>/dev/null; then
			echo "Kernel panic (host watchdog): RCU stall reported by the guest" >> "$WORK/console.log"
			kill "$qpid" 2>/dev/null
			break
		fi
		sleep 2
	done
	wait "$qpid"
	rc=$?
	echo "qemu exit $rc after $(( $(date +%s) - start )) s (kernel $KV, boot $n of at most $boots)"
	mkdir "$WORK/out"
	if [ $rc = 0 ] && tar -xf "$WORK/out.img" -C "$WORK/out" 2>/dev/null && [ -s "$WORK/out/trace.dat" ]; then
		break
	fi
	if grep -qE 'Oops:|BUG: |Kernel panic' "$WORK/console.log" && [ $n -lt "$boots" ]; then
		echo "guest kernel oops, panic or RCU stall on boot $n (the guest kernel's, retried):"
		grep -m1 -E 'Oops:|BUG: |Kernel panic|detected stalls' "$WORK/console.log"
		grep -A14 -m1 'Call Trace:' "$WORK/console.log"
		continue
	fi
	echo "FAIL: no trace from the guest; its console:"
	grep -m1 -B2 -A30 -E 'Oops:|BUG: |Kernel panic' "$WORK/console.log" || tail -40 "$WORK/console.log"
	exit 1
done
cat "$WORK/out/guest_log.txt"
python3 "$HERE/check_probe_trace.py" "$WORK/out" "$IR" "$IR_META"
rc=$?
[ -n "${IRVM_KEEP:-}" ] && cp -r "$WORK/out/." "$IRVM_KEEP/"
exit $rc
