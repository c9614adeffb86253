/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --probe-newidle (SPEC section 6): ground truth from a kprobe/kretprobe
 * pair on the kernel's newidle balance function, kprobes/newidle_entry
 * (fields of this_rq, offsets from BTF: record/probe_btf.c) and
 * kprobes/newidle_exit (ret=$retval).
 *
 * kprobe_events is global, unlike our instance, so ownership is kept in a
 * lock file (REC_PROBE_LOCK) holding the pid of the recorder whose probes
 * exist: flock() says whether that recorder still runs.  At start a dead
 * recorder's probes are removed; probes of the same name not made by us
 * (no pid in the file), or a live recorder's, refuse the run.  The probes
 * are enabled in our instance only, and destroyed on every exit path after
 * the instance (which disables them) is gone and the trace.dat is written
 * (the writer copies their formats from tracefs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <tracefs.h>

#include "record/record_int.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"
#define SYSTEM "kprobes"

static const char *const probe_names[] = { REC_PROBE_ENTRY, REC_PROBE_EXIT };

/* Domain levels of the CPU with the fewest, from /proc/schedstat
 * ("cpuN ..." then one "domainM ..." line per level; CONFIG_SCHEDSTATS).
 * Levels above it would be fetched through a NULL sd->parent, whose
 * failed read leaves the field unwritten, so they are not fetched.
 * -1 if unknown. */
static int schedstat_levels(void)
{
	FILE *f = fopen("/proc/schedstat", "re");
	char line[4096];
	int min = -1, cur = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu", 3)) {
			if (cur >= 0 && (min < 0 || cur < min))
				min = cur;
			cur = 0;
		} else if (!strncmp(line, "domain", 6) && cur >= 0) {
			cur++;
		}
	}
	if (cur >= 0 && (min < 0 || cur < min))
		min = cur;
	fclose(f);
	return min;
}

int rec_probe_prepare(struct rec_probe *p, char *err, size_t len)
{
	char why[256] = "";
	struct utsname u;
	const char *func;
	struct btf *btf;
	int levels, ret;

	memset(p, 0, sizeof(*p));
	p->lock_fd = -1;
	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		REC_ERR(err, len, "--probe-newidle: this kernel has no kprobe events "
			"(CONFIG_KPROBE_EVENTS)");
		return -1;
	}
	func = rec_newidle_function();
	if (!strcmp(func, "unknown")) {
		REC_ERR(err, len, "--probe-newidle: no newidle balance function (sched_balance_newidle, "
			"newidle_balance, idle_balance) in /proc/kallsyms");
		return -1;
	}
	btf = btf__parse(BTF_PATH, NULL);
	if (!btf) {
		REC_ERR(err, len, "--probe-newidle: %s: cannot read the kernel's BTF "
			"(CONFIG_DEBUG_INFO_BTF): %s", BTF_PATH, strerror(errno));
		return -1;
	}
	if (uname(&u) < 0)
		snprintf(u.machine, sizeof(u.machine), "unknown");
	levels = schedstat_levels();
	p->levels_known = levels >= 0;
	ret = rec_probe_btf_spec(btf, func, u.machine, levels < 0 ? 0 : levels, &p->spec,
				 why, sizeof(why));
	btf__free(btf);
	if (ret < 0) {
		REC_ERR(err, len, "--probe-newidle: %s: %s", BTF_PATH, why);
		return -1;
	}
	p->wanted = true;
	return 0;
}

/* Our probes (or anyone's of the same names) now in kprobe_events. */
static int find_existing(struct tracefs_dynevent ***list)
{
	int n = 0;

	*list = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE,
					 SYSTEM);
	for (int i = 0; *list && (*list)[i]; i++) {
		char *name = NULL;

		tracefs_dynevent_info((*list)[i], NULL, &name, NULL, NULL, NULL);
		for (size_t k = 0; name && k < 2; k++)
			if (!strcmp(name, probe_names[k]))
				n++;
		free(name);
	}
	return n;
}

static int remove_existing(struct tracefs_dynevent **list)
{
	int ret = 0;

	for (int i = 0; list && list[i]; i++) {
		char *name = NULL;

		tracefs_dynevent_info(list[i], NULL, &name, NULL, NULL, NULL);
		for (size_t k = 0; name && k < 2; k++)
			/* force: disable it in every instance first */
			if (!strcmp(name, probe_names[k]) && tracefs_dynevent_destroy(list[i], true) < 0)
				ret = -1;
		free(name);
	}
	return ret;
}

/* Take the lock; remove a dead recorder's probes.  -1: refuse. */
static int take_ownership(struct rec_probe *p, FILE *log, char *err, size_t len)
{
	struct tracefs_dynevent **list = NULL;
	char text[32] = "";
	ssize_t n;
	long owner;
	int ret = -1;

	p->lock_fd = open(REC_PROBE_LOCK, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (p->lock_fd < 0) {
		REC_ERR(err, len, "--probe-newidle: cannot open %s: %s", REC_PROBE_LOCK, strerror(errno));
		return -1;
	}
	if (flock(p->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		REC_ERR(err, len, "--probe-newidle: another idlereplay is recording with probes (%s is locked)",
			REC_PROBE_LOCK);
		return -1;
	}
	n = pread(p->lock_fd, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	owner = strtol(text, NULL, 10);
	if (find_existing(&list) > 0) {
		if (owner <= 0) {
			REC_ERR(err, len, "--probe-newidle: %s/%s already exists in kprobe_events and was not "
				"created by idlereplay: remove it first", SYSTEM, REC_PROBE_ENTRY);
			goto out;
		}
		if (remove_existing(list) < 0) {
			REC_ERR(err, len, "--probe-newidle: cannot remove the stale kprobes of idlereplay "
				"pid %ld: %s", owner, strerror(errno));
			goto out;
		}
		fprintf(log, "idlereplay: record: removed stale newidle kprobes of idlereplay pid %ld\n",
			owner);
	}
	n = snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (ftruncate(p->lock_fd, 0) < 0 || pwrite(p->lock_fd, text, (size_t)n, 0) != n) {
		REC_ERR(err, len, "--probe-newidle: cannot write %s: %s", REC_PROBE_LOCK, strerror(errno));
		goto out;
	}
	p->owner = true;
	ret = 0;
out:
	tracefs_dynevent_list_free(list);
	return ret;
}

/* The kernel's reason for a refused probe, from tracefs error_log. */
static void kernel_reason(char *buf, size_t len)
{
	char *e = tracefs_error_last(NULL);

	snprintf(buf, len, "%s", e ? e : strerror(errno ? errno : EINVAL));
	buf[strcspn(buf, "\n")] = '\0';
	free(e);
}

int rec_probe_create(struct rec_probe *p, struct tracefs_instance *ti, FILE *log,
		     char *err, size_t len)
{
	char why[512];

	if (!p->wanted)
		return 0;
	if (take_ownership(p, log, err, len) < 0)
		return -1;
	/* exit first: rec_probe_destroy() removes them in that order */
	for (size_t k = 0; k < 2; k++) {
		struct tracefs_dynevent *ev = k == 0 ?
			tracefs_kretprobe_alloc(SYSTEM, REC_PROBE_EXIT, p->spec.func, "ret=$retval:s32", 0) :
			tracefs_kprobe_alloc(SYSTEM, REC_PROBE_ENTRY, p->spec.func, p->spec.args);

		tracefs_error_clear(NULL);
		if (!ev || tracefs_dynevent_create(ev) < 0) {
			kernel_reason(why, sizeof(why));
			tracefs_dynevent_free(ev);
			REC_ERR(err, len, "--probe-newidle: cannot create the %s on %s: %s",
				k == 0 ? "kretprobe" : "kprobe", p->spec.func, why);
			return -1;
		}
		*(k == 0 ? &p->exit : &p->entry) = ev;
	}
	for (size_t k = 0; k < 2; k++)
		if (tracefs_event_enable(ti, SYSTEM, probe_names[k]) < 0) {
			REC_ERR(err, len, "--probe-newidle: cannot enable %s/%s: %s", SYSTEM,
				probe_names[k], strerror(errno));
			return -1;
		}
	return 0;
}

int rec_probe_destroy(struct rec_probe *p, FILE *log)
{
	struct tracefs_dynevent **ev[2] = { &p->exit, &p->entry };
	int ret = 0;

	for (size_t k = 0; k < 2; k++) {
		if (!*ev[k])
			continue;
		if (tracefs_dynevent_destroy(*ev[k], true) < 0) {
			fprintf(log, "idlereplay: record: cannot remove kprobe %s/%s: %s\n", SYSTEM,
				k ? REC_PROBE_ENTRY : REC_PROBE_EXIT, strerror(errno));
			ret = -1;
		}
		tracefs_dynevent_free(*ev[k]);
		*ev[k] = NULL;
	}
	if (p->lock_fd >= 0) {
		/* Leave our pid if a probe stayed: the next run removes it.
		 * Before we wrote it, the file is not ours to clear. */
		if (p->owner && ret == 0 && ftruncate(p->lock_fd, 0) < 0)
			ret = -1;
		close(p->lock_fd);
		p->lock_fd = -1;
		p->owner = false;
	}
	return ret;
}

char *rec_probe_meta(const struct rec_probe *p)
{
	char *text = NULL;

	if (!p->wanted)
		return strdup("");
	if (asprintf(&text, "newidle_probe %s this_rq=%s sd_levels=%d%s\n"
		     "newidle_probe_fields %s\n"
		     "newidle_probe_missing %s\n",
		     p->spec.func, p->spec.rq_reg, p->spec.sd_levels,
		     p->levels_known ? "" : " (unknown: no /proc/schedstat)",
		     p->spec.present, *p->spec.missing ? p->spec.missing : "none") < 0)
		return NULL;
	return text;
}
