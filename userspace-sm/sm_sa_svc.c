// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What clients register with the SA: ServiceRecords (IBA 15.2.5.14) and
 * InformInfo subscriptions (IBA 13.4.8.3, 15.2.5.12), and the Reports of
 * traps 64 (GID in service) and 65 (GID out of service) that the SA sends
 * subscribers when a sweep finds ports come or go (IBA 13.4.8.2, 14.4.?;
 * as opensm's drop manager does). Only those two traps are ever
 * reported, though a subscription to any generic trap is taken.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sm_sa_int.h"

/* ServiceRecord's component-mask bits and fields. */
enum sm_svc_bit {
	SM_SVC_ID, SM_SVC_GID, SM_SVC_PKEY, SM_SVC_RSVD, SM_SVC_LEASE,
	SM_SVC_KEY, SM_SVC_NAME, SM_SVC_DATA8, SM_SVC_DATA16 = SM_SVC_DATA8 + 16,
	SM_SVC_DATA32 = SM_SVC_DATA16 + 8, SM_SVC_DATA64 = SM_SVC_DATA32 + 4,
	SM_SVC_BITS = SM_SVC_DATA64 + 2
};

#define SM_D8(i)	{ 896 + 8 * (i), 8 }
#define SM_D16(i)	{ 1024 + 16 * (i), 16 }
#define SM_D32(i)	{ 1152 + 32 * (i), 32 }
#define SM_D64(i)	{ 1280 + 64 * (i), 64 }

static const struct sm_sa_field sm_svc_fields[SM_SVC_BITS] = {
	{ 0, 64 }, { 64, 128 }, { 192, 16 }, { 208, 16 }, { 224, 32 },
	{ 256, 128 }, { 384, 512 },
	SM_D8(0), SM_D8(1), SM_D8(2), SM_D8(3), SM_D8(4), SM_D8(5), SM_D8(6),
	SM_D8(7), SM_D8(8), SM_D8(9), SM_D8(10), SM_D8(11), SM_D8(12),
	SM_D8(13), SM_D8(14), SM_D8(15),
	SM_D16(0), SM_D16(1), SM_D16(2), SM_D16(3), SM_D16(4), SM_D16(5),
	SM_D16(6), SM_D16(7),
	SM_D32(0), SM_D32(1), SM_D32(2), SM_D32(3),
	SM_D64(0), SM_D64(1),
};

const struct sm_sa_layout sm_sa_svc_layout = {
	SM_SA_SERVICE_LEN, SM_SVC_BITS, sm_svc_fields
};

/* InformInfo: no component mask (Set takes it whole). */
const struct sm_sa_layout sm_sa_inform_layout = { SM_SA_INFORM_LEN, 0, NULL };

/* InformInfoRecord (IBA 15.2.5.12): SubscriberGID, Enum, InformInfo. */
#define SM_IIR_LEN	64
#define SM_IIR_INFO	24

static const struct sm_sa_field sm_iir_fields[] = {
	{ 0, 128 }, { 128, 16 }, { 144, 48 }, { 192, 128 }, { 320, 16 },
	{ 336, 16 }, { 352, 16 }, { 368, 8 }, { 376, 8 }, { 384, 16 },
	{ 400, 16 }, { 416, 24 }, { 440, 3 }, { 443, 5 }, { 448, 8 },
	{ 456, 24 },
};

const struct sm_sa_layout sm_sa_iir_layout = {
	SM_IIR_LEN, sizeof(sm_iir_fields) / sizeof(sm_iir_fields[0]),
	sm_iir_fields
};

/* InformInfo's bytes (IBA 13.4.8.3). */
#define SM_II_GID		0
#define SM_II_LID_BEGIN		16
#define SM_II_LID_END		18
#define SM_II_IS_GENERIC	22
#define SM_II_SUBSCRIBE		23
#define SM_II_TYPE		24
#define SM_II_TRAP		26
#define SM_II_QPN		28	/* 24 bits, then RespTimeValue */
#define SM_II_PRODUCER		32	/* 24 bits after a reserved byte */
#define SM_II_ALL		0xffff
#define SM_II_ALL_PRODUCERS	0xffffff

/* Notice (IBA 13.4.8.2) of traps 64 and 65, as opensm issues them. */
#define SM_NOTICE_LEN		80
#define SM_NOTICE_GENERIC	0x80
#define SM_NOTICE_TYPE_SM	3
#define SM_NOTICE_PRODUCER_CM	4
#define SM_NOTICE_GID		16
#define SM_NOTICE_ISSUER_GID	64
#define SM_TRAP_GID_IN		64
#define SM_TRAP_GID_OUT		65
/* Reports one sm_sa_ports_update() returns at most; the rest are lost. */
#define SM_SA_MAX_REPORTS	4096
/* ServiceLease that never ends. */
#define SM_SVC_FOREVER		0xffffffffu

/* ---- services ---- */

int sm_sa_svc_query(struct sm_sa_ctx *c)
{
	unsigned int i;
	int r = 0;

	for (i = 0; !r && i < c->sa->nsvc; i++)
		r = sm_sa_offer(c, c->sa->svc[i].rec);
	return r;
}

/* The service with @rec's ID, GID and P_Key, or NULL. */
static struct sm_sa_service *sm_svc_find(struct sm_sa *sa, const uint8_t *rec)
{
	unsigned int i;

	for (i = 0; i < sa->nsvc; i++)
		if (!memcmp(sa->svc[i].rec, rec, 26))	/* ID, GID, P_Key */
			return &sa->svc[i];
	return NULL;
}

/* The port a ServiceGID (InformInfo subscriber) names: the requester's. */
static int sm_svc_owner(const struct sm_sa_ctx *c, const uint8_t *gid)
{
	unsigned int port;
	int node;

	if (!sm_sa_gid_port(c, gid, &node, &port))
		return SM_SA_ERR_REQ_INVALID_GID;
	if (c->from->lid &&
	    c->from->lid != (sm_node_is_switch(&c->f->node[node]) ?
			     c->f->node[node].port[0].lid :
			     c->f->node[node].port[port].lid))
		return SM_SA_ERR_REQ_DENIED;
	return SM_SA_OK;
}

/* Set: register (or renew) a service of the requester's port. */
int sm_sa_svc_set(struct sm_sa_ctx *c)
{
	struct sm_sa_service *s;
	uint8_t rec[SM_SA_SERVICE_LEN];
	uint32_t lease;
	int r;

	if (!sm_sa_has(c, SM_SVC_ID) || !sm_sa_has(c, SM_SVC_GID))
		return SM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
	memcpy(rec, c->tmpl, sizeof(rec));
	if (!sm_sa_has(c, SM_SVC_PKEY))
		sm_sa_put16(rec + 24, SM_SA_DEFAULT_PKEY);
	if ((sm_sa_be16(rec + 24) & 0x7fff) != 0x7fff)
		return SM_SA_ERR_REQ_INVALID;
	r = sm_svc_owner(c, rec + 8);
	if (r)
		return r;
	s = sm_svc_find(c->sa, rec);
	if (!s) {
		if (c->sa->nsvc >= SM_SA_MAX_SERVICES)
			return SM_SA_ERR_NO_RESOURCES;
		s = &c->sa->svc[c->sa->nsvc++];
	}
	memcpy(s->rec, rec, sizeof(rec));
	lease = sm_sa_be32(rec + 28);
	s->expires = lease == SM_SVC_FOREVER ? 0 : c->sa->now + lease + 1;
	return sm_sa_add(c, rec);
}

/* Delete: the services that match (ServiceID and ServiceGID at least). */
int sm_sa_svc_delete(struct sm_sa_ctx *c)
{
	struct sm_sa *sa = c->sa;
	unsigned int i = 0;
	int r;

	if (!sm_sa_has(c, SM_SVC_ID) || !sm_sa_has(c, SM_SVC_GID))
		return SM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS;
	r = sm_svc_owner(c, c->tmpl + 8);
	if (r)
		return r;
	while (i < sa->nsvc) {
		if (!sm_sa_match(c, sa->svc[i].rec)) {
			i++;
			continue;
		}
		if (!c->n)
			sm_sa_add(c, sa->svc[i].rec);
		sa->svc[i] = sa->svc[--sa->nsvc];
	}
	return c->n ? SM_SA_OK : SM_SA_ERR_NO_RECORDS;
}

void sm_sa_tick(struct sm_sa *sa, uint64_t now)
{
	unsigned int i = 0;

	sa->now = now;
	while (i < sa->nsvc) {
		if (sa->svc[i].expires && sa->svc[i].expires <= now)
			sa->svc[i] = sa->svc[--sa->nsvc];
		else
			i++;
	}
}

/* ---- InformInfo ---- */

/* Same subscription: subscriber, GID, LID range, trap, QPN. */
static int sm_sub_same(const struct sm_sa_sub *s, const uint8_t *gid,
		       const uint8_t *info)
{
	return !memcmp(s->gid, gid, SM_SA_GID_LEN) &&
	       !memcmp(s->info, info, 20) &&	/* GID, LID range */
	       !memcmp(s->info + SM_II_TRAP, info + SM_II_TRAP, 5);
}

static int sm_sub_find(const struct sm_sa *sa, const uint8_t *gid,
		       const uint8_t *info)
{
	unsigned int i;

	for (i = 0; i < sa->nsub; i++)
		if (sm_sub_same(&sa->sub[i], gid, info))
			return i;
	return -1;
}

/* Set: subscribe or unsubscribe the requester to a generic trap. */
int sm_sa_inform_set(struct sm_sa_ctx *c)
{
	const uint8_t *info = c->tmpl;
	uint8_t gid[SM_SA_GID_LEN];
	unsigned int port;
	int node, i;

	if (!info[SM_II_IS_GENERIC] || info[SM_II_SUBSCRIBE] > 1 ||
	    !sm_fabric_lid_owner(c->f, c->from->lid, &node, &port))
		return SM_SA_ERR_REQ_INVALID;
	sm_sa_port_gid(c->sa, c->f, node, port, gid);
	i = sm_sub_find(c->sa, gid, info);
	if (!info[SM_II_SUBSCRIBE]) {
		if (i < 0)
			return SM_SA_ERR_REQ_INVALID;
		c->sa->sub[i] = c->sa->sub[--c->sa->nsub];
		return sm_sa_add(c, info);
	}
	if (i < 0) {
		if (c->sa->nsub >= SM_SA_MAX_SUBS)
			return SM_SA_ERR_NO_RESOURCES;
		i = c->sa->nsub++;
	}
	memcpy(c->sa->sub[i].gid, gid, SM_SA_GID_LEN);
	memcpy(c->sa->sub[i].info, info, SM_SA_INFORM_LEN);
	c->sa->sub[i].lid = c->from->lid;
	return sm_sa_add(c, info);
}

int sm_sa_iir_query(struct sm_sa_ctx *c)
{
	uint8_t r[SM_IIR_LEN];
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < c->sa->nsub; i++) {
		memset(r, 0, sizeof(r));
		memcpy(r, c->sa->sub[i].gid, SM_SA_GID_LEN);
		sm_sa_put16(r + 16, i);
		memcpy(r + SM_IIR_INFO, c->sa->sub[i].info, SM_SA_INFORM_LEN);
		ret = sm_sa_offer(c, r);
	}
	return ret;
}

/* ---- Reports of ports that come and go ---- */

/* Does subscription @s want trap @trap of port (@gid, @lid)? */
static int sm_sub_wants(const struct sm_sa_sub *s, uint16_t trap,
			const uint8_t *gid, uint16_t lid)
{
	const uint8_t *ii = s->info;
	uint16_t t = sm_sa_be16(ii + SM_II_TRAP), type = sm_sa_be16(ii + SM_II_TYPE);
	uint16_t lo = sm_sa_be16(ii + SM_II_LID_BEGIN);
	uint16_t hi = sm_sa_be16(ii + SM_II_LID_END);
	uint32_t prod = sm_sa_be32(ii + SM_II_PRODUCER) & 0xffffff;

	if ((t != trap && t != SM_II_ALL) ||
	    (type != SM_II_ALL && type != SM_NOTICE_TYPE_SM) ||
	    (prod != SM_II_ALL_PRODUCERS && prod != SM_NOTICE_PRODUCER_CM))
		return 0;
	if (!sm_sa_zero(ii + SM_II_GID, SM_SA_GID_LEN))
		return !memcmp(ii + SM_II_GID, gid, SM_SA_GID_LEN);
	if (lo == SM_II_ALL)
		return 1;
	return lid >= lo && lid <= (hi ? hi : lo);
}

/* The Report(Notice) of trap @trap of port @gid to subscription @s. */
static void sm_report_build(struct sm_sa *sa, const struct sm_sa_sub *s,
			    uint16_t trap, const uint8_t *gid, uint16_t sm_lid,
			    const uint8_t *sm_gid, struct sm_sa_report *rep)
{
	uint8_t *m = rep->mad, *n = rep->mad + SM_SA_HDR_LEN;

	memset(rep, 0, sizeof(*rep));
	m[0] = 1;
	m[1] = 0x03;
	m[2] = 2;
	m[3] = SM_SA_REPORT;
	sm_sa_put64(m + 8, ++sa->tid);
	sm_sa_put16(m + 16, SM_SA_ATTR_NOTICE);
	sm_sa_put16(m + 44, SM_NOTICE_LEN / 8);
	n[0] = SM_NOTICE_GENERIC | SM_NOTICE_TYPE_SM;
	n[3] = SM_NOTICE_PRODUCER_CM;
	sm_sa_put16(n + 4, trap);
	sm_sa_put16(n + 6, sm_lid);
	memcpy(n + SM_NOTICE_GID, gid, SM_SA_GID_LEN);
	memcpy(n + SM_NOTICE_ISSUER_GID, sm_gid, SM_SA_GID_LEN);
	rep->len = SM_SA_MAD_LEN;
	rep->dlid = s->lid;
	rep->dqpn = sm_sa_be32(s->info + SM_II_QPN) >> 8;
	rep->qkey = SM_SA_QP1_QKEY;
}

/* Reports being gathered. */
struct sm_reports {
	struct sm_sa_report *r;
	unsigned int n;
	unsigned int cap;
	uint16_t sm_lid;
	uint8_t sm_gid[SM_SA_GID_LEN];
};

/* Report trap @trap of port (@guid, @lid) to whoever wants it. */
static int sm_report(struct sm_sa *sa, struct sm_reports *rs, uint16_t trap,
		     uint64_t guid, uint16_t lid)
{
	struct sm_sa_report *r;
	uint8_t gid[SM_SA_GID_LEN];
	unsigned int i;

	sm_sa_put64(gid, sa->prefix);
	sm_sa_put64(gid + 8, guid);
	for (i = 0; i < sa->nsub && rs->n < SM_SA_MAX_REPORTS; i++) {
		if (!sm_sub_wants(&sa->sub[i], trap, gid, lid))
			continue;
		if (rs->n == rs->cap) {
			rs->cap = rs->cap ? rs->cap * 2 : 8;
			r = realloc(rs->r, rs->cap * sizeof(*r));
			if (!r)
				return -ENOMEM;
			rs->r = r;
		}
		sm_report_build(sa, &sa->sub[i], trap, gid, rs->sm_lid,
				rs->sm_gid, &rs->r[rs->n++]);
	}
	return 0;
}

/* The end ports of @f: switch ports 0, linked CA and router ports. */
static int sm_ports_of(const struct sm_fabric *f, struct sm_sa_port **out,
		       unsigned int *n)
{
	const struct sm_node *node;
	struct sm_sa_port *ports;
	unsigned int p, k = 0;
	int i;

	ports = malloc(((size_t)f->num_nodes * (SM_MAX_PORTS + 1) + 1) *
		       sizeof(*ports));
	if (!ports)
		return -ENOMEM;
	for (i = 0; i < f->num_nodes; i++) {
		node = &f->node[i];
		for (p = 0; p <= node->num_ports; p++) {
			if (sm_node_is_switch(node) ? p != 0 :
			    !p || node->port[p].peer == SM_NONE)
				continue;
			ports[k].guid = node->port[p].guid;
			ports[k].missed = 0;
			ports[k++].lid = node->port[p].lid;
		}
	}
	*out = ports;
	*n = k;
	return 0;
}

int sm_sa_port_in(const struct sm_sa_port *ports, unsigned int n,
		  uint64_t guid)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ports[i].guid == guid)
			return 1;
	return 0;
}

/* Port @guid is gone: it leaves its groups and its subscriptions end. */
static void sm_port_gone(struct sm_sa *sa, uint64_t guid)
{
	unsigned int i = 0;

	sm_sa_mcg_drop_port(sa, guid);
	while (i < sa->nsub) {
		if (sm_sa_be64(sa->sub[i].gid + 8) == guid)
			sa->sub[i] = sa->sub[--sa->nsub];
		else
			i++;
	}
}

/* Trap 65 for each port of the last update not in @now, 64 for each of
 * @now not in it. */
static int sm_ports_diff(struct sm_sa *sa, struct sm_reports *rs,
			 const struct sm_sa_port *now, unsigned int n)
{
	unsigned int i;
	int r = 0;

	for (i = 0; !r && i < sa->nports; i++) {
		if (sm_sa_port_in(now, n, sa->port[i].guid))
			continue;
		sm_port_gone(sa, sa->port[i].guid);
		r = sm_report(sa, rs, SM_TRAP_GID_OUT, sa->port[i].guid,
			      sa->port[i].lid);
	}
	for (i = 0; !r && i < n; i++)
		if (!sm_sa_port_in(sa->port, sa->nports, now[i].guid))
			r = sm_report(sa, rs, SM_TRAP_GID_IN, now[i].guid,
				      now[i].lid);
	return r;
}

/*
 * Add to the @n ports @now of a sweep whose SMPs did not all go through
 * the ports of the last update that it did not find, for
 * SM_SA_PORT_GRACE such sweeps in a row. Return: 0, or -ENOMEM (@now
 * freed).
 */
static int sm_ports_keep_missed(const struct sm_sa *sa,
				struct sm_sa_port **now, unsigned int *n)
{
	struct sm_sa_port *p;
	unsigned int i, k = *n;

	p = realloc(*now, ((size_t)*n + sa->nports + 1) * sizeof(*p));
	if (!p) {
		free(*now);
		*now = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < sa->nports; i++) {
		if (sa->port[i].missed >= SM_SA_PORT_GRACE ||
		    sm_sa_port_in(p, *n, sa->port[i].guid))
			continue;
		p[k] = sa->port[i];
		p[k++].missed++;
	}
	*now = p;
	*n = k;
	return 0;
}

int sm_sa_rereg_owed(const struct sm_sa *sa, uint64_t guid)
{
	unsigned int i;

	for (i = 0; i < sa->nrereg; i++)
		if (sa->rereg[i] == guid)
			return 1;
	return 0;
}

void sm_sa_rereg_done(struct sm_sa *sa, uint64_t guid)
{
	unsigned int i;

	for (i = 0; i < sa->nrereg; i++) {
		if (sa->rereg[i] == guid) {
			sa->rereg[i] = sa->rereg[--sa->nrereg];
			return;
		}
	}
}

int sm_sa_rereg_note(struct sm_sa *sa, const struct sm_fabric *f)
{
	struct sm_sa_port *now;
	unsigned int i, n, k = 0;
	uint64_t *owed;
	int r;

	r = sm_ports_of(f, &now, &n);
	if (r)
		return r;
	owed = malloc((n + 1) * sizeof(*owed));
	if (!owed) {
		free(now);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (!sm_sa_port_in(sa->port, sa->nports, now[i].guid) ||
		    sm_sa_rereg_owed(sa, now[i].guid))
			owed[k++] = now[i].guid;
	free(now);
	free(sa->rereg);
	sa->rereg = owed;
	sa->nrereg = k;
	return 0;
}

int sm_sa_ports_update(struct sm_sa *sa, const struct sm_fabric *f,
		       uint16_t sm_lid, struct sm_sa_report **reports,
		       unsigned int *nreports)
{
	struct sm_reports rs = { .sm_lid = sm_lid };
	struct sm_sa_port *now;
	unsigned int n, port;
	int node, r;

	*reports = NULL;
	*nreports = 0;
	sm_sa_put64(rs.sm_gid, sa->prefix);
	if (sm_fabric_lid_owner(f, sm_lid, &node, &port))
		sm_sa_put64(rs.sm_gid + 8, f->node[node].port[port].guid);
	r = sm_ports_of(f, &now, &n);
	if (!r && sa->keep_missed)
		r = sm_ports_keep_missed(sa, &now, &n);
	if (r)
		return r;
	r = sm_ports_diff(sa, &rs, now, n);
	free(sa->port);
	sa->port = now;
	sa->nports = n;
	if (r) {
		free(rs.r);
		return r;
	}
	*reports = rs.r;
	*nreports = rs.n;
	return 0;
}
