// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_dr: directed-route SMPs through a chain of switches
 * (pib_dr_switch_route, IBA 14.2.2). Input: the switches' highest port
 * number, then the SMP (256 bytes), then for each hop the port the SMP
 * enters the next switch on. Each step changes only the hop pointer and
 * the return path, forwards only out of a port the switch has, and a walk
 * ends (at the destination's SMA, or discarded) within the hops a path
 * can hold, out and back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "pib_hdr.h"

/* Outside HopPtr and ReturnPath, nothing of the SMP changes. */
static void check_step(const __u8 *before, const __u8 *after,
		       enum pib_dr_verdict v)
{
	unsigned int i, hp = before[PIB_SMP_HOP_PTR];
	unsigned int nhp = after[PIB_SMP_HOP_PTR];

	FUZZ_CHECK(v <= PIB_DR_FORWARD);
	for (i = 0; i < PIB_SMP_LEN; i++)
		if (i != PIB_SMP_HOP_PTR &&
		    (i <= PIB_SMP_RETURN_PATH || i > PIB_SMP_RETURN_PATH +
						   PIB_SMP_MAX_HOPS))
			FUZZ_CHECK(before[i] == after[i]);
	if (v == PIB_DR_DISCARD)
		return;
	if (v == PIB_DR_SMA)
		FUZZ_CHECK(nhp == before[PIB_SMP_HOP_CNT] + 1u);
	else
		FUZZ_CHECK(nhp == hp + 1 || nhp == hp - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int num_ports, in_port, out = 0, steps = 0, turns = 0;
	__u8 *smp = malloc(PIB_SMP_LEN), before[PIB_SMP_LEN];
	enum pib_dr_verdict v;

	if (size < 2) {
		free(smp);
		return 0;
	}
	num_ports = data[0];
	in_port = data[1];
	data += 2;
	size -= 2;
	memset(smp, 0, PIB_SMP_LEN);
	memcpy(smp, data, size < PIB_SMP_LEN ? size : PIB_SMP_LEN);
	data += size < PIB_SMP_LEN ? size : PIB_SMP_LEN;
	size -= size < PIB_SMP_LEN ? size : PIB_SMP_LEN;
	for (;;) {
		memcpy(before, smp, PIB_SMP_LEN);
		v = pib_dr_switch_route(smp, in_port, num_ports, &out);
		check_step(before, smp, v);
		FUZZ_CHECK(++steps <= 2 * PIB_SMP_MAX_HOPS + 4);
		if (v == PIB_DR_DISCARD)
			break;
		if (v == PIB_DR_FORWARD) {
			FUZZ_CHECK(out >= 1 && out <= num_ports);
			/* The next switch, on the port the input says. */
			in_port = size ? *data++ : out;
			size -= !!size;
			continue;
		}
		/* At its destination: the SMA answers, from port 0. */
		if (turns++)
			break;
		put_unaligned_be16(PIB_SMP_DIRECTION, smp + PIB_SMP_STATUS);
		in_port = 0;
	}
	free(smp);
	return 0;
}
