// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-apm: Automatic Path Migration (IBA 17.2.8) of RC QPs across hosts.
 * Each side's QP has its primary path to the peer's LID on SL 0 and an
 * alternate path to the same LID on SL 1 (loaded at INIT->RTR, timeout 14),
 * and goes to RTS with the path migration state ARMED and 2 retries. The
 * client SENDs messages of 1 to 3000 bytes (several packets at MTU 1024,
 * with the message's number as immediate data) that the server checks,
 * byte by byte, each of the right length and in order:
 *
 *   armed     ibv_query_qp() on both sides: ARMED, the path on SL 0 and
 *             the alternate path on SL 1, both to the peer's LID;
 *   primary   -n SENDs on the primary path;
 *   failure   the client has its device lose every packet it sends on
 *             SL 0 ("sl 0 drop 1000000" written to debugfs's
 *             pib/DEV/inject), then -n SENDs: all complete successfully,
 *             as the client's QP, its retries on SL 0 run out, moves to
 *             the alternate path, and the server's follows on the first
 *             request that asks it to (BTH MigReq). Each side gets exactly
 *             one IBV_EVENT_PATH_MIG for its QP, and its query says
 *             MIGRATED with the path on SL 1;
 *   after     the loss ends ("sl 0 drop 0"); -n SENDs each way on the
 *             migrated paths;
 *   consumer  on a second pair of QPs, ARMED too, the client migrates its
 *             own (RTS->RTS with IBV_MIG_MIGRATED): its query says so at
 *             once, and it gets IBV_EVENT_PATH_MIG; its SENDs then reach
 *             the server, whose QP migrates with its event on the first.
 *
 * No other event of a QP, CQ or the device comes, nor a second PATH_MIG.
 * The device must report IBV_DEVICE_AUTO_PATH_MIG.
 *
 *   pib-apm --server -d DEV [-p PORT] [-n MSGS] [-t SECONDS]
 *   pib-apm --client HOST -d DEV [-p PORT] [-n MSGS] [-t SECONDS]
 *
 * The client writes to /sys/kernel/debug/pib/DEV/inject (it must be root),
 * and ends the loss also when it fails. The TCP connection (port 18518
 * unless given) carries the QPs' numbers, the LIDs, the client's -n and one
 * byte per step. The last line is "pib-apm: OK" or "pib-apm: FAILED:
 * <reason>"; the exit status 0 or 1 (2: bad usage). Nothing waits past -t
 * seconds (default 300).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include "tool.h"

#define PROG		"pib-apm"
#define SLOTS		16	/* receives posted on a QP, SENDs in a batch */
#define MSG_MAX		3000	/* the longest SEND */
#define MEMSZ		((3 * SLOTS * MSG_MAX + 4095) / 4096 * 4096)
#define CQE		(4 * SLOTS)
#define FILL		0xa5	/* what a receive buffer holds before */
#define PSN		0x3456
#define TIMEOUT		14	/* the local ACK timeouts, of both paths */
#define RETRIES		2	/* few: the primary path's failure is found fast */
#define PRIMARY_SL	0
#define ALT_SL		1
#define CONSUMER_MSGS	4
#define CUT		"sl 0 drop 1000000"
#define UNCUT		"sl 0 drop 0"

/* What the two tell each other, per pair of QPs. */
struct peer {
	uint32_t qpn;
	uint16_t lid;
	uint16_t pad;
	uint32_t msgs;		/* the client's -n */
};

static struct tool_opts opt = { .port = 18518, .count = 20, .seconds = 300 };
static int sock = -1;
static int dropping;		/* the client's device loses SL 0 packets */
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *mem;
static uint16_t peer_lid;
/* By pair: the QP (0 the first, 1 the consumer's), its PATH_MIG events. */
static struct ibv_qp *qps[2];
static int migs[2];
static double mig_at[2];
static uint32_t sent, received;	/* messages of this side, either way */

/* Byte @j of message @i. */
static uint8_t pat(uint32_t i, uint32_t j)
{
	uint32_t x = (i + 1) * 0x9e3779b1u ^ j * 0x27d4eb2fu;

	return x ^ x >> 15 ^ x >> 24;
}

/* Its length: 1 for message 0; odd ones 2001 to 3000 bytes, even spread. */
static uint32_t msg_len(uint32_t i)
{
	if (i & 1)
		return MSG_MAX - (i * 613u) % 1000;
	return 1 + (i * 1237u) % MSG_MAX;
}

/* Memory: SLOTS send buffers, then SLOTS receive buffers per pair. */
static uint8_t *send_buf(uint32_t i)
{
	return mem + (i % SLOTS) * MSG_MAX;
}

static uint8_t *recv_buf(uint64_t wr_id)
{
	return mem + (SLOTS + wr_id) * MSG_MAX;
}

static const char *mig_name(enum ibv_mig_state s)
{
	return s == IBV_MIG_MIGRATED ? "MIGRATED" : s == IBV_MIG_REARM ?
	       "REARM" : s == IBV_MIG_ARMED ? "ARMED" : "unknown";
}

/* --------------------------------------------------------------- inject */

/* Have the device lose its SL 0 packets (@on), or no more. */
static void cut(int on)
{
	const char *cmd = on ? CUT : UNCUT;
	int err;

	dropping = on;
	err = dev_inject(opt.dev, cmd);
	if (err) {
		dropping = 0;
		die("writing \"%s\" to /sys/kernel/debug/pib/%s/inject: %s",
		    cmd, opt.dev, strerror(err));
	}
}

/* On a failure (die()): the loss ended, if on (best effort). */
static void uncut(void)
{
	if (dropping) {
		dropping = 0;
		dev_inject(opt.dev, UNCUT);
	}
}

/* ---------------------------------------------------------- async events */

/* One event: PATH_MIG of a QP of ours counted, harmless ones noted. */
static void on_event(const struct ibv_async_event *ev)
{
	enum ibv_event_type t = ev->event_type;
	int i;

	switch (t) {
	case IBV_EVENT_PATH_MIG:
		for (i = 0; i < 2; i++)
			if (qps[i] && ev->element.qp == qps[i])
				break;
		if (i == 2)
			die("IBV_EVENT_PATH_MIG for a QP not ours");
		if (!migs[i]++)
			mig_at[i] = now();
		printf("event: IBV_EVENT_PATH_MIG on QP %#x\n", qps[i]->qp_num);
		return;
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		printf("event: %s (ignored)\n", ibv_event_type_str(t));
		return;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		die("unexpected async event %s on QP %#x",
		    ibv_event_type_str(t), ev->element.qp->qp_num);
	default:
		die("unexpected async event %s", ibv_event_type_str(t));
	}
}

/* Take every event there is now (the async fd does not block). */
static void drain_events(void)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(ctx, &ev)) {
		ibv_ack_async_event(&ev);
		on_event(&ev);
	}
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		die("ibv_get_async_event: %s", strerror(errno));
}

/* Wait for pair @i's QP's IBV_EVENT_PATH_MIG, and see there is one. */
static void wait_mig(int i, const char *what)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	double left;

	for (;;) {
		drain_events();
		if (migs[i])
			break;
		left = deadline - now();
		if (left <= 0)
			die("%s: no IBV_EVENT_PATH_MIG on QP %#x by the deadline",
			    what, qps[i]->qp_num);
		if (poll(&p, 1, left > 1 ? 1000 : (int)(left * 1000) + 1) < 0 &&
		    errno != EINTR)
			die("poll on the async event fd: %s", strerror(errno));
	}
	if (migs[i] != 1)
		die("%s: %d IBV_EVENT_PATH_MIG on QP %#x, not 1", what, migs[i],
		    qps[i]->qp_num);
}

/* ---------------------------------------------------------------- verbs */

static void open_dev(void)
{
	struct ibv_device_attr da;
	int fl;

	ctx = dev_open(opt.dev);
	if (ibv_query_device(ctx, &da))
		die("ibv_query_device: %s", strerror(errno));
	if (!(da.device_cap_flags & IBV_DEVICE_AUTO_PATH_MIG))
		die("%s does not report APM (IBV_DEVICE_AUTO_PATH_MIG)",
		    opt.dev);
	fl = fcntl(ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK))
		die("making the async event fd non-blocking: %s",
		    strerror(errno));
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, CQE, NULL, NULL, 0);
	mem = aligned_alloc(4096, MEMSZ);
	if (!pd || !cq || !mem)
		die("PD, CQ and memory: %s", strerror(errno));
	memset(mem, FILL, MEMSZ);
	mr = ibv_reg_mr(pd, mem, MEMSZ, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
}

static void qp_create(int i)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SLOTS, .max_recv_wr = SLOTS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	qps[i] = ibv_create_qp(pd, &a);
	if (!qps[i])
		die("ibv_create_qp: %s", strerror(errno));
}

static void modify(int i, struct ibv_qp_attr *a, int mask, const char *to)
{
	int err = ibv_modify_qp(qps[i], a, mask);

	if (err)
		die("modify_qp of QP %#x to %s: %s", qps[i]->qp_num, to,
		    strerror(err));
}

/*
 * RESET -> INIT -> RTR (the path on SL 0, the alternate path on SL 1, both
 * to the peer's LID) -> RTS, ARMED, to the peer's QP @qpn.
 */
static void qp_connect(int i, uint32_t qpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	modify(i, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qpn;
	a.rq_psn = PSN;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr = (struct ibv_ah_attr){ .dlid = peer_lid,
					  .sl = PRIMARY_SL, .port_num = 1 };
	a.alt_ah_attr = (struct ibv_ah_attr){ .dlid = peer_lid,
					      .sl = ALT_SL, .port_num = 1 };
	a.alt_pkey_index = 0;
	a.alt_port_num = 1;
	a.alt_timeout = TIMEOUT;
	modify(i, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH, "RTR with an alternate path");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = PSN;
	a.timeout = TIMEOUT;
	a.retry_cnt = RETRIES;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	a.path_mig_state = IBV_MIG_ARMED;
	modify(i, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
	       IBV_QP_PATH_MIG_STATE, "RTS, ARMED");
}

/* A receive into the buffer of @wr_id (pair wr_id / SLOTS), filled first. */
static void post_recv(uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_buf(wr_id), .length = MSG_MAX,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int err;

	memset(recv_buf(wr_id), FILL, MSG_MAX);
	err = ibv_post_recv(qps[wr_id / SLOTS], &wr, &bad);
	if (err)
		die("ibv_post_recv: %s", strerror(err));
}

/*
 * Pair @i's QP as ibv_query_qp() has it: RTS, in migration state @want,
 * its path on SL 0 (ARMED) or 1 (MIGRATED) to the peer; when ARMED also
 * the alternate path on SL 1 to the peer, as loaded.
 */
static void check_path(int i, enum ibv_mig_state want, const char *what)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct ibv_qp *q = qps[i];
	int sl = want == IBV_MIG_ARMED ? PRIMARY_SL : ALT_SL, err;

	err = ibv_query_qp(q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_TIMEOUT |
			   IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE, &ia);
	if (err)
		die("%s: ibv_query_qp of QP %#x: %s", what, q->qp_num,
		    strerror(err));
	if (a.qp_state != IBV_QPS_RTS)
		die("%s: QP %#x in state %u, not RTS", what, q->qp_num,
		    a.qp_state);
	if (a.path_mig_state != want)
		die("%s: QP %#x is %s, not %s", what, q->qp_num,
		    mig_name(a.path_mig_state), mig_name(want));
	if (a.ah_attr.sl != sl || a.ah_attr.dlid != peer_lid ||
	    a.timeout != TIMEOUT)
		die("%s: QP %#x's path is SL %u to LID %u (timeout %u), not SL %d to LID %u (%d)",
		    what, q->qp_num, a.ah_attr.sl, a.ah_attr.dlid, a.timeout,
		    sl, peer_lid, TIMEOUT);
	if (want == IBV_MIG_ARMED &&
	    (a.alt_ah_attr.sl != ALT_SL || a.alt_ah_attr.dlid != peer_lid ||
	     a.alt_timeout != TIMEOUT || a.alt_pkey_index))
		die("%s: QP %#x's alternate path is SL %u to LID %u (timeout %u, P_Key index %u), not SL %d to LID %u (%d, 0)",
		    what, q->qp_num, a.alt_ah_attr.sl, a.alt_ah_attr.dlid,
		    a.alt_timeout, a.alt_pkey_index, ALT_SL, peer_lid, TIMEOUT);
	printf("%s: QP %#x %s, path SL %u to LID %u\n", what, q->qp_num,
	       mig_name(a.path_mig_state), a.ah_attr.sl, a.ah_attr.dlid);
}

/* Pair @i's QP is still ARMED, no IBV_EVENT_PATH_MIG came. */
static void still_armed(int i, const char *what)
{
	drain_events();
	if (migs[i])
		die("%s: IBV_EVENT_PATH_MIG on QP %#x", what, qps[i]->qp_num);
	check_path(i, IBV_MIG_ARMED, what);
}

/*
 * Pair @i: its QP created, connected to the peer's and ARMED, its receives
 * posted; then both ready. The first pair also tells the LIDs and -n.
 */
static void pair_up(int i)
{
	struct peer me = { .msgs = opt.count }, p;
	uint64_t s;

	qp_create(i);
	me.qpn = qps[i]->qp_num;
	me.lid = port_lid(ctx);
	io(sock, &me, sizeof(me), 1);
	io(sock, &p, sizeof(p), 0);
	if (!i) {
		peer_lid = p.lid;
		if (!opt.host)
			opt.count = p.msgs;
	}
	printf("pair %d: QP %#x (LID %u) to QP %#x (LID %u)\n", i + 1, me.qpn,
	       me.lid, p.qpn, peer_lid);
	qp_connect(i, p.qpn);
	for (s = 0; s < SLOTS; s++)
		post_recv(i * SLOTS + s);
	/* (before the peer may send: a MigReq would migrate the QP) */
	check_path(i, IBV_MIG_ARMED, "armed");
	say(sock, 'c');
	expect(sock, 'c', "connecting the QPs");
}

/* ------------------------------------------------------------- messages */

/* The next completion; the async events that came meanwhile taken too. */
static void next_wc(struct ibv_wc *wc, const char *what)
{
	int k;

	drain_events();
	while (!(k = ibv_poll_cq(cq, 1, wc))) {
		drain_events();
		if (now() > deadline)
			die("%s: a completion missing at the deadline", what);
		usleep(100);
	}
	if (k < 0)
		die("%s: ibv_poll_cq: %d", what, k);
	if (wc->status != IBV_WC_SUCCESS)
		die("%s: completion of wr_id %llu on QP %#x: %s", what,
		    (unsigned long long)wc->wr_id, wc->qp_num,
		    ibv_wc_status_str(wc->status));
}

/* SEND message @i (this side's next) on pair @p's QP. */
static void post_msg(int p, uint32_t i)
{
	uint8_t *buf = send_buf(i);
	uint32_t j, len = msg_len(i);
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(i),
	};
	struct ibv_send_wr *bad;
	int err;

	for (j = 0; j < len; j++)
		buf[j] = pat(i, j);
	err = ibv_post_send(qps[p], &wr, &bad);
	if (err)
		die("posting SEND %u: %s", i, strerror(err));
}

/* @k SENDs on pair @p's QP, each completed successfully, in order. */
static void send_batch(int p, uint32_t k, const char *what)
{
	uint32_t first = sent, i;
	struct ibv_wc wc;

	for (i = 0; i < k; i++)
		post_msg(p, sent++);
	for (i = first; i < first + k; i++) {
		next_wc(&wc, what);
		if (wc.opcode != IBV_WC_SEND || wc.qp_num != qps[p]->qp_num ||
		    wc.wr_id != i)
			die("%s: completion %u of wr_id %llu on QP %#x, not the SEND of %u on QP %#x",
			    what, wc.opcode, (unsigned long long)wc.wr_id,
			    wc.qp_num, i, qps[p]->qp_num);
	}
}

/* The receive in @wc: message @i, intact, on pair @p's QP. */
static void check_recv(int p, const struct ibv_wc *wc, uint32_t i)
{
	uint32_t j, len = msg_len(i);
	const uint8_t *buf;
	uint8_t b;

	if (wc->opcode != IBV_WC_RECV || wc->qp_num != qps[p]->qp_num ||
	    wc->wr_id / SLOTS != (uint64_t)p)
		die("message %u: completion %u on QP %#x, not a receive on QP %#x",
		    i, wc->opcode, wc->qp_num, qps[p]->qp_num);
	if (!(wc->wc_flags & IBV_WC_WITH_IMM) || ntohl(wc->imm_data) != i)
		die("message %u: message %d arrived instead (immediate data)",
		    i, wc->wc_flags & IBV_WC_WITH_IMM ?
		    (int)ntohl(wc->imm_data) : -1);
	if (wc->byte_len != len)
		die("message %u: %u bytes, not %u", i, wc->byte_len, len);
	buf = recv_buf(wc->wr_id);
	for (j = 0; j < MSG_MAX; j++) {
		b = j < len ? pat(i, j) : FILL;
		if (buf[j] != b)
			die("message %u of %u bytes: byte %u is %#x, not %#x",
			    i, len, j, buf[j], b);
	}
}

/* @k messages more on pair @p's QP, each checked, its receive posted again. */
static void take(int p, uint32_t k, const char *what)
{
	struct ibv_wc wc;

	while (k--) {
		next_wc(&wc, what);
		check_recv(p, &wc, received++);
		post_recv(wc.wr_id);
	}
}

/*
 * @n messages on pair @p's QP, this side @sending them or taking them, in
 * batches of SLOTS (each taken, its receives posted again, before the next).
 */
static void exchange(int p, int sending, uint32_t n, const char *what)
{
	uint32_t r, k;

	for (r = 0; r < n; r += k) {
		k = n - r < SLOTS ? n - r : SLOTS;
		if (sending) {
			send_batch(p, k, what);
			expect(sock, 'B', what);
		} else {
			take(p, k, what);
			say(sock, 'B');
		}
	}
}

/* --------------------------------------------------------------- client */

static void client_failure(void)
{
	double t0, t;

	expect(sock, 'P', "the server's check of its path");
	still_armed(0, "primary");
	cut(1);
	printf("failure: %s written: %s loses what it sends on SL 0\n", CUT,
	       opt.dev);
	say(sock, 'f');
	t0 = now();
	exchange(0, 1, opt.count, "failure: SENDs with the primary path lost");
	t = now() - t0;
	wait_mig(0, "failure");
	printf("failure: %d SENDs completed in %.2f s, QP %#x migrated after %.2f s\n",
	       opt.count, t, qps[0]->qp_num, mig_at[0] - t0);
	check_path(0, IBV_MIG_MIGRATED, "failure");
	expect(sock, 'M', "the server's migration");
}

static void client_after(void)
{
	cut(0);
	printf("after: %s written\n", UNCUT);
	say(sock, 'a');
	exchange(0, 1, opt.count, "after: SENDs on the migrated path");
	exchange(0, 0, opt.count,
		 "after: the server's SENDs on its migrated path");
	check_path(0, IBV_MIG_MIGRATED, "after");
	printf("after: %d SENDs each way on the migrated paths\n", opt.count);
}

static void client_consumer(void)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .path_mig_state = IBV_MIG_MIGRATED,
	};

	say(sock, 'q');
	pair_up(1);
	modify(1, &a, IBV_QP_STATE | IBV_QP_PATH_MIG_STATE, "RTS, MIGRATED");
	check_path(1, IBV_MIG_MIGRATED, "consumer");
	wait_mig(1, "consumer");
	exchange(1, 1, CONSUMER_MSGS, "consumer: SENDs after the migration");
	expect(sock, 'M', "the server's migration of its second QP");
	printf("consumer: QP %#x migrated by modify_qp, %d SENDs then arrived\n",
	       qps[1]->qp_num, CONSUMER_MSGS);
}

static void client(void)
{
	pair_up(0);
	exchange(0, 1, opt.count, "primary: SENDs");
	printf("primary: %d SENDs of 1 to %d bytes completed\n", opt.count,
	       MSG_MAX);
	client_failure();
	client_after();
	client_consumer();
	say(sock, 'd');
}

/* --------------------------------------------------------------- server */

static void server(void)
{
	pair_up(0);
	exchange(0, 0, opt.count, "primary: messages");
	printf("primary: %d messages in order and intact\n", opt.count);
	still_armed(0, "primary");
	say(sock, 'P');
	expect(sock, 'f', "the primary path's failure");
	exchange(0, 0, opt.count, "failure: messages");
	wait_mig(0, "failure");
	check_path(0, IBV_MIG_MIGRATED, "failure");
	printf("failure: %d messages more in order and intact, QP %#x migrated\n",
	       opt.count, qps[0]->qp_num);
	say(sock, 'M');
	expect(sock, 'a', "the end of the loss");
	exchange(0, 0, opt.count, "after: messages on the migrated path");
	exchange(0, 1, opt.count, "after: SENDs on the migrated path");
	check_path(0, IBV_MIG_MIGRATED, "after");
	printf("after: %d messages each way on the migrated paths\n",
	       opt.count);
	expect(sock, 'q', "the second pair of QPs");
	pair_up(1);
	exchange(1, 0, CONSUMER_MSGS, "consumer: messages");
	wait_mig(1, "consumer");
	check_path(1, IBV_MIG_MIGRATED, "consumer");
	printf("consumer: %d messages in order and intact, QP %#x migrated on the client's MigReq\n",
	       CONSUMER_MSGS, qps[1]->qp_num);
	say(sock, 'M');
	expect(sock, 'd', "the end");
}

/* ----------------------------------------------------------------- main */

/* No event more came; then everything freed. */
static void teardown(void)
{
	drain_events();
	if (migs[0] != 1 || migs[1] != 1)
		die("IBV_EVENT_PATH_MIG came %d times on QP %#x, %d times on QP %#x, not once each",
		    migs[0], qps[0]->qp_num, migs[1], qps[1]->qp_num);
	if (ibv_destroy_qp(qps[1]) || ibv_destroy_qp(qps[0]) ||
	    ibv_dereg_mr(mr) || ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx))
		die("freeing the QPs, MR, CQ, PD and device: %s",
		    strerror(errno));
	free(mem);
	close(sock);
}

int main(int argc, char **argv)
{
	options(PROG, argc, argv, "MSGS", &opt);
	setvbuf(stdout, NULL, _IOLBF, 0);
	begin(PROG, opt.seconds);
	at_die = uncut;
	open_dev();
	sock = tcp_connect(opt.host, opt.port);
	if (opt.host)
		client();
	else
		server();
	teardown();
	printf(PROG ": OK\n");
	return 0;
}
