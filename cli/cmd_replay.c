/* SPDX-License-Identifier: GPL-2.0-only */
#include "cli/cli.h"
#include "replay/replay.h"

int cmd_replay(int argc, char **argv)
{
	(void)argc; (void)argv;
	return cli_fail(IR_ERR_USAGE, "replay: not built yet");
}
