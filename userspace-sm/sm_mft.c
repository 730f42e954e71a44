// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast forwarding: every switch's MulticastForwardingTable (IBA
 * 14.2.5.12) from the spanning trees of the SA's groups (sm_mcast.c), and
 * its SwitchInfo.MulticastFDBTop. Like the LFTs, each block is read first
 * and set only when it differs, by directed route: two batches of SMPs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "pib_sm.h"

/* IBA 14.2.5.12: a block holds 32 MLIDs, a position 16 ports. */
#define SM_MFT_BLOCK		32
#define SM_MFT_PORTS		16
#define SM_MFT_POSITION_SHIFT	28

/* The MFT entry of one position: ports 16 * @pos .. 16 * @pos + 15. */
static uint16_t sm_mft_bits(const struct sm_mft *m, unsigned int pos)
{
	unsigned int first = pos * SM_MFT_PORTS;

	return (uint16_t)(m->mask[first / 64] >> (first % 64));
}

/*
 * What block @b, position @pos of switch @i's MFT should hold for the @ng
 * groups @g, whose trees are @trees (group by group, one struct sm_mft
 * per node): @want.
 */
static void sm_mft_want(const struct sm_ctx *c, int i, const struct sm_group *g,
			unsigned int ng, const struct sm_mft *trees,
			unsigned int b, unsigned int pos, uint8_t *want)
{
	unsigned int k, e;
	uint16_t bits;

	memset(want, 0, IB_SMP_DATA_SIZE);
	for (k = 0; k < ng; k++) {
		e = g[k].mlid - SM_MLID_FIRST;	/* (sm_set_mfts() checked it) */
		if (e / SM_MFT_BLOCK != b)
			continue;
		e %= SM_MFT_BLOCK;
		bits = sm_mft_bits(&trees[k * c->fab.num_nodes + i], pos);
		want[2 * e] = bits >> 8;
		want[2 * e + 1] = bits & 0xff;
	}
}

/*
 * Every switch's SwitchInfo and, up to MLID @top, its MFT blocks, read in
 * @rd. Return: 0 or -ENOMEM.
 */
static int sm_read_mfts(struct sm_ctx *c, struct sm_batch *rd, unsigned int top)
{
	unsigned int b, pos, positions;
	int i;

	for (i = 0; i < c->fab.num_nodes; i++) {
		if (!sm_node_is_switch(&c->fab.node[i]))
			continue;
		if (!sm_batch_add(c, rd, i, 0, 0, 0, IB_ATTR_SWITCH_INFO, 0))
			return -ENOMEM;
		positions = c->fab.node[i].num_ports / SM_MFT_PORTS + 1;
		for (b = 0; top && b <= (top - SM_MLID_FIRST) / SM_MFT_BLOCK; b++)
			for (pos = 0; pos < positions; pos++)
				if (!sm_batch_add(c, rd, i, 0, 0, 0,
						  IB_ATTR_MULTICASTFORWTBL,
						  pos << SM_MFT_POSITION_SHIFT | b))
					return -ENOMEM;
	}
	sm_batch_run(c, rd);
	return 0;
}

/*
 * The Sets of what the switches' answers in @rd show to differ from the
 * groups' trees: MulticastFDBTop (@top) and MFT blocks. Return: 0 or
 * -ENOMEM.
 */
static int sm_mft_sets(struct sm_ctx *c, struct sm_batch *rd,
		       struct sm_batch *set, const struct sm_group *g,
		       unsigned int ng, const struct sm_mft *trees,
		       unsigned int top)
{
	uint8_t want[IB_SMP_DATA_SIZE];
	struct sm_smp_req *q, *r;
	unsigned int k;

	for (k = 0; k < rd->n; k++) {
		q = &rd->r[k];
		if (q->status)
			continue;	/* left for the next sweep */
		if (q->attr == IB_ATTR_SWITCH_INFO) {
			if (mad_get_field(q->data, 0, IB_SW_MCAST_FDB_TOP_F) == top)
				continue;
			memcpy(want, q->data, sizeof(want));
			mad_set_field(want, 0, IB_SW_MCAST_FDB_TOP_F, top);
		} else {
			sm_mft_want(c, q->node, g, ng, trees,
				    q->mod & ((1u << SM_MFT_POSITION_SHIFT) - 1),
				    q->mod >> SM_MFT_POSITION_SHIFT, want);
			if (!memcmp(q->data, want, 2 * SM_MFT_BLOCK))
				continue;
		}
		r = sm_batch_add(c, set, q->node, 0, 0, 1, q->attr, q->mod);
		if (!r)
			return -ENOMEM;
		memcpy(r->data, want, sizeof(r->data));
	}
	sm_batch_run(c, set);
	return 0;
}

/**
 * sm_set_mfts() - program every switch for the multicast groups @g
 * @c: the SM, after a sweep
 * @g: the groups, their MLIDs in SM_MLID_FIRST .. SM_MLID_LAST
 * @ng: how many
 *
 * Each group's spanning tree over its members (sm_mcast_tree()) becomes
 * an entry of every switch's MFT; a group whose members no tree joins
 * (one is gone since the last sweep) is logged and forwards nowhere. A
 * switch that does not answer is left for the next sweep.
 *
 * Return: 0, or a negative errno (-EINVAL: an MLID out of range).
 */
int sm_set_mfts(struct sm_ctx *c, const struct sm_group *g, unsigned int ng)
{
	struct sm_batch rd = { 0 }, set = { 0 };
	struct sm_fabric *f = &c->fab;
	unsigned int k, top = 0;
	struct sm_mft *trees;
	int i, r = 0;

	if (!f->num_nodes)
		return 0;
	trees = calloc((size_t)(ng ? ng : 1) * f->num_nodes, sizeof(*trees));
	if (!trees)
		return -ENOMEM;
	for (k = 0; k < ng; k++) {
		if (g[k].mlid < SM_MLID_FIRST || g[k].mlid > SM_MLID_LAST) {
			r = -EINVAL;
			break;
		}
		if (g[k].mlid > top)
			top = g[k].mlid;
		/* A tree that cannot be made forwards nowhere, and says so. */
		i = sm_mcast_tree(f, g[k].members, g[k].n,
				  &trees[k * f->num_nodes]);
		if (i == -ENOMEM) {
			r = i;
			break;
		}
		if (i)
			sm_log(c, SM_LOG_ERR, "multicast group 0x%04x: no tree over its %u members: %s\n",
			       g[k].mlid, g[k].n, strerror(-i));
	}
	/* One batch reads the switches' tables, one sets what differs. */
	if (!r)
		r = sm_read_mfts(c, &rd, top);
	if (!r)
		r = sm_mft_sets(c, &rd, &set, g, ng, trees, top);
	free(rd.r);
	free(set.r);
	free(trees);
	return r;
}
