/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metadata's HZ (record/meta.c config_hz()): CONFIG_HZ from
 * /boot/config-<release>, else /proc/config.gz (CONFIG_IKCONFIG_PROC), and
 * when neither gives it "hz unknown" with a refused_hz line naming each
 * source and why ("path: strerror; path: strerror").  Which files exist is
 * the host's affair, so gzopen() is wrapped at link time (-Wl,--wrap): each
 * of the two paths is refused (ENOENT) or redirected to a file written
 * here; the code under test is unchanged.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include "record/record_int.h"

/* NULL: refused (ENOENT); else the file read in its place */
static const char *boot_file, *proc_file;

gzFile __real_gzopen64(const char *path, const char *mode);
gzFile __wrap_gzopen64(const char *path, const char *mode);
gzFile __real_gzopen(const char *path, const char *mode);
gzFile __wrap_gzopen(const char *path, const char *mode);

static gzFile redirect(const char *path, const char *mode, gzFile (*real)(const char *, const char *))
{
	const char *to = path;

	if (!strncmp(path, "/boot/config-", 13))
		to = boot_file;
	else if (!strcmp(path, "/proc/config.gz"))
		to = proc_file;
	if (!to) {
		errno = ENOENT;
		return NULL;
	}
	return real(to, mode);
}

gzFile __wrap_gzopen64(const char *path, const char *mode)
{
	return redirect(path, mode, __real_gzopen64);
}

gzFile __wrap_gzopen(const char *path, const char *mode)
{
	return redirect(path, mode, __real_gzopen);
}

static char dir[] = "/tmp/ir-meta-hz-XXXXXX", boot[64], proc[64], nohz[64];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* the value of the metadata line `key `, or NULL */
static char *line_of(const char *meta, const char *key, char *buf, size_t len)
{
	size_t k = strlen(key);

	for (const char *p = meta; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == ' ') {
			size_t n = strcspn(p + k + 1, "\n");

			snprintf(buf, len, "%.*s", (int)n, p + k + 1);
			return buf;
		}
	return NULL;
}

static void expect(const char *want_hz, const char *want_refusal)
{
	char *meta = rec_meta_build("local", NULL, NULL, stderr);
	char v[1024];

	assert_non_null(meta);
	assert_non_null(line_of(meta, "hz", v, sizeof(v)));
	assert_string_equal(v, want_hz);
	if (want_refusal) {
		assert_non_null(line_of(meta, "refused_hz", v, sizeof(v)));
		assert_string_equal(v, want_refusal);
	} else if (line_of(meta, "refused_hz", v, sizeof(v))) {
		fail_msg("refused_hz '%s' beside hz %s", v, want_hz);
	}
	free(meta);
}

static void test_hz_sources(void **state)
{
	struct utsname u;
	char want[1024];

	(void)state;
	assert_int_equal(uname(&u), 0);
	assert_non_null(mkdtemp(dir));
	snprintf(boot, sizeof(boot), "%s/boot", dir);
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(nohz, sizeof(nohz), "%s/nohz", dir);
	put(boot, "# CONFIG_HZ_1000 is set\nCONFIG_HZ=1000\n");
	put(proc, "CONFIG_HZ_250=y\nCONFIG_HZ=250\n");
	put(nohz, "CONFIG_NO_HZ=y\n");

	/* /boot/config-<release> first */
	boot_file = boot;
	proc_file = proc;
	expect("1000", NULL);
	/* without it, /proc/config.gz (gzopen() reads a plain file too) */
	boot_file = NULL;
	expect("250", NULL);
	/* neither: unknown, and why for each source in turn */
	proc_file = NULL;
	snprintf(want, sizeof(want), "/boot/config-%s: %s; /proc/config.gz: %s", u.release,
		 strerror(ENOENT), strerror(ENOENT));
	expect("unknown", want);
	/* a config without the line: refused naming the file read */
	boot_file = nohz;
	proc_file = proc;
	snprintf(want, sizeof(want), "/boot/config-%s: %s", u.release, strerror(ENOENT));
	expect("unknown", want);
	boot_file = NULL;
	proc_file = nohz;
	snprintf(want, sizeof(want), "/boot/config-%s: %s; /proc/config.gz: %s", u.release,
		 strerror(ENOENT), strerror(ENOENT));
	expect("unknown", want);

	assert_int_equal(unlink(boot), 0);
	assert_int_equal(unlink(proc), 0);
	assert_int_equal(unlink(nohz), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hz_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
