// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast forwarding: every switch's MulticastForwardingTable (IBA
 * 14.2.5.12) from the spanning trees of the SA's groups (sm_mcast.c), and
 * its SwitchInfo.MulticastFDBTop. Like the LFTs, each block is read first
 * and set only when it differs, by directed route.
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
 * Switch @i's MulticastFDBTop, read and set if it is not @top. Return: 0,
 * or -EIO.
 */
static int sm_set_mft_top(struct sm_ctx *c, int i, unsigned int top)
{
	uint8_t si[IB_SMP_DATA_SIZE] = { 0 };
	const struct sm_node *n = &c->fab.node[i];

	if (sm_smp(c, n, 0, IB_ATTR_SWITCH_INFO, 0, si))
		return -EIO;
	if (mad_get_field(si, 0, IB_SW_MCAST_FDB_TOP_F) == top)
		return 0;
	mad_set_field(si, 0, IB_SW_MCAST_FDB_TOP_F, top);
	return sm_smp(c, n, 1, IB_ATTR_SWITCH_INFO, 0, si) ? -EIO : 0;
}

/*
 * Switch @i's MFT for the @ng groups @g, whose trees are @trees (group
 * by group, one struct sm_mft per node), up to MLID @top. Return: 0, or
 * -EIO.
 */
static int sm_set_mft(struct sm_ctx *c, int i, const struct sm_group *g,
		      unsigned int ng, const struct sm_mft *trees,
		      unsigned int top)
{
	const struct sm_node *n = &c->fab.node[i];
	unsigned int positions = n->num_ports / SM_MFT_PORTS + 1;
	uint8_t want[IB_SMP_DATA_SIZE], blk[IB_SMP_DATA_SIZE];
	unsigned int b, pos, k, mod;
	uint16_t bits;

	for (b = 0; b * SM_MFT_BLOCK + SM_MLID_FIRST <= top; b++) {
		for (pos = 0; pos < positions; pos++) {
			memset(want, 0, sizeof(want));
			for (k = 0; k < ng; k++) {
				if (g[k].mlid / SM_MFT_BLOCK !=
				    SM_MLID_FIRST / SM_MFT_BLOCK + b)
					continue;
				bits = sm_mft_bits(&trees[k * c->fab.num_nodes + i],
						   pos);
				want[2 * (g[k].mlid % SM_MFT_BLOCK)] = bits >> 8;
				want[2 * (g[k].mlid % SM_MFT_BLOCK) + 1] = bits & 0xff;
			}
			mod = pos << SM_MFT_POSITION_SHIFT | b;
			if (sm_smp(c, n, 0, IB_ATTR_MULTICASTFORWTBL, mod, blk))
				return -EIO;
			if (!memcmp(blk, want, 2 * SM_MFT_BLOCK))
				continue;
			if (sm_smp(c, n, 1, IB_ATTR_MULTICASTFORWTBL, mod, want))
				return -EIO;
		}
	}
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
	for (i = 0; i < f->num_nodes && !r; i++) {
		if (!sm_node_is_switch(&f->node[i]))
			continue;
		if (!sm_set_mft_top(c, i, top) && top)
			sm_set_mft(c, i, g, ng, trees, top);
	}
	free(trees);
	return r;
}
