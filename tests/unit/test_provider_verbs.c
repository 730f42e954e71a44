// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of libpib's verbs (create, post, poll, resize, destroy) with
 * the kernel played by this file: the ibv_cmd_* functions the provider
 * calls are defined here, so they replace libibverbs' own, and they hand
 * out rings in a memfd that stands for the uverbs file. Everything else
 * is the installed libibverbs, so ibv_qp_to_qp_ex() and the inline
 * ibv_wr_* / ibv_start_poll wrappers are the real ones.
 *
 * The stubs keep libibverbs' names (they must, to replace them); the
 * rest follows pib's naming. They are written with the parameters of the
 * newest rdma-core, as the provider's calls are: for an older one,
 * pib_verbs_compat.h's macros drop the parameters it does not have, here
 * as there.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pib.h"
#include "unit.h"

#define PAGE		4096u
#define FAKE_QPN	7

static struct {
	int fd;			/* the "uverbs file" */
	uint64_t end;		/* its size: rings are allocated at the end */
	int doorbells;		/* post_send commands, all with no WRs */
	struct pib_ring_info cq;	/* the last CQ's ring */
	uint32_t cq_prod;	/* its producer index, as the kernel keeps it */
} fake;

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static struct pib_ring_info fake_ring(uint32_t num, uint32_t stride)
{
	struct pib_ring_info info = { .offset = fake.end, .num = num,
				      .stride = stride };

	info.size = (PIB_RING_HDR_SIZE + num * stride + PAGE - 1) & ~(PAGE - 1);
	fake.end += info.size;
	if (ftruncate(fake.fd, fake.end))
		abort();
	return info;
}

static void *fake_map(const struct pib_ring_info *info)
{
	void *p = mmap(NULL, info->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fake.fd, info->offset);

	if (p == MAP_FAILED)
		abort();
	return p;
}

static void *fake_entry(void *ring, const struct pib_ring_info *info,
			uint32_t idx)
{
	return (char *)ring + PIB_RING_HDR_SIZE +
	       (idx & (info->num - 1)) * info->stride;
}

/* The kernel completes a work request into the last CQ. */
static void fake_complete(uint64_t wr_id, uint32_t wc_flags, uint32_t ex)
{
	struct pib_ring_hdr *hdr = fake_map(&fake.cq);
	struct pib_cqe *cqe = fake_entry(hdr, &fake.cq, fake.cq_prod);

	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = wr_id;
	cqe->opcode = IBV_WC_RECV;
	cqe->qp_num = FAKE_QPN;
	cqe->wc_flags = wc_flags;
	cqe->ex = ex;
	cqe->timestamp = 1000000000ull * wr_id;
	__atomic_store_n(&hdr->producer, ++fake.cq_prod, __ATOMIC_RELEASE);
	munmap(hdr, fake.cq.size);
}

int ibv_cmd_create_cq(struct ibv_context *ctx, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size)
{
	assert(resp_size == sizeof(*resp) + sizeof(struct pib_create_cq_resp));
	fake.cq = fake_ring(pow2_at_least(cqe + 1), sizeof(struct pib_cqe));
	fake.cq_prod = 0;
	memcpy(resp + 1, &fake.cq, sizeof(fake.cq));
	cq->context = ctx;
	cq->cqe = fake.cq.num - 1;
	return 0;
}

int ibv_cmd_create_cq_ex(struct ibv_context *ctx,
			 const struct ibv_cq_init_attr_ex *attr,
			 struct verbs_create_cq_prov_attr *prov_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags)
{
	assert(resp_size == sizeof(*resp) + sizeof(struct pib_create_cq_resp));
	fake.cq = fake_ring(pow2_at_least(attr->cqe + 1),
			    sizeof(struct pib_cqe));
	fake.cq_prod = 0;
	memcpy(resp + 1, &fake.cq, sizeof(fake.cq));
	cq->cq.context = ctx;
	return 0;
}

/* As pib.ko: the CQEs not polled yet move to the start of a new ring. */
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size)
{
	struct pib_ring_info info = fake_ring(pow2_at_least(cqe + 1),
					      sizeof(struct pib_cqe));
	struct pib_ring_hdr *old = fake_map(&fake.cq), *new = fake_map(&info);
	uint32_t used = old->producer - old->consumer, i;

	for (i = 0; i < used; i++)
		memcpy(fake_entry(new, &info, i),
		       fake_entry(old, &fake.cq, old->consumer + i),
		       sizeof(struct pib_cqe));
	new->producer = used;
	munmap(old, fake.cq.size);
	munmap(new, info.size);
	fake.cq = info;
	fake.cq_prod = used;
	memcpy(resp + 1, &info, sizeof(info));
	return 0;
}

int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
	return 0;
}

int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return 0;
}

/* Rings sized as <rdma/pib-abi.h> says; what libibverbs' set_qp() does. */
static void fake_create_qp(struct ibv_qp *qp, struct ibv_context *ctx,
			   const struct ibv_qp_init_attr_ex *attr,
			   struct pib_create_qp_resp *drv)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	uint32_t sges = cap->max_send_sge * sizeof(struct pib_sge);
	uint32_t room = sges > cap->max_inline_data ? sges :
						      cap->max_inline_data;

	drv->sq = fake_ring(pow2_at_least(cap->max_send_wr),
			    pow2_at_least(sizeof(struct pib_send_wqe) + room));
	if (!attr->srq)
		drv->rq = fake_ring(pow2_at_least(cap->max_recv_wr),
				    pow2_at_least(sizeof(struct pib_recv_wqe) +
						  cap->max_recv_sge *
						  sizeof(struct pib_sge)));
	qp->context = ctx;
	qp->pd = attr->pd;
	qp->qp_type = attr->qp_type;
	qp->srq = attr->srq;
	qp->qp_num = FAKE_QPN;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
}

int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size)
{
	struct ibv_qp_init_attr_ex ex = { .qp_type = attr->qp_type, .pd = pd,
					  .srq = attr->srq, .cap = attr->cap };

	assert(resp_size == sizeof(*resp) + sizeof(struct pib_create_qp_resp));
	fake_create_qp(qp, pd->context, &ex, (void *)(resp + 1));
	return 0;
}

/* As libibverbs' set_qp(): comp_mask starts empty. */
int ibv_cmd_create_qp_ex2(struct ibv_context *ctx, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size, struct ibv_command_buffer *driver)
{
	assert(resp_size == sizeof(*resp) + sizeof(struct pib_create_qp_resp));
	fake_create_qp(&qp->qp, ctx, attr, (void *)(resp + 1));
	qp->comp_mask = 0;
	return 0;
}

int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd, size_t cmd_size)
{
	return 0;
}

int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	return 0;
}

int ibv_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr)
{
	CHECK(wr == NULL);	/* a doorbell carries no work requests */
	fake.doorbells++;
	return 0;
}

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp, size_t resp_size)
{
	struct pib_create_srq_resp drv = {
		.rq = fake_ring(pow2_at_least(attr->attr.max_wr),
				pow2_at_least(sizeof(struct pib_recv_wqe) +
					      attr->attr.max_sge *
					      sizeof(struct pib_sge))),
	};

	assert(resp_size == sizeof(*resp) + sizeof(drv));
	memcpy(resp + 1, &drv, sizeof(drv));
	srq->context = pd->context;
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
	return 0;
}

int ibv_cmd_destroy_srq(struct ibv_srq *srq)
{
	return 0;
}

/*
 * A resize: a new ring with the WQEs not taken yet at its start, described
 * at the address the command gives (struct pib_modify_srq).
 */
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		       int mask, struct ibv_modify_srq *cmd, size_t cmd_size)
{
	const struct pib_modify_srq *drv = (const void *)(cmd + 1);
	const struct pib_ring *old = &to_pib_srq(srq)->rq.ring;
	uint32_t cons = pib_ring_hdr(old)->consumer;
	uint32_t i, n = pib_ring_hdr(old)->producer - cons;
	struct pib_ring_info info;
	uint8_t *p;

	if (!(mask & IBV_SRQ_MAX_WR))
		return 0;
	assert(cmd_size == sizeof(*cmd) + sizeof(*drv));
	if (n > pow2_at_least(attr->max_wr))
		return EINVAL;
	info = fake_ring(pow2_at_least(attr->max_wr), old->stride);
	p = fake_map(&info);
	for (i = 0; i < n; i++)
		memcpy(p + PIB_RING_HDR_SIZE + i * old->stride,
		       pib_ring_entry(old, cons + i), old->stride);
	((struct pib_ring_hdr *)p)->producer = n;
	munmap(p, info.size);
	memcpy((void *)(uintptr_t)drv->ring_info, &info, sizeof(info));
	return 0;
}

int ibv_cmd_query_port(struct ibv_context *ctx, uint8_t port_num,
		       struct ibv_port_attr *attr, struct ibv_query_port *cmd,
		       size_t cmd_size)
{
	memset(attr, 0, sizeof(*attr));
	attr->gid_tbl_len = 16;
	return 0;
}

static struct pib_context fake_pib_ctx;
#define CTX	(&fake_pib_ctx.ibv_ctx.context)

static struct pib_pd fake_pd = { .ibv_pd = { .context = CTX, .handle = 7 } };

static void move_qp(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };

	CHECK_EQ(pib_modify_qp(qp, &attr, IBV_QP_STATE), 0);
}

static struct ibv_cq *test_cq(void)
{
	struct ibv_cq *cq = pib_create_cq(CTX, 3, NULL, 0);

	CHECK(cq != NULL);
	if (!cq)
		abort();
	CHECK_EQ(to_pib_cq(cq)->ring.num, 4);
	return cq;
}

/* An RC QP: state checks, post_send with its doorbell, the wr_* API. */
static void test_rc(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.pd = &fake_pd.ibv_pd,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};
	char buf[8] = "payload";
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 7 };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_INLINE };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr *bad = NULL;
	struct ibv_recv_wr *rbad = NULL;
	struct pib_send_wqe *wqe;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	struct pib_qp *pq;

	attr.send_ops_flags |= IBV_QP_EX_WITH_TSO;
	CHECK(pib_create_qp_ex(CTX, &attr) == NULL);
	CHECK_EQ(errno, EOPNOTSUPP);
	attr.send_ops_flags &= ~IBV_QP_EX_WITH_TSO;
	qp = pib_create_qp_ex(CTX, &attr);
	CHECK(qp != NULL);
	if (!qp)
		return;
	pq = to_pib_qp(qp);
	qpx = ibv_qp_to_qp_ex(qp);	/* the installed libibverbs finds it */
	CHECK(qpx == &pq->vqp.qp_ex);
	CHECK_EQ(pq->sq.max_sge, 2);
	CHECK_EQ(pq->sq.max_inline, 64);

	CHECK_EQ(pib_post_send(qp, &swr, &bad), EINVAL);	/* RESET */
	CHECK(bad == &swr);
	CHECK_EQ(pib_post_recv(qp, &rwr, &rbad), EINVAL);
	move_qp(qp, IBV_QPS_INIT);
	CHECK_EQ(pib_post_recv(qp, &rwr, &rbad), 0);
	CHECK_EQ(pib_post_send(qp, &swr, &bad), EINVAL);	/* INIT */
	move_qp(qp, IBV_QPS_RTR);
	move_qp(qp, IBV_QPS_RTS);
	fake.doorbells = 0;
	CHECK_EQ(pib_post_send(qp, &swr, &bad), 0);
	CHECK_EQ(fake.doorbells, 1);
	wqe = pib_ring_entry(&pq->sq.ring, 0);
	CHECK_EQ(wqe->num_sge, 7);
	CHECK(!memcmp(PIB_WQE_INLINE(wqe), "payload", 7));

	ibv_wr_start(qpx);
	qpx->wr_id = 10;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 1, 0x100, 8);
	ibv_wr_rdma_write(qpx, 5, 0x2000);
	ibv_wr_set_inline_data(qpx, buf, 3);
	CHECK_EQ(ibv_wr_complete(qpx), 0);
	CHECK_EQ(fake.doorbells, 2);
	CHECK_EQ(pib_ring_hdr(&pq->sq.ring)->producer, 3);
	/* One slot is left: a batch of two fails whole, and rings nothing. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_send(qpx);
	CHECK_EQ(ibv_wr_complete(qpx), ENOMEM);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_abort(qpx);
	CHECK_EQ(pib_ring_hdr(&pq->sq.ring)->producer, 3);
	CHECK_EQ(fake.doorbells, 2);

	/* RESET drops what the kernel has not consumed. */
	move_qp(qp, IBV_QPS_RESET);
	CHECK_EQ(pib_ring_hdr(&pq->sq.ring)->producer, 0);
	CHECK_EQ(pib_ring_hdr(&pq->rq.ring)->producer, 0);
	CHECK_EQ(pib_destroy_qp(qp), 0);
}

/* poll_cq, resize_cq with CQEs pending, and the ibv_start_poll API. */
static void test_cq_poll_resize(struct ibv_cq *cq)
{
	struct ibv_cq_ex *cqx = &to_pib_cq(cq)->vcq.cq_ex;
	struct ibv_poll_cq_attr pattr = { 0 };
	struct ibv_wc wc[8];

	fake_complete(100, PIB_WC_WITH_IMM, 0x01020304);
	fake_complete(101, 0, 0);
	fake_complete(102, 0, 0);
	CHECK_EQ(pib_poll_cq(cq, 1, wc), 1);
	CHECK_EQ(wc[0].wr_id, 100);
	CHECK_EQ(wc[0].wc_flags, IBV_WC_WITH_IMM);
	CHECK_EQ(wc[0].imm_data, 0x01020304);
	CHECK_EQ(pib_resize_cq(cq, 12), 0);
	CHECK_EQ(to_pib_cq(cq)->ring.num, 16);
	CHECK_EQ(pib_poll_cq(cq, 8, wc), 2);
	CHECK_EQ(wc[0].wr_id, 101);
	CHECK_EQ(wc[1].wr_id, 102);

	fake_complete(103, 0, 0);
	fake_complete(104, 0, 0);
	CHECK_EQ(ibv_start_poll(cqx, &pattr), 0);
	CHECK_EQ(cqx->wr_id, 103);
	CHECK_EQ(ibv_wc_read_qp_num(cqx), FAKE_QPN);
	/* The kernel's time stamp, in ns: raw and wall-clock alike. */
	CHECK_EQ(ibv_wc_read_completion_ts(cqx), 103000000000ull);
	CHECK_EQ(ibv_wc_read_completion_wallclock_ns(cqx), 103000000000ull);
	CHECK_EQ(ibv_next_poll(cqx), 0);
	CHECK_EQ(cqx->wr_id, 104);
	CHECK_EQ(ibv_wc_read_opcode(cqx), IBV_WC_RECV);
	CHECK_EQ(ibv_next_poll(cqx), ENOENT);
	ibv_end_poll(cqx);
	CHECK_EQ(ibv_start_poll(cqx, &pattr), ENOENT);
	CHECK_EQ(pib_poll_cq(cq, 8, wc), 0);
}

static void test_cq_ex(void)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 4, .wc_flags = IBV_WC_EX_WITH_CVLAN,
	};
	struct ibv_values_ex rt = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct timespec before;
	struct ibv_cq_ex *cqx;

	CHECK(pib_create_cq_ex(CTX, &attr) == NULL);
	CHECK_EQ(errno, EOPNOTSUPP);
	attr.wc_flags = IBV_WC_STANDARD_FLAGS |
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	attr.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	CHECK(pib_create_cq_ex(CTX, &attr) == NULL);
	CHECK_EQ(errno, EOPNOTSUPP);
	attr.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	cqx = pib_create_cq_ex(CTX, &attr);
	CHECK(cqx != NULL);
	if (cqx)
		CHECK_EQ(pib_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	/* The clock the kernel stamps completions with: CLOCK_REALTIME. */
	clock_gettime(CLOCK_REALTIME, &before);
	CHECK_EQ(pib_query_rt_values(CTX, &rt), 0);
	CHECK(rt.raw_clock.tv_sec >= before.tv_sec);
	rt.comp_mask = IBV_VALUES_MASK_RAW_CLOCK << 1;
	CHECK_EQ(pib_query_rt_values(CTX, &rt), EOPNOTSUPP);
}

/* A UD QP on an SRQ: AHs, post_send with an address, no RQ of its own. */
static void test_ud_srq(struct ibv_cq *cq)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 4,
						     .max_sge = 1 } };
	struct ibv_ah_attr aattr = { .dlid = 3, .port_num = 1, .is_global = 1,
				     .grh = { .sgid_index = 2 } };
	struct ibv_sge sge = { .addr = 0x1000, .length = 8 };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND };
	struct ibv_send_wr *bad = NULL;
	struct ibv_recv_wr *rbad = NULL;
	struct ibv_qp_init_attr qattr = {
		.qp_type = IBV_QPT_UD, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 2, .max_send_sge = 1 },
	};
	struct pib_send_wqe *wqe;
	struct ibv_srq *srq;
	struct ibv_ah *ah;
	struct ibv_qp *qp;

	srq = pib_create_srq(&fake_pd.ibv_pd, &sattr);
	CHECK(srq != NULL);
	qattr.srq = srq;
	qp = pib_create_qp(&fake_pd.ibv_pd, &qattr);
	CHECK(qp != NULL);
	if (!srq || !qp)
		return;
	CHECK(ibv_qp_to_qp_ex(qp) == NULL);	/* no wr_* API asked for */
	CHECK(to_pib_qp(qp)->rq.ring.buf == NULL);
	move_qp(qp, IBV_QPS_INIT);
	CHECK_EQ(pib_post_recv(qp, &rwr, &rbad), EINVAL);
	CHECK_EQ(pib_post_srq_recv(srq, &rwr, &rbad), 0);
	/* A resize keeps the WQE posted; the next goes to the new ring. */
	sattr.attr.max_wr = 64;
	CHECK_EQ(pib_modify_srq(srq, &sattr.attr, IBV_SRQ_MAX_WR), 0);
	CHECK_EQ(to_pib_srq(srq)->rq.ring.num, 64);
	rwr.wr_id = 3;
	CHECK_EQ(pib_post_srq_recv(srq, &rwr, &rbad), 0);
	CHECK_EQ(pib_ring_hdr(&to_pib_srq(srq)->rq.ring)->producer, 2);
	CHECK_EQ(((struct pib_recv_wqe *)
		  pib_ring_entry(&to_pib_srq(srq)->rq.ring, 0))->wr_id, 0);
	CHECK_EQ(((struct pib_recv_wqe *)
		  pib_ring_entry(&to_pib_srq(srq)->rq.ring, 1))->wr_id, 3);
	sattr.attr.max_wr = 1;
	CHECK_EQ(pib_modify_srq(srq, &sattr.attr, IBV_SRQ_MAX_WR), EINVAL);
	CHECK_EQ(to_pib_srq(srq)->rq.ring.num, 64);

	ah = pib_create_ah(&fake_pd.ibv_pd, &aattr);
	CHECK(ah != NULL);
	aattr.grh.sgid_index = 16;
	CHECK(pib_create_ah(&fake_pd.ibv_pd, &aattr) == NULL);
	CHECK_EQ(errno, EINVAL);
	move_qp(qp, IBV_QPS_RTR);
	move_qp(qp, IBV_QPS_RTS);
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = 9;
	swr.wr.ud.remote_qkey = 0x11;
	CHECK_EQ(pib_post_send(qp, &swr, &bad), 0);
	wqe = pib_ring_entry(&to_pib_qp(qp)->sq.ring, 0);
	CHECK_EQ(wqe->wr.ud.av.dlid, 3);
	CHECK_EQ(wqe->wr.ud.av.sgid_index, 2);
	CHECK_EQ(wqe->wr.ud.remote_qpn, 9);
	CHECK_EQ(pib_destroy_ah(ah), 0);
	CHECK_EQ(pib_destroy_qp(qp), 0);
	CHECK_EQ(pib_destroy_srq(srq), 0);
}

/*
 * Parent domains: they name their PD's handle; with a thread domain their
 * QPs, SRQs and CQs take no lock. The PD and the thread domain go only
 * after them; a parent domain is of a PD of this context, not another.
 */
static void test_parent_domain(struct ibv_cq *cq)
{
	struct ibv_td_init_attr tattr = { 0 };
	struct ibv_td *td = pib_alloc_td(CTX, &tattr);
	struct ibv_parent_domain_init_attr pattr = { .pd = &fake_pd.ibv_pd,
						     .td = td };
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_qp_init_attr qattr = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 2, .max_send_sge = 1, .max_recv_wr = 2,
			 .max_recv_sge = 1 },
	};
	struct ibv_cq_init_attr_ex cattr = { .cqe = 4,
					     .comp_mask = IBV_CQ_INIT_ATTR_MASK_PD };
	struct ibv_pd *parent, *plain;
	struct ibv_cq_ex *cqx;
	struct ibv_srq *srq;
	struct ibv_qp *qp;

	CHECK(td != NULL);
	parent = pib_alloc_parent_domain(CTX, &pattr);
	CHECK(parent != NULL);
	pattr.td = NULL;
	plain = pib_alloc_parent_domain(CTX, &pattr);
	CHECK(plain != NULL);
	if (!td || !parent || !plain)
		return;
	CHECK_EQ(parent->handle, 7);
	CHECK_EQ(pib_dealloc_pd(&fake_pd.ibv_pd), EBUSY);
	CHECK_EQ(pib_dealloc_td(td), EBUSY);
	pattr.pd = parent;
	CHECK(pib_alloc_parent_domain(CTX, &pattr) == NULL);
	CHECK_EQ(errno, EINVAL);
	pattr.pd = &fake_pd.ibv_pd;
	pattr.comp_mask = 1u << 31;
	CHECK(pib_alloc_parent_domain(CTX, &pattr) == NULL);
	CHECK_EQ(errno, EOPNOTSUPP);

	srq = pib_create_srq(parent, &sattr);
	qp = pib_create_qp(parent, &qattr);
	CHECK(srq && !to_pib_srq(srq)->lock.need);
	CHECK(qp && !to_pib_qp(qp)->sq_lock.need && !to_pib_qp(qp)->rq_lock.need);
	cattr.parent_domain = parent;
	cqx = pib_create_cq_ex(CTX, &cattr);
	CHECK(cqx && !to_pib_cq_ex(cqx)->need_lock);
	if (cqx)
		CHECK_EQ(pib_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	cattr.parent_domain = plain;
	cqx = pib_create_cq_ex(CTX, &cattr);
	CHECK(cqx && to_pib_cq_ex(cqx)->need_lock);
	if (cqx)
		CHECK_EQ(pib_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	/* (a plain PD is no parent domain) */
	cattr.parent_domain = &fake_pd.ibv_pd;
	CHECK(pib_create_cq_ex(CTX, &cattr) == NULL);
	CHECK_EQ(errno, EINVAL);
	if (qp)
		CHECK_EQ(pib_destroy_qp(qp), 0);
	if (srq)
		CHECK_EQ(pib_destroy_srq(srq), 0);
	CHECK_EQ(pib_dealloc_pd(parent), 0);
	CHECK_EQ(pib_dealloc_pd(plain), 0);
	CHECK_EQ(fake_pd.refs, 0);
	CHECK_EQ(pib_dealloc_td(td), 0);
}

int main(void)
{
	struct ibv_cq *cq;

	fake.fd = memfd_create("pib-uverbs", 0);
	if (fake.fd < 0)
		abort();
	CTX->cmd_fd = fake.fd;
	cq = test_cq();
	test_rc(cq);
	test_cq_poll_resize(cq);
	test_cq_ex();
	test_ud_srq(cq);
	test_parent_domain(cq);
	CHECK_EQ(pib_destroy_cq(cq), 0);
	close(fake.fd);
	return unit_done("test_provider_verbs");
}
