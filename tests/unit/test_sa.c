// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of pib-sm's SA (userspace-sm/sm_sa.h) on a fabric built by
 * hand: three switches in a row, S0 - S1 - S2, each with a CA on port 1;
 * the link S1 - S2 runs at MTU 1024, every other at 4096; all links 4x
 * QDR. Requests are built byte by byte as a client sends them, and each
 * check is on what the client would read in the answer.
 */
#include <stdlib.h>
#include <string.h>

#include "sm_fixture.h"
#include "sm_sa.h"
#include "unit.h"

#define PREFIX		0xfe80000000000000ULL
#define SW_GUID(i)	(0x0002c90300001000ULL + (i))
#define CA_GUID(i)	(0x0002c90300002000ULL + (i))
#define CA_PORT(i)	(0x0002c90300003000ULL + (i))

/* Methods, attributes, statuses as on the wire. */
enum {
	GET = 0x01, SET = 0x02, GET_TABLE = 0x12, DELETE = 0x15,
	CPI = 0x0001, INFORM = 0x0003, NR = 0x0011, PIR = 0x0012,
	SWIR = 0x0014, LR = 0x0020, SR = 0x0031, PR = 0x0035, MCMR = 0x0038,
	IIR = 0x00f3,
	ST_NO_RESOURCES = 0x0100, ST_INVALID = 0x0200, ST_NO_RECORDS = 0x0300,
	ST_TOO_MANY = 0x0400, ST_INVALID_GID = 0x0500, ST_INSUFFICIENT = 0x0600,
	ST_DENIED = 0x0700,
};

/* PathRecord and MCMemberRecord component-mask bits (IBA 15.2.5). */
#define PR_SERVICE_ID	(3ULL << 0)
#define PR_DGID		(1ULL << 2)
#define PR_SGID		(1ULL << 3)
#define PR_DLID		(1ULL << 4)
#define PR_SLID		(1ULL << 5)
#define PR_REVERSIBLE	(1ULL << 11)
#define PR_NUMB_PATH	(1ULL << 12)
#define PR_PKEY		(1ULL << 13)
#define PR_QOS_CLASS	(1ULL << 14)
#define PR_MTU_SEL	(1ULL << 16)
#define PR_MTU		(1ULL << 17)
#define MC_MGID		(1ULL << 0)
#define MC_PORT_GID	(1ULL << 1)
#define MC_QKEY		(1ULL << 2)
#define MC_MTU_SEL	(1ULL << 4)
#define MC_MTU		(1ULL << 5)
#define MC_TCLASS	(1ULL << 6)
#define MC_PKEY		(1ULL << 7)
#define MC_RATE_SEL	(1ULL << 8)
#define MC_RATE		(1ULL << 9)
#define MC_SL		(1ULL << 12)
#define MC_FLOW		(1ULL << 13)
#define MC_HOP		(1ULL << 14)
#define MC_JOIN_STATE	(1ULL << 16)
/* IPoIB's joins (ipoib_multicast.c ipoib_mcast_join()). */
#define IPOIB_BCAST_MASK (MC_MGID | MC_PORT_GID | MC_PKEY | MC_JOIN_STATE)
#define IPOIB_MASK	(IPOIB_BCAST_MASK | MC_QKEY | MC_MTU_SEL | MC_MTU | \
			 MC_TCLASS | MC_RATE_SEL | MC_RATE | MC_SL | MC_FLOW | \
			 MC_HOP)

static struct sm_fabric fab;
static struct sm_lidmap lids;
static struct sm_sa sa;
static int sw[3], ca[3];
static uint64_t next_tid = 0x1234;

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static void put_gid(uint8_t *p, uint64_t guid)
{
	put64(p, PREFIX);
	put64(p + 8, guid);
}

static void link(int a, unsigned int pa, int b, unsigned int pb,
		 unsigned int mtu)
{
	CHECK_EQ(fixture_link(&fab, a, pa, b, pb, mtu), 0);
}

/* S0 - S1 - S2 (S1 - S2 at 1024), CA i on port 1 of S i (no CA 2
 * unless @with_ca2). */
static void build(int with_ca2)
{
	int i;

	sm_fabric_init(&fab);
	for (i = 0; i < 3; i++) {
		sw[i] = sm_fabric_add(&fab, SW_GUID(i), SM_NODE_SWITCH, 3);
		fab.node[sw[i]].port[0].guid = SW_GUID(i);
		fab.node[sw[i]].port[0].state = 4;
		snprintf((char *)fab.node[sw[i]].node_desc, SM_NODE_DESC_LEN,
			 "switch %d", i);
		fab.node[sw[i]].switch_info[7] = 0x42;	/* LinearFDBTop */
	}
	for (i = 0; i < 3; i++) {
		ca[i] = -1;
		if (i == 2 && !with_ca2)
			continue;
		ca[i] = sm_fabric_add(&fab, CA_GUID(i), SM_NODE_CA, 1);
		fab.node[ca[i]].port[1].guid = CA_PORT(i);
		fab.node[ca[i]].node_info[0] = 1;
		fab.node[ca[i]].node_info[1] = 1;
		snprintf((char *)fab.node[ca[i]].node_desc, SM_NODE_DESC_LEN,
			 "host%d mlx", i);
		link(ca[i], 1, sw[i], 1, 5);
	}
	link(sw[0], 2, sw[1], 3, 5);
	link(sw[1], 2, sw[2], 3, 3);
	CHECK_EQ(sm_lids_assign(&fab, &lids), 0);
	CHECK_EQ(sm_route_minhop(&fab), 0);
}

static uint16_t lid_of(int node, unsigned int port)
{
	return fab.node[node].port[port].lid;
}

/* A request MAD. */
static void mad(uint8_t *m, uint8_t method, uint16_t attr, uint64_t comp)
{
	memset(m, 0, SM_SA_MAD_LEN);
	m[0] = 1;
	m[1] = 3;
	m[2] = 2;
	m[3] = method;
	put64(m + 8, ++next_tid);
	put16(m + 16, attr);
	put64(m + 48, comp);
}

/* The answer to @m (@len bytes) from @from (0: unknown). */
static uint8_t *ask_len(const uint8_t *m, size_t len, uint16_t from,
			size_t *rlen)
{
	struct sm_sa_addr a = { from, 1 };
	uint8_t *r = NULL;

	CHECK_EQ(sm_sa_handle(&sa, &fab, lid_of(ca[0], 1), from ? &a : NULL,
			      m, len, &r, rlen), 0);
	return r;
}

static uint8_t *ask(const uint8_t *m, uint16_t from, size_t *rlen)
{
	uint8_t *r = ask_len(m, SM_SA_MAD_LEN, from, rlen);

	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(be64(r + 8), be64(m + 8));	/* TID */
		CHECK_EQ(r[1], 3);
		CHECK_EQ(r[2], 2);
		CHECK_EQ(be16(r + 16), be16(m + 16));
		CHECK_EQ(be64(r + 36), 0);		/* SM_Key */
	}
	return r;
}

/* The status of the answer to @m; *@out the answer (freed if NULL). */
static uint16_t status_of(const uint8_t *m, uint16_t from, uint8_t **out)
{
	size_t len;
	uint8_t *r = ask(m, from, &len);
	uint16_t st = r ? be16(r + 4) : 0xffff;

	if (out)
		*out = r;
	else
		free(r);
	return st;
}

/* GetTable: the records' count, each at *@recs + i * *@stride. */
static unsigned int table(const uint8_t *m, uint8_t **resp, unsigned int *stride)
{
	size_t len;
	uint8_t *r = ask(m, 0, &len);
	unsigned int n;

	*resp = r;
	if (!r)
		return 0;
	CHECK_EQ(r[3], 0x92);
	CHECK_EQ(be16(r + 4), 0);
	CHECK_EQ(r[24], 1);		/* RMPP version */
	CHECK_EQ(r[25], 1);		/* DATA */
	CHECK_EQ(r[26] & 7, 7);		/* Active, First, Last */
	*stride = be16(r + 44) * 8;
	CHECK(*stride > 0);
	if (!*stride)
		return 0;
	CHECK_EQ((len - 56) % *stride, 0);
	CHECK_EQ(be32(r + 32), 20 + len - 56);	/* PayloadLength */
	n = (len - 56) / *stride;
	return n;
}

/* GetTable: how many records. */
static unsigned int count(const uint8_t *m)
{
	unsigned int stride, n;
	uint8_t *r;

	n = table(m, &r, &stride);
	free(r);
	return n;
}

static void test_class_port_info(void)
{
	uint8_t m[256], *r;

	mad(m, GET, CPI, 0);
	CHECK_EQ(status_of(m, 0, &r), 0);
	if (r) {
		CHECK_EQ(r[3], 0x81);
		CHECK_EQ(r[56], 1);			/* BaseVersion */
		CHECK_EQ(r[57], 2);			/* ClassVersion */
		CHECK(be16(r + 58) & (1 << 9));		/* UD multicast */
		CHECK(be32(r + 60) >> 5 & (1 << 12));	/* send-only full */
		CHECK_EQ(be32(r + 60) & 0x1f, 18);	/* RespTimeValue */
	}
	free(r);
	mad(m, GET_TABLE, CPI, 0);
	CHECK_EQ(status_of(m, 0, NULL), 0x000c);
}

static void test_bad_requests(void)
{
	uint8_t m[256], *r;
	size_t len;

	mad(m, GET, NR, 0);
	m[0] = 2;
	CHECK_EQ(status_of(m, 0, NULL), 0x0004);
	mad(m, GET, NR, 0);
	m[2] = 1;
	CHECK_EQ(status_of(m, 0, NULL), 0x0004);
	mad(m, 0x03, NR, 0);			/* Send: not the SA's */
	CHECK_EQ(status_of(m, 0, &r), 0x0008);
	CHECK(r && r[3] == 0x83);
	free(r);
	mad(m, SET, PR, 0);
	CHECK_EQ(status_of(m, 0, NULL), 0x000c);
	mad(m, DELETE, NR, 0);
	CHECK_EQ(status_of(m, 0, &r), 0x000c);
	CHECK(r && r[3] == 0x95);
	free(r);
	mad(m, GET, 0x9999, 0);
	CHECK_EQ(status_of(m, 0, NULL), 0x000c);
	/* Responses and other classes get no answer. */
	mad(m, 0x81, NR, 0);
	CHECK(!ask_len(m, 256, 0, &len));
	mad(m, 0x92, NR, 0);
	CHECK(!ask_len(m, 256, 0, &len));
	mad(m, GET, NR, 0);
	m[1] = 0x81;
	CHECK(!ask_len(m, 256, 0, &len));
}

static void test_node_records(void)
{
	uint8_t m[256], *r;
	unsigned int stride, n;

	mad(m, GET_TABLE, NR, 0);
	n = table(m, &r, &stride);
	CHECK_EQ(n, 6);
	CHECK_EQ(stride, 112);
	free(r);
	mad(m, GET, NR, 0);
	CHECK_EQ(status_of(m, 0, NULL), ST_TOO_MANY);
	mad(m, GET, NR, 1);			/* LID */
	put16(m + 56, lid_of(ca[1], 1));
	CHECK_EQ(status_of(m, 0, &r), 0);
	if (r) {
		CHECK_EQ(r[3], 0x81);
		CHECK_EQ(be16(r + 56), lid_of(ca[1], 1));
		CHECK_EQ(r[60 + 2], SM_NODE_CA);
		CHECK_EQ(be64(r + 60 + 12), CA_GUID(1));
		CHECK_EQ(be64(r + 60 + 20), CA_PORT(1));
		CHECK_EQ(r[60 + 36], 1);	/* LocalPortNum */
		CHECK(!strcmp((char *)r + 100, "host1 mlx"));
	}
	free(r);
	put16(m + 56, 999);
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	mad(m, GET_TABLE, NR, 1 << 4);		/* NodeType */
	m[60 + 2] = SM_NODE_SWITCH;
	CHECK_EQ(count(m), 3);
	mad(m, GET, NR, 1 << 14);		/* NodeDescription */
	strcpy((char *)m + 100, "host2 mlx");
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && be64(r + 60 + 12) == CA_GUID(2));
	free(r);
	mad(m, GET, NR, 1 << 7);		/* NodeGUID */
	put64(m + 60 + 12, SW_GUID(1));
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && be16(r + 56) == lid_of(sw[1], 0));
	free(r);
	mad(m, GET_TABLE, NR, 1 << 7);
	put64(m + 60 + 12, 0x42);
	CHECK_EQ(count(m), 0);		/* an empty table: status 0 */
}

static void test_port_records(void)
{
	uint8_t m[256], *r;
	unsigned int stride, n;

	mad(m, GET_TABLE, PIR, 1);		/* EndportLID */
	put16(m + 56, lid_of(sw[1], 0));
	n = table(m, &r, &stride);
	CHECK_EQ(n, 4);				/* ports 0 .. 3 */
	CHECK_EQ(stride, 72);
	if (r && n == 4) {
		CHECK_EQ(r[56 + 2 * 72 + 2], 2);	/* port 2 */
		CHECK_EQ(r[56 + 2 * 72 + 4 + 36] >> 4, 3);	/* 1024 */
	}
	free(r);
	mad(m, GET, PIR, 3);			/* EndportLID, PortNum */
	put16(m + 56, lid_of(ca[0], 1));
	m[58] = 1;
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && (r[56 + 4 + 41] & 0xf) == 5);
	CHECK(r && (r[56 + 4 + 32] & 0xf) == 4);
	free(r);
	mad(m, GET_TABLE, PIR, 1ULL << 23);	/* NeighborMTU */
	m[56 + 4 + 36] = 3 << 4;
	CHECK_EQ(count(m), 2);		/* both ends of S1 - S2 */
	mad(m, GET_TABLE, SWIR, 0);
	n = table(m, &r, &stride);
	CHECK_EQ(n, 3);
	CHECK_EQ(stride, 24);
	CHECK(r && n == 3 && r[56 + 4 + 7] == 0x42);
	free(r);
	mad(m, GET_TABLE, LR, 0);
	CHECK_EQ(count(m), 10);		/* 5 links, both ways */
	mad(m, GET_TABLE, LR, 1);		/* FromLID: S1's 3 links */
	put16(m + 56, lid_of(sw[1], 0));
	CHECK_EQ(count(m), 3);
	mad(m, GET, LR, 3);			/* FromLID, FromPort */
	put16(m + 56, lid_of(ca[2], 1));
	m[58] = 1;
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && r[59] == 1 && be16(r + 60) == lid_of(sw[2], 0));
	free(r);
}

/* A PathRecord request from CA @s to CA @d by GIDs. */
static void pr_req(uint8_t *m, uint8_t method, uint64_t comp, int s, int d)
{
	mad(m, method, PR, comp | PR_SGID | PR_DGID);
	put_gid(m + 56 + 8, CA_PORT(d));
	put_gid(m + 56 + 24, CA_PORT(s));
}

static void test_path_records(void)
{
	uint8_t m[256], *r, *p;
	uint16_t lid2 = lid_of(ca[2], 1);
	uint8_t back;

	pr_req(m, GET, 0, 0, 1);
	CHECK_EQ(status_of(m, 0, &r), 0);
	if (r) {
		p = r + 56;
		CHECK_EQ(be16(p + 40), lid_of(ca[1], 1));	/* DLID */
		CHECK_EQ(be16(p + 42), lid_of(ca[0], 1));	/* SLID */
		CHECK_EQ(be64(p + 16), CA_PORT(1));
		CHECK_EQ(p[39], 0);			/* HopLimit */
		CHECK_EQ(p[49] >> 7, 1);		/* Reversible */
		CHECK_EQ(be16(p + 50), 0xffff);
		CHECK_EQ(p[54], 2 << 6 | 5);		/* MTU = 4096 */
		CHECK_EQ(p[55], 2 << 6 | 7);		/* 40 Gb/s */
		CHECK_EQ(p[56], 2 << 6 | 0x12);		/* PacketLifeTime */
	}
	free(r);
	/* Through S1 - S2: MTU 1024. */
	pr_req(m, GET, 0, 0, 2);
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && r[56 + 54] == (2 << 6 | 3));
	free(r);
	/* rdma_cm's query (cma_query_ib_route, AF_INET). */
	pr_req(m, GET, PR_PKEY | PR_NUMB_PATH | PR_REVERSIBLE | PR_SERVICE_ID |
	       PR_QOS_CLASS, 2, 0);
	put16(m + 56 + 50, 0xffff);
	m[56 + 49] = 0x80 | 1;			/* Reversible, NumbPath 1 */
	put64(m + 56, 0x0106000000004e21ULL);	/* RDMA_PS_TCP port 20001 */
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && be64(r + 56) == 0x0106000000004e21ULL);
	CHECK(r && r[56 + 54] == (2 << 6 | 3));
	free(r);
	/* Selectors: exactly 4096 cannot be met, less than 4096 can. */
	pr_req(m, GET, PR_MTU_SEL | PR_MTU, 0, 2);
	m[56 + 54] = 2 << 6 | 5;
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	m[56 + 54] = 2 << 6 | 3;		/* exactly 1024 */
	CHECK_EQ(status_of(m, 0, NULL), 0);
	m[56 + 54] = 1 << 6 | 5;		/* less than 4096 */
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && (r[56 + 54] & 0x3f) == 3);
	free(r);
	m[56 + 54] = 0 << 6 | 3;		/* greater than 1024 */
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	pr_req(m, GET, PR_MTU_SEL | PR_MTU, 0, 1);
	m[56 + 54] = 1 << 6 | 5;		/* less than 4096: 2048 */
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && (r[56 + 54] & 0x3f) == 4);
	free(r);
	/* Another partition, an unknown GID, an unknown LID. */
	pr_req(m, GET, PR_PKEY, 0, 1);
	put16(m + 56 + 50, 0x8001);
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	pr_req(m, GET, 0, 0, 1);
	put_gid(m + 56 + 8, 0x1111);
	CHECK_EQ(status_of(m, 0, NULL), ST_INVALID_GID);
	mad(m, GET, PR, PR_SLID | PR_DLID);
	put16(m + 56 + 42, lid_of(ca[0], 1));
	put16(m + 56 + 40, 999);
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	/* By LIDs; from CA 0 to every end port (itself too). */
	put16(m + 56 + 40, lid2);
	CHECK_EQ(status_of(m, 0, NULL), 0);
	mad(m, GET_TABLE, PR, PR_SLID);
	put16(m + 56 + 42, lid_of(ca[0], 1));
	CHECK_EQ(count(m), 6);
	/* A route that drops, then one that loops: no path. */
	fab.node[sw[1]].lft[lid2] = SM_LFT_DROP;
	pr_req(m, GET, 0, 0, 2);
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	fab.node[sw[1]].lft[lid2] = 3;		/* back to S0, which sends */
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);	/* it to S1 */
	fab.node[sw[1]].lft[lid2] = 2;
	/* Only the way back drops: not reversible. */
	back = fab.node[sw[2]].lft[lid_of(ca[0], 1)];
	CHECK_EQ(back, 3);
	fab.node[sw[2]].lft[lid_of(ca[0], 1)] = SM_LFT_DROP;
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && !(r[56 + 49] >> 7));
	free(r);
	pr_req(m, GET, PR_REVERSIBLE, 0, 2);
	m[56 + 49] = 0x80;
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	fab.node[sw[2]].lft[lid_of(ca[0], 1)] = back;
	CHECK_EQ(status_of(m, 0, NULL), 0);
	/* A port that is not Active on the way. */
	fab.node[sw[1]].port[2].state = 3;
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	fab.node[sw[1]].port[2].state = 4;
}

/* An MCMemberRecord request for @mgid by port CA @c. */
static void mc_req(uint8_t *m, uint8_t method, uint64_t comp,
		   const uint8_t *mgid, int c, uint8_t join_state)
{
	mad(m, method, MCMR, comp);
	memcpy(m + 56, mgid, 16);
	put_gid(m + 56 + 16, CA_PORT(c));
	put16(m + 56 + 40, 0xffff);
	m[56 + 48] = 2 << 4 | join_state;
}

static const uint8_t bcast[16] = {
	0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff,
};

/* IPoIB's join of a non-broadcast group, with the broadcast's values. */
static void ipoib_req(uint8_t *m, const uint8_t *mgid, int c, uint8_t js)
{
	mc_req(m, SET, IPOIB_MASK, mgid, c, js);
	put32(m + 56 + 32, 0x0b1b);
	m[56 + 38] = 2 << 6 | 3;		/* MTU exactly 1024 */
	m[56 + 42] = 2 << 6 | 7;		/* rate exactly 40 Gb/s */
}

static void test_ipoib_bcast(void)
{
	struct sm_mcast_member mm[8];
	uint8_t m[256], *r;
	unsigned int stride;

	CHECK_EQ(sm_sa_ipoib_bcast(&sa, &fab), 0);
	CHECK_EQ(sm_sa_mcast_dirty(&sa), 1);
	CHECK_EQ(sm_sa_mcast_dirty(&sa), 0);
	CHECK_EQ(sm_sa_mlid_top(&sa), 0xc000);
	/* IPoIB's broadcast join: MGID, PortGID, P_Key, JoinState. */
	mc_req(m, SET, IPOIB_BCAST_MASK, bcast, 0, 1);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), &r), 0);
	if (r) {
		CHECK_EQ(r[3], 0x81);
		CHECK(!memcmp(r + 56, bcast, 16));
		CHECK_EQ(be64(r + 56 + 24), CA_PORT(0));
		CHECK_EQ(be32(r + 56 + 32), 0x0b1b);
		CHECK_EQ(be16(r + 56 + 36), 0xc000);
		CHECK_EQ(r[56 + 38], 2 << 6 | 3);	/* 1024: the LAN's */
		CHECK_EQ(r[56 + 42] & 0x3f, 7);
		CHECK_EQ(be16(r + 56 + 40), 0xffff);
		CHECK_EQ(r[56 + 48], 2 << 4 | 1);
	}
	free(r);
	CHECK_EQ(sm_sa_mcast_dirty(&sa), 1);
	CHECK_EQ(sm_sa_mlid_members(&sa, &fab, 0xc000, mm, 8), 1);
	CHECK(mm[0].node == ca[0] && mm[0].port == 1);
	CHECK_EQ(sm_mcast_tree(&fab, mm, 1, (struct sm_mft[6]){ 0 }), 0);
	/* A join that wants 2048 exactly: the group cannot meet it. */
	mc_req(m, SET, IPOIB_BCAST_MASK | MC_MTU_SEL | MC_MTU, bcast, 1, 1);
	m[56 + 38] = 2 << 6 | 4;
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), NULL), ST_INVALID);
	m[56 + 38] = 1 << 6 | 4;		/* less than 2048: yes */
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), NULL), 0);
	/* Another Q_Key than the group's; a port joining for another. */
	mc_req(m, SET, IPOIB_BCAST_MASK | MC_QKEY, bcast, 2, 1);
	put32(m + 56 + 32, 0x1234);
	CHECK_EQ(status_of(m, lid_of(ca[2], 1), NULL), ST_INVALID);
	mc_req(m, SET, IPOIB_BCAST_MASK, bcast, 2, 1);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), ST_DENIED);
	mc_req(m, SET, IPOIB_BCAST_MASK, bcast, 2, 1);
	put_gid(m + 56 + 16, 0x7777);
	CHECK_EQ(status_of(m, 0, NULL), ST_INVALID_GID);
	CHECK_EQ(sm_sa_mlid_members(&sa, &fab, 0xc000, mm, 8), 2);
	/* Everyone leaves: the broadcast group stays. */
	mc_req(m, DELETE, MC_MGID | MC_PORT_GID | MC_JOIN_STATE, bcast, 0, 1);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), &r), 0);
	CHECK(r && r[3] == 0x95 && (r[56 + 48] & 0xf) == 0);
	free(r);
	mc_req(m, DELETE, MC_MGID | MC_PORT_GID | MC_JOIN_STATE, bcast, 1, 1);
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), NULL), 0);
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), NULL), ST_INVALID);
	mc_req(m, GET_TABLE, MC_MGID, bcast, 0, 0);
	CHECK_EQ(count(m), 1);		/* the group, no member */
	/* With no member, its MTU follows the subnet: all at 4096 now. */
	fab.node[sw[1]].port[2].port_info[36] = 5 << 4;
	fab.node[sw[2]].port[3].port_info[36] = 5 << 4;
	CHECK_EQ(sm_sa_ipoib_bcast(&sa, &fab), 0);
	mc_req(m, GET, MC_MGID, bcast, 0, 0);
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && (r[56 + 38] & 0x3f) == 5);
	free(r);
	/* With a member it stays. */
	mc_req(m, SET, IPOIB_BCAST_MASK, bcast, 0, 1);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), 0);
	fab.node[sw[1]].port[2].port_info[36] = 3 << 4;
	fab.node[sw[2]].port[3].port_info[36] = 3 << 4;
	CHECK_EQ(sm_sa_ipoib_bcast(&sa, &fab), 0);
	mc_req(m, GET_TABLE, MC_MGID, bcast, 0, 0);
	CHECK_EQ(table(m, &r, &stride), 1);
	CHECK(r && (r[56 + 38] & 0x3f) == 5);
	free(r);
	mc_req(m, DELETE, MC_MGID | MC_PORT_GID | MC_JOIN_STATE, bcast, 0, 1);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), 0);
	CHECK_EQ(sm_sa_ipoib_bcast(&sa, &fab), 0);
}

static void test_mcast_groups(void)
{
	uint8_t m[256], *r, v4[16] = {
		0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
		0xe0, 0, 0, 0xfb,
	}, v6[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
		      0, 0, 0, 1 }, zero[16] = { 0 };
	uint16_t mlid;

	sm_sa_mcast_dirty(&sa);
	/* Without create components a group that is not there is not made. */
	mc_req(m, SET, IPOIB_BCAST_MASK, v4, 0, 1);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), ST_INSUFFICIENT);
	CHECK_EQ(sm_sa_mcast_dirty(&sa), 0);
	/* IPoIB's IPv4 group: created, then joined by another port. */
	ipoib_req(m, v4, 0, 1);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), &r), 0);
	mlid = r ? be16(r + 56 + 36) : 0;
	CHECK_EQ(mlid, 0xc001);
	CHECK(r && be32(r + 56 + 32) == 0x0b1b);
	free(r);
	CHECK_EQ(sm_sa_mcast_dirty(&sa), 1);
	ipoib_req(m, v4, 2, 1);
	CHECK_EQ(status_of(m, lid_of(ca[2], 1), NULL), 0);
	/* An IPv6 group by a send-only full member. */
	ipoib_req(m, v6, 1, 8);
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), &r), 0);
	CHECK(r && be16(r + 56 + 36) == 0xc002 && (r[56 + 48] & 0xf) == 8);
	free(r);
	/* Get by MGID and PortGID; GetTable by MLID. */
	mc_req(m, GET, MC_MGID | MC_PORT_GID, v4, 2, 0);
	CHECK_EQ(status_of(m, 0, NULL), 0);
	mad(m, GET_TABLE, MCMR, 1 << 3);
	put16(m + 56 + 36, mlid);
	CHECK_EQ(count(m), 2);
	/* Leaves: the group ends with its last full member. */
	mc_req(m, DELETE, MC_MGID | MC_PORT_GID | MC_JOIN_STATE, v4, 0, 1);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), 0);
	mc_req(m, GET_TABLE, MC_MGID, v4, 0, 0);
	CHECK_EQ(count(m), 1);
	mc_req(m, DELETE, MC_MGID | MC_PORT_GID | MC_JOIN_STATE, v4, 2, 1);
	CHECK_EQ(status_of(m, lid_of(ca[2], 1), NULL), 0);
	mc_req(m, GET_TABLE, MC_MGID, v4, 0, 0);
	CHECK_EQ(count(m), 0);
	CHECK_EQ(sm_sa_mlid_members(&sa, &fab, mlid, NULL, 0), 0);
	CHECK_EQ(sm_sa_mcast_dirty(&sa), 1);
	/* MGID 0: the SA names the group. */
	ipoib_req(m, zero, 0, 1);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), &r), 0);
	CHECK(r && r[56] == 0xff && r[57] == 0x12 && r[58] == 0xa0);
	CHECK(r && be16(r + 56 + 36) == 0xc001);	/* reused */
	free(r);
	/* A create that asks for more than the subnet can do. */
	ipoib_req(m, v4, 0, 1);
	m[56 + 38] = 2 << 6 | 5;
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), ST_INVALID);
	/* A create by a non-member only; in another partition. */
	ipoib_req(m, v4, 0, 2);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), ST_INVALID);
	ipoib_req(m, v4, 0, 1);
	put16(m + 56 + 40, 0x8001);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), ST_INVALID);
}

static void test_services(void)
{
	uint8_t m[256], *r;
	uint64_t sid = 0x1000000000000abcULL;

	mad(m, SET, SR, 3 | 1 << 6);	/* ID, GID, name */
	put64(m + 56, sid);
	put_gid(m + 56 + 8, CA_PORT(1));
	put32(m + 56 + 28, 10);		/* lease: 10 s */
	strcpy((char *)m + 56 + 48, "pib-test");
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), ST_DENIED);
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), &r), 0);
	CHECK(r && r[3] == 0x81 && be64(r + 56) == sid);
	CHECK(r && be16(r + 56 + 24) == 0xffff);
	free(r);
	mad(m, GET, SR, 1 << 6);
	strcpy((char *)m + 56 + 48, "pib-test");
	CHECK_EQ(status_of(m, 0, &r), 0);
	CHECK(r && be64(r + 56 + 16) == CA_PORT(1));
	free(r);
	mad(m, GET_TABLE, SR, 0);
	CHECK_EQ(count(m), 1);
	mad(m, DELETE, SR, 3);
	put64(m + 56, sid);
	put_gid(m + 56 + 8, CA_PORT(1));
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), &r), 0);
	CHECK(r && r[3] == 0x95);
	free(r);
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), NULL), ST_NO_RECORDS);
	/* A lease ends. */
	mad(m, SET, SR, 3);
	put64(m + 56, sid);
	put_gid(m + 56 + 8, CA_PORT(1));
	put32(m + 56 + 28, 10);
	sm_sa_tick(&sa, 100);
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), NULL), 0);
	sm_sa_tick(&sa, 105);
	mad(m, GET_TABLE, SR, 0);
	CHECK_EQ(count(m), 1);
	sm_sa_tick(&sa, 111);
	CHECK_EQ(count(m), 0);
}

static void test_inform(void)
{
	struct sm_sa_report *rep;
	struct sm_mcast_member mm[4];
	unsigned int n;
	uint8_t m[256], *r;
	uint16_t lid2 = lid_of(ca[2], 1);

	CHECK_EQ(sm_sa_ports_update(&sa, &fab, lid_of(ca[0], 1), &rep, &n), 0);
	CHECK_EQ(n, 0);			/* nobody subscribed */
	free(rep);
	/* CA 1 subscribes to trap 65 of every LID. */
	mad(m, SET, INFORM, 0);
	put16(m + 56 + 16, 0xffff);	/* LIDRangeBegin: all */
	m[56 + 22] = 1;			/* IsGeneric */
	m[56 + 23] = 1;			/* Subscribe */
	put16(m + 56 + 24, 0xffff);	/* Type: all */
	put16(m + 56 + 26, 65);
	put32(m + 56 + 28, 1 << 8);	/* QPN 1 */
	put32(m + 56 + 32, 0xffffff);	/* ProducerType: all */
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), &r), 0);
	CHECK(r && r[3] == 0x81 && be16(r + 56 + 26) == 65);
	free(r);
	CHECK_EQ(status_of(m, 0, NULL), ST_INVALID);	/* who is it? */
	mad(m, GET_TABLE, IIR, 0);
	CHECK_EQ(count(m), 1);
	/* CA 2 in a group, then gone. */
	ipoib_req(m, bcast, 2, 1);
	m[56 + 38] = 2 << 6 | 3;
	CHECK_EQ(status_of(m, lid2, NULL), 0);
	CHECK_EQ(sm_sa_mlid_members(&sa, &fab, 0xc000, mm, 4), 1);
	sm_fabric_free(&fab);
	build(0);
	sm_sa_mcast_dirty(&sa);
	CHECK_EQ(sm_sa_ports_update(&sa, &fab, lid_of(ca[0], 1), &rep, &n), 0);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_EQ(rep[0].dlid, lid_of(ca[1], 1));
		CHECK_EQ(rep[0].dqpn, 1);
		CHECK_EQ(rep[0].qkey, 0x80010000);
		CHECK_EQ(rep[0].mad[3], 0x06);		/* Report */
		CHECK_EQ(be16(rep[0].mad + 16), 0x0002);	/* Notice */
		CHECK_EQ(rep[0].mad[56], 0x83);
		CHECK_EQ(be16(rep[0].mad + 56 + 4), 65);
		CHECK_EQ(be16(rep[0].mad + 56 + 6), lid_of(ca[0], 1));
		CHECK_EQ(be64(rep[0].mad + 56 + 16), PREFIX);
		CHECK_EQ(be64(rep[0].mad + 56 + 24), CA_PORT(2));
		CHECK_EQ(be64(rep[0].mad + 56 + 72), CA_PORT(0));
	}
	free(rep);
	CHECK_EQ(sm_sa_mcast_dirty(&sa), 1);
	CHECK_EQ(sm_sa_mlid_members(&sa, &fab, 0xc000, mm, 4), 0);
	/* Unsubscribe. */
	mad(m, SET, INFORM, 0);
	put16(m + 56 + 16, 0xffff);
	m[56 + 22] = 1;
	put16(m + 56 + 24, 0xffff);
	put16(m + 56 + 26, 65);
	put32(m + 56 + 28, 1 << 8);
	put32(m + 56 + 32, 0xffffff);
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), NULL), 0);
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), NULL), ST_INVALID);
	sm_fabric_free(&fab);
	build(1);
	CHECK_EQ(lid_of(ca[2], 1), lid2);
	CHECK_EQ(sm_sa_ports_update(&sa, &fab, lid_of(ca[0], 1), &rep, &n), 0);
	CHECK_EQ(n, 0);
	free(rep);
}

/* A sweep that finds the subnet with or without CA 2. */
static void resweep(int with_ca2)
{
	sm_fabric_free(&fab);
	build(with_ca2);
}

/* The SA takes the sweep's ports; @keep_missed: some of its SMPs failed. */
static void take_ports(int keep_missed)
{
	struct sm_sa_report *rep;
	unsigned int n;

	sa.keep_missed = keep_missed;
	CHECK_EQ(sm_sa_ports_update(&sa, &fab, lid_of(ca[0], 1), &rep, &n), 0);
	free(rep);
}

/*
 * A port that a sweep did not reach left its groups: found again, it is
 * owed a ClientReregister until the SM says it took one. A port the SA
 * has is owed none; a port no sweep finds any more is forgotten.
 */
static void test_rereg(void)
{
	take_ports(0);
	CHECK_EQ(sm_sa_rereg_note(&sa, &fab), 0);
	CHECK_EQ(sa.nrereg, 0);
	/* A sweep without CA 2: it leaves the SA. */
	resweep(0);
	CHECK_EQ(sm_sa_rereg_note(&sa, &fab), 0);
	CHECK_EQ(sa.nrereg, 0);
	take_ports(0);
	/* Back: owed one, it alone, across sweeps until it is done. */
	resweep(1);
	CHECK_EQ(sm_sa_rereg_note(&sa, &fab), 0);
	CHECK_EQ(sa.nrereg, 1);
	CHECK_EQ(sm_sa_rereg_owed(&sa, CA_PORT(2)), 1);
	CHECK_EQ(sm_sa_rereg_owed(&sa, CA_PORT(1)), 0);
	take_ports(0);
	CHECK_EQ(sm_sa_rereg_note(&sa, &fab), 0);
	CHECK_EQ(sm_sa_rereg_owed(&sa, CA_PORT(2)), 1);
	sm_sa_rereg_done(&sa, CA_PORT(1));		/* not owed: no change */
	CHECK_EQ(sa.nrereg, 1);
	sm_sa_rereg_done(&sa, CA_PORT(2));
	CHECK_EQ(sm_sa_rereg_owed(&sa, CA_PORT(2)), 0);
	CHECK_EQ(sm_sa_rereg_note(&sa, &fab), 0);
	CHECK_EQ(sa.nrereg, 0);
	/* Owed, then gone before it took it: forgotten. */
	resweep(0);
	take_ports(0);
	resweep(1);
	CHECK_EQ(sm_sa_rereg_note(&sa, &fab), 0);
	CHECK_EQ(sa.nrereg, 1);
	resweep(0);
	CHECK_EQ(sm_sa_rereg_note(&sa, &fab), 0);
	CHECK_EQ(sa.nrereg, 0);
	resweep(1);
	take_ports(0);
}

/* Is port @guid a member of the group of MLID @mlid? */
static int member_of(uint16_t mlid, uint64_t guid)
{
	unsigned int i, k;

	for (i = 0; i < sa.ngroups; i++)
		for (k = 0; sa.group[i].mlid == mlid && k < sa.group[i].n; k++)
			if (sa.group[i].member[k].guid == guid)
				return 1;
	return 0;
}

/*
 * A sweep whose SMPs did not all go through may miss a port that is
 * there: the SA keeps it, with its groups, for SM_SA_PORT_GRACE such
 * sweeps in a row; a sweep whose SMPs all went through drops it at once.
 */
static void test_keep_missed(void)
{
	uint8_t m[256];
	unsigned int k;

	ipoib_req(m, bcast, 2, 1);	/* CA 2 joins the broadcast group */
	CHECK_EQ(status_of(m, lid_of(ca[2], 1), NULL), 0);
	CHECK_EQ(member_of(0xc000, CA_PORT(2)), 1);
	for (k = 0; k <= SM_SA_PORT_GRACE; k++) {
		resweep(0);
		take_ports(1);
		CHECK_EQ(member_of(0xc000, CA_PORT(2)),
			 k < SM_SA_PORT_GRACE);
		CHECK_EQ(sm_sa_port_in(sa.port, sa.nports, CA_PORT(2)),
			 k < SM_SA_PORT_GRACE);
	}
	/* Back: it had left, so it is owed a ClientReregister. */
	resweep(1);
	CHECK_EQ(sm_sa_rereg_note(&sa, &fab), 0);
	CHECK_EQ(sm_sa_rereg_owed(&sa, CA_PORT(2)), 1);
	sm_sa_rereg_done(&sa, CA_PORT(2));
	take_ports(0);
	/* Missed once and found again: kept all along, owed nothing. */
	CHECK_EQ(status_of(m, lid_of(ca[2], 1), NULL), 0);
	resweep(0);
	take_ports(1);
	resweep(1);
	CHECK_EQ(sm_sa_rereg_note(&sa, &fab), 0);
	CHECK_EQ(sm_sa_rereg_owed(&sa, CA_PORT(2)), 0);
	take_ports(0);
	CHECK_EQ(member_of(0xc000, CA_PORT(2)), 1);
	CHECK_EQ(sa.port[0].missed + sa.port[sa.nports - 1].missed, 0);
	/* A clean sweep without it: gone at once. */
	resweep(0);
	take_ports(0);
	CHECK_EQ(member_of(0xc000, CA_PORT(2)), 0);
	resweep(1);
	take_ports(0);
}

static unsigned int rng = 77;

static unsigned int next_rand(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 16;
}

/* Every prefix of good requests, then random ones: answers, no crash. */
static void test_hostile(void)
{
	static const uint16_t attrs[] = {
		CPI, INFORM, NR, PIR, SWIR, LR, SR, PR, MCMR, IIR, 0x0002,
	};
	static const uint8_t methods[] = { GET, SET, GET_TABLE, DELETE, 6, 0x81 };
	uint8_t m[300], *r;
	unsigned int i, k;
	size_t len, l;

	pr_req(m, GET_TABLE, 0, 0, 2);
	for (l = 0; l <= 256; l++) {
		r = ask_len(m, l, 0, &len);
		CHECK(l < 24 ? !r : r != NULL);
		if (r && l < 256)
			CHECK_EQ(be16(r + 4), ST_INVALID);
		free(r);
	}
	ipoib_req(m, bcast, 0, 1);
	for (l = 0; l <= 256; l++) {
		r = ask_len(m, l, lid_of(ca[0], 1), &len);
		free(r);
	}
	for (i = 0; i < 20000; i++) {
		for (k = 0; k < sizeof(m); k++)
			m[k] = next_rand() % 4 ? next_rand() : 0;
		m[0] = next_rand() % 16 ? 1 : m[0];
		m[1] = next_rand() % 16 ? 3 : m[1];
		m[2] = next_rand() % 16 ? 2 : m[2];
		m[3] = methods[next_rand() % sizeof(methods)];
		put16(m + 16, attrs[next_rand() % 11]);
		if (next_rand() % 2)
			memcpy(m + 56, next_rand() % 2 ? bcast : m + 56, 16);
		if (next_rand() % 2)
			put_gid(m + 72, CA_PORT(next_rand() % 3));
		r = ask_len(m, next_rand() % 8 ? 256 : next_rand() % 300,
			    next_rand() % 2 ? lid_of(ca[next_rand() % 3], 1) : 0,
			    &len);
		if (r) {
			CHECK(r[3] & 0x80);
			CHECK(len >= 56);
		}
		free(r);
	}
	sm_sa_tick(&sa, 1000000);
	CHECK_EQ(sm_sa_ipoib_bcast(&sa, &fab), 0);
}

/*
 * Partitions (sm_part.h): paths only within a partition both ends share,
 * not between two limited members; joins only by a member; a broadcast
 * group for each partition marked ipoib, with its MTU.
 */
static void test_partitions(void)
{
	static const char conf[] =
		"Default=0x7fff, ipoib : ALL=full;\n"
		"p1=0x8001, ipoib, mtu=3 : 0x0002c90300003000=full, 0x0002c90300003001;\n"
		"p2=0x0002 : 0x0002c90300003001, 0x0002c90300003002;\n";
	static const uint8_t bcast1[16] = {
		0xff, 0x12, 0x40, 0x1b, 0x80, 0x01, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff,
	};
	struct sm_parts ps;
	const char *why;
	unsigned int line;
	uint8_t m[256], *r;

	sm_parts_init(&ps);
	CHECK_EQ(sm_parts_parse(&ps, conf, sizeof(conf) - 1, &line, &why), 0);
	sa.parts = &ps;
	sa.sm_guid = CA_PORT(0);
	CHECK_EQ(sm_sa_ipoib_bcast(&sa, &fab), 0);
	/* p1's broadcast group: its P_Key and MTU, CA 2 may not join. */
	mc_req(m, SET, IPOIB_BCAST_MASK, bcast1, 2, 1);
	put16(m + 56 + 40, 0x8001);
	CHECK_EQ(status_of(m, lid_of(ca[2], 1), NULL), ST_INVALID);
	mc_req(m, SET, IPOIB_BCAST_MASK, bcast1, 1, 1);
	put16(m + 56 + 40, 0x8001);
	CHECK_EQ(status_of(m, lid_of(ca[1], 1), &r), 0);
	if (r) {
		CHECK_EQ(be16(r + 56 + 40), 0x8001);
		CHECK_EQ(r[56 + 38], 2 << 6 | 3);
	}
	free(r);
	/* A group of a P_Key no partition has cannot be made. */
	mc_req(m, SET, IPOIB_BCAST_MASK | MC_QKEY | MC_TCLASS | MC_FLOW | MC_SL,
	       (const uint8_t[16]){ 0 }, 0, 1);
	put16(m + 56 + 40, 0x8005);
	CHECK_EQ(status_of(m, lid_of(ca[0], 1), NULL), ST_INVALID);
	/* Paths: p1's from a full and from a limited member. */
	pr_req(m, GET, PR_PKEY, 0, 1);
	put16(m + 56 + 50, 0x8001);
	CHECK_EQ(status_of(m, 0, &r), 0);
	if (r)
		CHECK_EQ(be16(r + 56 + 50), 0x8001);
	free(r);
	pr_req(m, GET, 0, 1, 0);
	CHECK_EQ(status_of(m, 0, &r), 0);
	if (r)
		CHECK_EQ(be16(r + 56 + 50), 0xffff);	/* the default first */
	free(r);
	/* Not a member at all; two limited members. */
	pr_req(m, GET, PR_PKEY, 0, 2);
	put16(m + 56 + 50, 0x8001);
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	pr_req(m, GET, PR_PKEY, 1, 2);
	put16(m + 56 + 50, 0x0002);
	CHECK_EQ(status_of(m, 0, NULL), ST_NO_RECORDS);
	sa.parts = &sa.own_parts;
	sm_parts_free(&ps);
}

int main(void)
{
	sm_lidmap_init(&lids);
	build(1);
	CHECK_EQ(sm_sa_init(&sa, PREFIX), 0);
	test_class_port_info();
	test_bad_requests();
	test_node_records();
	test_port_records();
	test_path_records();
	test_ipoib_bcast();
	test_mcast_groups();
	test_services();
	test_inform();
	test_rereg();
	test_keep_missed();
	test_hostile();
	test_partitions();
	sm_sa_free(&sa);
	sm_fabric_free(&fab);
	sm_lidmap_free(&lids);
	return unit_done("test_sa");
}
