// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib_ktest: what kernel consumers (NFS, NVMe over RDMA, iSER) do with a
 * pib device and user space cannot: fast-register MRs, local operations
 * on an RC send queue, kernel QPs on an SRQ, inline work requests.
 *
 *   insmod pib_ktest.ko dev=NAME [tests=a,b,...]
 *
 * The device's port must be ACTIVE: two RC QPs of the device are connected
 * to each other through its switch. Each check logs "pib_ktest: ok - ..."
 * or "pib_ktest: FAIL - ..."; loading fails with -EIO if any check failed.
 * The tests run while the module loads; it holds nothing once loaded.
 *
 * Tests: reg-tail, inv-tail, reg-key-ahead, local-behind-rnr, srq-reset,
 * srq-resize, inline-overflow, cq-overflow, stale-rkey, atomic-unaligned.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

static char *pib_ktest_dev = "pibloa";
module_param_named(dev, pib_ktest_dev, charp, 0444);
MODULE_PARM_DESC(dev, "the pib device to test");

static char *pib_ktest_tests = "all";
module_param_named(tests, pib_ktest_tests, charp, 0444);
MODULE_PARM_DESC(tests, "comma-separated tests to run, or all");

#define PIB_KTEST_DEPTH		16
/* Local ACK timeout 14: 67 ms, which pib lengthens to 200 ms. */
#define PIB_KTEST_TIMEOUT	14
/* Longer than pib's shortest retransmit timeout, with room for TCG. */
#define PIB_KTEST_SETTLE_MS	1000
#define PIB_KTEST_WAIT_MS	5000

/**
 * struct pib_ktest - what every test works with
 * @dev: the device
 * @lid: its port's LID
 * @pd: a PD
 * @cq: the send and receive CQ of @a (and @b's, as @bcq)
 * @bcq: @b's CQ
 * @a: the RC QP under test
 * @b: its peer
 * @buf: a page both send from and receive into (DMA lkey)
 * @failures: checks that failed
 */
struct pib_ktest {
	struct ib_device *dev;
	u16 lid;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_cq *bcq;
	struct ib_qp *a;
	struct ib_qp *b;
	void *buf;
	int failures;
};

static __printf(3, 4) void pib_ktest_check(struct pib_ktest *t, bool good,
					    const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (good) {
		pr_info("pib_ktest: ok - %pV\n", &vaf);
	} else {
		pr_err("pib_ktest: FAIL - %pV\n", &vaf);
		t->failures++;
	}
	va_end(args);
}

static struct ib_qp *pib_ktest_qp(struct pib_ktest *t, struct ib_cq *cq,
				  struct ib_srq *srq)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = PIB_KTEST_DEPTH,
			.max_recv_wr = srq ? 0 : PIB_KTEST_DEPTH,
			.max_send_sge = 2,
			.max_recv_sge = srq ? 0 : 1,
			.max_inline_data = 64,
		},
	};

	return ib_create_qp(t->pd, &init);
}

/* RESET -> INIT -> RTR -> RTS, connected to QP @dqpn of this port. */
static int pib_ktest_connect(struct pib_ktest *t, struct ib_qp *qp, u32 dqpn)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
	};
	int err;

	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;	/* 10 us: RNR retries come fast */
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_dlid(&a.ah_attr, t->lid);
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = PIB_KTEST_TIMEOUT;
	a.retry_cnt = 7;
	a.rnr_retry = 7;	/* RNR NAKs forever */
	a.max_rd_atomic = 1;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

static void pib_ktest_put_pair(struct pib_ktest *t)
{
	if (!IS_ERR_OR_NULL(t->a))
		ib_destroy_qp(t->a);
	if (!IS_ERR_OR_NULL(t->b))
		ib_destroy_qp(t->b);
	if (!IS_ERR_OR_NULL(t->cq))
		ib_free_cq(t->cq);
	if (!IS_ERR_OR_NULL(t->bcq))
		ib_free_cq(t->bcq);
	t->a = NULL;
	t->b = NULL;
	t->cq = NULL;
	t->bcq = NULL;
}

/* Two RC QPs of the device, connected to each other, for one test. */
static int pib_ktest_get_pair(struct pib_ktest *t)
{
	int err;

	t->cq = ib_alloc_cq(t->dev, NULL, 4 * PIB_KTEST_DEPTH, 0, IB_POLL_DIRECT);
	t->bcq = ib_alloc_cq(t->dev, NULL, 4 * PIB_KTEST_DEPTH, 0, IB_POLL_DIRECT);
	if (IS_ERR(t->cq) || IS_ERR(t->bcq)) {
		err = -ENOMEM;
		goto fail;
	}
	t->a = pib_ktest_qp(t, t->cq, NULL);
	t->b = pib_ktest_qp(t, t->bcq, NULL);
	if (IS_ERR(t->a) || IS_ERR(t->b)) {
		err = -ENOMEM;
		goto fail;
	}
	err = pib_ktest_connect(t, t->a, t->b->qp_num);
	if (!err)
		err = pib_ktest_connect(t, t->b, t->a->qp_num);
	if (!err)
		return 0;
fail:
	pib_ktest_check(t, false, "two connected RC QPs: %d", err);
	pib_ktest_put_pair(t);
	return err;
}

/* The next completion of @cq within @ms, or false. */
static bool pib_ktest_poll(struct ib_cq *cq, struct ib_wc *wc, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	do {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return true;
		usleep_range(500, 1000);
	} while (time_before(jiffies, end));
	return false;
}

static enum ib_qp_state pib_ktest_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;

	if (ib_query_qp(qp, &a, IB_QP_STATE, &init))
		return IB_QPS_ERR;
	return a.qp_state;
}

/* The next completion of A is @wr_id's, successful, with @opcode. */
static void pib_ktest_expect(struct pib_ktest *t, const char *what, u64 wr_id,
			     enum ib_wc_opcode opcode)
{
	struct ib_wc wc;

	if (!pib_ktest_poll(t->cq, &wc, PIB_KTEST_WAIT_MS)) {
		pib_ktest_check(t, false, "%s: no completion", what);
		return;
	}
	pib_ktest_check(t, wc.wr_id == wr_id && wc.status == IB_WC_SUCCESS &&
			wc.opcode == opcode,
			"%s: completion of WR %llu (want %llu), status %s, opcode %d (want %d)",
			what, wc.wr_id, wr_id, ib_wc_status_msg(wc.status),
			wc.opcode, opcode);
}

/* Nothing more completes and A stays in RTS past a retransmit timeout. */
static void pib_ktest_quiet(struct pib_ktest *t, const char *what)
{
	struct ib_wc wc;

	if (pib_ktest_poll(t->cq, &wc, PIB_KTEST_SETTLE_MS))
		pib_ktest_check(t, false, "%s: a later completion, WR %llu, %s",
				what, wc.wr_id, ib_wc_status_msg(wc.status));
	pib_ktest_check(t, pib_ktest_state(t->a) == IB_QPS_RTS,
			"%s: the QP stays in RTS", what);
}

/* A fast-register MR mapping @t->buf, with a fresh key byte. */
static struct ib_mr *pib_ktest_fast_mr(struct pib_ktest *t,
				       struct scatterlist *sg)
{
	struct ib_mr *mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 4);

	if (IS_ERR(mr))
		return mr;
	sg_init_one(sg, t->buf, PAGE_SIZE);
	if (ib_dma_map_sg(t->dev, sg, 1, DMA_BIDIRECTIONAL) != 1 ||
	    ib_map_mr_sg(mr, sg, 1, NULL, PAGE_SIZE) != 1) {
		ib_dereg_mr(mr);
		return ERR_PTR(-EIO);
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	return mr;
}

static int pib_ktest_post_reg(struct pib_ktest *t, struct ib_mr *mr, u64 id)
{
	struct ib_reg_wr reg = {
		.wr = {
			.wr_id = id,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = mr,
		.key = mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};

	return ib_post_send(t->a, &reg.wr, NULL);
}

static int pib_ktest_post_inv(struct pib_ktest *t, u32 rkey, u64 id)
{
	struct ib_send_wr wr = {
		.wr_id = id,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = rkey,
	};

	return ib_post_send(t->a, &wr, NULL);
}

/* A SEND of 64 bytes from the buffer on @qp, with @flags (IB_SEND_*). */
static int pib_ktest_post_send(struct pib_ktest *t, struct ib_qp *qp, u64 id,
			       int flags)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf,
		.length = 64,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = id,
		.opcode = IB_WR_SEND,
		.send_flags = flags,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_send(qp, &wr, NULL);
}

/* A receive WR @id into the buffer's second half: on @srq, or else @qp. */
static int pib_ktest_post_recv(struct pib_ktest *t, struct ib_qp *qp,
			       struct ib_srq *srq, u64 id)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf + PAGE_SIZE / 2,
		.length = 64,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	return srq ? ib_post_srq_recv(srq, &wr, NULL) :
		     ib_post_recv(qp, &wr, NULL);
}

/*
 * A REG_MR, then a LOCAL_INV, each the last WQE of the SQ with nothing
 * outstanding: each completes when executed, once, and a retransmit
 * timeout later the QP is still in RTS (no local WQE runs twice).
 */
static void pib_ktest_local_tail(struct pib_ktest *t, bool inv)
{
	const char *what = inv ? "LOCAL_INV at the SQ's tail" :
				 "REG_MR at the SQ's tail";
	struct scatterlist sg;
	struct ib_mr *mr;

	if (pib_ktest_get_pair(t))
		return;
	mr = pib_ktest_fast_mr(t, &sg);
	if (IS_ERR(mr)) {
		pib_ktest_check(t, false, "%s: a fast-register MR: %ld", what,
				PTR_ERR(mr));
		goto out;
	}
	pib_ktest_check(t, !pib_ktest_post_reg(t, mr, 1), "%s: post REG_MR", what);
	if (inv) {
		pib_ktest_expect(t, what, 1, IB_WC_REG_MR);
		pib_ktest_check(t, !pib_ktest_post_inv(t, mr->rkey, 2),
				"%s: post LOCAL_INV", what);
		pib_ktest_expect(t, what, 2, IB_WC_LOCAL_INV);
	} else {
		pib_ktest_expect(t, what, 1, IB_WC_REG_MR);
	}
	pib_ktest_quiet(t, what);
	ib_dereg_mr(mr);
out:
	pib_ktest_put_pair(t);
}

/*
 * A consumer that moves its MR's key on while a REG_MR is still queued
 * (ib_update_fast_reg_key() for the next registration): the REG_MR
 * registers the key in its WR, and leaves the MR's keys as the consumer
 * set them. LOCAL_INV of the registered key, then REG_MR and LOCAL_INV of
 * the next one, succeed.
 */
static void pib_ktest_reg_key_ahead(struct pib_ktest *t)
{
	const char *what = "REG_MR with the key moved on";
	struct scatterlist sg;
	struct ib_mr *mr;
	u32 key, next;
	int err;

	if (pib_ktest_get_pair(t))
		return;
	mr = pib_ktest_fast_mr(t, &sg);
	if (IS_ERR(mr)) {
		pib_ktest_check(t, false, "%s: a fast-register MR", what);
		goto out;
	}
	key = mr->rkey;
	next = ib_inc_rkey(key);
	err = pib_ktest_post_reg(t, mr, 1);
	ib_update_fast_reg_key(mr, next);
	pib_ktest_check(t, !err, "%s: post REG_MR", what);
	pib_ktest_expect(t, what, 1, IB_WC_REG_MR);
	pib_ktest_check(t, mr->lkey == next && mr->rkey == next,
			"%s: the MR's keys are still the consumer's 0x%x (0x%x, 0x%x)",
			what, next, mr->lkey, mr->rkey);
	pib_ktest_check(t, !pib_ktest_post_inv(t, key, 2), "%s: post LOCAL_INV", what);
	pib_ktest_expect(t, what, 2, IB_WC_LOCAL_INV);
	pib_ktest_check(t, !pib_ktest_post_reg(t, mr, 3), "%s: post REG_MR again", what);
	pib_ktest_expect(t, what, 3, IB_WC_REG_MR);
	pib_ktest_check(t, !pib_ktest_post_inv(t, next, 4), "%s: post LOCAL_INV again",
			what);
	pib_ktest_expect(t, what, 4, IB_WC_LOCAL_INV);
	pib_ktest_quiet(t, what);
	ib_dereg_mr(mr);
out:
	pib_ktest_put_pair(t);
}

/*
 * SEND, local WQE, SEND to a peer with no receive posted: RNR NAKs make
 * the requester go back to the first SEND again and again. The local WQE
 * runs once (a second REG_MR of a valid MR, or LOCAL_INV of an invalid
 * one, would fail), and completes between the SENDs once the receives
 * are posted.
 */
static void pib_ktest_local_behind(struct pib_ktest *t, const char *what,
				   struct ib_mr *mr, bool inv, u64 id)
{
	int err;

	err = pib_ktest_post_send(t, t->a, id, IB_SEND_SIGNALED);
	if (!err)
		err = inv ? pib_ktest_post_inv(t, mr->rkey, id + 1) :
			    pib_ktest_post_reg(t, mr, id + 1);
	err = err ?: pib_ktest_post_send(t, t->a, id + 2, IB_SEND_SIGNALED);
	pib_ktest_check(t, !err, "%s: post SEND, %s, SEND", what,
			inv ? "LOCAL_INV" : "REG_MR");
	msleep(PIB_KTEST_SETTLE_MS);
	err = pib_ktest_post_recv(t, t->b, NULL, id);
	err = err ?: pib_ktest_post_recv(t, t->b, NULL, id + 2);
	pib_ktest_check(t, !err, "%s: post the receives", what);
	pib_ktest_expect(t, what, id, IB_WC_SEND);
	pib_ktest_expect(t, what, id + 1, inv ? IB_WC_LOCAL_INV : IB_WC_REG_MR);
	pib_ktest_expect(t, what, id + 2, IB_WC_SEND);
}

static void pib_ktest_local_behind_rnr(struct pib_ktest *t)
{
	const char *what = "a local WQE between RNR-NAKed SENDs";
	struct scatterlist sg;
	struct ib_mr *mr;

	if (pib_ktest_get_pair(t))
		return;
	mr = pib_ktest_fast_mr(t, &sg);
	if (IS_ERR(mr)) {
		pib_ktest_check(t, false, "%s: a fast-register MR", what);
		goto out;
	}
	pib_ktest_local_behind(t, what, mr, false, 1);
	pib_ktest_local_behind(t, what, mr, true, 4);
	pib_ktest_quiet(t, what);
	ib_dereg_mr(mr);
out:
	pib_ktest_put_pair(t);
}

/* A CQ, an SRQ and an RC QP on both (not connected). */
struct pib_ktest_srq {
	struct ib_cq *cq;
	struct ib_srq *srq;
	struct ib_qp *qp;
};

/*
 * Make @s with an SRQ of @max_wr WQEs; a failure is a failed check that
 * @what names. Return: 0, or a negative errno (pib_ktest_srq_put() frees
 * what was made either way).
 */
static int pib_ktest_srq_get(struct pib_ktest *t, struct pib_ktest_srq *s,
			     u32 max_wr, const char *what)
{
	struct ib_srq_init_attr sa = {
		.attr = { .max_wr = max_wr, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};

	s->qp = NULL;
	s->cq = ib_alloc_cq(t->dev, NULL, PIB_KTEST_DEPTH, 0, IB_POLL_DIRECT);
	s->srq = ib_create_srq(t->pd, &sa);
	if (IS_ERR(s->cq) || IS_ERR(s->srq)) {
		pib_ktest_check(t, false, "%s: a CQ and an SRQ", what);
		return -ENOMEM;
	}
	s->qp = pib_ktest_qp(t, s->cq, s->srq);
	if (IS_ERR(s->qp)) {
		pib_ktest_check(t, false, "%s: a QP on the SRQ: %ld", what,
				PTR_ERR(s->qp));
		return PTR_ERR(s->qp);
	}
	return 0;
}

static void pib_ktest_srq_put(struct pib_ktest_srq *s)
{
	if (!IS_ERR_OR_NULL(s->qp))
		ib_destroy_qp(s->qp);
	if (!IS_ERR(s->srq))
		ib_destroy_srq(s->srq);
	if (!IS_ERR(s->cq))
		ib_free_cq(s->cq);
}

/*
 * A kernel QP on an SRQ goes to RESET (which forgets its receive queue),
 * and takes its completions that were not polled out of the CQ: the
 * flush of a SEND posted in ERR.
 */
static void pib_ktest_srq_reset(struct pib_ktest *t)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
	struct pib_ktest_srq s;
	struct ib_wc wc;
	int err;

	if (pib_ktest_srq_get(t, &s, PIB_KTEST_DEPTH, "SRQ QP to RESET"))
		goto out;
	err = pib_ktest_connect(t, s.qp, s.qp->qp_num);
	pib_ktest_check(t, !err, "SRQ QP to RESET: to RTS: %d", err);
	err = ib_modify_qp(s.qp, &a, IB_QP_STATE) ||
	      pib_ktest_post_send(t, s.qp, 1, IB_SEND_SIGNALED);
	msleep(PIB_KTEST_SETTLE_MS);
	pib_ktest_check(t, !err && ib_req_notify_cq(s.cq, IB_CQ_NEXT_COMP |
						    IB_CQ_REPORT_MISSED_EVENTS) > 0,
			"SRQ QP to RESET: a SEND posted in ERR is flushed to the CQ");
	a.qp_state = IB_QPS_RESET;
	err = ib_modify_qp(s.qp, &a, IB_QP_STATE);
	pib_ktest_check(t, !err, "SRQ QP to RESET: %d", err);
	pib_ktest_check(t, !ib_poll_cq(s.cq, 1, &wc),
			"SRQ QP to RESET: its completion left the CQ");
	err = pib_ktest_connect(t, s.qp, s.qp->qp_num);
	pib_ktest_check(t, !err, "SRQ QP to RTS again after RESET: %d", err);
out:
	pib_ktest_srq_put(&s);
}

/*
 * An SRQ of 4 with 3 receives posted is resized: not below them
 * (-EINVAL), then up to 64. A fourth receive is posted, and a QP on the
 * SRQ sends itself 4 messages: the receives posted before and after the
 * resize complete, in order.
 */
static void pib_ktest_srq_resize(struct pib_ktest *t)
{
	const char *what = "SRQ resize";
	struct ib_srq_attr ra = { .max_wr = 2 };
	struct pib_ktest_srq s;
	struct ib_wc wc;
	int err = 0;
	u64 id;

	if (pib_ktest_srq_get(t, &s, 4, what))
		goto out;
	if (pib_ktest_connect(t, s.qp, s.qp->qp_num)) {
		pib_ktest_check(t, false, "%s: the QP connected to itself", what);
		goto out;
	}
	for (id = 1; id <= 3 && !err; id++)
		err = pib_ktest_post_recv(t, NULL, s.srq, id);
	pib_ktest_check(t, !err, "%s: 3 receives posted", what);
	err = ib_modify_srq(s.srq, &ra, IB_SRQ_MAX_WR);
	pib_ktest_check(t, err == -EINVAL,
			"%s: to 2 WQEs, fewer than are posted: refused (%d)", what, err);
	ra.max_wr = 64;
	err = ib_modify_srq(s.srq, &ra, IB_SRQ_MAX_WR);
	err = err ?: ib_query_srq(s.srq, &ra);
	pib_ktest_check(t, !err && ra.max_wr >= 64, "%s: to 64 WQEs (%d, max_wr %u)",
			what, err, ra.max_wr);
	err = pib_ktest_post_recv(t, NULL, s.srq, 4);
	for (id = 1; id <= 4 && !err; id++)
		err = pib_ktest_post_send(t, s.qp, id, 0);
	pib_ktest_check(t, !err, "%s: a fourth receive, and 4 SENDs posted", what);
	for (id = 1; id <= 4; id++) {
		if (!pib_ktest_poll(s.cq, &wc, PIB_KTEST_WAIT_MS)) {
			pib_ktest_check(t, false, "%s: no completion for receive %llu",
					what, id);
			break;
		}
		pib_ktest_check(t, wc.wr_id == id && wc.status == IB_WC_SUCCESS &&
				wc.opcode == IB_WC_RECV,
				"%s: receive %llu completes (WR %llu, %s)", what, id,
				wc.wr_id, ib_wc_status_msg(wc.status));
	}
out:
	pib_ktest_srq_put(&s);
}

/*
 * More completions than the CQ holds, from local WQEs (REG_MR, LOCAL_INV)
 * that complete with no peer: the CQ keeps the completions it had room
 * for, in order, loses the later ones, and pib says so in the kernel log
 * (the pool CQs of kernel consumers have no event handler).
 */
static void pib_ktest_cq_overflow(struct pib_ktest *t)
{
	const char *what = "CQ overflow";
	unsigned long end = jiffies + msecs_to_jiffies(PIB_KTEST_WAIT_MS);
	unsigned int posted = 0, polled = 0, want;
	struct scatterlist sg;
	struct ib_mr *mr;
	struct ib_wc wc;
	int bad = -1;
	int err = 0;

	if (pib_ktest_get_pair(t))
		return;
	want = t->cq->cqe + 2 * PIB_KTEST_DEPTH;
	mr = pib_ktest_fast_mr(t, &sg);
	if (IS_ERR(mr)) {
		pib_ktest_check(t, false, "%s: a fast-register MR", what);
		goto out;
	}
	/* REG_MR, LOCAL_INV, with a new key each time; the SQ refills. */
	while (posted < want && time_before(jiffies, end)) {
		if (posted % 2)
			err = pib_ktest_post_inv(t, mr->rkey, posted);
		else
			err = pib_ktest_post_reg(t, mr, posted);
		if (err == -ENOMEM) {
			usleep_range(1000, 2000);
			continue;
		}
		if (err)
			break;
		if (posted % 2)
			ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		posted++;
	}
	pib_ktest_check(t, posted == want, "%s: %u local WQEs posted (%d)",
			what, posted, err);
	msleep(PIB_KTEST_SETTLE_MS);
	while (polled < want && ib_poll_cq(t->cq, 1, &wc) == 1) {
		if (bad < 0 && (wc.wr_id != polled || wc.status != IB_WC_SUCCESS)) {
			bad = polled;
			pib_ktest_check(t, false, "%s: completion %u is WR %llu, %s",
					what, polled, wc.wr_id,
					ib_wc_status_msg(wc.status));
		}
		polled++;
	}
	pib_ktest_check(t, polled >= t->cq->cqe && polled < want && bad < 0,
			"%s: the first %u completions of %u, in order (a CQ of %d)",
			what, polled, want, t->cq->cqe);
	ib_dereg_mr(mr);
out:
	pib_ktest_put_pair(t);
}

/* The next completion of @cq is @wr_id's, with @status. */
static void pib_ktest_expect_status(struct pib_ktest *t, struct ib_cq *cq,
				    const char *what, u64 wr_id,
				    enum ib_wc_status status)
{
	struct ib_wc wc;

	if (!pib_ktest_poll(cq, &wc, PIB_KTEST_WAIT_MS)) {
		pib_ktest_check(t, false, "%s: no completion", what);
		return;
	}
	pib_ktest_check(t, wc.wr_id == wr_id && wc.status == status,
			"%s: completion of WR %llu (want %llu), status %s (want %s)",
			what, wc.wr_id, wr_id, ib_wc_status_msg(wc.status),
			ib_wc_status_msg(status));
}

/*
 * An R_Key that LOCAL_INV invalidated: B's RDMA WRITE to it fails with a
 * remote access error (strict mode reports it: rkey-invalidated).
 */
static void pib_ktest_stale_rkey(struct pib_ktest *t)
{
	const char *what = "RDMA WRITE to an invalidated R_Key";
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf,
		.length = 64,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 3,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
	};
	struct scatterlist sg;
	struct ib_mr *mr;

	if (pib_ktest_get_pair(t))
		return;
	mr = pib_ktest_fast_mr(t, &sg);
	if (IS_ERR(mr)) {
		pib_ktest_check(t, false, "%s: a fast-register MR: %ld", what,
				PTR_ERR(mr));
		goto out;
	}
	pib_ktest_check(t, !pib_ktest_post_reg(t, mr, 1), "%s: post REG_MR", what);
	pib_ktest_expect(t, what, 1, IB_WC_REG_MR);
	pib_ktest_check(t, !pib_ktest_post_inv(t, mr->rkey, 2),
			"%s: post LOCAL_INV", what);
	pib_ktest_expect(t, what, 2, IB_WC_LOCAL_INV);
	wr.remote_addr = mr->iova;
	wr.rkey = mr->rkey;
	pib_ktest_check(t, !ib_post_send(t->b, &wr.wr, NULL), "%s: post", what);
	pib_ktest_expect_status(t, t->bcq, what, 3, IB_WC_REM_ACCESS_ERR);
	ib_dereg_mr(mr);
out:
	pib_ktest_put_pair(t);
}

/* An atomic at an address not 8-byte aligned fails at the requester. */
static void pib_ktest_atomic_unaligned(struct pib_ktest *t)
{
	const char *what = "fetch-and-add at an unaligned address";
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf,
		.length = 8,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = 1,
			.opcode = IB_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
		.remote_addr = (uintptr_t)t->buf + PAGE_SIZE / 2 + 4,
		.compare_add = 1,
	};

	if (pib_ktest_get_pair(t))
		return;
	pib_ktest_check(t, !ib_post_send(t->a, &wr.wr, NULL), "%s: post", what);
	pib_ktest_expect_status(t, t->cq, what, 1, IB_WC_LOC_QP_OP_ERR);
	pib_ktest_put_pair(t);
}

/* An inline SEND whose SGE lengths add up past 2^32 is refused. */
static void pib_ktest_inline_overflow(struct pib_ktest *t)
{
	struct ib_sge sge[2] = {
		{ .addr = (uintptr_t)t->buf, .length = U32_MAX },
		{ .addr = (uintptr_t)t->buf, .length = 2 },
	};
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_INLINE | IB_SEND_SIGNALED,
		.sg_list = sge,
		.num_sge = 2,
	};
	int err;

	if (pib_ktest_get_pair(t))
		return;
	err = ib_post_send(t->a, &wr, NULL);
	pib_ktest_check(t, err == -EINVAL,
			"inline SEND of 4 GiB + 1 byte refused: %d", err);
	pib_ktest_put_pair(t);
}

static bool pib_ktest_wanted(const char *name)
{
	const char *p = pib_ktest_tests;
	size_t n = strlen(name);

	if (!strcmp(p, "all"))
		return true;
	while ((p = strstr(p, name))) {
		if ((p == pib_ktest_tests || p[-1] == ',') &&
		    (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static void pib_ktest_run(struct pib_ktest *t)
{
	if (pib_ktest_wanted("reg-tail"))
		pib_ktest_local_tail(t, false);
	if (pib_ktest_wanted("inv-tail"))
		pib_ktest_local_tail(t, true);
	if (pib_ktest_wanted("reg-key-ahead"))
		pib_ktest_reg_key_ahead(t);
	if (pib_ktest_wanted("local-behind-rnr"))
		pib_ktest_local_behind_rnr(t);
	if (pib_ktest_wanted("srq-reset"))
		pib_ktest_srq_reset(t);
	if (pib_ktest_wanted("srq-resize"))
		pib_ktest_srq_resize(t);
	if (pib_ktest_wanted("inline-overflow"))
		pib_ktest_inline_overflow(t);
	if (pib_ktest_wanted("cq-overflow"))
		pib_ktest_cq_overflow(t);
	if (pib_ktest_wanted("stale-rkey"))
		pib_ktest_stale_rkey(t);
	if (pib_ktest_wanted("atomic-unaligned"))
		pib_ktest_atomic_unaligned(t);
}

static struct ib_device *pib_ktest_found;

/* The device named by the parameter, held; pib_ktest is a client of none. */
static int pib_ktest_add(struct ib_device *dev)
{
	if (!pib_ktest_found && !strcmp(dev_name(&dev->dev), pib_ktest_dev) &&
	    ib_device_try_get(dev))
		pib_ktest_found = dev;
	return -EOPNOTSUPP;
}

static struct ib_client pib_ktest_client = {
	.name = "pib_ktest",
	.add = pib_ktest_add,
};

/*
 * A device by name, as a kernel consumer finds one: registering a client
 * walks every device (ib_device_get_by_name() is not exported by 7.x).
 */
static struct ib_device *pib_ktest_get_dev(void)
{
	if (ib_register_client(&pib_ktest_client))
		return NULL;
	ib_unregister_client(&pib_ktest_client);
	return pib_ktest_found;
}

static int __init pib_ktest_init(void)
{
	struct pib_ktest t = {};
	struct ib_port_attr pa;
	int err;

	t.dev = pib_ktest_get_dev();
	if (!t.dev) {
		pr_err("pib_ktest: no device %s\n", pib_ktest_dev);
		return -ENODEV;
	}
	err = ib_query_port(t.dev, 1, &pa);
	if (err || pa.state != IB_PORT_ACTIVE) {
		pr_err("pib_ktest: %s port 1 is not ACTIVE\n", pib_ktest_dev);
		err = -ENETDOWN;
		goto put_dev;
	}
	t.lid = pa.lid;
	t.buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	t.pd = ib_alloc_pd(t.dev, 0);
	if (!t.buf || IS_ERR(t.pd)) {
		err = -ENOMEM;
		goto free;
	}
	pib_ktest_run(&t);
	err = t.failures ? -EIO : 0;
	pr_info("pib_ktest: %d failure(s)\n", t.failures);
free:
	if (!IS_ERR_OR_NULL(t.pd))
		ib_dealloc_pd(t.pd);
	kfree(t.buf);
put_dev:
	ib_device_put(t.dev);
	return err;
}

static void __exit pib_ktest_exit(void)
{
}

module_init(pib_ktest_init);
module_exit(pib_ktest_exit);

MODULE_DESCRIPTION("pib: kernel-consumer checks of a pib device");
MODULE_LICENSE("Dual BSD/GPL");
