/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What pib-sm's SA tests (test_sa.c) and its fuzz harness
 * (tests/fuzz/fuzz_sa.c) both build their subnets from: ports linked in
 * the subnet model with the PortInfo a sweep would have read, and the
 * big-endian readers for the SA's answers.
 */
#ifndef SM_FIXTURE_H
#define SM_FIXTURE_H

#include <stdint.h>

#include "sm_fabric.h"

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)be16(p) << 16 | be16(p + 2);
}

/* A linked port's PortInfo: Active, 4x QDR, NeighborMTU @mtu. */
static inline void fill_port(struct sm_port *p, unsigned int mtu)
{
	p->state = 4;
	p->mtu_cap = 5;
	p->port_info[31] = 2;		/* LinkWidthActive 4x */
	p->port_info[32] = 4 << 4 | 4;	/* speeds supported, Active */
	p->port_info[35] = 4 << 4 | 4;	/* LinkSpeedActive QDR */
	p->port_info[36] = mtu << 4;	/* NeighborMTU */
	p->port_info[41] = 5;		/* MTUCap 4096 */
}

/* Link port @pa of node @a and @pb of @b at @mtu. Return: sm_fabric_link()'s. */
static inline int fixture_link(struct sm_fabric *f, int a, unsigned int pa,
			       int b, unsigned int pb, unsigned int mtu)
{
	int r = sm_fabric_link(f, a, pa, b, pb);

	if (!r) {
		fill_port(&f->node[a].port[pa], mtu);
		fill_port(&f->node[b].port[pb], mtu);
	}
	return r;
}

#endif
