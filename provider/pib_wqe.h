/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Work queue entries: the rules a work request must follow on a pib QP,
 * and its encoding into the SQ, RQ and SRQ rings (include/uapi/rdma/pib-abi.h).
 *
 * Everything here works on a struct pib_sq / pib_rq and the public
 * libibverbs types only: no locks, no system calls, so the unit tests
 * run it on rings in ordinary memory. The callers hold the queue's lock.
 *
 * A WQE becomes visible to the kernel only when the producer index moves
 * past it, and the producer index moves only past WQEs that are fully
 * written: a bad work request leaves the ring as it was.
 */
#ifndef PIB_WQE_H
#define PIB_WQE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "pib_ring.h"

/* A pib device has one port. */
#define PIB_PORT_NUM		1

/* IBA limits of the address vector fields. */
#define PIB_MAX_SL		15
#define PIB_MAX_PATH_BITS	0x7f
#define PIB_MAX_FLOW_LABEL	0xfffff
#define PIB_MAX_QPN		0xffffff

/**
 * struct pib_ah - an address handle: the resolved address vector
 * @ibv_ah: what libibverbs sees
 * @av: what goes into each UD send WQE
 */
struct pib_ah {
	struct ibv_ah ibv_ah;
	struct pib_av av;
};

static inline const struct pib_ah *pib_ah_of(const struct ibv_ah *ah)
{
	return (const struct pib_ah *)((const char *)ah -
				       offsetof(struct pib_ah, ibv_ah));
}

/**
 * struct pib_sq - a send queue
 * @ring: the SQ ring of struct pib_send_wqe
 * @ctx: the QP's context; UD sends take only AHs of this context
 * @qp_type: IBV_QPT_RC, _UC, _UD or _XRC_SEND
 * @max_sge: SGEs a WQE may have
 * @max_inline: inline bytes a WQE may have
 * @start: ibv_wr_* batch: the producer index at wr_start
 * @next: ibv_wr_* batch: the index of the next WQE to build
 * @err: ibv_wr_* batch: the first error, reported by wr_complete
 * @need_ud_addr: ibv_wr_* batch: the last UD WQE has no address yet
 *
 * @max_sge and @max_inline are what the kernel granted, capped by what
 * the ring's stride holds.
 */
struct pib_sq {
	struct pib_ring ring;
	const struct ibv_context *ctx;
	enum ibv_qp_type qp_type;
	uint32_t max_sge;
	uint32_t max_inline;
	uint32_t start;
	uint32_t next;
	int err;
	bool need_ud_addr;
};

/**
 * struct pib_rq - a receive queue or shared receive queue
 * @ring: the ring of struct pib_recv_wqe
 * @max_sge: SGEs a WQE may have
 */
struct pib_rq {
	struct pib_ring ring;
	uint32_t max_sge;
};

bool pib_wr_opcode_allowed(enum ibv_qp_type qp_type, enum ibv_wr_opcode op);
uint64_t pib_send_ops_supported(enum ibv_qp_type qp_type);
void pib_sq_set_limits(struct pib_sq *sq, uint32_t max_sge,
		       uint32_t max_inline);
void pib_rq_set_limits(struct pib_rq *rq, uint32_t max_sge);

int pib_sq_post(struct pib_sq *sq, struct ibv_send_wr *wr,
		struct ibv_send_wr **bad_wr, uint32_t *posted);
int pib_sq_post_bind1(struct pib_sq *sq, const struct ibv_send_wr *wr);

void pib_sq_batch_start(struct pib_sq *sq, int err);
struct pib_send_wqe *pib_sq_batch_add(struct pib_sq *sq,
				      const struct ibv_send_wr *wr);
void pib_sq_batch_set_sge_list(struct pib_sq *sq, size_t num_sge,
			       const struct ibv_sge *sg_list);
void pib_sq_batch_set_inline_list(struct pib_sq *sq, size_t num_buf,
				  const struct ibv_data_buf *buf_list);
void pib_sq_batch_set_ud_addr(struct pib_sq *sq, struct ibv_ah *ah,
			      uint32_t remote_qpn, uint32_t remote_qkey);
void pib_sq_batch_set_xrc_srqn(struct pib_sq *sq, uint32_t remote_srqn);
void pib_sq_batch_set_flush(struct pib_sq *sq, struct pib_send_wqe *wqe,
			    uint32_t rkey, uint64_t addr, size_t len,
			    uint8_t type, uint8_t level);
void pib_sq_batch_set_atomic_write(struct pib_sq *sq, struct pib_send_wqe *wqe,
				   uint32_t rkey, uint64_t addr,
				   const void *data);
int pib_sq_batch_commit(struct pib_sq *sq, uint32_t *posted);

int pib_rq_post(struct pib_rq *rq, struct ibv_recv_wr *wr,
		struct ibv_recv_wr **bad_wr);

int pib_av_from_attr(const struct ibv_ah_attr *attr, uint32_t gid_tbl_len,
		     struct pib_av *av);

#endif /* PIB_WQE_H */
