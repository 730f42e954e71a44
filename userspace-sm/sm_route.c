// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Min-hop routing: every switch sends a packet for a LID out of a port on
 * a shortest path to that LID's switch, and of the ports that qualify it
 * takes the one that carries the fewest LIDs so far, so that parallel
 * paths share the load (as opensm's minhop does). Destinations are taken
 * in LID order, so the tables depend on the fabric and its LIDs alone.
 * Shortest paths can hold no loop: each hop is one closer.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sm_fabric.h"

#define SM_FAR	INT_MAX		/* no path */

/* Hop counts between switches, by node index; SM_FAR where none. */
struct sm_hops {
	int n;
	int *hop;	/* n x n */
};

static int *sm_hop(const struct sm_hops *h, int a, int b)
{
	return &h->hop[(size_t)a * h->n + b];
}

/* Breadth first from switch @s, over switch-to-switch links. */
static void sm_bfs(const struct sm_fabric *f, struct sm_hops *h, int s,
		   int *queue)
{
	const struct sm_node *n;
	int head = 0, tail = 0, u, v;
	unsigned int p;

	*sm_hop(h, s, s) = 0;
	queue[tail++] = s;
	while (head < tail) {
		u = queue[head++];
		n = &f->node[u];
		for (p = 1; p <= n->num_ports; p++) {
			v = sm_switch_behind(f, u, p);
			if (v == SM_NONE || *sm_hop(h, s, v) != SM_FAR)
				continue;
			*sm_hop(h, s, v) = *sm_hop(h, s, u) + 1;
			queue[tail++] = v;
		}
	}
}

static int sm_hops_compute(const struct sm_fabric *f, struct sm_hops *h)
{
	size_t cells = (size_t)f->num_nodes * f->num_nodes;
	int *queue, s;
	size_t i;

	h->n = f->num_nodes;
	h->hop = malloc((cells ? cells : 1) * sizeof(*h->hop));
	queue = malloc((f->num_nodes + 1) * sizeof(*queue));
	if (!h->hop || !queue) {
		free(h->hop);
		h->hop = NULL;
		free(queue);
		return -ENOMEM;
	}
	for (i = 0; i < cells; i++)
		h->hop[i] = SM_FAR;
	for (s = 0; s < f->num_nodes; s++)
		if (sm_node_is_switch(&f->node[s]))
			sm_bfs(f, h, s, queue);
	free(queue);
	return 0;
}

/*
 * Hops from switch @from to switch @to over switch-to-switch links.
 * Return: the count, or -1 without a path (or for a node that is no
 * switch), or -ENOMEM.
 */
int sm_route_hops(const struct sm_fabric *f, int from, int to)
{
	struct sm_hops h;
	int r;

	if (from < 0 || to < 0 || from >= f->num_nodes || to >= f->num_nodes ||
	    !sm_node_is_switch(&f->node[from]) ||
	    !sm_node_is_switch(&f->node[to]))
		return -1;
	r = sm_hops_compute(f, &h);
	if (r)
		return r;
	r = *sm_hop(&h, from, to);
	free(h.hop);
	return r == SM_FAR ? -1 : r;
}

/*
 * Where LID @lid leaves the fabric: its switch @sw and that switch's port
 * @out to it (0 for the switch's own LID). Return: 0 if no switch is on
 * the way to it (a CA linked to a CA).
 */
static int sm_lid_exit(const struct sm_fabric *f, int node, unsigned int port,
		       int *sw, unsigned int *out)
{
	const struct sm_node *n = &f->node[node];

	if (sm_node_is_switch(n)) {
		*sw = node;
		*out = 0;
		return 1;
	}
	*sw = sm_switch_behind(f, node, port);
	*out = n->port[port].peer_port;
	return *sw != SM_NONE;
}

/* Of switch @s's ports one hop closer to switch @ds, the least loaded. */
static uint8_t sm_next_port(const struct sm_fabric *f, const struct sm_hops *h,
			    struct sm_node *n, int s, int ds)
{
	int want = *sm_hop(h, s, ds) - 1, v;
	unsigned int p, best = SM_LFT_DROP;

	for (p = 1; p <= n->num_ports; p++) {
		v = sm_switch_behind(f, s, p);
		if (v == SM_NONE || *sm_hop(h, v, ds) != want)
			continue;
		if (best == SM_LFT_DROP || n->load[p] < n->load[best])
			best = p;
	}
	return best;
}

/* Switch @s's LFT entry for the end port (@node, @port). */
static uint8_t sm_route_one(const struct sm_fabric *f, const struct sm_hops *h,
			    int s, int node, unsigned int port)
{
	struct sm_node *n = &f->node[s];
	unsigned int out;
	int ds;

	if (!sm_lid_exit(f, node, port, &ds, &out))
		return SM_LFT_DROP;
	if (ds == s)
		return out;
	if (*sm_hop(h, s, ds) == SM_FAR)
		return SM_LFT_DROP;
	return sm_next_port(f, h, n, s, ds);
}

/* A fresh LFT for switch @n, LIDs 0 .. @top, every entry SM_LFT_DROP. */
static int sm_lft_reset(struct sm_node *n, uint16_t top)
{
	uint8_t *lft = realloc(n->lft, top + 1u);

	if (!lft)
		return -ENOMEM;
	memset(lft, SM_LFT_DROP, top + 1u);
	n->lft = lft;
	n->lft_len = top + 1u;
	memset(n->load, 0, sizeof(n->load));
	return 0;
}

/*
 * Compute every switch's LFT (sm_node.lft) for the LIDs that
 * sm_lids_assign() gave out. Return: 0, or -ENOMEM.
 */
int sm_route_minhop(struct sm_fabric *f)
{
	struct sm_hops h;
	unsigned int port, lid;
	int s, node, r;
	uint8_t out;

	r = sm_hops_compute(f, &h);
	for (s = 0; !r && s < f->num_nodes; s++)
		if (sm_node_is_switch(&f->node[s]))
			r = sm_lft_reset(&f->node[s], f->top_lid);
	for (lid = 1; !r && lid <= f->top_lid; lid++) {
		if (!sm_fabric_lid_owner(f, lid, &node, &port))
			continue;
		for (s = 0; s < f->num_nodes; s++) {
			if (!sm_node_is_switch(&f->node[s]))
				continue;
			out = sm_route_one(f, &h, s, node, port);
			f->node[s].lft[lid] = out;
			if (out != SM_LFT_DROP)
				f->node[s].load[out]++;
		}
	}
	free(h.hop);
	return r;
}
