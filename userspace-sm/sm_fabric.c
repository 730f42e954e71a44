// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The subnet model: nodes, their ports, and links between ports. A sweep
 * adds each node once (by NodeGUID) and links each port it crossed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sm_fabric.h"

void sm_fabric_init(struct sm_fabric *f)
{
	memset(f, 0, sizeof(*f));
}

void sm_fabric_free(struct sm_fabric *f)
{
	int i;

	for (i = 0; i < f->num_nodes; i++)
		free(f->node[i].lft);
	free(f->node);
	sm_fabric_init(f);
}

/* The node with NodeGUID @guid, or SM_NONE. */
int sm_fabric_find(const struct sm_fabric *f, uint64_t guid)
{
	int i;

	for (i = 0; i < f->num_nodes; i++)
		if (f->node[i].guid == guid)
			return i;
	return SM_NONE;
}

/*
 * A new node, its ports unlinked. Return: its index, -EINVAL for a port
 * count the IBA does not allow, -EEXIST for a GUID already there, -ENOSPC
 * beyond SM_MAX_NODES nodes, or -ENOMEM.
 */
int sm_fabric_add(struct sm_fabric *f, uint64_t guid, enum sm_node_type type,
		  unsigned int num_ports)
{
	struct sm_node *n;
	unsigned int p;
	int cap;

	if (!num_ports || num_ports > SM_MAX_PORTS || type < SM_NODE_CA ||
	    type > SM_NODE_ROUTER)
		return -EINVAL;
	if (sm_fabric_find(f, guid) != SM_NONE)
		return -EEXIST;
	if (f->num_nodes >= SM_MAX_NODES)
		return -ENOSPC;
	if (f->num_nodes == f->cap) {
		cap = f->cap ? f->cap * 2 : 16;
		n = realloc(f->node, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		f->node = n;
		f->cap = cap;
	}
	n = &f->node[f->num_nodes];
	memset(n, 0, sizeof(*n));
	n->guid = guid;
	n->type = type;
	n->num_ports = num_ports;
	for (p = 0; p <= SM_MAX_PORTS; p++)
		n->port[p].peer = SM_NONE;
	return f->num_nodes++;
}

int sm_node_is_switch(const struct sm_node *n)
{
	return n->type == SM_NODE_SWITCH;
}

/*
 * Is node @n a pib switch, which answers LinkedPorts? (NodeInfo.VendorID
 * says so; another switch with that VendorID refuses the attribute.)
 */
int sm_node_is_pib_switch(const struct sm_node *n)
{
	const uint8_t *v = &n->node_info[SM_NODE_INFO_VENDOR_ID];

	return sm_node_is_switch(n) &&
	       ((uint32_t)v[0] << 16 | v[1] << 8 | v[2]) == PIB_SMP_VENDOR_ID;
}

/*
 * Should the sweep read the PortInfo of port @p of node @n? A CA's port
 * it was entered by; every port of a switch, or of a pib switch whose
 * LinkedPorts it read, port 0 and the linked ones.
 */
int sm_port_to_read(const struct sm_node *n, unsigned int p)
{
	if (!sm_node_is_switch(n))
		return p == n->entry;
	return !n->linked_known || pib_smp_port_linked(n->linked, p);
}

/* The switch at the other end of port @p of node @i, or SM_NONE. */
int sm_switch_behind(const struct sm_fabric *f, int i, unsigned int p)
{
	int peer = f->node[i].port[p].peer;

	return peer != SM_NONE && sm_node_is_switch(&f->node[peer]) ?
	       peer : SM_NONE;
}

/* Is @port a physical port of node @i (a switch's port 0 is not)? */
static int sm_valid_port(const struct sm_fabric *f, int i, unsigned int port)
{
	return i >= 0 && i < f->num_nodes && port >= 1 &&
	       port <= f->node[i].num_ports;
}

/*
 * Link port @pa of node @a with port @pb of node @b, both ways. Return: 0,
 * or -EINVAL for a port that does not exist or is linked elsewhere.
 */
int sm_fabric_link(struct sm_fabric *f, int a, unsigned int pa, int b,
		   unsigned int pb)
{
	struct sm_port *x, *y;

	if (!sm_valid_port(f, a, pa) || !sm_valid_port(f, b, pb) ||
	    (a == b && pa == pb))
		return -EINVAL;
	x = &f->node[a].port[pa];
	y = &f->node[b].port[pb];
	if ((x->peer != SM_NONE && (x->peer != b || x->peer_port != pb)) ||
	    (y->peer != SM_NONE && (y->peer != a || y->peer_port != pa)))
		return -EINVAL;
	x->peer = b;
	x->peer_port = pb;
	y->peer = a;
	y->peer_port = pa;
	return 0;
}

/*
 * The end port whose LID is @lid: a switch's port 0, or a CA's or a
 * router's port. Return: 1 and @node, @port set; 0 if no port has it.
 */
int sm_fabric_lid_owner(const struct sm_fabric *f, uint16_t lid, int *node,
			unsigned int *port)
{
	const struct sm_node *n;
	unsigned int p;
	int i;

	if (!lid)
		return 0;
	for (i = 0; i < f->num_nodes; i++) {
		n = &f->node[i];
		for (p = sm_node_is_switch(n) ? 0 : 1; p <= n->num_ports; p++) {
			if (n->port[p].lid == lid) {
				*node = i;
				*port = p;
				return 1;
			}
			if (sm_node_is_switch(n))
				break;	/* one LID: port 0's */
		}
	}
	return 0;
}
