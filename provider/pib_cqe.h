/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Completions: reading struct pib_cqe out of a CQ ring (include/uapi/rdma/pib-abi.h)
 * into struct ibv_wc, or one by one for struct ibv_cq_ex.
 *
 * No locks and no system calls here, so the unit tests run it on rings
 * in ordinary memory; the callers hold the CQ's lock. A CQE is read only
 * below the producer index (acquire), and its slot is handed back to the
 * kernel (release of the consumer index) only after it has been read.
 */
#ifndef PIB_CQE_H
#define PIB_CQE_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "pib_ring.h"

/**
 * struct pib_cq_cursor - where an ibv_start_poll() batch stands
 * @start: the consumer index when the batch started
 * @count: CQEs of the batch read so far, the current one included
 * @ready: CQEs from @start on that were ready when last looked at
 * @cqe: the current CQE
 *
 * Counting from @start keeps the arithmetic sound whatever the kernel
 * writes to the producer index: @ready never exceeds the ring's size.
 */
struct pib_cq_cursor {
	uint32_t start;
	uint32_t count;
	uint32_t ready;
	const struct pib_cqe *cqe;
};

unsigned int pib_cqe_wc_flags(const struct pib_cqe *cqe);
void pib_cqe_to_wc(const struct pib_cqe *cqe, struct ibv_wc *wc);
int pib_cq_ring_poll(struct pib_ring *r, int ne, struct ibv_wc *wc);
uint32_t pib_cq_ring_clean(struct pib_ring *r, uint32_t qp_num);
int pib_cq_ring_start(struct pib_ring *r, struct pib_cq_cursor *c);
int pib_cq_ring_next(struct pib_ring *r, struct pib_cq_cursor *c);
void pib_cq_ring_end(struct pib_ring *r, const struct pib_cq_cursor *c);

#endif /* PIB_CQE_H */
