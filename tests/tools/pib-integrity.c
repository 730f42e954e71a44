// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-integrity: move messages of random sizes over one RC QP between two
 * hosts and check that every one arrives exactly once, in order and intact.
 *
 *   pib-integrity --server [OPTIONS]
 *   pib-integrity --client HOST [OPTIONS]
 *
 * The client connects to the server over TCP (no librdmacm), sends the seed
 * and the run's parameters, and both sides swap QP number, LID or GID, PSN
 * and the server's buffer addresses and rkeys. Message i's operation (SEND,
 * RDMA WRITE with immediate, or RDMA READ), size (1 byte .. --max-size),
 * buffer offsets, scatter/gather split and contents all follow from the seed
 * and i, so each side knows what the other must have sent:
 *
 *   SEND       lands in the receive buffer the server posted for it;
 *   WRITE_IMM  lands in a slot of the server's memory, and its immediate
 *              (the sequence number) completes a receive there;
 *   READ       brings back a piece of a region the server filled.
 *
 * SEND and WRITE messages start with a header (magic, sequence number,
 * length, CRC32 of the rest); shorter messages are only payload. The
 * receiver checks the completion (opcode, length, immediate), the header,
 * the checksum, every byte against what the seed says, and that nothing
 * outside the message changed in its buffer (canary bytes around it and
 * between its scatter/gather pieces); the client compares what a READ
 * brought with the region the seed says. Receives posted past the last
 * message catch duplicates. The server returns credits to the
 * client with small SENDs, and probes the path with one after a second
 * without traffic, so a cut network shows on both sides.
 *
 * The last line of output is "pib-integrity: N messages, B bytes, OK" or
 * "pib-integrity: FAILED: <reason>"; the exit status is 0 or 1 (2 for bad
 * usage). With --expect-failure a run passes only if the QP fails with
 * a retry-exceeded completion (IBV_WC_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR)
 * before it finishes (the QP's retry count is then 6 unless given: rdma_rxe
 * retries forever at 7). Nothing waits past --deadline.
 *
 * With --mw 1 or 2, the server gives the client R_Keys of memory windows
 * (of that type) bound to its slots and its read region instead of its
 * MRs' R_Keys: every WRITE and READ goes through a window. Once the QP is
 * connected, the server binds them (ibv_bind_mw(), or IBV_WR_BIND_MW on
 * the QP) with the R_Keys it announced.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define PROG		"pib-integrity"
#define FRAME_MAGIC	0x50494249u	/* "PIBI": control frames over TCP */
#define FRAME_VERSION	1
#define MSG_MAGIC	0x6d736721u	/* message header */
#define CREDIT_MAGIC	0x63726564u	/* credit message */
#define CANARY		0xa5
#define MAX_SGE		4		/* largest --sge */
#define SGE_GAP		16		/* canary bytes between s/g pieces */
#define OFF_MAX		64		/* buffer offsets 0..63 within a slot */
#define SLOT_ALIGN	64
#define CREDIT_DEPTH	8		/* credit SENDs in flight */
#define CREDIT_RECVS	(4 * CREDIT_DEPTH)
#define GUARD_RECVS	4		/* receives past the last message */
#define RD_ATOM_MAX	16
#define PROBE_MS	1000		/* idle time before the server probes */
#define PROGRESS_MS	5000
#define END_GRACE_MS	200		/* wait for stray messages at the end */
#define LOST_GRACE_MS	5000		/* client saw its sends complete */
#define WR_RECV		(1ull << 63)	/* wr_id flag: receive work request */
#define HDR_LEN		16
#define DEF_PORT	18777
/* The wr_id of a memory window's bind (--mw). */
#define BIND_WR_ID	0xb1d0b1d0b1d0b1d0ull

enum op { OP_SEND, OP_WRITE, OP_READ, OP_NUM };
static const char *const op_name[OP_NUM] = { "SEND", "WRITE_IMM", "READ" };

enum frame_type { F_HELLO = 1, F_CONN, F_READY, F_DONE, F_RESULT, F_FAIL };

struct cfg {
	bool server, expect_failure, busy_poll;
	int mw;
	const char *host, *device;
	int port, ib_port, gid_index;
	unsigned int count, max_size, window, sge, ops;
	uint64_t seed;
	bool seed_set;
	int timeout, retry_cnt, rnr_retry;
	unsigned int deadline;
};

/* One end of the connection, as swapped over TCP. */
struct conn {
	uint32_t qpn, psn, lid, mtu, is_ib;
	uint8_t gid[16];
	uint64_t slots_addr, read_addr;
	uint32_t slots_rkey, read_rkey, slot_size, read_size;
};

/* Every control message over TCP; integers travel in network order. */
struct frame {
	uint32_t magic, version, type, status;
	uint64_t seed, msgs, bytes;
	uint32_t count, max_size, window, sge, ops;
	struct conn c;
	char text[200];
};

/* Everything about message seq that both sides derive from the seed. */
struct msg {
	uint32_t seq, len, src_off, dst_off, read_off;
	enum op op;
	unsigned int nsrc, ndst;
	uint32_t src_len[MAX_SGE], dst_len[MAX_SGE];
	uint64_t data_seed;
};

/* Walks the messages in order, optionally only the receive-consuming ones. */
struct msg_iter {
	uint32_t seq;	/* next message to look at */
	uint32_t idx;	/* index among the messages walked */
	bool recv_only;
};

struct rdma {
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_comp_channel *chan;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *slots_mr, *read_mr, *credit_mr;
	struct ibv_mw *slots_mw, *read_mw;
	uint8_t *slots, *readbuf, *credit;
	size_t slot_size, slots_len, read_size, credit_len;
	struct ibv_port_attr port;
	struct ibv_device_attr dev;
	int rd_atom, dest_rd_atom, cq_size;
	bool armed;
	struct conn me, peer;
};

static struct cfg cfg = {
	.port = DEF_PORT, .ib_port = 1, .gid_index = -1, .count = 1000,
	.max_size = 65536, .window = 16, .sge = 1,
	.ops = (1u << OP_SEND) | (1u << OP_WRITE) | (1u << OP_READ),
	.timeout = 14, .retry_cnt = -1, .rnr_retry = 7, .deadline = 300,
};
static struct rdma r;
static int sock = -1;
static struct timespec t_start;
static const char *volatile phase = "starting";
static uint32_t total_recv;	/* SEND + WRITE messages in the run */
static uint64_t total_bytes;
static uint8_t *expect_buf, *gather_buf, *read_expect;
static uint32_t crc_table[256];

/* ---------------------------------------------------------------- output */

static void send_frame(struct frame *f);

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (sock >= 0) {	/* tell the peer; a failing F_FAIL send is ignored */
		struct frame f = { .type = F_FAIL };

		snprintf(f.text, sizeof(f.text), "%.*s", (int)sizeof(f.text) - 1, why);
		fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK);
		send_frame(&f);
	}
	fflush(stdout);
	printf("%s: FAILED: %s\n", PROG, why);
	fflush(stdout);
	exit(1);
}

static void __attribute__((format(printf, 1, 2))) info(const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", PROG);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Last resort for a call that blocks past the deadline: async-signal-safe. */
static void on_alarm(int sig)
{
	static const char a[] = PROG ": FAILED: deadline passed, stuck while ";
	const char *p = phase;
	ssize_t n;

	(void)sig;
	n = write(1, a, sizeof(a) - 1);
	n = write(1, p, strlen(p));
	n = write(1, "\n", 1);
	(void)n;
	_exit(1);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t_start.tv_sec) + (t.tv_nsec - t_start.tv_nsec) / 1e9;
}

/* Milliseconds left until the deadline (0 when it passed). */
static int ms_left(void)
{
	double left = cfg.deadline - now_s();

	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* ---------------------------------------------------- checksum and PRNG */

static void crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

/* CRC-32 as zlib and Ethernet compute it. */
static uint32_t crc32(const uint8_t *p, size_t len)
{
	uint32_t c = 0xffffffffu;

	while (len--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t below(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(splitmix(s) % n) : 0;
}

static void fill_random(uint8_t *p, size_t len, uint64_t state)
{
	while (len) {
		uint64_t v = splitmix(&state);
		size_t n = len < sizeof(v) ? len : sizeof(v);

		memcpy(p, &v, n);
		p += n;
		len -= n;
	}
}

/* ------------------------------------------------------------- messages */

/* A quarter tiny, a quarter next to a multiple of 256 (every IB MTU
 * boundary), half anywhere up to --max-size. */
static uint32_t pick_len(uint64_t *s)
{
	uint32_t max = cfg.max_size, len;

	switch (below(s, 4)) {
	case 0:
		return 1 + below(s, max < 64 ? max : 64);
	case 1:
		len = (1 + below(s, max / 256 ? max / 256 : 1)) * 256 - 1 + below(s, 3);
		return len < 1 ? 1 : len > max ? max : len;
	default:
		return 1 + below(s, max);
	}
}

/* Cut len bytes into n pieces of at least one byte each. */
static void split(uint64_t *s, uint32_t len, unsigned int n, uint32_t *out)
{
	uint32_t left = len;

	for (unsigned int k = 0; k + 1 < n; k++) {
		out[k] = 1 + below(s, left - (n - 1 - k));
		left -= out[k];
	}
	out[n - 1] = left;
}

static void msg_params(uint32_t seq, struct msg *m)
{
	uint64_t s = cfg.seed ^ ((uint64_t)seq + 1) * 0xd1b54a32d192ed03ull;
	unsigned int nops = __builtin_popcount(cfg.ops), pick, k;
	uint32_t most;

	memset(m, 0, sizeof(*m));
	m->seq = seq;
	splitmix(&s);
	pick = below(&s, nops);
	for (k = 0; k < OP_NUM; k++)
		if ((cfg.ops & (1u << k)) && pick-- == 0)
			break;
	m->op = (enum op)k;
	m->len = pick_len(&s);
	m->src_off = below(&s, OFF_MAX);
	m->dst_off = below(&s, OFF_MAX);
	m->read_off = below(&s, (uint32_t)r.read_size - m->len + 1);
	most = m->len < cfg.sge ? m->len : cfg.sge;
	m->nsrc = 1 + below(&s, most);
	m->ndst = 1 + below(&s, most);
	split(&s, m->len, m->nsrc, m->src_len);
	split(&s, m->len, m->ndst, m->dst_len);
	m->data_seed = splitmix(&s);
}

static bool consumes_recv(const struct msg *m)
{
	return m->op != OP_READ;
}

static void iter_next(struct msg_iter *it, struct msg *m)
{
	do
		msg_params(it->seq++, m);
	while (it->recv_only && !consumes_recv(m));
	it->idx++;
}

/* The bytes of message m: header (if it fits) and seeded payload. */
static void msg_build(const struct msg *m, uint8_t *out)
{
	fill_random(out, m->len, m->data_seed);
	if (m->len >= HDR_LEN) {
		uint32_t h[4] = { htonl(MSG_MAGIC), htonl(m->seq), htonl(m->len),
				  htonl(crc32(out + HDR_LEN, m->len - HDR_LEN)) };

		memcpy(out, h, HDR_LEN);
	}
}

/* Check received message bytes; on a mismatch say what is wrong. */
static bool msg_check(const struct msg *m, const uint8_t *got, char *why, size_t n)
{
	msg_build(m, expect_buf);
	if (m->len >= HDR_LEN) {
		uint32_t h[4], crc;

		memcpy(h, got, HDR_LEN);
		crc = crc32(got + HDR_LEN, m->len - HDR_LEN);
		if (ntohl(h[0]) != MSG_MAGIC) {
			snprintf(why, n, "no header (magic 0x%08x)", ntohl(h[0]));
			return false;
		}
		if (ntohl(h[1]) != m->seq) {
			snprintf(why, n, "header carries seq %u (duplicate, lost or out of order)",
				 ntohl(h[1]));
			return false;
		}
		if (ntohl(h[2]) != m->len) {
			snprintf(why, n, "header says %u bytes", ntohl(h[2]));
			return false;
		}
		if (ntohl(h[3]) != crc) {
			snprintf(why, n, "checksum mismatch: header 0x%08x, payload 0x%08x",
				 ntohl(h[3]), crc);
			return false;
		}
	}
	for (uint32_t i = 0; i < m->len; i++)
		if (got[i] != expect_buf[i]) {
			snprintf(why, n, "byte %u is 0x%02x, want 0x%02x", i, got[i],
				 expect_buf[i]);
			return false;
		}
	return true;
}

/* Offset in its slot of s/g piece k of a message laid out at off. */
static size_t piece_off(uint32_t off, const uint32_t *len, unsigned int k)
{
	size_t at = off;

	for (unsigned int j = 0; j < k; j++)
		at += len[j] + SGE_GAP;
	return at;
}

/* Gather n pieces from slot into out and check that every other byte of
 * the slot still holds the canary. */
static bool slot_gather(const uint8_t *slot, uint32_t off, unsigned int n,
			const uint32_t *len, uint8_t *out, char *why, size_t wn)
{
	size_t at = 0, end;

	for (unsigned int k = 0; k <= n; k++) {
		end = k < n ? piece_off(off, len, k) : r.slot_size;
		for (; at < end; at++)
			if (slot[at] != CANARY) {
				snprintf(why, wn, "byte %zu of its buffer, outside the message, "
					 "was overwritten (0x%02x)", at, slot[at]);
				return false;
			}
		if (k < n) {
			memcpy(out, slot + end, len[k]);
			out += len[k];
			at = end + len[k];
		}
	}
	return true;
}

static void fill_sges(struct ibv_sge *sg, uint8_t *slot, uint32_t off, unsigned int n,
		      const uint32_t *len, uint32_t lkey)
{
	for (unsigned int k = 0; k < n; k++) {
		sg[k].addr = (uintptr_t)(slot + piece_off(off, len, k));
		sg[k].length = len[k];
		sg[k].lkey = lkey;
	}
}

/* --------------------------------------------------------------- TCP */

static void frame_swap(struct frame *f, bool to_net)
{
	uint32_t *w[] = { &f->magic, &f->version, &f->type, &f->status, &f->count,
			  &f->max_size, &f->window, &f->sge, &f->ops, &f->c.qpn,
			  &f->c.psn, &f->c.lid, &f->c.mtu, &f->c.is_ib, &f->c.slots_rkey,
			  &f->c.read_rkey, &f->c.slot_size, &f->c.read_size };
	uint64_t *d[] = { &f->seed, &f->msgs, &f->bytes, &f->c.slots_addr, &f->c.read_addr };

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		*w[i] = to_net ? htonl(*w[i]) : ntohl(*w[i]);
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		uint64_t v = *d[i];

		*d[i] = to_net ? ((uint64_t)htonl(v & 0xffffffffu) << 32) | htonl(v >> 32)
			       : ((uint64_t)ntohl(v & 0xffffffffu) << 32) | ntohl(v >> 32);
	}
}

static void send_frame(struct frame *f)
{
	struct frame net = *f;
	size_t done = 0;

	if (sock < 0)	/* only under --expect-failure: the peer is gone */
		return;
	net.magic = FRAME_MAGIC;
	net.version = FRAME_VERSION;
	net.text[sizeof(net.text) - 1] = 0;
	frame_swap(&net, true);
	while (done < sizeof(net)) {
		ssize_t n = send(sock, (char *)&net + done, sizeof(net) - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = errno;

			if (sock >= 0 && f->type != F_FAIL) {
				close(sock);
				sock = -1;
				die("sending to the peer over TCP: %s", strerror(e));
			}
			return;
		}
		done += n;
	}
}

static struct { uint8_t buf[sizeof(struct frame)]; size_t len; } rx;

/* A frame if one is complete: 1; nothing yet: 0; the peer went away: die. */
static int frame_poll(struct frame *f)
{
	ssize_t n;

	if (sock < 0)
		return 0;
	n = recv(sock, rx.buf + rx.len, sizeof(rx.buf) - rx.len, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
		int e = n ? errno : 0;

		close(sock);
		sock = -1;
		if (cfg.expect_failure && r.qp) {
			/* The peer may have seen the QP fail first and gone;
			 * what counts is that this QP fails too. */
			info("the peer closed the TCP connection; waiting for the QP to fail");
			return 0;
		}
		die("the peer closed the TCP connection%s%s", e ? ": " : "", e ? strerror(e) : "");
	}
	if (n > 0)
		rx.len += n;
	if (rx.len < sizeof(rx.buf))
		return 0;
	memcpy(f, rx.buf, sizeof(*f));
	rx.len = 0;
	frame_swap(f, false);
	f->text[sizeof(f->text) - 1] = 0;
	if (f->magic != FRAME_MAGIC || f->version != FRAME_VERSION) {
		close(sock);
		sock = -1;
		die("the peer does not speak this protocol (magic 0x%08x, version %u)",
		    f->magic, f->version);
	}
	if (f->type == F_FAIL) {
		close(sock);
		sock = -1;
		die("%s: %s", cfg.server ? "client" : "server", f->text);
	}
	return 1;
}

static void frame_wait(struct frame *f, enum frame_type type, const char *what)
{
	phase = what;
	while (!frame_poll(f)) {
		struct pollfd p = { .fd = sock, .events = POLLIN };
		int ms = ms_left();

		if (sock < 0)
			die("the peer closed the TCP connection while %s", what);
		if (!ms)
			die("deadline of %u s passed while %s", cfg.deadline, what);
		poll(&p, 1, ms);
	}
	if (f->type != (uint32_t)type)
		die("while %s, the peer sent frame type %u", what, f->type);
}

static void tcp_server(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(cfg.port),
				 .sin_addr.s_addr = htonl(INADDR_ANY) };
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0);
	struct pollfd p = { .fd = l, .events = POLLIN };

	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1))
		die("listening on TCP port %d: %s", cfg.port, strerror(errno));
	info("server listening on TCP port %d", cfg.port);
	phase = "waiting for a client";
	do {
		int ms = ms_left();

		if (!ms)
			die("deadline of %u s passed: no client connected", cfg.deadline);
		poll(&p, 1, ms);
	} while (!(p.revents & POLLIN));
	sock = accept(l, NULL, NULL);
	if (sock < 0)
		die("accept: %s", strerror(errno));
	close(l);
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Connect fd to ai before the deadline: 0 or an errno. */
static int connect_within(int fd, const struct addrinfo *ai)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int flags = fcntl(fd, F_GETFL), err = 0;
	socklen_t len = sizeof(err);

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		if (errno != EINPROGRESS)
			return errno;
		if (poll(&p, 1, ms_left()) != 1)
			return ETIMEDOUT;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
			return errno;
	}
	fcntl(fd, F_SETFL, flags);
	return err;
}

/* Connect to the server, retrying while it is not there yet. */
static void tcp_client(void)
{
	struct addrinfo hint = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	char port[16];
	int err, one = 1;

	snprintf(port, sizeof(port), "%d", cfg.port);
	err = getaddrinfo(cfg.host, port, &hint, &ai);
	if (err)
		die("resolving %s: %s", cfg.host, gai_strerror(err));
	phase = "connecting to the server";
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0)
			die("socket: %s", strerror(errno));
		err = connect_within(fd, ai);
		if (!err) {
			sock = fd;
			break;
		}
		close(fd);
		if (ms_left() < 300)
			die("connecting to %s port %d: %s", cfg.host, cfg.port, strerror(err));
		usleep(200000);
	}
	freeaddrinfo(ai);
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ----------------------------------------------------------- verbs setup */

static void *alloc_buf(size_t len)
{
	size_t round = (len + 4095) & ~(size_t)4095;
	void *p = aligned_alloc(4096, round);

	if (!p)
		die("out of memory (%zu bytes)", round);
	memset(p, CANARY, round);
	return p;
}

static struct ibv_mr *reg(void *p, size_t len, int access, const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(r.pd, p, len, access);

	if (!mr)
		die("ibv_reg_mr (%s, %zu bytes): %s", what, len, strerror(errno));
	return mr;
}

static bool gid_is_v4mapped(const uint8_t *g)
{
	static const uint8_t pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g, pre, sizeof(pre));
}

/* Ethernet link layer: the GID to use (a RoCE v2 IPv4 one unless told). */
static void pick_gid(void)
{
	union ibv_gid gid;
	int idx = cfg.gid_index;

	if (idx < 0) {
		for (int i = 0; i < r.port.gid_tbl_len && idx < 0; i++) {
			struct ibv_gid_entry e;

			if (ibv_query_gid_ex(r.ctx, cfg.ib_port, i, &e, 0))
				continue;
			if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_v4mapped(e.gid.raw))
				idx = i;
		}
		if (idx < 0)
			idx = 0;
		cfg.gid_index = idx;
	}
	if (ibv_query_gid(r.ctx, cfg.ib_port, idx, &gid))
		die("ibv_query_gid(index %d): %s", idx, strerror(errno));
	if (!gid.global.subnet_prefix && !gid.global.interface_id)
		die("GID index %d of port %d is empty", idx, cfg.ib_port);
	memcpy(r.me.gid, gid.raw, sizeof(r.me.gid));
}

static void open_device(void)
{
	struct ibv_device *dev = NULL;
	int n;

	phase = "opening the device";
	r.list = ibv_get_device_list(&n);
	if (!r.list)
		die("ibv_get_device_list: %s", strerror(errno));
	for (int i = 0; i < n && !dev; i++)
		if (!cfg.device || !strcmp(ibv_get_device_name(r.list[i]), cfg.device))
			dev = r.list[i];
	if (!dev)
		die(cfg.device ? "no RDMA device %s" : "no RDMA device%s",
		    cfg.device ? cfg.device : "");
	cfg.device = ibv_get_device_name(dev);
	r.ctx = ibv_open_device(dev);
	if (!r.ctx)
		die("ibv_open_device(%s): %s", cfg.device, strerror(errno));
	if (ibv_query_device(r.ctx, &r.dev))
		die("ibv_query_device: %s", strerror(errno));
	if (ibv_query_port(r.ctx, cfg.ib_port, &r.port))
		die("ibv_query_port(%d): %s", cfg.ib_port, strerror(errno));
	if (r.port.state != IBV_PORT_ACTIVE)
		die("port %d of %s is %s, not ACTIVE", cfg.ib_port, cfg.device,
		    ibv_port_state_str(r.port.state));
	r.me.is_ib = r.port.link_layer == IBV_LINK_LAYER_INFINIBAND;
	r.me.lid = r.port.lid;
	r.me.mtu = r.port.active_mtu;
	if (r.me.is_ib && !r.me.lid)
		die("port %d of %s has no LID (is a subnet manager running?)", cfg.ib_port,
		    cfg.device);
	if (!r.me.is_ib)
		pick_gid();
	r.rd_atom = r.dev.max_qp_init_rd_atom < RD_ATOM_MAX ? r.dev.max_qp_init_rd_atom
							     : RD_ATOM_MAX;
	r.dest_rd_atom = r.dev.max_qp_rd_atom < RD_ATOM_MAX ? r.dev.max_qp_rd_atom
							    : RD_ATOM_MAX;
}

/* Can the device do this run? */
static void check_caps(void)
{
	uint32_t wr = cfg.window > CREDIT_RECVS ? cfg.window : CREDIT_RECVS;

	if ((cfg.ops & (1u << OP_READ)) && (!r.rd_atom || !r.dest_rd_atom))
		die("%s allows no RDMA READ (max_qp_init_rd_atom %d, max_qp_rd_atom %d)",
		    cfg.device, r.dev.max_qp_init_rd_atom, r.dev.max_qp_rd_atom);
	if ((int)cfg.sge > r.dev.max_sge)
		die("--sge %u is more than %s's max_sge %d", cfg.sge, cfg.device,
		    r.dev.max_sge);
	if ((int)wr > r.dev.max_qp_wr)
		die("%u work requests are more than %s's max_qp_wr %d", wr, cfg.device,
		    r.dev.max_qp_wr);
}

/* PD, CQ, QP and memory, once the run's parameters are known. */
static struct ibv_mw *mw_new(const char *what)
{
	struct ibv_mw *mw = ibv_alloc_mw(r.pd, cfg.mw == 1 ? IBV_MW_TYPE_1 :
					 IBV_MW_TYPE_2);

	if (!mw)
		die("ibv_alloc_mw (type %d, %s): %s", cfg.mw, what, strerror(errno));
	return mw;
}

/* Windows for the client's WRITEs and READs, with the R_Keys of their binds. */
static void mw_alloc(void)
{
	r.slots_mw = mw_new("slots");
	r.read_mw = mw_new("read region");
	r.me.slots_rkey = ibv_inc_rkey(r.slots_mw->rkey);
	r.me.read_rkey = ibv_inc_rkey(r.read_mw->rkey);
}

static void create_resources(void)
{
	uint32_t send_wr = cfg.server ? CREDIT_DEPTH : cfg.window;
	uint32_t recv_wr = cfg.server ? cfg.window : CREDIT_RECVS;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = recv_wr,
			 .max_send_sge = cfg.sge, .max_recv_sge = cfg.sge },
	};
	int rw = IBV_ACCESS_LOCAL_WRITE;

	phase = "creating verbs resources";
	check_caps();
	r.pd = ibv_alloc_pd(r.ctx);
	if (!r.pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	if (!cfg.busy_poll) {
		r.chan = ibv_create_comp_channel(r.ctx);
		if (!r.chan)
			die("ibv_create_comp_channel: %s (try --poll)", strerror(errno));
		fcntl(r.chan->fd, F_SETFL, fcntl(r.chan->fd, F_GETFL) | O_NONBLOCK);
	}
	r.cq_size = send_wr + recv_wr + GUARD_RECVS;
	r.cq = ibv_create_cq(r.ctx, r.cq_size, NULL, r.chan, 0);
	if (!r.cq)
		die("ibv_create_cq(%d): %s", r.cq_size, strerror(errno));
	qa.send_cq = qa.recv_cq = r.cq;
	r.qp = ibv_create_qp(r.pd, &qa);
	if (!r.qp)
		die("ibv_create_qp(RC): %s", strerror(errno));
	fcntl(r.ctx->async_fd, F_SETFL, fcntl(r.ctx->async_fd, F_GETFL) | O_NONBLOCK);

	r.slot_size = (OFF_MAX + cfg.max_size + MAX_SGE * SGE_GAP + SLOT_ALIGN - 1) &
		      ~(size_t)(SLOT_ALIGN - 1);
	r.slots_len = r.slot_size * cfg.window;
	r.slots = alloc_buf(r.slots_len);
	r.read_size = 2 * (size_t)cfg.max_size;
	r.credit_len = 16 * (size_t)CREDIT_RECVS;
	r.credit = alloc_buf(r.credit_len);
	r.credit_mr = reg(r.credit, r.credit_len, rw, "credits");
	expect_buf = alloc_buf(cfg.max_size);
	gather_buf = alloc_buf(cfg.max_size);
	read_expect = alloc_buf(r.read_size);
	fill_random(read_expect, r.read_size, cfg.seed ^ 0x5245414452454144ull);
	if (cfg.server) {
		int bind = cfg.mw ? IBV_ACCESS_MW_BIND : 0;

		r.slots_mr = reg(r.slots, r.slots_len,
				 rw | IBV_ACCESS_REMOTE_WRITE | bind, "slots");
		r.readbuf = alloc_buf(r.read_size);
		memcpy(r.readbuf, read_expect, r.read_size);
		r.read_mr = reg(r.readbuf, r.read_size, IBV_ACCESS_REMOTE_READ | bind,
				"read region");
		r.me.slots_addr = (uintptr_t)r.slots;
		r.me.slots_rkey = r.slots_mr->rkey;
		r.me.read_addr = (uintptr_t)r.readbuf;
		r.me.read_rkey = r.read_mr->rkey;
		if (cfg.mw)
			mw_alloc();
		r.me.slot_size = r.slot_size;
		r.me.read_size = r.read_size;
	} else {
		r.slots_mr = reg(r.slots, r.slots_len, rw, "slots");
	}
	r.me.qpn = r.qp->qp_num;
	r.me.psn = (uint32_t)(time(NULL) ^ getpid() ^ (cfg.seed >> 16)) & 0xffffff;
}

/* Bind @mw to all of @mr with @access and the R_Key @rkey; wr_id @id. */
static void mw_bind(struct ibv_mw *mw, struct ibv_mr *mr, int access,
		    uint32_t rkey, uint64_t id)
{
	struct ibv_mw_bind_info info = {
		.mr = mr, .addr = (uintptr_t)mr->addr, .length = mr->length,
		.mw_access_flags = access,
	};
	struct ibv_mw_bind b = { .wr_id = id, .send_flags = IBV_SEND_SIGNALED,
				 .bind_info = info };
	struct ibv_send_wr wr = { .wr_id = id, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED,
				  .bind_mw = { .mw = mw, .rkey = rkey, .bind_info = info } };
	struct ibv_send_wr *bad;
	int err;

	err = cfg.mw == 1 ? ibv_bind_mw(r.qp, mw, &b) : ibv_post_send(r.qp, &wr, &bad);
	if (err)
		die("binding a type %d memory window: %s", cfg.mw, strerror(err));
	if (cfg.mw == 1 && mw->rkey != rkey)
		die("ibv_bind_mw gave R_Key 0x%x, not 0x%x", mw->rkey, rkey);
}

/* Bind the windows mw_alloc() announced, and wait for both completions. */
static void mw_bind_all(void)
{
	struct ibv_wc wc;
	int done = 0, n;

	phase = "binding the memory windows";
	mw_bind(r.slots_mw, r.slots_mr, IBV_ACCESS_REMOTE_WRITE, r.me.slots_rkey,
		BIND_WR_ID);
	mw_bind(r.read_mw, r.read_mr, IBV_ACCESS_REMOTE_READ, r.me.read_rkey,
		BIND_WR_ID);
	while (done < 2) {
		n = ibv_poll_cq(r.cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq: %d", n);
		if (!n) {
			if (ms_left() <= 0)
				die("no completion for the memory windows' binds");
			usleep(1000);
			continue;
		}
		if (wc.wr_id != BIND_WR_ID || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_BIND_MW)
			die("a bind completed with %s (opcode %d, wr_id 0x%llx)",
			    ibv_wc_status_str(wc.status), wc.opcode,
			    (unsigned long long)wc.wr_id);
		done++;
	}
	info("memory windows of type %d bound: R_Keys 0x%x, 0x%x", cfg.mw,
	     r.me.slots_rkey, r.me.read_rkey);
}

static void qp_modify(struct ibv_qp_attr *a, int mask, const char *what)
{
	int err = ibv_modify_qp(r.qp, a, mask);

	if (err)
		die("ibv_modify_qp to %s: %s", what, strerror(err));
}

static void qp_connect(void)
{
	enum ibv_mtu mtu = r.me.mtu < r.peer.mtu ? r.me.mtu : r.peer.mtu;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = cfg.ib_port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	phase = "connecting the QP";
	if (r.peer.is_ib != r.me.is_ib)
		die("link layers differ: here %s, at the peer %s",
		    r.me.is_ib ? "InfiniBand" : "Ethernet", r.peer.is_ib ? "InfiniBand" : "Ethernet");
	qp_modify(&a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		  "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = r.peer.qpn;
	a.rq_psn = r.peer.psn;
	a.max_dest_rd_atomic = r.dest_rd_atom;
	a.min_rnr_timer = 12;	/* 0.64 ms */
	a.ah_attr.port_num = cfg.ib_port;
	if (r.me.is_ib) {
		a.ah_attr.dlid = r.peer.lid;
	} else {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, r.peer.gid, sizeof(r.peer.gid));
		a.ah_attr.grh.sgid_index = cfg.gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	qp_modify(&a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = r.me.psn;
	a.timeout = cfg.timeout;
	a.retry_cnt = cfg.retry_cnt;
	a.rnr_retry = cfg.rnr_retry;
	a.max_rd_atomic = r.rd_atom;
	qp_modify(&a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
	if (r.me.is_ib)
		info("%s port %d: LID %u QPN 0x%06x -> LID %u QPN 0x%06x, MTU %d, InfiniBand",
		     cfg.device, cfg.ib_port, r.me.lid, r.me.qpn, r.peer.lid, r.peer.qpn,
		     128 << mtu);
	else {
		char g1[INET6_ADDRSTRLEN], g2[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, r.me.gid, g1, sizeof(g1));
		inet_ntop(AF_INET6, r.peer.gid, g2, sizeof(g2));
		info("%s port %d: GID[%d] %s QPN 0x%06x -> %s QPN 0x%06x, MTU %d, Ethernet",
		     cfg.device, cfg.ib_port, cfg.gid_index, g1, r.me.qpn, g2, r.peer.qpn,
		     128 << mtu);
	}
}

/* ------------------------------------------------------- completions */

static void post_recv(uint64_t id, struct ibv_sge *sg, int n)
{
	struct ibv_recv_wr wr = { .wr_id = id | WR_RECV, .sg_list = sg, .num_sge = n }, *bad;
	int err = ibv_post_recv(r.qp, &wr, &bad);

	if (err)
		die("ibv_post_recv: %s", strerror(err));
}

static void post_send(struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int err = ibv_post_send(r.qp, wr, &bad);

	if (err)
		die("ibv_post_send: %s", strerror(err));
}

static bool retry_exceeded(enum ibv_wc_status s)
{
	return s == IBV_WC_RETRY_EXC_ERR || s == IBV_WC_RNR_RETRY_EXC_ERR;
}

static void async_events(void)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(r.ctx, &ev)) {
		enum ibv_event_type t = ev.event_type;

		ibv_ack_async_event(&ev);
		info("async event: %s", ibv_event_type_str(t));
		if (t == IBV_EVENT_DEVICE_FATAL)
			die("device fatal event");
	}
}

/*
 * A completion with an error. The QP is in the error state now: collect
 * what else completes for a moment, and name the first status that is not
 * a flush as the cause. Under --expect-failure a retry-exceeded status is
 * the good end of the run; anything else fails it.
 */
static void __attribute__((noreturn)) completion_error(const struct ibv_wc *first,
						       uint32_t msgs, uint64_t bytes)
{
	struct ibv_wc wc = *first, more[16];
	double until = now_s() + 0.5;
	bool found = wc.status != IBV_WC_WR_FLUSH_ERR;
	char where[96];

	while (!found && now_s() < until) {
		int n = ibv_poll_cq(r.cq, 16, more);

		for (int i = 0; i < n && !found; i++)
			if (more[i].status != IBV_WC_WR_FLUSH_ERR) {
				wc = more[i];
				found = true;
			}
		if (!n)
			usleep(10000);
	}
	if (wc.wr_id & WR_RECV)
		snprintf(where, sizeof(where), "receive %llu",
			 (unsigned long long)(wc.wr_id & ~WR_RECV));
	else
		snprintf(where, sizeof(where), "%s %llu", cfg.server ? "credit send" : "message",
			 (unsigned long long)wc.wr_id);
	if (cfg.expect_failure && retry_exceeded(wc.status)) {
		info("QP failed as expected after %u messages: %s (%s, vendor_err 0x%x)",
		     msgs, ibv_wc_status_str(wc.status), where, wc.vendor_err);
		printf("%s: %u messages, %llu bytes, expected failure (%s), OK\n", PROG, msgs,
		       (unsigned long long)bytes, ibv_wc_status_str(wc.status));
		exit(0);
	}
	die("completion error on %s: %s (status %d, vendor_err 0x%x) after %u messages",
	    where, ibv_wc_status_str(wc.status), wc.status, wc.vendor_err, msgs);
}

/* Ask for an event on the next completion, unless that is asked already.
 * Called before polling the CQ, so that nothing slips between the poll
 * and the wait. */
static void arm_cq(void)
{
	if (cfg.busy_poll || r.armed)
		return;
	if (ibv_req_notify_cq(r.cq, 0))
		die("ibv_req_notify_cq: %s (try --poll)", strerror(errno));
	r.armed = true;
}

/* Wait until a completion, a control frame or an async event may be
 * there, for at most ms. */
static void wait_events(int ms)
{
	struct pollfd p[3] = {
		{ .fd = sock, .events = POLLIN },
		{ .fd = r.ctx->async_fd, .events = POLLIN },
		{ .fd = r.chan ? r.chan->fd : -1, .events = POLLIN },
	};
	int left = ms_left();

	if (ms > left)
		ms = left;
	if (cfg.busy_poll) {
		if (poll(p, 2, 0) == 0 && ms)
			usleep(100);
	} else {
		poll(p, 3, ms);
	}
	if (p[1].revents & POLLIN)
		async_events();
	if (p[2].revents & POLLIN) {
		struct ibv_cq *cq;
		void *cq_ctx;

		while (!ibv_get_cq_event(r.chan, &cq, &cq_ctx)) {
			ibv_ack_cq_events(cq, 1);
			r.armed = false;
		}
	}
}

/* ------------------------------------------------------------ the server */

struct server {
	struct msg_iter post, take;	/* receives posted, messages consumed */
	uint32_t consumed, credit_sent, credits_out, credit_seq;
	uint32_t nsend, nwrite;
	uint64_t bytes;
	double last_rx;
	bool done;
	struct frame client;	/* the client's F_DONE */
};

/* Post the receive for the next receive-consuming message (or a guard). */
static void server_post_recv(struct server *s)
{
	uint32_t idx = s->post.idx;
	uint8_t *slot = r.slots + (size_t)(idx % cfg.window) * r.slot_size;
	struct ibv_sge sg[MAX_SGE];
	struct msg m;

	if (idx >= total_recv) {
		/* Catches a message that arrives after the last one. */
		sg[0] = (struct ibv_sge){ .addr = (uintptr_t)slot, .length = r.slot_size,
					  .lkey = r.slots_mr->lkey };
		s->post.idx++;
		post_recv(idx, sg, 1);
		return;
	}
	iter_next(&s->post, &m);
	if (m.op == OP_WRITE) {
		post_recv(idx, NULL, 0);	/* only the immediate arrives here */
		return;
	}
	fill_sges(sg, slot, m.dst_off, m.ndst, m.dst_len, r.slots_mr->lkey);
	/* The last piece reaches to the end of the slot, as a real application's
	 * buffer would: a longer message than expected is seen, not refused. */
	sg[m.ndst - 1].length = r.slots + (idx % cfg.window + 1) * r.slot_size -
				(uint8_t *)(uintptr_t)sg[m.ndst - 1].addr;
	post_recv(idx, sg, m.ndst);
}

static void server_credit(struct server *s, bool probe)
{
	uint32_t k = s->credit_seq++ % CREDIT_DEPTH;
	uint32_t *buf = (uint32_t *)(r.credit + 16 * k);
	struct ibv_sge sg = { .addr = (uintptr_t)buf, .length = 16, .lkey = r.credit_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = s->credit_seq, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };

	buf[0] = htonl(CREDIT_MAGIC);
	buf[1] = htonl(s->consumed);
	buf[2] = htonl(probe);
	buf[3] = htonl(s->credit_seq);
	s->credit_sent = s->consumed;
	s->credits_out++;
	post_send(&wr);
}

static void server_take(struct server *s, const struct ibv_wc *wc)
{
	uint32_t idx = (uint32_t)(wc->wr_id & ~WR_RECV);
	uint8_t *slot = r.slots + (size_t)(idx % cfg.window) * r.slot_size;
	char why[256];
	struct msg m;

	if (idx >= total_recv)
		die("a message arrived after the last one (%s, %u bytes): duplicate?",
		    wc->opcode == IBV_WC_RECV ? "SEND" : "WRITE_IMM", wc->byte_len);
	if (idx != s->consumed)
		die("receive %u completed before receive %u", idx, s->consumed);
	iter_next(&s->take, &m);
	if (m.op == OP_SEND) {
		if (wc->opcode != IBV_WC_RECV || (wc->wc_flags & IBV_WC_WITH_IMM))
			die("message %u (SEND, %u bytes): completion opcode %d flags 0x%x, "
			    "want a plain receive", m.seq, m.len, wc->opcode, wc->wc_flags);
		if (!slot_gather(slot, m.dst_off, m.ndst, m.dst_len, gather_buf, why,
				 sizeof(why)))
			die("message %u (SEND, %u bytes in %u pieces): %s", m.seq, m.len,
			    m.ndst, why);
		s->nsend++;
	} else {
		if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM || !(wc->wc_flags & IBV_WC_WITH_IMM))
			die("message %u (WRITE_IMM, %u bytes): completion opcode %d flags 0x%x, "
			    "want RECV_RDMA_WITH_IMM", m.seq, m.len, wc->opcode, wc->wc_flags);
		if (ntohl(wc->imm_data) != m.seq)
			die("message %u (WRITE_IMM): immediate %u (duplicate, lost or out of order)",
			    m.seq, ntohl(wc->imm_data));
		if (!slot_gather(slot, m.dst_off, 1, &m.len, gather_buf, why, sizeof(why)))
			die("message %u (WRITE_IMM, %u bytes): %s", m.seq, m.len, why);
		s->nwrite++;
	}
	if (wc->byte_len != m.len)
		die("message %u (%s): completion says %u bytes, want %u", m.seq, op_name[m.op],
		    wc->byte_len, m.len);
	if (!msg_check(&m, gather_buf, why, sizeof(why)))
		die("message %u (%s, %u bytes): %s", m.seq, op_name[m.op], m.len, why);
	memset(slot, CANARY, r.slot_size);
	s->consumed++;
	s->bytes += m.len;
	if (s->post.idx < total_recv + GUARD_RECVS)
		server_post_recv(s);
}

static void server_run(void)
{
	struct server s = { .take = { .recv_only = true }, .post = { .recv_only = true } };
	uint32_t batch = cfg.window / 4 ? cfg.window / 4 : 1;
	double next_progress = now_s() + PROGRESS_MS / 1000.0;
	struct frame f;

	/* Receives first, so that the client's first message finds one; the
	 * client says READY once its QP can take the server's credits. */
	while (s.post.idx < cfg.window && s.post.idx < total_recv + GUARD_RECVS)
		server_post_recv(&s);
	frame_wait(&f, F_READY, "waiting for the client to be ready");
	f = (struct frame){ .type = F_READY };
	send_frame(&f);
	phase = "moving data";
	s.last_rx = now_s();
	for (;;) {
		struct ibv_wc wc[16];
		int n;

		arm_cq();
		n = ibv_poll_cq(r.cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq: %d", n);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				completion_error(&wc[i], s.consumed, s.bytes);
			if (wc[i].wr_id & WR_RECV) {
				server_take(&s, &wc[i]);
				s.last_rx = now_s();
			} else {
				if (wc[i].opcode != IBV_WC_SEND)
					die("credit send completed with opcode %d", wc[i].opcode);
				s.credits_out--;
			}
		}
		if (s.credits_out < CREDIT_DEPTH &&
		    (s.consumed - s.credit_sent >= batch ||
		     (s.consumed == total_recv && s.credit_sent < total_recv)))
			server_credit(&s, false);
		else if (!s.credits_out && now_s() - s.last_rx > PROBE_MS / 1000.0) {
			server_credit(&s, true);	/* is the path still there? */
			s.last_rx = now_s();
		}
		if (!s.done && frame_poll(&f)) {
			if (f.type != F_DONE)
				die("the client sent frame type %u during the run", f.type);
			s.done = true;
			s.client = f;
			s.last_rx = now_s();
		}
		if (s.done && s.consumed == total_recv && s.credit_sent == total_recv &&
		    !s.credits_out)
			break;
		if (s.done && s.consumed < total_recv &&
		    now_s() - s.last_rx > LOST_GRACE_MS / 1000.0)
			die("the client's sends all completed, but message %u (receive %u of %u) "
			    "never arrived", s.take.seq, s.consumed, total_recv);
		if (now_s() > next_progress) {
			info("progress: %u of %u SEND/WRITE messages received", s.consumed,
			     total_recv);
			next_progress = now_s() + PROGRESS_MS / 1000.0;
		}
		if (!ms_left())
			die("deadline of %u s passed after %u of %u SEND/WRITE messages",
			    cfg.deadline, s.consumed, total_recv);
		if (!n)
			wait_events(100);
	}
	/* Anything more that completes now is a duplicate. */
	for (double until = now_s() + END_GRACE_MS / 1000.0; now_s() < until;) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(r.cq, 1, &wc);

		if (n > 0 && wc.status != IBV_WC_SUCCESS)
			completion_error(&wc, s.consumed, s.bytes);
		if (n > 0 && !(wc.wr_id & WR_RECV))
			die("a send completed after the last credit (wr_id %llu)",
			    (unsigned long long)wc.wr_id);
		if (n > 0)
			server_take(&s, &wc);
		usleep(10000);
	}
	if (cfg.expect_failure)
		die("all %u messages arrived, but --expect-failure wanted the QP to fail",
		    cfg.count);
	if (s.client.msgs != cfg.count || s.client.bytes != total_bytes)
		die("client reports %llu messages, %llu bytes; want %u, %llu",
		    (unsigned long long)s.client.msgs, (unsigned long long)s.client.bytes,
		    cfg.count, (unsigned long long)total_bytes);
	f = (struct frame){ .type = F_RESULT, .msgs = s.consumed, .bytes = s.bytes };
	send_frame(&f);
	info("server: %u SEND and %u WRITE_IMM messages (%llu bytes) verified; "
	     "client verified %u READs", s.nsend, s.nwrite, (unsigned long long)s.bytes,
	     cfg.count - total_recv);
}

/* ------------------------------------------------------------ the client */

struct client {
	struct msg_iter post;		/* messages posted */
	struct msg_iter done;		/* messages completed */
	uint32_t recv_posted;		/* SEND/WRITE messages posted */
	uint32_t credit, credit_msgs;
	uint32_t n[OP_NUM];
	uint64_t bytes;
	bool result;
};

static void client_credit_recv(uint32_t k)
{
	struct ibv_sge sg = { .addr = (uintptr_t)(r.credit + 16 * k), .length = 16,
			      .lkey = r.credit_mr->lkey };

	post_recv(k, &sg, 1);
}

static void client_post(struct client *c)
{
	uint8_t *slot = r.slots + (size_t)(c->post.seq % cfg.window) * r.slot_size;
	struct ibv_send_wr wr = { .send_flags = IBV_SEND_SIGNALED };
	struct ibv_sge sg[MAX_SGE];
	uint32_t rslot = c->recv_posted % cfg.window;
	struct msg m;

	iter_next(&c->post, &m);
	wr.wr_id = m.seq;
	wr.sg_list = sg;
	if (m.op == OP_READ) {
		memset(slot, CANARY, r.slot_size);
		fill_sges(sg, slot, m.dst_off, m.ndst, m.dst_len, r.slots_mr->lkey);
		wr.num_sge = m.ndst;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = r.peer.read_addr + m.read_off;
		wr.wr.rdma.rkey = r.peer.read_rkey;
		post_send(&wr);
		return;
	}
	msg_build(&m, expect_buf);
	fill_sges(sg, slot, m.src_off, m.nsrc, m.src_len, r.slots_mr->lkey);
	for (unsigned int k = 0, at = 0; k < m.nsrc; at += m.src_len[k], k++)
		memcpy((void *)(uintptr_t)sg[k].addr, expect_buf + at, m.src_len[k]);
	wr.num_sge = m.nsrc;
	if (m.op == OP_SEND) {
		wr.opcode = IBV_WR_SEND;
	} else {
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(m.seq);
		wr.wr.rdma.remote_addr = r.peer.slots_addr + (uint64_t)rslot * r.peer.slot_size +
					 m.dst_off;
		wr.wr.rdma.rkey = r.peer.slots_rkey;
	}
	c->recv_posted++;
	post_send(&wr);
}

/* May the next message go now? */
static bool client_can_post(struct client *c)
{
	struct msg m;

	if (c->post.seq >= cfg.count || c->post.seq - c->done.seq >= cfg.window)
		return false;
	msg_params(c->post.seq, &m);
	return !consumes_recv(&m) || c->recv_posted < c->credit + cfg.window;
}

static void client_complete(struct client *c, const struct ibv_wc *wc)
{
	static const enum ibv_wc_opcode want[OP_NUM] = { IBV_WC_SEND, IBV_WC_RDMA_WRITE,
							  IBV_WC_RDMA_READ };
	uint8_t *slot = r.slots + (size_t)(c->done.seq % cfg.window) * r.slot_size;
	char why[256];
	struct msg m;

	if (wc->wr_id != c->done.seq)
		die("message %llu completed before message %u",
		    (unsigned long long)wc->wr_id, c->done.seq);
	iter_next(&c->done, &m);
	if (wc->opcode != want[m.op])
		die("message %u (%s): completion opcode %d, want %d", m.seq, op_name[m.op],
		    wc->opcode, want[m.op]);
	if (m.op == OP_READ) {
		if (!slot_gather(slot, m.dst_off, m.ndst, m.dst_len, gather_buf, why,
				 sizeof(why)))
			die("message %u (READ, %u bytes in %u pieces): %s", m.seq, m.len,
			    m.ndst, why);
		if (crc32(gather_buf, m.len) != crc32(read_expect + m.read_off, m.len)) {
			for (uint32_t i = 0; i < m.len; i++)
				if (gather_buf[i] != read_expect[m.read_off + i])
					die("message %u (READ, %u bytes at offset %u): byte %u is "
					    "0x%02x, want 0x%02x", m.seq, m.len, m.read_off, i,
					    gather_buf[i], read_expect[m.read_off + i]);
			die("message %u (READ): checksum mismatch", m.seq);
		}
	}
	c->n[m.op]++;
	c->bytes += m.len;
}

static void client_take_credit(struct client *c, const struct ibv_wc *wc)
{
	uint32_t k = (uint32_t)(wc->wr_id & ~WR_RECV), v[4];

	if (wc->opcode != IBV_WC_RECV || wc->byte_len != sizeof(v))
		die("credit message: opcode %d, %u bytes", wc->opcode, wc->byte_len);
	memcpy(v, r.credit + 16 * k, sizeof(v));
	if (ntohl(v[0]) != CREDIT_MAGIC || ntohl(v[3]) != c->credit_msgs + 1)
		die("credit message %u: magic 0x%08x, number %u (lost, duplicate or out of order)",
		    c->credit_msgs + 1, ntohl(v[0]), ntohl(v[3]));
	if (ntohl(v[1]) < c->credit || ntohl(v[1]) > c->recv_posted)
		die("credit %u: server counts %u messages, %u sent, %u credited before",
		    c->credit_msgs + 1, ntohl(v[1]), c->recv_posted, c->credit);
	c->credit = ntohl(v[1]);
	c->credit_msgs++;
	client_credit_recv(k);
}

static void client_run(void)
{
	struct client c = { .post.seq = 0 };
	double t0 = now_s(), next_progress = t0 + PROGRESS_MS / 1000.0, secs;
	bool done_sent = false;
	struct frame f;

	phase = "moving data";
	for (;;) {
		struct ibv_wc wc[16];
		uint32_t msgs = c.n[OP_SEND] + c.n[OP_WRITE] + c.n[OP_READ];
		int n;

		arm_cq();
		n = ibv_poll_cq(r.cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq: %d", n);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				completion_error(&wc[i], msgs, c.bytes);
			if (wc[i].wr_id & WR_RECV)
				client_take_credit(&c, &wc[i]);
			else
				client_complete(&c, &wc[i]);
		}
		while (client_can_post(&c))
			client_post(&c);
		if (!done_sent && c.done.seq == cfg.count) {
			f = (struct frame){ .type = F_DONE, .msgs = cfg.count, .bytes = c.bytes };
			send_frame(&f);
			done_sent = true;
		}
		if (!c.result && frame_poll(&f)) {
			if (f.type != F_RESULT)
				die("the server sent frame type %u during the run", f.type);
			c.result = true;
		}
		if (done_sent && c.result && c.credit == total_recv)
			break;
		if (now_s() > next_progress) {
			info("progress: %u of %u messages", c.done.seq, cfg.count);
			next_progress = now_s() + PROGRESS_MS / 1000.0;
		}
		if (!ms_left())
			die("deadline of %u s passed after %u of %u messages (%u posted, "
			    "%u of %u SEND/WRITE credited)%s", cfg.deadline, c.done.seq, cfg.count,
			    c.post.seq, c.credit, total_recv,
			    done_sent ? ", waiting for the server's result" : "");
		if (!n)
			wait_events(100);
	}
	secs = now_s() - t0;
	if (cfg.expect_failure)
		die("all %u messages arrived, but --expect-failure wanted the QP to fail",
		    cfg.count);
	info("client: %u SEND, %u WRITE_IMM, %u READ; %llu bytes in %.2f s (%.2f MB/s), "
	     "seed 0x%llx", c.n[OP_SEND], c.n[OP_WRITE], c.n[OP_READ],
	     (unsigned long long)c.bytes, secs, secs > 0 ? c.bytes / secs / 1e6 : 0.0,
	     (unsigned long long)cfg.seed);
}

/* --------------------------------------------------------------- main */

/* Destroy everything in order, as an application that ends well does. */
static void teardown(void)
{
	struct ibv_mr *mrs[] = { r.slots_mr, r.read_mr, r.credit_mr };
	struct ibv_mw *mws[] = { r.slots_mw, r.read_mw };
	int err;

	phase = "tearing down";
	/* (an MR with a window bound to it cannot go: EBUSY) */
	for (size_t i = 0; i < sizeof(mws) / sizeof(mws[0]); i++)
		if (mws[i] && (err = ibv_dealloc_mw(mws[i])))
			die("ibv_dealloc_mw: %s", strerror(err));
	err = ibv_destroy_qp(r.qp);
	if (err)
		die("ibv_destroy_qp: %s", strerror(err));
	err = ibv_destroy_cq(r.cq);
	if (err)
		die("ibv_destroy_cq: %s", strerror(err));
	if (r.chan && (err = ibv_destroy_comp_channel(r.chan)))
		die("ibv_destroy_comp_channel: %s", strerror(err));
	for (size_t i = 0; i < sizeof(mrs) / sizeof(mrs[0]); i++)
		if (mrs[i] && (err = ibv_dereg_mr(mrs[i])))
			die("ibv_dereg_mr: %s", strerror(err));
	err = ibv_dealloc_pd(r.pd);
	if (err)
		die("ibv_dealloc_pd: %s", strerror(err));
	if (ibv_close_device(r.ctx))
		die("ibv_close_device: %s", strerror(errno));
	ibv_free_device_list(r.list);
	free(r.slots);
	free(r.readbuf);
	free(r.credit);
	free(expect_buf);
	free(gather_buf);
	free(read_expect);
	memset(&r, 0, sizeof(r));
}

static void totals(void)
{
	struct msg m;

	total_recv = 0;
	total_bytes = 0;
	for (uint32_t i = 0; i < cfg.count; i++) {
		msg_params(i, &m);
		total_recv += consumes_recv(&m);
		total_bytes += m.len;
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: " PROG " (--server | --client HOST) [options]\n"
		"  -p, --port N         TCP port for the exchange (default %d)\n"
		"  -d, --device NAME    RDMA device (default: the first)\n"
		"  -i, --ib-port N      device port (default 1)\n"
		"  -g, --gid-index N    GID index on Ethernet ports (default: a RoCE v2\n"
		"                       IPv4 GID); InfiniBand ports use the LID\n"
		"  -n, --count N        messages (client; default 1000)\n"
		"  -s, --max-size N     largest message in bytes (client; default 65536)\n"
		"  -S, --seed N         PRNG seed (client; default: from the clock)\n"
		"  -w, --window N       messages in flight (client; default 16)\n"
		"      --sge N          scatter/gather pieces per message, 1..%d (client)\n"
		"      --ops LIST       any of send,write,read (client; default all)\n"
		"      --timeout N      QP local ACK timeout exponent (default 14)\n"
		"      --retry-cnt N    QP retry count (default 7; 6 with --expect-failure,\n"
		"                       since rdma_rxe retries forever at 7)\n"
		"      --rnr-retry N    QP RNR retry count (default 7: forever)\n"
		"      --expect-failure pass only if the QP fails with a retry-exceeded status\n"
		"      --deadline SEC   give up after SEC seconds (default 300)\n"
		"      --poll           busy-poll the CQ instead of waiting for events\n"
		"      --mw TYPE        (server) WRITEs and READs through memory windows\n"
		"                       of TYPE 1 or 2\n",
		DEF_PORT, MAX_SGE);
	exit(2);
}

static unsigned long long num(const char *s, unsigned long long lo, unsigned long long hi,
			      const char *opt)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || *s == '-' || v < lo || v > hi) {
		fprintf(stderr, PROG ": %s wants a number in %llu..%llu, not '%s'\n", opt, lo,
			hi, s);
		exit(2);
	}
	return v;
}

static unsigned int parse_ops(char *s)
{
	unsigned int ops = 0;

	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		int k;

		for (k = 0; k < OP_NUM; k++)
			if (!strncasecmp(t, op_name[k], strlen(t)) && *t)
				break;
		if (k == OP_NUM) {
			fprintf(stderr, PROG ": --ops: unknown operation '%s'\n", t);
			exit(2);
		}
		ops |= 1u << k;
	}
	if (!ops)
		usage();
	return ops;
}

static void parse(int argc, char **argv)
{
	enum { O_SGE = 256, O_OPS, O_TIMEOUT, O_RETRY, O_RNR, O_EXPECT, O_DEADLINE, O_POLL, O_MW,
	       O_SERVER, O_CLIENT };
	static const struct option lo[] = {
		{ "server", no_argument, NULL, O_SERVER },
		{ "client", required_argument, NULL, O_CLIENT },
		{ "port", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "count", required_argument, NULL, 'n' },
		{ "max-size", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "window", required_argument, NULL, 'w' },
		{ "sge", required_argument, NULL, O_SGE },
		{ "ops", required_argument, NULL, O_OPS },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "retry-cnt", required_argument, NULL, O_RETRY },
		{ "rnr-retry", required_argument, NULL, O_RNR },
		{ "expect-failure", no_argument, NULL, O_EXPECT },
		{ "deadline", required_argument, NULL, O_DEADLINE },
		{ "poll", no_argument, NULL, O_POLL },
		{ "mw", required_argument, NULL, O_MW },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int o;

	while ((o = getopt_long(argc, argv, "p:d:i:g:n:s:S:w:h", lo, NULL)) != -1) {
		switch (o) {
		case O_SERVER: cfg.server = true; break;
		case O_CLIENT: cfg.host = optarg; break;
		case 'p': cfg.port = num(optarg, 1, 65535, "--port"); break;
		case 'd': cfg.device = optarg; break;
		case 'i': cfg.ib_port = num(optarg, 1, 255, "--ib-port"); break;
		case 'g': cfg.gid_index = num(optarg, 0, 255, "--gid-index"); break;
		case 'n': cfg.count = num(optarg, 1, 1u << 30, "--count"); break;
		case 's': cfg.max_size = num(optarg, 1, 1u << 30, "--max-size"); break;
		case 'S':
			cfg.seed = num(optarg, 0, UINT64_MAX, "--seed");
			cfg.seed_set = true;
			break;
		case 'w': cfg.window = num(optarg, 1, 4096, "--window"); break;
		case O_SGE: cfg.sge = num(optarg, 1, MAX_SGE, "--sge"); break;
		case O_OPS: cfg.ops = parse_ops(optarg); break;
		case O_TIMEOUT: cfg.timeout = num(optarg, 0, 31, "--timeout"); break;
		case O_RETRY: cfg.retry_cnt = num(optarg, 0, 7, "--retry-cnt"); break;
		case O_RNR: cfg.rnr_retry = num(optarg, 0, 7, "--rnr-retry"); break;
		case O_EXPECT: cfg.expect_failure = true; break;
		case O_DEADLINE: cfg.deadline = num(optarg, 1, 86400, "--deadline"); break;
		case O_POLL: cfg.busy_poll = true; break;
		case O_MW: cfg.mw = num(optarg, 1, 2, "--mw"); break;
		default: usage();
		}
	}
	if (optind != argc || cfg.server == !!cfg.host)
		usage();
	if (cfg.retry_cnt < 0)
		cfg.retry_cnt = cfg.expect_failure ? 6 : 7;
	if (!cfg.seed_set) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		cfg.seed = ((uint64_t)t.tv_sec << 20) ^ (uint64_t)t.tv_nsec ^ getpid();
	}
}

/* The operations of this run, e.g. "SEND,READ". */
static const char *ops_str(void)
{
	static char buf[32];

	buf[0] = 0;
	for (int k = 0; k < OP_NUM; k++)
		if (cfg.ops & (1u << k))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? "," : "", op_name[k]);
	return buf;
}

/* Run parameters travel client -> server in the hello frame. */
static void exchange(void)
{
	struct frame f = { 0 };

	phase = "exchanging parameters";
	if (cfg.server) {
		frame_wait(&f, F_HELLO, "waiting for the client's parameters");
		cfg.seed = f.seed;
		cfg.count = f.count;
		cfg.max_size = f.max_size;
		cfg.window = f.window;
		cfg.sge = f.sge;
		cfg.ops = f.ops;
		if (!cfg.count || !cfg.max_size || !cfg.window || !cfg.sge ||
		    cfg.sge > MAX_SGE || !cfg.ops || cfg.ops >= 1u << OP_NUM ||
		    cfg.window > 4096 || cfg.max_size > 1u << 30)
			die("the client's parameters make no sense");
		r.peer = f.c;
		create_resources();
		f = (struct frame){ .type = F_CONN, .c = r.me };
		send_frame(&f);
	} else {
		create_resources();
		f = (struct frame){ .type = F_HELLO, .seed = cfg.seed, .count = cfg.count,
				    .max_size = cfg.max_size, .window = cfg.window,
				    .sge = cfg.sge, .ops = cfg.ops, .c = r.me };
		send_frame(&f);
		frame_wait(&f, F_CONN, "waiting for the server's QP");
		r.peer = f.c;
		if (r.peer.slot_size < r.slot_size || r.peer.read_size != r.read_size)
			die("the server's buffers do not fit this run");
	}
	totals();
	info("%s: seed 0x%llx, %u messages of 1..%u bytes (%u SEND/WRITE, %llu bytes), "
	     "ops %s, window %u, sge %u", cfg.server ? "server" : "client",
	     (unsigned long long)cfg.seed, cfg.count, cfg.max_size, total_recv,
	     (unsigned long long)total_bytes, ops_str(), cfg.window, cfg.sge);
}

int main(int argc, char **argv)
{
	struct frame f;

	clock_gettime(CLOCK_MONOTONIC, &t_start);
	setvbuf(stdout, NULL, _IOLBF, 0);
	parse(argc, argv);
	crc32_init();
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, on_alarm);
	alarm(cfg.deadline + 5);

	open_device();
	if (cfg.server)
		tcp_server();
	else
		tcp_client();
	exchange();

	qp_connect();
	if (cfg.server) {
		if (cfg.mw)
			mw_bind_all();
		server_run();
	} else {
		for (uint32_t k = 0; k < CREDIT_RECVS; k++)
			client_credit_recv(k);
		f = (struct frame){ .type = F_READY };
		send_frame(&f);
		frame_wait(&f, F_READY, "waiting for the server to be ready");
		info("connected");
		client_run();
	}
	teardown();
	if (sock >= 0)
		close(sock);
	printf("%s: %u messages, %llu bytes, OK\n", PROG, cfg.count,
	       (unsigned long long)total_bytes);
	return 0;
}
