// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Directed-route SMPs in batches: a sweep asks many nodes many things at
 * once (every port of every switch of a level of the subnet, every LFT
 * block), and waits for a round trip per batch instead of one per SMP.
 * Up to SM_SMP_WINDOW SMPs are in flight; the kernel's MAD layer times
 * each out and resends it, and hands back either the answer or the SMP
 * that got none, both with the TransactionID the SMP went with. The
 * timeout follows the answers' round trips (sm_smp_timeout()).
 *
 * The SMPs go through the SMI agent that libibmad registered on its umad
 * port (mad_rpc_open_port()); nothing else uses that port meanwhile.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "pib_sm.h"

/* SMPs in flight at once: well within the MAD layer's send queue. */
#define SM_SMP_WINDOW	32
/* Times the kernel resends an SMP that got no answer. */
#define SM_SMP_RETRIES	2
/* The permissive LID: a directed route's ends (IBA 14.2.2). */
#define SM_PERMISSIVE	0xffff

/**
 * sm_smp_req_init() - a request for attribute @attr of the node at the end
 *	of route @path, or @p hops further (@p 0: that node itself)
 * @r: the request
 * @path: the route (@path[1 .. @hops]: the ports out of each switch)
 * @hops: its length
 * @p: 0, or the port of the node there (a switch) to go one hop further
 *	out of
 * @set: 0 Get, 1 Set (of @r->data, filled in by the caller)
 * @attr: the attribute
 * @mod: its modifier
 */
void sm_smp_req_init(struct sm_smp_req *r, const uint8_t *path,
		     unsigned int hops, unsigned int p, int set,
		     unsigned int attr, unsigned int mod)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->path, path, sizeof(r->path));
	r->hops = (uint8_t)hops;
	if (p) {
		r->hops++;
		r->path[r->hops] = (uint8_t)p;
	}
	r->set = set;
	r->attr = attr;
	r->mod = mod;
	r->status = -EINPROGRESS;
}

/* Send @r with TransactionID @tid. Return: 0, or a negative errno. */
static int sm_smp_send(struct sm_ctx *c, struct sm_smp_req *r, uint32_t tid,
		       uint8_t *buf)
{
	ib_rpc_t rpc = { 0 };
	ib_portid_t id;
	int len;

	memset(&id, 0, sizeof(id));
	id.drpath.cnt = r->hops;
	memcpy(id.drpath.p, r->path, r->hops + 1u);
	id.drpath.drslid = SM_PERMISSIVE;
	id.drpath.drdlid = SM_PERMISSIVE;
	rpc.mgtclass = IB_SMI_DIRECT_CLASS;
	rpc.method = r->set ? IB_MAD_METHOD_SET : IB_MAD_METHOD_GET;
	rpc.attr.id = r->attr;
	rpc.attr.mod = r->mod;
	rpc.datasz = IB_SMP_DATA_SIZE;
	rpc.dataoffs = IB_SMP_DATA_OFFS;
	rpc.trid = tid;
	memset(buf, 0, umad_size() + IB_MAD_SIZE);
	len = mad_build_pkt(buf, &rpc, &id, NULL, r->data);
	if (len < 0)
		return -EINVAL;
	c->smps++;
	r->sent_ms = sm_now_ms();
	if (umad_send(mad_rpc_portid(c->mad),
		      mad_rpc_class_agent(c->mad, IB_SMI_DIRECT_CLASS), buf,
		      IB_MAD_SIZE,
		      (int)sm_smp_timeout(c->smp_rtt_ms, c->timeout_ms),
		      SM_SMP_RETRIES) < 0)
		return -EIO;
	return 0;
}

/*
 * Take what came back in @buf: the answer to, or the failure of, one of
 * the @n requests @r, sent with TransactionIDs @base + index. Return: 1
 * if it finished one of them, 0 for anything else.
 */
static int sm_smp_take(struct sm_ctx *c, struct sm_smp_req *r,
		       unsigned int n, uint32_t base, uint8_t *buf)
{
	uint8_t *mad = umad_get_mad(buf);
	/* (the kernel keeps the upper half of a TransactionID for itself) */
	uint32_t k = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) - base;

	if (k >= n || r[k].status != -EINPROGRESS ||
	    mad_get_field(mad, 0, IB_MAD_ATTRID_F) != r[k].attr)
		return 0;	/* not one of ours (a late answer) */
	if (umad_status(buf) ||
	    mad_get_field(mad, 0, IB_DRSMP_STATUS_F)) {
		/* (an answer with a bad MAD status: the node refused) */
		r[k].status = umad_status(buf) ? -EIO : -EOPNOTSUPP;
		c->smp_errors++;
		sm_log(c, SM_LOG_DEBUG, "SMP %s 0x%x.%u by a %u-hop route failed\n",
		       r[k].set ? "Set" : "Get", r[k].attr, r[k].mod,
		       r[k].hops);
		return 1;
	}
	memcpy(r[k].data, mad + IB_SMP_DATA_OFFS, IB_SMP_DATA_SIZE);
	r[k].status = 0;
	c->smp_rtt_ms = sm_rtt_update(c->smp_rtt_ms,
				      (unsigned int)(sm_now_ms() - r[k].sent_ms));
	return 1;
}

/**
 * sm_smp_batch() - send @n SMPs, at most SM_SMP_WINDOW at once, and wait
 *	for all of them
 * @c: the SM
 * @r: the requests (sm_smp_req_init()); each gets its status (0, -EIO
 *	when no answer came, -EOPNOTSUPP for an answer with a bad MAD
 *	status) and, if 0, the answer's data
 * @n: how many
 *
 * Return: how many failed.
 */
unsigned int sm_smp_batch(struct sm_ctx *c, struct sm_smp_req *r,
			  unsigned int n)
{
	int wait_ms = (int)c->timeout_ms * (SM_SMP_RETRIES + 1) + 1000;
	unsigned int sent = 0, done = 0, busy = 0, k, failed = 0;
	uint32_t base;
	uint8_t *buf;
	int len;

	/* (libibmad makes up a TransactionID for 0: none of ours is 0) */
	if (!c->smp_tid || c->smp_tid > UINT32_MAX - n)
		c->smp_tid = 1;
	base = c->smp_tid;
	c->smp_tid += n;
	buf = calloc(1, umad_size() + IB_MAD_SIZE);
	while (buf && done < n) {
		while (sent < n && busy < SM_SMP_WINDOW) {
			if (sm_smp_send(c, &r[sent], base + sent, buf)) {
				r[sent].status = -EIO;
				done++;
			} else {
				busy++;
			}
			sent++;
		}
		if (!busy)
			continue;
		len = IB_MAD_SIZE;
		if (umad_recv(mad_rpc_portid(c->mad), buf, &len, wait_ms) < 0)
			break;	/* the kernel owes answers: give up on them */
		if (sm_smp_take(c, r, n, base, buf)) {
			busy--;
			done++;
		}
	}
	free(buf);
	for (k = 0; k < n; k++) {
		if (r[k].status == -EINPROGRESS)
			r[k].status = -EIO;
		failed += r[k].status != 0;
	}
	return failed;
}

/**
 * sm_batch_add() - a new request of batch @b about port @p of node @i
 * @c: the SM
 * @b: the batch (zeroed at first; its owner frees b->r)
 * @i: the node whose route the SMP takes
 * @p: the port it is about (kept in the request, for the caller)
 * @go: 0, or the port of node @i to go one hop further out of
 * @set: 0 Get, 1 Set (of the request's data, filled in by the caller)
 * @attr: the attribute
 * @mod: its modifier
 *
 * Return: the request, initialised, or NULL if out of memory.
 */
struct sm_smp_req *sm_batch_add(struct sm_ctx *c, struct sm_batch *b, int i,
				unsigned int p, unsigned int go, int set,
				unsigned int attr, unsigned int mod)
{
	const struct sm_node *n = &c->fab.node[i];
	struct sm_smp_req *r;
	unsigned int cap;

	if (b->n == b->cap) {
		cap = b->cap ? 2 * b->cap : 64;
		r = realloc(b->r, cap * sizeof(*r));
		if (!r)
			return NULL;
		b->r = r;
		b->cap = cap;
	}
	r = &b->r[b->n++];
	sm_smp_req_init(r, n->path, n->hops, go, set, attr, mod);
	r->node = i;
	r->port = p;
	return r;
}

/**
 * sm_batch_run() - send the SMPs of batch @b and wait for them
 * @c: the SM
 * @b: the batch
 *
 * Return: how many failed.
 */
unsigned int sm_batch_run(struct sm_ctx *c, struct sm_batch *b)
{
	return b->n ? sm_smp_batch(c, b->r, b->n) : 0;
}

/**
 * sm_smp() - Get or Set an attribute of a node by directed route, alone
 * @c: the SM
 * @n: the node (its route)
 * @set: 0 Get, 1 Set
 * @attr: the attribute
 * @mod: its modifier
 * @buf: IB_SMP_DATA_SIZE bytes: what to set, and the answer
 *
 * Return: 0, or -EIO if no good answer came.
 */
int sm_smp(struct sm_ctx *c, const struct sm_node *n, int set,
	   unsigned int attr, unsigned int mod, uint8_t *buf)
{
	struct sm_smp_req r;

	sm_smp_req_init(&r, n->path, n->hops, 0, set, attr, mod);
	memcpy(r.data, buf, IB_SMP_DATA_SIZE);
	if (sm_smp_batch(c, &r, 1))
		return -EIO;
	memcpy(buf, r.data, IB_SMP_DATA_SIZE);
	return 0;
}
