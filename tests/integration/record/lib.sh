# Shared by the record integration tests: run as root on a real kernel.
# Each test sources this, then calls helpers; any failed check exits 1.
set -u
IR=${IDLEREPLAY:?}
IR_META=${IR_META_TOOL:?}
TRACEFS=/sys/kernel/tracing
WORK=$(mktemp -d /tmp/ir-record-test.XXXXXX)
# Tests mount small file systems under $WORK: unmount them on any exit.
cleanup() {
	grep -o " $WORK/[^ ]*" /proc/mounts | while read -r m; do umount "$m"; done
	rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
# A tool scripts/setup.sh installs: its absence is the project's to fix, so
# in CI (CI=true) it fails; elsewhere the test skips and says why.
missing_tool() {
	[ "${CI:-}" = true ] && fail "$* (scripts/setup.sh installs it)"
	skip "$* (scripts/setup.sh installs it)"
}

[ "$(id -u)" = 0 ] || skip "needs root"
command -v trace-cmd >/dev/null || missing_tool "needs trace-cmd"
if ! grep -q " $TRACEFS tracefs " /proc/mounts; then
	mount -t tracefs nodev "$TRACEFS" || fail "cannot mount tracefs"
fi
SET_EVENT_BEFORE=$(cat "$TRACEFS/set_event")
TRACING_ON_BEFORE=$(cat "$TRACEFS/tracing_on")
DEBUGFS_BEFORE=$(grep -c " /sys/kernel/debug debugfs " /proc/mounts)

# Our instances, excluding those of recorders still running (other tests
# or users may record at the same time): a live recorder holds a flock on
# its instance's directory (record/instance.c); one whose pid still runs
# may be an older idlereplay that took no lock.
our_instances() {
	for d in "$TRACEFS"/instances/idlereplay-*; do
		[ -d "$d" ] || continue
		flock -n "$d" true && ! kill -0 "${d##*-}" 2>/dev/null && echo "${d##*/}"
	done
}

# After every test: no instance of ours, top level unchanged.
check_clean() {
	left=$(our_instances)
	[ -z "$left" ] || fail "tracefs instance left: $left"
	[ "$(cat "$TRACEFS/set_event")" = "$SET_EVENT_BEFORE" ] || fail "top-level set_event changed"
	[ "$(cat "$TRACEFS/tracing_on")" = "$TRACING_ON_BEFORE" ] || fail "top-level tracing_on changed"
	[ "$(grep -c " /sys/kernel/debug debugfs " /proc/mounts)" = "$DEBUGFS_BEFORE" ] ||
		fail "debugfs mount state changed"
	ls -A "$(dirname "$1")" 2>/dev/null | grep -q '\.idlereplay-.*\.tmp$' && fail "temp file left in $(dirname "$1")"
	return 0
}

# A trace trace-cmd reads, with sched events and our metadata.
check_trace() {
	f=$1
	[ -s "$f" ] || fail "no output $f"
	perm=$(stat -c %a "$f")
	[ "$perm" = 644 ] || [ "$perm" = 600 ] || [ "$perm" = 640 ] || fail "mode $perm of $f"
	trace-cmd report "$f" >"$WORK/report" 2>"$WORK/report.err" || fail "trace-cmd report failed on $f"
	[ -s "$WORK/report.err" ] && fail "trace-cmd report warns: $(head -3 "$WORK/report.err")"
	grep -q "sched_switch:" "$WORK/report" || fail "no sched_switch in $f"
	trace-cmd dump --options "$f" >"$WORK/dump" 2>&1 || fail "trace-cmd dump failed on $f"
	for o in UNAME TRACECLOCK CPUSTAT VERSION CPUCOUNT; do
		grep -q "Option $o" "$WORK/dump" || fail "no $o option in $f"
	done
	grep -q "$(uname -r)" "$WORK/dump" || fail "UNAME lacks the kernel release"
	[ "$(grep -c "Option CPUSTAT" "$WORK/dump")" = "$(getconf _NPROCESSORS_CONF)" ] ||
		fail "not one CPUSTAT per CPU"
	grep -q "^ 18770 " "$WORK/dump" || fail "no meta option (id 0x4952) in $f"
	"$IR_META" "$f" >"$WORK/meta" || fail "meta option unreadable"
	head -1 "$WORK/meta" | grep -qx "idlereplay-meta 1" || fail "bad meta header"
	grep -qx "kernel_release $(uname -r)" "$WORK/meta" || fail "meta kernel_release"
	check_meta_values "$WORK/meta"
	# one "key value" line each, the topology text between its markers:
	# no empty line anywhere (a doubled newline would end the section early
	# for a line-based reader)
	! grep -qx '' "$WORK/meta" || fail "empty line in meta: $(grep -n -x '' "$WORK/meta" | head -3)"
	grep -qE "^trace_clock [a-z]" "$WORK/meta" || fail "meta trace_clock"
	sed -n '/^topology-begin$/,/^topology-end$/p' "$WORK/meta" >"$WORK/topo"
	grep -qx "idlereplay-topology 1" "$WORK/topo" || fail "no topology in meta"
	grep -qx "online $(cat /sys/devices/system/cpu/online)" "$WORK/topo" || fail "topology online"
	grep -q "^cpu 0 core_cpus=" "$WORK/topo" || fail "topology cpu 0"
}

# The metadata's values, each against this host's own source, read here:
# the newidle function from /proc/kallsyms (text symbols, static 't' too;
# newest name first, SPEC 6), HZ from the kernel config, the migration cost
# from sysctl (< 5.13) or debugfs.  Where this host refuses a read, the
# metadata must say so (a refused_<key> line), not just "unknown".
check_meta_values() {
	local m=$1 want=unknown name v
	if [ -r /proc/kallsyms ]; then
		for name in sched_balance_newidle newidle_balance idle_balance; do
			if grep -qE "^[0-9a-f]+ [tT] $name\$" /proc/kallsyms; then want=$name; break; fi
		done
		grep -qx "newidle_function $want" "$m" ||
			fail "meta: $(grep '^newidle_function' "$m"), /proc/kallsyms says $want"
	else
		grep -q "^refused_newidle_function " "$m" || fail "meta: kallsyms unreadable, not said"
	fi
	v=""
	if [ -r "/boot/config-$(uname -r)" ]; then
		v=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)")
	elif [ -r /proc/config.gz ]; then
		v=$(zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')
	fi
	if [ -n "$v" ]; then
		grep -qx "hz $v" "$m" || fail "meta: $(grep '^hz' "$m"), kernel config says CONFIG_HZ=$v"
	else
		grep -qx "hz unknown" "$m" && grep -q "^refused_hz ." "$m" || fail "meta: hz unreadable, not said"
	fi
	v=$(cat /proc/sys/kernel/sched_migration_cost_ns 2>/dev/null ||
	    cat /sys/kernel/debug/sched/migration_cost_ns 2>/dev/null)
	if [ -n "$v" ]; then
		grep -qx "sched_migration_cost_ns $v" "$m" ||
			fail "meta: $(grep '^sched_migration_cost_ns' "$m"), host says $v"
	else
		grep -qx "sched_migration_cost_ns unknown" "$m" && grep -q "^refused_sched_migration_cost ." "$m" ||
			fail "meta: migration cost unreadable here, metadata does not say so: $(grep migration_cost "$m")"
	fi
	echo "meta: $(grep -E '^(newidle_function|hz|sched_migration_cost_ns|refused_)' "$m" | tr '\n' '|')"
}

# Count of events named $2 in the last report.
count_event() { grep -c " $1:" "$WORK/report"; }
