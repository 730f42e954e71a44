// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast groups and MCMemberRecord (IBA 15.2.5.17): joins that create
 * groups, joins to groups, leaves, queries, and the IPoIB broadcast group
 * (RFC 4391) that the SA makes itself with the subnet's own MTU.
 *
 * Members are kept by port GUID, not by the model's node index: each
 * sweep builds the model anew. A join must name the requester's own port
 * (proxy joins are refused) that is a CA or router port of the subnet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sm_sa_int.h"

#define SM_MCM_LEN		52

/* MCMemberRecord's component-mask bits (IBA 15.2.5.17, Table 215). */
enum sm_mcm_bit {
	SM_MCM_MGID, SM_MCM_PORT_GID, SM_MCM_QKEY, SM_MCM_MLID,
	SM_MCM_MTU_SEL, SM_MCM_MTU, SM_MCM_TCLASS, SM_MCM_PKEY,
	SM_MCM_RATE_SEL, SM_MCM_RATE, SM_MCM_LIFE_SEL, SM_MCM_LIFE,
	SM_MCM_SL, SM_MCM_FLOW_LABEL, SM_MCM_HOP_LIMIT, SM_MCM_SCOPE,
	SM_MCM_JOIN_STATE, SM_MCM_PROXY_JOIN, SM_MCM_BITS
};

static const struct sm_sa_field sm_mcm_fields[SM_MCM_BITS] = {
	[SM_MCM_MGID] = { 0, 128 }, [SM_MCM_PORT_GID] = { 128, 128 },
	[SM_MCM_QKEY] = { 256, 32 }, [SM_MCM_MLID] = { 288, 16 },
	[SM_MCM_MTU_SEL] = { 304, 2 }, [SM_MCM_MTU] = { 306, 6 },
	[SM_MCM_TCLASS] = { 312, 8 }, [SM_MCM_PKEY] = { 320, 16 },
	[SM_MCM_RATE_SEL] = { 336, 2 }, [SM_MCM_RATE] = { 338, 6 },
	[SM_MCM_LIFE_SEL] = { 344, 2 }, [SM_MCM_LIFE] = { 346, 6 },
	[SM_MCM_SL] = { 352, 4 }, [SM_MCM_FLOW_LABEL] = { 356, 20 },
	[SM_MCM_HOP_LIMIT] = { 376, 8 }, [SM_MCM_SCOPE] = { 384, 4 },
	[SM_MCM_JOIN_STATE] = { 388, 4 }, [SM_MCM_PROXY_JOIN] = { 392, 1 },
};

const struct sm_sa_layout sm_sa_mcm_layout = {
	SM_MCM_LEN, SM_MCM_BITS, sm_mcm_fields
};

/* JoinState bits: full members keep a group (SendOnlyFullMember too). */
#define SM_JOIN_FULL		0x1
#define SM_JOIN_SENDONLY_FULL	0x8
#define SM_JOIN_KEEPS		(SM_JOIN_FULL | SM_JOIN_SENDONLY_FULL)

/* IBA 15.2.5.17.1: what a join must name to create a group (opensm's
 * REQUIRED_MC_CREATE_COMP_MASK, less what every join names). */
static const uint8_t sm_mcm_create_bits[] = {
	SM_MCM_QKEY, SM_MCM_TCLASS, SM_MCM_PKEY, SM_MCM_FLOW_LABEL, SM_MCM_SL,
};

/* The IPoIB broadcast group's MGID (RFC 4391: link-local, P_Key ffff). */
static const uint8_t sm_ipoib_mgid[SM_SA_GID_LEN] = {
	0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff,
};

/* Scope of link-local groups (IBA 4.1.1). */
#define SM_SCOPE_LINK		2

static struct sm_sa_group *sm_mcg_find(struct sm_sa *sa, const uint8_t *mgid)
{
	unsigned int i;

	for (i = 0; i < sa->ngroups; i++)
		if (!memcmp(sa->group[i].mgid, mgid, SM_SA_GID_LEN))
			return &sa->group[i];
	return NULL;
}

static struct sm_sa_member *sm_mcg_member(struct sm_sa_group *g,
					  uint64_t guid)
{
	unsigned int i;

	for (i = 0; i < g->n; i++)
		if (g->member[i].guid == guid)
			return &g->member[i];
	return NULL;
}

/* The lowest MLID no group has; 0 if none is left. */
static uint16_t sm_mcg_free_mlid(const struct sm_sa *sa)
{
	unsigned int mlid, i;

	for (mlid = SM_SA_MLID_BASE;
	     mlid < SM_SA_MLID_BASE + SM_SA_MAX_GROUPS; mlid++) {
		for (i = 0; i < sa->ngroups && sa->group[i].mlid != mlid; i++)
			;
		if (i == sa->ngroups)
			return mlid;
	}
	return 0;
}

/* A new group with @mgid and an MLID, the rest zero. NULL: no room. */
static struct sm_sa_group *sm_mcg_new(struct sm_sa *sa, const uint8_t *mgid)
{
	uint16_t mlid = sm_mcg_free_mlid(sa);
	struct sm_sa_group *g;

	if (!mlid || sa->ngroups >= SM_SA_MAX_GROUPS)
		return NULL;
	g = &sa->group[sa->ngroups++];
	memset(g, 0, sizeof(*g));
	memcpy(g->mgid, mgid, SM_SA_GID_LEN);
	g->mlid = mlid;
	g->scope = mgid[1] & 0xf;
	if (mlid > sa->mlid_top)
		sa->mlid_top = mlid;
	sa->dirty = 1;
	return g;
}

static void sm_mcg_remove(struct sm_sa *sa, struct sm_sa_group *g)
{
	free(g->member);
	*g = sa->group[--sa->ngroups];
	memset(&sa->group[sa->ngroups], 0, sizeof(*g));
	sa->dirty = 1;
}

/* Take member @i out of @g; the group goes too with no full member left
 * (never the IPoIB broadcast group). Return: 1 if the group went. */
static int sm_mcg_drop(struct sm_sa *sa, struct sm_sa_group *g, unsigned int i)
{
	unsigned int k;

	g->member[i] = g->member[--g->n];
	sa->dirty = 1;
	if (g->ipoib)
		return 0;
	for (k = 0; k < g->n; k++)
		if (g->member[k].join_state & SM_JOIN_KEEPS)
			return 0;
	sm_mcg_remove(sa, g);
	return 1;
}

void sm_sa_mcg_drop_port(struct sm_sa *sa, uint64_t guid)
{
	unsigned int i = 0, k;

	while (i < sa->ngroups) {
		for (k = 0; k < sa->group[i].n; k++)
			if (sa->group[i].member[k].guid == guid)
				break;
		if (k < sa->group[i].n && sm_mcg_drop(sa, &sa->group[i], k))
			continue;	/* another group moved into slot i */
		i++;
	}
}

void sm_sa_mcg_free(struct sm_sa *sa)
{
	unsigned int i;

	for (i = 0; sa->group && i < sa->ngroups; i++)
		free(sa->group[i].member);
	sa->ngroups = 0;
}

/* The record of @g for member @guid with @join_state (0, 0: none). */
static void sm_mcg_rec(const struct sm_sa *sa, const struct sm_sa_group *g,
		       uint64_t guid, uint8_t join_state, uint8_t *r)
{
	memset(r, 0, SM_MCM_LEN);
	memcpy(r, g->mgid, SM_SA_GID_LEN);
	if (guid) {
		sm_sa_put64(r + 16, sa->prefix);
		sm_sa_put64(r + 24, guid);
	}
	sm_sa_put32(r + 32, g->qkey);
	sm_sa_put16(r + 36, g->mlid);
	r[38] = SM_SA_SEL_EQ << 6 | g->mtu;
	r[39] = g->tclass;
	sm_sa_put16(r + 40, g->pkey);
	r[42] = SM_SA_SEL_EQ << 6 | g->rate;
	r[43] = SM_SA_SEL_EQ << 6 | g->life;
	sm_sa_put32(r + 44, (uint32_t)g->sl << 28 | g->flow_label << 8 |
		    g->hop_limit);
	r[48] = g->scope << 4 | join_state;
}

/* Get and GetTable: a record per member of each group (one with no
 * PortGID for a group without members) that matches. */
int sm_sa_mcm_query(struct sm_sa_ctx *c)
{
	const struct sm_sa_group *g;
	uint8_t r[SM_MCM_LEN];
	unsigned int i, k;
	int ret = 0;

	for (i = 0; !ret && i < c->sa->ngroups; i++) {
		g = &c->sa->group[i];
		if (!g->n) {
			sm_mcg_rec(c->sa, g, 0, 0, r);
			ret = sm_sa_offer(c, r);
		}
		for (k = 0; !ret && k < g->n; k++) {
			sm_mcg_rec(c->sa, g, g->member[k].guid,
				   g->member[k].join_state, r);
			ret = sm_sa_offer(c, r);
		}
	}
	return ret;
}

/* A value of the template for a group: a chosen one if the request names
 * selector and value, else @have. Return: -1 if none meets it. */
static int sm_mcg_pick(const struct sm_sa_ctx *c, unsigned int sel_bit,
		       unsigned int have, enum sm_sa_kind kind)
{
	if (!sm_sa_has(c, sel_bit) || !sm_sa_has(c, sel_bit + 1))
		return have;
	return sm_sa_select(sm_sa_tmpl(c, sel_bit), sm_sa_tmpl(c, sel_bit + 1),
			    have, kind);
}

/* A new MGID for a create with MGID 0: ff1S:a01b:PKEY::SEQ. */
static void sm_mcg_make_mgid(struct sm_sa *sa, uint8_t scope, uint16_t pkey,
			     uint8_t *mgid)
{
	unsigned int tries;

	for (tries = 0; tries <= SM_SA_MAX_GROUPS; tries++) {
		memset(mgid, 0, SM_SA_GID_LEN);
		mgid[0] = 0xff;
		mgid[1] = 0x10 | (scope & 0xf);
		mgid[2] = 0xa0;
		mgid[3] = 0x1b;
		sm_sa_put16(mgid + 4, pkey);
		sm_sa_put32(mgid + 12, ++sa->mgid_seq);
		if (!sm_mcg_find(sa, mgid))
			return;
	}
}

/* The group's fields a create takes from the template. Return: status. */
static int sm_mcg_settle(struct sm_sa_ctx *c, struct sm_sa_group *g)
{
	unsigned int mtu, rate;
	int m, r, l;

	sm_sa_subnet_caps(c->f, &mtu, &rate);
	m = sm_mcg_pick(c, SM_MCM_MTU_SEL, mtu, SM_SA_K_MTU);
	r = sm_mcg_pick(c, SM_MCM_RATE_SEL, rate, SM_SA_K_RATE);
	l = sm_mcg_pick(c, SM_MCM_LIFE_SEL, SM_SA_PKT_LIFE, SM_SA_K_LIFE);
	if (m < 0 || r < 0 || l < 0)
		return SM_SA_ERR_REQ_INVALID;
	g->mtu = m;
	g->rate = r;
	g->life = l;
	g->qkey = sm_sa_tmpl(c, SM_MCM_QKEY);
	g->pkey = sm_sa_tmpl(c, SM_MCM_PKEY) | 0x8000;
	g->tclass = sm_sa_tmpl(c, SM_MCM_TCLASS);
	g->sl = sm_sa_tmpl(c, SM_MCM_SL);
	g->flow_label = sm_sa_tmpl(c, SM_MCM_FLOW_LABEL);
	g->hop_limit = sm_sa_has(c, SM_MCM_HOP_LIMIT) ?
		       sm_sa_tmpl(c, SM_MCM_HOP_LIMIT) : 0;
	return SM_SA_OK;
}

/* A join that creates its group (@mgid all zero: the SA names it). */
static int sm_mcg_create(struct sm_sa_ctx *c, const uint8_t *mgid,
			 uint8_t join_state, struct sm_sa_group **out)
{
	uint8_t made[SM_SA_GID_LEN], scope;
	struct sm_sa_group tmp = { 0 };
	unsigned int i;
	int r;

	for (i = 0; i < sizeof(sm_mcm_create_bits); i++)
		if (!sm_sa_has(c, sm_mcm_create_bits[i]))
			return SM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
	if (!(join_state & SM_JOIN_KEEPS))
		return SM_SA_ERR_REQ_INVALID;
	r = sm_mcg_settle(c, &tmp);
	if (r)
		return r;
	if (sm_sa_zero(mgid, SM_SA_GID_LEN)) {
		scope = sm_sa_has(c, SM_MCM_SCOPE) ?
			sm_sa_tmpl(c, SM_MCM_SCOPE) : SM_SCOPE_LINK;
		sm_mcg_make_mgid(c->sa, scope, tmp.pkey, made);
		mgid = made;
	}
	if (mgid[0] != 0xff || sm_mcg_find(c->sa, mgid))
		return SM_SA_ERR_REQ_INVALID;
	*out = sm_mcg_new(c->sa, mgid);
	if (!*out)
		return SM_SA_ERR_NO_RESOURCES;
	tmp.mlid = (*out)->mlid;
	tmp.scope = (*out)->scope;
	memcpy(tmp.mgid, (*out)->mgid, SM_SA_GID_LEN);
	**out = tmp;
	return SM_SA_OK;
}

/* The fields a join names that a group has set: they must be its own. */
static int sm_mcg_fits(const struct sm_sa_ctx *c, const struct sm_sa_group *g)
{
	static const struct {
		uint8_t bit;
		enum sm_sa_kind kind;
	} sel[] = {
		{ SM_MCM_MTU_SEL, SM_SA_K_MTU }, { SM_MCM_RATE_SEL, SM_SA_K_RATE },
		{ SM_MCM_LIFE_SEL, SM_SA_K_LIFE },
	};
	unsigned int have[] = { g->mtu, g->rate, g->life }, i;
	uint8_t r[SM_MCM_LEN];
	struct sm_sa_ctx same = *c;

	/* Q_Key, MLID, TClass, P_Key, SL, FlowLabel, HopLimit, Scope. */
	same.comp &= 1ull << SM_MCM_QKEY | 1ull << SM_MCM_MLID |
		     1ull << SM_MCM_TCLASS | 1ull << SM_MCM_PKEY |
		     1ull << SM_MCM_SL | 1ull << SM_MCM_FLOW_LABEL |
		     1ull << SM_MCM_HOP_LIMIT | 1ull << SM_MCM_SCOPE;
	sm_mcg_rec(c->sa, g, 0, 0, r);
	if (!sm_sa_match(&same, r))
		return 0;
	for (i = 0; i < 3; i++)
		if (sm_sa_has(c, sel[i].bit) && sm_sa_has(c, sel[i].bit + 1) &&
		    !sm_sa_meets(sm_sa_tmpl(c, sel[i].bit),
				 sm_sa_tmpl(c, sel[i].bit + 1), have[i],
				 sel[i].kind))
			return 0;
	return 1;
}

/* Can port @p (a CA's) do @g's MTU and rate? Unknown: yes. */
static int sm_mcg_port_can(const struct sm_port *p, const struct sm_sa_group *g)
{
	unsigned int mtu = sm_sa_port_mtu(p), rate = sm_sa_port_rate(p);

	return (!mtu || mtu >= g->mtu) &&
	       (!rate || sm_sa_rate_mbps(rate) >= sm_sa_rate_mbps(g->rate));
}

/* Add @guid to @g with @join_state, or add the bits to its own. */
static int sm_mcg_add(struct sm_sa *sa, struct sm_sa_group *g, uint64_t guid,
		      uint8_t join_state, uint8_t *now)
{
	struct sm_sa_member *m = sm_mcg_member(g, guid);
	unsigned int cap;

	if (!m) {
		if (g->n >= SM_SA_MAX_MEMBERS)
			return SM_SA_ERR_NO_RESOURCES;
		if (g->n == g->cap) {
			cap = g->cap ? g->cap * 2 : 8;
			m = realloc(g->member, cap * sizeof(*m));
			if (!m)
				return SM_SA_ERR_NO_RESOURCES;
			g->member = m;
			g->cap = cap;
		}
		m = &g->member[g->n++];
		m->guid = guid;
		m->join_state = 0;
		sa->dirty = 1;
	}
	m->join_state |= join_state;
	*now = m->join_state;
	return SM_SA_OK;
}

/* The joining port: the request's PortGID, the requester's own CA port. */
static int sm_mcg_joiner(const struct sm_sa_ctx *c, int *node,
			 unsigned int *port)
{
	const uint8_t *gid = c->tmpl + 16;

	if (!sm_sa_gid_port(c, gid, node, port))
		return SM_SA_ERR_REQ_INVALID_GID;
	if (sm_node_is_switch(&c->f->node[*node]))
		return SM_SA_ERR_REQ_INVALID;
	if (c->from->lid && c->from->lid != c->f->node[*node].port[*port].lid)
		return SM_SA_ERR_REQ_DENIED;
	return SM_SA_OK;
}

/* A drop of the join that made @g fails it: the group goes again. */
static int sm_mcg_undo(struct sm_sa *sa, struct sm_sa_group *g, int r)
{
	if (g && !g->n && !g->ipoib)
		sm_mcg_remove(sa, g);
	return r;
}

/* Set: join (and create) a group (IBA 15.2.5.17.1). */
int sm_sa_mcm_join(struct sm_sa_ctx *c)
{
	uint8_t js = sm_sa_tmpl(c, SM_MCM_JOIN_STATE), rec[SM_MCM_LEN], now;
	struct sm_sa_group *g, *made = NULL;
	unsigned int port;
	int node, r;

	if (!sm_sa_has(c, SM_MCM_MGID) || !sm_sa_has(c, SM_MCM_PORT_GID) ||
	    !sm_sa_has(c, SM_MCM_JOIN_STATE))
		return SM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
	if (!js)
		return SM_SA_ERR_REQ_INVALID;
	r = sm_mcg_joiner(c, &node, &port);
	if (r)
		return r;
	g = sm_sa_zero(c->tmpl, SM_SA_GID_LEN) ? NULL : sm_mcg_find(c->sa, c->tmpl);
	if (!g) {
		r = sm_mcg_create(c, c->tmpl, js, &made);
		if (r)
			return r;
		g = made;
	} else if (!sm_mcg_fits(c, g)) {
		return SM_SA_ERR_REQ_INVALID;
	}
	/* (IBA 15.2.5.17: a port joins within a partition it is in) */
	if (!sm_mcg_port_can(&c->f->node[node].port[port], g) ||
	    !sm_sa_pkey_member(c->sa, c->f, node, port, g->pkey))
		return sm_mcg_undo(c->sa, made, SM_SA_ERR_REQ_INVALID);
	r = sm_mcg_add(c->sa, g, c->f->node[node].port[port].guid, js, &now);
	if (r)
		return sm_mcg_undo(c->sa, made, r);
	sm_mcg_rec(c->sa, g, c->f->node[node].port[port].guid, now, rec);
	return sm_sa_add(c, rec);
}

/* Delete: leave a group with the JoinState bits named (IBA 15.2.5.17.2). */
int sm_sa_mcm_leave(struct sm_sa_ctx *c)
{
	uint8_t js = sm_sa_tmpl(c, SM_MCM_JOIN_STATE), rec[SM_MCM_LEN];
	const uint8_t *gid = c->tmpl + 16;
	struct sm_sa_member *m;
	struct sm_sa_group *g;
	uint64_t guid = sm_sa_be64(gid + 8);

	if (!sm_sa_has(c, SM_MCM_MGID) || !sm_sa_has(c, SM_MCM_PORT_GID) ||
	    !sm_sa_has(c, SM_MCM_JOIN_STATE))
		return SM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
	if (sm_sa_be64(gid) != c->sa->prefix)
		return SM_SA_ERR_REQ_INVALID_GID;
	g = sm_mcg_find(c->sa, c->tmpl);
	m = g ? sm_mcg_member(g, guid) : NULL;
	if (!m || !js)
		return SM_SA_ERR_REQ_INVALID;
	m->join_state &= ~js;
	sm_mcg_rec(c->sa, g, guid, m->join_state, rec);
	if (!m->join_state)
		sm_mcg_drop(c->sa, g, m - g->member);
	return sm_sa_add(c, rec);
}

/* The IPoIB broadcast group of partition @p (RFC 4391: ff1S:401b:PKEY::
 * ffff:ffff, the P_Key with its full-member bit), its fields as @p says. */
static int sm_ipoib_bcast_one(struct sm_sa *sa, const struct sm_fabric *f,
			      const struct sm_part *p)
{
	uint8_t mgid[SM_SA_GID_LEN];
	struct sm_sa_group *g;
	unsigned int mtu, rate;

	memcpy(mgid, sm_ipoib_mgid, SM_SA_GID_LEN);
	mgid[1] = 0x10 | (p->scope ? p->scope : SM_SCOPE_LINK);
	sm_sa_put16(mgid + 4, p->pkey | SM_PART_FULL);
	g = sm_mcg_find(sa, mgid);
	if (!g) {
		g = sm_mcg_new(sa, mgid);
		if (!g)
			return -ENOSPC;
		g->qkey = p->qkey ? p->qkey : SM_SA_IPOIB_QKEY;
		g->pkey = p->pkey | SM_PART_FULL;
		g->life = SM_SA_PKT_LIFE;
		g->sl = p->sl;
		g->tclass = p->tclass;
	}
	g->ipoib = 1;
	if (g->n)
		return 0;	/* its members joined with its MTU and rate */
	sm_sa_subnet_caps(f, &mtu, &rate);
	g->mtu = p->mtu ? p->mtu : mtu;
	g->rate = p->rate ? p->rate : rate;
	return 0;
}

int sm_sa_ipoib_bcast(struct sm_sa *sa, const struct sm_fabric *f)
{
	const struct sm_parts *ps = sa->parts;
	unsigned int i;
	int r = 0;

	for (i = 0; i < ps->n && !r; i++)
		if (ps->part[i].ipoib)
			r = sm_ipoib_bcast_one(sa, f, &ps->part[i]);
	return r;
}

int sm_sa_mcast_dirty(struct sm_sa *sa)
{
	int d = sa->dirty;

	sa->dirty = 0;
	return d;
}

uint16_t sm_sa_mlid_top(const struct sm_sa *sa)
{
	return sa->mlid_top;
}

unsigned int sm_sa_mlid_members(const struct sm_sa *sa,
				const struct sm_fabric *f, uint16_t mlid,
				struct sm_mcast_member *m, unsigned int max)
{
	const struct sm_sa_group *g = NULL;
	unsigned int i, n = 0, port;
	int node;

	for (i = 0; i < sa->ngroups && !g; i++)
		if (sa->group[i].mlid == mlid)
			g = &sa->group[i];
	for (i = 0; g && i < g->n && n < max; i++) {
		if (!sm_sa_guid_port(f, g->member[i].guid, &node, &port) ||
		    sm_node_is_switch(&f->node[node]))
			continue;
		m[n].node = node;
		m[n].port = port;
		n++;
	}
	return n;
}
