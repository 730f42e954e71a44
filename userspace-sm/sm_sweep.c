// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sweep: pib-sm reads the subnet with directed-route SMPs, breadth
 * first from its own port (IBA 14.2.2), into a struct sm_fabric; then it
 * configures what it found: LIDs and the SM's LID in every end port's
 * PortInfo, every switch's LinearFDBTop and LFT, and every port whose
 * link is up from Init to Armed to Active (IBA 14.4.7: Armed first on
 * all, so that no port goes Active before the forwarding tables are in).
 * Everything travels by directed route, so nothing depends on LIDs or
 * LFTs that may be wrong or missing.
 *
 * Each step is one batch of SMPs in flight at once (sm_smp.c): a level
 * of the subnet's breadth-first search costs three round trips, whatever
 * its number of switches and ports (four with pib switches, whose
 * LinkedPorts spare the PortInfo of ports that are down); the
 * configuration four.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "pib_sm.h"

/* An LFT block: 64 LIDs' ports (IBA 14.2.5.10). */
#define SM_LFT_BLOCK	64

/* Port @p of node @i as PortInfo @pi says. */
static void sm_take_port(struct sm_ctx *c, int i, unsigned int p,
			 uint8_t *pi)
{
	struct sm_port *port = &c->fab.node[i].port[p];

	memcpy(port->port_info, pi, SM_PORT_INFO_LEN);
	/* (a Set of what the SM keeps must not ask for it again) */
	mad_set_field(port->port_info, 0, IB_PORT_CLIENT_REREG_F, 0);
	port->state = mad_get_field(pi, 0, IB_PORT_STATE_F);
	port->mtu_cap = mad_get_field(pi, 0, IB_PORT_MTU_CAP_F);
	port->vl_cap = mad_get_field(pi, 0, IB_PORT_VL_CAP_F);
}

/* Run batch @b of NodeDescription and PortInfo Gets; take the answers. */
static void sm_take_read(struct sm_ctx *c, struct sm_batch *b)
{
	struct sm_smp_req *r;
	unsigned int k;

	sm_batch_run(c, b);
	for (k = 0; k < b->n; k++) {
		r = &b->r[k];
		if (r->status)
			continue;
		if (r->attr == IB_ATTR_NODE_DESC)
			memcpy(c->fab.node[r->node].node_desc, r->data,
			       SM_NODE_DESC_LEN);
		else
			sm_take_port(c, r->node, r->port, r->data);
	}
}

/*
 * NodeInfo @ni, answered at the end of route @r: the node there, found or
 * added with that route; @local is set to the port the SMP entered it
 * through. Return: its index, or a negative errno.
 */
static int sm_take_node(struct sm_ctx *c, const struct sm_smp_req *r,
			uint8_t *ni, unsigned int *local)
{
	unsigned int type, ports;
	uint64_t guid, port_guid;
	struct sm_node *node;
	int i;

	guid = mad_get_field64(ni, 0, IB_NODE_GUID_F);
	port_guid = mad_get_field64(ni, 0, IB_NODE_PORT_GUID_F);
	type = mad_get_field(ni, 0, IB_NODE_TYPE_F);
	ports = mad_get_field(ni, 0, IB_NODE_NPORTS_F);
	*local = mad_get_field(ni, 0, IB_NODE_LOCAL_PORT_F);
	if (*local > ports || (type != SM_NODE_SWITCH && !*local)) {
		sm_log(c, SM_LOG_ERR, "node %016llx: NodeInfo says it was entered through port %u of %u\n",
		       (unsigned long long)guid, *local, ports);
		return -EINVAL;
	}
	i = sm_fabric_find(&c->fab, guid);
	if (i != SM_NONE)
		return i;
	i = sm_fabric_add(&c->fab, guid, type, ports);
	if (i < 0) {
		sm_log(c, SM_LOG_ERR, "node %016llx (type %u, %u ports) not taken in: %s\n",
		       (unsigned long long)guid, type, ports, strerror(-i));
		return i;
	}
	node = &c->fab.node[i];
	memcpy(node->node_info, ni, SM_NODE_INFO_LEN);
	memcpy(node->path, r->path, sizeof(node->path));
	node->hops = r->hops;
	node->entry = *local;
	node->port[type == SM_NODE_SWITCH ? 0 : *local].guid = port_guid;
	return i;
}

/*
 * The LinkedPorts of the pib switches among nodes @first .. num_nodes - 1
 * (<rdma/pib-abi.h>): one SMP each, where every port's PortInfo would be
 * 129. Return: 0, or -ENOMEM.
 */
static int sm_read_linked(struct sm_ctx *c, struct sm_batch *b, int first)
{
	struct sm_node *n;
	unsigned int k;
	int i;

	b->n = 0;
	for (i = first; i < c->fab.num_nodes; i++)
		if (sm_node_is_pib_switch(&c->fab.node[i]) &&
		    !sm_batch_add(c, b, i, 0, 0, 0, PIB_SMP_ATTR_LINKED_PORTS, 0))
			return -ENOMEM;
	if (!b->n)
		return 0;
	sm_batch_run(c, b);
	for (k = 0; k < b->n; k++) {
		/*
		 * Then every port is read. A switch that refuses the
		 * attribute (pib.ko from before it, or another's switch
		 * with that VendorID) answered: no failure, which would
		 * have every sweep made again soon.
		 */
		if (b->r[k].status == -EOPNOTSUPP)
			c->smp_errors--;
		if (b->r[k].status)
			continue;
		n = &c->fab.node[b->r[k].node];
		memcpy(n->linked, b->r[k].data, sizeof(n->linked));
		n->linked_known = 1;
	}
	return 0;
}

/*
 * Read what is new of nodes @first .. num_nodes - 1: their NodeDescription,
 * a CA's port it was entered by, a switch's ports (sm_port_to_read()).
 * Return: 0, or -ENOMEM.
 */
static int sm_read_new(struct sm_ctx *c, struct sm_batch *b, int first)
{
	unsigned int p;
	int i;

	if (sm_read_linked(c, b, first))
		return -ENOMEM;
	b->n = 0;
	for (i = first; i < c->fab.num_nodes; i++) {
		if (!sm_batch_add(c, b, i, 0, 0, 0, IB_ATTR_NODE_DESC, 0))
			return -ENOMEM;
		for (p = 0; p <= c->fab.node[i].num_ports; p++) {
			if (!sm_port_to_read(&c->fab.node[i], p))
				continue;
			if (!sm_batch_add(c, b, i, p, 0, 0, IB_ATTR_PORT_INFO, p))
				return -ENOMEM;
		}
	}
	sm_take_read(c, b);
	return 0;
}

/*
 * The PortInfo of switch ports that the sweep linked but did not read: a
 * pib switch's port that came up after its LinkedPorts were read, linked
 * from the other end. Unread, it would stay out of the configuration (in
 * INIT, it forwards nothing) until another change. Return: 0, or -ENOMEM.
 */
static int sm_read_late(struct sm_ctx *c, struct sm_batch *b)
{
	const struct sm_node *n;
	unsigned int p;
	int i;

	b->n = 0;
	for (i = 0; i < c->fab.num_nodes; i++) {
		n = &c->fab.node[i];
		if (!sm_node_is_switch(n))
			continue;
		for (p = 1; p <= n->num_ports; p++)
			if (n->port[p].peer != SM_NONE && !sm_port_to_read(n, p) &&
			    !sm_batch_add(c, b, i, p, 0, 0, IB_ATTR_PORT_INFO, p))
				return -ENOMEM;
	}
	sm_take_read(c, b);
	return 0;
}

/* Should the sweep look behind port @p of node @i? */
static int sm_to_explore(const struct sm_ctx *c, int i, unsigned int p)
{
	const struct sm_node *n = &c->fab.node[i];

	return p && n->port[p].state >= SM_PORT_INIT &&
	       n->port[p].peer == SM_NONE && n->hops < SM_MAX_HOPS &&
	       (sm_node_is_switch(n) || (i == c->root && p == n->entry));
}

/*
 * NodeInfo behind every port of nodes @first .. num_nodes - 1 that is up
 * and leads somewhere not seen yet; the nodes found are added and linked.
 * Return: 0, or -ENOMEM.
 */
static int sm_explore(struct sm_ctx *c, struct sm_batch *b, int first)
{
	unsigned int p, k, local;
	struct sm_smp_req *r;
	int i, j, last = c->fab.num_nodes;

	b->n = 0;
	for (i = first; i < last; i++)
		for (p = 1; p <= c->fab.node[i].num_ports; p++)
			if (sm_to_explore(c, i, p) &&
			    !sm_batch_add(c, b, i, p, p, 0, IB_ATTR_NODE_INFO, 0))
				return -ENOMEM;
	sm_batch_run(c, b);
	for (k = 0; k < b->n; k++) {
		r = &b->r[k];
		if (r->status)
			continue;
		j = sm_take_node(c, r, r->data, &local);
		if (j < 0 || c->fab.node[r->node].port[r->port].peer != SM_NONE)
			continue;	/* (linked from the other side already) */
		if (sm_fabric_link(&c->fab, r->node, r->port, j, local))
			sm_log(c, SM_LOG_ERR, "node %016llx port %u: linked to %016llx port %u, seen elsewhere before\n",
			       (unsigned long long)c->fab.node[r->node].guid,
			       r->port, (unsigned long long)c->fab.node[j].guid,
			       local);
	}
	return 0;
}

/*
 * Sweep the subnet anew into c->fab: the SM's own node, the node behind
 * its port, and level by level every switch's ports. Ports that cannot be
 * read, or lead to nodes that do not answer, are left out (a later sweep
 * tries again). Return: 0, or a negative errno if not even the SM's own
 * port could be read.
 */
int sm_discover(struct sm_ctx *c)
{
	struct sm_batch b = { 0 };
	struct sm_smp_req self;
	unsigned int local;
	int first = 0, last, r = 0;

	sm_fabric_free(&c->fab);
	sm_fabric_init(&c->fab);
	c->smps = c->smp_errors = 0;
	/* A local SMP names the port it came in by: the SM's own port. */
	memset(&self, 0, sizeof(self));
	sm_smp_req_init(&self, self.path, 0, 0, 0, IB_ATTR_NODE_INFO, 0);
	if (sm_smp_batch(c, &self, 1))
		return -EIO;
	c->root = sm_take_node(c, &self, self.data, &local);
	if (c->root < 0)
		return c->root;
	if (sm_node_is_switch(&c->fab.node[c->root]))
		return -EOPNOTSUPP;	/* an SM on a switch's port 0 */
	/* Nodes are added in the order found: breadth first. */
	while (!r && first < c->fab.num_nodes) {
		last = c->fab.num_nodes;
		r = sm_read_new(c, &b, first);
		if (!r)
			r = sm_explore(c, &b, first);
		first = last;
	}
	if (!r)
		r = sm_read_late(c, &b);
	free(b.r);
	return r;
}

/* The smaller of two capabilities, 0 meaning unknown. */
static unsigned int sm_min_cap(unsigned int a, unsigned int b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* Does port @p of node @n carry a link whose state the SM drives? */
static int sm_link_port(const struct sm_node *n, unsigned int p)
{
	return (p == 0 && sm_node_is_switch(n)) ||
	       (p && n->port[p].peer != SM_NONE);
}

/* The LFT block @b that switch @n should have, in @want. */
static void sm_lft_want(const struct sm_node *n, unsigned int b, uint8_t *want)
{
	unsigned int k, lid;

	for (k = 0; k < SM_LFT_BLOCK; k++) {
		lid = b * SM_LFT_BLOCK + k;
		want[k] = lid < n->lft_len ? n->lft[lid] : SM_LFT_DROP;
	}
}

/* Each switch's SwitchInfo and LFT blocks, read. Return: 0 or -ENOMEM. */
static int sm_read_tables(struct sm_ctx *c, struct sm_batch *b)
{
	unsigned int blk, top = c->fab.top_lid;
	int i;

	b->n = 0;
	for (i = 0; i < c->fab.num_nodes; i++) {
		if (!sm_node_is_switch(&c->fab.node[i]))
			continue;
		if (!sm_batch_add(c, b, i, 0, 0, 0, IB_ATTR_SWITCH_INFO, 0))
			return -ENOMEM;
		for (blk = 0; blk <= top / SM_LFT_BLOCK; blk++)
			if (!sm_batch_add(c, b, i, 0, 0, 0,
					  IB_ATTR_LINEARFORWTBL, blk))
				return -ENOMEM;
	}
	sm_batch_run(c, b);
	return 0;
}

/*
 * Turn the answers of sm_read_tables() into the Sets of what differs:
 * LinearFDBTop and LFT blocks. Return: 0 or -ENOMEM.
 */
static int sm_table_sets(struct sm_ctx *c, struct sm_batch *rd,
			 struct sm_batch *b)
{
	unsigned int k, top = c->fab.top_lid;
	struct sm_smp_req *q;
	uint8_t want[SM_LFT_BLOCK];
	struct sm_smp_req *r;
	struct sm_node *n;

	for (k = 0; k < rd->n; k++) {
		q = &rd->r[k];
		n = &c->fab.node[q->node];
		if (q->status)
			continue;
		if (q->attr == IB_ATTR_SWITCH_INFO) {
			memcpy(n->switch_info, q->data, SM_SWITCH_INFO_LEN);
			if (mad_get_field(q->data, 0, IB_SW_LINEAR_FDB_TOP_F) == top)
				continue;
		} else {
			sm_lft_want(n, q->mod, want);
			if (!memcmp(q->data, want, sizeof(want)))
				continue;
		}
		r = sm_batch_add(c, b, q->node, 0, 0, 1, q->attr, q->mod);
		if (!r)
			return -ENOMEM;
		memcpy(r->data, q->data, sizeof(r->data));
		if (q->attr == IB_ATTR_SWITCH_INFO) {
			mad_set_field(r->data, 0, IB_SW_LINEAR_FDB_TOP_F, top);
			memcpy(n->switch_info, r->data, SM_SWITCH_INFO_LEN);
		} else {
			memcpy(r->data, want, sizeof(want));
		}
	}
	return 0;
}

/*
 * The Sets of end ports whose LID or SM LID is not what the SM gave them
 * (from the PortInfo the sweep read), and with ClientReregister those of
 * every end port when the SM became master, and of the ports the SA owes
 * one (sm_sa_rereg_note()). Return: 0 or -ENOMEM.
 */
static int sm_lid_sets(struct sm_ctx *c, struct sm_batch *b, uint16_t sm_lid)
{
	struct sm_smp_req *r;
	struct sm_port *port;
	unsigned int p;
	int i, rereg;

	for (i = 0; i < c->fab.num_nodes; i++) {
		for (p = 0; p <= c->fab.node[i].num_ports; p++) {
			port = &c->fab.node[i].port[p];
			rereg = c->rereg_due ||
				sm_sa_rereg_owed(&c->sa, port->guid);
			if (!port->lid || !port->state ||
			    (!rereg &&
			     mad_get_field(port->port_info, 0, IB_PORT_LID_F) == port->lid &&
			     mad_get_field(port->port_info, 0, IB_PORT_SMLID_F) == sm_lid))
				continue;
			r = sm_batch_add(c, b, i, p, 0, 1, IB_ATTR_PORT_INFO, p);
			if (!r)
				return -ENOMEM;
			memcpy(r->data, port->port_info, SM_PORT_INFO_LEN);
			mad_set_field(r->data, 0, IB_PORT_LID_F, port->lid);
			mad_set_field(r->data, 0, IB_PORT_SMLID_F, sm_lid);
			mad_set_field(r->data, 0, IB_PORT_LMC_F, 0);
			mad_set_field(r->data, 0, IB_PORT_CLIENT_REREG_F, rereg);
			mad_set_field(r->data, 0, IB_PORT_STATE_F, SM_PORT_NOP);
			mad_set_field(r->data, 0, IB_PORT_PHYS_STATE_F, 0);
		}
	}
	return 0;
}

/* P_Keys in one block of a PartitionTable (IBA 14.2.5.7). */
#define SM_PKEY_BLOCK	32

/*
 * The P_Key tables a partition file gives (sm_part.h) to every end port
 * the sweep reached (a CA's port the route ends at: a CA's PartitionTable
 * is the receiving port's; a switch's port 0), in its first block; none
 * without a file, where each port keeps the default partition its SMA
 * starts with. Return: 0 or -ENOMEM.
 */
static int sm_pkey_sets(struct sm_ctx *c, struct sm_batch *b)
{
	uint16_t keys[SM_PKEY_BLOCK];
	const struct sm_node *n;
	struct sm_smp_req *r;
	unsigned int p, k, cap, want;
	int i;

	for (i = 0; c->parts.file && i < c->fab.num_nodes; i++) {
		n = &c->fab.node[i];
		cap = mad_get_field((void *)n->node_info, 0, IB_NODE_PARTITION_CAP_F);
		cap = cap < SM_PKEY_BLOCK ? cap : SM_PKEY_BLOCK;
		for (p = 0; p <= n->num_ports; p++) {
			if (!n->port[p].lid ||
			    p != (sm_node_is_switch(n) ? 0 : n->entry))
				continue;
			memset(keys, 0, sizeof(keys));
			want = sm_parts_pkeys(&c->parts, n->port[p].guid, n->type,
					      c->port_guid, keys, cap);
			if (want > cap)
				sm_log(c, SM_LOG_ERR, "port 0x%016" PRIx64 " is in %u partitions; its P_Key table holds %u\n",
				       n->port[p].guid, want, cap);
			/* (modifier: block 0; of port 0, on a switch) */
			r = sm_batch_add(c, b, i, p, 0, 1, IB_ATTR_PKEY_TBL, 0);
			if (!r)
				return -ENOMEM;
			for (k = 0; k < SM_PKEY_BLOCK; k++) {
				r->data[2 * k] = keys[k] >> 8;
				r->data[2 * k + 1] = keys[k] & 0xff;
			}
		}
	}
	return 0;
}

/*
 * Move every link port in state @from to @to, from the PortInfo the sweep
 * keeps; Armed takes the MTU and VLs both ends of the link can do.
 * Return: how many moved, or -ENOMEM.
 */
static int sm_move_ports(struct sm_ctx *c, struct sm_batch *b,
			 unsigned int from, unsigned int to)
{
	const struct sm_port *peer;
	struct sm_smp_req *r;
	struct sm_node *n;
	unsigned int p, k;
	int i, moved = 0;

	b->n = 0;
	for (i = 0; i < c->fab.num_nodes; i++) {
		n = &c->fab.node[i];
		for (p = 0; p <= n->num_ports; p++) {
			if (!sm_link_port(n, p) || n->port[p].state != from)
				continue;
			r = sm_batch_add(c, b, i, p, 0, 1, IB_ATTR_PORT_INFO, p);
			if (!r)
				return -ENOMEM;
			memcpy(r->data, n->port[p].port_info, SM_PORT_INFO_LEN);
			peer = p && n->port[p].peer != SM_NONE ?
			       &c->fab.node[n->port[p].peer].port[n->port[p].peer_port] :
			       NULL;
			if (peer && to == SM_PORT_ARMED) {
				mad_set_field(r->data, 0, IB_PORT_NEIGHBOR_MTU_F,
					      sm_min_cap(n->port[p].mtu_cap, peer->mtu_cap));
				mad_set_field(r->data, 0, IB_PORT_OPER_VLS_F,
					      sm_min_cap(n->port[p].vl_cap, peer->vl_cap));
			}
			mad_set_field(r->data, 0, IB_PORT_STATE_F, to);
			mad_set_field(r->data, 0, IB_PORT_PHYS_STATE_F, 0);
		}
	}
	sm_batch_run(c, b);
	for (k = 0; k < b->n; k++) {
		r = &b->r[k];
		if (r->status)
			continue;
		/* The answer: the port as it is now. */
		sm_take_port(c, r->node, r->port, r->data);
		c->fab.node[r->node].port[r->port].state = to;
		moved++;
	}
	return moved;
}

/* Does the LID map give @lid to some port? */
static int sm_lid_known(const struct sm_lidmap *m, unsigned int lid)
{
	unsigned int k;

	for (k = 0; k < m->len; k++)
		if (m->lid[k] == lid)
			return 1;
	return 0;
}

/*
 * The LIDs the ports have now (another SM gave them), for the ports whose
 * GUID the LID map does not know yet, unless it has another port's: an SM
 * that takes over keeps them.
 */
static void sm_keep_lids(struct sm_ctx *c)
{
	struct sm_port *port;
	unsigned int p, lid;
	int i;

	for (i = 0; i < c->fab.num_nodes; i++) {
		for (p = 0; p <= c->fab.node[i].num_ports; p++) {
			port = &c->fab.node[i].port[p];
			if (!port->guid || !port->state ||
			    sm_lidmap_get(&c->lids, port->guid))
				continue;
			lid = mad_get_field(port->port_info, 0, IB_PORT_LID_F);
			if (lid && lid <= SM_LID_UCAST_MAX &&
			    !sm_lid_known(&c->lids, lid))
				sm_lidmap_set(&c->lids, port->guid, lid);
		}
	}
}

/*
 * Configure what sm_discover() found: LIDs, forwarding tables, then the
 * ports' states. Return: 0, or a negative errno (-ENOSPC: out of LIDs).
 */
int sm_configure(struct sm_ctx *c, struct sm_sweep_stats *st)
{
	struct sm_batch rd = { 0 }, b = { 0 };
	struct sm_fabric *f = &c->fab;
	struct sm_smp_req *r;
	unsigned int k;
	int i, rereg;

	memset(st, 0, sizeof(*st));
	sm_keep_lids(c);
	i = sm_lids_assign(f, &c->lids);
	if (!i)
		i = sm_route_minhop(f);
	if (i)
		return i;
	c->sm_lid = f->node[c->root].port[f->node[c->root].entry].lid;
	for (i = 0; i < f->num_nodes; i++)
		sm_node_is_switch(&f->node[i]) ? st->switches++ : st->cas++;
	/* One batch reads the tables, one sets them and the LIDs. */
	i = sm_read_tables(c, &rd);
	if (!i)
		i = sm_sa_rereg_note(&c->sa, f);
	if (!i)
		i = sm_table_sets(c, &rd, &b);
	if (!i)
		i = sm_lid_sets(c, &b, c->sm_lid);
	if (!i)
		i = sm_pkey_sets(c, &b);
	if (!i) {
		sm_batch_run(c, &b);
		rereg = c->rereg_due;
		c->rereg_due = 0;
		for (k = 0; k < b.n; k++) {
			r = &b.r[k];
			if (r->attr == IB_ATTR_PKEY_TBL && r->status)
				sm_log(c, SM_LOG_ERR, "P_Key table of port 0x%016" PRIx64 " not set\n",
				       f->node[r->node].port[r->port].guid);
			if (r->attr != IB_ATTR_PORT_INFO)
				continue;
			if (r->status) {
				/* (a reregistration that failed: all again) */
				c->rereg_due = rereg;
				continue;
			}
			sm_take_port(c, r->node, r->port, r->data);
			sm_sa_rereg_done(&c->sa, f->node[r->node].port[r->port].guid);
			st->lids_set++;
		}
		i = st->armed = sm_move_ports(c, &b, SM_PORT_INIT, SM_PORT_ARMED);
	}
	if (i >= 0)
		i = st->activated = sm_move_ports(c, &b, SM_PORT_ARMED,
						  SM_PORT_ACTIVE);
	free(rd.r);
	free(b.r);
	return i < 0 ? i : 0;
}

/**
 * sm_light_sweep() - has the subnet changed since the last sweep?
 * @c: the SM, after a sweep
 *
 * Reads the SM's own NodeInfo and every known switch's SwitchInfo, one
 * SMP each (IBA 14.4.8: a switch sets PortStateChange when one of its
 * ports changes state), and clears the PortStateChange it finds, before
 * the heavy sweep that follows reads the ports: a change after the clear
 * is seen by that sweep or flagged again for the next light one.
 *
 * Return: 1 if a heavy sweep is due (a port changed state, a switch or
 * the SM's own port does not answer, or nothing was swept yet), else 0.
 */
int sm_light_sweep(struct sm_ctx *c)
{
	struct sm_batch b = { 0 }, clr = { 0 };
	int i, due = 0, changed = 0;
	struct sm_smp_req *r;
	unsigned int k;

	if (!c->fab.num_nodes)
		return 1;
	for (i = 0; i < c->fab.num_nodes && !due; i++) {
		if (i != c->root && !sm_node_is_switch(&c->fab.node[i]))
			continue;
		if (!sm_batch_add(c, &b, i, 0, 0, 0, i == c->root ?
				  IB_ATTR_NODE_INFO : IB_ATTR_SWITCH_INFO, 0))
			due = 1;
	}
	if (!due && sm_batch_run(c, &b))
		due = 1;
	for (k = 0; k < b.n && !due; k++) {
		if (b.r[k].attr != IB_ATTR_SWITCH_INFO ||
		    !mad_get_field(b.r[k].data, 0, IB_SW_STATE_CHANGE_F))
			continue;
		/* Writing PortStateChange 1 clears it; the rest as read. */
		changed = 1;
		r = sm_batch_add(c, &clr, b.r[k].node, 0, 0, 1,
				 IB_ATTR_SWITCH_INFO, 0);
		if (r)
			memcpy(r->data, b.r[k].data, sizeof(r->data));
	}
	if (changed) {
		sm_batch_run(c, &clr);
		due = 1;
	}
	free(b.r);
	free(clr.r);
	return due;
}
