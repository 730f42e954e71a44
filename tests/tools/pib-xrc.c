// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-xrc: XRC (IBA annex A14) across hosts and processes. The server on
 * host1 is two processes, A (the one started) and B (its fork, before
 * either opens the device), each with its own device context, PD, CQ, MR
 * and XRC SRQ, in one XRC domain they share through a file: A creates it
 * (ibv_open_xrcd() with O_CREAT on a temporary file), B opens it by the
 * file's name (no O_CREAT: it must find A's domain). A creates the XRC TGT
 * QP, B opens it (ibv_open_qp()); it goes to RTR, never RTS. The client on
 * host2 has one XRC INI QP towards it, every request naming an SRQ:
 *
 *   sends     per round a SEND to SRQ A and one to SRQ B (1 to 3172 bytes,
 *             so also of several packets; every other one with immediate
 *             data), 16 rounds to a batch: each process finds exactly its
 *             own messages on its CQ, in order, byte-exact, of the right
 *             length, IBV_WC_RECV, with the immediate data where sent, on
 *             the TGT QP's number, and nothing more;
 *   rdma      RDMA WRITEs into A's MR and into B's (each naming its own
 *             SRQ, whose PD the R_Key belongs to), READs of both back, a
 *             FETCH_AND_ADD on a word of A's that returns its old value;
 *             A and B find the bytes and the sum in their memory;
 *   domain    on new QPs, a SEND naming an SRQ of another XRC domain (A's
 *             second, with no file) fails with a remote invalid RD
 *             request error;
 *   pd        on new QPs, a WRITE naming SRQ B with the R_Key of A's MR
 *             fails with a remote access error;
 *             after each of the two nothing arrived on any SRQ (the other
 *             domain's SRQ included) and no memory changed;
 *   lifetime  A destroys its handle of the TGT QP; two more SENDs to SRQ B
 *             reach B through the handle it opened.
 *
 * A refused request whose NAK the LAN lost ends with a retry-exceeded
 * error instead: its case is tried again on new QPs (3 tries at most).
 *
 *   pib-xrc --server -d DEV [-p PORT] [-n ROUNDS] [-t SECONDS]
 *   pib-xrc --client HOST -d DEV [-p PORT] [-n ROUNDS] [-t SECONDS]
 *
 * The TCP connection (port 18517 unless given) between the client and A
 * carries the QPs' and SRQs' numbers, the MRs' addresses and keys, and one
 * byte per step; A passes each step on to B over a socket pair. A's verdict
 * counts B's. The last line is "pib-xrc: OK" or "pib-xrc: FAILED:
 * <reason>"; the exit status 0 or 1 (2: bad usage). Nothing waits past -t
 * seconds (default 300).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include "tool.h"

#define PROG		"pib-xrc"
#define SLOTS		16	/* receives on each SRQ, rounds in a batch */
#define MSG_MAX		(3 * 1024 + 100)	/* the longest SEND */
#define REGION		4096	/* a server's RDMA target: its memory's start */
#define RDMA_LEN	3000	/* what the client WRITEs and READs back */
#define ATOMIC_OFF	3072	/* the FETCH_AND_ADD's word in the region */
#define ATOMIC_INIT	0x0123456789abcdefull
#define ADD		0x0000001000000001ull
#define RDMA_ROUND	0xfffffff0u	/* the pattern's "round" of the WRITEs */
#define BAD_ROUND	0xfffffff1u	/* and of the refused requests */
#define BAD_LEN		64
#define FILL		0xa5	/* memory no one wrote */
#define FOREIGN_ID	0xf0f0	/* the wr_id on the other domain's SRQ */
#define CLI_RDMA	(2 * SLOTS * MSG_MAX)	/* the client's RDMA buffers */
#define MEMSZ		((CLI_RDMA + 5 * REGION + 4095) / 4096 * 4096)
#define CQE		128
#define PSN		0x2345
#define TRIES		3
#define DONE		UINT32_MAX

/* What the client and A tell each other (the client: qpn, lid, rounds). */
struct peer {
	uint32_t qpn;		/* the TGT QP, or the client's INI QP */
	uint16_t lid;
	uint16_t pad;
	uint32_t rounds;	/* the client's */
	uint32_t srqn[2];	/* SRQ A, SRQ B */
	uint32_t rkey[2];	/* A's MR, B's MR */
	uint32_t other_srqn;	/* the SRQ in A's second XRC domain */
	uint64_t addr[2];
};

/* A to B: the domain's file and the TGT QP; B to A: its SRQ and MR. */
struct hello {
	char path[32];
	uint32_t qpn;
	uint32_t srqn;
	uint32_t rkey;
	uint32_t pad;
	uint64_t addr;
};

/* A to B: take @count messages, then see the region at @stage. */
struct order {
	uint32_t count;
	uint32_t stage;
};

static struct tool_opts opt = { .port = 18517, .count = 20, .seconds = 300 };
static int sock = -1, chan = -1;
static int me;			/* the server process: 0 A, 1 B */
static pid_t child = -1;	/* A's B */
static char made[32];		/* A's file, until it is unlinked */
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static struct ibv_xrcd *xrcd, *xrcd2;
static struct ibv_srq *srq, *fsrq;
static struct ibv_qp *tgt, *ini;
static uint32_t srqn, fsrqn, tgt_qpn, received;
static uint64_t posted, done;
static uint8_t *mem;
static struct peer peer;

/* On a failure (die()): B killed, the domain's file removed. */
static void undo(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (made[0])
		unlink(made);
}

/* Byte @i of the message of round @r to SRQ @d (0 A, 1 B). */
static uint8_t pat(uint32_t r, int d, uint32_t i)
{
	uint32_t x = (r + 1) * 0x9e3779b1u ^ (d + 1) * 0x85ebca6bu ^
		     i * 0x27d4eb2fu;

	return x ^ x >> 15 ^ x >> 24;
}

/* Its length: 1 and the longest in round 0, then spread out. */
static uint32_t msg_len(uint32_t r, int d)
{
	if (!r)
		return d ? MSG_MAX : 1;
	return 1 + (r * 1237u + d * 2000u) % MSG_MAX;
}

static int with_imm(uint32_t r, int d)
{
	return (r + d) & 1;
}

static uint32_t imm_of(uint32_t r, int d)
{
	return 0xc0de0000u | (r & 0x7fff) << 1 | d;
}

/* The server's memory: the region, the SRQ's slots, the other SRQ's. */
static uint8_t *slot(uint64_t i)
{
	return mem + REGION + i * MSG_MAX;
}

/* The client's: 0, 1 WRITE sources, 2, 3 READ targets, 4 the atomic's. */
static uint8_t *cbuf(int i)
{
	return mem + CLI_RDMA + i * REGION;
}

/* ---------------------------------------------------------------- verbs */

static void open_dev(void)
{
	struct ibv_device_attr da;

	ctx = dev_open(opt.dev);
	if (ibv_query_device(ctx, &da))
		die("ibv_query_device: %s", strerror(errno));
	if (!(da.device_cap_flags & IBV_DEVICE_XRC))
		die("%s does not report XRC (IBV_DEVICE_XRC)", opt.dev);
}

/* The XRC domain of the file open as @fd (-1: a new one, of no file). */
static struct ibv_xrcd *xrcd_open(int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd, .oflags = oflags,
	};
	struct ibv_xrcd *x = ibv_open_xrcd(ctx, &a);

	if (!x)
		die("ibv_open_xrcd (fd %d%s): %s", fd,
		    oflags & O_CREAT ? ", O_CREAT" : "", strerror(errno));
	return x;
}

/* An XRC SRQ in @x, on this process's PD and CQ; @n: its number. */
static struct ibv_srq *srq_create(struct ibv_xrcd *x, uint32_t *n)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 2 * SLOTS, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = x, .cq = cq,
	};
	struct ibv_srq *s = ibv_create_srq_ex(ctx, &a);
	int err;

	if (!s)
		die("ibv_create_srq_ex of an XRC SRQ: %s", strerror(errno));
	err = ibv_get_srq_num(s, n);
	if (err)
		die("ibv_get_srq_num: %s", strerror(err));
	return s;
}

/* A receive of up to MSG_MAX bytes into @buf, filled first. */
static void post_recv(struct ibv_srq *s, uint64_t id, uint8_t *buf)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = MSG_MAX, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int err;

	memset(buf, FILL, MSG_MAX);
	err = ibv_post_srq_recv(s, &wr, &bad);
	if (err)
		die("ibv_post_srq_recv: %s", strerror(err));
}

/*
 * This process's PD, CQ, memory (all FILL) and MR with @access; and for a
 * server, the atomic's word, and the XRC SRQ with SLOTS receives posted.
 */
static void setup(int access)
{
	uint64_t v = ATOMIC_INIT;
	uint32_t i;

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, CQE, NULL, NULL, 0);
	mem = aligned_alloc(4096, MEMSZ);
	if (!pd || !cq || !mem)
		die("PD, CQ and memory: %s", strerror(errno));
	memset(mem, FILL, MEMSZ);
	mr = ibv_reg_mr(pd, mem, MEMSZ, access);
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
	if (!xrcd)
		return;
	memcpy(mem + ATOMIC_OFF, &v, sizeof(v));
	srq = srq_create(xrcd, &srqn);
	for (i = 0; i < SLOTS; i++)
		post_recv(srq, i, slot(i));
}

static struct ibv_qp *tgt_create(void)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = xrcd,
	};
	struct ibv_qp *q = ibv_create_qp_ex(ctx, &a);

	if (!q)
		die("ibv_create_qp_ex of an XRC TGT QP: %s", strerror(errno));
	return q;
}

static struct ibv_qp *ini_create(void)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 64, .max_send_sge = 1 },
		.sq_sig_all = 1, .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
	};
	struct ibv_qp *q = ibv_create_qp_ex(ctx, &a);

	if (!q)
		die("ibv_create_qp_ex of an XRC INI QP: %s", strerror(errno));
	return q;
}

static void modify(struct ibv_qp *q, struct ibv_qp_attr *a, int mask,
		   const char *state)
{
	int err = ibv_modify_qp(q, a, mask);

	if (err)
		die("modify_qp of QP %#x to %s: %s", q->qp_num, state,
		    strerror(err));
}

/*
 * RESET -> INIT -> RTR, to the QP @qpn at @lid; an INI QP on to RTS with
 * @retry retries, a TGT QP (@is_tgt) stays in RTR (it sends no requests).
 */
static void qp_connect(struct ibv_qp *q, int is_tgt, uint32_t qpn,
		       uint16_t lid, int retry)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	if (is_tgt)
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
	modify(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qpn;
	a.rq_psn = PSN;
	a.ah_attr.dlid = lid;
	a.ah_attr.port_num = 1;
	/* (an INI QP takes no responder attributes: it has no RQ) */
	if (is_tgt) {
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	modify(q, &a, mask, "RTR");
	if (is_tgt)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = PSN;
	a.timeout = 14;
	a.retry_cnt = retry;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	modify(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "RTS");
}

/* ------------------------------------------------------ server: memory */

/* The region: FILL and the atomic's word, and at @stage 1 the WRITE. */
static void check_region(int stage)
{
	uint64_t v, want = ATOMIC_INIT + (stage && !me ? ADD : 0);
	uint32_t i;
	uint8_t b;

	memcpy(&v, mem + ATOMIC_OFF, sizeof(v));
	if (v != want)
		die("the atomic's word is %#llx, not %#llx",
		    (unsigned long long)v, (unsigned long long)want);
	for (i = 0; i < REGION; i++) {
		if (i >= ATOMIC_OFF && i < ATOMIC_OFF + 8)
			continue;
		b = stage && i < RDMA_LEN ? pat(RDMA_ROUND, me, i) : FILL;
		if (mem[i] != b)
			die("byte %u of the region is %#x, not %#x", i, mem[i], b);
	}
}

/* A completion where none should be. */
static void stray(const struct ibv_wc *wc)
{
	if (wc->wr_id == FOREIGN_ID)
		die("a message reached the SRQ of the other XRC domain (%s)",
		    ibv_wc_status_str(wc->status));
	die("a completion too many on SRQ %#x's CQ: wr_id %llu, %s, %u bytes",
	    srqn, (unsigned long long)wc->wr_id,
	    ibv_wc_status_str(wc->status), wc->byte_len);
}

/* Whether @wc holds the other process's message of round @r. */
static int others(const struct ibv_wc *wc, uint32_t r)
{
	const uint8_t *buf = slot(wc->wr_id);
	uint32_t i, len = msg_len(r, !me);

	if (wc->byte_len != len)
		return 0;
	for (i = 0; i < len && buf[i] == pat(r, !me, i); i++)
		;
	return i == len;
}

/* The receive of message @r (this process's round @r) in @wc. */
static void check_recv(const struct ibv_wc *wc, uint32_t r)
{
	uint32_t i, len = msg_len(r, me), imm = with_imm(r, me);
	const uint8_t *buf;
	uint8_t b;

	if (wc->wr_id >= SLOTS)
		stray(wc);
	if (wc->status != IBV_WC_SUCCESS)
		die("message %u: %s", r, ibv_wc_status_str(wc->status));
	if (others(wc, r))
		die("message %u: SRQ %c's arrived on SRQ %#x", r, "AB"[!me], srqn);
	if (wc->opcode != IBV_WC_RECV || wc->qp_num != tgt_qpn)
		die("message %u: opcode %d on QP %#x, not a RECV on TGT QP %#x",
		    r, wc->opcode, wc->qp_num, tgt_qpn);
	if (!(wc->wc_flags & IBV_WC_WITH_IMM) != !imm)
		die("message %u: %s immediate data", r,
		    imm ? "without its" : "with");
	if (imm && ntohl(wc->imm_data) != imm_of(r, me))
		die("message %u: immediate data %#x, not %#x", r,
		    ntohl(wc->imm_data), imm_of(r, me));
	if (wc->byte_len != len)
		die("message %u: %u bytes, not %u", r, wc->byte_len, len);
	buf = slot(wc->wr_id);
	for (i = 0; i < MSG_MAX; i++) {
		b = i < len ? pat(r, me, i) : FILL;
		if (buf[i] != b)
			die("message %u of %u bytes: byte %u is %#x, not %#x",
			    r, len, i, buf[i], b);
	}
}

/*
 * Take @count messages more from this process's CQ (each checked, its
 * receive posted again), see nothing more came and the region is at @stage.
 */
static void take(uint32_t count, int stage)
{
	struct ibv_wc wc;
	int n;

	while (count) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq: %d", n);
		if (!n) {
			if (now() > deadline)
				die("%u messages missing on SRQ %#x at the deadline",
				    count, srqn);
			usleep(100);
			continue;
		}
		check_recv(&wc, received++);
		post_recv(srq, wc.wr_id, slot(wc.wr_id));
		count--;
	}
	n = ibv_poll_cq(cq, 1, &wc);
	if (n < 0)
		die("ibv_poll_cq: %d", n);
	if (n)
		stray(&wc);
	check_region(stage);
}

/* --------------------------------------------------------- server: A */

/* A takes @ka messages, B @kb, both then check the region at @stage. */
static void both(uint32_t ka, uint32_t kb, int stage)
{
	struct order o = { .count = kb, .stage = stage };

	io(chan, &o, sizeof(o), 1);
	take(ka, stage);
	expect(chan, 'K', "process B's check");
}

/* One try of a refused request, on a new TGT QP; 1 if another follows. */
static int server_refused(const char *what)
{
	struct ibv_qp *t;
	uint32_t qpn;
	char c;

	expect(sock, 'x', what);
	t = tgt_create();
	qpn = t->qp_num;
	io(sock, &qpn, sizeof(qpn), 1);
	io(sock, &qpn, sizeof(qpn), 0);
	qp_connect(t, 1, qpn, peer.lid, 0);
	say(sock, 'c');
	io(sock, &c, 1, 0);
	if (c != 'v' && c != 'r')
		die("%s: the peer said '%c'", what, c);
	both(0, 0, 1);
	if (ibv_destroy_qp(t))
		die("destroying TGT QP %#x: %s", qpn, strerror(errno));
	say(sock, 'V');
	if (c == 'r')
		return 1;
	printf("%s: nothing arrived on any SRQ, no memory changed\n", what);
	return 0;
}

static void server_lifetime(void)
{
	expect(sock, 'l', "the lifetime check");
	if (ibv_destroy_qp(tgt))
		die("destroying A's handle of the TGT QP: %s", strerror(errno));
	tgt = NULL;
	say(sock, 'L');
	expect(sock, 'm', "the SENDs after A destroyed its TGT QP handle");
	both(0, 2, 1);
	say(sock, 'M');
	printf("lifetime: A destroyed its handle of TGT QP %#x, B still received 2 messages on it\n",
	       tgt_qpn);
}

/* A's part, step by step as the client goes, for @n rounds. */
static void server(uint32_t n)
{
	uint32_t r, k;

	for (r = 0; r < n; r += k) {
		k = n - r < SLOTS ? n - r : SLOTS;
		expect(sock, 'b', "a batch of SENDs");
		both(k, k, 0);
		say(sock, 'B');
	}
	printf("sends: %u messages on SRQ %#x (A) in order and intact, B's checked by B\n",
	       n, srqn);
	expect(sock, 'w', "the RDMA operations");
	both(0, 0, 1);
	say(sock, 'W');
	printf("rdma: A and B found the WRITEs in their MRs, A the FETCH_AND_ADD's sum\n");
	while (server_refused("domain"))
		;
	while (server_refused("pd"))
		;
	server_lifetime();
	expect(sock, 'd', "the end");
}

/* The temporary file, its XRC domain, and A's second domain (no file). */
static void domains(struct hello *h)
{
	int fd = mkstemp(h->path);

	if (fd < 0)
		die("mkstemp %s: %s", h->path, strerror(errno));
	strcpy(made, h->path);
	xrcd = xrcd_open(fd, O_CREAT);
	close(fd);
	xrcd2 = xrcd_open(-1, O_CREAT);
}

/* B's end: its exit status, waited for no longer than the deadline. */
static int reap(void)
{
	pid_t r;
	int st;

	while ((r = waitpid(child, &st, WNOHANG)) == 0) {
		if (now() > deadline)
			die("process B did not end by the deadline");
		usleep(10000);
	}
	if (r < 0)
		die("waitpid: %s", strerror(errno));
	child = -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void teardown(void);

static void process_a(void)
{
	struct hello h = { .path = "/tmp/pib-xrc.XXXXXX" };
	struct order o = { .count = DONE };
	struct peer mine;
	int st;

	open_dev();
	domains(&h);
	setup(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	fsrq = srq_create(xrcd2, &fsrqn);
	post_recv(fsrq, FOREIGN_ID, slot(SLOTS));
	tgt = tgt_create();
	tgt_qpn = h.qpn = tgt->qp_num;
	io(chan, &h, sizeof(h), 1);
	io(chan, &h, sizeof(h), 0);
	unlink(made);
	made[0] = 0;
	printf("A: TGT QP %#x, SRQ %#x; B: SRQ %#x; the other domain's SRQ %#x\n",
	       tgt_qpn, srqn, h.srqn, fsrqn);
	mine = (struct peer){
		.qpn = tgt_qpn, .lid = port_lid(ctx), .srqn = { srqn, h.srqn },
		.rkey = { mr->rkey, h.rkey }, .other_srqn = fsrqn,
		.addr = { (uintptr_t)mem, h.addr },
	};
	sock = tcp_connect(opt.host, opt.port);
	io(sock, &mine, sizeof(mine), 1);
	io(sock, &peer, sizeof(peer), 0);
	qp_connect(tgt, 1, peer.qpn, peer.lid, 0);
	say(sock, 'c');
	expect(sock, 'c', "connecting the QPs");
	server(peer.rounds);
	io(chan, &o, sizeof(o), 1);
	st = reap();
	teardown();
	if (st)
		die("process B failed (exit status %d)", st);
}

/* --------------------------------------------------------- server: B */

static void process_b(void)
{
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct order o;
	struct hello h;
	int fd;

	io(chan, &h, sizeof(h), 0);
	h.path[sizeof(h.path) - 1] = 0;
	open_dev();
	fd = open(h.path, O_RDONLY);
	if (fd < 0)
		die("opening %s: %s", h.path, strerror(errno));
	xrcd = xrcd_open(fd, 0);
	close(fd);
	setup(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	oa.qp_num = tgt_qpn = h.qpn;
	oa.xrcd = xrcd;
	tgt = ibv_open_qp(ctx, &oa);
	if (!tgt)
		die("ibv_open_qp of TGT QP %#x: %s", h.qpn, strerror(errno));
	if (tgt->qp_num != tgt_qpn)
		die("ibv_open_qp of TGT QP %#x opened %#x", h.qpn, tgt->qp_num);
	h = (struct hello){ .srqn = srqn, .rkey = mr->rkey,
			    .addr = (uintptr_t)mem };
	io(chan, &h, sizeof(h), 1);
	printf("B: opened the XRC domain by its file, TGT QP %#x; SRQ %#x\n",
	       tgt_qpn, srqn);
	for (;;) {
		io(chan, &o, sizeof(o), 0);
		if (o.count == DONE)
			break;
		take(o.count, o.stage);
		say(chan, 'K');
	}
	printf("B: %u messages on SRQ %#x in order and intact, the last 2 after A destroyed its TGT QP handle\n",
	       received, srqn);
	teardown();
}

/* --------------------------------------------------------------- client */

/* Post @wr, signaled, of @len bytes at @buf; its wr_id the next number. */
static void post(struct ibv_qp *q, const struct ibv_send_wr *wr, uint8_t *buf,
		 uint32_t len, const char *what)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey,
	};
	struct ibv_send_wr w = *wr, *bad;
	int err;

	w.wr_id = posted++;
	w.sg_list = &sge;
	w.num_sge = 1;
	w.send_flags = IBV_SEND_SIGNALED;
	err = ibv_post_send(q, &w, &bad);
	if (err)
		die("posting %s: %s", what, strerror(err));
}

/* The next completion, which must be of the next WR posted. */
static void next_wc(struct ibv_wc *wc, const char *what)
{
	int k;

	while (!(k = ibv_poll_cq(cq, 1, wc))) {
		if (now() > deadline)
			die("%s: a completion missing at the deadline", what);
		usleep(100);
	}
	if (k < 0)
		die("%s: ibv_poll_cq: %d", what, k);
	if (wc->wr_id != done)
		die("%s: completion of WR %llu, not %llu", what,
		    (unsigned long long)wc->wr_id, (unsigned long long)done);
	done++;
}

/* @n completions, in order, each of status @want. */
static void wait_wcs(int n, enum ibv_wc_status want, const char *what)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++) {
		next_wc(&wc, what);
		if (wc.status != want)
			die("%s: completion %d of %d: %s, not %s", what, i, n,
			    ibv_wc_status_str(wc.status),
			    ibv_wc_status_str(want));
	}
}

/* The SEND of round @r to SRQ @d, its bytes in a buffer of its own. */
static void post_msg(uint32_t r, int d)
{
	uint8_t *buf = mem + ((r % SLOTS) * 2 + d) * MSG_MAX;
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };
	uint32_t i, len = msg_len(r, d);

	for (i = 0; i < len; i++)
		buf[i] = pat(r, d, i);
	if (with_imm(r, d)) {
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htonl(imm_of(r, d));
	}
	wr.qp_type.xrc.remote_srqn = peer.srqn[d];
	post(ini, &wr, buf, len, "a SEND");
}

static void client_sends(uint32_t n)
{
	uint32_t r, k, i;

	for (r = 0; r < n; r += k) {
		k = n - r < SLOTS ? n - r : SLOTS;
		for (i = r; i < r + k; i++) {
			post_msg(i, 0);
			post_msg(i, 1);
		}
		wait_wcs(2 * k, IBV_WC_SUCCESS, "SENDs to SRQ A and SRQ B");
		say(sock, 'b');
		expect(sock, 'B', "the servers' check of the SENDs");
	}
	printf("sends: %u rounds of a SEND to SRQ %#x (A) and one to SRQ %#x (B), 1 to %d bytes, found there\n",
	       n, peer.srqn[0], peer.srqn[1], MSG_MAX);
}

/* An RDMA WRITE or READ of RDMA_LEN bytes of @d's region, naming SRQ @d. */
static void post_rdma(enum ibv_wr_opcode op, int d, uint8_t *buf)
{
	struct ibv_send_wr wr = { .opcode = op };

	wr.qp_type.xrc.remote_srqn = peer.srqn[d];
	wr.wr.rdma.remote_addr = peer.addr[d];
	wr.wr.rdma.rkey = peer.rkey[d];
	post(ini, &wr, buf, RDMA_LEN, "an RDMA WRITE or READ");
}

/* A FETCH_AND_ADD on A's word, naming SRQ A: the value it had. */
static uint64_t fetch_add(void)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD };
	uint64_t v;

	wr.qp_type.xrc.remote_srqn = peer.srqn[0];
	wr.wr.atomic.remote_addr = peer.addr[0] + ATOMIC_OFF;
	wr.wr.atomic.rkey = peer.rkey[0];
	wr.wr.atomic.compare_add = ADD;
	memset(cbuf(4), 0, sizeof(v));
	post(ini, &wr, cbuf(4), sizeof(v), "a FETCH_AND_ADD");
	wait_wcs(1, IBV_WC_SUCCESS, "the FETCH_AND_ADD on A");
	memcpy(&v, cbuf(4), sizeof(v));
	return v;
}

static void client_rdma(void)
{
	uint64_t v;
	uint32_t i;
	int d;

	for (d = 0; d < 2; d++) {
		for (i = 0; i < RDMA_LEN; i++)
			cbuf(d)[i] = pat(RDMA_ROUND, d, i);
		post_rdma(IBV_WR_RDMA_WRITE, d, cbuf(d));
	}
	wait_wcs(2, IBV_WC_SUCCESS, "the RDMA WRITEs to A and B");
	for (d = 0; d < 2; d++) {
		memset(cbuf(2 + d), 0, RDMA_LEN);
		post_rdma(IBV_WR_RDMA_READ, d, cbuf(2 + d));
	}
	wait_wcs(2, IBV_WC_SUCCESS, "the RDMA READs from A and B");
	for (d = 0; d < 2; d++)
		if (memcmp(cbuf(d), cbuf(2 + d), RDMA_LEN))
			die("the READ from %c is not what was written", 'A' + d);
	v = fetch_add();
	if (v != ATOMIC_INIT)
		die("the FETCH_AND_ADD returned %#llx, not %#llx",
		    (unsigned long long)v, ATOMIC_INIT);
	say(sock, 'w');
	expect(sock, 'W', "the servers' memory after the RDMA operations");
	printf("rdma: %d bytes written to A and B and read back, FETCH_AND_ADD on A returned %#llx\n",
	       RDMA_LEN, (unsigned long long)v);
}

static const char *const refused[] = {
	"domain: a SEND naming the SRQ of another XRC domain",
	"pd: a WRITE naming SRQ B with the R_Key of A's MR",
};

/*
 * Try @try of refused request @pd_case on new QPs: the SEND to the other
 * domain's SRQ, or the WRITE naming SRQ B with A's R_Key. 1 if the NAK
 * was lost (the retries exceeded) and another try follows.
 */
static int client_refused(int pd_case, enum ibv_wc_status want, int try)
{
	const char *what = refused[pd_case];
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };
	struct ibv_qp *q = ini_create();
	uint32_t i, qpn = q->qp_num;
	struct ibv_wc wc;
	int lost;

	say(sock, 'x');
	io(sock, &qpn, sizeof(qpn), 1);
	io(sock, &qpn, sizeof(qpn), 0);
	qp_connect(q, 0, qpn, peer.lid, 3);
	expect(sock, 'c', what);
	for (i = 0; i < BAD_LEN; i++)
		cbuf(0)[i] = pat(BAD_ROUND, 0, i);
	wr.qp_type.xrc.remote_srqn = peer.other_srqn;
	if (pd_case) {
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.qp_type.xrc.remote_srqn = peer.srqn[1];
		wr.wr.rdma.remote_addr = peer.addr[0];
		wr.wr.rdma.rkey = peer.rkey[0];
	}
	post(q, &wr, cbuf(0), BAD_LEN, what);
	next_wc(&wc, what);
	lost = wc.status == IBV_WC_RETRY_EXC_ERR && try < TRIES;
	if (wc.status != want && !lost)
		die("%s (try %d): %s, not %s", what, try,
		    ibv_wc_status_str(wc.status), ibv_wc_status_str(want));
	say(sock, lost ? 'r' : 'v');
	expect(sock, 'V', what);
	if (ibv_destroy_qp(q))
		die("destroying INI QP %#x: %s", q->qp_num, strerror(errno));
	if (lost)
		printf("%s: try %d, its NAK lost (%s)\n", what, try,
		       ibv_wc_status_str(wc.status));
	else
		printf("%s: %s\n", what, ibv_wc_status_str(wc.status));
	return lost;
}

static void client_lifetime(uint32_t n)
{
	say(sock, 'l');
	expect(sock, 'L', "A's destroy of its TGT QP handle");
	post_msg(n, 1);
	post_msg(n + 1, 1);
	wait_wcs(2, IBV_WC_SUCCESS, "SENDs to SRQ B after A's destroy");
	say(sock, 'm');
	expect(sock, 'M', "B's check of the SENDs after A's destroy");
	printf("lifetime: 2 SENDs to SRQ %#x (B) after A destroyed its TGT QP handle, found there\n",
	       peer.srqn[1]);
}

static void client(void)
{
	struct peer mine = { .rounds = opt.count };
	int try;

	open_dev();
	setup(IBV_ACCESS_LOCAL_WRITE);
	ini = ini_create();
	mine.qpn = ini->qp_num;
	mine.lid = port_lid(ctx);
	sock = tcp_connect(opt.host, opt.port);
	io(sock, &mine, sizeof(mine), 1);
	io(sock, &peer, sizeof(peer), 0);
	printf("INI QP %#x to TGT QP %#x: SRQ A %#x, SRQ B %#x, the other domain's SRQ %#x\n",
	       ini->qp_num, peer.qpn, peer.srqn[0], peer.srqn[1],
	       peer.other_srqn);
	qp_connect(ini, 0, peer.qpn, peer.lid, 7);
	say(sock, 'c');
	expect(sock, 'c', "connecting the QPs");
	client_sends(opt.count);
	client_rdma();
	for (try = 1; client_refused(0, IBV_WC_REM_INV_RD_REQ_ERR, try); try++)
		;
	for (try = 1; client_refused(1, IBV_WC_REM_ACCESS_ERR, try); try++)
		;
	client_lifetime(opt.count);
	say(sock, 'd');
	teardown();
}

/* ----------------------------------------------------------------- main */

/* What this process holds, in order (B's TGT QP handle, A's is gone). */
static void teardown(void)
{
	if ((tgt && ibv_destroy_qp(tgt)) || (ini && ibv_destroy_qp(ini)) ||
	    (fsrq && ibv_destroy_srq(fsrq)) || (srq && ibv_destroy_srq(srq)) ||
	    ibv_dereg_mr(mr) || ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) ||
	    (xrcd2 && ibv_close_xrcd(xrcd2)) || (xrcd && ibv_close_xrcd(xrcd)) ||
	    ibv_close_device(ctx))
		die("freeing the QPs, SRQs, MR, CQ, PD, XRC domains and device: %s",
		    strerror(errno));
	free(mem);
	if (sock >= 0)
		close(sock);
	if (chan >= 0)
		close(chan);
}

int main(int argc, char **argv)
{
	int sv[2];

	options(PROG, argc, argv, "ROUNDS", &opt);
	setvbuf(stdout, NULL, _IOLBF, 0);
	begin(PROG, opt.seconds);
	at_die = undo;
	if (opt.host) {
		client();
		printf(PROG ": OK\n");
		return 0;
	}
	/* B and A part before either opens the device. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair: %s", strerror(errno));
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		close(sv[0]);
		chan = sv[1];
		me = 1;
		who = "process B: ";
		pair_name = "the socket pair to process A";
		process_b();
		return 0;
	}
	close(sv[1]);
	chan = sv[0];
	pair_name = "the socket pair to process B";
	process_a();
	printf(PROG ": OK\n");
	return 0;
}
