#!/usr/bin/env bash
# meson install puts the binary, the manual page and the bash completion in
# place; the manual page renders without warnings and documents every
# option each command's --help lists; the completion offers exactly those
# options and the subcommands; --version prints the project's version.
set -u
IR=${IDLEREPLAY:?}
SRC=${IR_SOURCE_ROOT:?}
BUILD=${IR_BUILD_ROOT:?}
VERSION=${IR_VERSION:?}
WORK=$(mktemp -d /tmp/ir-install-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$("$IR" --version)" = "idlereplay $VERSION" ] || fail "--version: '$("$IR" --version)'"

meson install -C "$BUILD" --no-rebuild --destdir "$WORK/root" >"$WORK/install.log" 2>&1 ||
	{ cat "$WORK/install.log" >&2; fail "meson install"; }
man=$(find "$WORK/root" -path '*/man1/idlereplay.1')
comp=$(find "$WORK/root" -path '*/bash-completion/completions/idlereplay')
bin=$(find "$WORK/root" -path '*/bin/idlereplay')
[ -n "$man" ] && [ -n "$comp" ] && [ -n "$bin" ] || fail "installed: man '$man', completion '$comp', binary '$bin'"
grep -q "idlereplay $VERSION" "$man" || fail "man page does not carry version $VERSION"
# the fleet job (contrib/replay-one.sh) where the Kubernetes example's image calls it:
# <prefix>/share/idlereplay/replay-one.sh, the yaml's command[0] under this build's prefix
job=$(find "$WORK/root" -path '*/share/idlereplay/replay-one.sh')
[ -n "$job" ] && [ -x "$job" ] || fail "installed: no executable share/idlereplay/replay-one.sh"
prefix=$(meson introspect --buildoptions "$BUILD" | python3 -c 'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
k8s=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["spec"]["template"]["spec"]["containers"][0]["command"][0])' \
	"$SRC/contrib/kubernetes/indexed-job.yaml")
[ "$prefix" != /usr/local ] || [ "${job#"$WORK/root"}" = "$k8s" ] ||
	fail "installed job ${job#"$WORK/root"} is not the Kubernetes example's command $k8s"
printf '%s\n' "$SRC/tests/data/host-hackbench.dat" > "$WORK/list.txt"
IDLEREPLAY=$IR "$job" 0 "$WORK/list.txt" "$WORK/reports" && [ -s "$WORK/reports/host-hackbench.json" ] ||
	fail "the installed replay-one.sh did not replay"
warn=$(groff -man -ww -z "$man" 2>&1) || fail "groff: $warn"
[ -z "$warn" ] || fail "man page warnings: $warn"
man_text=$(sed 's/\\-/-/g' "$man")

# complete WORDS...: what the installed completion offers for the last word
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _idlereplay; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$comp" "$@"
}

commands=$("$IR" --help | awk '/^commands:/{f=1; next} f && !NF {exit} f {print $1}')
[ -n "$commands" ] || fail "no commands in --help"
offered=$(complete_words idlereplay '' | sort)
for c in $commands; do
	grep -qx "$c" <<<"$offered" || fail "completion does not offer command '$c'"
	grep -q "^\.SS $c\$" "$man" || fail "man page has no section for '$c'"
	# options as --help lists them: at a line's start or in [brackets]
	help_opts=$("$IR" $c --help 2>&1 | grep -oE -- '(^ *(-[a-z], )?|\[)--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+' | sort -u)
	comp_opts=$(complete_words idlereplay "$c" -- | sort -u)
	for o in $help_opts; do
		grep -q -- "$o\\b" <<<"$man_text" || fail "man page does not document '$c $o'"
	done
	[ "$(grep -vx -- --help <<<"$help_opts")" = "$(grep -x -- "--[a-z-]*" <<<"$comp_opts" | grep -vx -- --help)" ] ||
		fail "completion for '$c' offers [$(echo $comp_opts)], --help lists [$(echo $help_opts)]"
done
# values: policies and formats
complete_words idlereplay replay x.dat --policy dom | grep -qx domain-cost || fail "completion: --policy values"
complete_words idlereplay report x.json --format h | grep -qx html || fail "completion: --format values"
# --format offers exactly what each form of 'report' writes, as its --help usage lines say
# (render, compare, merge), and the binary accepts each value offered
FIX=$SRC/tests/unit/report/fixtures
for form in render compare merge; do
	case $form in
	compare) words=(report compare a.json b.json); run=(report compare "$FIX/host-a.json" "$FIX/host-b.json");;
	merge) words=(report merge a.json); run=(report merge "$FIX/host-a.json");;
	*) words=(report a.json); run=(report "$FIX/host-a.json");;
	esac
	want=$("$IR" report --help | grep -E '^ *(usage: )?idlereplay report ' |
		awk -v f="$form" '($3 == "compare") == (f == "compare") && ($3 == "merge") == (f == "merge")' |
		grep -oE -- '--format [a-z|-]+' | cut -d' ' -f2 | tr '|' '\n' | sort -u)
	got=$(complete_words idlereplay "${words[@]}" --format '' | sort -u)
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		fail "completion: report $form --format offers [$(echo $got)], its --help lists [$(echo $want)]"
	for fmt in $got; do
		"$IDLEREPLAY" "${run[@]}" --format "$fmt" -o "$WORK/fmt.out" 2>"$WORK/fmt.err" ||
			fail "report $form --format $fmt (offered by the completion): $(cat "$WORK/fmt.err")"
	done
done
# fleet: after --, the options of replay (they go to every replay)
complete_words idlereplay fleet -d out x.dat -- --top | grep -qx -- --topology || fail "completion: fleet -- replay options"
complete_words idlereplay fleet -d out x.dat -- --max | grep -qx -- --max-lost || fail "completion: fleet -- --max-lost"
complete_words idlereplay fleet -d out x.dat --h | grep -qx -- --html || fail "completion: fleet's own options"
# trace files
touch "$WORK/a.dat" "$WORK/b.json"
complete_words idlereplay replay "$WORK/" | grep -qx "$WORK/a.dat" || fail "completion: trace files"
complete_words idlereplay replay "$WORK/" | grep -qx "$WORK/b.json" && fail "completion: offers .json for a trace"
echo ok
