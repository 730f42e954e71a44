// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the RC requester's congestion window (pib_cwnd.h): a
 * loss halves it once per round trip, down to PIB_CWND_MIN; it grows by a
 * packet per window acknowledged, up to PIB_CWND_MAX; PSNs wrap at 2^24;
 * and a random run of ACKs and losses keeps it in bounds.
 */
#include <string.h>

#include "pib_cwnd.h"
#include "unit.h"

static void test_halve_and_grow(void)
{
	struct pib_cwnd w;
	__u32 psn = 1000, i;

	pib_cwnd_init(&w);
	CHECK_EQ(w.cwnd, PIB_CWND_MAX);
	pib_cwnd_acked(&w, 64, psn + 63);
	CHECK_EQ(w.cwnd, PIB_CWND_MAX);	/* (no more than the whole) */
	/* A loss with PSNs up to 1199 sent: halved once, not per NAK. */
	pib_cwnd_lost(&w, 1200);
	CHECK(w.cwnd == PIB_CWND_MAX / 2 && w.recovering && w.losses == 1);
	pib_cwnd_lost(&w, 1210);
	CHECK_EQ(w.cwnd, PIB_CWND_MAX / 2);
	/* ACKs up to 1198: still the same round trip. */
	pib_cwnd_acked(&w, 10, 1198);
	CHECK(w.recovering && w.cwnd == PIB_CWND_MAX / 2);
	pib_cwnd_acked(&w, 1, 1199);
	CHECK(!w.recovering);
	pib_cwnd_lost(&w, 1300);
	CHECK(w.cwnd == PIB_CWND_MAX / 4 && w.losses == 2);
	/* Back up: one packet more per window acknowledged. */
	pib_cwnd_acked(&w, 1, 1300);
	CHECK(!w.recovering && w.acked == 1);
	pib_cwnd_acked(&w, PIB_CWND_MAX / 4 - 1, 1315);
	CHECK(w.cwnd == PIB_CWND_MAX / 4 + 1 && w.acked == 0);
	for (i = 0; i < 100; i++)
		pib_cwnd_acked(&w, 64, 1400 + 64 * i);
	CHECK(w.cwnd == PIB_CWND_MAX && w.acked == 0);
	/* Down to the floor, and no lower. */
	for (i = 0; i < 10; i++) {
		pib_cwnd_lost(&w, 9000 + i);
		pib_cwnd_acked(&w, 1, 9000 + i);
	}
	CHECK_EQ(w.cwnd, PIB_CWND_MIN);
	/* A huge ACK (a wrap of the window's count) is bounded. */
	pib_cwnd_acked(&w, 1u << 23, 9100);
	CHECK_EQ(w.cwnd, PIB_CWND_MAX);
}

/* Recovery across the PSN wrap (0xffffff -> 0). */
static void test_wrap(void)
{
	struct pib_cwnd w;

	pib_cwnd_init(&w);
	pib_cwnd_lost(&w, 0x000010);
	pib_cwnd_acked(&w, 5, 0xfffffe);
	CHECK(w.recovering);
	pib_cwnd_acked(&w, 18, 0x00000f);
	CHECK(!w.recovering);
	pib_cwnd_lost(&w, 0xfffff0 + 0x20);	/* (sent_psn past the wrap) */
	CHECK_EQ(w.recover, 0x000010);
	CHECK_EQ(pib_psn_diff(0x000001, 0xffffff), 2);
	CHECK_EQ(pib_psn_diff(0xffffff, 0x000001), -2);
}

static __u32 rng = 7;

static __u32 next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* Random ACKs and losses: always within bounds. */
static void test_random(void)
{
	struct pib_cwnd w;
	__u32 psn = 0xfff000, sent = psn, i, n;

	pib_cwnd_init(&w);
	for (i = 0; i < 1000000; i++) {
		if (next_rand() % 50 == 0) {
			pib_cwnd_lost(&w, sent);
		} else {
			n = next_rand() % 70;
			psn = (psn + n) & PIB_PSN_MASK;
			sent = (psn + next_rand() % 64 + 1) & PIB_PSN_MASK;
			pib_cwnd_acked(&w, n, psn);
		}
		if (w.cwnd < PIB_CWND_MIN || w.cwnd > PIB_CWND_MAX ||
		    w.acked > PIB_CWND_MAX * PIB_CWND_MAX) {
			CHECK(0);
			break;
		}
	}
	CHECK(w.losses > 0);
}

int main(void)
{
	test_halve_and_grow();
	test_wrap();
	test_random();
	return unit_done("test_cwnd");
}
