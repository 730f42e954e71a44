// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sim_rc.c: pib's RC transport between two devices over a lossy link,
 * simulated, deterministic. Device A (LID 1) and device B (LID 2) each
 * have an RC QP connected to the other, made and driven through pib's own
 * verbs; every packet a device sends goes onto a link with a latency and
 * a rate, is lost with a probability (and in bursts), or maybe reordered,
 * and reaches the other device when its time comes. Time moves only here
 * (one jiffy a step); the QPs' timers and work run when they are due.
 *
 * Both sides post a random mix of WRs (READ, WRITE, SEND, atomics) as
 * their SQ has room, or a profile's (iSER: one side READs 8-128 KiB, many
 * at once, the other SENDs small messages), and check that every WR
 * completes successfully, in order, with the right data: READ buffers
 * equal the remote memory, WRITEs landed, SENDs arrived whole and in
 * order, every atomic executed exactly once. A QP that completes nothing
 * for SIM_STALL_SECS while it has work out fails the run, with both QPs'
 * state and the last packets on the link.
 *
 *   sim_rc               the regression matrix (make test runs it)
 *   sim_rc -n N          N seeds per configuration (a longer search)
 *   sim_rc -c C -s S -v  one run, configuration C, seed S, verbose
 *   sim_rc -l            list the configurations
 */
#include <getopt.h>

#include "fuzz.h"

#define SIM_SQ			256	/* WRs a QP may have out, at most */
#define SIM_SQ_MIXED		64	/* ... but in the iSER profile */
#define SIM_RQ			64	/* receive WQEs posted */
#define SIM_CQE			511
#define SIM_RECV_LEN		16384	/* a receive buffer */
#define SIM_SLOT		(128 * 1024)	/* a WR's buffer */
#define SIM_REMOTE_LEN		(256 * 1024)	/* memory the peer READs */
#define SIM_STALL_SECS		60
#define SIM_MAX_SECS		3600
#define SIM_TRACE		256
#define SIM_SENDS		1024	/* ring of SEND lengths on their way */
#define SIM_QPN_BASE		0x40
#define SIM_MAX_SGE		32	/* rdma_rw's READs: a page each */

/* What a run does: its traffic, its link, its QP attributes. */
enum sim_profile {
	SIM_MIXED,	/* both sides: a random mix of every operation */
	SIM_ISER,	/* A READs big (8-128 KiB), B SENDs small ones */
	SIM_READS,	/* both sides READ only, 1 B - 64 KiB */
};

struct sim_config {
	const char *name;
	enum sim_profile profile;
	u32 loss_ppm;		/* each packet lost with this probability */
	u32 burst_ppm;		/* a packet starts a burst of losses... */
	u32 burst_len;		/* ... of at most this many jiffies */
	u32 reorder_ppm;	/* a packet is late by a few jiffies */
	u32 dup_ppm;		/* a packet arrives twice */
	u32 latency;		/* jiffies on the link */
	u32 rate;		/* bytes a jiffy (0: no limit) */
	u32 qlimit;		/* KiB queued at most (a full queue drops) */
	enum ib_mtu mtu;
	u8 timeout;
	u8 rd_atomic;		/* 0: random 1..16 */
	bool rnr;		/* receivers post lazily: RNR NAKs */
	bool busy;		/* packets come while the QPs' work runs */
	bool may_fail;		/* IB_WC_RETRY_EXC_ERR allowed (20 % loss) */
	u32 wrs;		/* WRs each side posts */
};

/* sim_regressions[] names them by index: new ones go at the end. */
static const struct sim_config sim_configs[] = {
	{ "mixed-1k-0.5%", SIM_MIXED, 5000, 0, 0, 0, 0, 1, 0, 0, IB_MTU_1024, 14,
	  0, false, false, false, 300 },
	{ "mixed-1k-1%", SIM_MIXED, 10000, 200, 8, 0, 0, 1, 0, 0, IB_MTU_1024, 14,
	  0, false, false, false, 300 },
	{ "mixed-4k-1%", SIM_MIXED, 10000, 200, 8, 0, 0, 2, 40000, 0, IB_MTU_4096,
	  17, 0, false, false, false, 300 },
	{ "mixed-1k-5%", SIM_MIXED, 50000, 1000, 16, 0, 0, 1, 0, 0, IB_MTU_1024,
	  14, 0, false, false, false, 200 },
	{ "mixed-4k-5%-reorder", SIM_MIXED, 50000, 0, 0, 5000, 0, 2, 0, 0,
	  IB_MTU_4096, 19, 0, false, false, false, 200 },
	{ "mixed-1k-2%-dup-reorder", SIM_MIXED, 20000, 0, 0, 100000, 20000, 1,
	  0, 0, IB_MTU_1024, 14, 0, false, false, false, 200 },
	{ "mixed-1k-1%-rnr", SIM_MIXED, 10000, 0, 0, 0, 0, 1, 0, 0, IB_MTU_1024,
	  14, 0, true, false, false, 200 },
	{ "reads-1k-1%", SIM_READS, 10000, 200, 8, 0, 0, 1, 0, 0, IB_MTU_1024, 14,
	  0, false, false, false, 300 },
	{ "reads-4k-5%-slow", SIM_READS, 50000, 500, 8, 0, 0, 25, 20000, 0,
	  IB_MTU_4096, 14, 0, false, false, false, 150 },
	{ "reads-1k-2%-dup-reorder", SIM_READS, 20000, 0, 0, 100000, 20000, 1,
	  0, 0, IB_MTU_1024, 14, 0, false, false, false, 100 },
	{ "iser-1k-1%", SIM_ISER, 10000, 200, 8, 0, 0, 1, 0, 0, IB_MTU_1024, 14,
	  16, false, false, false, 150 },
	{ "iser-4k-1%", SIM_ISER, 10000, 200, 8, 0, 0, 1, 40000, 0, IB_MTU_4096,
	  14, 16, false, false, false, 150 },
	{ "iser-4k-2%-dup-reorder", SIM_ISER, 20000, 0, 0, 100000, 20000, 1,
	  40000, 0, IB_MTU_4096, 14, 16, false, false, false, 40 },
	{ "iser-1k-5%-slow", SIM_ISER, 50000, 1000, 16, 0, 0, 10, 10000, 0,
	  IB_MTU_1024, 14, 16, false, false, false, 30 },
	{ "iser-1k-1%-queue", SIM_ISER, 10000, 0, 0, 0, 0, 5, 10000, 256,
	  IB_MTU_1024, 14, 16, false, false, false, 100 },
	{ "iser-4k-1%-late", SIM_ISER, 10000, 0, 0, 0, 0, 60, 20000, 0,
	  IB_MTU_4096, 14, 16, false, false, false, 100 },
	{ "mixed-1k-1%-late-queue", SIM_MIXED, 10000, 0, 0, 0, 0, 40, 4000,
	  300, IB_MTU_1024, 14, 0, false, false, false, 150 },
	{ "iser-1k-1%-rnr", SIM_ISER, 10000, 200, 8, 0, 0, 1, 0, 0,
	  IB_MTU_1024, 14, 16, true, false, false, 150 },
	{ "mixed-1k-1%-busy", SIM_MIXED, 10000, 200, 8, 0, 0, 1, 0, 0,
	  IB_MTU_1024, 14, 0, true, true, false, 200 },
	{ "iser-4k-1%-busy", SIM_ISER, 10000, 200, 8, 0, 0, 1, 40000, 0,
	  IB_MTU_4096, 14, 16, false, true, false, 150 },
	{ "stress-1k-20%", SIM_MIXED, 200000, 0, 0, 0, 0, 1, 0, 0, IB_MTU_1024,
	  14, 0, false, false, true, 60 },
	{ "iser-1k-1%-t19", SIM_ISER, 10000, 200, 8, 0, 0, 1, 10000, 0,
	  IB_MTU_1024, 19, 16, false, false, false, 80 },
};

#define SIM_NCONFIGS	ARRAY_SIZE(sim_configs)

/*
 * Runs that failed once, each a bug fixed since (the commit that fixed it
 * tells the story): the regression matrix runs them besides its seeds,
 * and they must succeed in full (no IB_WC_RETRY_EXC_ERR even at 20 %).
 */
static const struct {
	u8 config;
	u32 seed;
} sim_regressions[] = {
	{ 6, 2 },	/* RNR NAK of a WRITE with immediate, one packet */
	{ 6, 16 },	/* an ACK while waiting for the RNR timer */
	{ 20, 531 },	/* an atomic ACK after a later request's ACK */
};

/* A packet on the link. */
struct sim_pkt {
	struct sim_pkt *next;
	unsigned long due;
	u32 len;
	u8 buf[];
};

/* One direction of the link: a queue of packets, sorted by due time. */
struct sim_link {
	struct sim_pkt *head;
	u64 vt;			/* when it is free to send again, * rate */
	unsigned long burst_end;	/* every packet is lost until then */
	u64 sent, lost, qdrops;
};

/* A WR out on a side's SQ. */
struct sim_wr {
	enum ib_wr_opcode op;
	u32 len;
	u32 roff;		/* READ: offset in the peer's remote memory */
	u64 expect;		/* atomics: the original value they must return */
	u64 id;
	bool signaled;
};

/* One device, its QP and what it has out. */
struct sim_side {
	struct pib_dev *dev;
	struct pib_pd pd;
	struct pib_cq *scq, *rcq;
	struct ib_mr *mr;
	struct pib_qp *qp;
	u8 *remote;		/* the peer READs this: a fixed pattern */
	u8 *landing;		/* the peer WRITEs here: a slot per WR */
	u8 *local;		/* READ results and WRITE/SEND sources */
	u8 *recv;		/* receive buffers, a slot per RQ entry */
	u64 *atom;		/* [0] fetch-and-add, [1] compare-and-swap */
	u64 fadds, cswaps;	/* the peer's atomics issued, for expects */
	struct sim_wr wr[SIM_SQ];
	u64 posted, done;	/* WRs posted, completed */
	u64 rposted, rdone;	/* receives */
	u32 send_len[SIM_SENDS];	/* lengths of the SENDs to the peer */
	u64 sends;		/* SENDs posted */
	unsigned long progress;	/* when a WR last completed */
	bool failed;		/* a tolerated RETRY_EXC_ERR ended it */
};

/* A packet seen on the link, for the dump. */
struct sim_event {
	unsigned long t;
	u8 from, op, syn, lost;
	u32 psn, len;
};

struct sim {
	const struct sim_config *cfg;
	u32 seed;
	u64 rng, rng_sge;
	bool verbose;
	bool strict;		/* a regression run: no failure allowed */
	struct sim_side side[2];
	struct sim_link link[2];	/* [i]: packets side i sends */
	struct sim_event trace[SIM_TRACE];
	u64 ntrace;
	unsigned long start;
	unsigned long max_gap;	/* the longest a QP completed nothing */
	u64 leaks;		/* steps a requester counted READs not out */
	u64 dup_misses;		/* needed duplicates without a resource */
	u64 stale_naks;		/* sequence NAKs for PSNs acknowledged already */
};

static struct sim *sim_now;

static u64 sim_rand(struct sim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dULL;
}

static u32 sim_below(struct sim *s, u32 n)
{
	return n ? (u32)((sim_rand(s) >> 32) % n) : 0;
}

/* The SGE layouts' own stream: the rest replays as before they came. */
static u32 sim_below_sge(struct sim *s, u32 n)
{
	u64 rng = s->rng;
	u32 v;

	s->rng = s->rng_sge;
	v = sim_below(s, n);
	s->rng_sge = s->rng;
	s->rng = rng;
	return v;
}

static bool sim_ppm(struct sim *s, u32 ppm)
{
	return sim_below(s, 1000000) < ppm;
}

/* The byte at @i of a pattern @seed names: the checks compare them. */
static u8 sim_pattern(u64 seed, u64 i)
{
	return (u8)(seed * 131 + i * 7 + (i >> 8) * 3 + (i >> 16));
}

static void sim_fill(u8 *p, u64 seed, u64 from, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = sim_pattern(seed, from + i);
}

static u32 sim_check(const u8 *p, u64 seed, u64 from, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (p[i] != sim_pattern(seed, from + i))
			return i + 1;
	return 0;
}

static void sim_dump(struct sim *s);

static void __attribute__((noreturn, format(printf, 2, 3)))
sim_fail(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\nsim_rc: %s seed %u FAILED at %lu.%03lu s: ",
		s->cfg->name, s->seed, (jiffies - s->start) / HZ,
		(jiffies - s->start) % HZ * 1000 / HZ);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	sim_dump(s);
	fprintf(stderr, "replay: sim_rc -c %u -s %u -v\n",
		(unsigned int)(s->cfg - sim_configs), s->seed);
	exit(1);
}

/* The link: packets in, loss, latency, delivery. */
static void sim_trace(struct sim *s, unsigned int from, const u8 *pkt,
		      u32 len, bool lost)
{
	struct sim_event *e = &s->trace[s->ntrace++ % SIM_TRACE];
	struct pib_pkt p;

	memset(e, 0, sizeof(*e));
	e->t = jiffies - s->start;
	e->from = from;
	e->lost = lost;
	e->len = len;
	if (pib_pkt_parse(pkt, len, &p))
		return;
	e->op = p.bth.opcode;
	e->psn = p.bth.psn;
	if (p.ext & PIB_EXT_AETH)
		e->syn = pib_aeth_syn(pib_pkt_ext(pkt, &p, PIB_EXT_AETH));
	if (s->verbose)
		fprintf(stderr, "%6lu %c->%c op 0x%02x psn 0x%06x syn 0x%02x len %4u%s\n",
			e->t, 'A' + from, 'B' - from, e->op, e->psn, e->syn,
			len, lost ? "  LOST" : "");
}

static bool sim_lose(struct sim *s, struct sim_link *l)
{
	const struct sim_config *c = s->cfg;

	if (time_before(jiffies, l->burst_end))
		return true;
	if (c->burst_ppm && sim_ppm(s, c->burst_ppm)) {
		l->burst_end = jiffies + 1 + sim_below(s, c->burst_len);
		return true;
	}
	return sim_ppm(s, c->loss_ppm);
}

static void sim_link_put(struct sim *s, unsigned int from, const u8 *pkt,
			 unsigned int len)
{
	struct sim_link *l = &s->link[from];
	struct sim_pkt *p, **pp;
	bool lost = sim_lose(s, l);
	unsigned long at;

	l->sent++;
	sim_trace(s, from, pkt, len, lost);
	if (lost) {
		l->lost++;
		return;
	}
	/*
	 * A link of a rate: packets queue behind each other (@vt counts in
	 * bytes the time it is busy until), up to a limit.
	 */
	at = jiffies;
	if (s->cfg->rate) {
		u64 now = (u64)jiffies * s->cfg->rate;

		if (l->vt < now)
			l->vt = now;
		if (s->cfg->qlimit && l->vt - now > s->cfg->qlimit * 1024ULL) {
			l->lost++;
			l->qdrops++;
			return;
		}
		l->vt += len;
		at = l->vt / s->cfg->rate;
	}
	at += s->cfg->latency;
	if (s->cfg->reorder_ppm && sim_ppm(s, s->cfg->reorder_ppm))
		at += 1 + sim_below(s, 3);
	p = malloc(sizeof(*p) + len);
	p->due = at;
	p->len = len;
	memcpy(p->buf, pkt, len);
	for (pp = &l->head; *pp && !time_after((*pp)->due, at); pp = &(*pp)->next)
		;
	p->next = *pp;
	*pp = p;
}

static void sim_tx(struct pib_dev *dev, const u8 *pkt, unsigned int len)
{
	struct sim *s = sim_now;
	unsigned int from = dev == s->side[1].dev;

	sim_link_put(s, from, pkt, len);
	if (s->cfg->dup_ppm && sim_ppm(s, s->cfg->dup_ppm))
		sim_link_put(s, from, pkt, len);
}

/* Does the requester of @qp still wait for the response to @psn? */
static bool sim_req_needs(struct pib_qp *qp, u32 psn)
{
	struct pib_sq *sq = &qp->sq;
	u32 k;

	for (k = sq->ring.cons; k != sq->fetched; k++) {
		struct pib_swqe *st = &sq->st[k & (sq->ring.num - 1)];

		/* (a READ: from its first response missing on) */
		u32 from = st->first_psn + st->resp_off / qp->mtu;

		if (st->sent && !st->resp_done &&
		    pib_psn_in_window(psn, from & PIB_PSN_MASK,
				      st->last_psn + 1))
			return true;
	}
	return false;
}

/*
 * A duplicate READ or atomic request that its requester still waits for
 * must find its responder resource (IBA 9.7.5.1.1), or it is never
 * answered: the requester retries until IB_WC_RETRY_EXC_ERR.
 */
static void sim_check_dup(struct sim *s, unsigned int from, const u8 *buf,
			  u32 len)
{
	struct pib_qp *req = s->side[from].qp, *qp = s->side[!from].qp;
	struct pib_resp *resp = &qp->resp;
	struct pib_pkt p;
	u32 i;

	/* (A NAK goes to the QP that receives it: its requester.) */
	if (!pib_pkt_parse(buf, len, &p) && p.bth.opcode == IB_OPCODE_RC_ACKNOWLEDGE &&
	    buf[p.hdr_len] == 0x60 && qp->state == IB_QPS_RTS &&
	    pib_psn_diff(p.bth.psn, qp->req.acked_psn) <= 0 &&
	    qp->sq.ring.cons != qp->req.cur) {
		s->stale_naks++;
		if (s->verbose)
			fprintf(stderr, "STALE NAK psn 0x%06x to %c, acked 0x%06x\n",
				p.bth.psn, 'B' - from, qp->req.acked_psn);
	}
	if (pib_pkt_parse(buf, len, &p) ||
	    (p.bth.opcode != IB_OPCODE_RC_RDMA_READ_REQUEST &&
	     p.bth.opcode != IB_OPCODE_RC_COMPARE_SWAP &&
	     p.bth.opcode != IB_OPCODE_RC_FETCH_ADD) ||
	    pib_psn_diff(p.bth.psn, resp->epsn) >= 0 ||
	    !sim_req_needs(req, p.bth.psn) || qp->state != IB_QPS_RTS)
		return;
	for (i = resp->res_head; resp->res_head - i < resp->num_res; i--) {
		struct pib_rd_res *r = &resp->res[(i - 1) % resp->num_res];

		if (r->opcode && pib_psn_in_window(p.bth.psn, r->psn, r->end_psn))
			return;
	}
	s->dup_misses++;
	if (s->verbose)
		fprintf(stderr, "DUP MISS: 0x%02x PSN 0x%06x to %c, its epsn 0x%06x\n",
			p.bth.opcode, p.bth.psn, 'B' - from, resp->epsn);
	if (s->cfg->rd_atomic)
		sim_fail(s, "%c: duplicate request 0x%02x PSN 0x%06x, still needed, has no resource",
			 'B' - from, p.bth.opcode, p.bth.psn);
}

/* Hand the packets that are due to the other device, in softirq. */
static bool sim_deliver(struct sim *s, unsigned int from)
{
	struct sim_link *l = &s->link[from];
	struct sim_pkt *p = l->head;
	struct pib_pkt pkt;

	if (!p || time_after(p->due, jiffies))
		return false;
	l->head = p->next;
	sim_check_dup(s, from, p->buf, p->len);
	/* (the receiving host's pib_net.c parsed it) */
	if (pib_pkt_parse(p->buf, p->len, &pkt))
		sim_fail(s, "%c sent a packet that does not parse",
			 'A' + from);
	local_bh_disable();
	pib_hca_receive(s->side[!from].dev, p->buf, p->len, &pkt);
	local_bh_enable();
	free(p);
	kshim_run_work();
	return true;
}

static void sim_link_purge(struct sim_link *l)
{
	struct sim_pkt *p;

	while ((p = l->head)) {
		l->head = p->next;
		free(p);
	}
}

/* Objects */
static void sim_event_handler(struct ib_event *ev, void *ctx)
{
	struct sim *s = sim_now;

	if (ev->event == IB_EVENT_QP_FATAL && s->cfg->may_fail && !s->strict)
		return;
	sim_fail(s, "event %d", ev->event);
}

static void sim_comp_handler(struct ib_cq *cq, void *ctx)
{
}

/*
 * WRs a QP may have out: an iSER target has hundreds (isert: 138 and
 * 4 READs for each of 128 commands), the other profiles 64.
 */
static u32 sim_sq(struct sim *s)
{
	return s->cfg->profile == SIM_ISER ? SIM_SQ : SIM_SQ_MIXED;
}

static struct pib_cq *sim_cq_new(struct sim_side *d)
{
	struct pib_cq *cq = calloc(1, sizeof(*cq));
	struct ib_cq_init_attr attr = { .cqe = SIM_CQE };

	cq->ibcq.device = &d->dev->ibdev;
	cq->ibcq.comp_handler = sim_comp_handler;
	cq->ibcq.event_handler = sim_event_handler;
	FUZZ_CHECK(!pib_create_cq(&cq->ibcq, &attr, NULL));
	return cq;
}

static struct pib_qp *sim_qp_new(struct sim_side *d, u32 depth)
{
	struct pib_qp *qp = calloc(1, sizeof(*qp));
	struct ib_qp_init_attr init = {
		.event_handler = sim_event_handler,
		.send_cq = &d->scq->ibcq,
		.recv_cq = &d->rcq->ibcq,
		.cap = { .max_send_wr = depth, .max_recv_wr = SIM_RQ,
			 .max_send_sge = SIM_MAX_SGE, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	qp->ibqp.device = &d->dev->ibdev;
	qp->ibqp.pd = &d->pd.ibpd;
	qp->ibqp.send_cq = init.send_cq;
	qp->ibqp.recv_cq = init.recv_cq;
	qp->ibqp.qp_type = init.qp_type;
	qp->ibqp.event_handler = sim_event_handler;
	FUZZ_CHECK(!pib_create_qp(&qp->ibqp, &init, NULL));
	return qp;
}

/* INIT, RTR, RTS, as a consumer (or the CM) does, to the peer's QP. */
static void sim_connect(struct sim *s, unsigned int i, const u32 *psn,
			const u8 *rd)
{
	struct sim_side *d = &s->side[i];
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = PIB_PORT_NUM,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};

	FUZZ_CHECK(!pib_modify_qp(&d->qp->ibqp, &a, IB_QP_STATE |
				  IB_QP_PKEY_INDEX | IB_QP_PORT |
				  IB_QP_ACCESS_FLAGS, NULL));
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = s->cfg->mtu;
	a.dest_qp_num = s->side[!i].qp->ibqp.qp_num;
	a.rq_psn = psn[!i];
	a.max_dest_rd_atomic = rd[!i];	/* what the peer may have out */
	a.min_rnr_timer = 1 + sim_below(s, 4);
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	a.ah_attr.port_num = PIB_PORT_NUM;
	a.ah_attr.ib.dlid = FUZZ_DEV_LID(!i);
	FUZZ_CHECK(!pib_modify_qp(&d->qp->ibqp, &a, IB_QP_STATE | IB_QP_AV |
				  IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				  IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
				  IB_QP_MIN_RNR_TIMER, NULL));
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = psn[i];
	a.timeout = s->cfg->timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = rd[i];
	FUZZ_CHECK(!pib_modify_qp(&d->qp->ibqp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
				  IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				  IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC,
				  NULL));
}

static void sim_side_init(struct sim *s, unsigned int i)
{
	struct sim_side *d = &s->side[i];

	d->dev = fuzz_world.dev[i];
	fuzz_port_up(d->dev, FUZZ_DEV_LID(i), IB_MTU_4096);
	d->pd.ibpd.device = &d->dev->ibdev;
	d->scq = sim_cq_new(d);
	d->rcq = sim_cq_new(d);
	d->mr = pib_get_dma_mr(&d->pd.ibpd, IB_ACCESS_LOCAL_WRITE |
			       IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			       IB_ACCESS_REMOTE_ATOMIC);
	FUZZ_CHECK(!IS_ERR(d->mr));
	d->mr->device = &d->dev->ibdev;
	d->mr->pd = &d->pd.ibpd;
	d->remote = malloc(SIM_REMOTE_LEN);
	sim_fill(d->remote, 0x5a + i, 0, SIM_REMOTE_LEN);
	d->landing = calloc(SIM_SQ, SIM_SLOT);
	d->local = calloc(SIM_SQ, SIM_SLOT);
	d->recv = calloc(SIM_RQ, SIM_RECV_LEN);
	d->atom = calloc(2, sizeof(u64));
	d->qp = sim_qp_new(d, sim_sq(s));
	d->progress = jiffies;
}

static void sim_side_fini(struct sim_side *d)
{
	FUZZ_CHECK(!pib_destroy_qp(&d->qp->ibqp, NULL));
	FUZZ_CHECK(!pib_destroy_cq(&d->scq->ibcq, NULL));
	FUZZ_CHECK(!pib_destroy_cq(&d->rcq->ibcq, NULL));
	FUZZ_CHECK(!pib_dereg_mr(d->mr, NULL));
	free(d->qp);
	free(d->scq);
	free(d->rcq);
	free(d->remote);
	free(d->landing);
	free(d->local);
	free(d->recv);
	free(d->atom);
}

/* Posting */
static void sim_post_recv(struct sim *s, struct sim_side *d)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)(d->recv + d->rposted % SIM_RQ * SIM_RECV_LEN),
		.length = SIM_RECV_LEN,
		.lkey = d->mr->lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = d->rposted, .sg_list = &sge, .num_sge = 1,
	};
	const struct ib_recv_wr *bad;

	FUZZ_CHECK(!pib_post_recv(&d->qp->ibqp, &wr, &bad));
	d->rposted++;
}

/* Choose a WR for side @i by the profile. */
static void sim_choose(struct sim *s, unsigned int i, struct sim_wr *w)
{
	static const enum ib_wr_opcode mix[] = {
		IB_WR_RDMA_READ, IB_WR_RDMA_READ, IB_WR_RDMA_READ,
		IB_WR_RDMA_WRITE, IB_WR_RDMA_WRITE, IB_WR_SEND, IB_WR_SEND,
		IB_WR_SEND_WITH_IMM, IB_WR_RDMA_WRITE_WITH_IMM,
		IB_WR_ATOMIC_FETCH_AND_ADD, IB_WR_ATOMIC_CMP_AND_SWP,
	};
	u32 big = sim_below(s, 4) ? 4096 : 65536;

	switch (s->cfg->profile) {
	case SIM_ISER:
		if (i == 0 && sim_below(s, 8)) {
			w->op = IB_WR_RDMA_READ;
			w->len = 8192 + sim_below(s, 120 * 1024 + 1);
		} else {
			w->op = IB_WR_SEND;
			w->len = 16 + sim_below(s, 100);
		}
		break;
	case SIM_READS:
		w->op = IB_WR_RDMA_READ;
		w->len = 1 + sim_below(s, big);
		break;
	default:
		w->op = mix[sim_below(s, ARRAY_SIZE(mix))];
		w->len = sim_below(s, big + 1);
	}
	if (w->op == IB_WR_SEND || w->op == IB_WR_SEND_WITH_IMM)
		w->len = min_t(u32, w->len, SIM_RECV_LEN);
	if (w->op == IB_WR_RDMA_WRITE_WITH_IMM)
		w->len = min_t(u32, w->len, 8192);
	if (w->op == IB_WR_RDMA_READ)
		w->len = max_t(u32, w->len, 1);
	if (w->op == IB_WR_ATOMIC_FETCH_AND_ADD ||
	    w->op == IB_WR_ATOMIC_CMP_AND_SWP)
		w->len = 8;
	w->roff = w->op == IB_WR_RDMA_READ ?
		  sim_below(s, SIM_REMOTE_LEN - w->len + 1) : 0;
}

/*
 * The SGEs of a WR's buffer @slot: one, or (half the time) pieces of
 * it, as rdma_rw gives a READ of scattered pages; returns how many.
 */
static int sim_sgl(struct sim *s, struct sim_side *d, u8 *slot,
		   const struct sim_wr *w, struct ib_sge *sge)
{
	u32 off = 0, n, k = 0;

	if (w->op == IB_WR_ATOMIC_FETCH_AND_ADD ||
	    w->op == IB_WR_ATOMIC_CMP_AND_SWP || !w->len ||
	    sim_below_sge(s, 2)) {
		sge[0] = (struct ib_sge){ (uintptr_t)slot, w->len, d->mr->lkey };
		return 1;
	}
	for (; off < w->len; off += n, k++) {
		n = 1 + sim_below_sge(s, 4096);	/* (min_t() takes it twice) */
		n = k == SIM_MAX_SGE - 1 ? w->len - off : min(w->len - off, n);
		sge[k] = (struct ib_sge){ (uintptr_t)slot + off, n,
					  d->mr->lkey };
	}
	return k;
}

/* Post one WR of side @i, if its SQ has room and its quota is not out. */
static bool sim_post_send(struct sim *s, unsigned int i)
{
	struct sim_side *d = &s->side[i], *peer = &s->side[!i];
	struct sim_wr *w = &d->wr[d->posted % SIM_SQ];
	u8 *slot = d->local + d->posted % SIM_SQ * SIM_SLOT;
	union {
		struct ib_rdma_wr rdma;
		struct ib_atomic_wr atomic;
		struct ib_send_wr wr;
	} u = { 0 };
	struct ib_sge sge[SIM_MAX_SGE];
	const struct ib_send_wr *bad;
	u64 rslot = d->posted % SIM_SQ * SIM_SLOT;

	if (d->posted - d->done >= sim_sq(s) || d->posted >= s->cfg->wrs)
		return false;
	/* A SEND needs a slot in the receiver's ring of expected lengths. */
	if (d->sends - peer->rdone >= SIM_SENDS)
		return false;
	memset(w, 0, sizeof(*w));
	sim_choose(s, i, w);
	w->id = d->posted;
	u.wr.num_sge = sim_sgl(s, d, slot, w, sge);
	u.wr.wr_id = w->id;
	u.wr.opcode = w->op;
	/* Some go unsignaled, as the first READs of an rdma_rw chain do. */
	w->signaled = sim_below(s, 4) || d->posted + 1 == s->cfg->wrs;
	u.wr.send_flags = (w->signaled ? IB_SEND_SIGNALED : 0) |
			  (sim_below(s, 16) ? 0 : IB_SEND_FENCE) |
			  (sim_below(s, 4) ? 0 : IB_SEND_SOLICITED);
	u.wr.sg_list = sge;
	u.wr.ex.imm_data = cpu_to_be32((u32)w->id);
	switch (w->op) {
	case IB_WR_RDMA_READ:
		memset(slot, 0, w->len);
		u.rdma.remote_addr = (uintptr_t)peer->remote + w->roff;
		u.rdma.rkey = peer->mr->rkey;
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		sim_fill(slot, w->id * 2 + i, 0, w->len);
		u.rdma.remote_addr = (uintptr_t)peer->landing + rslot;
		u.rdma.rkey = peer->mr->rkey;
		break;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		u.atomic.remote_addr = (uintptr_t)&peer->atom[0];
		u.atomic.rkey = peer->mr->rkey;
		u.atomic.compare_add = 1;
		w->expect = peer->fadds++;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		u.atomic.remote_addr = (uintptr_t)&peer->atom[1];
		u.atomic.rkey = peer->mr->rkey;
		u.atomic.compare_add = peer->cswaps;
		u.atomic.swap = peer->cswaps + 1;
		w->expect = peer->cswaps++;
		break;
	default:
		sim_fill(slot, d->sends * 2 + i, 0, w->len);
		d->send_len[d->sends++ % SIM_SENDS] = w->len;
	}
	if (w->op == IB_WR_RDMA_WRITE_WITH_IMM)
		d->send_len[d->sends++ % SIM_SENDS] = ~0u;	/* no payload */
	if (pib_post_send(&d->qp->ibqp, &u.wr, &bad))
		sim_fail(s, "%c: post_send failed", 'A' + i);
	d->posted++;
	return true;
}

/* Completions */

/* The data of a completed WR of side @i is right. */
static void sim_check_data(struct sim *s, unsigned int i, struct sim_wr *w)
{
	struct sim_side *d = &s->side[i], *peer = &s->side[!i];
	u8 *slot = d->local + w->id % SIM_SQ * SIM_SLOT;
	u32 bad = 0;

	switch (w->op) {
	case IB_WR_RDMA_READ:
		bad = sim_check(slot, 0x5a + !i, w->roff, w->len);
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		bad = sim_check(peer->landing + w->id % SIM_SQ * SIM_SLOT,
				w->id * 2 + i, 0, w->len);
		break;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_ATOMIC_CMP_AND_SWP:
		if (*(u64 *)slot != w->expect)
			sim_fail(s, "%c: atomic %llu returned %llu, %llu expected",
				 'A' + i, w->id, *(u64 *)slot, w->expect);
		break;
	default:
		break;
	}
	if (bad)
		sim_fail(s, "%c: WR %llu (opcode %d, %u bytes): byte %u wrong",
			 'A' + i, w->id, w->op, w->len, bad - 1);
}

/*
 * A send completion: it and the unsignaled WRs before it are done (IBA
 * 10.8.3: in order), successfully.
 */
static void sim_check_send(struct sim *s, unsigned int i, struct ib_wc *wc)
{
	struct sim_side *d = &s->side[i];
	struct sim_wr *w = &d->wr[d->done % SIM_SQ];

	if (wc->status != IB_WC_SUCCESS) {
		if (s->cfg->may_fail && !s->strict &&
		    wc->status == IB_WC_RETRY_EXC_ERR) {
			d->failed = true;
			return;
		}
		if (d->failed && wc->status == IB_WC_WR_FLUSH_ERR)
			return;
		sim_fail(s, "%c: WR %llu (opcode %d, %u bytes) completed with status %d",
			 'A' + i, wc->wr_id, w->op, w->len, wc->status);
	}
	if (wc->wr_id < d->done || wc->wr_id >= d->posted)
		sim_fail(s, "%c: WR %llu completed, %llu expected", 'A' + i,
			 wc->wr_id, d->done);
	for (; d->done <= wc->wr_id; d->done++) {
		w = &d->wr[d->done % SIM_SQ];
		if (w->signaled && w->id != wc->wr_id)
			sim_fail(s, "%c: WR %llu completed, %llu expected",
				 'A' + i, wc->wr_id, w->id);
		sim_check_data(s, i, w);
	}
	if (w->op == IB_WR_RDMA_READ && wc->byte_len != w->len)
		sim_fail(s, "%c: READ %llu: byte_len %u of %u", 'A' + i,
			 wc->wr_id, wc->byte_len, w->len);
	d->progress = jiffies;
}

static void sim_check_recv(struct sim *s, unsigned int i, struct ib_wc *wc)
{
	struct sim_side *d = &s->side[i], *peer = &s->side[!i];
	u64 n = d->rdone;
	u32 len = peer->send_len[n % SIM_SENDS];
	u8 *buf = d->recv + wc->wr_id % SIM_RQ * SIM_RECV_LEN;
	u32 bad;

	if (wc->status != IB_WC_SUCCESS) {
		if (s->cfg->may_fail && wc->status == IB_WC_WR_FLUSH_ERR)
			return;
		sim_fail(s, "%c: receive %llu completed with status %d",
			 'A' + i, wc->wr_id, wc->status);
	}
	if (wc->wr_id != n)
		sim_fail(s, "%c: receive %llu completed, %llu expected",
			 'A' + i, wc->wr_id, n);
	if (len == ~0u) {
		if (wc->opcode != IB_WC_RECV_RDMA_WITH_IMM)
			sim_fail(s, "%c: receive %llu: opcode %d, WRITE with immediate expected",
				 'A' + i, n, wc->opcode);
	} else {
		if (wc->opcode != IB_WC_RECV || wc->byte_len != len)
			sim_fail(s, "%c: receive %llu: opcode %d, %u bytes, %u expected",
				 'A' + i, n, wc->opcode, wc->byte_len, len);
		/* The n-th SEND's pattern: see sim_post_send(). */
		bad = sim_check(buf, n * 2 + !i, 0, len);
		if (bad)
			sim_fail(s, "%c: receive %llu: byte %u wrong", 'A' + i,
				 n, bad - 1);
	}
	d->rdone++;
}

static void sim_poll(struct sim *s, unsigned int i)
{
	struct sim_side *d = &s->side[i];
	struct ib_wc wc[16];
	int k, got;

	while ((got = pib_poll_cq(&d->scq->ibcq, 16, wc)) > 0)
		for (k = 0; k < got; k++)
			sim_check_send(s, i, &wc[k]);
	while ((got = pib_poll_cq(&d->rcq->ibcq, 16, wc)) > 0)
		for (k = 0; k < got; k++)
			sim_check_recv(s, i, &wc[k]);
}

/* Fire the timers that are due, and no later ones. */
static void sim_timers(void)
{
	while (kshim_timer_due())
		kshim_run_timers();
}

static bool sim_side_idle(struct sim *s, unsigned int i)
{
	struct sim_side *d = &s->side[i], *peer = &s->side[!i];

	return d->failed || peer->failed ||
	       (d->done == s->cfg->wrs && d->rdone == peer->sends);
}

/*
 * What must hold between steps: a requester has no more READs and
 * atomics out than it may, a responder keeps no more than its resources.
 * A requester with nothing out counting some is noted (it only slows it).
 */
static void sim_check_qp(struct sim *s, unsigned int i)
{
	struct pib_qp *qp = s->side[i].qp;

	if (qp->req.rd_atomic > qp->max_rd_atomic)
		sim_fail(s, "%c: %u READs/atomics out, %u allowed", 'A' + i,
			 qp->req.rd_atomic, qp->max_rd_atomic);
	if (qp->resp.res_head - qp->resp.res_tail > qp->resp.num_res)
		sim_fail(s, "%c: more responder resources than %u", 'A' + i,
			 qp->resp.num_res);
	if (qp->req.state == PIB_REQ_RNR_WAIT && !timer_pending(&qp->req.timer))
		sim_fail(s, "%c: waits for an RNR timer that does not run",
			 'A' + i);
	if (qp->sq.ring.cons == qp->req.cur && !qp->req.offset &&
	    qp->req.rd_atomic)
		s->leaks++;
}

/*
 * The packets that are due. With "busy", some jiffies they come while
 * the QPs' work runs (in a softirq that interrupts it, or on another
 * CPU): the receive path finds each QP running and leaves its sending
 * to that work, which goes round once more when it finishes.
 */
static void sim_deliver_due(struct sim *s)
{
	bool busy = s->cfg->busy && !sim_below(s, 3), more;
	unsigned int i;

	for (i = 0; i < 2 && busy; i++)
		set_bit(PIB_QP_RUNNING, &s->side[i].qp->run_flags);
	do {
		more = sim_deliver(s, 0);
		more |= sim_deliver(s, 1);
	} while (more);
	for (i = 0; i < 2 && busy; i++) {
		clear_bit(PIB_QP_RUNNING, &s->side[i].qp->run_flags);
		pib_qp_run(s->side[i].qp);
	}
}

/* One jiffy: packets, timers, work, completions, new work. */
static void sim_step(struct sim *s)
{
	unsigned int i, n;

	jiffies++;
	sim_deliver_due(s);
	sim_timers();
	kshim_run_work();
	for (i = 0; i < 2; i++) {
		struct sim_side *d = &s->side[i];

		sim_poll(s, i);
		/* RNR: a receiver that posts a few receives a jiffy at most. */
		n = s->cfg->rnr ? sim_below(s, 3) : SIM_RQ;
		while (n-- && d->rposted - d->rdone < SIM_RQ)
			sim_post_recv(s, d);
		n = 1 + sim_below(s, 8);
		while (n-- && !d->failed && sim_post_send(s, i))
			;
		if (d->done == d->posted || d->failed)
			d->progress = jiffies;
		s->max_gap = max(s->max_gap, jiffies - d->progress);
		sim_check_qp(s, i);
		if (jiffies - d->progress > SIM_STALL_SECS * HZ)
			sim_fail(s, "%c: no WR completed for %u s, %llu out",
				 'A' + i, SIM_STALL_SECS, d->posted - d->done);
	}
	kshim_run_work();
}

/* The run */
struct sim_totals {
	u64 pkts, lost, secs, leaks, dup_misses, stale_naks;
	u64 stats[PIB_NUM_STATS];
	unsigned long max_gap;
	u32 max_gap_seed;
	unsigned int runs, failed;
};

static void sim_run(const struct sim_config *cfg, u32 seed, bool verbose,
		    bool strict, struct sim_totals *t)
{
	static struct sim sim;
	struct sim *s = &sim;
	u32 psn[2];
	u8 rd[2];
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->seed = seed;
	s->verbose = verbose;
	s->strict = strict;
	s->rng = 0x9e3779b97f4a7c15ULL * (seed + 1) ^ (uintptr_t)(cfg - sim_configs);
	s->rng_sge = s->rng ^ 0x5555;
	sim_now = s;
	fuzz_world_init(2, false);
	fuzz_world.tx_hook = sim_tx;
	s->start = jiffies;
	for (i = 0; i < 2; i++) {
		sim_side_init(s, i);
		/* Any PSN, also near the wrap of the 24-bit space. */
		psn[i] = sim_below(s, 2) ? sim_below(s, 1 << 24) :
			 (0x1000000 - 1 - sim_below(s, 200)) & PIB_PSN_MASK;
		rd[i] = cfg->rd_atomic ? cfg->rd_atomic : 1 + sim_below(s, 16);
	}
	for (i = 0; i < 2; i++)
		sim_connect(s, i, psn, rd);
	for (i = 0; i < 2; i++)
		while (s->side[i].rposted < (cfg->rnr ? 2 : SIM_RQ))
			sim_post_recv(s, &s->side[i]);
	kshim_run_work();
	while (!sim_side_idle(s, 0) || !sim_side_idle(s, 1)) {
		sim_step(s);
		if (jiffies - s->start > SIM_MAX_SECS * HZ)
			sim_fail(s, "not done after %u s", SIM_MAX_SECS);
	}
	if (verbose)
		sim_dump(s);
	t->secs += (jiffies - s->start) / HZ;
	t->runs++;
	if (s->max_gap > t->max_gap) {
		t->max_gap = s->max_gap;
		t->max_gap_seed = seed;
	}
	t->failed += s->side[0].failed || s->side[1].failed;
	t->leaks += s->leaks;
	t->dup_misses += s->dup_misses;
	t->stale_naks += s->stale_naks;
	for (i = 0; i < 2 * PIB_NUM_STATS; i++)
		t->stats[i % PIB_NUM_STATS] +=
			atomic64_read(&s->side[i / PIB_NUM_STATS].dev->stats[i % PIB_NUM_STATS]);
	for (i = 0; i < 2; i++) {
		t->pkts += s->link[i].sent;
		t->lost += s->link[i].lost;
		sim_link_purge(&s->link[i]);
	}
	for (i = 0; i < 2; i++)
		sim_side_fini(&s->side[i]);
	fuzz_world_fini();
}

/*
 * A CQ too small for what its QP completes (here WRs that a QP in ERR
 * flushes) overflows: its consumer hears of it once (IB_EVENT_CQ_ERR),
 * and the completions that fitted are still there to poll.
 */
static unsigned int sim_cq_errors;

static void sim_cq_event(struct ib_event *ev, void *ctx)
{
	FUZZ_CHECK(ev->event == IB_EVENT_CQ_ERR);
	sim_cq_errors++;
}

static void sim_cq_overflow(void)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	const struct ib_send_wr *bad;
	struct sim_side d = { 0 };
	struct ib_wc wc[16];
	unsigned int i;
	int got;

	fuzz_world_init(1, false);
	d.dev = fuzz_world.dev[0];
	fuzz_port_up(d.dev, FUZZ_DEV_LID(0), IB_MTU_4096);
	d.pd.ibpd.device = &d.dev->ibdev;
	d.scq = sim_cq_new(&d);
	d.rcq = calloc(1, sizeof(*d.rcq));
	d.rcq->ibcq.device = &d.dev->ibdev;
	d.rcq->ibcq.event_handler = sim_cq_event;
	FUZZ_CHECK(!pib_create_cq(&d.rcq->ibcq,
				  &(struct ib_cq_init_attr){ .cqe = 3 }, NULL));
	swap(d.scq, d.rcq);
	d.qp = sim_qp_new(&d, 8);
	FUZZ_CHECK(!pib_modify_qp(&d.qp->ibqp, &a, IB_QP_STATE, NULL));
	for (i = 0; i < 8; i++) {
		wr.wr_id = i;
		FUZZ_CHECK(!pib_post_send(&d.qp->ibqp, &wr, &bad));
		kshim_run_work();
	}
	FUZZ_CHECK(sim_cq_errors == 1);
	got = pib_poll_cq(&d.scq->ibcq, 16, wc);
	FUZZ_CHECK(got >= d.scq->ibcq.cqe && got < 8);
	for (i = 0; i < got; i++)
		FUZZ_CHECK(wc[i].wr_id == i &&
			   wc[i].status == IB_WC_WR_FLUSH_ERR);
	FUZZ_CHECK(!pib_destroy_qp(&d.qp->ibqp, NULL));
	FUZZ_CHECK(!pib_destroy_cq(&d.scq->ibcq, NULL));
	FUZZ_CHECK(!pib_destroy_cq(&d.rcq->ibcq, NULL));
	free(d.qp);
	free(d.scq);
	free(d.rcq);
	fuzz_world_fini();
	printf("sim_rc %-24s ok  IB_EVENT_CQ_ERR once, %d of 8 completions kept\n",
	       "cq-overflow",
	       got);
}

/* The dump of a failed run: both QPs, then the link's latest packets. */
static void sim_dump_qp(struct sim *s, unsigned int i)
{
	struct sim_side *d = &s->side[i];
	struct pib_qp *qp = d->qp;
	struct pib_req *req = &qp->req;
	struct pib_resp *resp = &qp->resp;
	struct pib_sq *sq = &qp->sq;
	u32 k;

	fprintf(stderr, "%c: QP 0x%x state %d, WRs posted %llu done %llu, receives %llu of %llu, failed %d\n",
		'A' + i, qp->ibqp.qp_num, qp->state, d->posted, d->done,
		d->rdone, d->rposted, d->failed);
	fprintf(stderr, "  req: cur %u offset %u psn 0x%06x acked 0x%06x sent 0x%06x retry_left %d rnr_left %d rd_atomic %u/%u %s %s timer %s%ld\n",
		req->cur, req->offset, req->psn, req->acked_psn, req->sent_psn,
		req->retry_left, req->rnr_left, req->rd_atomic,
		qp->max_rd_atomic, pib_req_state_name(req->state),
		pib_comp_state_name(req->comp_state),
		timer_pending(&req->timer) ? "in " : "off ",
		timer_pending(&req->timer) ?
		(long)(req->timer.expires - jiffies) : 0L);
	fprintf(stderr, "  sq: cons %u fetched %u prod %u\n", sq->ring.cons,
		sq->fetched, sq->ring.prod);
	for (k = sq->ring.cons; k != sq->fetched; k++) {
		struct pib_swqe *st = &sq->st[k & (sq->ring.num - 1)];

		fprintf(stderr, "    wqe %u op %u len %u psn 0x%06x..0x%06x npkts %u resp %u from %u sent %d done %d\n",
			k, pib_sq_wqe(qp, k)->opcode, st->len, st->first_psn,
			st->last_psn, st->npkts, st->resp_off, st->resp_start,
			st->sent, st->resp_done);
	}
	fprintf(stderr, "  resp: epsn 0x%06x msn %u %s msg %s res %u..%u of %u ack_due %d (0x%06x 0x%02x) reads_due %d\n",
		resp->epsn, resp->msn, pib_resp_state_name(resp->state),
		pib_resp_msg_state_name(resp->msg_state),
		resp->res_tail, resp->res_head, resp->num_res, resp->ack_due,
		resp->ack_psn, resp->ack_syn, resp->reads_due);
	for (k = 0; k < resp->num_res; k++) {
		struct pib_rd_res *r = &resp->res[k];

		if (r->opcode)
			fprintf(stderr, "    res[%u] op 0x%02x psn 0x%06x..0x%06x len %u sent %u start %u done %d\n",
				k, r->opcode, r->psn, r->end_psn, r->len,
				r->sent, r->start, r->done);
	}
}

static void sim_dump(struct sim *s)
{
	u64 k = s->ntrace > SIM_TRACE ? s->ntrace - SIM_TRACE : 0;
	unsigned int i;

	for (i = 0; i < 2; i++)
		sim_dump_qp(s, i);
	fprintf(stderr, "link: A->B %llu sent %llu lost (%llu queue full), B->A %llu sent %llu lost (%llu); last packets (t in jiffies, HZ %d):\n",
		s->link[0].sent, s->link[0].lost, s->link[0].qdrops,
		s->link[1].sent, s->link[1].lost, s->link[1].qdrops, HZ);
	for (; k < s->ntrace && !s->verbose; k++) {
		struct sim_event *e = &s->trace[k % SIM_TRACE];

		fprintf(stderr, "  %6lu %c->%c op 0x%02x psn 0x%06x syn 0x%02x len %4u%s\n",
			e->t, 'A' + e->from, 'B' - e->from, e->op, e->psn,
			e->syn, e->len, e->lost ? "  LOST" : "");
	}
}

static void sim_usage(void)
{
	fprintf(stderr, "usage: sim_rc [-n seeds] [-c config] [-s seed] [-v] [-l]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int config = -1, opt;
	u32 seeds = 1, seed = 0, first = 1, c, n, r;
	bool verbose = false, one = false;

	while ((opt = getopt(argc, argv, "n:c:s:f:vl")) != -1) {
		switch (opt) {
		case 'n':
			seeds = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			first = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			config = atoi(optarg);
			break;
		case 's':
			seed = strtoul(optarg, NULL, 0);
			one = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'l':
			for (c = 0; c < SIM_NCONFIGS; c++)
				printf("%2u %s\n", c, sim_configs[c].name);
			return 0;
		default:
			sim_usage();
		}
	}
	if (config >= (int)SIM_NCONFIGS || (one && config < 0))
		sim_usage();
	if (config < 0)
		sim_cq_overflow();
	for (c = 0; c < SIM_NCONFIGS; c++) {
		struct sim_totals t = { 0 };

		if (config >= 0 && c != (u32)config)
			continue;
		for (n = 0; n < (one ? 1 : seeds); n++) {
			sim_run(&sim_configs[c], one ? seed : first + n, verbose,
				false, &t);
		}
		for (r = 0; r < ARRAY_SIZE(sim_regressions) && !one; r++)
			if (sim_regressions[r].config == c)
				sim_run(&sim_configs[c], sim_regressions[r].seed,
					verbose, true, &t);
		printf("sim_rc %-24s ok %3u runs %5llu s, %7llu packets %6llu lost, longest wait %lu.%02lu s (seed %u)",
		       sim_configs[c].name, t.runs, t.secs, t.pkts,
		       t.lost, t.max_gap / HZ, t.max_gap % HZ * 100 / HZ,
		       t.max_gap_seed);
		if (t.failed)
			printf(", %u retry exceeded", t.failed);
		printf("\n");
		if (verbose || seeds > 4)
			printf("    timeouts %llu, seq NAKs %llu, RNR NAKs %llu, dups %llu, read gaps %llu, unsent %llu; rd_atomic leaks %llu, duplicates without a resource %llu, stale NAKs %llu\n",
			       t.stats[PIB_STAT_RETRANSMIT_TIMEOUTS],
			       t.stats[PIB_STAT_SEQ_NAKS_RCVD],
			       t.stats[PIB_STAT_RNR_NAKS_RCVD],
			       t.stats[PIB_STAT_DUP_REQUESTS],
			       t.stats[PIB_STAT_READ_GAPS],
			       t.stats[PIB_STAT_RESP_PSN_UNSENT], t.leaks,
			       t.dup_misses, t.stale_naks);
	}
	return 0;
}
