// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-mistakes: an RDMA program that makes, on purpose, one of the
 * mistakes README's "Debugging your RDMA program with pib" shows how to
 * find, and prints what the program sees.
 *
 *   pib-mistakes DEV_A DEV_B MISTAKE
 *
 * One RC QP on each device (both ports ACTIVE), connected to each other.
 *   rnr          A sends; B posted no receive. With rnr_retry 0, A's send
 *                completes with IBV_WC_RNR_RETRY_EXC_ERR.
 *   rkey         A writes to B's buffer with a wrong rkey: A's write
 *                completes with IBV_WC_REM_ACCESS_ERR, A's QP is then in
 *                ERR, and a send posted next is flushed.
 *   cq-overflow  A's send CQ holds 1 completion; A posts 4 signaled sends
 *                without polling: A's context gets IBV_EVENT_CQ_ERR.
 * The mistakes of pib's strict mode (README), which pib lets pass unless
 * strict mode is "error":
 *   unsignaled   A (SQ of 8, sq_sig_all 0) posts 32 unsignaled RDMA
 *                WRITEs, waiting up to 2 s whenever the SQ is full.
 *   small-cq     A's QP (8 send and 8 receive WQEs) on a CQ of 4 entries.
 *   short-recv   B posts a 16-byte receive; A sends 64 bytes.
 *   dereg-busy   B posts a receive into a second MR and deregisters it.
 *   atomic-unaligned  A fetch-and-adds at an address 4 bytes off (libpib
 *                refuses it at ibv_post_send).
 *   bad-modify   A's RESET -> INIT also sets the RQ PSN.
 *   too-many-reads  A (max_rd_atomic 8) READs 4 x 256 KiB from B
 *                (max_dest_rd_atomic 1) at once. With PIB_MISTAKES_PAUSE
 *                set, it first waits for a line on stdin (time to
 *                inject a fault into B's QP).
 * Prints one line per thing seen ("A: ..."), and the QP numbers first, so
 * that a trace or a capture can be matched to them. Exits 0 if the program
 * saw what the mistake leads to (the first three) or ran to its end (the
 * others), 1 if not, 2 for bad usage or setup.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define BUF_SIZE	(1024 * 1024)
#define READ_SIZE	(256 * 1024)
#define TIMEOUT_MS	60000

struct side {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	char *buf2;
	uint16_t lid;
};

static void die(const char *what)
{
	fprintf(stderr, "pib-mistakes: %s: %s\n", what, strerror(errno));
	exit(2);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	if (!list)
		die("ibv_get_device_list");
	for (int i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "pib-mistakes: no device %s\n", name);
		exit(2);
	}
	return ctx;
}

static void side_init(struct side *s, const char *dev, const char *name,
		      int cqe, int sig_all)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = sig_all,
	};
	struct ibv_port_attr port;

	s->name = name;
	s->ctx = open_dev(dev);
	if (ibv_query_port(s->ctx, 1, &port) || port.state != IBV_PORT_ACTIVE) {
		fprintf(stderr, "pib-mistakes: %s port 1 is not ACTIVE\n", dev);
		exit(2);
	}
	s->lid = port.lid;
	s->pd = ibv_alloc_pd(s->ctx);
	s->buf = calloc(1, BUF_SIZE);
	s->buf2 = calloc(1, 4096);
	if (!s->pd || !s->buf || !s->buf2)
		die("ibv_alloc_pd");
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	s->cq = ibv_create_cq(s->ctx, cqe, NULL, NULL, 0);
	if (!s->mr || !s->cq)
		die("ibv_reg_mr/ibv_create_cq");
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &init);
	if (!s->qp) {
		printf("%s: ibv_create_qp: %s\n", name, strerror(errno));
		exit(1);
	}
	printf("%s: QP 0x%x on %s, LID 0x%x\n", name, s->qp->qp_num, dev, s->lid);
}

/*
 * RESET -> INIT -> RTR -> RTS, connected to @peer; @rnr_retry as asked,
 * @rd_atomic READs and atomics each way.
 */
static void side_connect(struct side *s, const struct side *peer,
			 int rnr_retry, int rd_atomic)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = rd_atomic;
	a.min_rnr_timer = 1;
	a.ah_attr.dlid = peer->lid;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = rnr_retry;
	a.sq_psn = 0;
	a.max_rd_atomic = rd_atomic;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS");
}

/* Post one send WR of @len bytes from the buffer. Return: its errno. */
static int post_wr(struct side *s, enum ibv_wr_opcode op, uint64_t raddr,
		   uint32_t rkey, uint64_t wr_id, uint32_t len, int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = len, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = flags,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(s->qp, &wr, &bad);
}

static void post_send(struct side *s, enum ibv_wr_opcode op, uint64_t raddr,
		      uint32_t rkey, uint64_t wr_id)
{
	errno = post_wr(s, op, raddr, rkey, wr_id, 64, IBV_SEND_SIGNALED);
	if (errno)
		die("ibv_post_send");
}

/* Post a receive of @len bytes of @buf, whose MR has @lkey. */
static void post_recv_into(struct side *s, char *buf, uint32_t len,
			   uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(s->qp, &wr, &bad))
		die("ibv_post_recv");
}

static void post_recv(struct side *s)
{
	post_recv_into(s, s->buf, BUF_SIZE, s->mr->lkey);
}

/* The next completion of @s's CQ, within TIMEOUT_MS. */
static struct ibv_wc poll_one(struct side *s)
{
	struct timespec ts = { 0, 1000000 };
	struct ibv_wc wc;

	for (int ms = 0; ms < TIMEOUT_MS; ms++) {
		int n = ibv_poll_cq(s->cq, 1, &wc);

		if (n < 0)
			die("ibv_poll_cq");
		if (n) {
			printf("%s: wr_id %llu completed: %s (%d), vendor_err 0x%x\n",
			       s->name, (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status), wc.status,
			       wc.vendor_err);
			return wc;
		}
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "pib-mistakes: %s: no completion in %d s\n", s->name,
		TIMEOUT_MS / 1000);
	exit(1);
}

static int mistake_rnr(struct side *a, struct side *b)
{
	side_connect(a, b, 0, 1);
	side_connect(b, a, 0, 1);
	post_send(a, IBV_WR_SEND, 0, 0, 1);
	return poll_one(a).status == IBV_WC_RNR_RETRY_EXC_ERR ? 0 : 1;
}

static int mistake_rkey(struct side *a, struct side *b)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int ok;

	side_connect(a, b, 7, 1);
	side_connect(b, a, 7, 1);
	post_send(a, IBV_WR_RDMA_WRITE, (uintptr_t)b->buf, b->mr->rkey ^ 0x80, 1);
	ok = poll_one(a).status == IBV_WC_REM_ACCESS_ERR;
	if (ibv_query_qp(a->qp, &attr, IBV_QP_STATE, &init))
		die("ibv_query_qp");
	printf("A: QP state %s\n", attr.qp_state == IBV_QPS_ERR ? "ERR" : "not ERR");
	ok &= attr.qp_state == IBV_QPS_ERR;
	post_send(a, IBV_WR_SEND, 0, 0, 2);
	ok &= poll_one(a).status == IBV_WC_WR_FLUSH_ERR;
	return ok ? 0 : 1;
}

static int mistake_cq_overflow(struct side *a, struct side *b)
{
	struct pollfd pfd = { .fd = a->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	side_connect(a, b, 7, 1);
	side_connect(b, a, 7, 1);
	for (int i = 0; i < 4; i++) {
		post_recv(b);
		post_send(a, IBV_WR_SEND, 0, 0, i + 1);
	}
	if (poll(&pfd, 1, TIMEOUT_MS) != 1) {
		fprintf(stderr, "pib-mistakes: A: no async event\n");
		return 1;
	}
	if (ibv_get_async_event(a->ctx, &ev))
		die("ibv_get_async_event");
	printf("A: async event %s\n", ibv_event_type_str(ev.event_type));
	ibv_ack_async_event(&ev);
	return ev.event_type == IBV_EVENT_CQ_ERR ? 0 : 1;
}

/* 32 unsignaled WRITEs on an SQ of 8: fine unless its slots stay used. */
static int mistake_unsignaled(struct side *a, struct side *b)
{
	struct timespec ts = { 0, 1000000 };
	int i, ms, err = 0;

	side_connect(a, b, 7, 1);
	side_connect(b, a, 7, 1);
	for (i = 0; i < 32; i++) {
		for (ms = 0; ms < 2000; ms++) {
			err = post_wr(a, IBV_WR_RDMA_WRITE, (uintptr_t)b->buf,
				      b->mr->rkey, i, 64, 0);
			if (err != ENOMEM)
				break;
			nanosleep(&ts, NULL);
		}
		if (err) {
			printf("A: unsignaled send %d of 32: ibv_post_send: %s: the SQ stays full\n",
			       i + 1, strerror(err));
			return 0;
		}
	}
	printf("A: 32 unsignaled sends posted\n");
	return 0;
}

static int mistake_short_recv(struct side *a, struct side *b)
{
	side_connect(a, b, 7, 1);
	side_connect(b, a, 7, 1);
	post_recv_into(b, b->buf, 16, b->mr->lkey);
	post_send(a, IBV_WR_SEND, 0, 0, 1);
	poll_one(b);
	poll_one(a);
	return 0;
}

static int mistake_dereg_busy(struct side *a, struct side *b)
{
	struct ibv_mr *mr2 = ibv_reg_mr(b->pd, b->buf2, 4096,
					IBV_ACCESS_LOCAL_WRITE);

	if (!mr2)
		die("ibv_reg_mr");
	side_connect(a, b, 7, 1);
	side_connect(b, a, 7, 1);
	post_recv_into(b, b->buf2, 4096, mr2->lkey);
	if (ibv_dereg_mr(mr2))
		die("ibv_dereg_mr");
	printf("B: MR deregistered with a receive into it posted\n");
	post_send(a, IBV_WR_SEND, 0, 0, 1);
	poll_one(b);
	poll_one(a);
	return 0;
}

static int mistake_atomic_unaligned(struct side *a, struct side *b)
{
	side_connect(a, b, 7, 1);
	side_connect(b, a, 7, 1);
	int err = post_wr(a, IBV_WR_ATOMIC_FETCH_AND_ADD,
			  (uintptr_t)b->buf + 4, b->mr->rkey, 1, 8,
			  IBV_SEND_SIGNALED);

	if (err)
		printf("A: ibv_post_send of an atomic at 0x%llx: %s\n",
		       (unsigned long long)(uintptr_t)b->buf + 4, strerror(err));
	else
		poll_one(a);
	return 0;
}

static int mistake_bad_modify(struct side *a, struct side *b __attribute__((unused)))
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .rq_psn = 1,
	};
	int err = ibv_modify_qp(a->qp, &attr, IBV_QP_STATE |
				IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS | IBV_QP_RQ_PSN);

	printf("A: modify_qp RESET -> INIT with IBV_QP_RQ_PSN: %s\n",
	       err ? strerror(err) : "done");
	return 0;
}

static int mistake_too_many_reads(struct side *a, struct side *b)
{
	int i;

	side_connect(a, b, 7, 8);
	side_connect(b, a, 7, 1);
	if (getenv("PIB_MISTAKES_PAUSE")) {
		char line[16];

		printf("ready: press Enter\n");
		if (!fgets(line, sizeof(line), stdin))
			return 2;
	}
	for (i = 0; i < 4; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)a->buf + i * READ_SIZE,
			.length = READ_SIZE, .lkey = a->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i + 1, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)b->buf + i * READ_SIZE;
		wr.wr.rdma.rkey = b->mr->rkey;
		if (ibv_post_send(a->qp, &wr, &bad))
			die("ibv_post_send");
	}
	for (i = 0; i < 4; i++)
		poll_one(a);
	return 0;
}

/* The mistakes, by name: A's CQ entries and sq_sig_all, and the test. */
static const struct {
	const char *name;
	int cqe;
	int sig_all;
	int (*run)(struct side *a, struct side *b);
} mistakes[] = {
	{ "rnr", 16, 1, mistake_rnr },
	{ "rkey", 16, 1, mistake_rkey },
	{ "cq-overflow", 1, 1, mistake_cq_overflow },
	{ "unsignaled", 16, 0, mistake_unsignaled },
	{ "small-cq", 4, 1, NULL },
	{ "short-recv", 16, 1, mistake_short_recv },
	{ "dereg-busy", 16, 1, mistake_dereg_busy },
	{ "atomic-unaligned", 16, 1, mistake_atomic_unaligned },
	{ "bad-modify", 16, 1, mistake_bad_modify },
	{ "too-many-reads", 16, 1, mistake_too_many_reads },
};

static void side_fini(struct side *s)
{
	if (ibv_destroy_qp(s->qp) || ibv_destroy_cq(s->cq) ||
	    ibv_dereg_mr(s->mr) || ibv_dealloc_pd(s->pd) ||
	    ibv_close_device(s->ctx))
		die("destroying");
	free(s->buf);
	free(s->buf2);
}

int main(int argc, char **argv)
{
	struct side a, b;
	size_t i;
	int ret = 0;

	for (i = 0; argc == 4 && i < sizeof(mistakes) / sizeof(mistakes[0]); i++)
		if (!strcmp(argv[3], mistakes[i].name))
			break;
	if (argc != 4 || i == sizeof(mistakes) / sizeof(mistakes[0])) {
		fprintf(stderr, "usage: pib-mistakes DEV_A DEV_B rnr|rkey|cq-overflow|unsignaled|small-cq|short-recv|dereg-busy|atomic-unaligned|bad-modify|too-many-reads\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	side_init(&a, argv[1], "A", mistakes[i].cqe, mistakes[i].sig_all);
	side_init(&b, argv[2], "B", 16, 1);
	if (mistakes[i].run)
		ret = mistakes[i].run(&a, &b);
	else
		printf("A: QP created on a CQ of %d entries\n", mistakes[i].cqe);
	side_fini(&a);
	side_fini(&b);
	return ret;
}
