// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the packet codecs in pib_hdr.h: header round trips, ICRC
 * and VCRC rules, the opcode table, and hostile input to pib_pkt_parse().
 */
#include <arpa/inet.h>
#include <string.h>

#include <rdma/pib-abi.h>

#include "pib_hdr.h"
#include "unit.h"

static __u8 buf[PIB_MAX_PKT_LEN + 64];

/* Build a sealed packet; returns its length. */
static unsigned int build(__u8 *p, __u8 opcode, int global, unsigned int payload,
			  unsigned int pad)
{
	struct pib_lrh lrh = { .vl = 0, .sl = 3, .lnh = global ? PIB_LNH_IBA_GLOBAL :
			       PIB_LNH_IBA_LOCAL, .dlid = 0x1234, .slid = 0x0042 };
	struct pib_grh grh = { .ip_ver = 6, .tclass = 0x12, .flow_label = 0xabcde,
			       .next_hdr = PIB_GRH_NEXT_HDR_BTH, .hop_limit = 64 };
	struct pib_bth bth = { .opcode = opcode, .se = 1, .pad = pad, .pkey = 0xffff,
			       .dest_qp = 0x123456, .ack_req = 1, .psn = 0xfedcba };
	unsigned int rules = pib_opcodes[opcode].ext;
	unsigned int off, i, ext = pib_ext_len(rules);

	memset(p, 0, sizeof(buf));
	pib_lrh_pack(p, &lrh);
	off = PIB_LRH_LEN;
	if (global) {
		for (i = 0; i < 16; i++) {
			grh.sgid[i] = i;
			grh.dgid[i] = 0xf0 | i;
		}
		grh.pay_len = PIB_BTH_LEN + ext + payload + pad + PIB_ICRC_LEN;
		pib_grh_pack(p + off, &grh);
		off += PIB_GRH_LEN;
	}
	pib_bth_pack(p + off, &bth);
	off += PIB_BTH_LEN;
	for (i = 0; i < ext; i++)
		p[off++] = 0xe0 + i;
	for (i = 0; i < payload; i++)
		p[off++] = i * 7;
	off += pad;
	return pib_pkt_seal(p, off);
}

/* Recompute only the VCRC, as a switch would after changing a variant field. */
static void revcrc(__u8 *p, unsigned int len)
{
	put_unaligned_le16(pib_vcrc(p, len - 2), p + len - 2);
}

/* The VCRC one byte at a time, as the IBA defines it. */
static __u16 vcrc_bitwise(const __u8 *p, unsigned int len)
{
	__u16 crc = 0xffff;
	unsigned int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xd008 & -(crc & 1));
	}
	return crc ^ 0xffff;
}

/* pib_vcrc() takes four bytes a step: the same CRC at every length. */
static void test_vcrc_sliced(void)
{
	static __u8 data[4200];
	unsigned int len, i;

	srand(7);
	for (i = 0; i < sizeof(data); i++)
		data[i] = rand();
	for (len = 0; len <= 300; len++)
		CHECK_EQ(pib_vcrc(data + len % 4, len), vcrc_bitwise(data + len % 4, len));
	for (i = 0; i < 200; i++) {
		len = rand() % (sizeof(data) - 3);
		CHECK_EQ(pib_vcrc(data + i % 4, len), vcrc_bitwise(data + i % 4, len));
	}
}

static void test_crcs(void)
{
	const __u8 check[] = "123456789";
	unsigned int n, k;

	/* The CRC-32 check value (the same as Ethernet's). */
	CHECK_EQ(~pib_crc32_le_bitwise(~0u, check, 9), 0xcbf43926u);
	/* The VCRC table is the reflected 0x100B polynomial. */
	for (n = 0; n < 256; n++) {
		__u16 c = n;

		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xd008 & -(c & 1));
		CHECK_EQ(pib_vcrc_table[0][n], c);
	}
	CHECK_EQ(pib_vcrc(check, 0), 0);
	test_vcrc_sliced();
	/* A message followed by its CRC has a constant residue. */
	__u8 m[11];

	memcpy(m, check, 9);
	put_unaligned_le16(pib_vcrc(m, 9), m + 9);
	__u16 res = pib_vcrc(m, 11);

	m[0] ^= 0x55;
	put_unaligned_le16(pib_vcrc(m, 9), m + 9);
	CHECK_EQ(pib_vcrc(m, 11), res);
}

static void test_header_round_trips(void)
{
	struct pib_pkt pkt;
	unsigned int len = build(buf, IB_OPCODE_UD_SEND_ONLY, 0, 256, 0);

	CHECK_EQ(len, 8 + 12 + 8 + 256 + 4 + 2);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pkt.lrh.sl, 3);
	CHECK_EQ(pkt.lrh.lnh, PIB_LNH_IBA_LOCAL);
	CHECK_EQ(pkt.lrh.dlid, 0x1234);
	CHECK_EQ(pkt.lrh.slid, 0x42);
	CHECK_EQ(pkt.lrh.pkt_len, (len - 2) / 4);
	CHECK_EQ(pkt.bth.opcode, IB_OPCODE_UD_SEND_ONLY);
	CHECK_EQ(pkt.bth.se, 1);
	CHECK_EQ(pkt.bth.pkey, 0xffff);
	CHECK_EQ(pkt.bth.dest_qp, 0x123456);
	CHECK_EQ(pkt.bth.ack_req, 1);
	CHECK_EQ(pkt.bth.psn, 0xfedcba);
	CHECK_EQ(pkt.ext, PIB_EXT_DETH | PIB_EXT_PAYLOAD);
	CHECK_EQ(pkt.payload_off, 8 + 12 + 8);
	CHECK_EQ(pkt.payload_len, 256);
	CHECK_EQ(buf[pkt.payload_off + 1], 7);

	len = build(buf, IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE, 1, 13, 3);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pkt.hdr_len, 8 + 40 + 12);
	CHECK_EQ(pkt.grh.ip_ver, 6);
	CHECK_EQ(pkt.grh.tclass, 0x12);
	CHECK_EQ(pkt.grh.flow_label, 0xabcde);
	CHECK_EQ(pkt.grh.hop_limit, 64);
	CHECK_EQ(pkt.grh.sgid[15], 15);
	CHECK_EQ(pkt.grh.dgid[0], 0xf0);
	CHECK_EQ(pkt.bth.pad, 3);
	CHECK_EQ(pkt.payload_len, 13);
	CHECK_EQ(pkt.payload_off, 8 + 40 + 12 + 8 + 4);

	/* A raw packet (pib's hellos): LRH, payload, VCRC; no ICRC. */
	struct pib_lrh raw = { .lnh = PIB_LNH_RAW, .dlid = 0xffff };

	pib_lrh_pack(buf, &raw);
	memcpy(buf + 8, "hello!!!", 8);
	len = pib_pkt_seal(buf, 16);
	CHECK_EQ(len, 18);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pkt.payload_len, 8);
	CHECK(!memcmp(buf + pkt.payload_off, "hello!!!", 8));
}

static void test_icrc_variant_fields(void)
{
	struct pib_pkt pkt;
	unsigned int len;

	/* Local packet: VL and BTH.Resv8a may change, the LRH otherwise not. */
	len = build(buf, IB_OPCODE_RC_SEND_ONLY, 0, 64, 0);
	buf[0] |= 0x70;		/* VL 7 */
	buf[8 + 4] = 0x5a;	/* Resv8a */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pkt.lrh.vl, 7);
	buf[3] ^= 1;		/* DLID is invariant in a local packet */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_ICRC);

	/* Global packet: the whole LRH, TClass, FlowLabel, HopLmt vary. */
	len = build(buf, IB_OPCODE_RC_SEND_ONLY, 1, 64, 0);
	buf[0] |= 0xe0;		/* VL 14: VL15 would have to be an SMP */
	buf[1] |= 0xf0;		/* SL */
	buf[2] ^= 0xff;		/* DLID: routers rewrite it */
	buf[7] ^= 0x0f;		/* SLID */
	buf[8] ^= 0x0f;		/* TClass high */
	buf[9] ^= 0xff;		/* TClass low, FlowLabel high */
	buf[11] ^= 0xff;	/* FlowLabel */
	buf[15] = 1;		/* HopLmt */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	buf[8 + 8] ^= 1;	/* SGID is invariant */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_ICRC);

	len = build(buf, IB_OPCODE_RC_SEND_ONLY, 0, 64, 0);
	buf[40] ^= 0x80;	/* payload */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_ICRC);
}

static void test_opcode_table(void)
{
	struct pib_pkt pkt;
	unsigned int op, len, known = 0;

	for (op = 0; op < 256; op++) {
		unsigned int rules = pib_opcodes[op].ext;
		unsigned int payload = rules & PIB_EXT_PAYLOAD ? 100 : 0;

		len = build(buf, op, op & 1, payload, 0);
		if (!pib_opcodes[op].flags) {
			CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_OPCODE);
			continue;
		}
		known++;
		CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
		CHECK_EQ(pkt.payload_len, payload);
		if (!payload) {
			/* Payload on an opcode without is refused. */
			len = build(buf, op, 0, 4, 0);
			CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_PAYLOAD);
		}
	}
	CHECK_EQ(known, 39 + 25);	/* XRC: RC's 25 again */
	/* IBA 1.5: FETH, then RETH; ATOMIC WRITE's 8 bytes are payload. */
	CHECK_EQ(pib_ext_len(pib_opcodes[PIB_OPCODE_RC_FLUSH].ext), 20);
	CHECK_EQ(pib_ext_off(pib_opcodes[PIB_OPCODE_RC_FLUSH].ext, PIB_EXT_RETH), 4);
	CHECK_EQ(pib_ext_len(pib_opcodes[PIB_OPCODE_RC_ATOMIC_WRITE].ext), 16);
	CHECK(pib_opcodes[PIB_OPCODE_RC_ATOMIC_WRITE].ext & PIB_EXT_PAYLOAD);
	CHECK_EQ(pib_ext_len(pib_opcodes[IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE].ext), 12);
	CHECK_EQ(pib_ext_len(pib_opcodes[IB_OPCODE_RC_COMPARE_SWAP].ext), 28);
	CHECK_EQ(pib_ext_len(pib_opcodes[IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE].ext), 20);
	CHECK_EQ(pib_ext_len(pib_opcodes[IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE].ext), 12);
}

/* The FETH's fields where IBA 1.5 puts them, and what is not a FETH. */
static void test_feth(void)
{
	struct pib_feth h;
	const __u8 *b = (const __u8 *)&h;

	pib_feth_set(&h, PIB_FLUSH_GLOBAL | PIB_FLUSH_PERSISTENT, PIB_FLUSH_MR);
	CHECK_EQ(b[0] | b[1] | b[2], 0);
	CHECK_EQ(b[3], 0x13);
	CHECK_EQ(pib_feth_type(&h), 3);
	CHECK_EQ(pib_feth_level(&h), PIB_FLUSH_MR);
	CHECK(!pib_feth_bad(&h));
	pib_feth_set(&h, 0, PIB_FLUSH_RANGE);
	CHECK(pib_feth_bad(&h));	/* no placement */
	pib_feth_set(&h, 4, PIB_FLUSH_RANGE);
	CHECK(pib_feth_bad(&h));	/* a reserved type bit */
	pib_feth_set(&h, PIB_FLUSH_GLOBAL, 2);
	CHECK(pib_feth_bad(&h));	/* a reserved level */
	pib_feth_set(&h, PIB_FLUSH_GLOBAL, PIB_FLUSH_RANGE);
	h.bits |= htonl(0x100);
	CHECK(pib_feth_bad(&h));	/* reserved bits */
	/* A FLUSH WQE's fields go into the FETH as they are. */
	CHECK_EQ(PIB_FLUSH_TYPE_GLOBAL, PIB_FLUSH_GLOBAL);
	CHECK_EQ(PIB_FLUSH_TYPE_PERSISTENT, PIB_FLUSH_PERSISTENT);
	CHECK_EQ(PIB_FLUSH_LEVEL_RANGE, PIB_FLUSH_RANGE);
	CHECK_EQ(PIB_FLUSH_LEVEL_MR, PIB_FLUSH_MR);
}

/*
 * The opcode table agrees with itself: a known opcode has a name and one
 * transport; a message's FIRST, MIDDLE and LAST opcodes, as its ONLY
 * opcode names them, are of its transport and kind, and in their place.
 */
static void test_opcode_links(void)
{
	const unsigned int tp = PIB_OPF_RC | PIB_OPF_UC | PIB_OPF_UD |
				PIB_OPF_XRC;
	const unsigned int kind = PIB_OPF_SEND | PIB_OPF_WRITE;
	unsigned int op, f, links = 0;

	for (op = 0; op < 256; op++) {
		const struct pib_opcode_info *o = &pib_opcodes[op];

		CHECK_EQ(!o->name, !o->flags);
		if (!o->flags)
			continue;
		f = o->flags & tp;
		CHECK(f && !(f & (f - 1)));
		CHECK_EQ(op >> 5, f == PIB_OPF_RC ? 0u : f == PIB_OPF_UC ? 1u :
				  f == PIB_OPF_XRC ? 5u : 3u);
		if (!o->last)	/* (RC SEND FIRST is opcode 0) */
			continue;
		links++;
		CHECK_EQ(o->flags & PIB_OPF_ONLY, PIB_OPF_ONLY);
		CHECK_EQ(pib_opcodes[o->first].flags & (tp | kind | PIB_OPF_ONLY),
			 (o->flags & (tp | kind)) | PIB_OPF_FIRST);
		CHECK_EQ(pib_opcodes[o->middle].flags & (tp | kind | PIB_OPF_ONLY),
			 o->flags & (tp | kind));
		CHECK_EQ(pib_opcodes[o->last].flags & ~PIB_OPF_FIRST,
			 o->flags & ~PIB_OPF_FIRST);
	}
	CHECK_EQ(links, 14);
	CHECK(!strcmp(pib_opcodes[IB_OPCODE_UC_RDMA_WRITE_ONLY].name,
		      "UC_RDMA_WRITE_ONLY"));
}

/*
 * XRC's opcodes (IBA Annex A14) are RC's, 0xA0 above: the same operation
 * and name, and an XRCETH right after the BTH of each request (none in a
 * response); nothing else is XRC's.
 */
static void test_opcode_xrc(void)
{
	unsigned int op, n = 0;

	for (op = 0; op < 256; op++) {
		const struct pib_opcode_info *x = &pib_opcodes[op];
		const struct pib_opcode_info *rc = &pib_opcodes[op & 0x1f];

		if (!(x->flags & PIB_OPF_XRC))
			continue;
		n++;
		CHECK_EQ(op & 0xe0, (unsigned int)PIB_OPCODE_XRC);
		CHECK_EQ(pib_opcode_rc(op), op & 0x1f);
		CHECK_EQ(x->flags & ~PIB_OPF_XRC, rc->flags & ~PIB_OPF_RC);
		CHECK(!strcmp(x->name + 1, rc->name) && x->name[0] == 'X');
		if (rc->flags & PIB_OPF_RESP) {
			CHECK_EQ(x->ext, rc->ext);
			continue;
		}
		CHECK_EQ(x->ext, rc->ext | PIB_EXT_XRCETH);
		CHECK_EQ(pib_ext_off(x->ext, PIB_EXT_XRCETH), 0u);
		if (x->ext & PIB_EXT_RETH)
			CHECK_EQ(pib_ext_off(x->ext, PIB_EXT_RETH),
				 PIB_XRCETH_LEN +
				 (x->ext & PIB_EXT_FETH ? PIB_FETH_LEN : 0u));
	}
	/* every RC opcode pib has, FLUSH and ATOMIC WRITE included */
	CHECK_EQ(n, 25);
	CHECK_EQ(pib_opcode_rc(IB_OPCODE_UC_SEND_ONLY), IB_OPCODE_UC_SEND_ONLY);
	CHECK_EQ(pib_opcodes[PIB_OPCODE_XRC | IB_OPCODE_RC_ACKNOWLEDGE].ext,
		 (unsigned int)PIB_EXT_AETH);
}

/* The XRCETH: a reserved byte, then the SRQ number, big-endian. */
static void test_xrceth(void)
{
	struct pib_xrceth h;
	const uint8_t *b = (const uint8_t *)&h;

	pib_xrceth_set(&h, 0xabcdef12);
	CHECK_EQ(b[0], 0);
	CHECK_EQ(b[1], 0xcd);
	CHECK_EQ(b[3], 0x12);
	CHECK_EQ(pib_xrceth_srqn(&h), 0xcdef12u);
	memset(&h, 0xff, sizeof(h));
	CHECK_EQ(pib_xrceth_srqn(&h), 0xffffffu);
}

static void test_bad_fields(void)
{
	struct pib_pkt pkt;
	unsigned int len;

	len = build(buf, IB_OPCODE_UD_SEND_ONLY, 0, 32, 0);
	buf[0] |= 1;		/* LVer 1 */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_LVER);

	len = build(buf, IB_OPCODE_UD_SEND_ONLY, 0, 32, 0);
	buf[1] = (buf[1] & ~3) | PIB_LNH_IP;
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_LNH);

	len = build(buf, IB_OPCODE_UD_SEND_ONLY, 0, 32, 0);
	buf[8 + 1] |= 2;	/* TVer 2 */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_TVER);

	len = build(buf, IB_OPCODE_UD_SEND_ONLY, 1, 32, 0);
	buf[8] = 0x40;		/* IPVer 4 */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_GRH);
	len = build(buf, IB_OPCODE_UD_SEND_ONLY, 1, 32, 0);
	buf[8 + 6] = 0x11;	/* NxtHdr UDP */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_GRH);
	len = build(buf, IB_OPCODE_UD_SEND_ONLY, 1, 32, 0);
	buf[8 + 5] += 4;	/* PayLen */
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_GRH);

	/* PktLen must match the datagram, in both directions. */
	len = build(buf, IB_OPCODE_UD_SEND_ONLY, 0, 32, 0);
	CHECK_EQ(pib_pkt_parse(buf, len + 4, &pkt), PIB_PKT_BAD_LEN);
	CHECK_EQ(pib_pkt_parse(buf, len - 4, &pkt), PIB_PKT_BAD_LEN);
	CHECK_EQ(pib_pkt_parse(buf, PIB_MAX_PKT_LEN + 2, &pkt), PIB_PKT_BAD_LEN);

	/* A pad larger than the payload area. */
	len = build(buf, IB_OPCODE_RC_SEND_ONLY, 0, 0, 0);
	buf[8 + 1] |= 3 << 4;
	revcrc(buf, len);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_SHORT);
}

/* A UD datagram for @qpn on @vl with a MAD of class @cls, base version @base. */
static unsigned int build_mad(__u8 *p, unsigned int qpn, unsigned int vl,
			      __u8 cls, __u8 base, unsigned int len)
{
	unsigned int n = build(p, IB_OPCODE_UD_SEND_ONLY, 0, len, -len & 3);
	struct pib_pkt pkt;

	pib_pkt_locate(p, n, &pkt);
	p[0] = vl << 4;
	put_unaligned_be24(qpn, p + 8 + 5);
	p[pkt.payload_off] = base;
	p[pkt.payload_off + 1] = cls;
	return pib_pkt_seal(p, n - PIB_ICRC_LEN - PIB_VCRC_LEN);
}

/*
 * VL15 carries SMPs only (one-MAD UD SENDs to QP0), and QP0 and QP1 take
 * only MADs of their classes, 256 bytes, base version 1.
 */
static void test_vl15_and_mads(void)
{
	struct pib_pkt pkt;
	unsigned int len;

	len = build_mad(buf, 0, 15, PIB_MGMT_CLASS_SUBN_DR, 1, 256);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pib_mad_check(0, &pkt, buf), PIB_MAD_OK);
	len = build_mad(buf, 0, 15, PIB_MGMT_CLASS_SUBN_LID, 1, 256);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pib_mad_check(0, &pkt, buf), PIB_MAD_OK);
	CHECK_EQ(pib_mad_check(1, &pkt, buf), PIB_MAD_BAD_CLASS);
	len = build_mad(buf, 1, 0, 0x04, 1, 256);	/* PMA */
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pib_mad_check(1, &pkt, buf), PIB_MAD_OK);
	CHECK_EQ(pib_mad_check(0, &pkt, buf), PIB_MAD_BAD_CLASS);
	/* Over-long, short, bad base version. */
	len = build_mad(buf, 1, 0, 0x04, 1, 512);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pib_mad_check(1, &pkt, buf), PIB_MAD_BAD_LEN);
	len = build_mad(buf, 1, 0, 0x04, 1, 255);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pib_mad_check(1, &pkt, buf), PIB_MAD_BAD_LEN);
	len = build_mad(buf, 1, 0, 0x04, 2, 256);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pib_mad_check(1, &pkt, buf), PIB_MAD_BAD_VERSION);
	len = build(buf, IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE, 0, 256, 0);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pib_mad_check(1, &pkt, buf), PIB_MAD_BAD_OPCODE);
	/* VL15: an SMP's shape, for QP0, or nothing. */
	len = build_mad(buf, 1, 15, 0x04, 1, 256);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_VL15);
	CHECK_EQ(pib_pkt_locate(buf, len, &pkt), PIB_PKT_BAD_VL15);
	len = build_mad(buf, 0x123456, 15, 0x04, 1, 256);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_VL15);
	len = build_mad(buf, 0, 15, PIB_MGMT_CLASS_SUBN_LID, 1, 512);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_VL15);
	len = build(buf, IB_OPCODE_RC_SEND_ONLY, 0, 256, 0);
	buf[0] = 0xf0;
	put_unaligned_be24(0, buf + 8 + 5);
	len = pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_VL15);
	/* SLIDs: unicast; permissive on VL15 only; never 0 nor multicast. */
	len = build_mad(buf, 0, 15, PIB_MGMT_CLASS_SUBN_DR, 1, 256);
	put_unaligned_be16(PIB_PERMISSIVE_LID, buf + 6);
	len = pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	len = build(buf, IB_OPCODE_UD_SEND_ONLY, 0, 32, 0);
	put_unaligned_be16(PIB_PERMISSIVE_LID, buf + 6);
	len = pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_SLID);
	put_unaligned_be16(0, buf + 6);
	len = pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_SLID);
	put_unaligned_be16(PIB_LID_MCAST + 5, buf + 6);
	len = pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
	CHECK_EQ(pib_pkt_locate(buf, len, &pkt), PIB_PKT_BAD_SLID);
	put_unaligned_be16(PIB_LID_MCAST - 1, buf + 6);
	len = pib_pkt_seal(buf, len - PIB_ICRC_LEN - PIB_VCRC_LEN);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	/* QP0 on VL0 parses: pib_hca_receive() refuses it for QP0. */
	len = build_mad(buf, 0, 0, PIB_MGMT_CLASS_SUBN_LID, 1, 256);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
}

/* Every truncation and every single-bit error of valid packets is refused. */
static void test_truncation_and_bit_flips(void)
{
	static __u8 copy[sizeof(buf)];
	struct pib_pkt pkt;
	unsigned int len, i, bad = 0;
	int global;

	for (global = 0; global < 2; global++) {
		len = build(buf, IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, global, 48, 0);
		for (i = 0; i < len; i++) {
			/* A copy of exactly i bytes, so ASan sees overreads. */
			__u8 *t = malloc(i ? i : 1);

			memcpy(t, buf, i);
			if (pib_pkt_parse(t, i, &pkt) == PIB_PKT_OK)
				bad++;
			free(t);
		}
		for (i = 0; i < len * 8; i++) {
			memcpy(copy, buf, len);
			copy[i / 8] ^= 1 << (i % 8);
			if (pib_pkt_parse(copy, len, &pkt) == PIB_PKT_OK)
				bad++;
		}
	}
	CHECK_EQ(bad, 0);
}

static __u32 rng = 12345;

static __u32 next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/*
 * Random datagrams, with PktLen and VCRC made right half of the time so the
 * deeper checks run too. Every result must be a known verdict, and an OK
 * packet's parts must lie inside the datagram (ASan checks the reads).
 */
static void test_random_input(void)
{
	struct pib_pkt pkt;
	unsigned int iter, i, ok = 0, seen[PIB_PKT_NUM_ERRS] = { 0 };

	for (iter = 0; iter < 200000; iter++) {
		unsigned int len = next_rand() % 200;
		__u8 *t = malloc(len ? len : 1);
		enum pib_pkt_err err;

		for (i = 0; i < len; i++)
			t[i] = next_rand();
		if (len >= 10 && (next_rand() & 1)) {
			len = ((len - 2) & ~3u) + 2;
			t[0] &= 0xf0;
			put_unaligned_be16((len - 2) / 4, t + 4);
			if (next_rand() & 1)
				t[8 + 1] &= 0xf0;
			revcrc(t, len);
		}
		err = pib_pkt_parse(t, len, &pkt);
		CHECK(err < PIB_PKT_NUM_ERRS);
		seen[err]++;
		if (err == PIB_PKT_OK) {
			ok++;
			CHECK(pkt.payload_off + pkt.payload_len <= len);
			CHECK(pkt.len == len);
		}
		free(t);
	}
	/* The fixed-up inputs reach the transport checks. */
	CHECK(seen[PIB_PKT_BAD_VCRC] > 0);
	CHECK(seen[PIB_PKT_BAD_OPCODE] > 0);
	CHECK(seen[PIB_PKT_BAD_ICRC] > 0 || seen[PIB_PKT_BAD_PAYLOAD] > 0);
	for (i = 0; i < PIB_PKT_NUM_ERRS; i++)
		CHECK(pib_pkt_err_names[i] != NULL);
	printf("random input: %u parsed as raw or valid packets\n", ok);
}

static void test_hello(void)
{
	struct pib_hello h = { .version = PIB_HELLO_VERSION, .num_ports = 3,
			       .switch_guid = 0x5054007ffe990001ULL }, back;
	struct pib_pkt pkt;
	unsigned int len = pib_hello_build(buf, &h);

	CHECK_EQ(len, PIB_HELLO_PKT_LEN);
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pkt.lrh.lnh, PIB_LNH_RAW);
	CHECK_EQ(pkt.lrh.dlid, PIB_PERMISSIVE_LID);
	CHECK_EQ(pib_hello_parse(buf + pkt.payload_off, pkt.payload_len, &back), 0);
	CHECK_EQ(back.switch_guid, h.switch_guid);
	CHECK_EQ(back.num_ports, 3);
	CHECK(!back.bye && !back.incarnation);
	/* A bye of incarnation 0x7abc: bytes 6-7 are 0xfa 0xbc. */
	h.bye = 1;
	h.incarnation = 0x7abc;
	pib_hello_build(buf, &h);
	CHECK(buf[pkt.payload_off + 6] == 0xfa && buf[pkt.payload_off + 7] == 0xbc);
	CHECK_EQ(pib_hello_parse(buf + pkt.payload_off, pkt.payload_len, &back), 0);
	CHECK(back.bye == 1 && back.incarnation == 0x7abc);
	CHECK_EQ(pib_hello_parse(buf + pkt.payload_off, pkt.payload_len - 4, &back), -1);
	buf[pkt.payload_off] ^= 1;	/* magic */
	CHECK_EQ(pib_hello_parse(buf + pkt.payload_off, pkt.payload_len, &back), -1);
	buf[pkt.payload_off] ^= 1;
	buf[pkt.payload_off + 4] = 2;	/* version */
	CHECK_EQ(pib_hello_parse(buf + pkt.payload_off, pkt.payload_len, &back), -1);
	buf[pkt.payload_off + 4] = PIB_HELLO_VERSION;
	memset(buf + pkt.payload_off + 8, 0, 8);	/* GUID 0 */
	CHECK_EQ(pib_hello_parse(buf + pkt.payload_off, pkt.payload_len, &back), -1);
	/* The switch GUID's index byte differs from every HCA's. */
	const __u8 mac[6] = { 0x52, 0x54, 0x00, 0x99, 0x00, 0x01 };

	CHECK_EQ(pib_guid_from_mac(mac, PIB_SWITCH_GUID_INDEX), 0x5054007ffe990001ULL);
}

/*
 * pib_pkt_locate(), for packets this host built or checked: the headers
 * are checked as pib_pkt_parse() checks them, the CRCs are not.
 */
static void test_locate(void)
{
	struct pib_pkt pkt, parsed;
	unsigned int len = build(buf, IB_OPCODE_RC_SEND_ONLY, 1, 64, 0);

	CHECK_EQ(pib_pkt_parse(buf, len, &parsed), PIB_PKT_OK);
	CHECK_EQ(pib_pkt_locate(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pkt.payload_off, parsed.payload_off);
	CHECK_EQ(pkt.payload_len, parsed.payload_len);
	CHECK_EQ(pkt.hdr_len, parsed.hdr_len);
	CHECK_EQ(pkt.bth.psn, parsed.bth.psn);
	buf[len - 1] ^= 1;		/* VCRC */
	buf[len - 3] ^= 1;		/* ICRC */
	CHECK_EQ(pib_pkt_parse(buf, len, &pkt), PIB_PKT_BAD_VCRC);
	CHECK_EQ(pib_pkt_locate(buf, len, &pkt), PIB_PKT_OK);
	CHECK_EQ(pib_pkt_locate(buf, len + 4, &pkt), PIB_PKT_BAD_LEN);
	CHECK_EQ(pib_pkt_locate(buf, 3, &pkt), PIB_PKT_SHORT);
	buf[8 + 40 + 1] |= 0x0f;	/* BTH TVer */
	CHECK_EQ(pib_pkt_locate(buf, len, &pkt), PIB_PKT_BAD_TVER);
}

int main(void)
{
	test_locate();
	test_hello();
	test_vl15_and_mads();
	test_crcs();
	test_header_round_trips();
	test_icrc_variant_fields();
	test_opcode_table();
	test_feth();
	test_opcode_links();
	test_opcode_xrc();
	test_xrceth();
	test_bad_fields();
	test_truncation_and_bit_flips();
	test_random_input();
	return unit_done("test_pkt");
}
