// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-abuse: what a local, hostile process can do to a pib device through
 * verbs and the rings it maps. Each test prints "ok - ..." or "FAIL - ...";
 * the exit status is 1 if any check failed (2 for bad usage). The kernel's
 * own complaints (oops, lockup) are for the test rig to catch.
 *
 *   pib-abuse -d DEV [-t SECONDS] TEST...
 *
 * Tests:
 *   reg-mr      ibv_reg_mr of unmapped, PROT_NONE and kernel addresses fails
 *               cleanly, and the device still works
 *   memlock     as an unprivileged user with a small RLIMIT_MEMLOCK,
 *               ibv_reg_mr of more than that fails with ENOMEM
 *   keys        MR keys are not predictable: not a run of indices
 *   mw          the rules of memory windows hold against a process that
 *               breaks them (binds, invalidations, deregistration)
 *   rereg       ibv_rereg_mr moves an MR's memory, PD and access, keeps its
 *               keys, refuses while a window is bound and to make read-only
 *               memory writable, and races WRITEs that hit the MR
 *   sqd         a QP in SQD raises IBV_EVENT_SQ_DRAINED when asked to, once
 *               its WQEs completed, and starts no new WQE until back in RTS
 *   limits      modify_qp refuses attributes wider than their IBA fields
 *   flush-hang  a thread keeps the SQ and RQ producer indices ahead of the
 *               kernel while the QP goes to ERR: the flush still ends
 *   mmap-race   mmap of a CQ ring races its destruction and resize_cq
 *   scribble    a thread writes random indices and entries into every
 *               mapped ring while another creates, posts, flushes, resets,
 *               resizes (CQs and SRQs) and destroys for -t seconds
 *   verbs       as nobody, random verbs with random arguments, valid or
 *               not, on a pool of objects for -t seconds; the device still
 *               works
 *   objects MB  create big CQs, SRQs and QPs until the kernel refuses or MB
 *               megabytes are asked for; run in a memory cgroup, it must
 *               end with ENOMEM (not the OOM killer) before MB
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define PROG		"pib-abuse"
#define MAX_MAPS	256
/* struct pib_ring_hdr (<rdma/pib-abi.h>): producer, then consumer. */
#define HDR_PRODUCER	0
#define HDR_CONSUMER	64
#define HDR_SIZE	128
#define NOBODY		65534

static const char *dev_name;
/* The port's LID, for a QP connected to itself that must reach itself. */
static uint16_t self_lid;
static unsigned int seconds = 20;
static int failures;

static void ok(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("ok - ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL - ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	failures++;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct ibv_context *open_dev(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr pa;
	int i;

	if (!list)
		die("no RDMA devices: %s", strerror(errno));
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die("cannot open %s", dev_name);
	if (!ibv_query_port(ctx, 1, &pa))
		self_lid = pa.lid;
	return ctx;
}

/* A mapping of the uverbs file: a ring the provider mapped. */
struct map {
	uint8_t *start;
	size_t len;
	off_t off;
};

/* The rings mapped now, from /proc/self/maps. */
static int uverbs_maps(struct map *maps, int max)
{
	unsigned long start, end, off;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		die("/proc/self/maps: %s", strerror(errno));
	while (n < max && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) != 3)
			continue;
		maps[n].start = (uint8_t *)start;
		maps[n].len = end - start;
		maps[n].off = (off_t)off;
		n++;
	}
	fclose(f);
	return n;
}

static volatile uint32_t *ring_word(const struct map *m, size_t off)
{
	return (volatile uint32_t *)(m->start + off);
}

static struct ibv_cq *make_cq(struct ibv_context *ctx, int cqe)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, cqe, NULL, NULL, 0);

	if (!cq)
		die("ibv_create_cq(%d): %s", cqe, strerror(errno));
	return cq;
}

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			      struct ibv_srq *srq, enum ibv_qp_type type,
			      uint32_t wr, uint32_t sge)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = wr, .max_recv_wr = srq ? 0 : wr,
			 .max_send_sge = sge, .max_recv_sge = srq ? 0 : sge },
	};

	return ibv_create_qp(pd, &a);
}

/*
 * RESET -> INIT -> RTR -> RTS, connected to QP @dqpn (RC, UC) at LID
 * @dlid (0: through no port, its packets go nowhere).
 */
static int qp_to_rts_at(struct ibv_qp *qp, uint32_t dqpn, uint16_t dlid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};
	bool ud = qp->qp_type == IBV_QPT_UD;
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS));
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_256;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = dlid;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | (ud ? 0 : IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    (qp->qp_type == IBV_QPT_RC ? IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER : 0)));
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     (qp->qp_type == IBV_QPT_RC ? IBV_QP_TIMEOUT |
			      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			      IBV_QP_MAX_QP_RD_ATOMIC : 0));
}

/* RESET -> RTS, connected to itself through no port. */
static int qp_to_rts(struct ibv_qp *qp)
{
	return qp_to_rts_at(qp, qp->qp_num, 0);
}

static int qp_to_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* The device still registers memory and creates a QP. */
static void device_works(struct ibv_pd *pd, const char *after)
{
	static char buf[4096];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_cq *cq = ibv_create_cq(pd->context, 4, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? make_qp(pd, cq, NULL, IBV_QPT_RC, 4, 1) : NULL;

	if (mr && qp)
		ok("the device still works after %s", after);
	else
		fail("the device stopped working after %s: %s", after, strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
}

static void expect_reg_fails(struct ibv_pd *pd, void *addr, size_t len,
			     const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE);

	if (mr) {
		fail("ibv_reg_mr of %s succeeded", what);
		ibv_dereg_mr(mr);
		return;
	}
	ok("ibv_reg_mr of %s fails: %s", what, strerror(errno));
}

static void test_reg_mr(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	size_t len = 1 << 20;
	void *p;

	if (!pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	munmap(p, len);
	expect_reg_fails(pd, p, len, "an unmapped range");
	p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	expect_reg_fails(pd, p, len, "a PROT_NONE range");
	munmap(p, len);
	expect_reg_fails(pd, (void *)0xffff888000000000ul, 4096, "a kernel address");
	device_works(pd, "failed registrations");
	ibv_dealloc_pd(pd);
}

/* In a child that is nobody with RLIMIT_MEMLOCK of 64 KiB. */
static int memlock_child(void)
{
	struct rlimit rl = { 64 << 10, 64 << 10 };
	size_t len = 8 << 20;
	struct ibv_context *ctx;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	char *buf;

	if (setrlimit(RLIMIT_MEMLOCK, &rl) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		die("cannot become nobody with a small RLIMIT_MEMLOCK: %s", strerror(errno));
	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	buf = malloc(len);
	if (!pd || !buf)
		die("ibv_alloc_pd: %s", strerror(errno));
	memset(buf, 1, len);
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (mr) {
		fail("nobody registered 8 MiB over RLIMIT_MEMLOCK 64 KiB");
		ibv_dereg_mr(mr);
	} else if (errno != ENOMEM) {
		fail("ibv_reg_mr over RLIMIT_MEMLOCK: %s, not ENOMEM", strerror(errno));
	} else {
		ok("ibv_reg_mr over RLIMIT_MEMLOCK fails with ENOMEM");
	}
	device_works(pd, "a registration over RLIMIT_MEMLOCK");
	free(buf);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return failures ? 1 : 0;
}

static void test_memlock(void)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid)
		exit(memlock_child());
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the unprivileged child failed (status 0x%x)", st);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * IBA keys: a 24-bit index and an 8-bit key. With indices handed out in
 * order, a peer that sees one R_Key guesses its neighbours' in 256 tries.
 */
static void test_keys(struct ibv_context *ctx)
{
	enum { N = 64 };
	static char buf[N][64];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr[N];
	uint32_t idx[N];
	int i, near = 0;

	if (!pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	for (i = 0; i < N; i++) {
		mr[i] = ibv_reg_mr(pd, buf[i], sizeof(buf[i]), IBV_ACCESS_LOCAL_WRITE);
		if (!mr[i])
			die("ibv_reg_mr: %s", strerror(errno));
		idx[i] = mr[i]->lkey >> 8;
	}
	qsort(idx, N, sizeof(idx[0]), cmp_u32);
	for (i = 1; i < N; i++)
		near += idx[i] - idx[i - 1] < 256;
	if (near > 2)
		fail("%d of %d MR key indices lie within 256 of another (%#x .. %#x)",
		     near, N - 1, idx[0], idx[N - 1]);
	else
		ok("MR key indices are spread (%#x .. %#x)", idx[0], idx[N - 1]);
	for (i = 0; i < N; i++)
		ibv_dereg_mr(mr[i]);
	ibv_dealloc_pd(pd);
}

/* The status of the next completion of @cq within 5 s, or -1. */
static int next_status(struct ibv_cq *cq)
{
	double end = now() + 5;
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && now() < end)
		usleep(1000);
	return n == 1 ? (int)wc.status : -1;
}

/*
 * Two RC QPs connected to each other through the port, each with a CQ of
 * its own: @a the requester, @b the responder whose windows are bound.
 */
static void qp_pair(struct ibv_pd *pd, struct ibv_qp **a, struct ibv_qp **b)
{
	*a = make_qp(pd, make_cq(pd->context, 16), NULL, IBV_QPT_RC, 8, 1);
	*b = make_qp(pd, make_cq(pd->context, 16), NULL, IBV_QPT_RC, 8, 1);
	if (!*a || !*b || qp_to_rts_at(*a, (*b)->qp_num, self_lid) ||
	    qp_to_rts_at(*b, (*a)->qp_num, self_lid))
		die("two connected RC QPs: %s", strerror(errno));
}

static void qp_pair_destroy(struct ibv_qp *a, struct ibv_qp *b)
{
	struct ibv_cq *ca = a->send_cq, *cb = b->send_cq;

	if (ibv_destroy_qp(a) || ibv_destroy_qp(b) || ibv_destroy_cq(ca) ||
	    ibv_destroy_cq(cb))
		fail("destroying two QPs and their CQs: %s", strerror(errno));
}

/* Bind type 2 window @mw to @len bytes of @mr: its completion's status. */
static int bind2(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr,
		 uint64_t len, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED,
		.bind_mw = { .mw = mw, .rkey = rkey, .bind_info = {
			.mr = mr, .addr = (uintptr_t)mr->addr, .length = len,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE } },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad) ? -1 : next_status(qp->send_cq);
}

/* Bind type 1 window @mw to @mr with @access: its completion's status. */
static int bind1(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr,
		 int access)
{
	struct ibv_mw_bind b = { .send_flags = IBV_SEND_SIGNALED, .bind_info = {
		.mr = mr, .addr = (uintptr_t)mr->addr, .length = mr->length,
		.mw_access_flags = access } };

	return ibv_bind_mw(qp, mw, &b) ? -1 : next_status(qp->send_cq);
}

/* An 8-byte RDMA WRITE from @src through @rkey at @addr: its status. */
static int write_via(struct ibv_qp *qp, struct ibv_mr *src, uint64_t addr,
		     uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)src->addr, 8, src->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED, .wr.rdma = { addr, rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad) ? -1 : next_status(qp->send_cq);
}

/* @st is the status @want: ok, or fail naming both. */
static void expect_status(int st, int want, const char *what)
{
	if (st == want)
		ok("%s (%s)", what, ibv_wc_status_str(want));
	else
		fail("%s: %s, not %s", what, st < 0 ? "no completion" :
		     ibv_wc_status_str(st), ibv_wc_status_str(want));
}

/*
 * mw: a type 2 window bound to an MR keeps it from deregistration, is not
 * bound twice, works on its own QP only, and is unbound when that QP is
 * destroyed; binds of a type 1 window that is zero-based, or onto an MR
 * without MW_BIND access, fail; LOCAL_INV does not unbind a type 1 window.
 * A failure puts a QP in error, and a remote access error its peer too:
 * each check has a pair of QPs of its own.
 */
static void test_mw(struct ibv_context *ctx)
{
	static char buf[4096], src[64];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_send_wr inv = { .opcode = IBV_WR_LOCAL_INV,
				   .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_mr *mr, *smr, *plain;
	struct ibv_mw *mw1, *mw2, *mw3;
	struct ibv_qp *a, *b, *c, *d;
	uint32_t rkey;
	int err;

	if (!pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_MW_BIND);
	smr = ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	plain = ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	mw3 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	if (!mr || !smr || !plain || !mw1 || !mw2 || !mw3)
		die("MRs and memory windows: %s", strerror(errno));
	qp_pair(pd, &a, &b);
	rkey = ibv_inc_rkey(mw2->rkey);
	expect_status(bind2(b, mw2, mr, sizeof(buf), rkey), IBV_WC_SUCCESS,
		      "a type 2 window is bound");
	expect_status(write_via(a, smr, (uintptr_t)buf, rkey), IBV_WC_SUCCESS,
		      "a WRITE through it to its QP");
	err = ibv_dereg_mr(mr);
	if (err == EBUSY)
		ok("an MR with a window bound to it is not deregistered (EBUSY)");
	else
		fail("ibv_dereg_mr of an MR with a window bound: %s", strerror(err));
	qp_pair(pd, &c, &d);
	expect_status(write_via(c, smr, (uintptr_t)buf, rkey),
		      IBV_WC_REM_ACCESS_ERR, "its R_Key at another QP");
	qp_pair_destroy(c, d);
	expect_status(bind2(b, mw2, mr, 64, ibv_inc_rkey(rkey)),
		      IBV_WC_MW_BIND_ERR, "a bound type 2 window is not bound again");
	qp_pair_destroy(a, b);
	qp_pair(pd, &a, &b);
	expect_status(bind2(b, mw2, mr, 64, ibv_inc_rkey(rkey)), IBV_WC_SUCCESS,
		      "its QP destroyed, the window is bound anew");
	expect_status(bind2(a, mw3, plain, 8, ibv_inc_rkey(mw3->rkey)),
		      IBV_WC_MW_BIND_ERR, "a bind onto an MR without MW_BIND access");
	qp_pair_destroy(a, b);
	qp_pair(pd, &a, &b);
	expect_status(bind1(a, mw1, mr, IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_ZERO_BASED), IBV_WC_MW_BIND_ERR,
		      "a zero-based type 1 window");
	expect_status(bind1(b, mw1, mr, IBV_ACCESS_REMOTE_WRITE),
		      IBV_WC_SUCCESS, "a type 1 window is bound");
	inv.invalidate_rkey = mw1->rkey;
	expect_status(ibv_post_send(b, &inv, &bad) ? -1 :
		      next_status(b->send_cq), IBV_WC_MW_BIND_ERR,
		      "LOCAL_INV of a type 1 window");
	qp_pair_destroy(a, b);
	if (ibv_dealloc_mw(mw1) || ibv_dealloc_mw(mw2) || ibv_dealloc_mw(mw3))
		fail("ibv_dealloc_mw: %s", strerror(errno));
	err = ibv_dereg_mr(mr);
	if (err)
		fail("ibv_dereg_mr once its windows are gone: %s", strerror(err));
	else
		ok("the MR is deregistered once its windows are gone");
	ibv_dereg_mr(smr);
	ibv_dereg_mr(plain);
	device_works(pd, "breaking the rules of memory windows");
	ibv_dealloc_pd(pd);
}

/* ibv_rereg_mr: 0, or why it failed (errno, or what libibverbs said). */
static int rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		 size_t len, int access)
{
	errno = 0;
	return ibv_rereg_mr(mr, flags, pd, addr, len, access) ? errno ? errno : EIO : 0;
}

/* ibv_rereg_mr() answered @err where @want was expected: ok, or fail. */
static void expect_errno(int err, int want, const char *what)
{
	if (err == want)
		ok("%s (%s)", what, want ? strerror(want) : "done");
	else
		fail("%s: %s, not %s", what, err ? strerror(err) : "done",
		     want ? strerror(want) : "done");
}

struct rereg_race {
	struct ibv_mr *mr;
	struct ibv_pd *pd[2];
	char *buf[2];
	atomic_bool stop;
	unsigned long n;
	int err;
};

/* Reregister the MR to the other buffer, another PD, less access, and back. */
static void *rereg_thread(void *arg)
{
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct rereg_race *r = arg;
	unsigned long i;

	for (i = 0; !atomic_load(&r->stop) && !r->err; i++) {
		r->err = rereg(r->mr, IBV_REREG_MR_CHANGE_TRANSLATION |
			       IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS,
			       r->pd[i % 3 == 1], r->buf[i % 2], 4096,
			       i % 5 == 4 ? IBV_ACCESS_LOCAL_WRITE : rw);
		r->n++;
	}
	return NULL;
}

/*
 * A thread reregisters an MR while WRITEs hit it through its R_Key: each
 * WRITE succeeds or ends in a remote access error (another PD, another
 * buffer, no remote write, or the MR in the middle of its change).
 */
static void rereg_race(struct ibv_pd *pd, struct ibv_mr *mr, struct ibv_mr *smr,
		       char (*buf)[4096])
{
	struct rereg_race r = { .mr = mr, .pd = { pd, ibv_alloc_pd(pd->context) },
				.buf = { buf[0], buf[1] } };
	unsigned long good = 0, denied = 0, other = 0;
	uint32_t rkey = mr->rkey;
	double end = now() + 3;
	struct ibv_qp *a, *b;
	pthread_t th;
	int st;

	if (!r.pd[1])
		die("ibv_alloc_pd: %s", strerror(errno));
	qp_pair(pd, &a, &b);
	if (pthread_create(&th, NULL, rereg_thread, &r))
		die("pthread_create");
	while (now() < end) {
		st = write_via(a, smr, (uintptr_t)buf[0], rkey);
		good += st == IBV_WC_SUCCESS;
		denied += st == IBV_WC_REM_ACCESS_ERR;
		other += st != IBV_WC_SUCCESS && st != IBV_WC_REM_ACCESS_ERR;
		if (st != IBV_WC_SUCCESS) {
			qp_pair_destroy(a, b);
			qp_pair(pd, &a, &b);
		}
	}
	atomic_store(&r.stop, true);
	pthread_join(th, NULL);
	qp_pair_destroy(a, b);
	if (r.err || other || !good || !denied)
		fail("WRITEs while an MR is reregistered %lu times: %lu done, %lu denied, %lu otherwise; rereg: %s",
		     r.n, good, denied, other, r.err ? strerror(r.err) : "done");
	else
		ok("WRITEs while an MR is reregistered %lu times: %lu done, %lu denied (remote access error)",
		   r.n, good, denied);
	if (rereg(mr, IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS, pd,
		  NULL, 0, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_MW_BIND) || ibv_dealloc_pd(r.pd[1]))
		fail("the MR back to its PD, and the other PD freed: %s",
		     strerror(errno));
}

/*
 * rereg: ibv_rereg_mr keeps an MR's keys and changes its memory, PD and
 * access; it leaves the MR as it was while a window is bound to it
 * (EBUSY), and when the new access would write to memory mapped read-only
 * (EFAULT: the pages are pinned again for writing, and cannot be).
 */
static void test_rereg(struct ibv_context *ctx)
{
	static char buf[2][4096] __attribute__((aligned(4096))), src[64];
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		 IBV_ACCESS_MW_BIND;
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *pd2 = ibv_alloc_pd(ctx);
	struct ibv_mr *mr, *smr, *ro;
	struct ibv_qp *a, *b;
	struct ibv_mw *mw;
	uint32_t rkey;
	char *rom;

	rom = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pd || !pd2 || rom == MAP_FAILED)
		die("PDs and a read-only page: %s", strerror(errno));
	mr = ibv_reg_mr(pd, buf[0], 4096, rw);
	smr = ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	ro = ibv_reg_mr(pd, rom, 4096, 0);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	if (!mr || !smr || !ro || !mw)
		die("MRs and a memory window: %s", strerror(errno));
	memset(src, 0x5a, sizeof(src));
	rkey = mr->rkey;
	qp_pair(pd, &a, &b);
	expect_errno(rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf[1],
			   4096, 0), 0, "the MR moves to other memory");
	if (mr->rkey != rkey || mr->addr != buf[1])
		fail("its R_Key %#x (was %#x), its address %p", mr->rkey, rkey,
		     mr->addr);
	expect_status(write_via(a, smr, (uintptr_t)buf[1], mr->rkey),
		      IBV_WC_SUCCESS, "a WRITE to the new memory, same R_Key");
	if (buf[1][0] == 0x5a && buf[0][0] == 0)
		ok("the WRITE landed in the new memory, not the old");
	else
		fail("new memory %#x, old %#x after the WRITE", buf[1][0], buf[0][0]);
	expect_status(write_via(a, smr, (uintptr_t)buf[0], mr->rkey),
		      IBV_WC_REM_ACCESS_ERR, "a WRITE to the old address");
	qp_pair_destroy(a, b);
	qp_pair(pd, &a, &b);
	expect_errno(rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE), 0, "remote write taken away");
	expect_status(write_via(a, smr, (uintptr_t)buf[1], mr->rkey),
		      IBV_WC_REM_ACCESS_ERR, "a WRITE then");
	qp_pair_destroy(a, b);
	qp_pair(pd, &a, &b);
	expect_errno(rereg(mr, IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS,
			   pd2, NULL, 0, rw), 0, "remote write back, in another PD");
	expect_status(write_via(a, smr, (uintptr_t)buf[1], mr->rkey),
		      IBV_WC_REM_ACCESS_ERR, "a WRITE from the first PD's QP");
	qp_pair_destroy(a, b);
	qp_pair(pd, &a, &b);
	expect_errno(rereg(mr, IBV_REREG_MR_CHANGE_PD, pd, NULL, 0, 0), 0,
		     "back to the first PD");
	expect_status(bind2(b, mw, mr, 4096, ibv_inc_rkey(mw->rkey)),
		      IBV_WC_SUCCESS, "a window is bound to it");
	expect_errno(rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE), EBUSY,
		     "no rereg while a window is bound");
	expect_status(write_via(a, smr, (uintptr_t)buf[1], mr->rkey),
		      IBV_WC_SUCCESS, "a WRITE with the MR's own R_Key then");
	qp_pair_destroy(a, b);
	expect_errno(rereg(ro, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE), EFAULT,
		     "local write to memory mapped read-only");
	qp_pair(pd, &a, &b);
	expect_status(write_via(a, ro, (uintptr_t)buf[1], mr->rkey),
		      IBV_WC_SUCCESS, "that MR still works (a WRITE from it)");
	qp_pair_destroy(a, b);
	rereg_race(pd, mr, smr, buf);
	if (ibv_dealloc_mw(mw) || ibv_dereg_mr(mr) || ibv_dereg_mr(smr) ||
	    ibv_dereg_mr(ro) || ibv_dealloc_pd(pd2))
		fail("freeing the MRs, window and PD: %s", strerror(errno));
	munmap(rom, 4096);
	device_works(pd, "reregistering MRs");
	ibv_dealloc_pd(pd);
}

/* The next event of @type within @ms milliseconds, others passed over. */
static bool next_event(struct ibv_context *ctx, enum ibv_event_type type,
		       int ms, struct ibv_qp **qp)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	double end = now() + ms / 1000.0;
	struct ibv_async_event ev;
	bool found = false;

	while (!found && now() < end &&
	       poll(&p, 1, (int)((end - now()) * 1000) + 1) == 1 &&
	       !ibv_get_async_event(ctx, &ev)) {
		found = ev.event_type == type;
		if (found && qp)
			*qp = ev.element.qp;
		ibv_ack_async_event(&ev);
	}
	return found;
}

/* Post @n signaled 8-byte RDMA WRITEs from @src to @addr through @rkey. */
static void post_writes(struct ibv_qp *qp, struct ibv_mr *src, uint64_t addr,
			uint32_t rkey, int n)
{
	struct ibv_sge sge = { (uintptr_t)src->addr, 8, src->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED, .wr.rdma = { addr, rkey },
	}, *bad;

	while (n--)
		if (ibv_post_send(qp, &wr, &bad))
			die("ibv_post_send: %s", strerror(errno));
}

/*
 * Completions of @cq within @ms milliseconds, or until @want came; an
 * unsuccessful one counts 1000.
 */
static int drain_cq(struct ibv_cq *cq, int ms, int want)
{
	double end = now() + ms / 1000.0;
	struct ibv_wc wc[16];
	int n, got = 0;

	do {
		n = ibv_poll_cq(cq, 16, wc);
		for (int i = 0; i < n; i++)
			got += wc[i].status == IBV_WC_SUCCESS ? 1 : 1000;
		if (!n)
			usleep(1000);
	} while (n >= 0 && got < want && now() < end);
	return n < 0 ? -1 : got;
}

static int to_sqd(struct ibv_qp *qp, bool notify)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD,
				 .en_sqd_async_notify = notify };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE |
			     (notify ? IBV_QP_EN_SQD_ASYNC_NOTIFY : 0));
}

/*
 * sqd: a QP moved to SQD asking for it raises IBV_EVENT_SQ_DRAINED once
 * the WQEs it started have completed, and starts no new one until it is
 * back in RTS; one that asked for nothing raises nothing.
 */
static void test_sqd(struct ibv_context *ctx)
{
	static char buf[4096];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS };
	struct ibv_cq *cq = make_cq(ctx, 128), *bcq = make_cq(ctx, 16);
	struct ibv_qp *a, *b, *who = NULL;
	struct ibv_mr *mr;
	int n;

	if (!pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	a = make_qp(pd, cq, NULL, IBV_QPT_RC, 64, 1);
	b = make_qp(pd, bcq, NULL, IBV_QPT_RC, 8, 1);
	if (!mr || !a || !b || qp_to_rts_at(a, b->qp_num, self_lid) ||
	    qp_to_rts_at(b, a->qp_num, self_lid))
		die("an MR and two connected RC QPs: %s", strerror(errno));
	post_writes(a, mr, (uintptr_t)buf + 64, mr->rkey, 32);
	if (to_sqd(a, true))
		die("modify_qp to SQD: %s", strerror(errno));
	if (next_event(ctx, IBV_EVENT_SQ_DRAINED, 10000, &who) && who == a)
		ok("SQD with the event asked for: IBV_EVENT_SQ_DRAINED for that QP");
	else
		fail("no IBV_EVENT_SQ_DRAINED for the QP within 10 s");
	n = drain_cq(cq, 100, 33);
	if (n == 32)
		ok("its 32 WRITEs had completed, successfully, by then");
	else
		fail("%d completions (errors count 1000) when drained, not 32", n);
	post_writes(a, mr, (uintptr_t)buf + 64, mr->rkey, 4);
	n = drain_cq(cq, 500, 1);
	if (!n)
		ok("WRITEs posted in SQD do not start");
	else
		fail("%d completions of WRITEs posted in SQD", n);
	n = ibv_modify_qp(a, &rts, IBV_QP_STATE) ? -2 : drain_cq(cq, 5000, 4);
	if (n == 4)
		ok("back in RTS, they complete");
	else
		fail("back in RTS: %d completions, not 4", n);
	if (to_sqd(a, false))
		fail("modify_qp to SQD without the event: %s", strerror(errno));
	else if (next_event(ctx, IBV_EVENT_SQ_DRAINED, 1000, NULL))
		fail("IBV_EVENT_SQ_DRAINED though not asked for");
	else
		ok("SQD without the event asked for: none");
	if (ibv_destroy_qp(a) || ibv_destroy_qp(b) || ibv_destroy_cq(cq) ||
	    ibv_destroy_cq(bcq) || ibv_dereg_mr(mr))
		fail("destroying the QPs (one in SQD), CQs and MR: %s",
		     strerror(errno));
	device_works(pd, "SQD");
	ibv_dealloc_pd(pd);
}

/* modify_qp with one attribute set to @val: the errno, 0 if accepted. */
static int rtr_rts_with(struct ibv_qp *qp, int which, uint8_t val)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE,
	};
	int err;

	qp_to_state(qp, IBV_QPS_RESET);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp to INIT: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_256;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = which == IBV_QP_MIN_RNR_TIMER ? val : 1;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (err || which == IBV_QP_MIN_RNR_TIMER)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = which == IBV_QP_TIMEOUT ? val : 14;
	a.retry_cnt = which == IBV_QP_RETRY_CNT ? val : 7;
	a.rnr_retry = which == IBV_QP_RNR_RETRY ? val : 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_MAX_QP_RD_ATOMIC);
}

/* IBA field widths: min_rnr_timer and timeout 5 bits, the retry counts 3. */
static void test_limits(struct ibv_context *ctx)
{
	static const struct { int attr; const char *name; uint8_t max; } f[] = {
		{ IBV_QP_MIN_RNR_TIMER, "min_rnr_timer", 31 },
		{ IBV_QP_TIMEOUT, "timeout", 31 },
		{ IBV_QP_RETRY_CNT, "retry_cnt", 7 },
		{ IBV_QP_RNR_RETRY, "rnr_retry", 7 },
	};
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = make_cq(ctx, 4);
	struct ibv_qp *qp = make_qp(pd, cq, NULL, IBV_QPT_RC, 4, 1);
	unsigned int i;
	int err;

	if (!qp)
		die("ibv_create_qp: %s", strerror(errno));
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		err = rtr_rts_with(qp, f[i].attr, f[i].max + 1);
		if (err == EINVAL)
			ok("%s %d refused", f[i].name, f[i].max + 1);
		else
			fail("%s %d: %s, not EINVAL", f[i].name, f[i].max + 1,
			     err ? strerror(err) : "accepted");
		err = rtr_rts_with(qp, f[i].attr, f[i].max);
		if (err)
			fail("%s %d: %s", f[i].name, f[i].max, strerror(err));
		else
			ok("%s %d accepted", f[i].name, f[i].max);
	}
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
}

/*
 * flush-hang: keep every mapped producer index LEAD entries ahead, for
 * LEAD_SECONDS at most, from another CPU: a kernel that follows the
 * producer in its flush goes on (with interrupts off) as long as the
 * thread keeps up, and completes more WQEs than the rings held when the
 * flush began. FLUSH_RING is the SQ's and RQ's size; LEAD is large, so
 * that the thread gets the other CPU many times while the kernel flushes
 * (an emulated guest on a busy host runs its CPUs by turns).
 */
#define FLUSH_RING	16384
#define LEAD		16000
#define LEAD_SECONDS	10
static atomic_bool stop_lead;

/* Run the calling thread on CPU @cpu, if there is one. */
static void on_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu >= sysconf(_SC_NPROCESSORS_ONLN))
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *lead_thread(void *arg)
{
	const struct map *maps = arg;
	double end = now() + LEAD_SECONDS;
	int i;

	on_cpu(1);
	while (!atomic_load_explicit(&stop_lead, memory_order_relaxed) &&
	       now() < end)
		for (i = 0; maps[i].len; i++)
			*ring_word(&maps[i], HDR_PRODUCER) =
				*ring_word(&maps[i], HDR_CONSUMER) + LEAD;
	return NULL;
}

/* Flushed completions in @cq: of sends into @sq, of receives into @rq. */
static void count_flushed(struct ibv_cq *cq, unsigned int *sq, unsigned int *rq)
{
	struct ibv_wc wc[64];
	int n, i;

	*sq = *rq = 0;
	while ((n = ibv_poll_cq(cq, 64, wc)) > 0)
		for (i = 0; i < n; i++)
			if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
				++*(wc[i].opcode & IBV_WC_RECV ? rq : sq);
}

static void test_flush_hang(struct ibv_context *ctx)
{
	struct map before[MAX_MAPS], after[MAX_MAPS], rings[MAX_MAPS] = {};
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = make_cq(ctx, 65535);
	int nb = uverbs_maps(before, MAX_MAPS), na, i, j, n = 0;
	struct ibv_qp *qp = make_qp(pd, cq, NULL, IBV_QPT_RC, FLUSH_RING, 1);
	unsigned int sq, rq;
	double t0, t;
	pthread_t th;

	if (!qp || qp_to_rts(qp))
		die("an RC QP in RTS: %s", strerror(errno));
	na = uverbs_maps(after, MAX_MAPS);
	for (i = 0; i < na; i++) {	/* the QP's rings: SQ and RQ */
		for (j = 0; j < nb && before[j].start != after[i].start; j++)
			;
		if (j == nb && n < MAX_MAPS - 1)
			rings[n++] = after[i];
	}
	if (n != 2)
		die("found %d new ring mappings for the QP, not 2", n);
	on_cpu(0);
	atomic_store(&stop_lead, false);
	if (pthread_create(&th, NULL, lead_thread, rings))
		die("pthread_create");
	usleep(100000);
	t0 = now();
	if (qp_to_state(qp, IBV_QPS_ERR))
		fail("modify_qp to ERR: %s", strerror(errno));
	t = now() - t0;
	usleep(100000);
	atomic_store(&stop_lead, true);
	pthread_join(th, NULL);
	count_flushed(cq, &sq, &rq);
	if (t > 1 || sq > LEAD || rq > LEAD)
		fail("the flush took %.3f s and flushed %u sends and %u receives, not %d each",
		     t, sq, rq, LEAD);
	else
		ok("the flush took %.3f s and flushed %u sends and %u receives (%d posted)",
		   t, sq, rq, LEAD);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	device_works(pd, "a flush against a moving producer");
	ibv_dealloc_pd(pd);
}

/* mmap-race: map the rings of CQs that are being destroyed or resized. */
static atomic_bool stop_race;
static _Atomic off_t race_off;
static atomic_size_t race_len;
static unsigned long maps_ok, maps_refused;
/* Held while this process's mappings change: the rings are told apart. */
static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;

static void mmap_once(int fd, size_t len)
{
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 atomic_load(&race_off));
	if (p == MAP_FAILED) {
		maps_refused++;
		return;
	}
	maps_ok++;
	/* Whatever got mapped must be readable and writable. */
	((volatile uint8_t *)p)[len - 1] ^= 0;
	munmap(p, len);
}

static void *mmap_thread(void *arg)
{
	int fd = *(int *)arg;
	size_t len;

	while (!atomic_load(&stop_race)) {
		len = atomic_load(&race_len);
		if (!len)
			continue;
		pthread_mutex_lock(&race_lock);
		mmap_once(fd, len);
		pthread_mutex_unlock(&race_lock);
	}
	return NULL;
}

/* The newest mapping of the uverbs file: the ring just created. */
static bool newest_ring(const struct map *before, int nb, struct map *out)
{
	struct map m[MAX_MAPS];
	int n = uverbs_maps(m, MAX_MAPS), i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nb && before[j].start != m[i].start; j++)
			;
		if (j == nb) {
			*out = m[i];
			return true;
		}
	}
	return false;
}

static void test_mmap_race(struct ibv_context *ctx)
{
	struct map before[MAX_MAPS], ring;
	double end = now() + seconds;
	unsigned long rounds = 0;
	struct ibv_cq *cq;
	pthread_t th;
	int nb;

	atomic_store(&stop_race, false);
	atomic_store(&race_len, 0);
	if (pthread_create(&th, NULL, mmap_thread, &ctx->cmd_fd))
		die("pthread_create");
	while (now() < end) {
		pthread_mutex_lock(&race_lock);
		nb = uverbs_maps(before, MAX_MAPS);
		cq = make_cq(ctx, 65535);	/* 4 MiB: a long remap */
		if (!newest_ring(before, nb, &ring))
			die("the CQ's ring is not mapped");
		pthread_mutex_unlock(&race_lock);
		atomic_store(&race_off, ring.off);
		atomic_store(&race_len, ring.len);
		usleep(rounds % 7 * 100);
		if (rounds % 2 && ibv_resize_cq(cq, 1024 + rounds % 1024))
			fail("ibv_resize_cq: %s", strerror(errno));
		usleep(rounds % 5 * 100);
		ibv_destroy_cq(cq);
		rounds++;
	}
	atomic_store(&stop_race, true);
	pthread_join(th, NULL);
	ok("%lu CQs destroyed or resized while being mapped (%lu maps, %lu refused)",
	   rounds, maps_ok, maps_refused);
}

/*
 * scribble: random indices and entries in every mapped ring, while the
 * main thread keeps the kernel busy with those rings. Destruction, which
 * unmaps rings, waits for the scribbler's pass to end.
 */
static pthread_rwlock_t maps_lock = PTHREAD_RWLOCK_INITIALIZER;
static atomic_bool stop_scribble;

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

static void scribble_ring(const struct map *m, uint64_t *seed)
{
	volatile uint32_t *w;
	uint32_t cons;

	switch (rnd(seed) % 4) {
	case 0:		/* anything at all */
		*ring_word(m, HDR_PRODUCER) = rnd(seed);
		break;
	case 1:		/* plausible: a little ahead of the consumer */
		cons = *ring_word(m, HDR_CONSUMER);
		*ring_word(m, HDR_PRODUCER) = cons + rnd(seed) % 64;
		break;
	case 2:		/* the consumer index of a ring the kernel fills */
		*ring_word(m, HDR_CONSUMER) = rnd(seed);
		break;
	default:	/* entries */
		w = ring_word(m, HDR_SIZE + (rnd(seed) % (m->len - HDR_SIZE) & ~3ul));
		*w = rnd(seed) % 3 ? rnd(seed) : rnd(seed) % 64;
		break;
	}
}

static void *scribble_thread(void *arg)
{
	uint64_t seed = (uintptr_t)arg | 1;
	struct map m[MAX_MAPS];
	int n, i, k;

	while (!atomic_load(&stop_scribble)) {
		pthread_rwlock_rdlock(&maps_lock);
		n = uverbs_maps(m, MAX_MAPS);
		for (k = 0; k < 2000 && n; k++) {
			i = rnd(&seed) % n;
			scribble_ring(&m[i], &seed);
		}
		pthread_rwlock_unlock(&maps_lock);
	}
	return NULL;
}

struct objs {
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp[3];
	struct ibv_mr *mr;
};

static void post_some(struct objs *o, struct ibv_qp *qp, uint64_t *seed)
{
	struct ibv_sge sge = { (uintptr_t)o->mr->addr, rnd(seed) % 512, o->mr->lkey };
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr *bad_s;
	int i;

	for (i = 0; i < 8; i++) {
		if (o->srq)
			ibv_post_srq_recv(o->srq, &rwr, &bad_r);
		else
			ibv_post_recv(qp, &rwr, &bad_r);
		if (qp->qp_type != IBV_QPT_UD)
			ibv_post_send(qp, &swr, &bad_s);
	}
}

static void scribble_round(struct ibv_pd *pd, struct ibv_mr *mr, uint64_t *seed)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	struct objs o = { .mr = mr };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 2 } };
	struct ibv_wc wc[16];
	int i;

	/* Mappings come and go only while the scribbler waits. */
	pthread_rwlock_wrlock(&maps_lock);
	o.cq = make_cq(pd->context, 64 + rnd(seed) % 256);
	if (rnd(seed) % 2)
		o.srq = ibv_create_srq(pd, &sa);
	for (i = 0; i < 3; i++)
		o.qp[i] = make_qp(pd, o.cq, types[i] == IBV_QPT_UD ? NULL : o.srq,
				  types[i], 64, 2);
	pthread_rwlock_unlock(&maps_lock);
	for (i = 0; i < 3; i++)
		if (o.qp[i] && !qp_to_rts(o.qp[i]))
			post_some(&o, o.qp[i], seed);
	ibv_poll_cq(o.cq, 16, wc);
	pthread_rwlock_wrlock(&maps_lock);
	if (rnd(seed) % 2)
		ibv_resize_cq(o.cq, 32 + rnd(seed) % 512);
	/* (its scribbled producer index says how many WQEs the kernel copies) */
	if (o.srq && rnd(seed) % 2) {
		struct ibv_srq_attr m = { .max_wr = 1 + rnd(seed) % 256 };

		ibv_modify_srq(o.srq, &m, IBV_SRQ_MAX_WR);
	}
	pthread_rwlock_unlock(&maps_lock);
	if (o.srq && o.qp[0])
		post_some(&o, o.qp[0], seed);
	for (i = 0; i < 3; i++) {
		if (!o.qp[i])
			continue;
		qp_to_state(o.qp[i], IBV_QPS_ERR);
		post_some(&o, o.qp[i], seed);
		if (rnd(seed) % 2)
			qp_to_state(o.qp[i], IBV_QPS_RESET);
	}
	pthread_rwlock_wrlock(&maps_lock);
	for (i = 0; i < 3; i++)
		if (o.qp[i])
			ibv_destroy_qp(o.qp[i]);
	if (o.srq)
		ibv_destroy_srq(o.srq);
	ibv_destroy_cq(o.cq);
	pthread_rwlock_unlock(&maps_lock);
}

static void test_scribble(struct ibv_context *ctx)
{
	static char buf[4096];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	uint64_t seed = (uint64_t)time(NULL) * 2654435761u | 1;
	double end = now() + seconds;
	unsigned long rounds = 0;
	pthread_t th;

	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
	printf("scribble seed %#llx\n", (unsigned long long)seed);
	atomic_store(&stop_scribble, false);
	if (pthread_create(&th, NULL, scribble_thread, (void *)(uintptr_t)seed))
		die("pthread_create");
	while (now() < end) {
		scribble_round(pd, mr, &seed);
		rounds++;
	}
	atomic_store(&stop_scribble, true);
	pthread_join(th, NULL);
	ok("%lu rounds of verbs on rings a thread scribbled on", rounds);
	device_works(pd, "scribbled rings");
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
}

/*
 * verbs: random verbs with random arguments, valid and not, on a pool of
 * objects, for -t seconds: every verb must return (an error is fine), the
 * process must not crash, and the device must still work afterwards.
 */
#define POOL	6

struct pool {
	struct ibv_context *ctx;
	struct ibv_pd *pd[POOL];
	struct ibv_mr *mr[POOL];
	struct ibv_mw *mw[POOL];
	struct ibv_cq *cq[POOL];
	struct ibv_srq *srq[POOL];
	struct ibv_qp *qp[POOL];
	struct ibv_ah *ah[POOL];
	uint8_t *buf;
	size_t buf_len;
	uint64_t seed;
	unsigned long calls, fails;
};

static uint32_t pick(struct pool *p, uint32_t n)
{
	return rnd(&p->seed) % n;
}

/* A value of a field: mostly small and plausible, now and then anything. */
static uint32_t any(struct pool *p, uint32_t plausible)
{
	switch (pick(p, 8)) {
	case 0:
		return rnd(&p->seed);
	case 1:
		return 0;
	case 2:
		return UINT32_MAX;
	default:
		return pick(p, plausible + 1);
	}
}

static void *some(struct pool *p, void **objs)
{
	return objs[pick(p, POOL)];
}

static void counted(struct pool *p, int err)
{
	p->calls++;
	if (err)
		p->fails++;
}

static void v_pd(struct pool *p)
{
	int i = pick(p, POOL);

	if (p->pd[i]) {
		/* Refused (EBUSY) while objects use it: then it stays. */
		if (!ibv_dealloc_pd(p->pd[i]))
			p->pd[i] = NULL;
		counted(p, p->pd[i] != NULL);
		return;
	}
	p->pd[i] = ibv_alloc_pd(p->ctx);
	counted(p, !p->pd[i]);
}

static void v_mr(struct pool *p)
{
	struct ibv_pd *pd = some(p, (void **)p->pd);
	int i = pick(p, POOL), access = any(p, 0x3f);
	size_t off = pick(p, p->buf_len), len = any(p, p->buf_len - off);

	if (p->mr[i] && pick(p, 2)) {
		/* Any flags, memory (now and then not the process's) and access. */
		counted(p, ibv_rereg_mr(p->mr[i], any(p, 7), pd ? pd : p->mr[i]->pd,
					pick(p, 8) ? p->buf + off : (void *)(uintptr_t)rnd(&p->seed),
					len, access));
	} else if (p->mr[i]) {
		counted(p, ibv_dereg_mr(p->mr[i]));
		p->mr[i] = NULL;
	} else if (pd) {
		p->mr[i] = ibv_reg_mr(pd, p->buf + off, len, access);
		counted(p, !p->mr[i]);
	}
}

static void v_cq(struct pool *p)
{
	int i = pick(p, POOL);
	struct ibv_wc wc[8];

	if (!p->cq[i]) {
		p->cq[i] = ibv_create_cq(p->ctx, (int)any(p, 300), NULL, NULL, 0);
		counted(p, !p->cq[i]);
		return;
	}
	switch (pick(p, 4)) {
	case 0:
		counted(p, ibv_resize_cq(p->cq[i], (int)any(p, 600)));
		break;
	case 1:
		counted(p, ibv_req_notify_cq(p->cq[i], pick(p, 2)));
		break;
	case 2:
		counted(p, ibv_poll_cq(p->cq[i], 8, wc) < 0);
		break;
	default:
		if (!ibv_destroy_cq(p->cq[i]))
			p->cq[i] = NULL;
		counted(p, p->cq[i] != NULL);
	}
}

static void v_srq(struct pool *p)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = any(p, 100),
		.max_sge = any(p, 4), .srq_limit = any(p, 50) } };
	struct ibv_srq_attr m = { .max_wr = any(p, 200), .srq_limit = any(p, 50) };
	struct ibv_pd *pd = some(p, (void **)p->pd);
	int i = pick(p, POOL);

	if (!p->srq[i]) {
		if (pd) {
			p->srq[i] = ibv_create_srq(pd, &a);
			counted(p, !p->srq[i]);
		}
	} else if (pick(p, 2)) {
		counted(p, ibv_modify_srq(p->srq[i], &m, any(p, 3)));
	} else {
		if (!ibv_destroy_srq(p->srq[i]))
			p->srq[i] = NULL;
		counted(p, p->srq[i] != NULL);
	}
}

static void v_create_qp(struct pool *p, int i)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_RAW_PACKET,
		IBV_QPT_XRC_SEND, 0, 99,
	};
	struct ibv_qp_init_attr a = {
		.send_cq = some(p, (void **)p->cq), .recv_cq = some(p, (void **)p->cq),
		.srq = pick(p, 3) ? NULL : some(p, (void **)p->srq),
		.qp_type = types[pick(p, sizeof(types) / sizeof(types[0]))],
		.sq_sig_all = (int)pick(p, 2),
		.cap = { .max_send_wr = any(p, 64), .max_recv_wr = any(p, 64),
			 .max_send_sge = any(p, 4), .max_recv_sge = any(p, 4),
			 .max_inline_data = any(p, 256) },
	};
	struct ibv_pd *pd = some(p, (void **)p->pd);

	if (!pd || !a.send_cq || !a.recv_cq)
		return;
	p->qp[i] = ibv_create_qp(pd, &a);
	counted(p, !p->qp[i]);
}

static void v_modify_qp(struct pool *p, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = any(p, IBV_QPS_ERR), .cur_qp_state = any(p, IBV_QPS_ERR),
		.path_mtu = any(p, 5), .qkey = rnd(&p->seed), .rq_psn = rnd(&p->seed),
		.sq_psn = rnd(&p->seed), .dest_qp_num = any(p, 64),
		.qp_access_flags = any(p, 0xf), .pkey_index = any(p, 2),
		.port_num = pick(p, 4) ? 1 : any(p, 3), .timeout = any(p, 31),
		.retry_cnt = any(p, 7), .rnr_retry = any(p, 7),
		.min_rnr_timer = any(p, 31), .max_rd_atomic = any(p, 16),
		.max_dest_rd_atomic = any(p, 16), .sq_draining = pick(p, 2),
		.en_sqd_async_notify = pick(p, 2),
		.ah_attr = { .dlid = any(p, 4), .sl = any(p, 15), .port_num = 1,
			     .static_rate = any(p, 18), .is_global = pick(p, 2),
			     .grh = { .sgid_index = any(p, 2), .hop_limit = any(p, 255) } },
	};
	int mask = (int)(rnd(&p->seed) & 0x1fffff) | IBV_QP_STATE;

	counted(p, ibv_modify_qp(qp, &a, pick(p, 4) ? mask : (int)rnd(&p->seed)));
}

static void v_post(struct pool *p, struct ibv_qp *qp)
{
	struct ibv_mr *mr = some(p, (void **)p->mr);
	struct ibv_sge sge[6];
	struct ibv_send_wr s = { .sg_list = sge, .num_sge = (int)pick(p, 7),
		.opcode = any(p, 16), .send_flags = any(p, 31),
		.wr_id = rnd(&p->seed) };
	struct ibv_recv_wr r = { .sg_list = sge, .num_sge = s.num_sge }, *bad_r;
	struct ibv_send_wr *bad_s;
	struct ibv_ah *ah = some(p, (void **)p->ah);
	int i;

	for (i = 0; i < 6; i++) {
		sge[i].addr = mr && pick(p, 4) ? (uintptr_t)mr->addr + any(p, 256) :
			      ((uint64_t)rnd(&p->seed) << 32 | rnd(&p->seed));
		sge[i].length = any(p, 4096);
		sge[i].lkey = mr && pick(p, 4) ? mr->lkey : rnd(&p->seed);
		/* The provider copies inline data here, in this process. */
		if (s.send_flags & IBV_SEND_INLINE) {
			sge[i].addr = (uintptr_t)p->buf + pick(p, p->buf_len / 2);
			sge[i].length = pick(p, p->buf_len / 2);
		}
	}
	s.wr.rdma.remote_addr = sge[0].addr + any(p, 64);
	s.wr.rdma.rkey = mr && pick(p, 4) ? mr->rkey : rnd(&p->seed);
	if (qp->qp_type == IBV_QPT_UD) {
		if (!ah)
			return;
		s.wr.ud.ah = ah;
		s.wr.ud.remote_qpn = any(p, 64);
		s.wr.ud.remote_qkey = rnd(&p->seed);
	}
	if (pick(p, 2))
		counted(p, ibv_post_send(qp, &s, &bad_s));
	else if (qp->srq)
		counted(p, ibv_post_srq_recv(qp->srq, &r, &bad_r));
	else
		counted(p, ibv_post_recv(qp, &r, &bad_r));
}

/*
 * A multicast group of the few the test uses, or now and then a GID that is
 * not multicast (attach must refuse it) and any LID.
 */
static void mgid_of(struct pool *p, union ibv_gid *gid, uint16_t *lid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xff;
	gid->raw[1] = 0x12;
	gid->raw[15] = pick(p, 4);
	*lid = 0xc001 + gid->raw[15];
	if (!pick(p, 8)) {
		gid->raw[0] = pick(p, 0xff);
		*lid = rnd(&p->seed);
	}
}

/* Detach the groups the test uses: a QP in a group cannot be destroyed. */
static void qp_leave(struct ibv_qp *qp)
{
	union ibv_gid gid = { .raw = { 0xff, 0x12 } };

	for (gid.raw[15] = 0; gid.raw[15] < 4; gid.raw[15]++)
		ibv_detach_mcast(qp, &gid, 0xc001 + gid.raw[15]);
}

static void v_qp(struct pool *p)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	union ibv_gid gid;
	int i = pick(p, POOL);
	uint16_t lid;

	if (!p->qp[i]) {
		v_create_qp(p, i);
		return;
	}
	switch (pick(p, 8)) {
	case 0:
		if (pick(p, 2))
			qp_leave(p->qp[i]);
		/* Refused (EBUSY) while in a group: then it stays. */
		if (!ibv_destroy_qp(p->qp[i]))
			p->qp[i] = NULL;
		counted(p, p->qp[i] != NULL);
		break;
	case 1:
		counted(p, ibv_query_qp(p->qp[i], &a, (int)rnd(&p->seed), &init));
		break;
	case 2:
		mgid_of(p, &gid, &lid);
		if (pick(p, 2))
			counted(p, ibv_attach_mcast(p->qp[i], &gid, lid));
		else
			counted(p, ibv_detach_mcast(p->qp[i], &gid, lid));
		break;
	case 3:
	case 4:
		v_modify_qp(p, p->qp[i]);
		break;
	default:
		v_post(p, p->qp[i]);
	}
}

static void v_ah(struct pool *p)
{
	struct ibv_ah_attr a = { .dlid = any(p, 4), .sl = any(p, 15),
		.src_path_bits = any(p, 3), .static_rate = any(p, 18),
		.is_global = pick(p, 2), .port_num = pick(p, 4) ? 1 : any(p, 3),
		.grh = { .sgid_index = any(p, 2), .hop_limit = any(p, 255),
			 .flow_label = rnd(&p->seed), .traffic_class = any(p, 255) } };
	struct ibv_pd *pd = some(p, (void **)p->pd);
	int i = pick(p, POOL);

	if (p->ah[i]) {
		counted(p, ibv_destroy_ah(p->ah[i]));
		p->ah[i] = NULL;
	} else if (pd) {
		p->ah[i] = ibv_create_ah(pd, &a);
		counted(p, !p->ah[i]);
	}
}

static void v_query(struct pool *p)
{
	struct ibv_port_attr pa;
	union ibv_gid gid;
	__be16 pkey;
	struct ibv_mw *mw;
	struct ibv_pd *pd = some(p, (void **)p->pd);

	switch (pick(p, 4)) {
	case 0:
		counted(p, ibv_query_port(p->ctx, any(p, 2), &pa));
		break;
	case 1:
		counted(p, ibv_query_gid(p->ctx, 1, (int)any(p, 2), &gid));
		break;
	case 2:
		counted(p, ibv_query_pkey(p->ctx, 1, (int)any(p, 2), &pkey));
		break;
	default:
		if (!pd)
			break;
		mw = ibv_alloc_mw(pd, any(p, 2));
		counted(p, !mw);
		if (mw)
			ibv_dealloc_mw(mw);
	}
}

/*
 * Memory windows: allocated of any type, bound (a type 1 window with
 * ibv_bind_mw(), a type 2 with a work request) on any QP to any MR with
 * any bounds, key and flags, deallocated.
 */
static void v_mw(struct pool *p)
{
	struct ibv_pd *pd = some(p, (void **)p->pd);
	struct ibv_qp *qp = some(p, (void **)p->qp);
	struct ibv_mr *mr = some(p, (void **)p->mr);
	struct ibv_mw_bind_info info = {
		.mr = mr, .addr = (mr ? (uintptr_t)mr->addr : 0) + any(p, 64),
		.length = any(p, 8192), .mw_access_flags = any(p, 0x3f),
	};
	struct ibv_mw_bind b = { .send_flags = IBV_SEND_SIGNALED,
				 .bind_info = info };
	struct ibv_send_wr wr = { .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int i = pick(p, POOL);

	if (!p->mw[i]) {
		if (pd) {
			p->mw[i] = ibv_alloc_mw(pd, any(p, 3));
			counted(p, !p->mw[i]);
		}
		return;
	}
	if (!pick(p, 3)) {
		counted(p, ibv_dealloc_mw(p->mw[i]));
		p->mw[i] = NULL;
	} else if (qp && p->mw[i]->type == IBV_MW_TYPE_1) {
		counted(p, ibv_bind_mw(qp, p->mw[i], &b));
	} else if (qp) {
		wr.bind_mw.mw = p->mw[i];
		wr.bind_mw.rkey = pick(p, 4) ? ibv_inc_rkey(p->mw[i]->rkey) :
					       any(p, 0xff);
		wr.bind_mw.bind_info = info;
		counted(p, ibv_post_send(qp, &wr, &bad));
	}
}

/* Destroy everything, users before what they use. */
static void pool_clear(struct pool *p)
{
	int i;

	for (i = 0; i < POOL; i++) {
		if (p->qp[i])
			qp_leave(p->qp[i]);
		if (p->qp[i] && ibv_destroy_qp(p->qp[i]))
			fail("ibv_destroy_qp: %s", strerror(errno));
		if (p->ah[i] && ibv_destroy_ah(p->ah[i]))
			fail("ibv_destroy_ah: %s", strerror(errno));
		p->qp[i] = NULL;
		p->ah[i] = NULL;
	}
	/* (before the MRs: an MR with a window bound to it cannot go) */
	for (i = 0; i < POOL; i++) {
		if (p->mw[i] && ibv_dealloc_mw(p->mw[i]))
			fail("ibv_dealloc_mw: %s", strerror(errno));
		p->mw[i] = NULL;
	}
	for (i = 0; i < POOL; i++) {
		if (p->srq[i] && ibv_destroy_srq(p->srq[i]))
			fail("ibv_destroy_srq: %s", strerror(errno));
		if (p->mr[i] && ibv_dereg_mr(p->mr[i]))
			fail("ibv_dereg_mr: %s", strerror(errno));
		p->srq[i] = NULL;
		p->mr[i] = NULL;
	}
	for (i = 0; i < POOL; i++) {
		if (p->cq[i] && ibv_destroy_cq(p->cq[i]))
			fail("ibv_destroy_cq: %s", strerror(errno));
		if (p->pd[i] && ibv_dealloc_pd(p->pd[i]))
			fail("ibv_dealloc_pd: %s", strerror(errno));
		p->cq[i] = NULL;
		p->pd[i] = NULL;
	}
}

static void verbs_run(struct ibv_context *ctx)
{
	static void (*const verbs[])(struct pool *p) = {
		v_pd, v_mr, v_mr, v_mw, v_cq, v_cq, v_srq, v_qp, v_qp, v_qp,
		v_qp, v_qp, v_ah, v_query,
	};
	struct pool p = { .ctx = ctx, .buf_len = 1 << 16 };
	double end = now() + seconds;
	struct ibv_pd *pd;
	unsigned long rounds = 0;

	p.seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull | 1;
	printf("verbs seed %#llx\n", (unsigned long long)p.seed);
	p.buf = aligned_alloc(4096, p.buf_len);
	if (!p.buf)
		die("out of memory");
	while (now() < end) {
		verbs[pick(&p, sizeof(verbs) / sizeof(verbs[0]))](&p);
		/* Now and then start over, so that creation gets tried again. */
		if (++rounds % 5000 == 0)
			pool_clear(&p);
	}
	pool_clear(&p);
	ok("%lu random verbs (%lu refused), all returned", p.calls, p.fails);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	device_works(pd, "random verbs");
	ibv_dealloc_pd(pd);
	free(p.buf);
}

/*
 * As a local user: nobody, with RLIMIT_MEMLOCK of 32 MiB (a root process
 * may pin all memory, with any HCA; random lengths would make it do so).
 */
static void test_verbs(void)
{
	struct rlimit rl = { 32 << 20, 32 << 20 };
	struct ibv_context *ctx;
	pid_t pid = fork();
	int st;

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		if (setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			die("cannot become nobody: %s", strerror(errno));
		ctx = open_dev();
		verbs_run(ctx);
		ibv_close_device(ctx);
		exit(failures ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the unprivileged child failed (status 0x%x)", st);
}

/*
 * objects: CQs of 65535 entries (4 MiB of ring), SRQs of 16384 WQEs of
 * 32 SGEs (16 MiB) and QPs of 4096 WRs of 32 SGEs (12 MiB with the SQ's
 * shadow), in turn, until one is refused or @mb MiB were asked for.
 */
static void test_objects(struct ibv_context *ctx, unsigned int mb)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16384, .max_sge = 32 } };
	static void *objs[4096];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = make_cq(ctx, 16);
	unsigned int n = 0, asked = 0, cost = 0;
	int kind, err = 0, i;

	while (!err && asked < mb && n < 4096) {
		kind = n % 3;
		errno = 0;
		if (kind == 0) {
			objs[n] = ibv_create_cq(ctx, 65535, NULL, NULL, 0);
			cost = 4;
		} else if (kind == 1) {
			objs[n] = ibv_create_srq(pd, &sa);
			cost = 16;
		} else {
			objs[n] = make_qp(pd, cq, NULL, IBV_QPT_RC, 4096, 32);
			cost = 12;
		}
		if (!objs[n]) {
			err = errno ? errno : EIO;
			break;
		}
		asked += cost;
		n++;
	}
	if (!err)
		fail("%u objects, %u MiB of rings, and no refusal", n, asked);
	else if (err != ENOMEM)
		fail("object %u refused with %s, not ENOMEM", n, strerror(err));
	else
		ok("object %u (%u MiB of rings so far) refused with ENOMEM", n, asked);
	for (i = n - 1; i >= 0; i--) {
		if (i % 3 == 0)
			ibv_destroy_cq(objs[i]);
		else if (i % 3 == 1)
			ibv_destroy_srq(objs[i]);
		else
			ibv_destroy_qp(objs[i]);
	}
	device_works(pd, "running out of memory");
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " -d DEV [-t SECONDS] TEST...\n"
		"tests: reg-mr memlock keys mw rereg sqd limits flush-hang mmap-race\n"
		"       scribble verbs objects MB\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	int c, i;

	while ((c = getopt(argc, argv, "d:t:")) != -1) {
		if (c == 'd')
			dev_name = optarg;
		else if (c == 't')
			seconds = atoi(optarg);
		else
			usage();
	}
	if (!dev_name || optind == argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = open_dev();
	for (i = optind; i < argc; i++) {
		printf("== %s\n", argv[i]);
		if (!strcmp(argv[i], "reg-mr"))
			test_reg_mr(ctx);
		else if (!strcmp(argv[i], "memlock"))
			test_memlock();
		else if (!strcmp(argv[i], "keys"))
			test_keys(ctx);
		else if (!strcmp(argv[i], "mw"))
			test_mw(ctx);
		else if (!strcmp(argv[i], "rereg"))
			test_rereg(ctx);
		else if (!strcmp(argv[i], "sqd"))
			test_sqd(ctx);
		else if (!strcmp(argv[i], "limits"))
			test_limits(ctx);
		else if (!strcmp(argv[i], "flush-hang"))
			test_flush_hang(ctx);
		else if (!strcmp(argv[i], "mmap-race"))
			test_mmap_race(ctx);
		else if (!strcmp(argv[i], "scribble"))
			test_scribble(ctx);
		else if (!strcmp(argv[i], "verbs"))
			test_verbs();
		else if (!strcmp(argv[i], "objects") && i + 1 < argc)
			test_objects(ctx, atoi(argv[++i]));
		else
			usage();
	}
	ibv_close_device(ctx);
	printf("%s: %d failure(s)\n", PROG, failures);
	return failures ? 1 : 0;
}
