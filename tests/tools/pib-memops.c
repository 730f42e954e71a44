// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-memops: what happens to memory across hosts, checked on both sides,
 * over one RC QP (the client's requests, the server's memory):
 *
 *   atomic     the client ATOMIC WRITEs (IBA 1.5, ibv_wr_atomic_write())
 *              64 words into the server's MR, round after round, reads
 *              them back with an RDMA READ, and the server finds them in
 *              its memory;
 *   rereg      the server moves its MR to other memory (ibv_rereg_mr(),
 *              same R_Key); the client WRITEs there and reads it back,
 *              and the server finds the bytes in the new memory and the
 *              old memory as it was;
 *   noaccess   the server takes remote write away (ibv_rereg_mr()); the
 *              client's WRITE fails with a remote access error (on new
 *              QPs again, up to 5 tries, when the LAN lost the NAK).
 *
 * The client's CQ stamps its completions (ibv_create_cq_ex() with
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK): each stamp lies between
 * the post and the poll, and they do not go back.
 *
 *   pib-memops --server -d DEV [-p PORT] [-n ROUNDS] [-t SECONDS]
 *   pib-memops --client HOST -d DEV [-p PORT] [-n ROUNDS] [-t SECONDS]
 *
 * With PIB_MEMOPS_LOSE_NAK set in its environment, the server has its
 * device lose its first NAK (pib's error injection: it must be root), so
 * that the client's first WRITE without remote write ends in
 * retry-exceeded and the second, on new QPs, in a remote access error.
 *
 * The TCP connection (port 18516 unless given) carries the QP's address
 * and one byte per step. The last line is "pib-memops: OK" or
 * "pib-memops: FAILED: <reason>"; the exit status 0 or 1 (2: bad usage).
 * Nothing waits past -t seconds (default 300).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include "tool.h"

#define PROG		"pib-memops"
#define WORDS		64
#define AREA		(WORDS * 8)
#define REGION		4096
#define PSN		0x1234
#define NOACCESS_TRIES	5

struct peer {
	uint32_t qpn;
	uint16_t lid;
	uint16_t pad;
	uint64_t addr;
	uint32_t rkey;
	uint32_t rounds;
};

static struct tool_opts opt = { .port = 18516, .count = 20, .seconds = 300 };
static int sock = -1;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_cq_ex *cqx;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static uint8_t *mem, *other;

/* Wall-clock time in ns, as completion stamps have it. */
static uint64_t wall_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* The word @i of round @r: different in every round and place. */
static uint64_t word(uint32_t r, uint32_t i)
{
	return (r + 1) * 0x9e3779b97f4a7c15ull ^ i;
}

/* ---------------------------------------------------------------- verbs */

static void qp_create(void)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .pd = pd,
		.cap = { .max_send_wr = 2 * WORDS, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ,
	};

	qp = ibv_create_qp_ex(ctx, &a);
	if (!qp)
		die("ibv_create_qp_ex with ATOMIC WRITE: %s", strerror(errno));
}

/* RESET -> INIT -> RTR -> RTS, to the peer's QP. */
static void qp_connect(const struct peer *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RESET,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("modify_qp to RESET: %s", strerror(errno));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify_qp to INIT: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = p->qpn;
	a.rq_psn = PSN;
	a.max_dest_rd_atomic = 8;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = p->lid;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify_qp to RTR: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = PSN;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 8;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp to RTS: %s", strerror(errno));
}

/*
 * @n completions, each of status @want, stamped (on the client) after
 * @since and before it was polled, in order.
 */
static void wait_wcs_since(int n, enum ibv_wc_status want, const char *what,
			   uint64_t since)
{
	struct ibv_poll_cq_attr pa = { 0 };
	uint64_t ts, last = since;
	int got = 0;

	while (got < n) {
		if (ibv_start_poll(cqx, &pa)) {
			if (now() > deadline)
				die("%s: %d of %d completions before the deadline",
				    what, got, n);
			usleep(100);
			continue;
		}
		do {
			if (cqx->status != want)
				die("%s: completion %d: %s, not %s", what, got,
				    ibv_wc_status_str(cqx->status),
				    ibv_wc_status_str(want));
			ts = ibv_wc_read_completion_wallclock_ns(cqx);
			if (opt.host && (ts < last || ts > wall_ns()))
				die("%s: completion %d stamped %llu, not within %llu .. now",
				    what, got, (unsigned long long)ts,
				    (unsigned long long)last);
			last = ts;
			got++;
		} while (got < n && !ibv_next_poll(cqx));
		ibv_end_poll(cqx);
	}
}

static void wait_wcs(int n, enum ibv_wc_status want, const char *what)
{
	wait_wcs_since(n, want, what, 0);
}

/* The status of the next completion. */
static enum ibv_wc_status wait_status(const char *what)
{
	struct ibv_poll_cq_attr pa = { 0 };
	enum ibv_wc_status st;

	while (ibv_start_poll(cqx, &pa)) {
		if (now() > deadline)
			die("%s: no completion before the deadline", what);
		usleep(100);
	}
	st = cqx->status;
	ibv_end_poll(cqx);
	return st;
}

/*
 * A new QP in place of the old one, connected to the peer's new QP (the
 * QPNs cross on the TCP connection): after a retry-exceeded error, the
 * QPs are in the Error state.
 */
static void qp_renew(struct peer *p)
{
	uint32_t qpn;

	if (ibv_destroy_qp(qp))
		die("ibv_destroy_qp: %s", strerror(errno));
	qp_create();
	qpn = qp->qp_num;
	io(sock, &qpn, sizeof(qpn), 1);
	io(sock, &p->qpn, sizeof(p->qpn), 0);
	qp_connect(p);
	say(sock, 'c');
	expect(sock, 'c', "connecting the new QPs");
}

static void post_rdma(int write, const struct peer *p, uint32_t off,
		      struct ibv_mr *lmr, uint32_t len)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);

	ibv_wr_start(qx);
	qx->wr_flags = IBV_SEND_SIGNALED;
	if (write)
		ibv_wr_rdma_write(qx, p->rkey, p->addr + off);
	else
		ibv_wr_rdma_read(qx, p->rkey, p->addr + off);
	ibv_wr_set_sge(qx, lmr->lkey, (uintptr_t)lmr->addr, len);
	if (ibv_wr_complete(qx))
		die("posting an RDMA %s: %s", write ? "WRITE" : "READ",
		    strerror(errno));
}

/* --------------------------------------------------------------- client */

/*
 * A WRITE without remote write fails with a remote access error. The
 * responder sends one NAK and its QP goes to the Error state (IBA class
 * C): if the LAN loses that NAK, the requester's retries meet a QP in
 * Error and end in retry-exceeded. Then both sides take new QPs and try
 * again, a few times: on a LAN that loses a few percent of its packets,
 * one NAK arrives.
 */
static void noaccess(struct peer *p, struct ibv_mr *lmr)
{
	enum ibv_wc_status st;
	int tries;

	for (tries = 1; ; tries++) {
		/* (bytes the server would find, were the WRITE executed) */
		memset(lmr->addr, 0xee, 8);
		post_rdma(1, p, 8, lmr, 8);
		st = wait_status("WRITE without remote write");
		if (st == IBV_WC_REM_ACCESS_ERR)
			break;
		if (st != IBV_WC_RETRY_EXC_ERR || tries == NOACCESS_TRIES)
			die("WRITE without remote write (try %d): %s, not %s",
			    tries, ibv_wc_status_str(st),
			    ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
		printf("noaccess: try %d: %s (the NAK was lost?); again on new QPs\n",
		       tries, ibv_wc_status_str(st));
		say(sock, 'x');
		qp_renew(p);
	}
	printf("noaccess: a WRITE then fails with a remote access error\n");
}

static void client(struct peer *p, struct ibv_mr *lmr)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	uint64_t v, *got = lmr->addr;
	uint32_t r, i;

	uint64_t t;

	for (r = 0; r < p->rounds; r++) {
		t = wall_ns();
		ibv_wr_start(qx);
		for (i = 0; i < WORDS; i++) {
			v = word(r, i);
			qx->wr_id = i;
			qx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_atomic_write(qx, p->rkey, p->addr + 8 * i, &v);
		}
		if (ibv_wr_complete(qx))
			die("posting %d ATOMIC WRITEs: %s", WORDS, strerror(errno));
		wait_wcs_since(WORDS, IBV_WC_SUCCESS, "ATOMIC WRITEs", t);
		memset(got, 0, AREA);
		post_rdma(0, p, 0, lmr, AREA);
		wait_wcs(1, IBV_WC_SUCCESS, "READ after ATOMIC WRITEs");
		for (i = 0; i < WORDS; i++)
			if (got[i] != word(r, i))
				die("round %u: word %u read back %#llx, not %#llx",
				    r, i, (unsigned long long)got[i],
				    (unsigned long long)word(r, i));
		say(sock, 'a');
		expect(sock, 'A', "the server's memory after ATOMIC WRITEs");
	}
	printf("atomic: %u rounds of %d ATOMIC WRITEs read back and found, completions stamped in order\n",
	       p->rounds, WORDS);
	say(sock, 'r');
	io(sock, &p->addr, sizeof(p->addr), 0);
	memset(got, 0x5a, AREA);
	post_rdma(1, p, 8, lmr, AREA);
	wait_wcs(1, IBV_WC_SUCCESS, "WRITE to the reregistered MR");
	memset(got, 0, AREA);
	post_rdma(0, p, 8, lmr, AREA);
	wait_wcs(1, IBV_WC_SUCCESS, "READ of the reregistered MR");
	for (i = 0; i < WORDS; i++)
		if (got[i] != 0x5a5a5a5a5a5a5a5aull)
			die("word %u of the reregistered MR read back %#llx", i,
			    (unsigned long long)got[i]);
	say(sock, 'w');
	expect(sock, 'W', "the server's memory after its rereg");
	printf("rereg: the same R_Key wrote the new memory, not the old\n");
	say(sock, 'n');
	expect(sock, 'N', "the server's rereg without remote write");
	noaccess(p, lmr);
	say(sock, 'd');
}

/* --------------------------------------------------------------- server */

/* The QP's next ACK or NAK out is lost (pib's error injection). */
static void lose_nak(void)
{
	char cmd[64];
	int err;

	snprintf(cmd, sizeof(cmd), "qp %u drop 1 opcode RC_ACKNOWLEDGE",
		 qp->qp_num);
	err = dev_inject(opt.dev, cmd);
	if (err)
		die("writing \"%s\" to /sys/kernel/debug/pib/%s/inject: %s",
		    cmd, opt.dev, strerror(err));
	printf("noaccess: the NAK will be lost (%s)\n", cmd);
}

static void check_words(const uint8_t *m, uint32_t off, uint32_t r,
			const char *what)
{
	uint64_t v;
	uint32_t i;

	for (i = 0; i < WORDS; i++) {
		memcpy(&v, m + off + 8 * i, sizeof(v));
		if (v != word(r, i))
			die("%s: word %u is %#llx, not %#llx", what, i,
			    (unsigned long long)v, (unsigned long long)word(r, i));
	}
}

static void server(struct peer *p, uint32_t n)
{
	uint64_t addr;
	uint32_t r, i;
	int tries;
	char c;

	for (r = 0; r < n; r++) {
		expect(sock, 'a', "ATOMIC WRITE round");
		check_words(mem, 0, r, "after ATOMIC WRITEs");
		say(sock, 'A');
	}
	printf("atomic: %u rounds of %d words found in memory\n", n, WORDS);
	expect(sock, 'r', "rereg");
	memset(other, 0, REGION);
	if (ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, other,
			 REGION, 0))
		die("ibv_rereg_mr to other memory: %s", strerror(errno));
	addr = (uintptr_t)other;
	io(sock, &addr, sizeof(addr), 1);
	expect(sock, 'w', "WRITE to the reregistered MR");
	for (i = 8; i < 8 + AREA; i++)
		if (other[i] != 0x5a)
			die("byte %u of the new memory is %#x", i, other[i]);
	check_words(mem, 0, n - 1, "the old memory after rereg");
	say(sock, 'W');
	printf("rereg: the new memory has the client's bytes, the old is as it was\n");
	expect(sock, 'n', "rereg without remote write");
	if (ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			 IBV_ACCESS_LOCAL_WRITE))
		die("ibv_rereg_mr without remote write: %s", strerror(errno));
	if (getenv("PIB_MEMOPS_LOSE_NAK"))
		lose_nak();
	say(sock, 'N');
	for (tries = 1; ; tries++) {
		io(sock, &c, 1, 0);
		if (c == 'd')
			break;
		if (c != 'x' || tries == NOACCESS_TRIES)
			die("the end or new QPs: the peer said '%c'", c);
		qp_renew(p);
	}
	if (other[8] != 0x5a)
		die("a WRITE without remote write changed memory");
	printf("noaccess: the refused WRITE changed nothing\n");
}

static void open_dev(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 4 * WORDS,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};

	ctx = dev_open(opt.dev);
	pd = ibv_alloc_pd(ctx);
	cqx = ibv_create_cq_ex(ctx, &ca);
	if (!pd || !cqx)
		die("PD and CQ with completion timestamps: %s", strerror(errno));
	cq = ibv_cq_ex_to_cq(cqx);
}

int main(int argc, char **argv)
{
	struct peer me = { 0 }, peer;
	struct ibv_mr *lmr = NULL;

	options(PROG, argc, argv, "ROUNDS", &opt);
	setvbuf(stdout, NULL, _IOLBF, 0);
	begin(PROG, opt.seconds);
	open_dev();
	mem = aligned_alloc(REGION, REGION);
	other = aligned_alloc(REGION, REGION);
	if (!mem || !other)
		die("out of memory");
	memset(mem, 0, REGION);
	mr = ibv_reg_mr(pd, mem, REGION, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
	qp_create();
	me.qpn = qp->qp_num;
	me.lid = port_lid(ctx);
	me.addr = (uintptr_t)mem;
	me.rkey = mr->rkey;
	me.rounds = opt.count;
	sock = tcp_connect(opt.host, opt.port);
	io(sock, &me, sizeof(me), 1);
	io(sock, &peer, sizeof(peer), 0);
	qp_connect(&peer);
	/* Both QPs are ready to receive before either sends. */
	say(sock, 'c');
	expect(sock, 'c', "connecting the QPs");
	if (opt.host) {
		/* (the server's round count: the client's own is in its frame) */
		peer.rounds = opt.count;
		lmr = ibv_reg_mr(pd, other, REGION, IBV_ACCESS_LOCAL_WRITE);
		if (!lmr)
			die("ibv_reg_mr: %s", strerror(errno));
		client(&peer, lmr);
	} else {
		server(&peer, peer.rounds);
	}
	if (ibv_destroy_qp(qp) || (lmr && ibv_dereg_mr(lmr)) ||
	    ibv_dereg_mr(mr) || ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx))
		die("freeing the QP, MRs, CQ, PD and device: %s", strerror(errno));
	close(sock);
	free(mem);
	free(other);
	printf(PROG ": OK\n");
	return 0;
}
