// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_switch_sma: SMPs to the virtual switch's SMA (pib_switch_sma.c),
 * one after another on one switch with two devices and three peers, so
 * that Sets change what later SMPs see; Trap 128 and its repress run in
 * between. Input: records of the port the SMP came in on (modulo the
 * switch's ports) and a 256-byte SMP. The switch's state stays within
 * the IBA's ranges and its tables' bounds.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct pib_switch *sw;
	unsigned int n;

	fuzz_world_init(2, true);
	sw = fuzz_world.sw;
	for (n = 0; in.n && n < 64; n++) {
		unsigned int in_port = fuzz_u8(&in) % (PIB_SW_NUM_PORTS + 1);
		struct ib_smp *smp = malloc(sizeof(*smp));
		int status;

		fuzz_bytes(&in, smp, sizeof(*smp));
		status = pib_switch_sma_request(sw, in_port, smp);
		FUZZ_CHECK(status >= -1 && status <= U16_MAX);
		kshim_run_work();
		fuzz_check_switch(sw);
		free(smp);
	}
	fuzz_world_fini();
	return 0;
}
