// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of libpib's data path without a kernel: work requests into
 * SQ/RQ rings, CQEs out of CQ rings, ring descriptions, opcode rules and
 * address vectors. The rings live in ordinary memory; the test plays the
 * kernel by writing the indices the kernel owns.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pib_cqe.h"
#include "pib_ring.h"
#include "pib_wqe.h"
#include "unit.h"

/* A context pointer for AHs and SQs; nothing reads what it points to. */
static char fake_ctx_mem, other_ctx_mem;
#define FAKE_CTX	((struct ibv_context *)(void *)&fake_ctx_mem)
#define OTHER_CTX	((struct ibv_context *)(void *)&other_ctx_mem)

/* An SQ stride with room for 4 SGEs or 64 inline bytes. */
#define SQ_STRIDE	256
#define RQ_STRIDE	64
#define FILL		0xa5

static struct pib_ring ring_new(uint32_t num, uint32_t stride)
{
	struct pib_ring r = { .num = num, .stride = stride };

	r.size = PIB_RING_HDR_SIZE + (size_t)num * stride;
	r.buf = calloc(1, r.size);
	if (!r.buf)
		abort();
	return r;
}

/* Play the kernel: set the index the kernel owns. */
static void kernel_consumed(struct pib_ring *r, uint32_t cons)
{
	pib_ring_hdr(r)->consumer = cons;
}

static void kernel_produced(struct pib_ring *r, uint32_t prod)
{
	pib_ring_hdr(r)->producer = prod;
}

/* Start both indices at @idx, as after many earlier WQEs. */
static void ring_at(struct pib_ring *r, uint32_t idx)
{
	pib_ring_hdr(r)->producer = idx;
	pib_ring_hdr(r)->consumer = idx;
}

static struct pib_sq sq_new(enum ibv_qp_type qp_type, uint32_t num)
{
	struct pib_sq sq = { .ctx = FAKE_CTX, .qp_type = qp_type };

	sq.ring = ring_new(num, SQ_STRIDE);
	pib_sq_set_limits(&sq, 4, 64);
	return sq;
}

static struct pib_send_wqe *sq_wqe(struct pib_sq *sq, uint32_t idx)
{
	return pib_ring_entry(&sq->ring, idx);
}

/* Does slot @idx still hold FILL in every byte, i.e. nothing was written? */
static int slot_untouched(const struct pib_ring *r, uint32_t idx)
{
	const uint8_t *p = pib_ring_entry(r, idx);
	uint32_t i;

	for (i = 0; i < r->stride; i++)
		if (p[i] != FILL)
			return 0;
	return 1;
}

static void ring_fill(struct pib_ring *r)
{
	memset((char *)r->buf + PIB_RING_HDR_SIZE, FILL,
	       r->size - PIB_RING_HDR_SIZE);
}

static void test_ring_info(void)
{
	struct pib_ring_info ok = {
		.offset = 4096, .size = 4096, .num = 16, .stride = 64,
	};
	struct pib_ring_info bad;

	CHECK_EQ(pib_ring_info_check(&ok, sizeof(struct pib_cqe)), 0);
	/* Exactly header plus entries is enough. */
	bad = ok;
	bad.size = PIB_RING_HDR_SIZE + 16 * 64;
	CHECK_EQ(pib_ring_info_check(&bad, 64), 0);
	bad.size--;
	CHECK_EQ(pib_ring_info_check(&bad, 64), EPROTO);
	bad = ok;
	bad.num = 0;
	CHECK_EQ(pib_ring_info_check(&bad, 64), EPROTO);
	bad.num = 12;
	CHECK_EQ(pib_ring_info_check(&bad, 64), EPROTO);
	bad = ok;
	bad.stride = 32;
	CHECK_EQ(pib_ring_info_check(&bad, sizeof(struct pib_cqe)), EPROTO);
	bad.stride = 68;	/* big enough, but misaligned entries */
	CHECK_EQ(pib_ring_info_check(&bad, 64), EPROTO);
	/* num * stride overflows 32 bits: must not pass as a small ring. */
	bad = ok;
	bad.num = 1u << 31;
	bad.stride = 1u << 5;
	CHECK_EQ(pib_ring_info_check(&bad, 32), EPROTO);
	bad = ok;
	bad.offset = (uint64_t)1 << 63;
	CHECK_EQ(pib_ring_info_check(&bad, 64), EPROTO);
}

/* Map a memfd as the uverbs file: a bad description maps nothing. */
static void test_ring_map(void)
{
	struct pib_ring_info info = { .offset = 0, .size = 4096, .num = 8,
				      .stride = 64 };
	struct pib_ring r = { 0 };
	int fd = memfd_create("pib-ring", 0);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ(ftruncate(fd, 4096), 0);
	CHECK_EQ(pib_ring_map(&r, fd, &info, sizeof(struct pib_cqe)), 0);
	CHECK(r.buf != NULL);
	CHECK_EQ(r.num, 8);
	CHECK_EQ(r.stride, 64);
	CHECK_EQ(r.size, 4096);
	/* The last entry is inside the mapping (ASan would not see a SEGV). */
	memset(pib_ring_entry(&r, 7), 1, 64);
	pib_ring_unmap(&r);
	CHECK(r.buf == NULL);
	info.num = 6;
	CHECK_EQ(pib_ring_map(&r, fd, &info, 64), EPROTO);
	CHECK(r.buf == NULL);
	close(fd);
}

static void test_opcode_rules(void)
{
	static const enum ibv_wr_opcode all[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, IBV_WR_SEND_WITH_INV,
		IBV_WR_TSO, IBV_WR_DRIVER1,
	};
	/* Bit i: all[i] allowed. */
	const unsigned int rc = 0x3ff, uc = 0x18f, ud = 0x00c;
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		CHECK_EQ(pib_wr_opcode_allowed(IBV_QPT_RC, all[i]),
			 !!(rc & (1u << i)));
		CHECK_EQ(pib_wr_opcode_allowed(IBV_QPT_UC, all[i]),
			 !!(uc & (1u << i)));
		CHECK_EQ(pib_wr_opcode_allowed(IBV_QPT_UD, all[i]),
			 !!(ud & (1u << i)));
		CHECK_EQ(pib_wr_opcode_allowed(IBV_QPT_RAW_PACKET, all[i]), 0);
	}
	CHECK_EQ(pib_wr_opcode_allowed(IBV_QPT_RC, (enum ibv_wr_opcode)1000), 0);
	CHECK_EQ(pib_wr_opcode_allowed(IBV_QPT_RC, (enum ibv_wr_opcode)-1), 0);

	CHECK_EQ(pib_send_ops_supported(IBV_QPT_UD),
		 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM);
	CHECK_EQ(pib_send_ops_supported(IBV_QPT_UC),
		 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		 IBV_QP_EX_WITH_RDMA_WRITE |
		 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW);
	CHECK(pib_send_ops_supported(IBV_QPT_RC) & IBV_QP_EX_WITH_SEND_WITH_INV);
	CHECK(pib_send_ops_supported(IBV_QPT_RC) &
	      IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	CHECK(pib_send_ops_supported(IBV_QPT_RC) & IBV_QP_EX_WITH_LOCAL_INV);
	CHECK(pib_send_ops_supported(IBV_QPT_RC) & IBV_QP_EX_WITH_BIND_MW);
	CHECK(!(pib_send_ops_supported(IBV_QPT_UD) & IBV_QP_EX_WITH_BIND_MW));
	/* XRC's sending half: RC's, but windows */
	CHECK_EQ(pib_send_ops_supported(IBV_QPT_XRC_SEND),
		 pib_send_ops_supported(IBV_QPT_RC) & ~IBV_QP_EX_WITH_BIND_MW);
	CHECK(!pib_wr_opcode_allowed(IBV_QPT_XRC_SEND, IBV_WR_BIND_MW));
	CHECK(pib_wr_opcode_allowed(IBV_QPT_XRC_SEND, IBV_WR_RDMA_READ));
	CHECK_EQ(pib_send_ops_supported(IBV_QPT_XRC_RECV), 0);
}

static void test_limits(void)
{
	struct pib_sq sq = { .ring = { .stride = 128 } };
	struct pib_rq rq = { .ring = { .stride = RQ_STRIDE } };

	CHECK_EQ(sizeof(struct pib_send_wqe), 72);
	/* The kernel may grant less than the stride holds, never more. */
	pib_sq_set_limits(&sq, 2, 16);
	CHECK_EQ(sq.max_sge, 2);
	CHECK_EQ(sq.max_inline, 16);
	pib_sq_set_limits(&sq, 100, 1000);
	CHECK_EQ(sq.max_sge, (128 - 72) / 16);
	CHECK_EQ(sq.max_inline, 128 - 72);
	pib_rq_set_limits(&rq, 100);
	CHECK_EQ(rq.max_sge, (RQ_STRIDE - sizeof(struct pib_recv_wqe)) /
			     sizeof(struct pib_sge));
}

static void test_send_sges(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_RC, 8);
	struct ibv_sge sge[2] = {
		{ .addr = 0x1000, .length = 100, .lkey = 7 },
		{ .addr = 0x2000, .length = 200, .lkey = 8 },
	};
	struct ibv_send_wr wr = {
		.wr_id = 42, .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad = NULL;
	struct pib_send_wqe *wqe;
	uint32_t posted = 0;

	ring_at(&sq.ring, 5);
	ring_fill(&sq.ring);
	CHECK_EQ(pib_sq_post(&sq, &wr, &bad, &posted), 0);
	CHECK_EQ(posted, 1);
	CHECK(bad == NULL);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 6);
	wqe = sq_wqe(&sq, 5);
	CHECK_EQ(wqe->wr_id, 42);
	CHECK_EQ(wqe->opcode, PIB_WR_SEND);
	CHECK_EQ(wqe->send_flags, PIB_SEND_SIGNALED);
	CHECK_EQ(wqe->num_sge, 2);
	CHECK_EQ(wqe->ex, 0);
	CHECK_EQ(wqe->wr.atomic.remote_addr, 0);	/* no stale bytes */
	CHECK_EQ(PIB_WQE_SGE(wqe)[0].addr, 0x1000);
	CHECK_EQ(PIB_WQE_SGE(wqe)[0].length, 100);
	CHECK_EQ(PIB_WQE_SGE(wqe)[0].lkey, 7);
	CHECK_EQ(PIB_WQE_SGE(wqe)[1].addr, 0x2000);
	CHECK_EQ(PIB_WQE_SGE(wqe)[1].length, 200);
	CHECK_EQ(PIB_WQE_SGE(wqe)[1].lkey, 8);
	free(sq.ring.buf);
}

static void test_send_opcodes(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_RC, 8);
	struct ibv_sge sge = { .addr = 0x3000, .length = 8, .lkey = 9 };
	struct ibv_send_wr wr[4] = {
		{ .wr_id = 1, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		  .imm_data = 0x11223344,
		  .wr.rdma = { .remote_addr = 0xabc0, .rkey = 0x55 } },
		{ .wr_id = 2, .opcode = IBV_WR_SEND_WITH_INV,
		  .invalidate_rkey = 0x66 },
		{ .wr_id = 3, .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		  .sg_list = &sge, .num_sge = 1,
		  .wr.atomic = { .remote_addr = 0x8008, .compare_add = 5,
				 .swap = 6, .rkey = 0x77 } },
		{ .wr_id = 4, .opcode = IBV_WR_RDMA_READ,
		  .sg_list = &sge, .num_sge = 1,
		  .wr.rdma = { .remote_addr = 0x9000, .rkey = 0x88 } },
	};
	struct ibv_send_wr *bad = NULL;
	struct pib_send_wqe *wqe;
	uint32_t posted = 0;

	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	wr[2].next = &wr[3];
	CHECK_EQ(pib_sq_post(&sq, wr, &bad, &posted), 0);
	CHECK_EQ(posted, 4);
	wqe = sq_wqe(&sq, 0);
	CHECK_EQ(wqe->opcode, PIB_WR_RDMA_WRITE_WITH_IMM);
	CHECK_EQ(wqe->ex, 0x11223344);
	CHECK_EQ(wqe->wr.rdma.remote_addr, 0xabc0);
	CHECK_EQ(wqe->wr.rdma.rkey, 0x55);
	CHECK_EQ(wqe->num_sge, 0);
	wqe = sq_wqe(&sq, 1);
	CHECK_EQ(wqe->opcode, PIB_WR_SEND_WITH_INV);
	CHECK_EQ(wqe->ex, 0x66);
	wqe = sq_wqe(&sq, 2);
	CHECK_EQ(wqe->opcode, PIB_WR_ATOMIC_CMP_AND_SWP);
	CHECK_EQ(wqe->wr.atomic.remote_addr, 0x8008);
	CHECK_EQ(wqe->wr.atomic.compare_add, 5);
	CHECK_EQ(wqe->wr.atomic.swap, 6);
	CHECK_EQ(wqe->wr.atomic.rkey, 0x77);
	CHECK_EQ(wqe->num_sge, 1);
	CHECK_EQ(PIB_WQE_SGE(wqe)[0].lkey, 9);
	wqe = sq_wqe(&sq, 3);
	CHECK_EQ(wqe->opcode, PIB_WR_RDMA_READ);
	CHECK_EQ(wqe->wr.rdma.remote_addr, 0x9000);
	CHECK_EQ(wqe->ex, 0);
	free(sq.ring.buf);
}

static void test_send_inline(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_UC, 8);
	char a[] = "hello, ", b[] = "world";
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)a, .length = 7 },
		{ .addr = (uintptr_t)b, .length = 5 },
	};
	struct ibv_send_wr wr = {
		.wr_id = 9, .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_INLINE,
	};
	struct ibv_send_wr *bad = NULL;
	struct pib_send_wqe *wqe;
	uint32_t posted = 0;

	CHECK_EQ(pib_sq_post(&sq, &wr, &bad, &posted), 0);
	wqe = sq_wqe(&sq, 0);
	CHECK_EQ(wqe->send_flags, PIB_SEND_INLINE);
	CHECK_EQ(wqe->num_sge, 12);
	CHECK(!memcmp(PIB_WQE_INLINE(wqe), "hello, world", 12));
	/* 64 bytes fit, 65 do not: EINVAL, nothing written. */
	sge[0].length = 60;
	sge[0].addr = (uintptr_t)calloc(1, 64);
	sge[1].length = 4;
	CHECK_EQ(pib_sq_post(&sq, &wr, &bad, &posted), 0);
	CHECK_EQ(sq_wqe(&sq, 1)->num_sge, 64);
	ring_fill(&sq.ring);
	sge[1].length = 5;
	bad = NULL;
	CHECK_EQ(pib_sq_post(&sq, &wr, &bad, &posted), EINVAL);
	CHECK(bad == &wr);
	CHECK_EQ(posted, 0);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 2);
	CHECK(slot_untouched(&sq.ring, 2));
	/* Lengths that wrap 32 bits must not pass as a small total. */
	sge[0].length = 0xffffffff;
	sge[1].length = 2;
	CHECK_EQ(pib_sq_post(&sq, &wr, &bad, &posted), EINVAL);
	free((void *)(uintptr_t)sge[0].addr);
	free(sq.ring.buf);
}

/* Every bad work request: EINVAL, *bad_wr, producer and slot unchanged. */
static void check_rejected(struct pib_sq *sq, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	uint32_t prod = pib_ring_hdr(&sq->ring)->producer;
	uint32_t posted = 1;

	ring_fill(&sq->ring);
	CHECK_EQ(pib_sq_post(sq, wr, &bad, &posted), EINVAL);
	CHECK(bad == wr);
	CHECK_EQ(posted, 0);
	CHECK_EQ(pib_ring_hdr(&sq->ring)->producer, prod);
	CHECK(slot_untouched(&sq->ring, prod));
}

static void test_send_bad(void)
{
	struct pib_sq rc = sq_new(IBV_QPT_RC, 8);
	struct pib_sq uc = sq_new(IBV_QPT_UC, 8);
	struct pib_sq ud = sq_new(IBV_QPT_UD, 8);
	struct ibv_mw mw1 = { .context = FAKE_CTX, .type = IBV_MW_TYPE_1 };
	struct ibv_mw mw2 = { .context = FAKE_CTX, .type = IBV_MW_TYPE_2 };
	struct ibv_mw other = { .type = IBV_MW_TYPE_2 };
	struct ibv_mr mr = { .context = FAKE_CTX, .lkey = 5 };
	struct ibv_sge sge[5] = { { .addr = 0x1000, .length = 8 } };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = sge };

	wr.num_sge = 5;			/* max_sge is 4 */
	check_rejected(&rc, &wr);
	wr.num_sge = -1;
	check_rejected(&rc, &wr);
	wr.num_sge = 1;
	wr.sg_list = NULL;
	check_rejected(&rc, &wr);
	wr.sg_list = sge;
	wr.send_flags = IBV_SEND_IP_CSUM;
	check_rejected(&rc, &wr);
	wr.send_flags = IBV_SEND_INLINE;	/* nothing to inline */
	wr.opcode = IBV_WR_LOCAL_INV;
	check_rejected(&rc, &wr);
	wr.send_flags = 0;
	check_rejected(&ud, &wr);
	wr.opcode = IBV_WR_BIND_MW;		/* no window */
	check_rejected(&rc, &wr);
	wr.bind_mw.mw = &mw1;			/* type 1: ibv_bind_mw() */
	check_rejected(&rc, &wr);
	wr.bind_mw.mw = &other;			/* another context's */
	check_rejected(&rc, &wr);
	wr.bind_mw.mw = &mw2;
	wr.bind_mw.bind_info.length = 4096;	/* bytes of no MR */
	check_rejected(&rc, &wr);
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_MW_BIND;
	check_rejected(&rc, &wr);
	check_rejected(&ud, &wr);
	wr.bind_mw.bind_info.mw_access_flags = 0;
	wr.opcode = IBV_WR_RDMA_READ;
	check_rejected(&uc, &wr);
	wr.send_flags = IBV_SEND_INLINE;	/* nothing to inline in a READ */
	check_rejected(&rc, &wr);
	wr.send_flags = 0;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	check_rejected(&uc, &wr);
	wr.wr.atomic.remote_addr = 0x1004;	/* misaligned */
	check_rejected(&rc, &wr);
	wr.wr.atomic.remote_addr = 0x1000;
	sge[0].length = 4;			/* the old value needs 8 bytes */
	check_rejected(&rc, &wr);
	sge[0].length = 8;
	wr.num_sge = 2;				/* one SGE only */
	check_rejected(&rc, &wr);
	wr.num_sge = 0;
	check_rejected(&rc, &wr);
	wr.opcode = IBV_WR_SEND_WITH_INV;
	check_rejected(&uc, &wr);
	free(rc.ring.buf);
	free(uc.ring.buf);
	free(ud.ring.buf);
}

/*
 * LOCAL_INV and BIND_MW: the rkey to invalidate, the bind's fields; no
 * SGEs whatever the work request's list; ibv_bind_mw()'s WQE of a type 1
 * window says so, and takes no type 2 window.
 */
static void test_send_mw(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_UC, 8);
	struct ibv_mw mw1 = { .context = FAKE_CTX, .rkey = 0x1234,
			      .type = IBV_MW_TYPE_1 };
	struct ibv_mw mw2 = { .context = FAKE_CTX, .rkey = 0x5600,
			      .type = IBV_MW_TYPE_2 };
	struct ibv_mr mr = { .context = FAKE_CTX, .lkey = 0x77 };
	struct ibv_sge sge = { .addr = 0x3000, .length = 8, .lkey = 9 };
	struct ibv_send_wr wr[2] = {
		{ .wr_id = 1, .opcode = IBV_WR_LOCAL_INV, .sg_list = &sge,
		  .num_sge = 1, .invalidate_rkey = 0x5601 },
		{ .wr_id = 2, .opcode = IBV_WR_BIND_MW, .sg_list = &sge,
		  .num_sge = 1, .bind_mw = { .mw = &mw2, .rkey = 0x5602,
		  .bind_info = { .mr = &mr, .addr = 0x10000, .length = 4096,
		  .mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_ZERO_BASED } } },
	};
	struct ibv_send_wr *bad = NULL;
	struct pib_send_wqe *wqe;
	uint32_t posted = 0;

	wr[0].next = &wr[1];
	CHECK_EQ(pib_sq_post(&sq, wr, &bad, &posted), 0);
	CHECK_EQ(posted, 2);
	wqe = sq_wqe(&sq, 0);
	CHECK_EQ(wqe->opcode, PIB_WR_LOCAL_INV);
	CHECK_EQ(wqe->ex, 0x5601);
	CHECK_EQ(wqe->num_sge, 0);
	wqe = sq_wqe(&sq, 1);
	CHECK_EQ(wqe->opcode, PIB_WR_BIND_MW);
	CHECK_EQ(wqe->num_sge, 0);
	CHECK_EQ(wqe->wr.bind.mw_rkey, 0x5600);
	CHECK_EQ(wqe->wr.bind.rkey, 0x5602);
	CHECK_EQ(wqe->wr.bind.lkey, 0x77);
	CHECK_EQ(wqe->wr.bind.addr, 0x10000);
	CHECK_EQ(wqe->wr.bind.length, 4096);
	CHECK_EQ(wqe->wr.bind.access,
		 PIB_ACCESS_REMOTE_WRITE | PIB_ACCESS_ZERO_BASED);
	CHECK_EQ(wqe->wr.bind.flags, 0);
	/* ibv_bind_mw() of a type 1 window, to unbind it: no MR. */
	wr[1].bind_mw.mw = &mw1;
	wr[1].bind_mw.rkey = 0x1235;
	wr[1].bind_mw.bind_info.length = 0;
	wr[1].bind_mw.bind_info.mr = NULL;
	CHECK_EQ(pib_sq_post_bind1(&sq, &wr[1]), 0);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 3);
	wqe = sq_wqe(&sq, 2);
	CHECK_EQ(wqe->opcode, PIB_WR_BIND_MW);
	CHECK_EQ(wqe->wr.bind.mw_rkey, 0x1234);
	CHECK_EQ(wqe->wr.bind.rkey, 0x1235);
	CHECK_EQ(wqe->wr.bind.lkey, 0);
	CHECK_EQ(wqe->wr.bind.flags, PIB_BIND_TYPE_1);
	wr[1].bind_mw.mw = &mw2;
	CHECK_EQ(pib_sq_post_bind1(&sq, &wr[1]), EINVAL);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 3);
	free(sq.ring.buf);
}

/* The first bad WR stops the list; the ones before it are posted. */
static void test_send_list_stops(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_RC, 8);
	struct ibv_send_wr wr[3] = {
		{ .wr_id = 1, .opcode = IBV_WR_SEND },
		{ .wr_id = 2, .opcode = IBV_WR_BIND_MW },	/* no window */
		{ .wr_id = 3, .opcode = IBV_WR_SEND },
	};
	struct ibv_send_wr *bad = NULL;
	uint32_t posted = 0;

	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	CHECK_EQ(pib_sq_post(&sq, wr, &bad, &posted), EINVAL);
	CHECK(bad == &wr[1]);
	CHECK_EQ(posted, 1);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 1);
	CHECK_EQ(sq_wqe(&sq, 0)->wr_id, 1);
	free(sq.ring.buf);
}

/* Full rings, the kernel's consumer index, and wrap-around of u32 indices. */
static void test_send_full(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_RC, 4);
	struct ibv_send_wr wr[6] = { { 0 } };
	struct ibv_send_wr *bad = NULL;
	uint32_t posted = 0, start = 0xfffffffe;
	int i;

	for (i = 0; i < 6; i++) {
		wr[i].wr_id = 100 + i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
	}
	ring_at(&sq.ring, start);
	ring_fill(&sq.ring);
	CHECK_EQ(pib_sq_post(&sq, wr, &bad, &posted), ENOMEM);
	CHECK_EQ(posted, 4);
	CHECK(bad == &wr[4]);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, start + 4);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 2);
	/* Entries landed at the masked indices 2, 3, 0, 1. */
	CHECK_EQ(((struct pib_send_wqe *)pib_ring_entry(&sq.ring, 2))->wr_id, 100);
	CHECK_EQ(((struct pib_send_wqe *)pib_ring_entry(&sq.ring, 1))->wr_id, 103);
	/* The kernel consumed two: two more fit, the third does not. */
	kernel_consumed(&sq.ring, start + 2);
	CHECK_EQ(pib_sq_post(&sq, &wr[4], &bad, &posted), 0);
	CHECK_EQ(posted, 2);
	CHECK_EQ(sq_wqe(&sq, start + 4)->wr_id, 104);
	CHECK_EQ(pib_sq_post(&sq, &wr[5], &bad, &posted), ENOMEM);
	CHECK(bad == &wr[5]);
	/* A consumer index ahead of the producer cannot be: the SQ is full. */
	kernel_consumed(&sq.ring, start + 100);
	CHECK_EQ(pib_sq_post(&sq, &wr[5], &bad, &posted), ENOMEM);
	/* After RESET the ring restarts where the kernel's index stands. */
	kernel_consumed(&sq.ring, 77);
	pib_ring_discard(&sq.ring);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 77);
	CHECK_EQ(pib_sq_post(&sq, &wr[5], &bad, &posted), 0);
	free(sq.ring.buf);
}

static void test_send_ud(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_UD, 8);
	struct pib_ah ah = { .ibv_ah = { .context = FAKE_CTX } };
	struct pib_ah foreign = { .ibv_ah = { .context = OTHER_CTX } };
	struct ibv_send_wr wr = {
		.wr_id = 5, .opcode = IBV_WR_SEND_WITH_IMM, .imm_data = 0xaabb,
		.wr.ud = { .ah = &ah.ibv_ah, .remote_qpn = 0x123456,
			   .remote_qkey = 0x80010000 },
	};
	struct ibv_send_wr *bad = NULL;
	struct pib_send_wqe *wqe;
	uint32_t posted = 0;

	ah.av.dlid = 0x1234;
	ah.av.sl = 3;
	ah.av.is_global = 1;
	ah.av.dgid[15] = 0x99;
	CHECK_EQ(pib_sq_post(&sq, &wr, &bad, &posted), 0);
	wqe = sq_wqe(&sq, 0);
	CHECK_EQ(wqe->ex, 0xaabb);
	CHECK_EQ(wqe->wr.ud.remote_qpn, 0x123456);
	CHECK_EQ(wqe->wr.ud.remote_qkey, 0x80010000);
	CHECK_EQ(wqe->wr.ud.av.dlid, 0x1234);
	CHECK_EQ(wqe->wr.ud.av.sl, 3);
	CHECK_EQ(wqe->wr.ud.av.is_global, 1);
	CHECK_EQ(wqe->wr.ud.av.dgid[15], 0x99);

	wr.wr.ud.ah = NULL;
	check_rejected(&sq, &wr);
	wr.wr.ud.ah = &foreign.ibv_ah;	/* not a struct pib_ah of ours */
	check_rejected(&sq, &wr);
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.wr.ud.remote_qpn = 0x1000000;
	check_rejected(&sq, &wr);
	wr.wr.ud.remote_qpn = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	check_rejected(&sq, &wr);
	free(sq.ring.buf);
}

/* The ibv_wr_* batch: a send with SGEs, then an inline RDMA WRITE. */
static void test_batch(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_RC, 4);
	struct ibv_sge sge[2] = {
		{ .addr = 0x10, .length = 1, .lkey = 2 },
		{ .addr = 0x20, .length = 3, .lkey = 4 },
	};
	struct ibv_data_buf buf = { .addr = "abc", .length = 3 };
	struct ibv_send_wr send = { .wr_id = 1, .opcode = IBV_WR_SEND,
				    .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr write = {
		.wr_id = 2, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = 0x40, .rkey = 5 },
	};
	struct ibv_send_wr read = {
		.wr_id = 3, .opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_INLINE,	/* meaningless here: ignored */
	};
	struct pib_send_wqe *wqe;
	uint32_t posted = 0;

	pib_sq_batch_start(&sq, 0);
	CHECK(pib_sq_batch_add(&sq, &send) != NULL);
	pib_sq_batch_set_sge_list(&sq, 2, sge);
	CHECK(pib_sq_batch_add(&sq, &write) != NULL);
	pib_sq_batch_set_inline_list(&sq, 1, &buf);
	/* Nothing is visible before wr_complete. */
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 0);
	CHECK(pib_sq_batch_add(&sq, &read) != NULL);
	pib_sq_batch_set_sge_list(&sq, 1, sge);
	CHECK_EQ(pib_sq_batch_commit(&sq, &posted), 0);
	CHECK_EQ(posted, 3);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 3);
	wqe = sq_wqe(&sq, 0);
	CHECK_EQ(wqe->send_flags, PIB_SEND_SIGNALED);
	CHECK_EQ(wqe->num_sge, 2);
	CHECK_EQ(PIB_WQE_SGE(wqe)[1].lkey, 4);
	wqe = sq_wqe(&sq, 1);
	CHECK_EQ(wqe->send_flags, PIB_SEND_INLINE);
	CHECK_EQ(wqe->num_sge, 3);
	CHECK(!memcmp(PIB_WQE_INLINE(wqe), "abc", 3));
	CHECK_EQ(wqe->wr.rdma.rkey, 5);
	wqe = sq_wqe(&sq, 2);
	CHECK_EQ(wqe->opcode, PIB_WR_RDMA_READ);
	CHECK_EQ(wqe->send_flags, 0);
	free(sq.ring.buf);
}

/*
 * XRC INI QPs: each WQE names the remote XRC SRQ (24 bits), from
 * ibv_send_wr or ibv_wr_set_xrc_srqn(); no other QP type takes one.
 */
static void test_xrc_srqn(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_XRC_SEND, 4);
	struct pib_sq rc = sq_new(IBV_QPT_RC, 4);
	struct ibv_send_wr send = { .wr_id = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr *bad = NULL;
	uint32_t posted = 0;

	send.qp_type.xrc.remote_srqn = 0xabcdef;
	CHECK_EQ(pib_sq_post(&sq, &send, &bad, &posted), 0);
	CHECK_EQ(sq_wqe(&sq, 0)->xrc_srqn, 0xabcdef);
	send.qp_type.xrc.remote_srqn = 0x1000000;
	CHECK_EQ(pib_sq_post(&sq, &send, &bad, &posted), EINVAL);
	CHECK(bad == &send);
	pib_sq_batch_start(&sq, 0);
	CHECK(pib_sq_batch_add(&sq, &send) != NULL);
	pib_sq_batch_set_xrc_srqn(&sq, 0x42);
	CHECK_EQ(pib_sq_batch_commit(&sq, &posted), 0);
	CHECK_EQ(sq_wqe(&sq, 1)->xrc_srqn, 0x42);
	pib_sq_batch_start(&sq, 0);
	CHECK(pib_sq_batch_add(&sq, &send) != NULL);
	pib_sq_batch_set_xrc_srqn(&sq, 0x1000000);
	CHECK_EQ(pib_sq_batch_commit(&sq, &posted), EINVAL);
	pib_sq_batch_start(&rc, 0);
	CHECK(pib_sq_batch_add(&rc, &send) != NULL);
	pib_sq_batch_set_xrc_srqn(&rc, 0x42);
	CHECK_EQ(pib_sq_batch_commit(&rc, &posted), EINVAL);
	/* An RC QP's WQE never carries one, whatever the union holds. */
	CHECK_EQ(pib_sq_post(&rc, &send, &bad, &posted), 0);
	CHECK_EQ(sq_wqe(&rc, 0)->xrc_srqn, 0);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 2);
	free(sq.ring.buf);
	free(rc.ring.buf);
}

/* A batch of one FLUSH with @len, @type and @level fails with EINVAL. */
static void flush_refused(struct pib_sq *sq, struct ibv_send_wr *flush,
			  uint64_t len, uint8_t type, uint8_t level)
{
	uint32_t posted = 0;

	pib_sq_batch_start(sq, 0);
	pib_sq_batch_set_flush(sq, pib_sq_batch_add(sq, flush), 1, 0, len,
			       type, level);
	CHECK_EQ(pib_sq_batch_commit(sq, &posted), EINVAL);
	CHECK_EQ(posted, 0);
}

/*
 * FLUSH and ATOMIC WRITE (IBA 1.5): their builders' fields, no SGEs or
 * inline data, RC only, and never through ibv_post_send().
 */
static void test_batch_iba15(void)
{
	struct pib_sq sq = sq_new(IBV_QPT_RC, 4);
	struct pib_sq uc = sq_new(IBV_QPT_UC, 4);
	struct ibv_send_wr flush = { .wr_id = 7,
				     .opcode = (enum ibv_wr_opcode)PIB_WR_FLUSH };
	struct ibv_send_wr aw = { .wr_id = 8, .opcode = IBV_WR_ATOMIC_WRITE };
	struct ibv_sge sge = { .addr = 0x10, .length = 8, .lkey = 2 };
	const uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct ibv_send_wr *bad = NULL;
	struct pib_send_wqe *wqe;
	uint32_t posted = 0;

	CHECK(pib_wr_opcode_allowed(IBV_QPT_RC, IBV_WR_ATOMIC_WRITE));
	CHECK(!pib_wr_opcode_allowed(IBV_QPT_UC, IBV_WR_ATOMIC_WRITE));
	CHECK(pib_send_ops_supported(IBV_QPT_RC) & IBV_QP_EX_WITH_ATOMIC_WRITE);
	pib_sq_batch_start(&sq, 0);
	pib_sq_batch_set_flush(&sq, pib_sq_batch_add(&sq, &flush), 0x99,
			       0x1000, 4096, PIB_FLUSH_TYPE_GLOBAL,
			       PIB_FLUSH_LEVEL_MR);
	pib_sq_batch_set_atomic_write(&sq, pib_sq_batch_add(&sq, &aw), 0x98,
				      0x2008, data);
	CHECK_EQ(pib_sq_batch_commit(&sq, &posted), 0);
	CHECK_EQ(posted, 2);
	wqe = sq_wqe(&sq, 0);
	CHECK_EQ(wqe->opcode, PIB_WR_FLUSH);
	CHECK_EQ(wqe->num_sge, 0);
	CHECK_EQ(wqe->wr.flush.rkey, 0x99);
	CHECK_EQ(wqe->wr.flush.remote_addr, 0x1000);
	CHECK_EQ(wqe->wr.flush.length, 4096);
	CHECK_EQ(wqe->wr.flush.type, PIB_FLUSH_TYPE_GLOBAL);
	CHECK_EQ(wqe->wr.flush.level, PIB_FLUSH_LEVEL_MR);
	wqe = sq_wqe(&sq, 1);
	CHECK_EQ(wqe->opcode, PIB_WR_ATOMIC_WRITE);
	CHECK_EQ(wqe->wr.atomic_write.rkey, 0x98);
	CHECK_EQ(wqe->wr.atomic_write.remote_addr, 0x2008);
	CHECK(!memcmp(wqe->wr.atomic_write.data, data, 8));
	/* Each bad field fails the batch, and posts nothing. */
	flush_refused(&sq, &flush, 1ULL << 32, PIB_FLUSH_TYPE_GLOBAL, 0);
	flush_refused(&sq, &flush, 8, 0, 0);
	flush_refused(&sq, &flush, 8, 4, 0);
	flush_refused(&sq, &flush, 8, 1, 2);
	pib_sq_batch_start(&sq, 0);
	pib_sq_batch_set_atomic_write(&sq, pib_sq_batch_add(&sq, &aw), 1,
				      0x2004, data);
	CHECK_EQ(pib_sq_batch_commit(&sq, &posted), EINVAL);
	pib_sq_batch_start(&sq, 0);
	pib_sq_batch_set_atomic_write(&sq, pib_sq_batch_add(&sq, &aw), 1,
				      0x2000, data);
	pib_sq_batch_set_sge_list(&sq, 1, &sge);
	CHECK_EQ(pib_sq_batch_commit(&sq, &posted), EINVAL);
	pib_sq_batch_start(&uc, 0);
	pib_sq_batch_set_atomic_write(&uc, pib_sq_batch_add(&uc, &aw), 1,
				      0x2000, data);
	CHECK_EQ(pib_sq_batch_commit(&uc, &posted), EINVAL);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 2);
	/* ibv_send_wr has no fields for them. */
	CHECK_EQ(pib_sq_post(&sq, &aw, &bad, &posted), EINVAL);
	CHECK(bad == &aw);
	CHECK_EQ(pib_sq_post(&sq, &flush, &bad, &posted), EINVAL);
	CHECK_EQ(pib_ring_hdr(&sq.ring)->producer, 2);
	free(sq.ring.buf);
	free(uc.ring.buf);
}

/* Start a batch, run @steps, expect @err from commit and nothing posted. */
static void check_batch_fails(struct pib_sq *sq, int start_err,
			      void (*steps)(struct pib_sq *), int err)
{
	uint32_t prod = pib_ring_hdr(&sq->ring)->producer;
	uint32_t posted = 1;

	pib_sq_batch_start(sq, start_err);
	steps(sq);
	CHECK_EQ(pib_sq_batch_commit(sq, &posted), err);
	CHECK_EQ(posted, 0);
	CHECK_EQ(pib_ring_hdr(&sq->ring)->producer, prod);
}

static struct ibv_send_wr batch_send = { .opcode = IBV_WR_SEND };

static void steps_send(struct pib_sq *sq)
{
	pib_sq_batch_add(sq, &batch_send);
}

static void steps_sge_first(struct pib_sq *sq)
{
	struct ibv_sge sge = { .length = 1 };

	pib_sq_batch_set_sge_list(sq, 1, &sge);
	pib_sq_batch_add(sq, &batch_send);
}

static void steps_too_many_sges(struct pib_sq *sq)
{
	struct ibv_sge sge[5] = { { .length = 1 } };

	pib_sq_batch_add(sq, &batch_send);
	pib_sq_batch_set_sge_list(sq, 5, sge);
}

static void steps_too_much_inline(struct pib_sq *sq)
{
	static char big[65];
	struct ibv_data_buf buf[2] = { { big, 60 }, { big, 5 } };

	pib_sq_batch_add(sq, &batch_send);
	pib_sq_batch_set_inline_list(sq, 2, buf);
}

static void steps_five_sends(struct pib_sq *sq)
{
	int i;

	for (i = 0; i < 5; i++)
		pib_sq_batch_add(sq, &batch_send);
}

static void steps_atomic_short(struct pib_sq *sq)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD };
	struct ibv_sge sge = { .length = 4 };

	pib_sq_batch_add(sq, &wr);
	pib_sq_batch_set_sge_list(sq, 1, &sge);
}

static void steps_atomic_misaligned(struct pib_sq *sq)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
				  .wr.atomic.remote_addr = 3 };

	pib_sq_batch_add(sq, &wr);
}

static void steps_ud_addr_on_rc(struct pib_sq *sq)
{
	struct pib_ah ah = { .ibv_ah = { .context = FAKE_CTX } };

	pib_sq_batch_add(sq, &batch_send);
	pib_sq_batch_set_ud_addr(sq, &ah.ibv_ah, 1, 1);
}

static void steps_ud_no_addr(struct pib_sq *sq)
{
	pib_sq_batch_add(sq, &batch_send);
}

static void steps_ud_second_no_addr(struct pib_sq *sq)
{
	pib_sq_batch_add(sq, &batch_send);
	pib_sq_batch_add(sq, &batch_send);
}

static void test_batch_bad(void)
{
	struct pib_sq rc = sq_new(IBV_QPT_RC, 4);
	struct pib_sq ud = sq_new(IBV_QPT_UD, 4);
	struct pib_ah ah = { .ibv_ah = { .context = FAKE_CTX } };
	uint32_t posted = 0;

	/* A QP in a state that cannot send. */
	check_batch_fails(&rc, EINVAL, steps_send, EINVAL);
	check_batch_fails(&rc, 0, steps_sge_first, EINVAL);
	check_batch_fails(&rc, 0, steps_too_many_sges, EINVAL);
	check_batch_fails(&rc, 0, steps_too_much_inline, EINVAL);
	check_batch_fails(&rc, 0, steps_five_sends, ENOMEM);
	check_batch_fails(&rc, 0, steps_atomic_short, EINVAL);
	check_batch_fails(&rc, 0, steps_atomic_misaligned, EINVAL);
	check_batch_fails(&rc, 0, steps_ud_addr_on_rc, EINVAL);
	check_batch_fails(&ud, 0, steps_ud_no_addr, EINVAL);
	check_batch_fails(&ud, 0, steps_ud_second_no_addr, EINVAL);
	/* An empty batch posts nothing and succeeds. */
	pib_sq_batch_start(&rc, 0);
	CHECK_EQ(pib_sq_batch_commit(&rc, &posted), 0);
	CHECK_EQ(posted, 0);
	/* UD with its address goes through. */
	ah.av.dlid = 7;
	pib_sq_batch_start(&ud, 0);
	pib_sq_batch_add(&ud, &batch_send);
	pib_sq_batch_set_ud_addr(&ud, &ah.ibv_ah, 0x42, 0x11);
	CHECK_EQ(pib_sq_batch_commit(&ud, &posted), 0);
	CHECK_EQ(posted, 1);
	CHECK_EQ(sq_wqe(&ud, 0)->wr.ud.av.dlid, 7);
	CHECK_EQ(sq_wqe(&ud, 0)->wr.ud.remote_qpn, 0x42);
	free(rc.ring.buf);
	free(ud.ring.buf);
}

static void test_recv(void)
{
	struct pib_rq rq = { .ring = ring_new(2, RQ_STRIDE) };
	struct ibv_sge sge[4] = {
		{ .addr = 0x100, .length = 10, .lkey = 1 },
		{ .addr = 0x200, .length = 20, .lkey = 2 },
	};
	struct ibv_recv_wr wr[3] = {
		{ .wr_id = 11, .sg_list = sge, .num_sge = 2 },
		{ .wr_id = 12, .sg_list = sge, .num_sge = 0 },
		{ .wr_id = 13, .sg_list = sge, .num_sge = 1 },
	};
	struct ibv_recv_wr *bad = NULL;
	struct pib_recv_wqe *wqe;

	pib_rq_set_limits(&rq, 3);
	CHECK_EQ(rq.max_sge, 3);
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	ring_fill(&rq.ring);
	CHECK_EQ(pib_rq_post(&rq, wr, &bad), ENOMEM);
	CHECK(bad == &wr[2]);
	CHECK_EQ(pib_ring_hdr(&rq.ring)->producer, 2);
	wqe = pib_ring_entry(&rq.ring, 0);
	CHECK_EQ(wqe->wr_id, 11);
	CHECK_EQ(wqe->num_sge, 2);
	CHECK_EQ(wqe->reserved, 0);
	CHECK_EQ(wqe->sge[1].addr, 0x200);
	CHECK_EQ(wqe->sge[1].length, 20);
	CHECK_EQ(wqe->sge[1].lkey, 2);
	wqe = pib_ring_entry(&rq.ring, 1);
	CHECK_EQ(wqe->num_sge, 0);
	kernel_consumed(&rq.ring, 1);
	ring_fill(&rq.ring);
	wr[2].num_sge = 4;
	bad = NULL;
	CHECK_EQ(pib_rq_post(&rq, &wr[2], &bad), EINVAL);
	CHECK(bad == &wr[2]);
	CHECK(slot_untouched(&rq.ring, 2));
	wr[2].num_sge = -2;
	CHECK_EQ(pib_rq_post(&rq, &wr[2], &bad), EINVAL);
	wr[2].num_sge = 1;
	CHECK_EQ(pib_rq_post(&rq, &wr[2], &bad), 0);
	CHECK_EQ(pib_ring_hdr(&rq.ring)->producer, 3);
	CHECK_EQ(((struct pib_recv_wqe *)pib_ring_entry(&rq.ring, 2))->wr_id, 13);
	free(rq.ring.buf);
}

/* Play the kernel: write a CQE at @idx. */
static struct pib_cqe *cqe_at(struct pib_ring *r, uint32_t idx, uint64_t wr_id)
{
	struct pib_cqe *e = pib_ring_entry(r, idx);

	memset(e, 0, sizeof(*e));
	e->wr_id = wr_id;
	return e;
}

static void test_cqe_to_wc(void)
{
	struct pib_cqe e = {
		.wr_id = 0x1122334455667788ull, .status = IBV_WC_REM_ACCESS_ERR,
		.opcode = IBV_WC_RECV_RDMA_WITH_IMM, .vendor_err = 3,
		.byte_len = 4096, .ex = 0xdeadbeef, .qp_num = 0x10,
		.src_qp = 0x20, .wc_flags = PIB_WC_GRH | PIB_WC_WITH_IMM | 0x80,
		.pkey_index = 2, .slid = 0x30, .sl = 5, .dlid_path_bits = 6,
	};
	struct ibv_wc wc;

	memset(&wc, 0xff, sizeof(wc));
	pib_cqe_to_wc(&e, &wc);
	CHECK_EQ(wc.wr_id, 0x1122334455667788ull);
	CHECK_EQ(wc.status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(wc.vendor_err, 3);
	CHECK_EQ(wc.byte_len, 4096);
	CHECK_EQ(wc.imm_data, 0xdeadbeef);
	CHECK_EQ(wc.qp_num, 0x10);
	CHECK_EQ(wc.src_qp, 0x20);
	CHECK_EQ(wc.wc_flags, IBV_WC_GRH | IBV_WC_WITH_IMM);	/* 0x80 dropped */
	CHECK_EQ(wc.pkey_index, 2);
	CHECK_EQ(wc.slid, 0x30);
	CHECK_EQ(wc.sl, 5);
	CHECK_EQ(wc.dlid_path_bits, 6);
	e.wc_flags = PIB_WC_WITH_INV;
	e.ex = 0x1234;
	pib_cqe_to_wc(&e, &wc);
	CHECK_EQ(wc.wc_flags, IBV_WC_WITH_INV);
	CHECK_EQ(wc.invalidated_rkey, 0x1234);
}

static void test_cq_poll(void)
{
	struct pib_ring r = ring_new(4, sizeof(struct pib_cqe));
	struct ibv_wc wc[4];
	uint32_t start = 0xffffffff;

	ring_at(&r, start);
	CHECK_EQ(pib_cq_ring_poll(&r, 4, wc), 0);
	cqe_at(&r, start, 1);
	cqe_at(&r, start + 1, 2);
	cqe_at(&r, start + 2, 3);
	kernel_produced(&r, start + 3);
	CHECK_EQ(pib_cq_ring_poll(&r, 0, wc), 0);
	CHECK_EQ(pib_cq_ring_poll(&r, -1, wc), 0);
	CHECK_EQ(pib_cq_ring_poll(&r, 2, wc), 2);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_EQ(wc[1].wr_id, 2);
	CHECK_EQ(pib_ring_hdr(&r)->consumer, start + 2);
	CHECK_EQ(pib_cq_ring_poll(&r, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 3);
	CHECK_EQ(pib_ring_hdr(&r)->consumer, 2);
	CHECK_EQ(pib_cq_ring_poll(&r, 4, wc), 0);
	/* A producer index beyond the ring's size is not believed. */
	kernel_produced(&r, 2 + 5);
	CHECK_EQ(pib_cq_ring_poll(&r, 4, wc), 0);
	CHECK_EQ(pib_ring_hdr(&r)->consumer, 2);
	kernel_produced(&r, 2 - 1);
	CHECK_EQ(pib_cq_ring_poll(&r, 4, wc), 0);
	free(r.buf);
}

/*
 * A QP's completions leave the ring when it goes to RESET; the others stay,
 * in order, across the ring's wrap, and the consumer index follows them.
 */
static void test_cq_clean(void)
{
	struct pib_ring r = ring_new(8, sizeof(struct pib_cqe));
	static const uint32_t qpn[6] = { 7, 9, 7, 7, 9, 8 };
	uint32_t start = 0xfffffffd, i;
	struct ibv_wc wc[8];

	ring_at(&r, start);
	for (i = 0; i < 6; i++)
		cqe_at(&r, start + i, 100 + i)->qp_num = qpn[i];
	kernel_produced(&r, start + 6);
	CHECK_EQ(pib_cq_ring_clean(&r, 5), 0);
	CHECK_EQ(pib_ring_hdr(&r)->consumer, start);
	CHECK_EQ(pib_cq_ring_clean(&r, 7), 3);
	CHECK_EQ(pib_ring_hdr(&r)->consumer, start + 3);
	CHECK_EQ(pib_cq_ring_poll(&r, 8, wc), 3);
	CHECK_EQ(wc[0].wr_id, 101);
	CHECK_EQ(wc[1].wr_id, 104);
	CHECK_EQ(wc[2].wr_id, 105);
	CHECK_EQ(wc[2].qp_num, 8);
	CHECK_EQ(pib_cq_ring_clean(&r, 9), 0);
	/* A producer index beyond the ring's size moves nothing. */
	kernel_produced(&r, start + 6 + 9);
	CHECK_EQ(pib_cq_ring_clean(&r, 9), 0);
	free(r.buf);
}

static void test_cq_cursor(void)
{
	struct pib_ring r = ring_new(4, sizeof(struct pib_cqe));
	struct pib_cq_cursor c;

	ring_at(&r, 10);
	CHECK_EQ(pib_cq_ring_start(&r, &c), ENOENT);
	cqe_at(&r, 10, 1);
	cqe_at(&r, 11, 2);
	kernel_produced(&r, 12);
	CHECK_EQ(pib_cq_ring_start(&r, &c), 0);
	CHECK_EQ(c.cqe->wr_id, 1);
	CHECK_EQ(pib_cq_ring_next(&r, &c), 0);
	CHECK_EQ(c.cqe->wr_id, 2);
	CHECK_EQ(pib_cq_ring_next(&r, &c), ENOENT);
	CHECK_EQ(c.cqe->wr_id, 2);
	/* One more arrives during the batch: next_poll sees it. */
	cqe_at(&r, 12, 3);
	kernel_produced(&r, 13);
	CHECK_EQ(pib_cq_ring_next(&r, &c), 0);
	CHECK_EQ(c.cqe->wr_id, 3);
	/* Nothing went back to the kernel before end_poll. */
	CHECK_EQ(pib_ring_hdr(&r)->consumer, 10);
	pib_cq_ring_end(&r, &c);
	CHECK_EQ(pib_ring_hdr(&r)->consumer, 13);
	CHECK_EQ(pib_cq_ring_start(&r, &c), ENOENT);
	/* A producer index that runs backwards mid-batch ends the batch. */
	cqe_at(&r, 13, 4);
	kernel_produced(&r, 14);
	CHECK_EQ(pib_cq_ring_start(&r, &c), 0);
	kernel_produced(&r, 9);
	CHECK_EQ(pib_cq_ring_next(&r, &c), ENOENT);
	pib_cq_ring_end(&r, &c);
	CHECK_EQ(pib_ring_hdr(&r)->consumer, 14);
	free(r.buf);
}

static void test_av(void)
{
	struct ibv_ah_attr attr = {
		.dlid = 0x55, .sl = 15, .src_path_bits = 0x7f,
		.static_rate = IBV_RATE_10_GBPS, .port_num = 1,
		.grh = { .flow_label = 0xfffff, .sgid_index = 3,
			 .hop_limit = 64, .traffic_class = 9 },
	};
	struct pib_av av;

	attr.grh.dgid.raw[0] = 0xfe;
	attr.grh.dgid.raw[15] = 0x01;
	/* Not global: the GRH fields stay zero, whatever attr holds. */
	memset(&av, 0xff, sizeof(av));
	CHECK_EQ(pib_av_from_attr(&attr, 0, &av), 0);
	CHECK_EQ(av.dlid, 0x55);
	CHECK_EQ(av.sl, 15);
	CHECK_EQ(av.src_path_bits, 0x7f);
	CHECK_EQ(av.static_rate, IBV_RATE_10_GBPS);
	CHECK_EQ(av.port_num, 1);
	CHECK_EQ(av.is_global, 0);
	CHECK_EQ(av.flow_label, 0);
	CHECK_EQ(av.dgid[0], 0);
	CHECK_EQ(av.hop_limit, 0);
	CHECK_EQ(av.pkey_index, 0);
	attr.is_global = 1;
	CHECK_EQ(pib_av_from_attr(&attr, 16, &av), 0);
	CHECK_EQ(av.is_global, 1);
	CHECK_EQ(av.dgid[0], 0xfe);
	CHECK_EQ(av.dgid[15], 0x01);
	CHECK_EQ(av.flow_label, 0xfffff);
	CHECK_EQ(av.sgid_index, 3);
	CHECK_EQ(av.hop_limit, 64);
	CHECK_EQ(av.traffic_class, 9);
	/* Out of range: EINVAL. */
	CHECK_EQ(pib_av_from_attr(&attr, 3, &av), EINVAL);
	attr.grh.sgid_index = 15;
	CHECK_EQ(pib_av_from_attr(&attr, 16, &av), 0);
	attr.grh.sgid_index = 16;
	CHECK_EQ(pib_av_from_attr(&attr, 16, &av), EINVAL);
	attr.grh.sgid_index = 0;
	attr.grh.flow_label = 0x100000;
	CHECK_EQ(pib_av_from_attr(&attr, 16, &av), EINVAL);
	attr.grh.flow_label = 0;
	attr.port_num = 2;
	CHECK_EQ(pib_av_from_attr(&attr, 16, &av), EINVAL);
	attr.port_num = 0;
	CHECK_EQ(pib_av_from_attr(&attr, 16, &av), EINVAL);
	attr.port_num = 1;
	attr.sl = 16;
	CHECK_EQ(pib_av_from_attr(&attr, 16, &av), EINVAL);
	attr.sl = 0;
	attr.src_path_bits = 0x80;
	CHECK_EQ(pib_av_from_attr(&attr, 16, &av), EINVAL);
}

int main(void)
{
	test_ring_info();
	test_ring_map();
	test_opcode_rules();
	test_limits();
	test_send_sges();
	test_send_opcodes();
	test_send_inline();
	test_send_bad();
	test_send_mw();
	test_send_list_stops();
	test_send_full();
	test_send_ud();
	test_batch();
	test_batch_iba15();
	test_xrc_srqn();
	test_batch_bad();
	test_recv();
	test_cqe_to_wc();
	test_cq_poll();
	test_cq_clean();
	test_cq_cursor();
	test_av();
	return unit_done("test_provider");
}
