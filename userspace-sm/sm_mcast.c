// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A multicast group's spanning tree. The root is the switch from which
 * the farthest member's switch is nearest (ties: the first such switch);
 * the tree is the union of the shortest paths from the root to each
 * member's switch, taken from one breadth-first tree, so that it holds no
 * loop. A switch of the tree forwards the group's packets out of its tree
 * links and out of the ports of members behind it: a packet from any
 * member reaches every other member once (IBA 18.2.4.3.3: a switch does
 * not send a packet back out of the port it came in on).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sm_fabric.h"

static void sm_mft_set(struct sm_mft *m, unsigned int port)
{
	m->mask[port / 64] |= 1ULL << (port % 64);
}

/* Is @port in MFT entry @m? */
int sm_mft_has(const struct sm_mft *m, unsigned int port)
{
	return port <= SM_MAX_PORTS && (m->mask[port / 64] >> (port % 64)) & 1;
}

/* The breadth-first tree of the switches from one root. */
struct sm_tree {
	int *parent;		/* SM_NONE for the root and the unreached */
	uint8_t *up;		/* a node's port toward its parent */
	uint8_t *down;		/* its parent's port toward it */
	int *depth;		/* -1: not reached */
};

static void sm_tree_grow(const struct sm_fabric *f, struct sm_tree *t,
			 int root, int *queue)
{
	int head = 0, tail = 0, u, v, i;
	unsigned int p;

	for (i = 0; i < f->num_nodes; i++) {
		t->parent[i] = SM_NONE;
		t->depth[i] = -1;
	}
	t->depth[root] = 0;
	queue[tail++] = root;
	while (head < tail) {
		u = queue[head++];
		for (p = 1; p <= f->node[u].num_ports; p++) {
			v = sm_switch_behind(f, u, p);
			if (v == SM_NONE || t->depth[v] >= 0)
				continue;
			t->depth[v] = t->depth[u] + 1;
			t->parent[v] = u;
			t->up[v] = f->node[u].port[p].peer_port;
			t->down[v] = p;
			queue[tail++] = v;
		}
	}
}

/*
 * The farthest of the member switches @msw from @root, in hops; -1 if
 * one cannot be reached.
 */
static int sm_tree_reach(const struct sm_tree *t, const int *msw,
			 unsigned int n)
{
	unsigned int i;
	int far = 0;

	for (i = 0; i < n; i++) {
		if (t->depth[msw[i]] < 0)
			return -1;
		if (t->depth[msw[i]] > far)
			far = t->depth[msw[i]];
	}
	return far;
}

/* The root: the switch whose farthest member switch is nearest. */
static int sm_tree_root(const struct sm_fabric *f, struct sm_tree *t,
			const int *msw, unsigned int n, int *queue)
{
	int s, far, best = SM_NONE, best_far = -1;

	for (s = 0; s < f->num_nodes; s++) {
		if (!sm_node_is_switch(&f->node[s]))
			continue;
		sm_tree_grow(f, t, s, queue);
		far = sm_tree_reach(t, msw, n);
		if (far >= 0 && (best == SM_NONE || far < best_far)) {
			best = s;
			best_far = far;
		}
	}
	return best;
}

/* Mark the path from member switch @s up to the root in @mft. */
static void sm_tree_mark(const struct sm_tree *t, int s, struct sm_mft *mft)
{
	while (t->parent[s] != SM_NONE) {
		if (sm_mft_has(&mft[s], t->up[s]))
			return;	/* the rest is marked already */
		sm_mft_set(&mft[s], t->up[s]);
		sm_mft_set(&mft[t->parent[s]], t->down[s]);
		s = t->parent[s];
	}
}

static int sm_tree_alloc(struct sm_tree *t, int n)
{
	t->parent = calloc(n, sizeof(*t->parent));
	t->up = calloc(n, sizeof(*t->up));
	t->down = calloc(n, sizeof(*t->down));
	t->depth = calloc(n, sizeof(*t->depth));
	return t->parent && t->up && t->down && t->depth ? 0 : -ENOMEM;
}

static void sm_tree_free(struct sm_tree *t)
{
	free(t->parent);
	free(t->up);
	free(t->down);
	free(t->depth);
}

/* Each member's switch, in @msw. Return: 0, or -EINVAL for a member
 * that is no linked port of a CA or router behind a switch. */
static int sm_member_switches(const struct sm_fabric *f,
			      const struct sm_mcast_member *m, unsigned int n,
			      int *msw)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (m[i].node < 0 || m[i].node >= f->num_nodes ||
		    sm_node_is_switch(&f->node[m[i].node]) || !m[i].port ||
		    m[i].port > f->node[m[i].node].num_ports)
			return -EINVAL;
		msw[i] = sm_switch_behind(f, m[i].node, m[i].port);
		if (msw[i] == SM_NONE)
			return -EINVAL;
	}
	return 0;
}

/* Fill @mft from a grown tree: its links, and the members' ports. */
static void sm_tree_fill(const struct sm_fabric *f, const struct sm_tree *t,
			 const struct sm_mcast_member *m, unsigned int n,
			 const int *msw, struct sm_mft *mft)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		sm_mft_set(&mft[msw[i]],
			   f->node[m[i].node].port[m[i].port].peer_port);
		sm_tree_mark(t, msw[i], mft);
	}
}

/*
 * The MFT entries of a group with members @members (@n of them): @mft,
 * one per node of @f (those of nodes that are no switch stay empty).
 * Return: 0, -EINVAL for a member that is not a linked CA or router port,
 * -EHOSTUNREACH if no switch reaches every member, or -ENOMEM.
 */
int sm_mcast_tree(const struct sm_fabric *f,
		  const struct sm_mcast_member *members, unsigned int n,
		  struct sm_mft *mft)
{
	int *msw = calloc(n + 1, sizeof(*msw));
	int *queue = calloc(f->num_nodes + 1, sizeof(*queue));
	struct sm_tree t = { 0 };
	int r, root;

	memset(mft, 0, f->num_nodes * sizeof(*mft));
	r = msw && queue ? sm_tree_alloc(&t, f->num_nodes + 1) : -ENOMEM;
	if (!r)
		r = sm_member_switches(f, members, n, msw);
	if (!r && n) {
		root = sm_tree_root(f, &t, msw, n, queue);
		if (root == SM_NONE) {
			r = -EHOSTUNREACH;
		} else {
			sm_tree_grow(f, &t, root, queue);
			sm_tree_fill(f, &t, members, n, msw, mft);
		}
	}
	sm_tree_free(&t);
	free(queue);
	free(msw);
	return r;
}
