// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_sa: pib-sm's Subnet Administrator (userspace-sm/sm_sa.h: sm_sa.c,
 * sm_sa_path.c, sm_mcg.c, sm_sa_svc.c), pure logic compiled on the host,
 * no shim. The subnet is fixed (built once): three switches in a row,
 * S0 - S1 - S2, each with a CA on port 1 (the SM on CA 0), S1 - S2 at MTU
 * 1024, CA 1's link at 2048, the others at 4096; and three variants of
 * it (so that the subnet's MTU changes too) a sweep may
 * find instead: without CA 1, without CA 2, without S2 and CA 2 (LIDs
 * stay those of the full subnet, as the LID map keeps them). Each run
 * starts a new SA after a first sweep of the full subnet (its ports, the
 * IPoIB broadcast group) and hands it MADs one after another, so that
 * joins, services and subscriptions change what later MADs see.
 *
 * Input: records of
 *	flags	bits 0-1: the requester: 0 unknown, 1-3 CA 0-2 (its LID,
 *		QP 1); with bit 7 and 0: an address with LID 0;
 *		bit 2: a length byte follows (the MAD is 2 * it bytes long,
 *		else 256); bit 3: a time byte follows (sm_sa_tick() that
 *		many seconds later, before the MAD);
 *		bit 6: after the MAD, a sweep finds subnet bits 4-5 (0 the
 *		full one, 1 no CA 1, 2 no CA 2, 3 no S2 and CA 2), as pib-sm
 *		then calls sm_sa_rereg_note(), sm_sa_ports_update(),
 *		sm_sa_ipoib_bcast() and reads the groups' members; bit 7
 *		with bit 6: some of the sweep's SMPs failed (keep_missed)
 *	[length] [time]
 *	the MAD (exactly as many bytes as its length: ASan sees past it)
 * at most SA_MAX_RECORDS of them.
 *
 * What must hold (sm_sa.h): an answer is due unless the MAD is shorter
 * than its common header, of another class, a response or TrapRepress;
 * it is at least the SA header long, one 256-byte MAD or an RMPP
 * GetTableResp whose PayloadLength and AttributeOffset describe it,
 * with the request's TID, attribute and modifier, class 3 version 2,
 * SM_Key 0 and the request method's response method. The SA's tables
 * stay within their bounds, Reports are Report(Notice) MADs, and the
 * members of every MLID are ports of the subnet.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/sm_fixture.h"
#include "fuzz_check.h"
#include "sm_sa.h"
#include "sm_sa_int.h"

#define SA_MAX_RECORDS	32
#define SA_PREFIX	0xfe80000000000000ULL
#define SW_GUID(i)	(0x0002c90300001000ULL + (i))
#define CA_GUID(i)	(0x0002c90300002000ULL + (i))
#define CA_PORT(i)	(0x0002c90300003000ULL + (i))
#define NFABRICS	4

/* The subnets a sweep may find, built once; fabric[0] is the full one. */
static struct sm_fabric fabric[NFABRICS];
static uint16_t ca_lid[3];

/* The fuzz input, read front to back; past its end it reads as zeros. */
struct sa_in {
	const uint8_t *p;
	size_t n;
};

static uint8_t in_u8(struct sa_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static void in_bytes(struct sa_in *in, uint8_t *dst, size_t len)
{
	size_t n = len < in->n ? len : in->n;

	memcpy(dst, in->p, n);
	memset(dst + n, 0, len - n);
	in->p += n;
	in->n -= n;
}

static void link_ports(struct sm_fabric *f, int a, unsigned int pa, int b,
		       unsigned int pb, unsigned int mtu)
{
	FUZZ_CHECK(!fixture_link(f, a, pa, b, pb, mtu));
}

/* Fabric @v: 0 all, 1 no CA 1, 2 no CA 2, 3 no S2 and no CA 2. */
static void build(struct sm_fabric *f, struct sm_lidmap *lids, int v)
{
	int i, sw[3] = { -1, -1, -1 }, ca;

	sm_fabric_init(f);
	for (i = 0; i < 3; i++) {
		if (v == 3 && i == 2)
			continue;
		sw[i] = sm_fabric_add(f, SW_GUID(i), SM_NODE_SWITCH, 3);
		FUZZ_CHECK(sw[i] >= 0);
		f->node[sw[i]].port[0].guid = SW_GUID(i);
		f->node[sw[i]].port[0].state = 4;
		snprintf((char *)f->node[sw[i]].node_desc, SM_NODE_DESC_LEN,
			 "switch %d", i);
		f->node[sw[i]].switch_info[7] = 0x42;	/* LinearFDBTop */
	}
	for (i = 0; i < 3; i++) {
		if ((v == 1 && i == 1) || (v >= 2 && i == 2))
			continue;
		ca = sm_fabric_add(f, CA_GUID(i), SM_NODE_CA, 1);
		FUZZ_CHECK(ca >= 0);
		f->node[ca].port[1].guid = CA_PORT(i);
		f->node[ca].node_info[0] = 1;
		f->node[ca].node_info[1] = 1;
		snprintf((char *)f->node[ca].node_desc, SM_NODE_DESC_LEN,
			 "host%d mlx", i);
		link_ports(f, ca, 1, sw[i], 1, i == 1 ? 4 : 5);
	}
	link_ports(f, sw[0], 2, sw[1], 3, 5);
	if (sw[2] >= 0)
		link_ports(f, sw[1], 2, sw[2], 3, 3);
	FUZZ_CHECK(!sm_lids_assign(f, lids));
	FUZZ_CHECK(!sm_route_minhop(f));
}

static void build_all(void)
{
	struct sm_lidmap lids;
	unsigned int port;
	int v, i, node;

	sm_lidmap_init(&lids);
	for (v = 0; v < NFABRICS; v++)
		build(&fabric[v], &lids, v);
	sm_lidmap_free(&lids);
	for (i = 0; i < 3; i++) {
		node = sm_fabric_find(&fabric[0], CA_GUID(i));
		FUZZ_CHECK(node >= 0);
		ca_lid[i] = fabric[0].node[node].port[1].lid;
		FUZZ_CHECK(ca_lid[i]);
	}
	/* LIDs are stable: a port has its LID in every variant. */
	for (v = 1; v < NFABRICS; v++)
		for (i = 0; i < 3; i++) {
			node = sm_fabric_find(&fabric[v], CA_GUID(i));
			if (node >= 0)
				FUZZ_CHECK(fabric[v].node[node].port[1].lid ==
					   ca_lid[i]);
		}
	FUZZ_CHECK(sm_fabric_lid_owner(&fabric[0], ca_lid[0], &node, &port));
}

/* The answer to @req (@len bytes), as sm_sa.h says it is. */
static void check_answer(const uint8_t *req, size_t len, int ret,
			 const uint8_t *resp, size_t resp_len)
{
	uint8_t method, want;
	unsigned int stride;
	int none;

	FUZZ_CHECK(ret == 0 || ret == -ENOMEM);
	if (ret) {
		FUZZ_CHECK(!resp);
		return;
	}
	none = len < 24 || req[1] != 3 || req[3] & 0x80 || req[3] == 0x07;
	FUZZ_CHECK(none == !resp);
	if (!resp)
		return;
	FUZZ_CHECK(resp_len >= SM_SA_HDR_LEN);
	FUZZ_CHECK(resp_len == SM_SA_MAD_LEN || (resp[26] & 1));
	FUZZ_CHECK(!memcmp(resp + 8, req + 8, 8));		/* TID */
	FUZZ_CHECK(!memcmp(resp + 16, req + 16, 8));	/* attribute, mod */
	FUZZ_CHECK(resp[1] == 3 && resp[2] == 2);
	FUZZ_CHECK(!memcmp(resp + 36, (uint8_t[8]){ 0 }, 8));	/* SM_Key */
	method = req[3];
	want = method == 0x01 || method == 0x02 ? 0x81 : method | 0x80;
	FUZZ_CHECK(resp[3] & 0x80);
	FUZZ_CHECK(resp[3] == want);
	if (!(resp[26] & 1)) {
		/* One MAD: no RMPP header. */
		FUZZ_CHECK(resp_len == SM_SA_MAD_LEN);
		FUZZ_CHECK(!memcmp(resp + 24, (uint8_t[12]){ 0 }, 12));
		return;
	}
	/* A GetTableResp: one RMPP segment that holds every record. */
	FUZZ_CHECK(method == 0x12 && resp[3] == 0x92);
	FUZZ_CHECK(be16(resp + 4) == 0);
	FUZZ_CHECK(resp[24] == 1 && resp[25] == 1 && resp[26] == 7);
	FUZZ_CHECK(be32(resp + 28) == 1);
	FUZZ_CHECK(be32(resp + 32) == 20 + resp_len - SM_SA_HDR_LEN);
	stride = be16(resp + 44) * 8u;
	FUZZ_CHECK(stride > 0 && stride <= SM_SA_DATA_LEN);
	FUZZ_CHECK((resp_len - SM_SA_HDR_LEN) % stride == 0);
	FUZZ_CHECK((resp_len - SM_SA_HDR_LEN) / stride <= SM_SA_MAX_RECORDS);
}

/* The SA's own tables stay within their bounds. */
static void check_sa(const struct sm_sa *sa)
{
	const struct sm_sa_group *g, *h;
	unsigned int i, k, j;

	FUZZ_CHECK(sa->ngroups <= SM_SA_MAX_GROUPS);
	FUZZ_CHECK(sa->nsvc <= SM_SA_MAX_SERVICES);
	FUZZ_CHECK(sa->nsub <= SM_SA_MAX_SUBS);
	FUZZ_CHECK(sa->mlid_top < SM_SA_MLID_BASE + SM_SA_MAX_GROUPS);
	FUZZ_CHECK(sa->errors <= sa->requests);
	for (i = 0; i < sa->ngroups; i++) {
		g = &sa->group[i];
		FUZZ_CHECK(g->mlid >= SM_SA_MLID_BASE && g->mlid <= sa->mlid_top);
		FUZZ_CHECK(g->n <= g->cap && g->n <= SM_SA_MAX_MEMBERS);
		FUZZ_CHECK(g->mtu >= 1 && g->mtu <= 5);
		for (k = 0; k < g->n; k++) {
			FUZZ_CHECK(g->member[k].join_state &&
				   !(g->member[k].join_state & 0xf0));
			for (j = k + 1; j < g->n; j++)
				FUZZ_CHECK(g->member[j].guid !=
					   g->member[k].guid);
		}
		for (k = i + 1; k < sa->ngroups; k++) {
			h = &sa->group[k];
			FUZZ_CHECK(h->mlid != g->mlid);
			FUZZ_CHECK(memcmp(h->mgid, g->mgid, SM_SA_GID_LEN));
		}
	}
}

/* @guid is an end port of @f (a switch's port 0, or a CA's port). */
static int in_fabric(const struct sm_fabric *f, uint64_t guid)
{
	unsigned int port;
	int node;

	return sm_sa_guid_port(f, guid, &node, &port);
}

/*
 * The ports the SA owes a ClientReregister are end ports of @f; those it
 * keeps are of @f, or were missed by at most SM_SA_PORT_GRACE sweeps.
 */
static void check_ports(const struct sm_sa *sa, const struct sm_fabric *f)
{
	unsigned int i;

	for (i = 0; i < sa->nrereg; i++)
		FUZZ_CHECK(in_fabric(f, sa->rereg[i]));
	for (i = 0; i < sa->nports; i++)
		FUZZ_CHECK(sa->port[i].missed <= SM_SA_PORT_GRACE &&
			   (sa->port[i].missed ||
			    in_fabric(f, sa->port[i].guid)));
}

/*
 * What pib-sm does after a sweep that found @f, @failed if some of its
 * SMPs failed.
 */
static void sweep(struct sm_sa *sa, const struct sm_fabric *f, int failed)
{
	struct sm_mcast_member m[8];
	struct sm_sa_report *rep;
	unsigned int n, i, k;
	uint16_t mlid, top;
	struct sm_mft *mft;
	int r;

	r = sm_sa_rereg_note(sa, f);
	FUZZ_CHECK(r == 0 || r == -ENOMEM);
	sa->keep_missed = failed;
	r = sm_sa_ports_update(sa, f, ca_lid[0], &rep, &n);
	if (!r)
		check_ports(sa, f);
	FUZZ_CHECK(r == 0 || r == -ENOMEM);
	FUZZ_CHECK(r == 0 || (!rep && !n));
	FUZZ_CHECK(n <= 2u * SM_SA_MAX_SUBS * 8);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(rep[i].len == SM_SA_MAD_LEN);
		FUZZ_CHECK(rep[i].mad[0] == 1 && rep[i].mad[1] == 3 &&
			   rep[i].mad[2] == 2 && rep[i].mad[3] == 0x06);
		FUZZ_CHECK(be16(rep[i].mad + 16) == 0x0002);
		FUZZ_CHECK(rep[i].qkey == SM_SA_QP1_QKEY);
		FUZZ_CHECK(rep[i].mad[56] == 0x83);	/* generic, SM */
		FUZZ_CHECK(be16(rep[i].mad + 56 + 4) == 64 ||
			   be16(rep[i].mad + 56 + 4) == 65);
	}
	free(rep);
	r = sm_sa_ipoib_bcast(sa, f);
	FUZZ_CHECK(r == 0 || r == -ENOSPC || r == -ENOMEM);
	check_sa(sa);
	if (!sm_sa_mcast_dirty(sa))
		return;
	FUZZ_CHECK(!sm_sa_mcast_dirty(sa));
	top = sm_sa_mlid_top(sa);
	FUZZ_CHECK(!top || top >= SM_SA_MLID_BASE);
	mft = calloc(f->num_nodes, sizeof(*mft));
	FUZZ_CHECK(mft);
	for (mlid = SM_SA_MLID_BASE; top && mlid <= top; mlid++) {
		n = sm_sa_mlid_members(sa, f, mlid, m, 8);
		FUZZ_CHECK(n <= 8);
		for (k = 0; k < n; k++) {
			FUZZ_CHECK(m[k].node >= 0 && m[k].node < f->num_nodes);
			FUZZ_CHECK(m[k].port >= 1 &&
				   m[k].port <= f->node[m[k].node].num_ports);
			FUZZ_CHECK(f->node[m[k].node].type != SM_NODE_SWITCH);
		}
		if (n) {
			memset(mft, 0, f->num_nodes * sizeof(*mft));
			FUZZ_CHECK(!sm_mcast_tree(f, m, n, mft));
		}
	}
	free(mft);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int built;
	struct sa_in in = { data, size };
	const struct sm_fabric *f = &fabric[0];
	struct sm_sa_addr addr;
	uint64_t now = 0;
	struct sm_sa sa;
	unsigned int n;

	if (!built) {
		build_all();
		built = 1;
	}
	FUZZ_CHECK(!sm_sa_init(&sa, SA_PREFIX));
	sweep(&sa, f, 0);
	for (n = 0; in.n && n < SA_MAX_RECORDS; n++) {
		uint8_t flags = in_u8(&in), *req;
		size_t len = flags & 4 ? 2u * in_u8(&in) : SM_SA_MAD_LEN;
		/* Not NULL: sm_sa_handle() must set both, always. */
		uint8_t *resp = (uint8_t *)1;
		size_t resp_len = 1;
		int ret;

		if (flags & 8) {
			now += in_u8(&in);
			sm_sa_tick(&sa, now);
		}
		req = malloc(len ? len : 1);
		FUZZ_CHECK(req);
		in_bytes(&in, req, len);
		addr.lid = flags & 3 ? ca_lid[(flags & 3) - 1] : 0;
		addr.qpn = 1;
		ret = sm_sa_handle(&sa, f, ca_lid[0],
				   flags & 3 || flags & 0x80 ? &addr : NULL,
				   req, len, &resp, &resp_len);
		check_answer(req, len, ret, resp, resp_len);
		free(resp);
		free(req);
		check_sa(&sa);
		if (flags & 0x40) {
			f = &fabric[flags >> 4 & 3];
			sweep(&sa, f, flags >> 7);
		}
	}
	sm_sa_free(&sa);
	return 0;
}
