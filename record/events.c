/* SPDX-License-Identifier: GPL-2.0-only */
/* Which sched events we record (SPEC section 5) and enabling them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "record/record_int.h"

static const struct {
	const char *name;
	bool required;
} sched_events[] = {
	{ "sched_switch", true },
	{ "sched_migrate_task", true },
	{ "sched_wakeup", true },
	{ "sched_wakeup_new", true },
	{ "sched_waking", true },
	{ "sched_process_fork", true },
	{ "sched_process_exit", true },
	{ "sched_process_exec", true },
	/* CONFIG_NUMA_BALANCING only: tell stopper migrations apart, and name
	 * the tasks NUMA balancing placed (task_numa_migrate(): the node it
	 * prefers, migrate_degrades_locality() at SD_NUMA levels); stick_numa
	 * is its failed search, the task left where it is. */
	{ "sched_move_numa", false },
	{ "sched_swap_numa", false },
	{ "sched_stick_numa", false },
};
#define NR_EVENTS (sizeof(sched_events) / sizeof(sched_events[0]))

void rec_events_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

char **rec_events_select(char *err, size_t len)
{
	char **names = calloc(NR_EVENTS + 1, sizeof(*names));
	size_t n = 0;

	if (!names) {
		REC_ERR(err, len, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < NR_EVENTS; i++) {
		if (!tracefs_event_file_exists(NULL, "sched", sched_events[i].name, "format")) {
			if (!sched_events[i].required)
				continue;
			REC_ERR(err, len, "kernel has no sched/%s trace event", sched_events[i].name);
			rec_events_free(names);
			return NULL;
		}
		if (asprintf(&names[n], "sched/%s", sched_events[i].name) < 0) {
			names[n] = NULL;
			REC_ERR(err, len, "out of memory");
			rec_events_free(names);
			return NULL;
		}
		n++;
	}
	return names;
}

int rec_events_enable(struct tracefs_instance *ti, char *const *names, char *err, size_t len)
{
	for (size_t i = 0; names[i]; i++) {
		const char *event = strchr(names[i], '/') + 1;

		if (tracefs_event_enable(ti, "sched", event) < 0) {
			REC_ERR(err, len, "cannot enable sched/%s: %s", event, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int rec_events_add(char ***names, const char *name)
{
	size_t n = 0;
	char **grown;

	while ((*names)[n])
		n++;
	grown = realloc(*names, (n + 2) * sizeof(*grown));
	if (!grown)
		return -1;
	*names = grown;
	grown[n] = strdup(name);
	grown[n + 1] = NULL;
	return grown[n] ? 0 : -1;
}
