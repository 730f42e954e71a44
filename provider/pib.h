/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libpib's objects and the verbs each file implements.
 *
 * Locking: each SQ, RQ and SRQ has its own spinlock, held while its ring
 * is written (post_send, post_recv, post_srq_recv, and an ibv_wr_* batch
 * from wr_start to wr_complete or wr_abort); these sections are short and
 * make no system call (the doorbell is rung after the unlock). Each CQ has
 * a mutex instead, because two of its sections may be long: resize_cq
 * keeps pollers off the ring across the command that moves the CQEs, and
 * an ibv_start_poll batch lasts until the application calls ibv_end_poll.
 * A QP's state is an int read and written atomically, without a lock.
 */
#ifndef PIB_H
#define PIB_H

#include <pthread.h>

#include <infiniband/driver.h>

#include "pib_verbs_compat.h"

#include "pib_cqe.h"
#include "pib_ring.h"
#include "pib_wqe.h"

/**
 * struct pib_context - an open pib device
 * @ibv_ctx: libibverbs' part
 * @gid_tbl_len: the port's GID table size; 0 until create_ah first needs it
 */
struct pib_context {
	struct verbs_context ibv_ctx;
	uint32_t gid_tbl_len;
};

/**
 * struct pib_lock - a queue's spinlock, which a thread domain makes needless
 * @lock: the lock
 * @need: false for a queue of a parent domain with a thread domain, whose
 *	application promised to use it from one thread at a time
 */
struct pib_lock {
	pthread_spinlock_t lock;
	bool need;
};

static inline int pib_lock_init(struct pib_lock *l)
{
	l->need = true;
	return pthread_spin_init(&l->lock, PTHREAD_PROCESS_PRIVATE);
}

static inline void pib_lock_destroy(struct pib_lock *l)
{
	pthread_spin_destroy(&l->lock);
}

static inline void pib_lock(struct pib_lock *l)
{
	if (l->need)
		pthread_spin_lock(&l->lock);
}

static inline void pib_unlock(struct pib_lock *l)
{
	if (l->need)
		pthread_spin_unlock(&l->lock);
}

/**
 * struct pib_td - a thread domain
 * @ibv_td: libibverbs' part
 * @refs: parent domains on it
 */
struct pib_td {
	struct ibv_td ibv_td;
	int refs;
};

/**
 * struct pib_pd - a protection domain, or a parent domain
 * @ibv_pd: libibverbs' part; a parent domain's has its PD's handle
 * @parent_of: a parent domain's PD; NULL for a PD
 * @td: a parent domain's thread domain, if any
 * @refs: a PD's parent domains
 */
struct pib_pd {
	struct ibv_pd ibv_pd;
	struct pib_pd *parent_of;
	struct pib_td *td;
	int refs;
};

/**
 * struct pib_cq - a completion queue
 * @vcq: libibverbs' part (struct ibv_cq and struct ibv_cq_ex)
 * @lock: protects @ring and @cursor
 * @need_lock: false for a CQ of a parent domain with a thread domain, or
 *	one created IBV_CREATE_CQ_ATTR_SINGLE_THREADED: one thread at a time
 * @ring: the ring of struct pib_cqe; unmapped only after a failed resize
 * @cursor: the ibv_start_poll() batch
 */
struct pib_cq {
	struct verbs_cq vcq;
	pthread_mutex_t lock;
	bool need_lock;
	struct pib_ring ring;
	struct pib_cq_cursor cursor;
};

/**
 * struct pib_qp - a queue pair
 * @vqp: libibverbs' part (struct ibv_qp and struct ibv_qp_ex)
 * @sq_lock: protects @sq (none needed on a parent domain's thread domain)
 * @sq: the send queue
 * @rq_lock: protects @rq
 * @rq: the receive queue; not mapped if the QP has an SRQ or is XRC's
 * @state: enum ibv_qp_state, as modify_qp last set it
 */
struct pib_qp {
	struct verbs_qp vqp;
	struct pib_lock sq_lock;
	struct pib_sq sq;
	struct pib_lock rq_lock;
	struct pib_rq rq;
	int state;
};

/**
 * struct pib_srq - a shared receive queue
 * @vsrq: libibverbs' part
 * @lock: protects @rq
 * @rq: its ring
 */
struct pib_srq {
	struct verbs_srq vsrq;
	struct pib_lock lock;
	struct pib_rq rq;
};

static inline struct pib_context *to_pib_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct pib_context, ibv_ctx.context);
}

static inline struct pib_cq *to_pib_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct pib_cq, vcq.cq);
}

static inline struct pib_cq *to_pib_cq_ex(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct pib_cq, vcq.cq_ex);
}

static inline struct pib_qp *to_pib_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct pib_qp, vqp.qp);
}

static inline struct pib_qp *to_pib_qp_ex(struct ibv_qp_ex *ibqp)
{
	return container_of(ibqp, struct pib_qp, vqp.qp_ex);
}

static inline struct pib_ah *to_pib_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct pib_ah, ibv_ah);
}

static inline struct pib_srq *to_pib_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct pib_srq, vsrq.srq);
}

static inline struct pib_pd *to_pib_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct pib_pd, ibv_pd);
}

static inline struct pib_td *to_pib_td(struct ibv_td *ibtd)
{
	return container_of(ibtd, struct pib_td, ibv_td);
}

static inline void pib_cq_lock(struct pib_cq *cq)
{
	if (cq->need_lock)
		pthread_mutex_lock(&cq->lock);
}

static inline void pib_cq_unlock(struct pib_cq *cq)
{
	if (cq->need_lock)
		pthread_mutex_unlock(&cq->lock);
}

/* pib.c */
int pib_query_port(struct ibv_context *ctx, uint8_t port,
		   struct ibv_port_attr *attr);

/* pib_pd.c */
struct ibv_pd *pib_alloc_pd(struct ibv_context *ctx);
int pib_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_pd *pib_alloc_parent_domain(struct ibv_context *ctx,
				       struct ibv_parent_domain_init_attr *attr);
struct ibv_td *pib_alloc_td(struct ibv_context *ctx,
			    struct ibv_td_init_attr *attr);
int pib_dealloc_td(struct ibv_td *ibtd);
struct ibv_pd *pib_import_pd(struct ibv_context *ctx, uint32_t pd_handle);
void pib_unimport_pd(struct ibv_pd *ibpd);
bool pib_pd_single_threaded(struct ibv_pd *ibpd);

/* pib_mr.c */
int pib_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		  uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
struct ibv_mr *pib_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  uint64_t hca_va, int access);
int pib_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access);
int pib_dereg_mr(struct verbs_mr *vmr);
struct ibv_mr *pib_import_mr(struct ibv_pd *pd, uint32_t mr_handle);
void pib_unimport_mr(struct ibv_mr *mr);
struct ibv_mw *pib_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int pib_dealloc_mw(struct ibv_mw *mw);

/* pib_cq.c */
int pib_query_rt_values(struct ibv_context *ctx, struct ibv_values_ex *values);
struct ibv_cq *pib_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *pib_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr);
int pib_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int pib_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int pib_resize_cq(struct ibv_cq *ibcq, int cqe);
int pib_destroy_cq(struct ibv_cq *ibcq);

/* pib_qp.c */
struct ibv_qp *pib_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *pib_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr);
int pib_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask);
int pib_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr);
int pib_destroy_qp(struct ibv_qp *ibqp);
struct ibv_qp *pib_open_qp(struct ibv_context *ctx,
			   struct ibv_qp_open_attr *attr);
int pib_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind);
int pib_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int pib_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
int pib_attach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
		     uint16_t lid);
int pib_detach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
		     uint16_t lid);
int pib_qp_send_err(struct pib_qp *qp);
int pib_qp_doorbell(struct pib_qp *qp);

/* pib_qp_ex.c */
void pib_qp_ex_set_ops(struct pib_qp *qp, uint64_t send_ops_flags);

/* pib_srq.c */
struct ibv_srq *pib_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr);
int pib_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		   int attr_mask);
int pib_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int pib_destroy_srq(struct ibv_srq *ibsrq);
int pib_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
struct ibv_srq *pib_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr);
int pib_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);

/* pib_ah.c */
struct ibv_ah *pib_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int pib_destroy_ah(struct ibv_ah *ah);

#endif /* PIB_H */
