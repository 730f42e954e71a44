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
 */
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "pib_sm.h"

/* An LFT block: 64 LIDs' ports (IBA 14.2.5.10). */
#define SM_LFT_BLOCK	64
/* The permissive LID: a directed route's ends (IBA 14.2.2). */
#define SM_PERMISSIVE	0xffff

/* The directed route to @n. */
static void sm_route_to(const struct sm_node *n, ib_portid_t *id)
{
	memset(id, 0, sizeof(*id));
	id->drpath.cnt = n->hops;
	memcpy(id->drpath.p, n->path, n->hops + 1u);
	id->drpath.drslid = SM_PERMISSIVE;
	id->drpath.drdlid = SM_PERMISSIVE;
}

/**
 * sm_smp() - Get or Set an attribute of a node by directed route
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
	ib_portid_t id;
	uint8_t *r;

	sm_route_to(n, &id);
	c->smps++;
	r = set ? smp_set_via(buf, &id, attr, mod, c->timeout_ms, c->mad) :
	    smp_query_via(buf, &id, attr, mod, c->timeout_ms, c->mad);
	if (r)
		return 0;
	c->smp_errors++;
	sm_log(c, SM_LOG_DEBUG, "SMP %s 0x%x.%u to %016llx failed\n",
	       set ? "Set" : "Get", attr, mod, (unsigned long long)n->guid);
	return -EIO;
}

/* PortInfo of port @p of node @i: its state, 0 if it cannot be read. */
static unsigned int sm_port_state(struct sm_ctx *c, int i, unsigned int p)
{
	uint8_t pi[IB_SMP_DATA_SIZE] = { 0 };
	unsigned int state;

	if (sm_smp(c, &c->fab.node[i], 0, IB_ATTR_PORT_INFO, p, pi))
		return 0;
	memcpy(c->fab.node[i].port[p].port_info, pi, SM_PORT_INFO_LEN);
	state = mad_get_field(pi, 0, IB_PORT_STATE_F);
	c->fab.node[i].port[p].state = state;
	c->fab.node[i].port[p].mtu_cap = mad_get_field(pi, 0, IB_PORT_MTU_CAP_F);
	c->fab.node[i].port[p].vl_cap = mad_get_field(pi, 0, IB_PORT_VL_CAP_F);
	return state;
}

/*
 * NodeInfo at the end of route @n: the node there, added if it is new;
 * @local is set to the port the SMP entered it through. Return: its
 * index, or a negative errno.
 */
static int sm_visit(struct sm_ctx *c, const struct sm_node *n,
		    unsigned int *local)
{
	uint8_t ni[IB_SMP_DATA_SIZE] = { 0 };
	unsigned int type, ports;
	uint64_t guid, port_guid;
	struct sm_node *node;
	int i;

	if (sm_smp(c, n, 0, IB_ATTR_NODE_INFO, 0, ni))
		return -EIO;
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
		sm_log(c, SM_LOG_ERR, "node %016llx: bad NodeInfo (type %u, %u ports)\n",
		       (unsigned long long)guid, type, ports);
		return i;
	}
	node = &c->fab.node[i];
	memcpy(node->node_info, ni, SM_NODE_INFO_LEN);
	memcpy(node->path, n->path, sizeof(node->path));
	node->hops = n->hops;
	node->entry = *local;
	node->port[type == SM_NODE_SWITCH ? 0 : *local].guid = port_guid;
	/* For the SA's NodeRecords; a node without one still counts. */
	memset(ni, 0, sizeof(ni));
	if (!sm_smp(c, node, 0, IB_ATTR_NODE_DESC, 0, ni))
		memcpy(node->node_desc, ni, SM_NODE_DESC_LEN);
	return i;
}

/*
 * Port @p of node @i: if its link is up, the node behind it (found or
 * added) and the link between them. Return: that node's index, SM_NONE
 * for no link, or a negative errno.
 */
static int sm_explore(struct sm_ctx *c, int i, unsigned int p)
{
	struct sm_node next;
	unsigned int local;
	int j, r;

	if (sm_port_state(c, i, p) < SM_PORT_INIT ||
	    c->fab.node[i].hops >= SM_MAX_HOPS)
		return SM_NONE;
	if (c->fab.node[i].port[p].peer != SM_NONE)
		return c->fab.node[i].port[p].peer;	/* seen from there */
	memset(&next, 0, sizeof(next));
	memcpy(next.path, c->fab.node[i].path, sizeof(next.path));
	next.hops = c->fab.node[i].hops + 1;
	next.path[next.hops] = p;
	j = sm_visit(c, &next, &local);
	if (j < 0)
		return j;
	/* A CA's port is read where it is entered (a switch's, in its turn). */
	if (!sm_node_is_switch(&c->fab.node[j]))
		sm_port_state(c, j, local);
	r = sm_fabric_link(&c->fab, i, p, j, local);
	if (r) {
		sm_log(c, SM_LOG_ERR, "node %016llx port %u: linked to %016llx port %u, seen elsewhere before\n",
		       (unsigned long long)c->fab.node[i].guid, p,
		       (unsigned long long)c->fab.node[j].guid, local);
		return r;
	}
	return j;
}

/*
 * Sweep the subnet anew into c->fab: the SM's own node, the node behind
 * its port, and breadth first every switch's ports. Ports that cannot be
 * read, or lead to nodes that do not answer, are left out (a later sweep
 * tries again). Return: 0, or a negative errno if not even the SM's own
 * port could be read.
 */
int sm_discover(struct sm_ctx *c)
{
	struct sm_node self;
	unsigned int local, p;
	int i, r;

	sm_fabric_free(&c->fab);
	sm_fabric_init(&c->fab);
	c->smps = c->smp_errors = 0;
	memset(&self, 0, sizeof(self));
	/* A local SMP names the port it came in by: the SM's own port. */
	c->root = sm_visit(c, &self, &local);
	if (c->root < 0)
		return c->root;
	if (sm_node_is_switch(&c->fab.node[c->root]))
		return -EOPNOTSUPP;	/* an SM on a switch's port 0 */
	r = sm_explore(c, c->root, local);
	if (r < 0)
		sm_log(c, SM_LOG_INFO, "nothing answers behind port %u\n", local);
	/* Nodes are added in the order found: breadth first. */
	for (i = 0; i < c->fab.num_nodes; i++) {
		if (!sm_node_is_switch(&c->fab.node[i]))
			continue;
		sm_port_state(c, i, 0);
		for (p = 1; p <= c->fab.node[i].num_ports; p++)
			sm_explore(c, i, p);
	}
	return 0;
}

/* The smaller of two capabilities, 0 meaning unknown. */
static unsigned int sm_min_cap(unsigned int a, unsigned int b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * Set what the SM decides in port @p of node @i's PortInfo, read first so
 * that the rest stays as it is: the LID and the SM's LID (@lid 0: keep
 * them), on a linked port the MTU and VLs both ends can do, and @state
 * (SM_PORT_NOP: keep it). A port that has it all already gets no Set.
 * Return: 1 if a Set went out, 0 if none was needed, or -EIO.
 */
static int sm_set_port(struct sm_ctx *c, int i, unsigned int p, uint16_t lid,
		       uint16_t sm_lid, unsigned int state)
{
	struct sm_node *n = &c->fab.node[i];
	uint8_t pi[IB_SMP_DATA_SIZE] = { 0 };
	const struct sm_port *peer = NULL;
	int change = state != SM_PORT_NOP;

	if (sm_smp(c, n, 0, IB_ATTR_PORT_INFO, p, pi))
		return -EIO;
	if (lid && (mad_get_field(pi, 0, IB_PORT_LID_F) != lid ||
		    mad_get_field(pi, 0, IB_PORT_SMLID_F) != sm_lid)) {
		mad_set_field(pi, 0, IB_PORT_LID_F, lid);
		mad_set_field(pi, 0, IB_PORT_SMLID_F, sm_lid);
		mad_set_field(pi, 0, IB_PORT_LMC_F, 0);
		change = 1;
	}
	if (!change)
		return 0;
	if (p && n->port[p].peer != SM_NONE)
		peer = &c->fab.node[n->port[p].peer].port[n->port[p].peer_port];
	if (peer && state == SM_PORT_ARMED) {
		mad_set_field(pi, 0, IB_PORT_NEIGHBOR_MTU_F,
			      sm_min_cap(n->port[p].mtu_cap, peer->mtu_cap));
		mad_set_field(pi, 0, IB_PORT_OPER_VLS_F,
			      sm_min_cap(n->port[p].vl_cap, peer->vl_cap));
	}
	mad_set_field(pi, 0, IB_PORT_STATE_F, state);
	mad_set_field(pi, 0, IB_PORT_PHYS_STATE_F, 0);
	if (sm_smp(c, n, 1, IB_ATTR_PORT_INFO, p, pi))
		return -EIO;
	/* The answer: the port as it is now. */
	memcpy(n->port[p].port_info, pi, SM_PORT_INFO_LEN);
	return 1;
}

/*
 * Switch @i's LinearFDBTop and LFT, block by block; blocks that hold
 * what they should already get no Set. Return: 0, or -EIO.
 */
static int sm_set_lft(struct sm_ctx *c, int i)
{
	struct sm_node *n = &c->fab.node[i];
	uint8_t si[IB_SMP_DATA_SIZE] = { 0 }, blk[IB_SMP_DATA_SIZE];
	uint8_t want[SM_LFT_BLOCK];
	unsigned int b, k, lid, top = c->fab.top_lid;

	if (sm_smp(c, n, 0, IB_ATTR_SWITCH_INFO, 0, si))
		return -EIO;
	if (mad_get_field(si, 0, IB_SW_LINEAR_FDB_TOP_F) != top) {
		mad_set_field(si, 0, IB_SW_LINEAR_FDB_TOP_F, top);
		if (sm_smp(c, n, 1, IB_ATTR_SWITCH_INFO, 0, si))
			return -EIO;
	}
	memcpy(n->switch_info, si, SM_SWITCH_INFO_LEN);
	for (b = 0; b <= top / SM_LFT_BLOCK; b++) {
		for (k = 0; k < SM_LFT_BLOCK; k++) {
			lid = b * SM_LFT_BLOCK + k;
			want[k] = lid < n->lft_len ? n->lft[lid] : SM_LFT_DROP;
		}
		if (sm_smp(c, n, 0, IB_ATTR_LINEARFORWTBL, b, blk))
			return -EIO;
		if (!memcmp(blk, want, sizeof(want)))
			continue;
		memcpy(blk, want, sizeof(want));
		if (sm_smp(c, n, 1, IB_ATTR_LINEARFORWTBL, b, blk))
			return -EIO;
	}
	return 0;
}

/* Does port @p of node @n carry a link whose state the SM drives? */
static int sm_link_port(const struct sm_node *n, unsigned int p)
{
	return (p == 0 && sm_node_is_switch(n)) ||
	       (p && n->port[p].peer != SM_NONE);
}

/*
 * Move every link port in state @from to @to. Return: how many moved.
 */
static int sm_move_ports(struct sm_ctx *c, unsigned int from, unsigned int to)
{
	struct sm_node *n;
	unsigned int p;
	int i, moved = 0;

	for (i = 0; i < c->fab.num_nodes; i++) {
		n = &c->fab.node[i];
		for (p = 0; p <= n->num_ports; p++) {
			if (!sm_link_port(n, p) || n->port[p].state != from)
				continue;
			if (sm_set_port(c, i, p, 0, 0, to) > 0) {
				n->port[p].state = to;
				moved++;
			}
		}
	}
	return moved;
}

/*
 * Configure what sm_discover() found: LIDs, forwarding tables, then the
 * ports' states. Return: 0, or a negative errno (-ENOSPC: out of LIDs).
 */
int sm_configure(struct sm_ctx *c, struct sm_sweep_stats *st)
{
	struct sm_fabric *f = &c->fab;
	uint16_t sm_lid;
	struct sm_node *n;
	unsigned int p;
	int i, r;

	memset(st, 0, sizeof(*st));
	r = sm_lids_assign(f, &c->lids);
	if (!r)
		r = sm_route_minhop(f);
	if (r)
		return r;
	n = &f->node[c->root];
	sm_lid = n->port[n->entry].lid;
	c->sm_lid = sm_lid;
	for (i = 0; i < f->num_nodes; i++) {
		n = &f->node[i];
		if (sm_node_is_switch(n)) {
			st->switches++;
			sm_set_lft(c, i);
		} else {
			st->cas++;
		}
		for (p = 0; p <= n->num_ports; p++)
			if (n->port[p].lid &&
			    sm_set_port(c, i, p, n->port[p].lid, sm_lid,
					SM_PORT_NOP) > 0)
				st->lids_set++;
	}
	st->armed = sm_move_ports(c, SM_PORT_INIT, SM_PORT_ARMED);
	st->activated = sm_move_ports(c, SM_PORT_ARMED, SM_PORT_ACTIVE);
	return 0;
}
