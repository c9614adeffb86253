/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * idlereplay fleet: replay many traces on this machine (fleet/ runs one
 * 'idlereplay replay' per trace, N at a time), then merge their reports
 * (report/merge.c).  Wiring only.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fleet/fleet.h"
#include "replay/replay.h"
#include "report/report.h"

static const char usage[] =
	"usage: idlereplay fleet -d DIR [--jobs N] [--html] TRACE... [-- REPLAY OPTIONS]\n"
	"Replays every TRACE (one 'idlereplay replay' each, N at a time), then merges the reports.\n"
	"  -d, --out-dir DIR   where everything goes (created): NAME.json per trace (NAME: the\n"
	"                      trace's file name without .dat, -2, -3... when names repeat),\n"
	"                      NAME.log (its warnings and errors), fleet.txt, fleet.csv, fleet.html\n"
	"  -j, --jobs N        at most N replays at a time (default: the CPUs online)\n"
	"      --html          also write NAME.html per trace\n"
	"Options after -- go to every replay (e.g. -- --topology sockets=2,cores=4).\n"
	"A trace that fails is listed with its error and the others go on; exit status 2\n"
	"if any failed, 0 if all were replayed.\n";

struct fleet {
	struct ir_job *job;
	char **name;
	int n, done;
	bool progress;
};

static void done(void *arg, int i)
{
	struct fleet *f = arg;

	f->done++;
	if (f->progress)
		fprintf(stderr, "\ridlereplay fleet: %d of %d traces replayed%s", f->done, f->n,
			f->done == f->n ? "\n" : "");
	(void)i;
}

/* The trace's file name without directories and .dat; unique among the first i. */
static char *job_name(char **names, int i, const char *trace)
{
	const char *b = strrchr(trace, '/');
	size_t len;
	char *s;

	b = b ? b + 1 : trace;
	len = strlen(b);
	if (len > 4 && !strcmp(b + len - 4, ".dat"))
		len -= 4;
	if (!len || (len == 1 && *b == '.') || (len == 2 && !strncmp(b, "..", 2)))
		b = "trace", len = 5;
	for (int k = 1;; k++) {
		bool dup = false;

		if (k == 1 ? asprintf(&s, "%.*s", (int)len, b) < 0 : asprintf(&s, "%.*s-%d", (int)len, b, k) < 0)
			return NULL;
		for (int j = 0; j < i && !dup; j++)
			dup = !strcmp(names[j], s) || !strcmp(s, "fleet");
		if (!dup && strcmp(s, "fleet"))
			return s;
		free(s);
	}
}

static int write_merge(struct ir_merge *m, const char *dir, const char *file, enum ir_merge_format fmt)
{
	struct ir_out out = { 0 };
	char *path;
	int ret = IR_OK;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return cli_fail(IR_ERR_INPUT, "out of memory");
	if (ir_out_open(&out, path) || ir_out_close(&out, ir_merge_write(m, fmt, out.f) == 0))
		ret = cli_fail(IR_ERR_INPUT, "%s: cannot write: %s", path, strerror(errno));
	free(path);
	return ret;
}

int cmd_fleet(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out-dir", required_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "html", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	bool html = false;
	int o, ntraces, nextra = 0, ret = IR_OK, failed = 0;
	char **traces, **extra = NULL, self[4096];
	struct fleet f = { 0 };
	struct ir_merge *m = NULL;
	ssize_t sl;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			extra = argv + i + 1;
			nextra = argc - i - 1;
			argc = i;
			break;
		}
	optind = 1;
	while ((o = getopt_long(argc, argv, "d:j:h", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			dir = optarg;
			break;
		case 'j': {
			char *end;

			jobs = strtol(optarg, &end, 10);
			if (*end || jobs < 1 || jobs > 1024)
				return cli_fail(IR_ERR_USAGE, "fleet: bad --jobs '%s' (1 to 1024)", optarg);
			break;
		}
		case 'H':
			html = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return IR_OK;
		default:
			fputs(usage, stderr);
			return IR_ERR_USAGE;
		}
	}
	traces = argv + optind;
	ntraces = argc - optind;
	if (!dir || ntraces < 1) {
		fputs(usage, stderr);
		return cli_fail(IR_ERR_USAGE, "fleet: need --out-dir and at least one TRACE");
	}
	if (jobs < 1)
		jobs = 1;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return cli_fail(IR_ERR_INPUT, "%s: cannot create: %s", dir, strerror(errno));
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0)
		return cli_fail(IR_ERR_INPUT, "cannot find my own binary: %s", strerror(errno));
	self[sl] = 0;

	f.n = ntraces;
	f.progress = isatty(2);
	f.job = calloc((size_t)ntraces, sizeof(*f.job));
	f.name = calloc((size_t)ntraces, sizeof(*f.name));
	if (!f.job || !f.name)
		goto oom;
	for (int i = 0; i < ntraces; i++) {
		char **av = calloc((size_t)(10 + nextra), sizeof(*av));
		int k = 0;

		if (!av || !(f.name[i] = job_name(f.name, i, traces[i])))
			goto oom_av;
		f.job[i].argv = av;
		av[k++] = self;
		av[k++] = "replay";
		av[k++] = traces[i];
		av[k++] = "--quiet";
		if (asprintf(&av[k++], "--json=%s/%s.json", dir, f.name[i]) < 0)
			goto oom_av;
		if (html && asprintf(&av[k++], "--html=%s/%s.html", dir, f.name[i]) < 0)
			goto oom_av;
		if (nextra)
			memcpy(av + k, extra, (size_t)nextra * sizeof(*av));
		if (asprintf((char **)&f.job[i].log, "%s/%s.log", dir, f.name[i]) < 0)
			goto oom_av;
		continue;
oom_av:
		free(av);
		f.job[i].argv = NULL;
		goto oom;
	}
	if (ir_jobs_run(f.job, ntraces, (int)jobs, done, &f))
		return cli_fail(IR_ERR_INPUT, "fleet: cannot start replays: %s", strerror(errno));

	/* merge what came out, one report at a time */
	if (!(m = ir_merge_new()))
		goto oom;
	for (int i = 0; i < ntraces; i++) {
		char err[1024], *path;
		json_object *doc = NULL;

		path = NULL;
		if (f.job[i].status == 0) {
			if (asprintf(&path, "%s/%s.json", dir, f.name[i]) < 0)
				goto oom;
			doc = ir_report_load(path, err, sizeof(err));
		} else {
			ir_job_last_line(f.job[i].log, err, sizeof(err));
			if (!err[0])
				snprintf(err, sizeof(err), "replay exited with status %d", f.job[i].status);
		}
		/* hosts named as 'report merge DIR/NAME.json' would name them */
		if (doc && ir_merge_add(m, doc, path, NULL, err, sizeof(err)) == 0) {
			free(path);
			json_object_put(doc);
			if (!access(f.job[i].log, F_OK)) {
				struct stat st;

				if (!stat(f.job[i].log, &st) && !st.st_size)
					unlink(f.job[i].log);
			}
			continue;
		}
		free(path);
		json_object_put(doc);
		failed++;
		printf("FAILED %s: %s\n", traces[i], err);
		if (ir_merge_failed(m, traces[i], err))
			goto oom;
	}
	if ((ret = write_merge(m, dir, "fleet.txt", IR_MERGE_TEXT)) ||
	    (ret = write_merge(m, dir, "fleet.csv", IR_MERGE_CSV)) ||
	    (ret = write_merge(m, dir, "fleet.html", IR_MERGE_HTML)))
		goto out;
	printf("%d of %d traces replayed; reports in %s/, fleet report %s/fleet.txt, .csv, .html\n",
	       ntraces - failed, ntraces, dir, dir);
	ret = failed ? IR_ERR_INPUT : IR_OK;
	goto out;
oom:
	ret = cli_fail(IR_ERR_INPUT, "out of memory");
out:
	ir_merge_free(m);
	for (int i = 0; f.job && i < ntraces; i++) {
		if (f.job[i].argv) {
			free(f.job[i].argv[4]);
			if (html)
				free(f.job[i].argv[5]);
		}
		free(f.job[i].argv);
		free((char *)f.job[i].log);
	}
	for (int i = 0; f.name && i < ntraces; i++)
		free(f.name[i]);
	free(f.job);
	free(f.name);
	return ret;
}
