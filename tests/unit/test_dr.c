// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of directed-route SMP routing at a switch (pib_dr_switch_route)
 * against the IBA 14.2.2 walk: an SM on an HCA reaches a switch two hops
 * away and the reply comes back the same way.
 */
#include <string.h>

#include "pib_hdr.h"
#include "unit.h"

static __u8 smp[PIB_SMP_LEN];

static void new_smp(unsigned int hop_cnt, const __u8 *path, size_t n)
{
	memset(smp, 0, sizeof(smp));
	smp[PIB_SMP_HOP_CNT] = hop_cnt;
	put_unaligned_be16(PIB_PERMISSIVE_LID, smp + PIB_SMP_DR_SLID);
	put_unaligned_be16(PIB_PERMISSIVE_LID, smp + PIB_SMP_DR_DLID);
	memcpy(smp + PIB_SMP_INITIAL_PATH, path, n);
	/* The source HCA advances HopPtr as it sends (IBA C14-9:1). */
	smp[PIB_SMP_HOP_PTR] = 1;
}

static void turn_around(void)
{
	put_unaligned_be16(PIB_SMP_DIRECTION, smp + PIB_SMP_STATUS);
}

static void test_two_switches(void)
{
	/* HCA port 1 -> switch A (in 3, out 7) -> switch B (in 2): NodeInfo. */
	const __u8 path[] = { 0, 1, 7 };
	unsigned int out = 0;

	new_smp(2, path, sizeof(path));
	CHECK_EQ(pib_dr_switch_route(smp, 3, 10, &out), PIB_DR_FORWARD);
	CHECK_EQ(out, 7);
	CHECK_EQ(smp[PIB_SMP_HOP_PTR], 2);
	CHECK_EQ(smp[PIB_SMP_RETURN_PATH + 1], 3);
	CHECK_EQ(pib_dr_switch_route(smp, 2, 10, &out), PIB_DR_SMA);
	CHECK_EQ(smp[PIB_SMP_HOP_PTR], 3);
	CHECK_EQ(smp[PIB_SMP_RETURN_PATH + 2], 2);

	/* B's SMA replies: from port 0, back out of the port it came in. */
	turn_around();
	CHECK_EQ(pib_dr_switch_route(smp, 0, 10, &out), PIB_DR_FORWARD);
	CHECK_EQ(out, 2);
	CHECK_EQ(smp[PIB_SMP_HOP_PTR], 2);
	/* A gets it on port 7 and sends it to the HCA on port 3. */
	CHECK_EQ(pib_dr_switch_route(smp, 7, 10, &out), PIB_DR_FORWARD);
	CHECK_EQ(out, 3);
	/* HopPtr 1 is what the HCA's SMI expects (C14-13:3). */
	CHECK_EQ(smp[PIB_SMP_HOP_PTR], 1);
}

static void test_one_hop(void)
{
	const __u8 path[] = { 0, 1 };
	unsigned int out = 0;

	new_smp(1, path, sizeof(path));
	CHECK_EQ(pib_dr_switch_route(smp, 5, 10, &out), PIB_DR_SMA);
	turn_around();
	CHECK_EQ(pib_dr_switch_route(smp, 0, 10, &out), PIB_DR_FORWARD);
	CHECK_EQ(out, 5);
	CHECK_EQ(smp[PIB_SMP_HOP_PTR], 1);
}

static void test_bad_smps(void)
{
	const __u8 path[] = { 0, 1, 11 };
	unsigned int out = 0;

	new_smp(2, path, sizeof(path));	/* a port the switch does not have */
	CHECK_EQ(pib_dr_switch_route(smp, 3, 10, &out), PIB_DR_DISCARD);
	new_smp(2, (const __u8[]){ 0, 1, 0 }, 3);	/* port 0 is no way out */
	CHECK_EQ(pib_dr_switch_route(smp, 3, 10, &out), PIB_DR_DISCARD);
	new_smp(0, path, sizeof(path));	/* hop count 0 never reaches a switch */
	CHECK_EQ(pib_dr_switch_route(smp, 3, 10, &out), PIB_DR_DISCARD);
	new_smp(2, path, sizeof(path));
	smp[PIB_SMP_HOP_PTR] = 0;	/* the source did not advance it */
	CHECK_EQ(pib_dr_switch_route(smp, 3, 10, &out), PIB_DR_DISCARD);
	new_smp(2, path, sizeof(path));
	smp[PIB_SMP_HOP_PTR] = 3;	/* past its destination */
	CHECK_EQ(pib_dr_switch_route(smp, 3, 10, &out), PIB_DR_DISCARD);
	new_smp(200, path, sizeof(path));		/* more hops than a path holds */
	CHECK_EQ(pib_dr_switch_route(smp, 3, 10, &out), PIB_DR_DISCARD);
	new_smp(1, path, sizeof(path));
	put_unaligned_be16(5, smp + PIB_SMP_DR_DLID);	/* LID-routed part: not routed */
	CHECK_EQ(pib_dr_switch_route(smp, 3, 10, &out), PIB_DR_DISCARD);
	/* A returning SMP from a link must have been stepped back already. */
	new_smp(1, path, sizeof(path));
	turn_around();
	smp[PIB_SMP_HOP_PTR] = 2;
	CHECK_EQ(pib_dr_switch_route(smp, 4, 10, &out), PIB_DR_DISCARD);
	smp[PIB_SMP_HOP_PTR] = 1;	/* a switch is never hop 0 */
	CHECK_EQ(pib_dr_switch_route(smp, 4, 10, &out), PIB_DR_DISCARD);
	/* Any bytes at all: a verdict, never a read past the SMP (ASan). */
	for (unsigned int i = 0; i < 100000; i++) {
		for (unsigned int j = 0; j < PIB_SMP_LEN; j++)
			smp[j] = (i * 2654435761u >> (j % 24)) + j;
		put_unaligned_be16(PIB_PERMISSIVE_LID, smp + PIB_SMP_DR_SLID);
		put_unaligned_be16(PIB_PERMISSIVE_LID, smp + PIB_SMP_DR_DLID);
		CHECK(pib_dr_switch_route(smp, i % 12, 10, &out) <= PIB_DR_FORWARD);
	}
}

int main(void)
{
	test_two_switches();
	test_one_hop();
	test_bad_smps();
	return unit_done("test_dr");
}
