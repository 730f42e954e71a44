// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * gen_corpus: the seed inputs of the fuzz harnesses, in each one's input
 * format (see the harnesses' headers): valid packets, SMPs and MADs, and
 * event sequences that reach the transport's main paths. libFuzzer
 * mutates from these. Usage: gen_corpus DIR (writes DIR/<harness>/seed-*).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rdma/pib-abi.h>
#include "pib_hdr.h"

/* Values the harnesses use (fuzz.h, fuzz_qp.c). */
#define SW_LID			100
#define DEV_LID			1
#define PEER_PORT		65
#define QP1_QKEY		0x80010000u
#define UD_QKEY			0x11111111u
#define MAD_LEN			256

static const char *out_dir;

/* An input being built. */
struct seed {
	__u8 b[24000];
	size_t n;
};

static void put(struct seed *s, const void *p, size_t n)
{
	if (s->n + n > sizeof(s->b)) {
		fprintf(stderr, "gen_corpus: seed too long\n");
		exit(1);
	}
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void put8(struct seed *s, unsigned int v)
{
	__u8 b = v;

	put(s, &b, 1);
}

static void put16(struct seed *s, unsigned int v)
{
	put8(s, v >> 8);
	put8(s, v);
}

static void save(const char *harness, const char *name, const struct seed *s)
{
	static unsigned int count;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out_dir, harness);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/seed-%03u-%s", out_dir, harness,
		 count++, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* A MAD or SMP header: base version 1, class, version, method, attribute. */
static void mad_hdr(__u8 *m, __u8 mclass, __u8 method, __u16 attr, __u32 mod)
{
	memset(m, 0, MAD_LEN);
	m[0] = 1;
	m[1] = mclass;
	m[2] = 1;
	m[3] = method;
	put_unaligned_be32(0x1234, m + 12);		/* TID */
	put_unaligned_be16(attr, m + 16);
	put_unaligned_be32(mod, m + 20);
}

/* A directed-route SMP along @path (entries 1..hops), from the SM. */
static void dr_smp(__u8 *m, __u8 method, __u16 attr, __u32 mod,
		   const __u8 *path, unsigned int hops)
{
	mad_hdr(m, 0x81, method, attr, mod);
	m[PIB_SMP_HOP_PTR] = 1;
	m[PIB_SMP_HOP_CNT] = hops;
	put_unaligned_be16(PIB_PERMISSIVE_LID, m + PIB_SMP_DR_SLID);
	put_unaligned_be16(PIB_PERMISSIVE_LID, m + PIB_SMP_DR_DLID);
	memcpy(m + PIB_SMP_INITIAL_PATH + 1, path, hops);
}

/*
 * A sealed IB packet at @p: LRH (local or global), BTH, @ext bytes of
 * extension headers, @pay bytes of payload. Returns its length.
 */
static unsigned int build_pkt(__u8 *p, __u8 op, int global, __u8 vl,
			      __u16 dlid, __u16 slid, __u32 dqp, __u32 psn,
			      const __u8 *ext, unsigned int ext_len,
			      const __u8 *pay, unsigned int pay_len)
{
	unsigned int pad = -pay_len & 3, off = PIB_LRH_LEN;
	struct pib_lrh lrh = {
		.vl = vl, .lnh = global ? PIB_LNH_IBA_GLOBAL : PIB_LNH_IBA_LOCAL,
		.dlid = dlid, .slid = slid,
	};
	struct pib_bth bth = {
		.opcode = op, .pad = pad, .pkey = 0xffff, .dest_qp = dqp,
		.ack_req = 1, .psn = psn,
	};
	struct pib_grh grh = {
		.ip_ver = PIB_GRH_IP_VERSION, .next_hdr = PIB_GRH_NEXT_HDR_BTH,
		.hop_limit = 1,
	};

	memset(p, 0, PIB_MAX_PKT_LEN);
	pib_lrh_pack(p, &lrh);
	if (global) {
		grh.pay_len = PIB_BTH_LEN + ext_len + pay_len + pad + PIB_ICRC_LEN;
		grh.dgid[0] = 0xfe;
		grh.dgid[1] = 0x80;
		pib_grh_pack(p + off, &grh);
		off += PIB_GRH_LEN;
	}
	pib_bth_pack(p + off, &bth);
	off += PIB_BTH_LEN;
	memcpy(p + off, ext, ext_len);
	off += ext_len;
	memcpy(p + off, pay, pay_len);
	off += pay_len + pad;
	return pib_pkt_seal(p, off);
}

static void gen_pkt(void)
{
	static __u8 pkt[PIB_MAX_PKT_LEN], ext[64], pay[PIB_MAX_PAYLOAD];
	static const unsigned int sizes[] = { 0, 1, 7, 256 };
	struct pib_hello h = { .version = PIB_HELLO_VERSION, .num_ports = 128,
			       .switch_guid = 0x0200000000000001ULL };
	struct seed s;
	unsigned int op, k, len;
	char name[64];

	for (k = 0; k < sizeof(pay); k++)
		pay[k] = k * 13;
	for (k = 0; k < sizeof(ext); k++)
		ext[k] = 0xe0 + k;
	for (op = 0; op < 256; op++) {
		unsigned int rules = pib_opcodes[op].ext;

		if (!pib_opcodes[op].flags)
			continue;
		k = rules & PIB_EXT_PAYLOAD ? op % 4 : 0;
		len = build_pkt(pkt, op, op & 1, 0, 0x1234, 0x42, 0x123456,
				0x777, ext, pib_ext_len(rules), pay, sizes[k]);
		s.n = 0;
		put(&s, pkt, len);
		snprintf(name, sizeof(name), "op%02x", op);
		save("fuzz_pkt", name, &s);
	}
	len = pib_hello_build(pkt, &h);
	s.n = 0;
	put(&s, pkt, len);
	save("fuzz_pkt", "hello", &s);
	len = build_pkt(pkt, IB_OPCODE_UD_SEND_ONLY, 1, 0, 0xc001, 1, 0xffffff, 0,
			ext, PIB_DETH_LEN, pay, PIB_MAX_PAYLOAD);
	s.n = 0;
	put(&s, pkt, len);
	save("fuzz_pkt", "ud-4096-grh", &s);
}

static void gen_dr(void)
{
	static const __u8 paths[][4] = {
		{ 1 }, { 1, 7 }, { 1, 65, 66 }, { 1, 3, 0, 2 },
	};
	__u8 m[MAD_LEN];
	struct seed s;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		s.n = 0;
		put8(&s, 128);		/* the switches' ports */
		put8(&s, 5);		/* the first switch's in-port */
		dr_smp(m, 1, 0x11, 0, paths[i], i + 1);
		put(&s, m, MAD_LEN);
		put8(&s, 9);		/* in-ports of the next switches */
		put8(&s, 65);
		put8(&s, 2);
		save("fuzz_dr", "walk", &s);
	}
	s.n = 0;
	put8(&s, 10);
	put8(&s, 3);
	dr_smp(m, 1, 0x11, 0, paths[2], 3);
	m[PIB_SMP_HOP_PTR] = 4;
	put_unaligned_be16(0x8000, m + PIB_SMP_STATUS);	/* returning */
	put(&s, m, MAD_LEN);
	save("fuzz_dr", "returning", &s);
}

/* Get and Set of each attribute the HCA's SMA has, and the PMA's. */
static void gen_sma(void)
{
	static const struct { __u8 cls, method; __u16 attr; __u32 mod; } one[] = {
		{ 0x01, 1, 0x0011, 0 }, { 0x81, 1, 0x0010, 0 },
		{ 0x01, 1, 0x0015, 1 }, { 0x01, 1, 0x0014, 0 },
		{ 0x01, 2, 0x0014, 0 }, { 0x01, 1, 0x0016, 0 },
		{ 0x01, 1, 0x0017, 0 }, { 0x01, 1, 0x0018, 0x10000 },
		{ 0x01, 2, 0x0018, 0x30000 }, { 0x01, 1, 0x0020, 0 },
		{ 0x01, 5, 0x0002, 0 }, { 0x01, 0x81, 0x0011, 0 },
		{ 0x01, 3, 0x0011, 0 }, { 0x04, 1, 0x0001, 0 },
		{ 0x04, 1, 0x0012, 0 }, { 0x04, 2, 0x0012, 0 },
		{ 0x04, 1, 0x001d, 0 }, { 0x04, 2, 0x001d, 0 },
	};
	union pib_port_info pi;
	__u8 m[MAD_LEN];
	struct seed s;
	unsigned int i;

	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		s.n = 0;
		put8(&s, 0);
		mad_hdr(m, one[i].cls, one[i].method, one[i].attr, one[i].mod);
		if (one[i].cls == 0x04)
			m[64 + 1] = 1;		/* PortSelect */
		if (one[i].attr == 0x0018 && one[i].method == 2)
			m[64 + 1] = 32;		/* VL0 weight 32 */
		put(&s, m, MAD_LEN);
		save("fuzz_sma", "mad", &s);
	}
	/* The SM brings the port up: LID, then ARMED, then ACTIVE. */
	memset(&pi, 0, sizeof(pi));
	put_unaligned_be64(0x1122334455667788ULL, &pi.pi.mkey);
	put_unaligned_be16(5, &pi.pi.lid);
	put_unaligned_be16(1, &pi.pi.sm_lid);
	pi.pi.link_width_enabled = 0xff;
	pib_pi_set_link_speed_enabled(&pi.pi, 0xf);
	pib_pi_set_neighbor_mtu(&pi.pi, IB_MTU_1024);
	pib_pi_set_mkey_protect(&pi.pi, 2);
	pib_pi_set_subnet_timeout(&pi.pi, 18);
	pib_pi_set_lmc(&pi.pi, 1);
	s.n = 0;
	for (i = 0; i < 3; i++) {
		pib_pi_set_port_state(&pi.pi, i ? IB_PORT_ARMED + i - 1 :
						  IB_PORT_NOP);
		put8(&s, 1);
		mad_hdr(m, 0x01, 2, 0x0015, 1);
		memcpy(m + 64, pi.raw, sizeof(pi.raw));
		put(&s, m, MAD_LEN);
	}
	/* Then a Get with the wrong M_Key, which protection level 2 drops. */
	put8(&s, 0);
	mad_hdr(m, 0x01, 1, 0x0015, 1);
	put(&s, m, MAD_LEN);
	save("fuzz_sma", "portinfo-up", &s);
	s.n = 0;
	put8(&s, 0);
	mad_hdr(m, 0x01, 2, 0x0016, 0);
	put_unaligned_be16(0xffff, m + 64);
	put_unaligned_be16(0x8001, m + 66);
	put(&s, m, MAD_LEN);
	put8(&s, 0);
	mad_hdr(m, 0x01, 2, 0x0017, 0);
	m[64] = 0x0f;
	put(&s, m, MAD_LEN);
	save("fuzz_sma", "pkeys-sl2vl", &s);
}

static void gen_pma(void)
{
	static const __u16 attrs[] = { 0x0001, 0x0012, 0x001d, 0x0010 };
	static const __u8 selects[] = { 1, 0xff, 2 };
	__u8 m[MAD_LEN];
	struct seed s;
	unsigned int a, i;

	for (a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
		for (i = 0; i < 2 * sizeof(selects); i++) {
			s.n = 0;
			for (unsigned int c = 0; c < 11; c++) {
				put16(&s, c & 1 ? 0xffff : 0);
				put16(&s, c * 0x1111);
				put16(&s, 0x1234);
				put16(&s, c & 2 ? 0xfffe : 7);
			}
			mad_hdr(m, 0x04, i & 1 ? 2 : 1, attrs[a], 0);
			m[64 + 1] = selects[i / 2];
			put_unaligned_be16(i & 1 ? 0xffff : 0, m + 64 + 2);
			put(&s, m, MAD_LEN);
			save("fuzz_pma", "mad", &s);
		}
	}
}

static void gen_switch_sma(void)
{
	static const struct { __u8 in, method; __u16 attr; __u32 mod; } one[] = {
		{ 1, 1, 0x0011, 0 }, { 65, 1, 0x0010, 0 }, { 1, 1, 0x0012, 0 },
		{ 1, 1, 0x0015, 0 }, { 1, 1, 0x0015, 1 }, { 2, 1, 0x0015, 65 },
		{ 1, 1, 0x0015, 129 }, { 1, 1, 0x0016, 0 }, { 1, 1, 0x0019, 0 },
		{ 1, 1, 0x0019, 767 }, { 1, 1, 0x001b, 0 },
		{ 1, 1, 0x001b, 0x10000000 }, { 1, 7, 0x0002, 0 },
		{ 1, 0x81, 0x0011, 0 }, { 1, 3, 0x0011, 0 },
	};
	union pib_port_info pi;
	__u8 m[MAD_LEN];
	struct seed s;
	unsigned int i;

	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		s.n = 0;
		put8(&s, one[i].in);
		dr_smp(m, one[i].method, one[i].attr, one[i].mod,
		       (const __u8[]){ 1 }, 1);
		put(&s, m, MAD_LEN);
		save("fuzz_switch_sma", "smp", &s);
	}
	/* The SM programs the switch: LID, ports up, LFT, MFT, top. */
	memset(&pi, 0, sizeof(pi));
	put_unaligned_be16(100, &pi.pi.lid);
	put_unaligned_be16(1, &pi.pi.sm_lid);
	pib_pi_set_neighbor_mtu(&pi.pi, IB_MTU_1024);
	s.n = 0;
	put8(&s, 1);
	dr_smp(m, 2, 0x0015, 0, (const __u8[]){ 1 }, 1);
	memcpy(m + 64, pi.raw, sizeof(pi.raw));
	put(&s, m, MAD_LEN);
	for (i = 0; i < 2; i++) {
		put8(&s, 1);
		dr_smp(m, 2, 0x0015, 1, (const __u8[]){ 1 }, 1);
		pib_pi_set_port_state(&pi.pi, IB_PORT_ARMED + i);
		memcpy(m + 64, pi.raw, sizeof(pi.raw));
		put(&s, m, MAD_LEN);
	}
	put8(&s, 1);
	dr_smp(m, 2, 0x0019, 0, (const __u8[]){ 1 }, 1);
	memset(m + 64, 0xff, 64);
	m[64 + 1] = 1;
	m[64 + 2] = 2;
	m[64 + 10] = 65;
	put(&s, m, MAD_LEN);
	put8(&s, 1);
	dr_smp(m, 2, 0x001b, 0x10000000, (const __u8[]){ 1 }, 1);
	put_unaligned_be16(0x0006, m + 64 + 2);
	put(&s, m, MAD_LEN);
	put8(&s, 1);
	dr_smp(m, 2, 0x0012, 0, (const __u8[]){ 1 }, 1);
	put_unaligned_be16(64, m + 64 + 6);
	put_unaligned_be16(0xc001, m + 64 + 18);
	m[64 + 11] = 0x04;
	put(&s, m, MAD_LEN);
	save("fuzz_switch_sma", "program", &s);
}

/* A datagram from a peer, with IP TTL 64: record 0 of fuzz_switch. */
static void sw_from_peer(struct seed *s, const __u8 *pkt, unsigned int len)
{
	put8(s, 0);
	put8(s, 0);
	put8(s, 1 | 64 << 1);
	put16(s, len);
	put(s, pkt, len);
}

static void gen_switch(void)
{
	static __u8 pkt[PIB_MAX_PKT_LEN];
	__u8 m[MAD_LEN], deth[PIB_DETH_LEN] = { 0 };
	struct seed s;
	unsigned int len, i;

	/* DR SMPs from a peer: for the switch's SMA, or on to a device. */
	for (i = 1; i <= 2; i++) {
		s.n = 0;
		dr_smp(m, 1, 0x0011, 0, (const __u8[]){ 1, 1 }, i);
		len = build_pkt(pkt, IB_OPCODE_UD_SEND_ONLY, 0, PIB_VL15,
				PIB_PERMISSIVE_LID, PIB_PERMISSIVE_LID, 0, 0,
				deth, sizeof(deth), m, MAD_LEN);
		sw_from_peer(&s, pkt, len);
		save("fuzz_switch", "dr-smp", &s);
	}
	/* LID-routed: to each device, to the switch, to a group, nowhere. */
	static const __u16 dlids[] = { 1, 2, SW_LID, 0xc001, 0x3333, 10 };

	for (i = 0; i < sizeof(dlids) / sizeof(dlids[0]); i++) {
		s.n = 0;
		mad_hdr(m, 0x01, 1, 0x0011, 0);
		put_unaligned_be32(dlids[i] == SW_LID ? 0 : UD_QKEY, deth);
		len = build_pkt(pkt, IB_OPCODE_UD_SEND_ONLY, i & 1,
				dlids[i] == SW_LID ? PIB_VL15 : 0, dlids[i], 10,
				dlids[i] == SW_LID ? 0 :
				dlids[i] >= 0xc000 ? 0xffffff : 5, 0,
				deth, sizeof(deth), m, MAD_LEN);
		sw_from_peer(&s, pkt, len);
		put8(&s, 1);			/* a peer flaps */
		put8(&s, 1);
		save("fuzz_switch", "lid-routed", &s);
	}
	/* The SM on device 0: to the switch by LID, by DR out of a peer port. */
	s.n = 0;
	put8(&s, 2);
	put8(&s, 0);
	put16(&s, SW_LID);
	mad_hdr(m, 0x01, 1, 0x0012, 0);
	put(&s, m, MAD_LEN);
	put8(&s, 2);
	put8(&s, 0);
	put16(&s, PIB_PERMISSIVE_LID);
	dr_smp(m, 1, 0x0011, 0, (const __u8[]){ 1, PEER_PORT }, 2);
	put(&s, m, MAD_LEN);
	put8(&s, 3);			/* device 1 flaps */
	put8(&s, 1);
	save("fuzz_switch", "from-sm", &s);
}

/*
 * fuzz_qp events: configuration, then a templated packet is
 * 0 QP opcode flags dpsn(16) len(16) bytes; a burst of N + 1 of them is
 * 9 N, then each without its 0.
 */
static void qp_cfg(struct seed *s, __u8 mtu, __u8 psns)
{
	put8(s, mtu);		/* path MTU: 256 << mtu % 5 */
	put8(s, psns);		/* RQ PSN | SQ PSN << 3, from a table */
	put8(s, 7 | 3 << 3);	/* retry_cnt 7, rnr_retry 3 */
	put8(s, 14);		/* timeout */
	put8(s, 12);		/* min_rnr_timer */
	put8(s, 4 | 4 << 4);	/* max_rd_atomic, max_dest_rd_atomic */
}

/* A templated packet's arguments (event 0, or in a burst: event 9). */
static void pkt_args(struct seed *s, __u8 qp, __u8 op, __u8 flags, int dpsn,
		     const __u8 *bytes, unsigned int n)
{
	put8(s, qp);
	put8(s, op);
	put8(s, flags);
	put16(s, dpsn & 0xffff);
	put16(s, n);
	put(s, bytes, n);
}

static void qp_pkt(struct seed *s, __u8 qp, __u8 op, __u8 flags, int dpsn,
		   const __u8 *bytes, unsigned int n)
{
	put8(s, 0);
	pkt_args(s, qp, op, flags, dpsn, bytes, n);
}

/* Extension headers and payload: a RETH naming the MR, then @pay bytes. */
static unsigned int reth_pay(__u8 *b, __u32 off, __u32 len, unsigned int pay)
{
	put_unaligned_be64(off, b);
	put_unaligned_be32(0, b + 8);
	put_unaligned_be32(len, b + 12);
	memset(b + PIB_RETH_LEN, 0x3c, pay);
	return PIB_RETH_LEN + pay;
}

/* An AtomicETH naming the MR (address 8), swap/add 5, compare 0. */
static unsigned int atomic_eth(__u8 *b)
{
	put_unaligned_be64(8, b);
	put_unaligned_be32(0, b + 8);
	put_unaligned_be64(5, b + 12);
	put_unaligned_be64(0, b + 20);
	return PIB_ATOMICETH_LEN;
}

/*
 * QP 7, XRC TGT: aimed XRCETHs name its domain's SRQ (a length with bits
 * 3 and 4 set: the other domain's); SENDs of one and several packets, a
 * WRITE, a READ and an atomic, then a SEND to the other domain's SRQ.
 */
static void gen_resp_xrc(__u8 *b)
{
	const __u8 aim = 0x40, ack = 1, xrc = 0xa0;
	struct seed s;
	unsigned int n;

	s.n = 0;
	qp_cfg(&s, 0, 0);
	memset(b, 0x5a, 4 + 256);
	qp_pkt(&s, 7, xrc | IB_OPCODE_RC_SEND_ONLY, aim | ack, 0, b, 4 + 100);
	qp_pkt(&s, 7, xrc | IB_OPCODE_RC_SEND_FIRST, aim, 0, b, 4 + 256);
	qp_pkt(&s, 7, xrc | IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE, aim | ack, 0,
	       b, 4 + 4 + 36);
	n = 4 + reth_pay(b + 4, 0, 300, 300);
	qp_pkt(&s, 7, xrc | IB_OPCODE_RC_RDMA_WRITE_ONLY, aim | ack, 0, b, n);
	n = 4 + reth_pay(b + 4, 100, 2000, 0);
	qp_pkt(&s, 7, xrc | IB_OPCODE_RC_RDMA_READ_REQUEST, aim | ack, 0, b, n);
	n = 4 + atomic_eth(b + 4);
	qp_pkt(&s, 7, xrc | IB_OPCODE_RC_FETCH_ADD, aim | ack, 0, b, n);
	qp_pkt(&s, 7, xrc | IB_OPCODE_RC_SEND_ONLY, aim | ack, 0, b, 4 + 20);
	save("fuzz_resp", "xrc", &s);
}

static void gen_resp(void)
{
	static __u8 b[PIB_MAX_PAYLOAD + 64];
	const __u8 aim = 0x40, ack = 1;
	struct seed s;
	unsigned int n, q;

	memset(b, 0x5a, sizeof(b));
	for (q = 0; q < 3; q++) {
		__u8 uc = q == 2 ? 0x20 : 0;	/* QPs 0 and 1 are RC, 2 UC */

		s.n = 0;
		qp_cfg(&s, 0, 0);
		qp_pkt(&s, q, uc | IB_OPCODE_RC_SEND_ONLY, ack, 0, b, 100);
		qp_pkt(&s, q, uc | IB_OPCODE_RC_SEND_FIRST, 0, 0, b, 256);
		qp_pkt(&s, q, uc | IB_OPCODE_RC_SEND_MIDDLE, 0, 0, b, 256);
		qp_pkt(&s, q, uc | IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE, ack, 0, b, 4 + 10);
		save("fuzz_resp", "send", &s);
		s.n = 0;
		qp_cfg(&s, 1, 0x12);
		n = reth_pay(b, 0, 300, 300);
		qp_pkt(&s, q, uc | IB_OPCODE_RC_RDMA_WRITE_ONLY, aim | ack, 0, b, n);
		n = reth_pay(b, 4096, 600, 512);
		qp_pkt(&s, q, uc | IB_OPCODE_RC_RDMA_WRITE_FIRST, aim, 0, b, n);
		memset(b, 0x77, 4 + 88);
		qp_pkt(&s, q, uc | IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, aim | ack, 0, b,
		       4 + 88);
		save("fuzz_resp", "write", &s);
	}
	/* READ and atomics on RC, then their duplicates, then a gap. */
	s.n = 0;
	qp_cfg(&s, 2, 0x1b);
	n = reth_pay(b, 100, 3000, 0);
	qp_pkt(&s, 0, IB_OPCODE_RC_RDMA_READ_REQUEST, aim | ack, 0, b, n);
	n = atomic_eth(b);
	qp_pkt(&s, 0, IB_OPCODE_RC_COMPARE_SWAP, aim | ack, 0, b, n);
	qp_pkt(&s, 0, IB_OPCODE_RC_FETCH_ADD, aim | ack, 0, b, n);
	qp_pkt(&s, 0, IB_OPCODE_RC_FETCH_ADD, aim | ack, -1, b, n);
	n = reth_pay(b, 100, 3000, 0);
	qp_pkt(&s, 0, IB_OPCODE_RC_RDMA_READ_REQUEST, aim | ack, -3, b, n);
	qp_pkt(&s, 0, IB_OPCODE_RC_SEND_ONLY, ack, 5, b, 10);
	put8(&s, 2);				/* a timer fires */
	save("fuzz_resp", "read-atomic", &s);
	/* UD, a multicast group, the GSI and SMI QPs, an SRQ's RNR. */
	s.n = 0;
	qp_cfg(&s, 0, 0);
	memset(b, 0, 8);
	put_unaligned_be32(UD_QKEY, b);
	put_unaligned_be24(0x55, b + 5);
	qp_pkt(&s, 3, IB_OPCODE_UD_SEND_ONLY, 0, 0, b, 8 + 200);
	qp_pkt(&s, 0x83, IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE, 4, 0, b, 8 + 4 + 64);
	put_unaligned_be32(QP1_QKEY, b);
	qp_pkt(&s, 4, IB_OPCODE_UD_SEND_ONLY, 0, 0, b, 8 + 256);
	put_unaligned_be32(0, b);
	qp_pkt(&s, 6, IB_OPCODE_UD_SEND_ONLY, 0x20, 0, b, 8 + 256);	/* VL15 */
	qp_pkt(&s, 6, IB_OPCODE_UD_SEND_ONLY, 0, 0, b, 8 + 256);	/* not VL15 */
	for (n = 0; n < 6; n++)
		qp_pkt(&s, 1, IB_OPCODE_RC_SEND_ONLY, ack, 0, b, 64);
	put8(&s, 5);				/* poll */
	put8(&s, 16);
	put8(&s, 4);				/* post a receive on the SRQ */
	put8(&s, 1);
	put16(&s, 2000);
	qp_pkt(&s, 1, IB_OPCODE_RC_SEND_ONLY, ack, 0, b, 64);
	save("fuzz_resp", "ud-gsi-srq", &s);
	/* A state change under traffic: ERR, RESET and back. */
	s.n = 0;
	qp_cfg(&s, 0, 0);
	qp_pkt(&s, 0, IB_OPCODE_RC_SEND_FIRST, 0, 0, b, 256);
	put8(&s, 6);
	put8(&s, 0);
	put8(&s, 0);				/* to ERR */
	put8(&s, 6);
	put8(&s, 0);
	put8(&s, 4 << 5);			/* RESET and up again */
	qp_pkt(&s, 0, IB_OPCODE_RC_SEND_ONLY, ack, 0, b, 100);
	save("fuzz_resp", "modify", &s);
	gen_resp_xrc(b);
}

/* A user's send WQE into its SQ (event 7, its SGE aimed at the MR). */
static void user_wqe(struct seed *s, __u32 opcode, __u32 len)
{
	struct {
		struct pib_send_wqe w;
		struct pib_sge sge;
	} e = {
		.w = { .opcode = opcode, .send_flags = PIB_SEND_SIGNALED,
		       .num_sge = 1 },
		.sge = { .addr = 64, .length = len },
	};

	put8(s, 7);
	put8(s, 2);			/* SQ, aim */
	put(s, &e, sizeof(e));
}

static void gen_comp(void)
{
	__u8 b[PIB_MAX_PAYLOAD];
	struct seed s;
	unsigned int i;

	memset(b, 0x11, sizeof(b));
	/* ACKs that walk through what the requester sent. */
	s.n = 0;
	qp_cfg(&s, 0, 0);
	for (i = 0; i < 8; i++) {
		b[0] = 0x1f;		/* AETH: ACK */
		put_unaligned_be24(i, b + 1);
		qp_pkt(&s, 0, IB_OPCODE_RC_ACKNOWLEDGE, 0, 2 * i, b, 4);
	}
	save("fuzz_comp", "acks", &s);
	/* NAKs: sequence, RNR, invalid request, access, operational. */
	static const __u8 naks[] = { 0x60, 0x20 | 12, 0x61, 0x62, 0x63 };

	for (i = 0; i < sizeof(naks); i++) {
		s.n = 0;
		qp_cfg(&s, 0, 0x09);
		b[0] = 0x1f;
		qp_pkt(&s, 0, IB_OPCODE_RC_ACKNOWLEDGE, 0, 0, b, 4);
		b[0] = naks[i];
		qp_pkt(&s, 0, IB_OPCODE_RC_ACKNOWLEDGE, 0, 1, b, 4);
		put8(&s, 2);		/* the RNR or retransmit timer */
		save("fuzz_comp", "nak", &s);
	}
	/*
	 * The READ's responses and the atomics' ACKs. At MTU 256 the RC QP's
	 * first four WQEs take PSNs 0-18 (8, 708, 1408 and 2108 bytes), the
	 * READ of 2808 bytes 19-29; each response acknowledges what is
	 * before it, so the next one is due at the next PSN.
	 */
	s.n = 0;
	qp_cfg(&s, 0, 0);
	b[0] = 0x1f;
	qp_pkt(&s, 0, IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST, 0, 19, b, 4 + 256);
	for (i = 0; i < 9; i++)
		qp_pkt(&s, 0, IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE, 0, 1, b, 256);
	qp_pkt(&s, 0, IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST, 0, 1, b, 4 + 248);
	qp_pkt(&s, 0, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, 0, 0, b, 4 + 8);
	qp_pkt(&s, 0, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, 0, 0, b, 4 + 8);
	put8(&s, 2);
	qp_pkt(&s, 0, IB_OPCODE_RC_ACKNOWLEDGE, 0, 10, b, 4);
	put8(&s, 5);
	put8(&s, 16);
	save("fuzz_comp", "read-atomic", &s);
	/* A READ response lost: the READ is asked again from the gap. */
	s.n = 0;
	qp_cfg(&s, 0, 0);
	qp_pkt(&s, 0, IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST, 0, 19, b, 4 + 256);
	qp_pkt(&s, 0, IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE, 0, 2, b, 256);
	qp_pkt(&s, 0, IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST, 0, 1, b, 4 + 256);
	save("fuzz_comp", "read-gap", &s);
	/* The user's QP: WQEs from its provider, a doorbell, an ACK. */
	s.n = 0;
	qp_cfg(&s, 3, 0);
	user_wqe(&s, PIB_WR_SEND, 3000);
	user_wqe(&s, PIB_WR_RDMA_READ, 500);
	put8(&s, 8);			/* the producer index, far ahead */
	put8(&s, 4);
	put16(&s, 0xffff);
	put16(&s, 0xfff0);
	b[0] = 0x1f;
	qp_pkt(&s, 5, IB_OPCODE_RC_ACKNOWLEDGE, 0, 3, b, 4);
	save("fuzz_comp", "user", &s);
	/* UC and UD sends, a modify to SQD and back, timers. */
	s.n = 0;
	qp_cfg(&s, 4, 0x3f);
	put8(&s, 3);			/* post: QP 2 (UC), kind 2 (WRITE) */
	put8(&s, 2);
	put8(&s, 2);
	put16(&s, 5000);
	put8(&s, 2);
	put8(&s, 6);			/* QP 0 to SQD, then RTS */
	put8(&s, 0);
	put8(&s, 1 << 5);
	put8(&s, 6);
	put8(&s, 0);
	put8(&s, 2 << 5);
	for (i = 0; i < 4; i++)
		put8(&s, 2);
	save("fuzz_comp", "sqd-timers", &s);
}

/*
 * While the QP's work is busy elsewhere (event 9): a READ, an atomic and
 * a SEND come. The READ's responses, the atomic's ACK and the SEND's ACK
 * must leave in that order. (Last, so that the older seeds keep their
 * numbers.)
 */
static void gen_resp_busy(void)
{
	static __u8 b[PIB_RETH_LEN + 100];
	const __u8 aim = 0x40, ack = 1;
	struct seed s = { .n = 0 };
	unsigned int n;

	memset(b, 0x5a, sizeof(b));
	qp_cfg(&s, 0, 0);
	put8(&s, 9);
	put8(&s, 2);				/* 3 packets */
	n = reth_pay(b, 100, 3000, 0);
	pkt_args(&s, 0, IB_OPCODE_RC_RDMA_READ_REQUEST, aim | ack, 0, b, n);
	n = atomic_eth(b);
	pkt_args(&s, 0, IB_OPCODE_RC_FETCH_ADD, aim | ack, 0, b, n);
	pkt_args(&s, 0, IB_OPCODE_RC_SEND_ONLY, ack, 0, b, 100);
	save("fuzz_resp", "read-busy", &s);
}

/*
 * fuzz_sa: records of a flags byte (bits 0-1: the requester, CA 0-2 as
 * 1-3; bit 6: a sweep after it finds subnet bits 4-5) and a 256-byte SA
 * MAD. The subnet prefix and port GUIDs are those of fuzz_sa.c.
 */
#define SA_PREFIX		0xfe80000000000000ULL
#define SA_CA_PORT(i)		(0x0002c90300003000ULL + (i))
#define SA_GET			0x01
#define SA_SET			0x02
#define SA_GET_TABLE		0x12
#define SA_DELETE		0x15

static const __u8 ipoib_bcast[16] = {
	0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff,
};

/* An SA MAD: class 3, version 2, @comp its ComponentMask. */
static void sa_mad(__u8 *m, __u8 method, __u16 attr, __u64 comp)
{
	static __u32 tid = 0x5a000000;

	mad_hdr(m, 0x03, method, attr, 0);
	m[2] = 2;
	put_unaligned_be32(++tid, m + 12);
	put_unaligned_be64(comp, m + 48);
}

static void sa_gid(__u8 *p, unsigned int ca)
{
	put_unaligned_be64(SA_PREFIX, p);
	put_unaligned_be64(SA_CA_PORT(ca), p + 8);
}

static void sa_put(struct seed *s, __u8 flags, const __u8 *m)
{
	put8(s, flags);
	put(s, m, MAD_LEN);
}

/* PathRecord from CA @src to CA @dst by SGID and DGID. */
static void sa_path(__u8 *m, __u8 method, unsigned int src, unsigned int dst)
{
	sa_mad(m, method, 0x0035, 1 << 2 | 1 << 3);
	sa_gid(m + 56 + 8, dst);
	sa_gid(m + 56 + 24, src);
}

/* MCMemberRecord join (or leave) of @mgid by CA @ca, as IPoIB's
 * broadcast join: MGID, PortGID, P_Key, JoinState. */
static void sa_mcm(__u8 *m, __u8 method, const __u8 *mgid, unsigned int ca,
		   __u8 join_state)
{
	sa_mad(m, method, 0x0038, 1 << 0 | 1 << 1 | 1 << 7 | 1 << 16);
	memcpy(m + 56, mgid, 16);
	sa_gid(m + 56 + 16, ca);
	put_unaligned_be16(0xffff, m + 56 + 40);
	m[56 + 48] = 2 << 4 | join_state;
}

/* A ServiceRecord of CA @ca: ID, GID, name; lease 10 s. */
static void sa_svc(__u8 *m, __u8 method, unsigned int ca)
{
	sa_mad(m, method, 0x0031, 1 << 0 | 1 << 1 | 1 << 6);
	put_unaligned_be64(0x1000000000000abcULL, m + 56);
	sa_gid(m + 56 + 8, ca);
	put_unaligned_be32(10, m + 56 + 28);
	strcpy((char *)m + 56 + 48, "pib-fuzz");
}

/* InformInfo: (un)subscribe to trap @trap of every LID and producer. */
static void sa_inform(__u8 *m, __u16 trap, int subscribe)
{
	sa_mad(m, SA_SET, 0x0003, 0);
	put_unaligned_be16(0xffff, m + 56 + 16);	/* LIDRangeBegin: all */
	m[56 + 22] = 1;					/* IsGeneric */
	m[56 + 23] = subscribe;
	put_unaligned_be16(0xffff, m + 56 + 24);	/* Type: all */
	put_unaligned_be16(trap, m + 56 + 26);
	put_unaligned_be32(1 << 8, m + 56 + 28);	/* QPN 1 */
	put_unaligned_be32(0xffffff, m + 56 + 32);	/* ProducerType: all */
}

static void gen_sa(void)
{
	static const struct { __u8 method; __u16 attr; } one[] = {
		{ SA_GET, 0x0001 }, { SA_GET_TABLE, 0x0011 },
		{ SA_GET_TABLE, 0x0012 }, { SA_GET_TABLE, 0x0014 },
		{ SA_GET_TABLE, 0x0020 }, { SA_GET_TABLE, 0x0031 },
		{ SA_GET_TABLE, 0x0035 }, { SA_GET_TABLE, 0x0038 },
		{ SA_GET_TABLE, 0x00f3 },
	};
	static const __u8 v4[16] = {
		0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
		0xe0, 0, 0, 0xfb,
	};
	__u8 m[MAD_LEN];
	struct seed s;
	unsigned int i;

	/* Every attribute's Get or GetTable, all records. */
	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		s.n = 0;
		sa_mad(m, one[i].method, one[i].attr, 0);
		sa_put(&s, 0, m);
		save("fuzz_sa", "table", &s);
	}
	/* A PathRecord Get from CA 0 to CA 2 (through S1 - S2: 1024). */
	s.n = 0;
	sa_path(m, SA_GET, 0, 2);
	sa_put(&s, 1, m);
	save("fuzz_sa", "path", &s);
	/* IPoIB's broadcast join by CA 0, a Get of it, its leave. */
	s.n = 0;
	sa_mcm(m, SA_SET, ipoib_bcast, 0, 1);
	sa_put(&s, 1, m);
	sa_mcm(m, SA_GET, ipoib_bcast, 0, 0);
	put_unaligned_be64(1 << 0 | 1 << 1, m + 48);	/* MGID, PortGID */
	sa_put(&s, 0, m);
	sa_mcm(m, SA_DELETE, ipoib_bcast, 0, 1);
	sa_put(&s, 1, m);
	save("fuzz_sa", "mcm-join", &s);
	/* IPoIB's IPv4 group created by CA 1 (every create component). */
	s.n = 0;
	sa_mcm(m, SA_SET, v4, 1, 1);
	put_unaligned_be64(0x173f7, m + 48);	/* IPoIB's mask */
	put_unaligned_be32(0x0b1b, m + 56 + 32);
	m[56 + 38] = 2 << 6 | 3;		/* MTU exactly 1024 */
	m[56 + 42] = 2 << 6 | 7;		/* rate exactly 40 Gb/s */
	sa_put(&s, 2, m);
	save("fuzz_sa", "mcm-create", &s);
	/* A create with MGID 0: the SA names the group. */
	s.n = 0;
	sa_mcm(m, SA_SET, (const __u8[16]){ 0 }, 0, 1);
	put_unaligned_be64(0x173f7, m + 48);
	put_unaligned_be32(0x0b1b, m + 56 + 32);
	m[56 + 38] = 1 << 6 | 5;		/* MTU less than 4096 */
	m[56 + 42] = 2 << 6 | 7;		/* rate exactly 40 Gb/s */
	sa_put(&s, 1, m);
	save("fuzz_sa", "mcm-create-0", &s);
	/* A ServiceRecord Set by CA 1, then a Get and a Delete. */
	s.n = 0;
	sa_svc(m, SA_SET, 1);
	sa_put(&s, 2, m);
	sa_svc(m, SA_GET, 1);
	sa_put(&s, 0, m);
	sa_svc(m, SA_DELETE, 1);
	sa_put(&s, 2, m);
	save("fuzz_sa", "service", &s);
	/*
	 * InformInfo Set: CA 1 subscribes to trap 65; CA 2 joins the
	 * broadcast group; a sweep finds CA 2 gone (a Report), then back.
	 */
	s.n = 0;
	sa_inform(m, 65, 1);
	sa_put(&s, 2, m);
	sa_mcm(m, SA_SET, ipoib_bcast, 2, 1);
	sa_put(&s, 3 | 0x40 | 2 << 4, m);
	sa_mad(m, SA_GET_TABLE, 0x00f3, 0);
	sa_put(&s, 0x40, m);
	sa_inform(m, 65, 0);
	sa_put(&s, 2, m);
	save("fuzz_sa", "inform", &s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus DIR\n");
		return 2;
	}
	out_dir = argv[1];
	gen_pkt();
	gen_dr();
	gen_sma();
	gen_pma();
	gen_switch_sma();
	gen_switch();
	gen_resp();
	gen_comp();
	gen_resp_busy();
	gen_sa();
	return 0;
}
