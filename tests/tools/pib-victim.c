// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-victim: the QPs a hostile host aims at, and what reached them.
 *
 *   pib-victim -d DEV --info FILE --seconds S [--rc-dlid LID] [--rc-sends N]
 *              [--mgid MGID --mlid MLID]
 *
 * With --rc-dlid, an RC QP connected to a QP that does not exist behind
 * LID (QPN 0xabcdef) posts N signaled SENDs (288 unless told) that can
 * only go unanswered: none may complete successfully, whatever ACKs
 * arrive. A UD QP (Q_Key 0x11111111) keeps receives posted and, with
 * --mgid, is attached to that multicast group; it counts the datagrams it
 * gets by their first byte (the forger's tag). The QPs' numbers and PSN go
 * to FILE ("name value" lines) once they are ready. After S seconds it
 * prints "rc_success N", "rc_error N", "ud_tag_C N" for every tag C seen,
 * and exits 0 (2 on bad usage, 1 if a verb failed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define PROG		"pib-victim"
#define RC_DEST_QPN	0xabcdef
#define RC_PSN		0x100
#define UD_QKEY		0x11111111u
#define UD_RECVS	64
#define GRH_ROOM	40
#define UD_BUF		(GRH_ROOM + 4096)
#define SEND_LEN	64
#define MAX_SENDS	512

struct cfg {
	const char *dev, *info;
	unsigned int seconds, rc_dlid, rc_sends, mlid;
	int has_mgid;
	union ibv_gid mgid;
};

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *rc_cq, *ud_cq;
	struct ibv_qp *rc, *ud;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint16_t lid;
} v;

static unsigned long tags[256];

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " -d DEV --info FILE --seconds S [--rc-dlid LID] "
		"[--rc-sends N] [--mgid MGID --mlid MLID]\n");
	exit(2);
}

static unsigned int num(const char *s, unsigned long max)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(s, &end, 0);
	if (errno || *end || end == s || n > max)
		usage();
	return n;
}

static void parse(struct cfg *c, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "info", required_argument, NULL, 'i' },
		{ "seconds", required_argument, NULL, 't' },
		{ "rc-dlid", required_argument, NULL, 'r' },
		{ "rc-sends", required_argument, NULL, 'n' },
		{ "mgid", required_argument, NULL, 'g' },
		{ "mlid", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	*c = (struct cfg){ .rc_sends = 288 };
	while ((o = getopt_long(argc, argv, "d:", longs, NULL)) != -1) {
		switch (o) {
		case 'd': c->dev = optarg; break;
		case 'i': c->info = optarg; break;
		case 't': c->seconds = num(optarg, 3600); break;
		case 'r': c->rc_dlid = num(optarg, 0xbfff); break;
		case 'n': c->rc_sends = num(optarg, MAX_SENDS); break;
		case 'g':
			if (inet_pton(AF_INET6, optarg, c->mgid.raw) != 1)
				usage();
			c->has_mgid = 1;
			break;
		case 'm': c->mlid = num(optarg, 0xfffe); break;
		default: usage();
		}
	}
	if (!c->dev || !c->info || !c->seconds || optind != argc ||
	    c->has_mgid != !!c->mlid)
		usage();
}

static void open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;
	int i;

	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i] && strcmp(ibv_get_device_name(list[i]), name); i++)
		;
	if (!list[i]) {
		fprintf(stderr, PROG ": no device %s\n", name);
		exit(1);
	}
	v.ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!v.ctx)
		die("ibv_open_device");
	if (ibv_query_port(v.ctx, 1, &pa))
		die("ibv_query_port");
	v.lid = pa.lid;
	v.pd = ibv_alloc_pd(v.ctx);
	v.rc_cq = ibv_create_cq(v.ctx, 2 * MAX_SENDS, NULL, NULL, 0);
	v.ud_cq = ibv_create_cq(v.ctx, 2 * UD_RECVS, NULL, NULL, 0);
	v.buf = calloc(UD_RECVS + 1, UD_BUF);
	if (!v.pd || !v.rc_cq || !v.ud_cq || !v.buf)
		die("resources");
	v.mr = ibv_reg_mr(v.pd, v.buf, (UD_RECVS + 1) * UD_BUF,
			  IBV_ACCESS_LOCAL_WRITE);
	if (!v.mr)
		die("ibv_reg_mr");
}

static struct ibv_qp *create_qp(enum ibv_qp_type type, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = MAX_SENDS, .max_recv_wr = UD_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(v.pd, &ia);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		   const char *what)
{
	errno = ibv_modify_qp(qp, a, mask);
	if (errno)
		die(what);
}

/* An RC QP whose peer does not exist: its SENDs can only time out. */
static void rc_setup(const struct cfg *c)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_sge sge = { .addr = (uintptr_t)v.buf, .length = SEND_LEN,
			       .lkey = v.mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	unsigned int i;

	v.rc = create_qp(IBV_QPT_RC, v.rc_cq);
	modify(v.rc, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "RC to INIT");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR,
				  .path_mtu = IBV_MTU_1024,
				  .dest_qp_num = RC_DEST_QPN,
				  .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
				  .ah_attr = { .dlid = c->rc_dlid, .port_num = 1 } };
	modify(v.rc, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "RC to RTR");
	/* About 4 s per try, 7 retries: unanswered for the whole run. */
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = RC_PSN,
				  .timeout = 20, .retry_cnt = 7,
				  .rnr_retry = 7, .max_rd_atomic = 1 };
	modify(v.rc, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "RC to RTS");
	for (i = 0; i < c->rc_sends; i++) {
		wr.wr_id = i;
		errno = ibv_post_send(v.rc, &wr, &bad);
		if (errno)
			die("ibv_post_send");
	}
}

static void ud_post_recv(unsigned int i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(v.buf + (i + 1) * UD_BUF),
			       .length = UD_BUF, .lkey = v.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	errno = ibv_post_recv(v.ud, &wr, &bad);
	if (errno)
		die("ibv_post_recv");
}

static void ud_setup(const struct cfg *c)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = UD_QKEY };
	unsigned int i;

	v.ud = create_qp(IBV_QPT_UD, v.ud_cq);
	modify(v.ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_QKEY, "UD to INIT");
	for (i = 0; i < UD_RECVS; i++)
		ud_post_recv(i);
	a.qp_state = IBV_QPS_RTR;
	modify(v.ud, &a, IBV_QP_STATE, "UD to RTR");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	modify(v.ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "UD to RTS");
	if (c->has_mgid) {
		errno = ibv_attach_mcast(v.ud, &c->mgid, c->mlid);
		if (errno)
			die("ibv_attach_mcast");
	}
}

static void write_info(const char *path)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fprintf(f, "lid %u\nrc_qpn %u\nrc_psn %u\nud_qpn %u\nud_qkey %u\n",
		v.lid, v.rc ? v.rc->qp_num : 0, RC_PSN, v.ud->qp_num, UD_QKEY);
	if (fclose(f) || rename(tmp, path))
		die(path);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long rc_ok = 0, rc_err = 0;
	enum ibv_wc_status first_err = IBV_WC_SUCCESS;
	struct ibv_wc wc[16];
	double end;
	struct cfg c;
	int n, i;

	parse(&c, argc, argv);
	open_device(c.dev);
	ud_setup(&c);
	if (c.rc_dlid)
		rc_setup(&c);
	write_info(c.info);
	end = now_s() + c.seconds;
	while (now_s() < end) {
		n = v.rc ? ibv_poll_cq(v.rc_cq, 16, wc) : 0;
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS) {
				rc_ok++;
			} else {
				if (!rc_err++)
					first_err = wc[i].status;
			}
		}
		n = ibv_poll_cq(v.ud_cq, 16, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS && wc[i].byte_len > GRH_ROOM)
				tags[v.buf[(wc[i].wr_id + 1) * UD_BUF + GRH_ROOM]]++;
			ud_post_recv(wc[i].wr_id);
		}
		if (!n) {
			struct timespec ts = { .tv_nsec = 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	printf("rc_success %lu\nrc_error %lu (first: %s)\n", rc_ok, rc_err,
	       rc_err ? ibv_wc_status_str(first_err) : "none");
	for (i = 0; i < 256; i++)
		if (tags[i])
			printf("ud_tag_%c %lu\n", i > 32 && i < 127 ? i : '?', tags[i]);
	printf(PROG ": done\n");
	return 0;
}
