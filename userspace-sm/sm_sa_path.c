// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PathRecord (IBA 15.2.5.16) and what paths and groups need of the
 * subnet: which port a GID names, what MTU and rate a port's link runs
 * at, and the selectors. A path is the route the switches' LFTs (struct
 * sm_node.lft) take from the source port to the DLID, walked hop by hop;
 * a route that drops the packet, ends elsewhere, loops, or crosses a
 * port that is known not to be Active gives no path. Its MTU and rate
 * are the least of the ports it crosses.
 */
#include <string.h>

#include "sm_sa_int.h"

#define SM_PR_LEN		64

/* PathRecord's component-mask bits (IBA 15.2.5.16, Table 212). */
enum sm_pr_bit {
	SM_PR_SERVICE_ID_HI, SM_PR_SERVICE_ID_LO, SM_PR_DGID, SM_PR_SGID,
	SM_PR_DLID, SM_PR_SLID, SM_PR_RAW, SM_PR_RSVD, SM_PR_FLOW_LABEL,
	SM_PR_HOP_LIMIT, SM_PR_TCLASS, SM_PR_REVERSIBLE, SM_PR_NUMB_PATH,
	SM_PR_PKEY, SM_PR_QOS_CLASS, SM_PR_SL, SM_PR_MTU_SEL, SM_PR_MTU,
	SM_PR_RATE_SEL, SM_PR_RATE, SM_PR_LIFE_SEL, SM_PR_LIFE,
	SM_PR_PREFERENCE, SM_PR_BITS
};

static const struct sm_sa_field sm_sa_pr_fields[SM_PR_BITS] = {
	[SM_PR_SERVICE_ID_HI] = { 0, 32 }, [SM_PR_SERVICE_ID_LO] = { 32, 32 },
	[SM_PR_DGID] = { 64, 128 }, [SM_PR_SGID] = { 192, 128 },
	[SM_PR_DLID] = { 320, 16 }, [SM_PR_SLID] = { 336, 16 },
	[SM_PR_RAW] = { 352, 1 }, [SM_PR_RSVD] = { 353, 3 },
	[SM_PR_FLOW_LABEL] = { 356, 20 }, [SM_PR_HOP_LIMIT] = { 376, 8 },
	[SM_PR_TCLASS] = { 384, 8 }, [SM_PR_REVERSIBLE] = { 392, 1 },
	[SM_PR_NUMB_PATH] = { 393, 7 }, [SM_PR_PKEY] = { 400, 16 },
	[SM_PR_QOS_CLASS] = { 416, 12 }, [SM_PR_SL] = { 428, 4 },
	[SM_PR_MTU_SEL] = { 432, 2 }, [SM_PR_MTU] = { 434, 6 },
	[SM_PR_RATE_SEL] = { 440, 2 }, [SM_PR_RATE] = { 442, 6 },
	[SM_PR_LIFE_SEL] = { 448, 2 }, [SM_PR_LIFE] = { 450, 6 },
	[SM_PR_PREFERENCE] = { 456, 8 },
};

const struct sm_sa_layout sm_sa_path_layout = {
	SM_PR_LEN, SM_PR_BITS, sm_sa_pr_fields
};

/* IBA 14.2.5.6 PortInfo bytes of the link's width, speeds and MTU. */
#define SM_PI_WIDTH_ACTIVE	31
#define SM_PI_SPEED_ACTIVE	35	/* high nibble */
#define SM_PI_NEIGHBOR_MTU	36	/* high nibble */
#define SM_PI_SPEED_EXT_ACTIVE	62	/* high nibble */

/* Static rate codes (IBA Table 224) and their bandwidth in Mb/s. */
static const unsigned int sm_sa_rate_table[] = {
	[2] = 2500, [3] = 10000, [4] = 30000, [5] = 5000, [6] = 20000,
	[7] = 40000, [8] = 60000, [9] = 80000, [10] = 120000, [11] = 14000,
	[12] = 56000, [13] = 112000, [14] = 168000, [15] = 25000,
	[16] = 100000, [17] = 200000, [18] = 300000, [19] = 28000,
	[20] = 50000, [21] = 400000, [22] = 600000,
};

#define SM_SA_RATES	(sizeof(sm_sa_rate_table) / sizeof(sm_sa_rate_table[0]))

/* LinkWidthActive bit -> lanes; LinkSpeed(Ext)Active bit -> Mb/s a lane. */
struct sm_sa_lane {
	uint8_t bit;
	unsigned int value;
};

static const struct sm_sa_lane sm_sa_widths[] = {
	{ 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 },
};

static const struct sm_sa_lane sm_sa_speeds[] = {
	{ 1, 2500 }, { 2, 5000 }, { 4, 10000 },
};

static const struct sm_sa_lane sm_sa_ext_speeds[] = {
	{ 1, 14000 }, { 2, 25000 }, { 4, 50000 },
};

static unsigned int sm_sa_lane_of(const struct sm_sa_lane *t, size_t n,
				  uint8_t bit)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].bit == bit)
			return t[i].value;
	return 0;
}

unsigned int sm_sa_rate_mbps(unsigned int code)
{
	return code < SM_SA_RATES ? sm_sa_rate_table[code] : 0;
}

/* The code of the greatest rate at most @mbps (0: none). */
static unsigned int sm_sa_rate_code(unsigned int mbps)
{
	unsigned int i, best = 0;

	for (i = 0; i < SM_SA_RATES; i++)
		if (sm_sa_rate_table[i] && sm_sa_rate_table[i] <= mbps &&
		    sm_sa_rate_table[i] > sm_sa_rate_mbps(best))
			best = i;
	return best;
}

/* The rate code of @p's link from its PortInfo; 0 if not known. */
unsigned int sm_sa_port_rate(const struct sm_port *p)
{
	const uint8_t *pi = p->port_info;
	unsigned int lanes, speed;

	lanes = sm_sa_lane_of(sm_sa_widths, 5, pi[SM_PI_WIDTH_ACTIVE]);
	speed = sm_sa_lane_of(sm_sa_ext_speeds, 3,
			      pi[SM_PI_SPEED_EXT_ACTIVE] >> 4);
	if (!speed)
		speed = sm_sa_lane_of(sm_sa_speeds, 3,
				      pi[SM_PI_SPEED_ACTIVE] >> 4);
	return sm_sa_rate_code(lanes * speed);
}

/* The MTU code of @p's link: its NeighborMTU and MTUCap; 0 if unknown. */
unsigned int sm_sa_port_mtu(const struct sm_port *p)
{
	unsigned int nmtu = p->port_info[SM_PI_NEIGHBOR_MTU] >> 4;
	unsigned int cap = p->mtu_cap;

	if (nmtu && (!cap || nmtu < cap))
		return nmtu;
	return cap;
}

/* Path capabilities so far: 0 is "not known yet". */
struct sm_sa_caps {
	unsigned int mtu;
	unsigned int rate;
};

static void sm_sa_caps_add(struct sm_sa_caps *k, const struct sm_port *p)
{
	unsigned int mtu = sm_sa_port_mtu(p), rate = sm_sa_port_rate(p);

	if (mtu && (!k->mtu || mtu < k->mtu))
		k->mtu = mtu;
	if (rate && (!k->rate ||
		     sm_sa_rate_mbps(rate) < sm_sa_rate_mbps(k->rate)))
		k->rate = rate;
}

void sm_sa_subnet_caps(const struct sm_fabric *f, unsigned int *mtu,
		       unsigned int *rate)
{
	struct sm_sa_caps k = { 0, 0 };
	const struct sm_node *n;
	unsigned int p;
	int i;

	for (i = 0; i < f->num_nodes; i++) {
		n = &f->node[i];
		for (p = 1; p <= n->num_ports; p++)
			if (n->port[p].peer != SM_NONE)
				sm_sa_caps_add(&k, &n->port[p]);
	}
	*mtu = k.mtu ? k.mtu : SM_SA_MTU_2048;
	*rate = k.rate ? k.rate : SM_SA_RATE_10G;
}

/* Order of @v as the selectors compare it. */
static unsigned int sm_sa_order(unsigned int v, enum sm_sa_kind kind)
{
	return kind == SM_SA_K_RATE ? sm_sa_rate_mbps(v) : v;
}

/* The greatest value below @want (0: none; rates: by bandwidth). */
static int sm_sa_below(unsigned int want, enum sm_sa_kind kind)
{
	unsigned int code;

	if (kind == SM_SA_K_RATE) {
		code = sm_sa_rate_mbps(want) ?
		       sm_sa_rate_code(sm_sa_rate_mbps(want) - 1) : 0;
		return code ? (int)code : -1;
	}
	if (kind == SM_SA_K_MTU)
		return want > SM_SA_MTU_256 ? (int)want - 1 : -1;
	return want ? (int)want - 1 : -1;
}

/*
 * What a path that can do up to @have gives a request for @sel @want
 * (as opensm: a path can always run at less than it can do). Return: the
 * value, or -1 if none meets the request.
 */
int sm_sa_select(unsigned int sel, unsigned int want, unsigned int have,
		 enum sm_sa_kind kind)
{
	unsigned int w = sm_sa_order(want, kind), h = sm_sa_order(have, kind);

	if (kind != SM_SA_K_LIFE && !w && sel != SM_SA_SEL_BEST)
		return -1;	/* no such MTU or rate */
	switch (sel) {
	case SM_SA_SEL_GT:
		return h > w ? (int)have : -1;
	case SM_SA_SEL_LT:
		return h < w ? (int)have : sm_sa_below(want, kind);
	case SM_SA_SEL_EQ:
		return h >= w ? (int)want : -1;
	default:
		return have;
	}
}

/* Does a group's @have meet a join's @sel @want (no choice: it is set)? */
int sm_sa_meets(unsigned int sel, unsigned int want, unsigned int have,
		enum sm_sa_kind kind)
{
	unsigned int w = sm_sa_order(want, kind), h = sm_sa_order(have, kind);

	switch (sel) {
	case SM_SA_SEL_GT:
		return h > w;
	case SM_SA_SEL_LT:
		return h < w;
	case SM_SA_SEL_EQ:
		return h == w;
	default:
		return 1;
	}
}

/* The end port with port GUID @guid: a switch's port 0, or a CA's port. */
int sm_sa_guid_port(const struct sm_fabric *f, uint64_t guid, int *node,
		    unsigned int *port)
{
	const struct sm_node *n;
	unsigned int p;
	int i;

	for (i = 0; i < f->num_nodes; i++) {
		n = &f->node[i];
		for (p = sm_node_is_switch(n) ? 0 : 1; p <= n->num_ports; p++) {
			if (n->port[p].guid == guid) {
				*node = i;
				*port = p;
				return 1;
			}
			if (sm_node_is_switch(n))
				break;
		}
	}
	return 0;
}

/* The end port of GID @gid: our subnet prefix and a port GUID we know. */
int sm_sa_gid_port(const struct sm_sa_ctx *c, const uint8_t *gid, int *node,
		   unsigned int *port)
{
	return sm_sa_be64(gid) == c->sa->prefix &&
	       sm_sa_guid_port(c->f, sm_sa_be64(gid + 8), node, port);
}

void sm_sa_port_gid(const struct sm_sa *sa, const struct sm_fabric *f,
		    int node, unsigned int port, uint8_t *gid)
{
	sm_sa_put64(gid, sa->prefix);
	sm_sa_put64(gid + 8, f->node[node].port[port].guid);
}

/* Is a port that the walk crosses usable (state not known, or Active)? */
static int sm_sa_port_up(const struct sm_port *p)
{
	return !p->state || p->state == SM_SA_PORT_ACTIVE;
}

/* Cross the link of port @p of node *@i: both ports' caps; Return: 0
 * if there is no usable link. */
static int sm_sa_cross(const struct sm_fabric *f, int *i, unsigned int *p,
		       struct sm_sa_caps *k)
{
	const struct sm_port *out = &f->node[*i].port[*p];

	if (out->peer < 0 || out->peer >= f->num_nodes || !sm_sa_port_up(out) ||
	    out->peer_port > f->node[out->peer].num_ports)
		return 0;
	sm_sa_caps_add(k, out);
	*i = out->peer;
	*p = out->peer_port;
	out = &f->node[*i].port[*p];
	sm_sa_caps_add(k, out);
	return sm_sa_port_up(out);
}

/*
 * Walk from end port (@i, @p) to @dlid by the LFTs, gathering caps in
 * @k. Return: 1 if the route reaches @dlid's port, else 0.
 */
static int sm_sa_walk(const struct sm_fabric *f, int i, unsigned int p,
		      uint16_t dlid, struct sm_sa_caps *k)
{
	const struct sm_node *n = &f->node[i];
	int hops;

	if (!sm_node_is_switch(n) && !sm_sa_cross(f, &i, &p, k))
		return 0;
	for (hops = 0; hops <= f->num_nodes; hops++) {
		n = &f->node[i];
		if (!sm_node_is_switch(n))
			return n->port[p].lid == dlid;
		if (n->port[0].lid == dlid)
			return 1;
		if (!n->lft || dlid >= n->lft_len)
			return 0;
		p = n->lft[dlid];
		if (!p || p > n->num_ports || !sm_sa_cross(f, &i, &p, k))
			return 0;
	}
	return 0;	/* a loop */
}

/* An end port: node, port. */
struct sm_sa_end {
	int node;
	unsigned int port;
};

static uint16_t sm_sa_lid(const struct sm_fabric *f, const struct sm_sa_end *e)
{
	const struct sm_node *n = &f->node[e->node];

	return sm_node_is_switch(n) ? n->port[0].lid : n->port[e->port].lid;
}

/* Are the request's selectors met? Fills MTU, rate, life into @r. */
static int sm_sa_pr_select(const struct sm_sa_ctx *c, uint8_t *r,
			   const struct sm_sa_caps *k, unsigned int life)
{
	static const struct {
		uint8_t sel, val;
		enum sm_sa_kind kind;
	} pick[] = {
		{ SM_PR_MTU_SEL, SM_PR_MTU, SM_SA_K_MTU },
		{ SM_PR_RATE_SEL, SM_PR_RATE, SM_SA_K_RATE },
		{ SM_PR_LIFE_SEL, SM_PR_LIFE, SM_SA_K_LIFE },
	};
	unsigned int have[] = { k->mtu, k->rate, life }, i;
	int v;

	for (i = 0; i < 3; i++) {
		v = have[i];
		if (sm_sa_has(c, pick[i].sel) && sm_sa_has(c, pick[i].val))
			v = sm_sa_select(sm_sa_tmpl(c, pick[i].sel),
					 sm_sa_tmpl(c, pick[i].val), have[i],
					 pick[i].kind);
		if (v < 0)
			return 0;
		sm_sa_put(r, sm_sa_pr_fields[pick[i].sel].bit, 2, SM_SA_SEL_EQ);
		sm_sa_put(r, sm_sa_pr_fields[pick[i].val].bit, 6, v);
	}
	return 1;
}

/* Copy the fields the SA only echoes from the template into @r. */
static void sm_sa_pr_echo(const struct sm_sa_ctx *c, uint8_t *r)
{
	static const uint8_t echo[] = {
		SM_PR_SERVICE_ID_HI, SM_PR_SERVICE_ID_LO, SM_PR_FLOW_LABEL,
		SM_PR_TCLASS, SM_PR_SL,
	};
	const struct sm_sa_field *fl;
	unsigned int i;

	for (i = 0; i < sizeof(echo); i++) {
		fl = &sm_sa_pr_fields[echo[i]];
		if (sm_sa_has(c, echo[i]))
			sm_sa_put(r, fl->bit, fl->len, sm_sa_tmpl(c, echo[i]));
	}
}

/*
 * The P_Key of a path from @s to @d: the request's, or else the first
 * partition both ends share (the default partition first), with the
 * source's membership bit; 0 when they share none in which one of them
 * is a full member (IBA 10.9.3: two limited members cannot talk).
 */
static uint16_t sm_sa_pr_pkey(const struct sm_sa_ctx *c,
			      const struct sm_sa_end *s,
			      const struct sm_sa_end *d)
{
	const struct sm_parts *ps = c->sa->parts;
	uint16_t pkey;
	unsigned int i;
	int ms, md;

	for (i = 0; i < ps->n; i++) {
		pkey = ps->part[i].pkey;
		if (sm_sa_has(c, SM_PR_PKEY))
			pkey = sm_sa_tmpl(c, SM_PR_PKEY) & 0x7fff;
		ms = sm_sa_pkey_member(c->sa, c->f, s->node, s->port, pkey);
		md = sm_sa_pkey_member(c->sa, c->f, d->node, d->port, pkey);
		if (ms && md && (ms == 2 || md == 2))
			return pkey | (ms == 2 ? SM_PART_FULL : 0);
		if (sm_sa_has(c, SM_PR_PKEY))
			break;
	}
	return 0;
}

/* The PathRecord from @s to @d, if there is a path that meets the
 * request. */
static int sm_sa_pr_one(struct sm_sa_ctx *c, const struct sm_sa_end *s,
			const struct sm_sa_end *d)
{
	uint16_t slid = sm_sa_lid(c->f, s), dlid = sm_sa_lid(c->f, d);
	struct sm_sa_caps k = { 0, 0 }, back = { 0, 0 };
	int self = s->node == d->node && s->port == d->port, rev;
	uint8_t r[SM_PR_LEN] = { 0 };
	uint16_t pkey = sm_sa_pr_pkey(c, s, d);

	if (!slid || !dlid || !pkey)
		return SM_SA_OK;
	if (self)
		sm_sa_caps_add(&k, &c->f->node[s->node].port[s->port]);
	else if (!sm_sa_walk(c->f, s->node, s->port, dlid, &k))
		return SM_SA_OK;
	rev = self || sm_sa_walk(c->f, d->node, d->port, slid, &back);
	if (!rev && sm_sa_has(c, SM_PR_REVERSIBLE) &&
	    sm_sa_tmpl(c, SM_PR_REVERSIBLE))
		return SM_SA_OK;
	if (!k.mtu)
		k.mtu = SM_SA_MTU_2048;
	if (!k.rate)
		k.rate = SM_SA_RATE_10G;
	sm_sa_port_gid(c->sa, c->f, d->node, d->port, r + 8);
	sm_sa_port_gid(c->sa, c->f, s->node, s->port, r + 24);
	sm_sa_put16(r + 40, dlid);
	sm_sa_put16(r + 42, slid);
	sm_sa_put(r, sm_sa_pr_fields[SM_PR_REVERSIBLE].bit, 1, rev);
	sm_sa_put16(r + 50, pkey);
	sm_sa_pr_echo(c, r);
	if (!sm_sa_pr_select(c, r, &k, self ? 0 : SM_SA_PKT_LIFE))
		return SM_SA_OK;
	/* The ends were chosen by the request's GIDs and LIDs, the rest is
	 * negotiated above, echoed or fixed: no field left to match. */
	return sm_sa_add(c, r);
}

/* One end of the request: @fixed set if SGID/SLID (DGID/DLID) name it.
 * Return: SM_SA_OK, or an error; *@none set if it names no port. */
static int sm_sa_pr_end(const struct sm_sa_ctx *c, unsigned int gid_bit,
			unsigned int lid_bit, struct sm_sa_end *e, int *fixed,
			int *none)
{
	const uint8_t *gid = c->tmpl + sm_sa_pr_fields[gid_bit].bit / 8;
	struct sm_sa_end by_lid;

	*fixed = 0;
	if (sm_sa_has(c, gid_bit)) {
		if (!sm_sa_gid_port(c, gid, &e->node, &e->port))
			return SM_SA_ERR_REQ_INVALID_GID;
		*fixed = 1;
	}
	if (sm_sa_has(c, lid_bit)) {
		if (!sm_fabric_lid_owner(c->f, sm_sa_tmpl(c, lid_bit),
					 &by_lid.node, &by_lid.port)) {
			*none = 1;
		} else if (*fixed && (by_lid.node != e->node ||
				      by_lid.port != e->port)) {
			*none = 1;
		} else {
			*e = by_lid;
			*fixed = 1;
		}
	}
	return SM_SA_OK;
}

/* The next end port after @e (start: node 0, port 0). Return: 0 at end. */
static int sm_sa_next_end(const struct sm_fabric *f, struct sm_sa_end *e,
			  int first)
{
	const struct sm_node *n;

	if (!first)
		e->port++;
	for (; e->node < f->num_nodes; e->node++, e->port = 0) {
		n = &f->node[e->node];
		if (sm_node_is_switch(n)) {
			if (e->port == 0 && n->port[0].lid)
				return 1;
			continue;
		}
		for (e->port = e->port ? e->port : 1; e->port <= n->num_ports;
		     e->port++)
			if (n->port[e->port].lid)
				return 1;
	}
	return 0;
}

/* Every destination (one if fixed) from source @s. */
static int sm_sa_pr_from(struct sm_sa_ctx *c, const struct sm_sa_end *s,
			 const struct sm_sa_end *d, int dfixed)
{
	struct sm_sa_end e = { 0, 0 };
	int r = 0, more;

	if (dfixed)
		return sm_sa_pr_one(c, s, d);
	for (more = sm_sa_next_end(c->f, &e, 1); more && !r;
	     more = sm_sa_next_end(c->f, &e, 0))
		r = sm_sa_pr_one(c, s, &e);
	return r;
}

/* PathRecord Get and GetTable: from SGID/SLID (or every end port) to
 * DGID/DLID (or every end port), within a partition both share. */
int sm_sa_path_query(struct sm_sa_ctx *c)
{
	struct sm_sa_end s = { 0, 0 }, d = { 0, 0 }, e = { 0, 0 };
	int sfixed, dfixed, none = 0, r, more;

	r = sm_sa_pr_end(c, SM_PR_SGID, SM_PR_SLID, &s, &sfixed, &none);
	if (!r)
		r = sm_sa_pr_end(c, SM_PR_DGID, SM_PR_DLID, &d, &dfixed, &none);
	if (r || none)
		return r;
	if (sfixed)
		return sm_sa_pr_from(c, &s, &d, dfixed);
	for (more = sm_sa_next_end(c->f, &e, 1); more && !r;
	     more = sm_sa_next_end(c->f, &e, 0))
		r = sm_sa_pr_from(c, &e, &d, dfixed);
	return r;
}
