// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the RC requester's round-trip estimate (pib_rtt.h): the
 * first sample sets it, later ones move it an eighth of the way, one PSN
 * is timed at a time, an ACK short of it or a go-back takes no sample,
 * PSNs wrap at 2^24, huge or zero samples are bounded, and the probe
 * time is two round trips and four deviations, at least the minimum.
 */
#include "pib_rtt.h"
#include "unit.h"

#define MS 1000000ULL	/* nanoseconds */

static void test_samples(void)
{
	struct pib_rtt r = { 0 };

	CHECK_EQ(pib_rtt_probe_us(&r), 0);	/* nothing measured: no probe */
	pib_rtt_acked(&r, 10, 5 * MS);		/* nothing timed: no sample */
	CHECK_EQ(r.srtt_us, 0);
	pib_rtt_sent(&r, 100, 1 * MS);
	pib_rtt_sent(&r, 101, 2 * MS);		/* one at a time */
	CHECK(r.timing && r.psn == 100);
	pib_rtt_acked(&r, 99, 3 * MS);		/* short of it */
	CHECK(r.timing && r.srtt_us == 0);
	pib_rtt_acked(&r, 100, 9 * MS);		/* 8 ms */
	CHECK(!r.timing && r.srtt_us == 8000 && r.rttvar_us == 4000);
	CHECK_EQ(pib_rtt_probe_us(&r), 2 * 8000 + 4 * 4000);
	/* A second sample of 16 ms: srtt 7/8 8000 + 16000/8, rttvar 3/4 4000 + 8000/4. */
	pib_rtt_sent(&r, 200, 100 * MS);
	pib_rtt_acked(&r, 250, 116 * MS);
	CHECK_EQ(r.srtt_us, 9000);
	CHECK_EQ(r.rttvar_us, 5000);
	/* Steady 1 ms samples: down to the floor of the probe time. */
	for (int i = 0; i < 100; i++) {
		pib_rtt_sent(&r, 300 + i, 200 * MS + i * 10 * MS);
		pib_rtt_acked(&r, 300 + i, 201 * MS + i * 10 * MS);
	}
	CHECK(r.srtt_us >= 1000 && r.srtt_us < 1100);
	CHECK_EQ(pib_rtt_probe_us(&r), PIB_RTT_PROBE_MIN_US);
}

static void test_cancel_and_wrap(void)
{
	struct pib_rtt r = { 0 };

	pib_rtt_sent(&r, 5, 1 * MS);
	pib_rtt_cancel(&r);			/* Karn: a go-back */
	pib_rtt_acked(&r, 5, 2 * MS);
	CHECK_EQ(r.srtt_us, 0);
	/* Timed near the wrap, acknowledged past it. */
	pib_rtt_sent(&r, 0xfffffe, 10 * MS);
	pib_rtt_acked(&r, 0xfffffd, 11 * MS);
	CHECK(r.timing);
	pib_rtt_acked(&r, 0x000003, 12 * MS);
	CHECK(!r.timing && r.srtt_us == 2000);
	/* The PSN is kept to 24 bits. */
	pib_rtt_sent(&r, 0x1000010, 20 * MS);
	CHECK_EQ(r.psn, 0x10);
}

static void test_bounds(void)
{
	struct pib_rtt r = { 0 };

	/* A clock that went back, and the same instant: 1 us. */
	pib_rtt_sent(&r, 1, 10 * MS);
	pib_rtt_acked(&r, 1, 5 * MS);
	CHECK_EQ(r.srtt_us, 1);
	pib_rtt_sent(&r, 2, 10 * MS);
	pib_rtt_acked(&r, 2, 10 * MS);
	CHECK(r.srtt_us >= 1);
	/* An hour: counted as the longest sample. */
	r = (struct pib_rtt){ 0 };
	pib_rtt_sent(&r, 1, 0);
	pib_rtt_acked(&r, 1, 3600000 * MS);
	CHECK_EQ(r.srtt_us, PIB_RTT_SAMPLE_MAX_US);
	CHECK_EQ(pib_rtt_probe_us(&r), 4ULL * PIB_RTT_SAMPLE_MAX_US);
	/* Random samples keep the estimate within the samples' range. */
	srand(7);
	for (int i = 0; i < 100000; i++) {
		unsigned long long us = (unsigned long long)rand() % 20000000;

		pib_rtt_sent(&r, i, 0);
		pib_rtt_acked(&r, i, us * 1000);
		CHECK(r.srtt_us >= 1 && r.srtt_us <= PIB_RTT_SAMPLE_MAX_US);
		CHECK(r.rttvar_us <= PIB_RTT_SAMPLE_MAX_US);
	}
}

int main(void)
{
	test_samples();
	test_cancel_and_wrap();
	test_bounds();
	return unit_done("test_rtt");
}
