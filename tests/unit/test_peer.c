// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the peer table (pib_peer.h): a GUID stays bound to its
 * address and an address to its GUID while the peer talks, silent peers
 * go down and are evicted, new peers come at a bounded rate into a
 * bounded table; a peer heard over IPv4 and IPv6 keeps its packets on the
 * family its link came up with and moves to the other only when that one
 * falls silent; and a random flood of forged hellos never moves a peer
 * that keeps talking.
 */
#include <arpa/inet.h>
#include <string.h>

#include "pib_peer.h"
#include "unit.h"

/* Addresses: IPv4 10.99.0.N, IPv6 fe80::N. */
static struct pib_ip v4(__u32 n)
{
	return pib_ip4(htonl(0x0a630000u + n));
}

static struct pib_ip v6(__u32 n)
{
	struct pib_ip ip = { .b = { 0xfe, 0x80 } };

	ip.b[12] = n >> 24;
	ip.b[13] = n >> 16;
	ip.b[14] = n >> 8;
	ip.b[15] = n;
	return ip;
}

#define A	v4(10)
#define B	v4(11)
#define C	v4(12)
#define BOTH	(PIB_IP_BIT(PIB_IP4) | PIB_IP_BIT(PIB_IP6))
#define G1	0x5054007ffe990001ULL
#define G2	0x5054007ffe990002ULL

static struct pib_peer_table t;

/* The slot the last hello got (-1: none), as said() leaves it. */
static int said_slot;

/* Switch @guid says hello (bye if @bye) as incarnation @inc, from @addr. */
static enum pib_hello_verdict said(__u64 guid, __u16 inc, int bye,
				   struct pib_ip addr, __u64 now)
{
	struct pib_hello h = { .version = PIB_HELLO_VERSION, .bye = !!bye,
			       .incarnation = inc, .switch_guid = guid };

	said_slot = -1;
	return pib_peers_heard(&t, &h, &addr, now, &said_slot);
}

/* Switch @guid says hello from @addr, as incarnation 1. */
static enum pib_hello_verdict heard(__u64 guid, struct pib_ip addr, __u64 now)
{
	return said(guid, 1, 0, addr, now);
}

static int find_addr(struct pib_ip addr)
{
	return pib_peers_find_addr(&t, &addr);
}

static int addr_is(const struct pib_ip *got, struct pib_ip want)
{
	return pib_ip_eq(got, &want);
}

/* Where slot @i's packets go; 0 while its link is down. */
static int dest_is(unsigned int i, struct pib_ip want)
{
	struct pib_ip got;

	return pib_peers_dest(&t, i, &got) && pib_ip_eq(&got, &want);
}

static void test_binding(void)
{
	struct pib_ip got;

	pib_peers_init(&t, 1000);
	CHECK_EQ(heard(G1, A, 1000), PIB_HELLO_LINK_UP);
	CHECK_EQ(said_slot, 0);
	CHECK_EQ(heard(G1, A, 2000), PIB_HELLO_HEARD);
	/* A live peer's GUID from another address: refused, not moved. */
	CHECK_EQ(heard(G1, B, 2100), PIB_HELLO_GUID_ELSEWHERE);
	CHECK(dest_is(0, A));
	CHECK_EQ(t.guid_elsewhere, 1);
	/* A new GUID from a live peer's address: refused, no slot. */
	CHECK_EQ(heard(G2, A, 2200), PIB_HELLO_ADDR_IN_USE);
	CHECK_EQ(pib_peers_find_guid(&t, G2), -1);
	CHECK_EQ(t.addr_in_use, 1);
	CHECK_EQ(find_addr(A), 0);
	CHECK_EQ(find_addr(B), -1);
	/* Silent past the timeout: down; then it may come back from B. */
	CHECK_EQ(pib_peers_age(&t, 2000 + PIB_PEER_TIMEOUT_MS, BOTH), 0);
	CHECK_EQ(pib_peers_age(&t, 2001 + PIB_PEER_TIMEOUT_MS, BOTH), 1);
	CHECK(!t.peer[0].up);
	/* What debugfs shows: the longest gap and the link's downs. */
	CHECK_EQ(t.peer[0].max_gap, 1000);
	CHECK_EQ(t.peer[0].link_downs, 1);
	CHECK_EQ(find_addr(A), -1);
	CHECK(!pib_peers_dest(&t, 0, &got));
	CHECK(addr_is(&t.peer[0].addr[PIB_IP4], A));	/* what debugfs shows */
	CHECK_EQ(heard(G1, B, 2500 + PIB_PEER_TIMEOUT_MS), PIB_HELLO_LINK_UP);
	CHECK_EQ(said_slot, 0);
	CHECK(dest_is(0, B));
	/* Its old address is free for another GUID now. */
	CHECK_EQ(heard(G2, A, 2600 + PIB_PEER_TIMEOUT_MS), PIB_HELLO_LINK_UP);
	CHECK_EQ(said_slot, 1);
	/* The silence while its link was down is no gap between hellos. */
	CHECK_EQ(t.peer[0].max_gap, 1000);
	CHECK_EQ(heard(G1, B, 2800 + PIB_PEER_TIMEOUT_MS), PIB_HELLO_HEARD);
	CHECK_EQ(t.peer[0].max_gap, 1000);
	CHECK_EQ(heard(G1, B, 4300 + PIB_PEER_TIMEOUT_MS), PIB_HELLO_HEARD);
	CHECK_EQ(t.peer[0].max_gap, 1500);
}

static void test_eviction(void)
{
	pib_peers_init(&t, 0);
	CHECK_EQ(heard(G1, A, 0), PIB_HELLO_LINK_UP);
	CHECK_EQ(heard(G2, B, 0), PIB_HELLO_LINK_UP);
	CHECK_EQ(heard(G2, B, PIB_PEER_EVICT_MS), PIB_HELLO_HEARD);
	pib_peers_age(&t, PIB_PEER_EVICT_MS, BOTH);
	CHECK(t.peer[0].used && !t.peer[0].up);
	pib_peers_age(&t, PIB_PEER_EVICT_MS + 1, BOTH);
	CHECK(!t.peer[0].used);
	CHECK(t.peer[1].used && t.peer[1].up);
	CHECK_EQ(t.evicted, 1);
	CHECK_EQ(pib_peers_find_guid(&t, G1), -1);
	/* The freed slot (switch port 65) goes to the next new peer. */
	CHECK_EQ(heard(0x77, C, PIB_PEER_EVICT_MS + 2), PIB_HELLO_LINK_UP);
	CHECK_EQ(said_slot, 0);
}

/* Address families: which address a peer's packets go to. */
static void test_families(void)
{
	struct pib_ip got;

	CHECK_EQ(pib_ip_family(&(struct pib_ip){ .b = { 0 } }), PIB_IP6);
	got = A;
	CHECK_EQ(pib_ip_family(&got), PIB_IP4);
	CHECK_EQ(pib_ip_v4(&got), htonl(0x0a63000a));
	got = v6(1);
	CHECK_EQ(pib_ip_family(&got), PIB_IP6);
	got.b[0] = 0;
	got.b[1] = 0;
	got.b[10] = 0xff;	/* ::ff00:0:1 is IPv6, ::ffff:0.0.0.1 IPv4 */
	CHECK_EQ(pib_ip_family(&got), PIB_IP6);
	got.b[11] = 0xff;
	CHECK_EQ(pib_ip_family(&got), PIB_IP4);

	/* A dual-stack peer: its link comes up over IPv4 and stays there. */
	pib_peers_init(&t, 0);
	CHECK_EQ(heard(G1, A, 0), PIB_HELLO_LINK_UP);
	CHECK_EQ(heard(G1, v6(10), 10), PIB_HELLO_HEARD);
	CHECK(dest_is(0, A));
	CHECK_EQ(find_addr(v6(10)), 0);
	CHECK_EQ(find_addr(A), 0);
	/* Each family binds its own address. */
	CHECK_EQ(heard(G1, v6(11), 20), PIB_HELLO_GUID_ELSEWHERE);
	CHECK_EQ(heard(G2, v6(10), 30), PIB_HELLO_ADDR_IN_USE);
	/* IPv4's path fails: its packets move to IPv6, the link stays up. */
	CHECK_EQ(heard(G1, v6(10), 9000), PIB_HELLO_HEARD);
	CHECK_EQ(pib_peers_age(&t, PIB_PEER_TIMEOUT_MS + 1, BOTH), 0);
	CHECK(dest_is(0, v6(10)));
	CHECK_EQ(find_addr(A), -1);
	CHECK_EQ(t.peer[0].link_downs, 0);
	/* IPv4 back: bound again, but the packets stay where they go. */
	CHECK_EQ(heard(G1, A, PIB_PEER_TIMEOUT_MS + 100), PIB_HELLO_HEARD);
	CHECK(dest_is(0, v6(10)));
	CHECK_EQ(find_addr(A), 0);
	/* Both silent: the link goes down, once. */
	CHECK_EQ(pib_peers_age(&t, PIB_PEER_TIMEOUT_MS * 2 + 101, BOTH), 1);
	CHECK(!t.peer[0].up && !t.peer[0].bound);
	CHECK_EQ(t.peer[0].link_downs, 1);
	CHECK_EQ(find_addr(v6(10)), -1);
	/* An IPv6-only peer comes up over IPv6. */
	CHECK_EQ(heard(G2, v6(20), PIB_PEER_TIMEOUT_MS * 3), PIB_HELLO_LINK_UP);
	CHECK(dest_is(1, v6(20)));
	/*
	 * A host that claims its GUID over IPv4 binds that address too, but
	 * moves none of the live peer's packets.
	 */
	CHECK_EQ(heard(G2, B, PIB_PEER_TIMEOUT_MS * 3 + 1), PIB_HELLO_HEARD);
	CHECK(dest_is(1, v6(20)));
	/*
	 * The switch loses its own IPv4 address: the IPv4 bindings go at the
	 * next aging, whatever is heard; a peer bound by IPv4 alone goes down.
	 */
	CHECK_EQ(heard(G1, A, PIB_PEER_TIMEOUT_MS * 3 + 2), PIB_HELLO_LINK_UP);
	CHECK_EQ(pib_peers_age(&t, PIB_PEER_TIMEOUT_MS * 3 + 3,
			       PIB_IP_BIT(PIB_IP6)), 1);
	CHECK(!t.peer[0].up);
	CHECK(t.peer[1].up && t.peer[1].bound == PIB_IP_BIT(PIB_IP6));
	CHECK_EQ(find_addr(B), -1);
	CHECK(dest_is(1, v6(20)));
}

static void test_rate_and_size(void)
{
	__u64 now = 5000;
	unsigned int i, used = 0;

	pib_peers_init(&t, now);
	for (i = 0; i < PIB_PEER_NEW_BURST; i++)
		CHECK_EQ(heard(0x100 + i, v4(0x1000 + i), now), PIB_HELLO_LINK_UP);
	CHECK_EQ(heard(0x200, v4(0x2000), now), PIB_HELLO_RATE_LIMITED);
	CHECK_EQ(heard(0x200, v4(0x2000), now + PIB_PEER_NEW_MS - 1),
		 PIB_HELLO_RATE_LIMITED);
	CHECK_EQ(t.rate_limited, 2);
	CHECK_EQ(heard(0x200, v6(0x2000), now + PIB_PEER_NEW_MS),
		 PIB_HELLO_LINK_UP);
	CHECK_EQ(heard(0x201, v4(0x2001), now + PIB_PEER_NEW_MS),
		 PIB_HELLO_RATE_LIMITED);
	/* Known peers are not new: they pass while new ones are refused. */
	CHECK_EQ(heard(0x100, v4(0x1000), now + PIB_PEER_NEW_MS),
		 PIB_HELLO_HEARD);
	CHECK_EQ(heard(0x101, v6(0x1001), now + PIB_PEER_NEW_MS),
		 PIB_HELLO_HEARD);
	/* New peers at the admitted rate fill the table, and no more. */
	for (i = 0; i < 100; i++) {
		now += PIB_PEER_NEW_MS;
		heard(0x300 + i, i % 2 ? v4(0x3000 + i) : v6(0x3000 + i), now);
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

/* Do live peers @p and @q share a bound address? */
static int share_addr(const struct pib_peer *p, const struct pib_peer *q)
{
	unsigned int f;

	for (f = 0; f < PIB_IP_FAMILIES; f++)
		if (p->bound & q->bound & PIB_IP_BIT(f) &&
		    pib_ip_eq(&p->addr[f], &q->addr[f]))
			return 1;
	return 0;
}

/*
 * No two live peers share an address, no two slots a GUID; a live peer
 * has an address, and its packets go to one it is bound to.
 */
static void check_invariants(void)
{
	const struct pib_peer *p;
	int i, j;

	for (i = 0; i < PIB_MAX_PEERS; i++) {
		p = &t.peer[i];
		if (p->up)
			CHECK(p->used && p->bound & PIB_IP_BIT(p->primary));
		else
			CHECK(!p->bound);
		for (j = i + 1; j < PIB_MAX_PEERS; j++) {
			if (p->used && t.peer[j].used)
				CHECK(p->guid != t.peer[j].guid);
			if (p->up && t.peer[j].up)
				CHECK(!share_addr(p, &t.peer[j]));
		}
	}
}

/* A made-up address, of either family. */
static struct pib_ip rand_addr(__u32 r, __u32 n)
{
	return r & 1 ? v4(n) : v6(n);
}

/* A forged hello, or bye, of @guid from @addr, of any incarnation. */
static void forged(__u64 guid, struct pib_ip addr, __u64 now)
{
	__u32 r = next_rand();

	said(guid, r & PIB_HELLO_INCARNATION, r >> 31, addr, now);
}

/*
 * A real peer (G1 at A and at fe80::a) says hello every second over both
 * families; a forger sends 50 hellos and byes a second with its GUID from other
 * addresses of either family, other GUIDs from its addresses, and
 * made-up GUIDs from made-up addresses. The real peer's packets never
 * move and its link never goes down.
 */
static void test_forged_flood(void)
{
	__u64 now = 0, next_hello = 0;
	struct pib_ip a = A, a6 = v6(10);
	enum pib_hello_verdict v;
	unsigned int i;
	__u32 r;

	pib_peers_init(&t, 0);
	CHECK_EQ(heard(G1, A, 0), PIB_HELLO_LINK_UP);
	for (i = 0; i < 200000; i++) {
		now += 20;
		r = next_rand();
		switch (r % 4) {
		case 0:
			forged(G1, rand_addr(r >> 2, next_rand() % 8 + 11), now);
			break;
		case 1:
			forged(next_rand() % 16 + 0x4000, r & 4 ? a : a6, now);
			break;
		default:
			forged(next_rand() % 512 + 0x8000,
			       rand_addr(r >> 2, next_rand() % 64 + 0x100), now);
		}
		if (now >= next_hello) {
			v = heard(G1, a, now);
			CHECK_EQ(v, PIB_HELLO_HEARD);
			CHECK_EQ(said_slot, 0);
			v = heard(G1, a6, now);
			CHECK(v == PIB_HELLO_HEARD || v == PIB_HELLO_GUID_ELSEWHERE);
			next_hello = now + 1000;
		}
		if (!(i % 50))
			CHECK_EQ(pib_peers_age(&t, now, BOTH) && !t.peer[0].up, 0);
		if (!(i % 1000))
			check_invariants();
	}
	CHECK(t.peer[0].up && dest_is(0, A) && t.peer[0].guid == G1);
	CHECK_EQ(t.peer[0].link_downs, 0);
	CHECK(t.guid_elsewhere > 0 && t.addr_in_use > 0 && t.rate_limited > 0);
	CHECK(t.evicted > 0);
}

/*
 * A live peer that says hello as another incarnation bounces (at most once
 * a PIB_PEER_RESTART_MS); one that says bye goes down, if the bye is its
 * own; a peer that says no incarnation (an older pib) never bounces.
 */
static void test_restart_and_bye(void)
{
	pib_peers_init(&t, 0);
	CHECK_EQ(said(G1, 1, 0, A, 5000), PIB_HELLO_LINK_UP);
	CHECK_EQ(said(G1, 1, 0, A, 6000), PIB_HELLO_HEARD);
	CHECK_EQ(said(G1, 2, 0, A, 6100), PIB_HELLO_RESTART);
	CHECK(said_slot == 0 && t.peer[0].restarts == 1 && t.peer[0].up);
	/* (too soon after the last: ignored, and said again later) */
	CHECK_EQ(said(G1, 3, 0, A, 6100 + PIB_PEER_RESTART_MS - 1),
		 PIB_HELLO_HEARD);
	CHECK(t.restarts_limited == 1 && t.peer[0].incarnation == 2);
	CHECK_EQ(said(G1, 3, 0, A, 6100 + PIB_PEER_RESTART_MS), PIB_HELLO_RESTART);
	CHECK_EQ(t.peer[0].restarts, 2);
	/* Byes: of another incarnation, from elsewhere, of no peer: stray. */
	CHECK_EQ(said(G1, 2, 1, A, 8200), PIB_HELLO_STRAY_BYE);
	CHECK_EQ(said(G1, 3, 1, B, 8200), PIB_HELLO_STRAY_BYE);
	CHECK_EQ(said(G2, 3, 1, B, 8200), PIB_HELLO_STRAY_BYE);
	CHECK(t.peer[0].up && find_addr(B) < 0 && t.restarts_limited == 1);
	CHECK_EQ(said(G1, 3, 1, A, 8200), PIB_HELLO_BYE);
	CHECK(said_slot == 0 && !t.peer[0].up && t.peer[0].byes == 1);
	CHECK_EQ(find_addr(A), -1);
	CHECK_EQ(said(G1, 3, 1, A, 8201), PIB_HELLO_STRAY_BYE);
	/* Back as a new incarnation: an ordinary link up. */
	CHECK_EQ(said(G1, 4, 0, A, 8300), PIB_HELLO_LINK_UP);
	CHECK(t.peer[0].restarts == 2 && t.peer[0].incarnation == 4);
	/* An older pib says incarnation 0: never a restart. */
	CHECK_EQ(said(G2, 0, 0, B, 9000), PIB_HELLO_LINK_UP);
	CHECK_EQ(said(G2, 0, 0, B, 9100), PIB_HELLO_HEARD);
	CHECK_EQ(said(G2, 0, 1, B, 9200), PIB_HELLO_BYE);
	CHECK_EQ(said(G2, 0, 0, B, 9300), PIB_HELLO_LINK_UP);
	/* (upgraded: its first incarnation is no restart) */
	CHECK_EQ(said(G2, 7, 0, B, 9400), PIB_HELLO_HEARD);
	/* A restart, then a bye, each too soon after the last word. */
	CHECK_EQ(said(G2, 8, 0, B, 9500), PIB_HELLO_HEARD);
	CHECK(t.restarts_limited == 2 && t.peer[1].restarts == 0);
	CHECK_EQ(said(G2, 8, 0, B, 10200), PIB_HELLO_RESTART);
	CHECK_EQ(said(G2, 8, 1, B, 10300), PIB_HELLO_STRAY_BYE);
	CHECK(t.restarts_limited == 3 && t.peer[1].up);
}

int main(void)
{
	test_binding();
	test_eviction();
	test_families();
	test_rate_and_size();
	test_forged_flood();
	test_restart_and_bye();
	return unit_done("test_peer");
}
