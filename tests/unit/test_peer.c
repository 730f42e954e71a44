// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the peer table (pib_peer.h): a GUID stays bound to its
 * address and an address to its GUID while the peer talks, silent peers
 * go down and are evicted, new peers come at a bounded rate into a
 * bounded table; and a random flood of forged hellos never moves a peer
 * that keeps talking.
 */
#include <string.h>

#include "pib_peer.h"
#include "unit.h"

#define A	0x0a63000au	/* addresses: any distinct values */
#define B	0x0a63000bu
#define C	0x0a63000cu
#define G1	0x5054007ffe990001ULL
#define G2	0x5054007ffe990002ULL

static struct pib_peer_table t;

static enum pib_hello_verdict heard(__u64 guid, __u32 addr, __u64 now)
{
	int slot = -1;

	return pib_peers_heard(&t, guid, addr, now, &slot);
}

static void test_binding(void)
{
	int slot = -1;

	pib_peers_init(&t, 1000);
	CHECK_EQ(pib_peers_heard(&t, G1, A, 1000, &slot), PIB_HELLO_LINK_UP);
	CHECK_EQ(slot, 0);
	CHECK_EQ(heard(G1, A, 2000), PIB_HELLO_HEARD);
	/* A live peer's GUID from another address: refused, not moved. */
	CHECK_EQ(heard(G1, B, 2100), PIB_HELLO_GUID_ELSEWHERE);
	CHECK_EQ(t.peer[0].addr, A);
	CHECK_EQ(t.guid_elsewhere, 1);
	/* A new GUID from a live peer's address: refused, no slot. */
	CHECK_EQ(heard(G2, A, 2200), PIB_HELLO_ADDR_IN_USE);
	CHECK_EQ(pib_peers_find_guid(&t, G2), -1);
	CHECK_EQ(t.addr_in_use, 1);
	CHECK_EQ(pib_peers_find_addr(&t, A), 0);
	CHECK_EQ(pib_peers_find_addr(&t, B), -1);
	/* Silent past the timeout: down; then it may come back from B. */
	CHECK_EQ(pib_peers_age(&t, 2000 + PIB_PEER_TIMEOUT_MS), 0);
	CHECK_EQ(pib_peers_age(&t, 2001 + PIB_PEER_TIMEOUT_MS), 1);
	CHECK(!t.peer[0].up);
	/* What debugfs shows: the longest gap and the link's downs. */
	CHECK_EQ(t.peer[0].max_gap, 1000);
	CHECK_EQ(t.peer[0].link_downs, 1);
	CHECK_EQ(pib_peers_find_addr(&t, A), -1);
	CHECK_EQ(pib_peers_heard(&t, G1, B, 2500 + PIB_PEER_TIMEOUT_MS, &slot),
		 PIB_HELLO_LINK_UP);
	CHECK_EQ(slot, 0);
	CHECK_EQ(t.peer[0].addr, B);
	/* Its old address is free for another GUID now. */
	CHECK_EQ(pib_peers_heard(&t, G2, A, 2600 + PIB_PEER_TIMEOUT_MS, &slot),
		 PIB_HELLO_LINK_UP);
	CHECK_EQ(slot, 1);
	/* The silence while its link was down is no gap between hellos. */
	CHECK_EQ(t.peer[0].max_gap, 1000);
	CHECK_EQ(heard(G1, B, 2800 + PIB_PEER_TIMEOUT_MS), PIB_HELLO_HEARD);
	CHECK_EQ(t.peer[0].max_gap, 1000);
	CHECK_EQ(heard(G1, B, 4300 + PIB_PEER_TIMEOUT_MS), PIB_HELLO_HEARD);
	CHECK_EQ(t.peer[0].max_gap, 1500);
}

static void test_eviction(void)
{
	int slot = -1;

	pib_peers_init(&t, 0);
	CHECK_EQ(heard(G1, A, 0), PIB_HELLO_LINK_UP);
	CHECK_EQ(heard(G2, B, 0), PIB_HELLO_LINK_UP);
	CHECK_EQ(heard(G2, B, PIB_PEER_EVICT_MS), PIB_HELLO_HEARD);
	pib_peers_age(&t, PIB_PEER_EVICT_MS);
	CHECK(t.peer[0].used && !t.peer[0].up);
	pib_peers_age(&t, PIB_PEER_EVICT_MS + 1);
	CHECK(!t.peer[0].used);
	CHECK(t.peer[1].used && t.peer[1].up);
	CHECK_EQ(t.evicted, 1);
	CHECK_EQ(pib_peers_find_guid(&t, G1), -1);
	/* The freed slot (switch port 65) goes to the next new peer. */
	CHECK_EQ(pib_peers_heard(&t, 0x77, C, PIB_PEER_EVICT_MS + 2, &slot),
		 PIB_HELLO_LINK_UP);
	CHECK_EQ(slot, 0);
}

static void test_rate_and_size(void)
{
	__u64 now = 5000;
	unsigned int i, used = 0;

	pib_peers_init(&t, now);
	for (i = 0; i < PIB_PEER_NEW_BURST; i++)
		CHECK_EQ(heard(0x100 + i, 0x1000 + i, now), PIB_HELLO_LINK_UP);
	CHECK_EQ(heard(0x200, 0x2000, now), PIB_HELLO_RATE_LIMITED);
	CHECK_EQ(heard(0x200, 0x2000, now + PIB_PEER_NEW_MS - 1),
		 PIB_HELLO_RATE_LIMITED);
	CHECK_EQ(t.rate_limited, 2);
	CHECK_EQ(heard(0x200, 0x2000, now + PIB_PEER_NEW_MS), PIB_HELLO_LINK_UP);
	CHECK_EQ(heard(0x201, 0x2001, now + PIB_PEER_NEW_MS), PIB_HELLO_RATE_LIMITED);
	/* Known peers are not new: they pass while new ones are refused. */
	CHECK_EQ(heard(0x100, 0x1000, now + PIB_PEER_NEW_MS), PIB_HELLO_HEARD);
	/* New peers at the admitted rate fill the table, and no more. */
	for (i = 0; i < 100; i++) {
		now += PIB_PEER_NEW_MS;
		heard(0x300 + i, 0x3000 + i, now);
	}
	for (i = 0; i < PIB_MAX_PEERS; i++)
		used += t.peer[i].used;
	CHECK_EQ(used, PIB_MAX_PEERS);
	CHECK(t.full > 0);
}

static __u32 rng = 99;

static __u32 next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* No two live peers share an address, no two slots a GUID. */
static void check_invariants(void)
{
	int i, j;

	for (i = 0; i < PIB_MAX_PEERS; i++) {
		if (t.peer[i].up)
			CHECK(t.peer[i].used);
		for (j = i + 1; j < PIB_MAX_PEERS; j++) {
			if (t.peer[i].used && t.peer[j].used)
				CHECK(t.peer[i].guid != t.peer[j].guid);
			if (t.peer[i].up && t.peer[j].up)
				CHECK(t.peer[i].addr != t.peer[j].addr);
		}
	}
}

/*
 * A real peer (G1 at A) says hello every second; a forger sends 50
 * hellos a second with its GUID from other addresses, other GUIDs from
 * its address, and made-up GUIDs from made-up addresses. The real peer
 * never moves and never loses its link.
 */
static void test_forged_flood(void)
{
	__u64 now = 0, next_hello = 0;
	enum pib_hello_verdict v;
	unsigned int i;
	int slot;

	pib_peers_init(&t, 0);
	CHECK_EQ(heard(G1, A, 0), PIB_HELLO_LINK_UP);
	for (i = 0; i < 200000; i++) {
		now += 20;
		switch (next_rand() % 4) {
		case 0:
			heard(G1, next_rand() % 8 + B, now);
			break;
		case 1:
			heard(next_rand() % 16 + 0x4000, A, now);
			break;
		default:
			heard(next_rand() % 512 + 0x8000, next_rand() % 64 + 0x100, now);
		}
		if (now >= next_hello) {
			v = pib_peers_heard(&t, G1, A, now, &slot);
			CHECK_EQ(v, PIB_HELLO_HEARD);
			CHECK_EQ(slot, 0);
			next_hello = now + 1000;
		}
		if (!(i % 50))
			pib_peers_age(&t, now);
		if (!(i % 1000))
			check_invariants();
	}
	CHECK(t.peer[0].up && t.peer[0].addr == A && t.peer[0].guid == G1);
	CHECK(t.guid_elsewhere > 0 && t.addr_in_use > 0 && t.rate_limited > 0);
	CHECK(t.evicted > 0);
}

int main(void)
{
	test_binding();
	test_eviction();
	test_rate_and_size();
	test_forged_flood();
	return unit_done("test_peer");
}
