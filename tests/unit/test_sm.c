// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of pib-sm's pure logic (userspace-sm/), on fabrics built by
 * hand: pib's own full mesh of switches, a 2-level fat tree (with single
 * and with parallel links), a ring, two CAs back to back, and random
 * connected fabrics. For each: every end port has a unique LID, kept
 * across sweeps, restarts (the LID file) and changes; every switch
 * reaches every LID on a shortest path, with no loop; parallel paths
 * share the load; and a multicast group's tree takes a packet from any
 * member to every other member exactly once and to nobody else.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pib_sm.h"
#include "sm_fabric.h"
#include "unit.h"

static uint64_t next_guid = 0x0002c90300000001ULL;

/* A node with fresh GUIDs (its ports' too). */
static int add(struct sm_fabric *f, enum sm_node_type type, unsigned int ports)
{
	uint64_t guid = next_guid++;
	unsigned int p;
	int i = sm_fabric_add(f, guid, type, ports);

	CHECK(i >= 0);
	for (p = 0; i >= 0 && p <= ports; p++)
		f->node[i].port[p].guid = type == SM_NODE_SWITCH ? guid :
					  next_guid++;
	return i;
}

/* A CA with one port, linked to port @port of switch @sw. */
static int add_ca(struct sm_fabric *f, int sw, unsigned int port)
{
	int ca = add(f, SM_NODE_CA, 1);

	CHECK_EQ(sm_fabric_link(f, ca, 1, sw, port), 0);
	return ca;
}

/* pib's fabric of @k hosts: switch i has its CA on port 1, peers on 65.. */
static void build_mesh(struct sm_fabric *f, int k)
{
	int sw[16], i, j;

	for (i = 0; i < k; i++)
		sw[i] = add(f, SM_NODE_SWITCH, 128);
	for (i = 0; i < k; i++) {
		add_ca(f, sw[i], 1);
		for (j = i + 1; j < k; j++)
			CHECK_EQ(sm_fabric_link(f, sw[i], 65 + j - 1, sw[j],
						65 + i), 0);
	}
}

/*
 * A 2-level fat tree: @leaves leaf switches with @cas CAs each, and
 * @spines spines, each leaf linked to each spine @par times.
 */
static void build_fat_tree(struct sm_fabric *f, int leaves, int spines,
			   int cas, int par)
{
	int leaf[8], spine[8], l, s, c, k;

	for (s = 0; s < spines; s++)
		spine[s] = add(f, SM_NODE_SWITCH, leaves * par);
	for (l = 0; l < leaves; l++) {
		leaf[l] = add(f, SM_NODE_SWITCH, cas + spines * par);
		for (c = 0; c < cas; c++)
			add_ca(f, leaf[l], c + 1);
		for (s = 0; s < spines; s++)
			for (k = 0; k < par; k++)
				CHECK_EQ(sm_fabric_link(f, leaf[l],
					cas + 1 + s * par + k, spine[s],
					1 + l * par + k), 0);
	}
}

/* A ring of @k switches (ports 1 and 2), each with a CA on port 3. */
static void build_ring(struct sm_fabric *f, int k)
{
	int sw[16], i;

	for (i = 0; i < k; i++)
		sw[i] = add(f, SM_NODE_SWITCH, 3);
	for (i = 0; i < k; i++) {
		CHECK_EQ(sm_fabric_link(f, sw[i], 2, sw[(i + 1) % k], 1), 0);
		add_ca(f, sw[i], 3);
	}
}

/* The switch behind (@node, @port) (a switch: itself), or SM_NONE. */
static int switch_of(const struct sm_fabric *f, int node, unsigned int port)
{
	return sm_node_is_switch(&f->node[node]) ? node :
	       sm_switch_behind(f, node, port);
}

/* Every end port has a LID of its own; no other port has one. */
static void check_lids(const struct sm_fabric *f)
{
	static uint8_t seen[SM_LID_UCAST_MAX + 1];
	const struct sm_node *n;
	unsigned int p;
	int i, lid;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < f->num_nodes; i++) {
		n = &f->node[i];
		for (p = 0; p <= n->num_ports; p++) {
			lid = n->port[p].lid;
			if (sm_node_is_switch(n) ? p == 0 :
			    p && n->port[p].peer != SM_NONE) {
				CHECK(lid >= 1 && lid <= f->top_lid);
				CHECK(!seen[lid]);
				seen[lid] = 1;
			} else {
				CHECK_EQ(lid, 0);
			}
		}
	}
}

/*
 * From switch @s, follow the LFTs to LID @lid of (@node, @port): it
 * arrives, over as many switch hops as the shortest path has, or (when
 * no path exists) the first switch drops it.
 */
static void check_route(const struct sm_fabric *f, int s, uint16_t lid,
			int node, unsigned int port)
{
	int ds = switch_of(f, node, port), want, cur = s, hops = 0, peer;
	unsigned int out;

	want = ds == SM_NONE ? -1 : sm_route_hops(f, s, ds);
	if (want < 0) {
		CHECK_EQ(f->node[s].lft[lid], SM_LFT_DROP);
		return;
	}
	for (;;) {
		CHECK(hops <= f->num_nodes);
		if (hops > f->num_nodes)
			return;		/* a loop */
		out = f->node[cur].lft[lid];
		CHECK(out != SM_LFT_DROP);
		if (out == SM_LFT_DROP)
			return;
		if (out == 0) {
			CHECK(cur == node && port == 0);
			break;
		}
		peer = f->node[cur].port[out].peer;
		CHECK(peer != SM_NONE);
		if (peer == node && f->node[cur].port[out].peer_port == port)
			break;
		CHECK(sm_node_is_switch(&f->node[peer]));
		cur = peer;
		hops++;
	}
	CHECK_EQ(hops, want);
}

static void check_routes(const struct sm_fabric *f)
{
	unsigned int port;
	int s, node;
	uint16_t lid;

	for (s = 0; s < f->num_nodes; s++) {
		if (!sm_node_is_switch(&f->node[s]))
			continue;
		CHECK_EQ(f->node[s].lft_len, f->top_lid + 1u);
		CHECK_EQ(f->node[s].lft[0], SM_LFT_DROP);
		for (lid = 1; lid <= f->top_lid; lid++)
			if (sm_fabric_lid_owner(f, lid, &node, &port))
				check_route(f, s, lid, node, port);
	}
}

/* LIDs and routes for @f, then the checks. */
static void assign_and_route(struct sm_fabric *f, struct sm_lidmap *m)
{
	CHECK_EQ(sm_lids_assign(f, m), 0);
	check_lids(f);
	CHECK_EQ(sm_route_minhop(f), 0);
	check_routes(f);
}

/*
 * Send a packet from member @from along the MFTs: every other member
 * gets it once, no other port gets it, and no switch sees it twice.
 */
static void check_flood(const struct sm_fabric *f, const struct sm_mft *mft,
			const struct sm_mcast_member *m, unsigned int n,
			unsigned int from)
{
	int *queue = calloc(f->num_nodes + 1, sizeof(*queue));
	unsigned int *in = calloc(f->num_nodes + 1, sizeof(*in));
	char *seen = calloc(f->num_nodes + 1, 1);
	unsigned int got[64] = { 0 }, i, q;
	int head = 0, tail = 0, s, peer, member;

	s = switch_of(f, m[from].node, m[from].port);
	queue[tail++] = s;
	in[s] = f->node[m[from].node].port[m[from].port].peer_port;
	seen[s] = 1;
	while (head < tail) {
		s = queue[head++];
		for (q = 1; q <= f->node[s].num_ports; q++) {
			if (q == in[s] || !sm_mft_has(&mft[s], q))
				continue;
			peer = f->node[s].port[q].peer;
			CHECK(peer != SM_NONE);
			if (peer == SM_NONE)
				continue;
			if (sm_node_is_switch(&f->node[peer])) {
				CHECK(!seen[peer]);
				if (seen[peer])
					continue;
				seen[peer] = 1;
				in[peer] = f->node[s].port[q].peer_port;
				queue[tail++] = peer;
				continue;
			}
			for (member = -1, i = 0; i < n; i++)
				if (m[i].node == peer &&
				    m[i].port == f->node[s].port[q].peer_port)
					member = i;
			CHECK(member >= 0);
			if (member >= 0)
				got[member]++;
		}
	}
	for (i = 0; i < n; i++)
		CHECK_EQ(got[i], i == from ? 0 : 1);
	free(queue);
	free(in);
	free(seen);
}

/* A group of the CAs @cas (their port 1): its tree, checked from each. */
static void check_group(const struct sm_fabric *f, const int *cas,
			unsigned int n)
{
	struct sm_mcast_member m[64] = { { 0 } };
	struct sm_mft *mft = calloc(f->num_nodes, sizeof(*mft));
	unsigned int i;

	for (i = 0; i < n; i++) {
		m[i].node = cas[i];
		m[i].port = 1;
	}
	CHECK_EQ(sm_mcast_tree(f, m, n, mft), 0);
	for (i = 0; i < n; i++)
		check_flood(f, mft, m, n, i);
	free(mft);
}

/* The CAs of @f, in @cas; return: how many. */
static unsigned int cas_of(const struct sm_fabric *f, int *cas,
			   unsigned int max)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < f->num_nodes && n < max; i++)
		if (f->node[i].type == SM_NODE_CA)
			cas[n++] = i;
	return n;
}

static void test_model(void)
{
	struct sm_fabric f;
	int sw, ca, other;

	sm_fabric_init(&f);
	sw = add(&f, SM_NODE_SWITCH, 4);
	ca = add(&f, SM_NODE_CA, 2);
	CHECK_EQ(sm_fabric_add(&f, f.node[sw].guid, SM_NODE_CA, 1), -EEXIST);
	CHECK_EQ(sm_fabric_add(&f, 1, SM_NODE_CA, 0), -EINVAL);
	CHECK_EQ(sm_fabric_add(&f, 1, SM_NODE_CA, 255), -EINVAL);
	CHECK_EQ(sm_fabric_add(&f, 1, 7, 1), -EINVAL);
	CHECK_EQ(sm_fabric_find(&f, f.node[ca].guid), ca);
	CHECK_EQ(sm_fabric_find(&f, 12345), SM_NONE);
	CHECK_EQ(sm_fabric_link(&f, ca, 1, sw, 2), 0);
	CHECK_EQ(sm_fabric_link(&f, ca, 1, sw, 2), 0);	/* seen again */
	CHECK_EQ(sm_fabric_link(&f, ca, 1, sw, 3), -EINVAL);	/* taken */
	CHECK_EQ(sm_fabric_link(&f, ca, 3, sw, 3), -EINVAL);	/* no port 3 */
	CHECK_EQ(sm_fabric_link(&f, sw, 0, ca, 2), -EINVAL);	/* port 0 */
	CHECK_EQ(sm_fabric_link(&f, sw, 1, sw, 1), -EINVAL);
	other = add(&f, SM_NODE_SWITCH, 2);
	CHECK_EQ(sm_fabric_link(&f, other, 1, sw, 1), 0);
	CHECK_EQ(sm_route_hops(&f, sw, other), 1);
	CHECK_EQ(sm_route_hops(&f, sw, ca), -1);
	sm_fabric_free(&f);
}

static void test_mesh(void)
{
	struct sm_fabric f;
	struct sm_lidmap m;
	int cas[16];
	unsigned int n;

	sm_fabric_init(&f);
	sm_lidmap_init(&m);
	build_mesh(&f, 3);
	assign_and_route(&f, &m);
	/* 3 switches and 3 CAs: LIDs 1 to 6. */
	CHECK_EQ(f.top_lid, 6);
	n = cas_of(&f, cas, 16);
	CHECK_EQ(n, 3);
	check_group(&f, cas, n);
	check_group(&f, cas, 1);
	check_group(&f, cas + 1, 2);
	sm_fabric_free(&f);
	sm_fabric_init(&f);
	build_mesh(&f, 16);
	assign_and_route(&f, &m);
	n = cas_of(&f, cas, 16);
	check_group(&f, cas, n);
	sm_fabric_free(&f);
	sm_lidmap_free(&m);
}

/*
 * On each leaf (a switch with a CA on port 1), the LIDs routed up spread
 * evenly over the uplinks.
 */
static void check_balance(const struct sm_fabric *f, int cas, int up)
{
	unsigned int lo, hi, p, load;
	int i, peer;

	for (i = 0; i < f->num_nodes; i++) {
		peer = f->node[i].port[1].peer;
		if (!sm_node_is_switch(&f->node[i]) || peer == SM_NONE ||
		    f->node[peer].type != SM_NODE_CA)
			continue;
		lo = ~0u;
		hi = 0;
		for (p = cas + 1; p <= (unsigned int)(cas + up); p++) {
			load = f->node[i].load[p];
			lo = load < lo ? load : lo;
			hi = load > hi ? load : hi;
		}
		CHECK(hi - lo <= 1);
		CHECK(lo > 0);
	}
}

static void test_fat_tree(void)
{
	struct sm_fabric f;
	struct sm_lidmap m;
	int cas[64];
	unsigned int n;

	sm_fabric_init(&f);
	sm_lidmap_init(&m);
	build_fat_tree(&f, 4, 2, 4, 1);
	assign_and_route(&f, &m);
	check_balance(&f, 4, 2);
	n = cas_of(&f, cas, 64);
	CHECK_EQ(n, 16);
	check_group(&f, cas, n);
	check_group(&f, cas, 3);	/* all behind one leaf */
	check_group(&f, cas + 3, 2);	/* across two leaves */
	sm_fabric_free(&f);
	sm_lidmap_free(&m);

	/* Two links from each leaf to each spine: 4 uplinks share. */
	sm_fabric_init(&f);
	sm_lidmap_init(&m);
	build_fat_tree(&f, 4, 2, 4, 2);
	assign_and_route(&f, &m);
	check_balance(&f, 4, 4);
	n = cas_of(&f, cas, 64);
	check_group(&f, cas, n);
	sm_fabric_free(&f);
	sm_lidmap_free(&m);
}

static void test_ring_and_pairs(void)
{
	struct sm_fabric f;
	struct sm_lidmap m;
	struct sm_mcast_member g[2];
	struct sm_mft mft[4];
	int cas[16], a, b;
	unsigned int n;

	sm_fabric_init(&f);
	sm_lidmap_init(&m);
	build_ring(&f, 6);
	assign_and_route(&f, &m);
	n = cas_of(&f, cas, 16);
	check_group(&f, cas, n);
	sm_fabric_free(&f);
	sm_lidmap_free(&m);

	/* Two CAs back to back: LIDs, but no switch to route or fork. */
	sm_fabric_init(&f);
	sm_lidmap_init(&m);
	a = add(&f, SM_NODE_CA, 2);
	b = add(&f, SM_NODE_CA, 2);
	CHECK_EQ(sm_fabric_link(&f, a, 1, b, 2), 0);
	assign_and_route(&f, &m);
	CHECK_EQ(f.top_lid, 2);
	g[0].node = a;
	g[0].port = 1;
	g[1].node = b;
	g[1].port = 2;
	CHECK_EQ(sm_mcast_tree(&f, g, 2, mft), -EINVAL);
	sm_fabric_free(&f);
	sm_lidmap_free(&m);
}

/* Two islands: each switch drops the other island's LIDs. */
static void test_islands(void)
{
	struct sm_mcast_member g[2];
	struct sm_mft mft[8];
	struct sm_fabric f;
	struct sm_lidmap m;
	int s1, s2;

	sm_fabric_init(&f);
	sm_lidmap_init(&m);
	s1 = add(&f, SM_NODE_SWITCH, 2);
	s2 = add(&f, SM_NODE_SWITCH, 2);
	g[0].node = add_ca(&f, s1, 1);
	g[1].node = add_ca(&f, s2, 1);
	g[0].port = g[1].port = 1;
	assign_and_route(&f, &m);
	CHECK_EQ(f.node[s1].lft[f.node[g[1].node].port[1].lid], SM_LFT_DROP);
	CHECK_EQ(sm_mcast_tree(&f, g, 2, mft), -EHOSTUNREACH);
	sm_fabric_free(&f);
	sm_lidmap_free(&m);
}

/* The LID of @guid's node's port @p in @f. */
static uint16_t lid_of(const struct sm_fabric *f, uint64_t guid, unsigned int p)
{
	int i = sm_fabric_find(f, guid);

	return i < 0 ? 0 : f->node[i].port[p].lid;
}

static void test_lid_stability(void)
{
	uint64_t guids[8], port_guid[8];
	struct sm_lidmap m, m2;
	struct sm_fabric f;
	unsigned int bad = 0, i;
	uint16_t lids[8];
	FILE *file;
	int sw;

	sm_lidmap_init(&m);
	sm_fabric_init(&f);
	next_guid = 0x100;
	build_mesh(&f, 4);
	CHECK_EQ(sm_lids_assign(&f, &m), 0);
	for (i = 0; i < 8; i++) {
		guids[i] = f.node[i].guid;
		port_guid[i] = f.node[i].port[i < 4 ? 0 : 1].guid;
		lids[i] = lid_of(&f, guids[i], i < 4 ? 0 : 1);
	}
	/* A second sweep: the same LIDs. */
	CHECK_EQ(sm_lids_assign(&f, &m), 0);
	for (i = 0; i < 8; i++)
		CHECK_EQ(lid_of(&f, guids[i], i < 4 ? 0 : 1), lids[i]);
	/* A CA leaves, another takes its port: the others keep their LIDs. */
	sm_fabric_free(&f);
	sm_fabric_init(&f);
	next_guid = 0x100;
	build_mesh(&f, 4);
	f.node[5].guid = 0x999;		/* another CA in its place */
	f.node[5].port[1].guid = 0x9999;
	CHECK_EQ(sm_lids_assign(&f, &m), 0);
	check_lids(&f);
	for (i = 0; i < 8; i++)
		if (i != 5)
			CHECK_EQ(lid_of(&f, guids[i], i < 4 ? 0 : 1), lids[i]);
	/* The newcomer got a new LID: the one that left keeps its own. */
	CHECK_EQ(f.node[5].port[1].lid, 9);
	CHECK_EQ(sm_lidmap_get(&m, port_guid[5]), lids[5]);
	CHECK_EQ(f.top_lid, 9);

	/* Restart: the map through its file gives the same LIDs. */
	file = tmpfile();
	CHECK_EQ(sm_lidmap_write(&m, file), 0);
	rewind(file);
	sm_lidmap_init(&m2);
	CHECK_EQ(sm_lidmap_read(&m2, file, &bad), 0);
	fclose(file);
	CHECK_EQ(m2.len, m.len);
	for (i = 0; i < m.len; i++)
		CHECK_EQ(sm_lidmap_get(&m2, m.guid[i]), m.lid[i]);
	/* A LID the file gives two GUIDs: the later line wins. */
	file = tmpfile();
	fputs("# comment\n\n0x10 0x5\n  0x11 5 5\n0x12 0x0007\n", file);
	rewind(file);
	sm_lidmap_free(&m2);
	CHECK_EQ(sm_lidmap_read(&m2, file, &bad), 0);
	fclose(file);
	CHECK_EQ(m2.len, 2);
	CHECK_EQ(sm_lidmap_get(&m2, 0x10), 0);
	CHECK_EQ(sm_lidmap_get(&m2, 0x11), 5);
	CHECK_EQ(sm_lidmap_get(&m2, 0x12), 7);
	sm_lidmap_free(&m2);
	sm_lidmap_free(&m);
	sm_fabric_free(&f);

	/* Bad files: the first bad line is named, nothing is taken. */
	{
		static const char *const bad_files[] = {
			"0x10 0x5\n0x11\n",		/* no LID */
			"0x10 0xc000\n",		/* multicast LID */
			"0x10 0\n",			/* LID 0 */
			"0 1\n",			/* GUID 0 */
			"0x10 1 junk\n",
			"0x10 9 8\n",			/* max below min */
			"zz 1\n",
		};
		static const unsigned int bad_at[] = { 2, 1, 1, 1, 1, 1, 1 };

		for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
			sm_lidmap_init(&m);
			sm_lidmap_set(&m, 0x77, 3);
			file = tmpfile();
			fputs(bad_files[i], file);
			rewind(file);
			bad = 0;
			CHECK_EQ(sm_lidmap_read(&m, file, &bad), -EINVAL);
			CHECK_EQ(bad, bad_at[i]);
			CHECK_EQ(m.len, 1);
			fclose(file);
			sm_lidmap_free(&m);
		}
	}

	/* A remembered LID that a present port holds is not given twice. */
	sm_lidmap_init(&m);
	sm_fabric_init(&f);
	sw = add(&f, SM_NODE_SWITCH, 4);
	add_ca(&f, sw, 1);
	add_ca(&f, sw, 2);
	CHECK_EQ(sm_lidmap_set(&m, f.node[1].port[1].guid, 4), 0);
	CHECK_EQ(sm_lidmap_set(&m, f.node[2].port[1].guid, 4), 0);
	CHECK_EQ(sm_lids_assign(&f, &m), 0);
	check_lids(&f);
	CHECK_EQ(f.node[2].port[1].lid, 4);
	sm_lidmap_free(&m);
	sm_fabric_free(&f);
}

static unsigned int rng = 4242;

static unsigned int next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/*
 * Random fabrics: a random tree of switches with extra links (parallel
 * ones too), CAs on random free ports, random groups.
 */
static void test_random(void)
{
	struct sm_fabric f;
	struct sm_lidmap m;
	int cas[64], sw[24], k, i, a, b, round;
	unsigned int n, used[24], g;

	for (round = 0; round < 40; round++) {
		sm_fabric_init(&f);
		sm_lidmap_init(&m);
		k = 2 + next_rand() % 20;
		for (i = 0; i < k; i++) {
			sw[i] = add(&f, SM_NODE_SWITCH, 12);
			used[i] = 0;
		}
		/*
		 * A tree (each switch to one of the 3 before it: at most 4
		 * tree ports each), then extra links, parallel ones too.
		 */
		for (i = 1; i < k + k / 2; i++) {
			a = i < k ? i : (int)(next_rand() % k);
			b = i < k ? i - 1 - (int)(next_rand() % (i < 3 ? i : 3)) :
			    (int)(next_rand() % k);
			if (a == b || (i >= k && (used[a] >= 8 || used[b] >= 8)))
				continue;
			CHECK_EQ(sm_fabric_link(&f, sw[a], ++used[a], sw[b],
						++used[b]), 0);
		}
		for (i = 0; i < k; i++)
			while (used[i] < 12 && next_rand() % 3)
				add_ca(&f, sw[i], ++used[i]);
		assign_and_route(&f, &m);
		n = cas_of(&f, cas, 64);
		if (n < 2)
			goto next;
		for (g = 0; g < 3; g++) {
			unsigned int size = 1 + next_rand() % n, j;
			int pick[64], t;

			memcpy(pick, cas, n * sizeof(*cas));
			for (j = 0; j < n; j++) {
				t = next_rand() % n;
				a = pick[j];
				pick[j] = pick[t];
				pick[t] = a;
			}
			check_group(&f, pick, size);
		}
next:
		sm_fabric_free(&f);
		sm_lidmap_free(&m);
	}
}

/* The model takes in SM_MAX_NODES nodes, and refuses the next one. */
static void test_node_cap(void)
{
	struct sm_fabric f;
	int i, r = 0;

	sm_fabric_init(&f);
	for (i = 0; i < SM_MAX_NODES && r >= 0; i++)
		r = sm_fabric_add(&f, 0x1000 + i, SM_NODE_CA, 1);
	CHECK_EQ(r, SM_MAX_NODES - 1);
	CHECK_EQ(sm_fabric_add(&f, 0x100000, SM_NODE_SWITCH, 8), -ENOSPC);
	CHECK_EQ(f.num_nodes, SM_MAX_NODES);
	sm_fabric_free(&f);
}

/*
 * Which ports' PortInfo a sweep reads: a CA's entry port; every port of a
 * switch, but of a pib switch (its VendorID) whose LinkedPorts came, port 0
 * and those linked; a switch of another vendor is never asked.
 */
static void test_ports_to_read(void)
{
	uint8_t map[PIB_SMP_LINKED_PORTS_LEN] = { 0 };
	struct sm_fabric f;
	unsigned int p, n;
	int sw, ca, other;
	uint8_t *v;

	sm_fabric_init(&f);
	sw = add(&f, SM_NODE_SWITCH, 128);
	other = add(&f, SM_NODE_SWITCH, 36);
	ca = add(&f, SM_NODE_CA, 2);
	f.node[ca].entry = 2;
	v = &f.node[sw].node_info[SM_NODE_INFO_VENDOR_ID];
	v[0] = v[1] = v[2] = 0xff;
	v = &f.node[ca].node_info[SM_NODE_INFO_VENDOR_ID];
	v[0] = v[1] = v[2] = 0xff;
	f.node[other].node_info[SM_NODE_INFO_VENDOR_ID] = 0x02;	/* (an OUI) */
	CHECK(sm_node_is_pib_switch(&f.node[sw]));
	CHECK(!sm_node_is_pib_switch(&f.node[other]));
	CHECK(!sm_node_is_pib_switch(&f.node[ca]));
	CHECK(!sm_port_to_read(&f.node[ca], 1));
	CHECK(sm_port_to_read(&f.node[ca], 2));
	/* No LinkedPorts (not read, or refused): every port. */
	for (p = 0, n = 0; p <= 128; p++)
		n += sm_port_to_read(&f.node[sw], p);
	CHECK_EQ(n, 129);
	/* Ports 0, 1 and 65..71 linked. */
	memset(f.node[sw].linked, 0, sizeof(f.node[sw].linked));
	f.node[sw].linked[0] = 0x03;
	f.node[sw].linked[8] = 0xfe;
	f.node[sw].linked_known = 1;
	/* The switch's way of writing it makes the same map. */
	for (p = 0; p <= 128; p++)
		if (p <= 1 || (p >= 65 && p <= 71))
			pib_smp_port_link(map, p);
	pib_smp_port_link(map, 8 * PIB_SMP_LINKED_PORTS_LEN);	/* (none) */
	CHECK(!memcmp(map, f.node[sw].linked, sizeof(map)));
	for (p = 0, n = 0; p <= 128; p++)
		n += sm_port_to_read(&f.node[sw], p);
	CHECK_EQ(n, 9);
	CHECK(sm_port_to_read(&f.node[sw], 0) && sm_port_to_read(&f.node[sw], 65) &&
	      sm_port_to_read(&f.node[sw], 71) && !sm_port_to_read(&f.node[sw], 64) &&
	      !sm_port_to_read(&f.node[sw], 72));
	CHECK(!pib_smp_port_linked(f.node[sw].linked, 8 * PIB_SMP_LINKED_PORTS_LEN));
	for (p = 0, n = 0; p <= 36; p++)
		n += sm_port_to_read(&f.node[other], p);
	CHECK_EQ(n, 37);
	sm_fabric_free(&f);
}

/*
 * The pace of heavy sweeps for traps: a host that goes and comes back (a
 * few traps in a row) is swept at once each time; a storm of traps, a
 * trap every 10 ms for a minute, costs a sweep a second and the burst.
 */
static void test_sweep_pace(void)
{
	uint64_t due = 0, now = 100000, storm = 200000, end = storm + 60000;
	unsigned int sweeps = 0, k;

	for (k = 0; k < 3; k++) {
		CHECK(sm_sweep_soonest(due) <= now);	/* at once */
		due = sm_sweep_paced(due, now);
		now += 300;				/* (a sweep's time) */
	}
	for (now = storm; now < end; now += 10) {
		if (sm_sweep_soonest(due) > now)
			continue;
		due = sm_sweep_paced(due, now);
		sweeps++;
	}
	CHECK(sweeps >= 60 && sweeps <= 60 + 3);
	/* After the storm, the pace comes back to a burst within seconds. */
	now = end + SM_SWEEP_BURST_MS + SM_SWEEP_PACE_MS;
	for (k = 0; k < 3; k++) {
		CHECK(sm_sweep_soonest(due) <= now);
		due = sm_sweep_paced(due, now);
	}
	CHECK(sm_sweep_soonest(due) > now);
}

/*
 * SMPs' waits follow their round trips: 4 of them and SM_SMP_SLACK_MS,
 * never more than -t, which is the wait while no answer has come; a long
 * sample (a resent SMP's) moves the average an eighth of the way.
 */
/*
 * After a sweep whose SMPs failed, the next comes soon (a device still
 * coming up answers a moment later), a few times, then at the sweeps'
 * pace; never later than the interval, which a sweep with no failure
 * waits.
 */
static void test_sweep_retry(void)
{
	uint64_t now = 100000, due = 0, next;
	unsigned int k, soon = 0;

	CHECK_EQ(sm_sweep_next(due, now, 2000, 0), now + 2000);
	for (k = 0; k < 20; k++) {
		due = sm_sweep_paced(due, now);
		next = sm_sweep_next(due, now + 50, 2000, 1);
		CHECK(next >= now + 50 + SM_SWEEP_RETRY_MS && next <= now + 50 + 2000);
		soon += next == now + 50 + SM_SWEEP_RETRY_MS;
		now = next;
	}
	CHECK(soon >= 2 && soon <= 4);
	/* Failing for ever: about a sweep a second, not one per retry. */
	CHECK(now - 100000 >= 20 * (SM_SWEEP_PACE_MS - 300));
}

static void test_smp_timeout(void)
{
	unsigned int rtt = 0, k;

	CHECK(sm_smp_timeout(0, 500) == 500);
	rtt = sm_rtt_update(rtt, 0);
	CHECK(rtt == 1);
	for (k = 0; k < 100; k++)
		rtt = sm_rtt_update(rtt, 10);
	CHECK(rtt >= 6 && rtt <= 14);
	CHECK(sm_smp_timeout(rtt, 500) <= 4 * 14 + SM_SMP_SLACK_MS);
	CHECK(sm_smp_timeout(rtt, 60) == 60);
	rtt = sm_rtt_update(rtt, 1500);
	CHECK(rtt > 150 && rtt < 250);
	CHECK(sm_smp_timeout(rtt, 500) == 500);
	for (k = 0; k < 100; k++)
		rtt = sm_rtt_update(rtt, 10);
	CHECK(rtt >= 6 && rtt <= 14);
	CHECK(sm_rtt_update(rtt, 0) >= 1);
	CHECK(sm_rtt_update(1, 0) == 1);
}

int main(void)
{
	test_model();
	test_node_cap();
	test_ports_to_read();
	test_mesh();
	test_fat_tree();
	test_ring_and_pairs();
	test_islands();
	test_lid_stability();
	test_random();
	test_sweep_pace();
	test_sweep_retry();
	test_smp_timeout();
	return unit_done("test_sm");
}
