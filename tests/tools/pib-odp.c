// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-odp: On-Demand Paging (IBV_ACCESS_ON_DEMAND MRs) across hosts, over
 * one RC QP: the client's requests, the server's memory. Every MR is ODP,
 * over memory mmap()ed for it (MAP_PRIVATE | MAP_ANONYMOUS, no huge pages)
 * that nothing touched before ibv_reg_mr(), and that the registration must
 * leave so (mincore(): no page resident). So the first access to a page, on
 * either side, has the device fault it in; a responder answers meanwhile
 * with an RNR NAK, so both QPs have min_rnr_timer 1 and rnr_retry 7. The
 * device must report ODP (ibv_query_device_ex()), for RC with SEND, RECV,
 * WRITE, READ and ATOMIC. First, once:
 *
 *   prefetch      the server's ibv_advise_mr(PREFETCH_WRITE, FLUSH) over
 *                 a second MR of 16 pages returns 0 with every page
 *                 resident, and fails with an L_Key of no MR; the client's
 *                 WRITE over all but the MR's first and last 100 bytes
 *                 lands there, byte-exact;
 *
 * then per round (-n rounds, each with patterns of its own):
 *
 *   send          the client SENDs 6 messages of 1 to 12388 bytes (up to
 *                 13 packets at MTU 1024) into the server's receives: each
 *                 arrives in order, of its length, byte-exact, and after
 *                 its end the buffer holds what it held: zeros (the first
 *                 round's pages were never touched; every other round's
 *                 were dropped with MADV_DONTNEED after the receives were
 *                 posted) or the fill byte. Every other round the client
 *                 drops its send buffers before it fills them;
 *   write/read    the client WRITEs 12588 bytes over 4 pages of the
 *                 server's RDMA region, which the server finds there (and
 *                 zeros on the rest of those pages), then READs them back
 *                 into a part of its own MR (untouched in the first round)
 *                 and finds them there;
 *   atomics       a FETCH_AND_ADD, a CMP_AND_SWP that swaps and one that
 *                 does not, on a word of the region on a page of its own:
 *                 each returns the word's old value, and the server finds
 *                 the swapped value there;
 *   invalidation  the server drops its whole RDMA region (MADV_DONTNEED);
 *                 the client WRITEs a new pattern, which the server must
 *                 find in the new zero-filled pages, with nothing else (the
 *                 atomic word is gone too): the device wrote no freed page.
 *                 The client drops its READ target and READs the pattern
 *                 again: it must be in the client's new pages.
 *
 * And last:
 *
 *   errors        the server munmap()s the middle page of a third MR after
 *                 registering it; the client's WRITE into that page
 *                 completes with a remote access error, and the MR's other
 *                 pages stay zero. A retry-exceeded error is taken too,
 *                 said so: the NAK was lost, and the server's QP, in error
 *                 since it sent it, does not answer the retries.
 *
 *   pib-odp --server -d DEV [-p PORT] [-n ROUNDS] [-t SECONDS]
 *   pib-odp --client HOST -d DEV [-p PORT] [-n ROUNDS] [-t SECONDS]
 *
 * The TCP connection (port 18519 unless given) carries the QPs' numbers and
 * first PSNs, the LIDs, the client's -n, the server's MRs' addresses and
 * R_Keys, and one byte per step. The last line is "pib-odp: OK" or
 * "pib-odp: FAILED: <reason>"; the exit status 0 or 1 (2: bad usage).
 * Nothing waits past -t seconds (default 300; a verb call that does not
 * return is cut off a second later).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include "tool.h"

#define PROG		"pib-odp"
#define PAGE		4096
#define NMSG		6	/* SENDs per round, receives posted */
#define MSG_MAX		(3 * PAGE + 100)	/* the longest SEND */
#define SLOT		(4 * PAGE)	/* a send or receive buffer's pages */
#define FILL		0xa5	/* a receive buffer's bytes, when filled */
#define SENTINEL	0x5a5a5a5a5a5a5a5aull	/* an atomic's result before */
/* The server's RDMA region: the WRITEs' 4 pages, the atomic's on its own. */
#define RDMA_PAGES	16
#define WR_PAGES	4
#define WR_OFF		100
#define WR_LEN		(3 * PAGE + 300)
#define ATOM_OFF	(8 * PAGE + 24)
/* The server's prefetched MR, and its MR with a hole. */
#define PF_PAGES	16
#define PF_OFF		100
#define PF_LEN		(PF_PAGES * PAGE - 2 * PF_OFF)
#define ERR_PAGES	16
#define HOLE		8	/* the page unmapped */
#define ERR_OFF		(HOLE * PAGE + 100)
#define ERR_LEN		200
/* The client's MR, in pages: send buffers, WRITE source, READ target, ... */
#define C_SEND		0
#define C_WRITE		(NMSG * SLOT / PAGE)
#define C_READ		(C_WRITE + WR_PAGES)
#define RD_OFF		3000	/* (another alignment than the server's) */
#define C_ATOM		(C_READ + WR_PAGES)
#define C_SRC		(C_ATOM + 1)	/* the prefetch's and errors' WRITEs */
#define C_PAGES		(C_SRC + PF_PAGES)
/* Pattern kinds beside the messages (0 to NMSG - 1). */
#define K_WRITE		16
#define K_INVAL		17
#define K_PF		18
#define K_ERR		19
#define CQE		64
#define ODP_RC		(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | \
			 IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ | \
			 IBV_ODP_SUPPORT_ATOMIC)

/* What the two tell each other; the MRs are the server's. */
enum { MR_RDMA, MR_PF, MR_ERR, NMR };

struct peer {
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint16_t pad;
	uint32_t rounds;	/* the client's -n */
	uint64_t addr[NMR];
	uint32_t rkey[NMR];
	uint32_t pad2;
};

/* Memory mmap()ed for one ODP MR. */
struct region {
	uint8_t *mem;
	size_t pages;
	struct ibv_mr *mr;
};

/* The cases that run per round, and the time each took. */
enum { C_SEND_CASE, C_RDMA_CASE, C_ATOMIC_CASE, C_INVAL_CASE, NCASE };

static struct tool_opts opt = { .port = 18519, .count = 20, .seconds = 300 };
static int sock = -1;
static double spent[NCASE], first[NCASE];
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
/* The server's: receives, RDMA region, prefetched, with a hole; the client's. */
static struct region recvs, rdma, pf, holed, cli;
static uint64_t posted, done;
static struct peer peer;

/* Byte @i of pattern @kind (a message's number, or K_*) of round @r. */
static uint8_t pat(uint32_t r, uint32_t kind, uint32_t i)
{
	uint32_t x = (r + 1) * 0x9e3779b1u ^ (kind + 1) * 0x85ebca6bu ^
		     i * 0x27d4eb2fu;

	return x ^ x >> 15 ^ x >> 24;
}

/* Message @k's length: 1 byte to 3 pages and 100 bytes. */
static uint32_t msg_len(int k)
{
	static const uint32_t len[NMSG] = {
		1, 777, PAGE, PAGE + 1, 2 * PAGE + 13, MSG_MAX,
	};

	return len[k];
}

/* Where message @k lies: the server's receive, the client's send. */
static uint8_t *recv_buf(int k)
{
	return recvs.mem + k * SLOT + k * 61;
}

static uint8_t *send_buf(int k)
{
	return cli.mem + C_SEND * PAGE + k * SLOT + k * 97 + 33;
}

/* What a receive buffer holds after the message in round @r. */
static uint8_t recv_tail(uint32_t r)
{
	return r & 1 ? FILL : 0;
}

/* The atomics' operands in round @r (the word is 0 before them). */
static uint64_t add_of(uint32_t r)
{
	return 0x0000000100000001ull + ((uint64_t)r << 8);
}

static uint64_t swap_of(uint32_t r)
{
	return 0xfedcba9876543210ull ^ r;
}

/* Case @c of round @r, begun at @t0, is done. */
static void took(int c, uint32_t r, double t0)
{
	double t = now() - t0;

	spent[c] += t;
	if (!r)
		first[c] = t;
}

/* --------------------------------------------------------------- memory */

/* How many of the @pages pages at @p are resident (mincore()). */
static size_t resident(const uint8_t *p, size_t pages)
{
	unsigned char vec[64];
	size_t i, n = 0;

	if (pages > sizeof(vec))
		die("resident(): %zu pages, more than %zu", pages, sizeof(vec));
	if (mincore((void *)p, pages * PAGE, vec))
		die("mincore of %zu pages: %s", pages, strerror(errno));
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n;
}

/*
 * @pages pages freshly mmap()ed into @g (never huge pages: a fault must
 * bring in its page only) and registered as an ODP MR with @access; the
 * registration must not have touched them.
 */
static void odp_region(struct region *g, size_t pages, int access,
		       const char *what)
{
	size_t n;

	g->pages = pages;
	g->mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->mem == MAP_FAILED)
		die("mmap of %zu pages for %s: %s", pages, what, strerror(errno));
	if (madvise(g->mem, pages * PAGE, MADV_NOHUGEPAGE) && errno != EINVAL)
		die("madvise MADV_NOHUGEPAGE: %s", strerror(errno));
	g->mr = ibv_reg_mr(pd, g->mem, pages * PAGE,
			   access | IBV_ACCESS_ON_DEMAND);
	if (!g->mr)
		die("ibv_reg_mr with IBV_ACCESS_ON_DEMAND of %zu pages for %s: %s",
		    pages, what, strerror(errno));
	n = resident(g->mem, pages);
	if (n)
		die("%s: ibv_reg_mr with IBV_ACCESS_ON_DEMAND made %zu of its %zu untouched pages resident (it must fault them on demand)",
		    what, n, pages);
}

/* Drop @pages pages at @p (MADV_DONTNEED: zero-filled pages from now). */
static void drop(uint8_t *p, size_t pages, const char *what)
{
	if (madvise(p, pages * PAGE, MADV_DONTNEED))
		die("%s: madvise MADV_DONTNEED of %zu pages: %s", what, pages,
		    strerror(errno));
}

/*
 * The @pages pages at @p hold pattern @kind of round @r at [@off, @off +
 * @len), zeros elsewhere.
 */
static void check_pages(const uint8_t *p, size_t pages, uint32_t off,
			uint32_t len, uint32_t r, uint32_t kind,
			const char *what)
{
	size_t i;
	uint8_t b;

	for (i = 0; i < pages * PAGE; i++) {
		b = i >= off && i < off + len ? pat(r, kind, i - off) : 0;
		if (p[i] != b)
			die("%s (round %u): byte %zu of the %zu pages is %#x, not %#x%s",
			    what, r + 1, i, pages, p[i], b,
			    i >= off && i < off + len ? "" :
			    " (outside what was written)");
	}
}

/* ---------------------------------------------------------------- verbs */

/* The device reports ODP, for RC with SEND, RECV, WRITE, READ, ATOMIC. */
static void check_odp(void)
{
	struct ibv_device_attr_ex da;
	uint32_t rc;
	int err;

	memset(&da, 0, sizeof(da));
	err = ibv_query_device_ex(ctx, NULL, &da);
	if (err)
		die("ibv_query_device_ex: %s", strerror(err));
	rc = da.odp_caps.per_transport_caps.rc_odp_caps;
	if (!(da.odp_caps.general_caps & IBV_ODP_SUPPORT))
		die("%s does not report ODP (general_caps %#llx lacks IBV_ODP_SUPPORT)",
		    opt.dev, (unsigned long long)da.odp_caps.general_caps);
	if ((rc & ODP_RC) != ODP_RC)
		die("%s's ODP for RC (rc_odp_caps %#x) lacks %#x of SEND, RECV, WRITE, READ and ATOMIC (%#x)",
		    opt.dev, rc, ODP_RC & ~rc, ODP_RC);
	printf("odp: general_caps %#llx, rc_odp_caps %#x\n",
	       (unsigned long long)da.odp_caps.general_caps, rc);
}

static void open_dev(void)
{
	if (sysconf(_SC_PAGESIZE) != PAGE)
		die("the page size is %ld, not %d", sysconf(_SC_PAGESIZE), PAGE);
	ctx = dev_open(opt.dev);
	check_odp();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, CQE, NULL, NULL, 0);
	if (!pd || !cq)
		die("PD and CQ: %s", strerror(errno));
}

static void qp_create(void)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = NMSG,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	qp = ibv_create_qp(pd, &a);
	if (!qp)
		die("ibv_create_qp: %s", strerror(errno));
}

static void modify(struct ibv_qp_attr *a, int mask, const char *to)
{
	int err = ibv_modify_qp(qp, a, mask);

	if (err)
		die("modify_qp of QP %#x to %s: %s", qp->qp_num, to,
		    strerror(err));
}

/*
 * RESET -> INIT -> RTR -> RTS to the peer's QP at its LID; the server's
 * QP takes remote WRITEs, READs and atomics. A page fault is an RNR NAK:
 * the responder asks for the shortest wait, the requester retries forever.
 */
static void qp_connect(uint32_t my_psn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	if (!opt.host)
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
	modify(&a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer.qpn;
	a.rq_psn = peer.psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.dlid = peer.lid;
	a.ah_attr.port_num = 1;
	modify(&a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = my_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	modify(&a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "RTS");
}

/*
 * Tell the peer this side's QP, first PSN, LID, -n and (@mine) MRs; take
 * its; connect the QPs.
 */
static void pair_up(struct peer *mine)
{
	mine->qpn = qp->qp_num;
	mine->psn = (uint32_t)lrand48() & 0xffffff;
	mine->lid = port_lid(ctx);
	mine->rounds = opt.count;
	sock = tcp_connect(opt.host, opt.port);
	io(sock, mine, sizeof(*mine), 1);
	io(sock, &peer, sizeof(peer), 0);
	printf("QP %#x (LID %u, PSN %#x) to QP %#x (LID %u, PSN %#x)\n",
	       mine->qpn, mine->lid, mine->psn, peer.qpn, peer.lid, peer.psn);
	qp_connect(mine->psn);
}

/* Both sides' QPs are connected (the server's receives posted). */
static void ready(void)
{
	say(sock, 'c');
	expect(sock, 'c', "connecting the QPs");
}

/* The next completion, waited for no longer than the deadline. */
static void poll_wc(struct ibv_wc *wc, const char *what)
{
	int k;

	while (!(k = ibv_poll_cq(cq, 1, wc))) {
		if (now() > deadline)
			die("%s: a completion missing at the deadline", what);
		usleep(100);
	}
	if (k < 0)
		die("%s: ibv_poll_cq: %d", what, k);
}

/* The next completion, which must be of the next WR posted. */
static void next_wc(struct ibv_wc *wc, const char *what)
{
	poll_wc(wc, what);
	if (wc->wr_id != done)
		die("%s: completion of WR %llu, not %llu", what,
		    (unsigned long long)wc->wr_id, (unsigned long long)done);
	done++;
}

/* @n completions, in order, each successful. */
static void wait_wcs(int n, const char *what)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++) {
		next_wc(&wc, what);
		if (wc.status != IBV_WC_SUCCESS)
			die("%s: completion %d of %d: %s", what, i + 1, n,
			    ibv_wc_status_str(wc.status));
	}
}

/* --------------------------------------------------------------- server */

/* A receive of up to MSG_MAX bytes into message @k's buffer. */
static void post_recv(int k)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_buf(k), .length = MSG_MAX,
		.lkey = recvs.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int err;

	err = ibv_post_recv(qp, &wr, &bad);
	if (err)
		die("ibv_post_recv: %s", strerror(err));
}

/*
 * The receives of round @r: their buffers filled first (odd rounds), or
 * their pages dropped after the receives are posted (even ones; the first
 * round's were never touched).
 */
static void post_recvs(uint32_t r)
{
	int k;

	for (k = 0; k < NMSG; k++) {
		if (recv_tail(r))
			memset(recv_buf(k), recv_tail(r), MSG_MAX);
		post_recv(k);
	}
	if (r && !recv_tail(r))
		drop(recvs.mem, recvs.pages, "send: the receive buffers");
}

/* Message @k of round @r, in @wc: in order, of its length, byte-exact. */
static void check_recv(const struct ibv_wc *wc, uint32_t r, int k)
{
	uint32_t i, len = msg_len(k);
	const uint8_t *buf = recv_buf(k);
	uint8_t b;

	if (wc->status != IBV_WC_SUCCESS)
		die("send: message %d of round %u: %s", k + 1, r + 1,
		    ibv_wc_status_str(wc->status));
	if (wc->opcode != IBV_WC_RECV || wc->qp_num != qp->qp_num ||
	    wc->wr_id != (uint64_t)k)
		die("send: round %u: completion %u of wr_id %llu on QP %#x, not the receive of message %d on QP %#x",
		    r + 1, wc->opcode, (unsigned long long)wc->wr_id,
		    wc->qp_num, k + 1, qp->qp_num);
	if (wc->byte_len != len)
		die("send: message %d of round %u: %u bytes, not %u", k + 1,
		    r + 1, wc->byte_len, len);
	for (i = 0; i < MSG_MAX; i++) {
		b = i < len ? pat(r, k, i) : recv_tail(r);
		if (buf[i] != b)
			die("send: message %d of round %u (%u bytes): byte %u is %#x, not %#x",
			    k + 1, r + 1, len, i, buf[i], b);
	}
}

/* Round @r's messages (of @n rounds); then the next round's receives. */
static void server_send(uint32_t r, uint32_t n)
{
	double t0 = now();
	struct ibv_wc wc;
	int k;

	expect(sock, 's', "send: the client's SENDs");
	for (k = 0; k < NMSG; k++) {
		poll_wc(&wc, "send: the messages");
		check_recv(&wc, r, k);
	}
	k = ibv_poll_cq(cq, 1, &wc);
	if (k < 0)
		die("send: ibv_poll_cq: %d", k);
	if (k)
		die("send: round %u: a completion too many: wr_id %llu, %s",
		    r + 1, (unsigned long long)wc.wr_id,
		    ibv_wc_status_str(wc.status));
	if (r + 1 < n)
		post_recvs(r + 1);
	say(sock, 'S');
	took(C_SEND_CASE, r, t0);
}

/* The atomic's page: the swapped value in the word, zeros elsewhere. */
static void check_atomic(uint32_t r)
{
	const uint8_t *p = rdma.mem + ATOM_OFF / PAGE * PAGE;
	uint64_t v, want = swap_of(r);
	uint32_t i, w = ATOM_OFF % PAGE;

	memcpy(&v, rdma.mem + ATOM_OFF, sizeof(v));
	if (v != want)
		die("atomics (round %u): the word is %#llx, not %#llx", r + 1,
		    (unsigned long long)v, (unsigned long long)want);
	for (i = 0; i < PAGE; i++)
		if ((i < w || i >= w + 8) && p[i])
			die("atomics (round %u): byte %u of the word's page is %#x, not 0",
			    r + 1, i, p[i]);
}

/* Round @r's WRITE, atomics and WRITE into the dropped region. */
static void server_rdma(uint32_t r)
{
	double t0 = now();

	expect(sock, 'w', "write/read: the client's WRITE");
	check_pages(rdma.mem, WR_PAGES, WR_OFF, WR_LEN, r, K_WRITE,
		    "write/read: the WRITE's pages");
	say(sock, 'W');
	took(C_RDMA_CASE, r, t0);
	t0 = now();
	expect(sock, 'a', "atomics: the client's atomics");
	check_atomic(r);
	say(sock, 'A');
	took(C_ATOMIC_CASE, r, t0);
	t0 = now();
	expect(sock, 'x', "invalidation: the client's go");
	drop(rdma.mem, rdma.pages, "invalidation: the RDMA region");
	say(sock, 'X');
	expect(sock, 'i', "invalidation: the client's WRITE");
	check_pages(rdma.mem, rdma.pages, WR_OFF, WR_LEN, r, K_INVAL,
		    "invalidation: the dropped RDMA region");
	say(sock, 'I');
	took(C_INVAL_CASE, r, t0);
}

/*
 * ibv_advise_mr(PREFETCH_WRITE, FLUSH) of @len bytes at @addr with @lkey:
 * 0, or its error (a positive errno).
 */
static int advise(uint8_t *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	int err;

	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	return err < 0 ? -err : err;
}

/* The prefetch, then the client's WRITE into the prefetched MR. */
static void server_prefetch(void)
{
	uint32_t bad = pf.mr->lkey ^ 0xff;	/* its key byte changed */
	double t0 = now(), t1;
	size_t n;
	int err;

	err = advise(pf.mem, pf.pages * PAGE, pf.mr->lkey);
	if (err)
		die("prefetch: ibv_advise_mr(PREFETCH_WRITE, FLUSH) of the %zu pages of MR %#x: %s",
		    pf.pages, pf.mr->lkey, strerror(err));
	t1 = now() - t0;
	n = resident(pf.mem, pf.pages);
	if (n != pf.pages)
		die("prefetch: after ibv_advise_mr(PREFETCH_WRITE, FLUSH) returned, %zu of the %zu pages are resident",
		    n, pf.pages);
	err = advise(pf.mem, PAGE, bad);
	if (!err)
		die("prefetch: ibv_advise_mr with L_Key %#x, no MR's, returned 0",
		    bad);
	printf("prefetch: ibv_advise_mr(PREFETCH_WRITE, FLUSH) made %zu of %zu pages resident in %.3f s; with L_Key %#x, no MR's: %s\n",
	       n, pf.pages, t1, bad, strerror(err));
	say(sock, 'F');
	t0 = now();
	expect(sock, 'p', "prefetch: the client's WRITE");
	check_pages(pf.mem, pf.pages, PF_OFF, PF_LEN, 0, K_PF,
		    "prefetch: the prefetched MR");
	say(sock, 'P');
	printf("prefetch: the client's WRITE of %d bytes found in the prefetched MR, %.2f s\n",
	       PF_LEN, now() - t0);
}

/* This side's QP's state, as ibv_query_qp() has it. */
static enum ibv_qp_state qp_state(void)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	int err;

	err = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);
	if (err)
		die("ibv_query_qp of QP %#x: %s", qp->qp_num, strerror(err));
	return a.qp_state;
}

/*
 * The hole in the third MR, the client's WRITE there, the rest unchanged.
 * A WRITE that ran out of retries ('r') counts only if this QP is in error:
 * it refused the WRITE, and the NAK was lost.
 */
static void server_errors(void)
{
	uint8_t *hole = holed.mem + HOLE * PAGE;
	enum ibv_qp_state st;
	double t0;
	char c;

	expect(sock, 'e', "errors: the client's go");
	t0 = now();
	if (munmap(hole, PAGE))
		die("errors: munmap of page %d of MR %#x: %s", HOLE,
		    holed.mr->lkey, strerror(errno));
	say(sock, 'E');
	io(sock, &c, 1, 0);
	if (c != 'v' && c != 'r')
		die("errors: the WRITE into the unmapped page: the peer said '%c'",
		    c);
	st = qp_state();
	if (c == 'r' && st != IBV_QPS_ERR) {
		say(sock, 'N');
		die("errors: the client's WRITE into the unmapped page exceeded its retries, but QP %#x is in state %d, not in error: it never refused the WRITE",
		    qp->qp_num, st);
	}
	check_pages(holed.mem, HOLE, 0, 0, 0, K_ERR,
		    "errors: the pages before the hole");
	check_pages(hole + PAGE, holed.pages - HOLE - 1, 0, 0, 0, K_ERR,
		    "errors: the pages after the hole");
	say(sock, 'V');
	printf("errors: page %d of MR %#x unmapped, the client's WRITE there %s, QP %#x %s, the other %zu pages still zero, %.2f s\n",
	       HOLE, holed.mr->lkey, c == 'v' ? "refused" :
	       "refused (the NAK lost)", qp->qp_num,
	       st == IBV_QPS_ERR ? "in error" : "not in error",
	       holed.pages - 1, now() - t0);
}

/* Case @c's line: what it did (@fmt), the time all rounds and the first took. */
static void case_line(int c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void case_line(int c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(", %.2f s (round 1: %.2f s)\n", spent[c], first[c]);
}

static void server(void)
{
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct peer mine = { 0 };
	uint32_t r, n;
	int i;

	odp_region(&recvs, NMSG * SLOT / PAGE, IBV_ACCESS_LOCAL_WRITE,
		   "the receive buffers");
	odp_region(&rdma, RDMA_PAGES, rw | IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_ATOMIC, "the RDMA region");
	odp_region(&pf, PF_PAGES, rw, "the prefetched MR");
	odp_region(&holed, ERR_PAGES, rw, "the MR with a hole");
	qp_create();
	for (i = 0; i < NMR; i++) {
		struct region *g = i == MR_RDMA ? &rdma : i == MR_PF ? &pf : &holed;

		mine.addr[i] = (uintptr_t)g->mem;
		mine.rkey[i] = g->mr->rkey;
	}
	pair_up(&mine);
	post_recvs(0);
	ready();
	n = peer.rounds;
	server_prefetch();
	for (r = 0; r < n; r++) {
		server_send(r, n);
		server_rdma(r);
	}
	case_line(C_SEND_CASE, "send: %u rounds of %d messages of 1 to %d bytes in order and intact",
		  n, NMSG, MSG_MAX);
	case_line(C_RDMA_CASE, "write/read: %u rounds of a %d-byte WRITE found in the RDMA region",
		  n, WR_LEN);
	case_line(C_ATOMIC_CASE, "atomics: %u rounds of the swapped value found in the word",
		  n);
	case_line(C_INVAL_CASE, "invalidation: %u rounds of the RDMA region dropped and the next WRITE found in its new pages",
		  n);
	server_errors();
	expect(sock, 'd', "the end");
}

/* --------------------------------------------------------------- client */

/* Post a signaled @wr of @len bytes at @buf (in the client's MR). */
static void post(struct ibv_send_wr *wr, uint8_t *buf, uint32_t len,
		 const char *what)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = cli.mr->lkey,
	};
	struct ibv_send_wr *bad;
	int err;

	wr->wr_id = posted++;
	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	err = ibv_post_send(qp, wr, &bad);
	if (err)
		die("posting %s: %s", what, strerror(err));
}

/* An RDMA WRITE or READ of @len bytes at @buf, at @off in server MR @m. */
static void post_rdma(enum ibv_wr_opcode op, uint8_t *buf, uint32_t len,
		      int m, uint32_t off)
{
	struct ibv_send_wr wr = { .opcode = op };

	wr.wr.rdma.remote_addr = peer.addr[m] + off;
	wr.wr.rdma.rkey = peer.rkey[m];
	post(&wr, buf, len, op == IBV_WR_RDMA_READ ? "an RDMA READ" :
	     "an RDMA WRITE");
}

/* Pattern @kind of round @r at @p, @len bytes. */
static void fill(uint8_t *p, uint32_t len, uint32_t r, uint32_t kind)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(r, kind, i);
}

/* Round @r's SENDs (the send buffers dropped first in odd rounds). */
static void client_send(uint32_t r)
{
	struct ibv_send_wr wr;
	double t0 = now();
	int k;

	if (r & 1)
		drop(cli.mem + C_SEND * PAGE, NMSG * SLOT / PAGE,
		     "send: the send buffers");
	for (k = 0; k < NMSG; k++) {
		fill(send_buf(k), msg_len(k), r, k);
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_SEND;
		post(&wr, send_buf(k), msg_len(k), "a SEND");
	}
	wait_wcs(NMSG, "send: the SENDs");
	say(sock, 's');
	expect(sock, 'S', "send: the server's check of the messages");
	took(C_SEND_CASE, r, t0);
}

/* READ the WRITE's bytes back; they must be pattern @kind of round @r. */
static void read_back(uint32_t r, uint32_t kind, const char *what)
{
	uint8_t *p = cli.mem + C_READ * PAGE;

	post_rdma(IBV_WR_RDMA_READ, p + RD_OFF, WR_LEN, MR_RDMA, WR_OFF);
	wait_wcs(1, what);
	check_pages(p, WR_PAGES, RD_OFF, WR_LEN, r, kind, what);
}

/* WRITE pattern @kind of round @r into the server's region. */
static void write_region(uint32_t r, uint32_t kind, const char *what)
{
	uint8_t *src = cli.mem + C_WRITE * PAGE + 500;

	fill(src, WR_LEN, r, kind);
	post_rdma(IBV_WR_RDMA_WRITE, src, WR_LEN, MR_RDMA, WR_OFF);
	wait_wcs(1, what);
}

static void client_write_read(uint32_t r)
{
	double t0 = now();

	write_region(r, K_WRITE, "write/read: the WRITE");
	say(sock, 'w');
	expect(sock, 'W', "write/read: the server's check of the WRITE");
	read_back(r, K_WRITE, "write/read: the READ");
	took(C_RDMA_CASE, r, t0);
}

/* An atomic @op on the server's word, its old value into result @i. */
static void post_atomic(enum ibv_wr_opcode op, uint64_t cmp_add,
			uint64_t swap, int i)
{
	struct ibv_send_wr wr = { .opcode = op };
	uint64_t *res = (uint64_t *)(cli.mem + C_ATOM * PAGE) + i;

	*res = SENTINEL;
	wr.wr.atomic.remote_addr = peer.addr[MR_RDMA] + ATOM_OFF;
	wr.wr.atomic.rkey = peer.rkey[MR_RDMA];
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	post(&wr, (uint8_t *)res, sizeof(*res), "an atomic");
}

/*
 * FETCH_AND_ADD (the word is 0: the region was never touched, or was
 * dropped), CMP_AND_SWP that swaps, and one that does not (stale compare).
 */
static void client_atomics(uint32_t r)
{
	static const char *const name[3] = {
		"FETCH_AND_ADD", "CMP_AND_SWP (equal)", "CMP_AND_SWP (not equal)",
	};
	const uint64_t *res = (const uint64_t *)(cli.mem + C_ATOM * PAGE);
	uint64_t add = add_of(r), swap = swap_of(r);
	uint64_t want[3] = { 0, add, swap };
	double t0 = now();
	int i;

	post_atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, add, 0, 0);
	post_atomic(IBV_WR_ATOMIC_CMP_AND_SWP, add, swap, 1);
	post_atomic(IBV_WR_ATOMIC_CMP_AND_SWP, add, ~swap, 2);
	wait_wcs(3, "atomics");
	for (i = 0; i < 3; i++)
		if (res[i] != want[i])
			die("atomics (round %u): the %s returned %#llx, not %#llx",
			    r + 1, name[i], (unsigned long long)res[i],
			    (unsigned long long)want[i]);
	say(sock, 'a');
	expect(sock, 'A', "atomics: the server's check of the word");
	took(C_ATOMIC_CASE, r, t0);
}

/* The server drops its region, we WRITE; we drop our READ target, READ. */
static void client_invalidation(uint32_t r)
{
	double t0 = now();

	say(sock, 'x');
	expect(sock, 'X', "invalidation: the server's drop of its region");
	write_region(r, K_INVAL, "invalidation: the WRITE");
	say(sock, 'i');
	expect(sock, 'I', "invalidation: the server's check of its new pages");
	drop(cli.mem + C_READ * PAGE, WR_PAGES, "invalidation: the READ target");
	read_back(r, K_INVAL, "invalidation: the READ into dropped pages");
	took(C_INVAL_CASE, r, t0);
}

/* The WRITE of the whole prefetched MR but its edges. */
static void client_prefetch(void)
{
	uint8_t *src = cli.mem + C_SRC * PAGE;
	double t0;

	expect(sock, 'F', "prefetch: the server's ibv_advise_mr");
	t0 = now();
	fill(src, PF_LEN, 0, K_PF);
	post_rdma(IBV_WR_RDMA_WRITE, src, PF_LEN, MR_PF, PF_OFF);
	wait_wcs(1, "prefetch: the WRITE");
	say(sock, 'p');
	expect(sock, 'P', "prefetch: the server's check of the prefetched MR");
	printf("prefetch: a WRITE of %d bytes into the prefetched MR found there, %.2f s\n",
	       PF_LEN, now() - t0);
}

/* The WRITE into the page the server unmapped: a remote access error. */
static void client_errors(void)
{
	uint8_t *src = cli.mem + C_SRC * PAGE;
	double t0 = now();
	struct ibv_wc wc;
	int lost;
	char c;

	say(sock, 'e');
	expect(sock, 'E', "errors: the server's munmap");
	fill(src, ERR_LEN, 0, K_ERR);
	post_rdma(IBV_WR_RDMA_WRITE, src, ERR_LEN, MR_ERR, ERR_OFF);
	next_wc(&wc, "errors: the WRITE into the unmapped page");
	lost = wc.status == IBV_WC_RETRY_EXC_ERR;
	if (wc.status != IBV_WC_REM_ACCESS_ERR && !lost)
		die("errors: the WRITE into the unmapped page: %s, not %s",
		    ibv_wc_status_str(wc.status),
		    ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	say(sock, lost ? 'r' : 'v');
	io(sock, &c, 1, 0);
	if (c == 'N')
		die("errors: the WRITE into the unmapped page: %s, and the server's QP is not in error: the server never refused it",
		    ibv_wc_status_str(wc.status));
	if (c != 'V')
		die("errors: the server's check of the MR: the peer said '%c'", c);
	printf("errors: the WRITE into the page the server unmapped: %s, %.2f s\n",
	       ibv_wc_status_str(wc.status), now() - t0);
	if (lost)
		printf("errors: %s taken for the remote access error: the server's QP is in error, so it refused the WRITE, and the NAK was lost (the LAN's loss); the QP in error answered none of the retries\n",
		       ibv_wc_status_str(wc.status));
}

static void client(void)
{
	struct peer mine = { 0 };
	uint32_t r, n = opt.count;

	odp_region(&cli, C_PAGES, IBV_ACCESS_LOCAL_WRITE, "the client's MR");
	qp_create();
	pair_up(&mine);
	ready();
	client_prefetch();
	for (r = 0; r < n; r++) {
		client_send(r);
		client_write_read(r);
		client_atomics(r);
		client_invalidation(r);
	}
	case_line(C_SEND_CASE, "send: %u rounds of %d SENDs of 1 to %d bytes completed",
		  n, NMSG, MSG_MAX);
	case_line(C_RDMA_CASE, "write/read: %u rounds of a %d-byte WRITE and its READ back, found intact",
		  n, WR_LEN);
	case_line(C_ATOMIC_CASE, "atomics: %u rounds of a FETCH_AND_ADD and 2 CMP_AND_SWPs returning the old values",
		  n);
	case_line(C_INVAL_CASE, "invalidation: %u rounds of a WRITE into the server's dropped region and a READ into our dropped pages, found intact",
		  n);
	client_errors();
	say(sock, 'd');
}

/* ----------------------------------------------------------------- main */

static void region_free(struct region *g)
{
	if (!g->mr)
		return;
	if (ibv_dereg_mr(g->mr))
		die("ibv_dereg_mr: %s", strerror(errno));
	munmap(g->mem, g->pages * PAGE);	/* (a hole in it does no harm) */
}

static void teardown(void)
{
	if (ibv_destroy_qp(qp))
		die("ibv_destroy_qp: %s", strerror(errno));
	region_free(&recvs);
	region_free(&rdma);
	region_free(&pf);
	region_free(&holed);
	region_free(&cli);
	if (ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("freeing the CQ, PD and device: %s", strerror(errno));
	close(sock);
}

/*
 * A verb that does not return (ibv_reg_mr(), ibv_advise_mr() with FLUSH
 * wait for faults) is cut off a second after the deadline.
 */
static void on_alarm(int sig)
{
	static const char m[] = PROG ": FAILED: the deadline passed in a call that did not return\n";
	ssize_t n = write(STDOUT_FILENO, m, sizeof(m) - 1);

	(void)sig;
	(void)n;
	_exit(1);
}

int main(int argc, char **argv)
{
	options(PROG, argc, argv, "ROUNDS", &opt);
	setvbuf(stdout, NULL, _IOLBF, 0);
	begin(PROG, opt.seconds);
	signal(SIGALRM, on_alarm);
	alarm((unsigned int)opt.seconds + 1);
	srand48(time(NULL) ^ getpid());
	open_dev();
	if (opt.host)
		client();
	else
		server();
	teardown();
	printf(PROG ": OK\n");
	return 0;
}
