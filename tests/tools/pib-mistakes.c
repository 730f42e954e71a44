// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-mistakes: an RDMA program that makes, on purpose, one of the
 * mistakes README's "Debugging your RDMA program with pib" shows how to
 * find, and prints what the program sees.
 *
 *   pib-mistakes DEV_A DEV_B rnr|rkey|cq-overflow
 *
 * One RC QP on each device (both ports ACTIVE), connected to each other.
 *   rnr          A sends; B posted no receive. With rnr_retry 0, A's send
 *                completes with IBV_WC_RNR_RETRY_EXC_ERR.
 *   rkey         A writes to B's buffer with a wrong rkey: A's write
 *                completes with IBV_WC_REM_ACCESS_ERR, A's QP is then in
 *                ERR, and a send posted next is flushed.
 *   cq-overflow  A's send CQ holds 1 completion; A posts 4 signaled sends
 *                without polling: A's context gets IBV_EVENT_CQ_ERR.
 * Prints one line per thing seen ("A: ..."), and the QP numbers first, so
 * that a trace or a capture can be matched to them. Exits 0 if the program
 * saw what the mistake leads to, 1 if not, 2 for bad usage or setup.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define BUF_SIZE	4096
#define TIMEOUT_MS	60000

struct side {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
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
		      int cqe)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
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
	if (!s->pd || !s->buf)
		die("ibv_alloc_pd");
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	s->cq = ibv_create_cq(s->ctx, cqe, NULL, NULL, 0);
	if (!s->mr || !s->cq)
		die("ibv_reg_mr/ibv_create_cq");
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &init);
	if (!s->qp)
		die("ibv_create_qp");
	printf("%s: QP 0x%x on %s, LID 0x%x\n", name, s->qp->qp_num, dev, s->lid);
}

/* RESET -> INIT -> RTR -> RTS, connected to @peer; @rnr_retry as asked. */
static void side_connect(struct side *s, const struct side *peer,
			 int rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
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
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS");
}

static void post_send(struct side *s, enum ibv_wr_opcode op, uint64_t raddr,
		      uint32_t rkey, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 64, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(s->qp, &wr, &bad))
		die("ibv_post_send");
}

static void post_recv(struct side *s)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = BUF_SIZE, .lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(s->qp, &wr, &bad))
		die("ibv_post_recv");
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
	side_connect(a, b, 0);
	side_connect(b, a, 0);
	post_send(a, IBV_WR_SEND, 0, 0, 1);
	return poll_one(a).status == IBV_WC_RNR_RETRY_EXC_ERR ? 0 : 1;
}

static int mistake_rkey(struct side *a, struct side *b)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int ok;

	side_connect(a, b, 7);
	side_connect(b, a, 7);
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

	side_connect(a, b, 7);
	side_connect(b, a, 7);
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

static void side_fini(struct side *s)
{
	if (ibv_destroy_qp(s->qp) || ibv_destroy_cq(s->cq) ||
	    ibv_dereg_mr(s->mr) || ibv_dealloc_pd(s->pd) ||
	    ibv_close_device(s->ctx))
		die("destroying");
	free(s->buf);
}

int main(int argc, char **argv)
{
	struct side a, b;
	const char *what;
	int ret = 2;

	if (argc != 4) {
		fprintf(stderr, "usage: pib-mistakes DEV_A DEV_B rnr|rkey|cq-overflow\n");
		return 2;
	}
	what = argv[3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	side_init(&a, argv[1], "A", strcmp(what, "cq-overflow") ? 16 : 1);
	side_init(&b, argv[2], "B", 16);
	if (!strcmp(what, "rnr"))
		ret = mistake_rnr(&a, &b);
	else if (!strcmp(what, "rkey"))
		ret = mistake_rkey(&a, &b);
	else if (!strcmp(what, "cq-overflow"))
		ret = mistake_cq_overflow(&a, &b);
	else
		fprintf(stderr, "pib-mistakes: no mistake %s\n", what);
	side_fini(&a);
	side_fini(&b);
	return ret;
}
