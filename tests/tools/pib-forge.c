// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-forge: a hostile host on the LAN. Sends forged pib datagrams (one IB
 * packet in a UDP datagram to pib's port, with correct ICRC and VCRC) from
 * any IPv4 source address, through a raw socket, for the hostile-peer test.
 *
 *   pib-forge [-s SRC] [-S SRC_STEP] [-p PORT] [-n COUNT] [-g GAP_US]
 *             [-k none|good|bad] -d DST KIND [FIELD=VALUE...]
 *
 * KIND is one of
 *   hello   a switch's hello:        guid guid_step (the i-th datagram
 *                                    names guid + i * guid_step)
 *   ud      a UD SEND:               lrh, bth and deth fields, len, tag, dgid
 *   mad     a UD SEND with a MAD:    as ud, and base class cver method attr
 *                                    mod mkey data (hex, from byte 64), dr
 *   ack     an RC ACK:               lrh and bth fields, syn msn
 *
 * FIELDs (numbers, 0x.. allowed): vl sl dlid slid (LRH); pkey qp psn
 * psn_step (BTH: destination QP and PSN, the i-th datagram has PSN psn +
 * i * psn_step); qkey src_qp (DETH); dgid (a GID, makes a GRH); len (payload
 * bytes, 256 for a MAD); tag (the first payload byte of a ud datagram, the
 * rest counts up); base, class, cver, method, attr, mod, mkey (the MAD
 * header; a MAD of the SMP classes has an M_Key); dr=1 (a directed-route
 * SMP that has arrived at its last hop: HopCnt = HopPtr = 1, permissive
 * DrSLID and DrDLID); data (hex bytes of the SMP data). -S steps the source
 * address by that much per datagram (spoofing a range of hosts). -k: the
 * UDP checksum: none (0, the default), good (which the receiver's GRO
 * wants before it merges datagrams), or bad (good, off by one); with -s.
 *
 * Prints "pib-forge: sent N" and exits 0, or 2 on bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pib_hdr.h"

#define PROG		"pib-forge"
#define MAD_LEN		256
#define SMP_MKEY	24
#define SMP_DATA	64
#define SMP_DATA_LEN	64
#define QP1_QKEY	0x80010000u
#define CLASS_SUBN_LID	0x01
#define CLASS_SUBN_DR	0x81

enum kind { K_HELLO, K_UD, K_MAD, K_ACK };
enum csum { C_NONE, C_GOOD, C_BAD };

struct opts {
	enum kind kind;
	enum csum csum;
	struct in_addr src, dst;
	unsigned long long src_step, count, gap_us, port;
	unsigned long long vl, sl, dlid, slid, pkey, qp, psn, psn_step;
	unsigned long long qkey, src_qp, len, tag, syn, msn, guid, guid_step;
	unsigned long long base, mclass, cver, method, attr, mod, mkey, dr;
	int has_dgid, has_qkey;
	__u8 dgid[16];
	__u8 data[SMP_DATA_LEN];
	size_t data_len;
};

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [-s SRC] [-S SRC_STEP] [-p PORT] [-n COUNT] "
		"[-g GAP_US] [-k none|good|bad] -d DST hello|ud|mad|ack [FIELD=VALUE...]\n");
	exit(2);
}

static unsigned long long number(const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, PROG ": bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void hex(const char *s, __u8 *out, size_t max, size_t *n)
{
	size_t i, len = strlen(s);

	if (len % 2 || len / 2 > max)
		usage();
	for (i = 0; i < len / 2; i++)
		if (sscanf(s + 2 * i, "%2hhx", &out[i]) != 1)
			usage();
	*n = len / 2;
}

/* One FIELD=VALUE: the field's slot and the largest value it takes. */
struct field {
	const char *name;
	size_t off;
	unsigned long long max;
};

#define F(n, m) { #n, offsetof(struct opts, n), m }
static const struct field fields[] = {
	F(vl, 15), F(sl, 15), F(dlid, 0xffff), F(slid, 0xffff),
	F(pkey, 0xffff), F(qp, 0xffffff), F(psn, 0xffffff),
	F(psn_step, 0xffffff), F(qkey, 0xffffffff), F(src_qp, 0xffffff),
	F(len, PIB_MAX_PAYLOAD), F(tag, 255), F(syn, 255), F(msn, 0xffffff),
	F(guid, ~0ULL), F(guid_step, ~0ULL), F(base, 255), { "class",
	offsetof(struct opts, mclass), 255 }, F(cver, 255), F(method, 255),
	F(attr, 0xffff), F(mod, 0xffffffff), F(mkey, ~0ULL), F(dr, 1),
};

static void set_field(struct opts *o, char *arg)
{
	char *eq = strchr(arg, '=');
	size_t i;

	if (!eq)
		usage();
	*eq++ = '\0';
	if (!strcmp(arg, "dgid")) {
		if (inet_pton(AF_INET6, eq, o->dgid) != 1)
			usage();
		o->has_dgid = 1;
		return;
	}
	if (!strcmp(arg, "data")) {
		hex(eq, o->data, sizeof(o->data), &o->data_len);
		return;
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!strcmp(arg, fields[i].name)) {
			*(unsigned long long *)((char *)o + fields[i].off) =
				number(eq, fields[i].max);
			o->has_qkey |= !strcmp(arg, "qkey");
			return;
		}
	}
	fprintf(stderr, PROG ": unknown field '%s'\n", arg);
	exit(2);
}

static void parse(struct opts *o, int argc, char **argv)
{
	static const char *const kinds[] = { "hello", "ud", "mad", "ack" };
	static const char *const csums[] = { "none", "good", "bad" };
	int c, i;

	*o = (struct opts){ .count = 1, .port = PIB_DEFAULT_UDP_PORT,
			    .pkey = 0xffff, .base = 1,
			    .mclass = CLASS_SUBN_LID, .cver = 1, .method = 1 };
	while ((c = getopt(argc, argv, "s:S:p:n:g:k:d:")) != -1) {
		switch (c) {
		case 's':
			if (inet_pton(AF_INET, optarg, &o->src) != 1)
				usage();
			break;
		case 'S': o->src_step = number(optarg, 255); break;
		case 'p': o->port = number(optarg, 65535); break;
		case 'n': o->count = number(optarg, 100000000); break;
		case 'g': o->gap_us = number(optarg, 10000000); break;
		case 'k':
			for (i = 0; i < 3 && strcmp(optarg, csums[i]); i++)
				;
			if (i == 3)
				usage();
			o->csum = i;
			break;
		case 'd':
			if (inet_pton(AF_INET, optarg, &o->dst) != 1)
				usage();
			break;
		default: usage();
		}
	}
	/* (a checksum covers the source address, which -s must give) */
	if (!o->dst.s_addr || optind >= argc ||
	    (o->csum != C_NONE && !o->src.s_addr))
		usage();
	for (i = 0; i < 4 && strcmp(argv[optind], kinds[i]); i++)
		;
	if (i == 4)
		usage();
	o->kind = i;
	o->len = o->kind == K_MAD ? MAD_LEN : 0;
	for (i = optind + 1; i < argc; i++)
		set_field(o, argv[i]);
	if (o->kind == K_MAD && !o->has_qkey && o->qp == 1)
		o->qkey = QP1_QKEY;
}

/* The MAD header (and an SMP's M_Key, path and data) at @p. */
static void put_mad(const struct opts *o, __u8 *p, unsigned long long i)
{
	p[0] = o->base;
	p[1] = o->mclass;
	p[2] = o->cver;
	p[3] = o->method;
	put_unaligned_be64(0x666f726700000000ULL | i, p + 8);	/* TID: "forg" */
	put_unaligned_be16(o->attr, p + 16);
	put_unaligned_be32(o->mod, p + 20);
	if (o->mclass == CLASS_SUBN_LID || o->mclass == CLASS_SUBN_DR)
		put_unaligned_be64(o->mkey, p + SMP_MKEY);
	if (o->dr) {
		p[PIB_SMP_HOP_PTR] = 1;
		p[PIB_SMP_HOP_CNT] = 1;
		put_unaligned_be16(PIB_PERMISSIVE_LID, p + PIB_SMP_DR_SLID);
		put_unaligned_be16(PIB_PERMISSIVE_LID, p + PIB_SMP_DR_DLID);
	}
	memcpy(p + SMP_DATA, o->data, o->data_len);
}

/* Build the i-th IB packet at @p; returns its length. */
static unsigned int build(const struct opts *o, __u8 *p, unsigned long long i)
{
	struct pib_hello h = { .version = PIB_HELLO_VERSION, .num_ports = 128,
			       .switch_guid = o->guid + i * o->guid_step };
	struct pib_lrh lrh = { .vl = o->vl, .sl = o->sl, .dlid = o->dlid,
			       .slid = o->slid, .lnh = o->has_dgid ?
			       PIB_LNH_IBA_GLOBAL : PIB_LNH_IBA_LOCAL };
	struct pib_bth bth = {
		.opcode = o->kind == K_ACK ? IB_OPCODE_RC_ACKNOWLEDGE :
					     IB_OPCODE_UD_SEND_ONLY,
		.pkey = o->pkey, .dest_qp = o->qp,
		.psn = (o->psn + i * o->psn_step) & 0xffffff,
	};
	unsigned int off = pib_hdr_len(lrh.lnh), n, k;
	struct pib_grh grh = { .ip_ver = PIB_GRH_IP_VERSION,
			       .next_hdr = PIB_GRH_NEXT_HDR_BTH,
			       .hop_limit = 1 };

	if (o->kind == K_HELLO)
		return pib_hello_build(p, &h);
	memset(p, 0, PIB_MAX_PKT_LEN);
	if (o->kind == K_ACK) {
		p[off] = o->syn;
		put_unaligned_be24(o->msn, p + off + 1);
		off += PIB_AETH_LEN;
	} else {
		put_unaligned_be32(o->qkey, p + off);
		put_unaligned_be24(o->src_qp, p + off + 5);
		off += PIB_DETH_LEN;
		n = o->len;
		bth.pad = -n & 3;
		if (o->kind == K_MAD)
			put_mad(o, p + off, i);
		else
			for (k = 0; k < n; k++)
				p[off + k] = k ? (__u8)(o->tag + k) : o->tag;
		off += n + bth.pad;
	}
	pib_lrh_pack(p, &lrh);
	if (o->has_dgid) {
		memcpy(grh.dgid, o->dgid, sizeof(grh.dgid));
		grh.pay_len = off + PIB_ICRC_LEN - PIB_LRH_LEN - PIB_GRH_LEN;
		pib_grh_pack(p + PIB_LRH_LEN, &grh);
	}
	pib_bth_pack(p + pib_hdr_len(lrh.lnh) - PIB_BTH_LEN, &bth);
	return pib_pkt_seal(p, off);
}

/* IPv4 and UDP headers in front of @len bytes at @d; the kernel sums IPv4. */
/* The Internet checksum's sum of @len bytes at @p, added to @sum. */
static unsigned long long sum16(const __u8 *p, unsigned int len,
				unsigned long long sum)
{
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (unsigned int)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (unsigned int)p[len - 1] << 8;
	return sum;
}

/* The UDP checksum of the datagram (IPv4 header, UDP header, payload). */
static __u16 udp_csum(const __u8 *d, unsigned int total)
{
	const struct iphdr *ip = (const struct iphdr *)d;
	unsigned long long sum;
	__u16 c;

	sum = sum16((const __u8 *)&ip->saddr, 8, 0);	/* both addresses */
	sum += IPPROTO_UDP + total - sizeof(*ip);
	sum = sum16(d + sizeof(*ip), total - sizeof(*ip), sum);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	c = ~sum & 0xffff;
	return c ? c : 0xffff;
}

static unsigned int frame(const struct opts *o, __u8 *d, unsigned int len,
			  struct in_addr src)
{
	struct iphdr *ip = (struct iphdr *)d;
	struct udphdr *udp = (struct udphdr *)(d + sizeof(*ip));
	unsigned int total = sizeof(*ip) + sizeof(*udp) + len;

	memset(d, 0, sizeof(*ip) + sizeof(*udp));
	ip->version = 4;
	ip->ihl = sizeof(*ip) / 4;
	ip->tot_len = htons(total);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = src.s_addr;
	ip->daddr = o->dst.s_addr;
	udp->source = htons(o->port);
	udp->dest = htons(o->port);
	udp->len = htons(sizeof(*udp) + len);
	if (o->csum != C_NONE)
		udp->check = htons(udp_csum(d, total));
	if (o->csum == C_BAD)	/* off by one, and never 0 (none) */
		udp->check = udp->check == htons(1) ? htons(2) : udp->check ^ htons(1);
	return total;
}

static void pause_us(unsigned long long us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (us % 1000000) * 1000 };

	while (us && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	static __u8 dgram[sizeof(struct iphdr) + sizeof(struct udphdr) +
			  PIB_MAX_PKT_LEN];
	const unsigned int hdrs = sizeof(struct iphdr) + sizeof(struct udphdr);
	struct sockaddr_in to = { .sin_family = AF_INET };
	unsigned long long i, sent = 0;
	struct in_addr src;
	unsigned int len;
	struct opts o;
	int fd;

	parse(&o, argc, argv);
	to.sin_addr = o.dst;
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0)
		return perror(PROG ": raw socket"), 2;
	for (i = 0; i < o.count; i++) {
		len = build(&o, dgram + hdrs, i);
		src.s_addr = htonl(ntohl(o.src.s_addr) + i * o.src_step);
		if (!o.src.s_addr)
			src.s_addr = 0;	/* the kernel fills in our own */
		len = frame(&o, dgram, len, src);
		if (sendto(fd, dgram, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) == (ssize_t)len)
			sent++;
		pause_us(o.gap_us);
	}
	printf(PROG ": sent %llu\n", sent);
	close(fd);
	return 0;
}
