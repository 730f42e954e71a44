// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completions out of a CQ ring; see pib_cqe.h.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "pib_cqe.h"

/* The ABI takes libibverbs' values as they are. */
static_assert(PIB_WC_GRH == (int)IBV_WC_GRH, "wc flag");
static_assert(PIB_WC_WITH_IMM == (int)IBV_WC_WITH_IMM, "wc flag");
static_assert(PIB_WC_WITH_INV == (int)IBV_WC_WITH_INV, "wc flag");

/* The flags a CQE may carry; anything else the kernel set is dropped. */
#define PIB_WC_FLAGS	(PIB_WC_GRH | PIB_WC_WITH_IMM | PIB_WC_WITH_INV)

/* enum ibv_wc_flags of @cqe. */
unsigned int pib_cqe_wc_flags(const struct pib_cqe *cqe)
{
	return cqe->wc_flags & PIB_WC_FLAGS;
}

/* @cqe as libibverbs reports it; values pass as the kernel wrote them. */
void pib_cqe_to_wc(const struct pib_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->wc_flags = pib_cqe_wc_flags(cqe);
	/* Both share one field; immediate data stays in network order. */
	if (wc->wc_flags & IBV_WC_WITH_INV)
		wc->invalidated_rkey = cqe->ex;
	else
		wc->imm_data = cqe->ex;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
}

/**
 * pib_cq_ring_poll() - ibv_poll_cq() on a CQ ring
 * @r: the ring
 * @ne: room in @wc
 * @wc: filled in
 *
 * Return: the number of completions polled, 0 to @ne.
 */
int pib_cq_ring_poll(struct pib_ring *r, int ne, struct ibv_wc *wc)
{
	uint32_t cons, n, i;

	if (ne <= 0)
		return 0;
	cons = pib_ring_consumer(r);
	n = pib_ring_ready(r, cons);
	if (n > (uint32_t)ne)
		n = ne;
	for (i = 0; i < n; i++)
		pib_cqe_to_wc(pib_ring_entry(r, cons + i), &wc[i]);
	if (n)
		pib_ring_release(r, cons + n);
	return n;
}

/**
 * pib_cq_ring_clean() - take a QP's completions out of a CQ ring, as a QP
 *	that goes to RESET has (IBA 11.2.5: its work is forgotten)
 * @r: the ring
 * @qp_num: the QP
 *
 * The other ready completions move towards the producer index, in their
 * order, and the consumer index follows them: the slots they leave are
 * the kernel's again. The kernel writes no slot below the producer index
 * read here, and none of the slots left before the consumer index moves.
 *
 * Return: the number of completions taken out.
 */
uint32_t pib_cq_ring_clean(struct pib_ring *r, uint32_t qp_num)
{
	uint32_t cons = pib_ring_consumer(r), n = pib_ring_ready(r, cons);
	uint32_t gone = 0, i;
	struct pib_cqe *e;

	for (i = n; i-- > 0;) {
		e = pib_ring_entry(r, cons + i);
		if (e->qp_num == qp_num)
			gone++;
		else if (gone)
			memcpy(pib_ring_entry(r, cons + i + gone), e, sizeof(*e));
	}
	if (gone)
		pib_ring_release(r, cons + gone);
	return gone;
}

/**
 * pib_cq_ring_start() - ibv_start_poll() on a CQ ring
 * @r: the ring
 * @c: set to the first ready CQE
 *
 * The CQEs the batch reads stay the provider's until pib_cq_ring_end().
 *
 * Return: 0, or ENOENT if no CQE is ready.
 */
int pib_cq_ring_start(struct pib_ring *r, struct pib_cq_cursor *c)
{
	c->start = pib_ring_consumer(r);
	c->ready = pib_ring_ready(r, c->start);
	if (!c->ready)
		return ENOENT;
	c->count = 1;
	c->cqe = pib_ring_entry(r, c->start);
	return 0;
}

/**
 * pib_cq_ring_next() - ibv_next_poll(): on to the next CQE
 * @r: the ring
 * @c: a cursor pib_cq_ring_start() set
 *
 * Return: 0, or ENOENT if no other CQE is ready (@c stays where it was).
 */
int pib_cq_ring_next(struct pib_ring *r, struct pib_cq_cursor *c)
{
	if (c->count >= c->ready) {
		/* CQEs may have come since the producer index was read. */
		c->ready = pib_ring_ready(r, c->start);
		if (c->count >= c->ready)
			return ENOENT;
	}
	c->cqe = pib_ring_entry(r, c->start + c->count);
	c->count++;
	return 0;
}

/* ibv_end_poll(): the CQEs the batch read go back to the kernel. */
void pib_cq_ring_end(struct pib_ring *r, const struct pib_cq_cursor *c)
{
	pib_ring_release(r, c->start + c->count);
}
