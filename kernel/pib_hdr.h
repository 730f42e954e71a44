/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * wire formats and the pure rules derived from them.
 *
 * This header is shared by the kernel module and the host-side unit tests,
 * so it uses the fixed-width types of <linux/types.h> and, beyond them,
 * only the few kernel headers below, which the host builds find in
 * tests/include. Its tables are defined once, in pib_hdr.c, which
 * whatever includes this header links too.
 */
#ifndef PIB_HDR_H
#define PIB_HDR_H

#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>
#ifdef __KERNEL__
/* get_unaligned_be32() and friends, from where this kernel has them */
#include "pib_compat.h"
#else
#include <linux/unaligned.h>
#endif

/* Largest number of pib devices on one netdev (index 0 .. max - 1). */
#define PIB_MAX_DEVS_PER_NETDEV	64

/*
 * IP and UDP headers in front of every IB packet on the LAN: those of
 * IPv6, the larger, so that a port's MTU does not depend on which family
 * carries its packets to which peer (IPv4's are 20 + 8).
 */
#define PIB_UDP_IP_OVERHEAD	(40 + 8)

/*
 * Worst-case IB framing around a payload: LRH (8) + GRH (40) + BTH (12) +
 * the largest extension header set (AtomicETH, 28) + ICRC (4) + VCRC (2) +
 * pad (3).
 */
#define PIB_IB_MAX_FRAMING	(8 + 40 + 12 + 28 + 4 + 2 + 3)

/**
 * pib_ib_mtu_bytes() - payload bytes of an IBA MTU code
 * @mtu: an IBA MTU code
 *
 * Return: 256 .. 4096, or 0 for an invalid code.
 */
static inline unsigned int pib_ib_mtu_bytes(enum ib_mtu mtu)
{
	if (mtu < IB_MTU_256 || mtu > IB_MTU_4096)
		return 0;
	return 128u << mtu;
}

/**
 * pib_ib_mtu_for_netdev() - the largest IB MTU that fits a netdev MTU
 * @ndev_mtu: the netdev's MTU (bytes of IP packet)
 *
 * One IB packet, with its worst-case framing, travels in one UDP/IPv4
 * datagram, so the IB MTU is the largest IBA MTU whose packets fit.
 *
 * Return: the IBA MTU code, or 0 (no enum ib_mtu) if not even 256 bytes
 * fit.
 */
static inline enum ib_mtu pib_ib_mtu_for_netdev(unsigned int ndev_mtu)
{
	enum ib_mtu mtu;

	for (mtu = IB_MTU_4096; mtu >= IB_MTU_256; mtu--)
		if (ndev_mtu >= pib_ib_mtu_bytes(mtu) + PIB_IB_MAX_FRAMING +
				PIB_UDP_IP_OVERHEAD)
			return mtu;
	return 0;
}

/**
 * pib_guid_from_mac() - the GUID of the index'th pib device on a netdev
 * @mac: the netdev's 6-byte MAC address
 * @index: the device's index on that netdev (< PIB_MAX_DEVS_PER_NETDEV)
 *
 * The modified EUI-64 of the MAC (universal/local bit flipped, FF:FE in the
 * middle) identifies device 0; device N replaces the FF by FF - N, so the
 * GUIDs of several devices on one netdev differ and each is the same on
 * every load. The result is in host order; byte 0 is the most significant.
 *
 * Return: the 64-bit GUID.
 */
static inline __u64 pib_guid_from_mac(const __u8 *mac, unsigned int index)
{
	__u8 b[8] = { mac[0] ^ 0x02, mac[1], mac[2], 0xff - index, 0xfe,
		      mac[3], mac[4], mac[5] };
	__u64 guid = 0;
	int i;

	for (i = 0; i < 8; i++)
		guid = (guid << 8) | b[i];
	return guid;
}

/* IBA link widths (PortInfo.LinkWidthActive). */
enum pib_ib_width {
	PIB_IB_WIDTH_1X = 1,
	PIB_IB_WIDTH_4X = 2,
	PIB_IB_WIDTH_8X = 4,
	PIB_IB_WIDTH_12X = 8,
};

/* IBA link speeds, as in enum ib_port_speed. */
enum pib_ib_speed {
	PIB_IB_SPEED_SDR = 1,
	PIB_IB_SPEED_DDR = 2,
	PIB_IB_SPEED_QDR = 4,
	PIB_IB_SPEED_FDR10 = 8,
	PIB_IB_SPEED_FDR = 16,
	PIB_IB_SPEED_EDR = 32,
	PIB_IB_SPEED_HDR = 64,
	PIB_IB_SPEED_NDR = 128,
};

/**
 * struct pib_ib_rate - one IB link width/speed pair and its data rate
 * @mbps: data rate in Mbit/s
 * @width: enum pib_ib_width
 * @speed: enum pib_ib_speed
 */
struct pib_ib_rate {
	__u32 mbps;
	__u8 width;
	__u8 speed;
};

/* The width/speed pairs pib reports, fastest first. */
#define PIB_IB_NUM_RATES	10
extern const struct pib_ib_rate pib_ib_rates[PIB_IB_NUM_RATES];

/* Rate reported when the netdev does not know its speed (virtual NICs). */
#define PIB_DEFAULT_MBPS	10000

/**
 * pib_ib_rate_for_mbps() - the IB link rate that stands for a netdev speed
 * @mbps: the netdev's speed in Mbit/s, or 0 if unknown
 *
 * Return: the fastest width/speed pair not faster than @mbps (the slowest
 * pair for slower links), or the PIB_DEFAULT_MBPS pair for an unknown speed.
 */
static inline const struct pib_ib_rate *pib_ib_rate_for_mbps(__u32 mbps)
{
	unsigned int i;

	if (!mbps)
		mbps = PIB_DEFAULT_MBPS;
	for (i = 0; i < PIB_IB_NUM_RATES - 1; i++)
		if (pib_ib_rates[i].mbps <= mbps)
			break;
	return &pib_ib_rates[i];
}

/*
 * Packets. Each UDP datagram carries one IB packet exactly as on an IB
 * wire: LRH, optional GRH, BTH, extension headers, payload, pad, ICRC,
 * VCRC. Header fields are big-endian. The CRCs are computed bit-reflected
 * (as Ethernet's FCS) and stored least significant byte first.
 */
#define PIB_LRH_LEN		8
#define PIB_GRH_LEN		40
#define PIB_BTH_LEN		12
#define PIB_ICRC_LEN		4
#define PIB_VCRC_LEN		2
#define PIB_MAX_PAYLOAD		4096
#define PIB_MAX_PKT_LEN		(PIB_IB_MAX_FRAMING + PIB_MAX_PAYLOAD)
#define PIB_GRH_IP_VERSION	6
#define PIB_GRH_NEXT_HDR_BTH	0x1b
#define PIB_BTH_TVER		0
#define PIB_VL15		15	/* the management VL */

/* LIDs from 0xc000 up are multicast; 0xffff is the permissive LID. */
#define PIB_LID_MCAST		0xc000
#define PIB_PERMISSIVE_LID	0xffff

/* LRH.LNH: what follows the LRH. */
enum pib_lnh {
	PIB_LNH_RAW = 0,
	PIB_LNH_IP = 1,
	PIB_LNH_IBA_LOCAL = 2,
	PIB_LNH_IBA_GLOBAL = 3,
};

/**
 * struct pib_lrh - Local Route Header, host order
 * @vl: virtual lane
 * @lver: link version (0)
 * @sl: service level
 * @lnh: enum pib_lnh
 * @dlid: destination LID
 * @pkt_len: 4-byte words from the LRH through the ICRC (VCRC excluded)
 * @slid: source LID
 */
struct pib_lrh {
	__u8 vl;
	__u8 lver;
	__u8 sl;
	__u8 lnh;
	__u16 dlid;
	__u16 pkt_len;
	__u16 slid;
};

static inline void pib_lrh_pack(__u8 *p, const struct pib_lrh *h)
{
	p[0] = h->vl << 4 | (h->lver & 0xf);
	p[1] = h->sl << 4 | (h->lnh & 0x3);
	put_unaligned_be16(h->dlid, p + 2);
	put_unaligned_be16(h->pkt_len & 0x7ff, p + 4);
	put_unaligned_be16(h->slid, p + 6);
}

/* The VL of the packet whose LRH is at @p. */
static inline __u8 pib_lrh_vl(const __u8 *p)
{
	return p[0] >> 4;
}

/* The DLID of the packet whose LRH is at @p. */
static inline __u8 pib_lrh_sl(const __u8 *p)
{
	return p[1] >> 4;
}

static inline __u16 pib_lrh_dlid(const __u8 *p)
{
	return get_unaligned_be16(p + 2);
}

/* A multicast LID: 0xC000 to 0xFFFE (0xFFFF is the permissive LID). */
static inline int pib_lid_is_mcast(__u16 lid)
{
	return lid >= PIB_LID_MCAST && lid != PIB_PERMISSIVE_LID;
}

static inline void pib_lrh_unpack(const __u8 *p, struct pib_lrh *h)
{
	h->vl = pib_lrh_vl(p);
	h->lver = p[0] & 0xf;
	h->sl = pib_lrh_sl(p);
	h->lnh = p[1] & 0x3;
	h->dlid = pib_lrh_dlid(p);
	h->pkt_len = get_unaligned_be16(p + 4) & 0x7ff;
	h->slid = get_unaligned_be16(p + 6);
}

/**
 * struct pib_grh - Global Route Header, host order
 * @ip_ver: 6
 * @tclass: traffic class
 * @flow_label: 20-bit flow label
 * @pay_len: bytes after the GRH, through the ICRC
 * @next_hdr: 0x1b (BTH)
 * @hop_limit: hop limit
 * @sgid: source GID, as on the wire
 * @dgid: destination GID, as on the wire
 */
struct pib_grh {
	__u8 ip_ver;
	__u8 tclass;
	__u32 flow_label;
	__u16 pay_len;
	__u8 next_hdr;
	__u8 hop_limit;
	__u8 sgid[16];
	__u8 dgid[16];
};

static inline void pib_grh_pack(__u8 *p, const struct pib_grh *h)
{
	put_unaligned_be32((__u32)h->ip_ver << 28 | (__u32)h->tclass << 20 |
		  (h->flow_label & 0xfffff), p);
	put_unaligned_be16(h->pay_len, p + 4);
	p[6] = h->next_hdr;
	p[7] = h->hop_limit;
	__builtin_memcpy(p + 8, h->sgid, 16);
	__builtin_memcpy(p + 24, h->dgid, 16);
}

static inline void pib_grh_unpack(const __u8 *p, struct pib_grh *h)
{
	__u32 w = get_unaligned_be32(p);

	h->ip_ver = w >> 28;
	h->tclass = w >> 20;
	h->flow_label = w & 0xfffff;
	h->pay_len = get_unaligned_be16(p + 4);
	h->next_hdr = p[6];
	h->hop_limit = p[7];
	__builtin_memcpy(h->sgid, p + 8, 16);
	__builtin_memcpy(h->dgid, p + 24, 16);
}

/**
 * struct pib_bth - Base Transport Header, host order
 * @opcode: IBA opcode (IB_OPCODE_*)
 * @se: solicited event
 * @mig: migration state
 * @pad: pad bytes after the payload (0..3)
 * @tver: transport header version (0)
 * @pkey: partition key
 * @dest_qp: 24-bit destination QP
 * @ack_req: acknowledge request
 * @psn: 24-bit packet sequence number
 */
struct pib_bth {
	__u8 opcode;
	__u8 se;
	__u8 mig;
	__u8 pad;
	__u8 tver;
	__u16 pkey;
	__u32 dest_qp;
	__u8 ack_req;
	__u32 psn;
};

static inline void pib_bth_pack(__u8 *p, const struct pib_bth *h)
{
	p[0] = h->opcode;
	p[1] = !!h->se << 7 | !!h->mig << 6 | (h->pad & 3) << 4 |
	       (h->tver & 0xf);
	put_unaligned_be16(h->pkey, p + 2);
	p[4] = 0;
	put_unaligned_be24(h->dest_qp, p + 5);
	p[8] = !!h->ack_req << 7;
	put_unaligned_be24(h->psn, p + 9);
}

static inline void pib_bth_unpack(const __u8 *p, struct pib_bth *h)
{
	h->opcode = p[0];
	h->se = p[1] >> 7;
	h->mig = (p[1] >> 6) & 1;
	h->pad = (p[1] >> 4) & 3;
	h->tver = p[1] & 0xf;
	h->pkey = get_unaligned_be16(p + 2);
	h->dest_qp = get_unaligned_be24(p + 5);
	h->ack_req = p[8] >> 7;
	h->psn = get_unaligned_be24(p + 9);
}

/* PSNs are 24-bit sequence numbers that wrap. */
#define PIB_PSN_MASK		0xffffff

/* @a - @b in 24-bit PSN arithmetic: negative if @a comes before @b. */
static inline int pib_psn_diff(__u32 a, __u32 b)
{
	return (__s32)((a - b) << 8) >> 8;
}

/**
 * pib_psn_in_window() - is a PSN in [@first, @end), modulo 2^24?
 * @psn: the PSN
 * @first: the first PSN of the window
 * @end: the PSN after its last; the window is empty if it equals @first
 *
 * An RC requester takes responses only for PSNs it has sent for WQEs
 * still outstanding: [first PSN of the oldest, next new PSN).
 *
 * Return: non-zero if @psn is in the window.
 */
static inline int pib_psn_in_window(__u32 psn, __u32 first, __u32 end)
{
	return ((psn - first) & PIB_PSN_MASK) < ((end - first) & PIB_PSN_MASK);
}

/*
 * Do two P_Keys let their ports talk? The same partition, and not both
 * limited members (the top bit is full membership, IBA 10.9.3).
 */
static inline int pib_pkey_match(__u16 a, __u16 b)
{
	return (a & 0x7fff) && (a & 0x7fff) == (b & 0x7fff) &&
	       ((a | b) & 0x8000);
}

/* Extension headers that may follow the BTH, in wire order. */
enum pib_ext {
	PIB_EXT_DETH = 1 << 0,		/* 8: Q_Key, source QP */
	PIB_EXT_XRCETH = 1 << 1,	/* 4: XRC SRQ (never with a DETH) */
	PIB_EXT_FETH = 1 << 2,		/* 4: placement type, selectivity */
	PIB_EXT_RETH = 1 << 3,		/* 16: VA, R_Key, DMA length */
	PIB_EXT_ATOMICETH = 1 << 4,	/* 28: VA, R_Key, swap/add, compare */
	PIB_EXT_AETH = 1 << 5,		/* 4: syndrome, MSN */
	PIB_EXT_ATOMICACKETH = 1 << 6,	/* 8: original remote data */
	PIB_EXT_IMMDT = 1 << 7,		/* 4: immediate data */
	PIB_EXT_IETH = 1 << 8,		/* 4: R_Key to invalidate */
	PIB_EXT_PAYLOAD = 1 << 9,	/* not a header: the packet has payload */
};

#define PIB_DETH_LEN		8
#define PIB_XRCETH_LEN		4
#define PIB_FETH_LEN		4
#define PIB_RETH_LEN		16
#define PIB_ATOMICETH_LEN	28
#define PIB_AETH_LEN		4
#define PIB_ATOMICACKETH_LEN	8
#define PIB_IMMDT_LEN		4
#define PIB_IETH_LEN		4

/* Length of the extension headers that @ext (enum pib_ext) names. */
static inline unsigned int pib_ext_len(unsigned int ext)
{
	return (ext & PIB_EXT_DETH ? PIB_DETH_LEN : 0) +
	       (ext & PIB_EXT_XRCETH ? PIB_XRCETH_LEN : 0) +
	       (ext & PIB_EXT_FETH ? PIB_FETH_LEN : 0) +
	       (ext & PIB_EXT_RETH ? PIB_RETH_LEN : 0) +
	       (ext & PIB_EXT_ATOMICETH ? PIB_ATOMICETH_LEN : 0) +
	       (ext & PIB_EXT_AETH ? PIB_AETH_LEN : 0) +
	       (ext & PIB_EXT_ATOMICACKETH ? PIB_ATOMICACKETH_LEN : 0) +
	       (ext & PIB_EXT_IMMDT ? PIB_IMMDT_LEN : 0) +
	       (ext & PIB_EXT_IETH ? PIB_IETH_LEN : 0);
}

/* Offset, from the first extension header, of @which among those of @ext. */
static inline unsigned int pib_ext_off(unsigned int ext, unsigned int which)
{
	return pib_ext_len(ext & (which - 1));
}

/* Where @which (enum pib_ext) goes among the extension headers @ext at @p. */
static inline void *pib_ext_at(__u8 *p, unsigned int ext, unsigned int which)
{
	return p + pib_ext_off(ext, which);
}

/*
 * The extension headers (IBA 9.3), one struct each, big-endian as on the
 * wire and packed, since they sit at any offset of a packet. Fields are
 * read and written through the accessors below only.
 */

/**
 * struct pib_deth - Datagram Extended Transport Header (IBA 9.3.3)
 * @qkey: Q_Key
 * @sqp: a reserved byte, then the 24-bit source QP
 */
struct pib_deth {
	__be32 qkey;
	__be32 sqp;
} __packed;

/**
 * struct pib_xrceth - XRC Extended Transport Header (IBA Annex A14)
 * @srqn: a reserved byte, then the 24-bit XRC SRQ the request is for
 */
struct pib_xrceth {
	__be32 srqn;
} __packed;

/**
 * struct pib_feth - FLUSH Extended Transport Header (IBA 1.5, 9.3.11)
 * @bits: reserved, then the selectivity level (bits 5-4) and the
 *	placement type (bits 3-0)
 */
struct pib_feth {
	__be32 bits;
} __packed;

/* FETH placement types (bits) and selectivity levels: IB_FLUSH_*'s values. */
#define PIB_FLUSH_GLOBAL	0x1
#define PIB_FLUSH_PERSISTENT	0x2
#define PIB_FLUSH_RANGE		0
#define PIB_FLUSH_MR		1

/**
 * struct pib_reth - RDMA Extended Transport Header (IBA 9.3.4)
 * @va: virtual address
 * @rkey: R_Key
 * @len: DMA length
 */
struct pib_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
} __packed;

/**
 * struct pib_atmeth - Atomic Extended Transport Header (IBA 9.3.5)
 * @va: virtual address
 * @rkey: R_Key
 * @swap_add: swap (compare-and-swap) or add (fetch-and-add) data
 * @compare: compare data
 */
struct pib_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __packed;

/**
 * struct pib_aeth - ACK Extended Transport Header (IBA 9.3.6)
 * @smsn: the syndrome (top byte), then the 24-bit MSN
 */
struct pib_aeth {
	__be32 smsn;
} __packed;

/**
 * struct pib_atmack - Atomic ACK Extended Transport Header (IBA 9.3.7)
 * @orig: the original remote data
 */
struct pib_atmack {
	__be64 orig;
} __packed;

/**
 * struct pib_immdt - Immediate Data Extended Transport Header (IBA 9.3.8)
 * @imm: the immediate data, which pib keeps in network order
 */
struct pib_immdt {
	__be32 imm;
} __packed;

/**
 * struct pib_ieth - Invalidate Extended Transport Header (IBA 9.3.9)
 * @rkey: the R_Key to invalidate
 */
struct pib_ieth {
	__be32 rkey;
} __packed;

static_assert(sizeof(struct pib_deth) == PIB_DETH_LEN, "DETH");
static_assert(sizeof(struct pib_xrceth) == PIB_XRCETH_LEN, "XRCETH");
static_assert(sizeof(struct pib_feth) == PIB_FETH_LEN, "FETH");
static_assert(sizeof(struct pib_reth) == PIB_RETH_LEN, "RETH");
static_assert(sizeof(struct pib_atmeth) == PIB_ATOMICETH_LEN, "AtomicETH");
static_assert(sizeof(struct pib_aeth) == PIB_AETH_LEN, "AETH");
static_assert(sizeof(struct pib_atmack) == PIB_ATOMICACKETH_LEN, "AtomicAckETH");
static_assert(sizeof(struct pib_immdt) == PIB_IMMDT_LEN, "ImmDt");
static_assert(sizeof(struct pib_ieth) == PIB_IETH_LEN, "IETH");

static inline __u32 pib_deth_qkey(const struct pib_deth *h)
{
	return get_unaligned_be32(&h->qkey);
}

static inline __u32 pib_deth_sqp(const struct pib_deth *h)
{
	return get_unaligned_be32(&h->sqp) & 0xffffff;
}

static inline void pib_deth_set(struct pib_deth *h, __u32 qkey, __u32 sqp)
{
	put_unaligned_be32(qkey, &h->qkey);
	put_unaligned_be32(sqp & 0xffffff, &h->sqp);
}

static inline __u64 pib_reth_va(const struct pib_reth *h)
{
	return get_unaligned_be64(&h->va);
}

static inline __u32 pib_reth_rkey(const struct pib_reth *h)
{
	return get_unaligned_be32(&h->rkey);
}

static inline __u32 pib_reth_len(const struct pib_reth *h)
{
	return get_unaligned_be32(&h->len);
}

static inline void pib_reth_set(struct pib_reth *h, __u64 va, __u32 rkey,
				__u32 len)
{
	put_unaligned_be64(va, &h->va);
	put_unaligned_be32(rkey, &h->rkey);
	put_unaligned_be32(len, &h->len);
}

static inline __u64 pib_atmeth_va(const struct pib_atmeth *h)
{
	return get_unaligned_be64(&h->va);
}

static inline __u32 pib_atmeth_rkey(const struct pib_atmeth *h)
{
	return get_unaligned_be32(&h->rkey);
}

static inline __u64 pib_atmeth_swap_add(const struct pib_atmeth *h)
{
	return get_unaligned_be64(&h->swap_add);
}

static inline __u64 pib_atmeth_compare(const struct pib_atmeth *h)
{
	return get_unaligned_be64(&h->compare);
}

static inline void pib_atmeth_set(struct pib_atmeth *h, __u64 va, __u32 rkey,
				  __u64 swap_add, __u64 compare)
{
	put_unaligned_be64(va, &h->va);
	put_unaligned_be32(rkey, &h->rkey);
	put_unaligned_be64(swap_add, &h->swap_add);
	put_unaligned_be64(compare, &h->compare);
}

/*
 * AETH syndrome (IBA 9.7.5.1, Table 43): a type in bits 6:5 and a value in
 * bits 4:0, which is the credit count of an ACK, the timer code of an RNR
 * NAK (IBA Table 45) or the code of a NAK.
 */
enum pib_aeth_type {
	PIB_AETH_ACK = 0,
	PIB_AETH_RNR = 1,
	PIB_AETH_NAK = 3,
};

/* NAK codes (IBA Table 44). */
enum pib_nak_code {
	PIB_NAK_PSN_SEQ = 0,
	PIB_NAK_INVALID = 1,
	PIB_NAK_ACCESS = 2,
	PIB_NAK_OPERATIONAL = 3,
	PIB_NAK_INVALID_RD = 4,	/* XRC: an XRCETH naming no SRQ of the domain */
};

/* An ACK's credit field when no end-to-end credits are kept (IBA 9.7.7.2). */
#define PIB_AETH_CREDITS_INVALID	0x1f
#define PIB_AETH_VALUE_MASK		0x1f

/* The syndrome of @type (enum pib_aeth_type) with @value. */
#define PIB_AETH_SYN(type, value)	\
	((__u8)((type) << 5 | ((value) & PIB_AETH_VALUE_MASK)))

static inline __u8 pib_feth_type(const struct pib_feth *h)
{
	return get_unaligned_be32(&h->bits) & 0xf;
}

static inline __u8 pib_feth_level(const struct pib_feth *h)
{
	return (get_unaligned_be32(&h->bits) >> 4) & 3;
}

/*
 * A placement type and selectivity level a FLUSH may carry: known bits
 * only, and some placement (a flush to none would tell whether a key is
 * valid, and do nothing).
 */
static inline int pib_flush_ok(unsigned int type, unsigned int level)
{
	return type && !(type & ~(PIB_FLUSH_GLOBAL | PIB_FLUSH_PERSISTENT)) &&
	       level <= PIB_FLUSH_MR;
}

/* A FETH no IBA 1.5 requester sends: reserved bits set, or a bad flush. */
static inline int pib_feth_bad(const struct pib_feth *h)
{
	return (get_unaligned_be32(&h->bits) & ~0x3fu) ||
	       !pib_flush_ok(pib_feth_type(h), pib_feth_level(h));
}

static inline void pib_feth_set(struct pib_feth *h, __u8 type, __u8 level)
{
	put_unaligned_be32((level & 3u) << 4 | (type & 0xfu), &h->bits);
}

static inline __u32 pib_xrceth_srqn(const struct pib_xrceth *h)
{
	return get_unaligned_be32(&h->srqn) & 0xffffff;
}

static inline void pib_xrceth_set(struct pib_xrceth *h, __u32 srqn)
{
	put_unaligned_be32(srqn & 0xffffff, &h->srqn);
}

/* ACK, end-to-end credits invalid: the only ACK pib sends. */
#define PIB_AETH_SYN_ACK	PIB_AETH_SYN(PIB_AETH_ACK, PIB_AETH_CREDITS_INVALID)

static inline enum pib_aeth_type pib_aeth_syn_type(__u8 syn)
{
	return (syn >> 5) & 3;
}

static inline unsigned int pib_aeth_syn_value(__u8 syn)
{
	return syn & PIB_AETH_VALUE_MASK;
}

static inline __u8 pib_aeth_syn(const struct pib_aeth *h)
{
	return get_unaligned_be32(&h->smsn) >> 24;
}

static inline __u32 pib_aeth_msn(const struct pib_aeth *h)
{
	return get_unaligned_be32(&h->smsn) & 0xffffff;
}

/**
 * pib_aeth_set() - write an AETH
 * @h: where it goes
 * @syn: its syndrome (PIB_AETH_SYN())
 * @msn: the 24-bit MSN
 */
static inline void pib_aeth_set(struct pib_aeth *h, __u8 syn, __u32 msn)
{
	put_unaligned_be32((__u32)syn << 24 | (msn & 0xffffff), &h->smsn);
}

static inline __u64 pib_atmack_orig(const struct pib_atmack *h)
{
	return get_unaligned_be64(&h->orig);
}

static inline void pib_atmack_set(struct pib_atmack *h, __u64 orig)
{
	put_unaligned_be64(orig, &h->orig);
}

/* ImmDt as on the wire: pib hands it on in network order. */
static inline __be32 pib_immdt_get(const struct pib_immdt *h)
{
	__be32 imm;

	__builtin_memcpy(&imm, &h->imm, sizeof(imm));
	return imm;
}

static inline void pib_immdt_set(struct pib_immdt *h, __be32 imm)
{
	__builtin_memcpy(&h->imm, &imm, sizeof(imm));
}

static inline __u32 pib_ieth_rkey(const struct pib_ieth *h)
{
	return get_unaligned_be32(&h->rkey);
}

static inline void pib_ieth_set(struct pib_ieth *h, __u32 rkey)
{
	put_unaligned_be32(rkey, &h->rkey);
}

/* What a BTH opcode is (struct pib_opcode_info): 0 for unknown opcodes. */
enum pib_opcode_flags {
	PIB_OPF_RC = 1 << 0,		/* its transport */
	PIB_OPF_UC = 1 << 1,
	PIB_OPF_UD = 1 << 2,
	PIB_OPF_SEND = 1 << 3,		/* a request: payload to a receive WQE */
	PIB_OPF_WRITE = 1 << 4,		/* payload to remote memory */
	PIB_OPF_READ = 1 << 5,		/* remote memory to the requester */
	PIB_OPF_ATOMIC = 1 << 6,
	PIB_OPF_FIRST = 1 << 7,		/* first packet of a message */
	PIB_OPF_LAST = 1 << 8,		/* last packet of a message */
	PIB_OPF_IMM = 1 << 9,		/* ImmDt: a completion with immediate */
	PIB_OPF_INV = 1 << 10,		/* IETH: invalidates an R_Key */
	PIB_OPF_RESP = 1 << 11,		/* a response (READ response, ACK) */
	PIB_OPF_FLUSH = 1 << 12,	/* FETH: make remote memory visible */
	PIB_OPF_ATOMIC_WRITE = 1 << 13,	/* 8 bytes to remote memory at once */
	PIB_OPF_XRC = 1 << 14,		/* XRC: RC's transport, an XRCETH */
};

/*
 * Requests a responder resource answers (READ response, atomic ACK): a
 * FLUSH and an ATOMIC WRITE get a READ response without payload.
 */
#define PIB_OPF_RD_RES	(PIB_OPF_READ | PIB_OPF_ATOMIC | PIB_OPF_FLUSH | \
			 PIB_OPF_ATOMIC_WRITE)

/* The IBA 1.5 opcodes, which <rdma/ib_pack.h> names only since Linux 6.2. */
#define PIB_OPCODE_RC_FLUSH		0x1c
#define PIB_OPCODE_RC_ATOMIC_WRITE	0x1d

/*
 * XRC's opcodes (IBA Annex A14, Table 38: 101xxxxx) are RC's with this
 * transport prefix, which <rdma/ib_pack.h> does not name: requests,
 * which carry an XRCETH right after the BTH, and responses, which do not.
 */
#define PIB_OPCODE_XRC			0xa0
#define PIB_OPCODE_TRANSPORT		0xe0

/* RC's opcode for an XRC one (the same operation), else @op itself. */
static inline __u8 pib_opcode_rc(__u8 op)
{
	return (op & PIB_OPCODE_TRANSPORT) == PIB_OPCODE_XRC ?
	       op & ~PIB_OPCODE_TRANSPORT : op;
}

#define PIB_OPF_ONLY	(PIB_OPF_FIRST | PIB_OPF_LAST)

/**
 * struct pib_opcode_info - what the IBA says of one BTH opcode
 * @name: its name in IBA Table 38, for traces; NULL if pib does not know it
 * @flags: enum pib_opcode_flags
 * @ext: its extension headers in wire order, and PIB_EXT_PAYLOAD if it
 *	carries payload (enum pib_ext)
 * @first: for a message that fits in no one packet, the opcode of its
 *	first packet (set on the ONLY opcode of RC and UC SENDs and WRITEs)
 * @middle: of its middle packets
 * @last: of its last packet
 */
struct pib_opcode_info {
	const char *name;
	__u16 flags;
	__u16 ext;
	__u8 first;
	__u8 middle;
	__u8 last;
};

/* Every BTH opcode, indexed by its value: pib_hdr.c. */
extern const struct pib_opcode_info pib_opcodes[256];

/*
 * CRC-32 as crc32_le() computes it: bit-reflected polynomial 0x04C11DB7, no
 * pre- or post-inversion. The kernel uses its optimized crc32_le() instead
 * (PIB_CRC32_LE, defined before this header); the results are the same.
 */
static inline __u32 pib_crc32_le_bitwise(__u32 crc, const __u8 *p,
					 unsigned int len)
{
	unsigned int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

#ifndef PIB_CRC32_LE
#define PIB_CRC32_LE pib_crc32_le_bitwise
#endif

/*
 * VCRC: CRC-16, polynomial 0x100B bit-reflected (0xD008), sliced by 4:
 * pib_vcrc_table[0] is the byte table, and pib_vcrc_table[k][b] the CRC of
 * byte b followed by k zero bytes, so that four bytes take one step.
 */
extern const __u16 pib_vcrc_table[4][256];

static inline __u16 pib_vcrc(const __u8 *p, unsigned int len)
{
	const __u16 (*t)[256] = pib_vcrc_table;
	__u16 crc = 0xffff;

	for (; len >= 4; len -= 4, p += 4) {
		crc ^= p[0] | p[1] << 8;
		crc = t[3][crc & 0xff] ^ t[2][crc >> 8] ^ t[1][p[2]] ^ t[0][p[3]];
	}
	while (len--)
		crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffff;
}

/*
 * pib_icrc() - the ICRC of the packet whose ICRC field starts at @icrc_off
 * @pkt: the packet, from its LRH
 * @hdr_len: bytes of LRH, GRH (if any) and BTH at @pkt
 * @icrc_off: offset of the ICRC field (end of payload and pad)
 *
 * The variant fields are taken as all ones: LRH.VL (the whole LRH for a
 * packet with a GRH, which routers rewrite), GRH TClass, FlowLabel and
 * HopLmt, and BTH.Resv8a.
 */
static inline __u32 pib_icrc(const __u8 *pkt, unsigned int hdr_len,
			     unsigned int icrc_off)
{
	__u8 h[PIB_LRH_LEN + PIB_GRH_LEN + PIB_BTH_LEN];
	unsigned int bth = hdr_len - PIB_BTH_LEN;
	__u32 crc;

	__builtin_memcpy(h, pkt, hdr_len);
	if (bth > PIB_LRH_LEN) {
		__builtin_memset(h, 0xff, PIB_LRH_LEN);
		h[PIB_LRH_LEN] |= 0x0f;
		__builtin_memset(h + PIB_LRH_LEN + 1, 0xff, 3);
		h[PIB_LRH_LEN + 7] = 0xff;
	} else {
		h[0] |= 0xf0;
	}
	h[bth + 4] = 0xff;
	crc = PIB_CRC32_LE(0xffffffffu, h, hdr_len);
	crc = PIB_CRC32_LE(crc, pkt + hdr_len, icrc_off - hdr_len);
	return ~crc;
}

/* Bytes of LRH, GRH (if LNH says so) and BTH of an IBA packet. */
static inline unsigned int pib_hdr_len(unsigned int lnh)
{
	return PIB_LRH_LEN + PIB_BTH_LEN +
	       (lnh == PIB_LNH_IBA_GLOBAL ? PIB_GRH_LEN : 0);
}

/**
 * pib_pkt_seal() - fill in LRH.PktLen, ICRC and VCRC of a built packet
 * @pkt: the packet: headers, payload and pad are in place, with room for
 *	 the CRCs behind them
 * @len: bytes of headers, payload and pad (a multiple of 4)
 *
 * Raw packets (LNH 0) get no ICRC.
 *
 * Return: the packet's total length, with its CRCs.
 */
static inline unsigned int pib_pkt_seal(__u8 *pkt, unsigned int len)
{
	unsigned int lnh = pkt[1] & 0x3;
	unsigned int end = len + (lnh == PIB_LNH_RAW ? 0 : PIB_ICRC_LEN);

	put_unaligned_be16((end / 4) & 0x7ff, pkt + 4);
	if (lnh != PIB_LNH_RAW)
		put_unaligned_le32(pib_icrc(pkt, pib_hdr_len(lnh), len), pkt + len);
	put_unaligned_le16(pib_vcrc(pkt, end), pkt + end);
	return end + PIB_VCRC_LEN;
}

/* Why a received packet is dropped; counted per reason. */
enum pib_pkt_err {
	PIB_PKT_OK,
	PIB_PKT_SHORT,		/* shorter than its headers say */
	PIB_PKT_BAD_LEN,	/* LRH.PktLen disagrees with the datagram */
	PIB_PKT_BAD_VCRC,
	PIB_PKT_BAD_LVER,
	PIB_PKT_BAD_LNH,	/* raw IPv6 (LNH 1) is not carried */
	PIB_PKT_BAD_GRH,	/* IPVer, NxtHdr or PayLen */
	PIB_PKT_BAD_TVER,
	PIB_PKT_BAD_OPCODE,
	PIB_PKT_BAD_PAYLOAD,	/* payload or pad on an opcode without */
	PIB_PKT_BAD_ICRC,
	PIB_PKT_BAD_VL15,	/* VL15 carries nothing but SMPs */
	PIB_PKT_BAD_SLID,	/* 0, multicast, or permissive off VL15 */
	PIB_PKT_NUM_ERRS
};

/* Names of enum pib_pkt_err, as the drop counters (drop_NAME) show them. */
extern const char *const pib_pkt_err_names[PIB_PKT_NUM_ERRS];

/**
 * struct pib_pkt - a parsed packet
 * @lrh: its LRH
 * @grh: its GRH, if @lrh.lnh is PIB_LNH_IBA_GLOBAL
 * @bth: its BTH, unless the packet is raw
 * @ext: the opcode's enum pib_ext bits (0 for raw packets)
 * @hdr_len: bytes of LRH, GRH and BTH (LRH only for raw packets)
 * @payload_off: offset of the payload
 * @payload_len: payload bytes, pad excluded
 * @len: bytes of the whole packet, VCRC included
 */
struct pib_pkt {
	struct pib_lrh lrh;
	struct pib_grh grh;
	struct pib_bth bth;
	unsigned int ext;
	unsigned int hdr_len;
	unsigned int payload_off;
	unsigned int payload_len;
	unsigned int len;
};

/**
 * pib_pkt_ext() - where an extension header of a parsed packet starts
 * @buf: the packet's bytes
 * @pkt: the packet, parsed
 * @which: the header (one enum pib_ext bit, which @pkt->ext has)
 *
 * Return: a pointer to the header, to be read with its accessors.
 */
static inline const void *pib_pkt_ext(const __u8 *buf,
				      const struct pib_pkt *pkt,
				      unsigned int which)
{
	return buf + pkt->hdr_len + pib_ext_off(pkt->ext, which);
}

/*
 * Checks of an IBA packet's GRH and transport headers; @end is the ICRC's
 * offset; the ICRC too if @crcs.
 */
static inline enum pib_pkt_err pib_pkt_parse_iba(const __u8 *buf,
						 unsigned int end,
						 struct pib_pkt *pkt,
						 int crcs)
{
	const struct pib_opcode_info *op;
	unsigned int ext_len;

	pkt->hdr_len = pib_hdr_len(pkt->lrh.lnh);
	if (end < pkt->hdr_len)
		return PIB_PKT_SHORT;
	if (pkt->lrh.lnh == PIB_LNH_IBA_GLOBAL) {
		pib_grh_unpack(buf + PIB_LRH_LEN, &pkt->grh);
		if (pkt->grh.ip_ver != PIB_GRH_IP_VERSION ||
		    pkt->grh.next_hdr != PIB_GRH_NEXT_HDR_BTH ||
		    pkt->grh.pay_len != end + PIB_ICRC_LEN - PIB_LRH_LEN -
					PIB_GRH_LEN)
			return PIB_PKT_BAD_GRH;
	}
	pib_bth_unpack(buf + pkt->hdr_len - PIB_BTH_LEN, &pkt->bth);
	if (pkt->bth.tver != PIB_BTH_TVER)
		return PIB_PKT_BAD_TVER;
	op = &pib_opcodes[pkt->bth.opcode];
	if (!op->flags)
		return PIB_PKT_BAD_OPCODE;
	pkt->ext = op->ext;
	ext_len = pib_ext_len(op->ext);
	if (end < pkt->hdr_len + ext_len + pkt->bth.pad)
		return PIB_PKT_SHORT;
	pkt->payload_off = pkt->hdr_len + ext_len;
	pkt->payload_len = end - pkt->payload_off - pkt->bth.pad;
	if (!(op->ext & PIB_EXT_PAYLOAD) && (pkt->payload_len || pkt->bth.pad))
		return PIB_PKT_BAD_PAYLOAD;
	if (crcs && pib_icrc(buf, pkt->hdr_len, end) != get_unaligned_le32(buf + end))
		return PIB_PKT_BAD_ICRC;
	return PIB_PKT_OK;
}

/* A MAD is 256 bytes, whatever its class (IBA 13.4). */
#define PIB_MAD_LEN		256

/*
 * VL15 is the management VL: it carries SMPs, which are one-MAD UD SENDs
 * to QP0, and nothing else (IBA 7.6, 14.2). Only such packets may cross a
 * switch port that is not ACTIVE, so nothing else may claim VL15.
 */
static inline int pib_pkt_vl_ok(const struct pib_pkt *pkt)
{
	return pkt->lrh.vl != PIB_VL15 ||
	       (pkt->lrh.lnh != PIB_LNH_RAW &&
		pkt->bth.opcode == IB_OPCODE_UD_SEND_ONLY && !pkt->bth.dest_qp &&
		pkt->payload_len == PIB_MAD_LEN);
}

/*
 * An IBA packet names its source port by a unicast LID: never 0 nor a
 * multicast LID, and the permissive LID only on an SMP (from a port that
 * has no LID yet, or on a directed route). Replies go to the SLID.
 */
static inline int pib_pkt_slid_ok(const struct pib_pkt *pkt)
{
	__u16 slid = pkt->lrh.slid;

	return slid && (slid < PIB_LID_MCAST ||
			(slid == PIB_PERMISSIVE_LID && pkt->lrh.vl == PIB_VL15));
}

/* pib_pkt_parse() and pib_pkt_locate(); the CRCs are checked if @crcs. */
static inline enum pib_pkt_err pib_pkt_check(const __u8 *buf,
					     unsigned int len,
					     struct pib_pkt *pkt, int crcs)
{
	enum pib_pkt_err err;
	unsigned int end;

	if (len < PIB_LRH_LEN + PIB_VCRC_LEN)
		return PIB_PKT_SHORT;
	pib_lrh_unpack(buf, &pkt->lrh);
	if (len > PIB_MAX_PKT_LEN || len - PIB_VCRC_LEN != pkt->lrh.pkt_len * 4u)
		return PIB_PKT_BAD_LEN;
	end = len - PIB_VCRC_LEN;
	if (crcs && pib_vcrc(buf, end) != get_unaligned_le16(buf + end))
		return PIB_PKT_BAD_VCRC;
	if (pkt->lrh.lver)
		return PIB_PKT_BAD_LVER;
	pkt->len = len;
	pkt->ext = 0;
	switch (pkt->lrh.lnh) {
	case PIB_LNH_RAW:
		pkt->hdr_len = PIB_LRH_LEN;
		pkt->payload_off = PIB_LRH_LEN;
		pkt->payload_len = end - PIB_LRH_LEN;
		return pib_pkt_vl_ok(pkt) ? PIB_PKT_OK : PIB_PKT_BAD_VL15;
	case PIB_LNH_IP:
		return PIB_PKT_BAD_LNH;
	default:
		if (end < PIB_LRH_LEN + PIB_ICRC_LEN)
			return PIB_PKT_SHORT;
		err = pib_pkt_parse_iba(buf, end - PIB_ICRC_LEN, pkt, crcs);
		if (!err && !pib_pkt_vl_ok(pkt))
			return PIB_PKT_BAD_VL15;
		if (!err && !pib_pkt_slid_ok(pkt))
			return PIB_PKT_BAD_SLID;
		return err;
	}
}

/* Management classes of SMPs, which only QP0 takes (IBA 14.2). */
#define PIB_MGMT_CLASS_SUBN_LID	0x01
#define PIB_MGMT_CLASS_SUBN_DR	0x81
#define PIB_MAD_BASE_VERSION	1

/* Why QP0 or QP1 may not take a datagram. */
enum pib_mad_err {
	PIB_MAD_OK,
	PIB_MAD_BAD_OPCODE,	/* not a plain UD SEND (with immediate, say) */
	PIB_MAD_BAD_LEN,	/* not one MAD long */
	PIB_MAD_BAD_VERSION,	/* a base version other than 1 */
	PIB_MAD_BAD_CLASS,	/* an SMP for QP1, or another class for QP0 */
};

/**
 * pib_mad_check() - may QP0 or QP1 take a datagram?
 * @qpn: 0 or 1
 * @pkt: the parsed datagram
 * @buf: its bytes
 *
 * A MAD is exactly 256 bytes, base version 1 (IBA 13.4); QP0 takes the SMP
 * classes and QP1 the others. What fails is dropped before it takes a
 * receive WQE.
 *
 * Return: PIB_MAD_OK, or why not.
 */
static inline enum pib_mad_err pib_mad_check(unsigned int qpn,
					     const struct pib_pkt *pkt,
					     const __u8 *buf)
{
	const __u8 *mad = buf + pkt->payload_off;
	int smp;

	if (pkt->lrh.lnh == PIB_LNH_RAW ||
	    pkt->bth.opcode != IB_OPCODE_UD_SEND_ONLY)
		return PIB_MAD_BAD_OPCODE;
	if (pkt->payload_len != PIB_MAD_LEN)
		return PIB_MAD_BAD_LEN;
	if (mad[0] != PIB_MAD_BASE_VERSION)
		return PIB_MAD_BAD_VERSION;
	smp = mad[1] == PIB_MGMT_CLASS_SUBN_LID ||
	      mad[1] == PIB_MGMT_CLASS_SUBN_DR;
	return smp == !qpn ? PIB_MAD_OK : PIB_MAD_BAD_CLASS;
}

/**
 * pib_pkt_parse() - check a received datagram and locate its parts
 * @buf: the datagram, which should hold one IB packet
 * @len: its length
 * @pkt: where the result goes
 *
 * Every length is checked against @len before it is used, so any input is
 * safe to parse.
 *
 * Return: PIB_PKT_OK, or why the packet must be dropped.
 */
static inline enum pib_pkt_err pib_pkt_parse(const __u8 *buf, unsigned int len,
					     struct pib_pkt *pkt)
{
	return pib_pkt_check(buf, len, pkt, 1);
}

/**
 * pib_pkt_locate() - locate the parts of a packet this host built or checked
 * @buf: the packet
 * @len: its length
 * @pkt: where the result goes
 *
 * As pib_pkt_parse(), without the ICRC and VCRC: for packets that a device
 * or switch of this host sealed, or that pib_pkt_parse() took in from the
 * LAN, as they pass from a device to its switch and on to a device. Their
 * CRCs are computed once by the sender and checked once where they enter
 * a host, not again at every hop in memory.
 *
 * Return: PIB_PKT_OK, or why the packet must be dropped.
 */
static inline enum pib_pkt_err pib_pkt_locate(const __u8 *buf,
					      unsigned int len,
					      struct pib_pkt *pkt)
{
	return pib_pkt_check(buf, len, pkt, 0);
}

/*
 * Subnet management. SMP attribute data is 64 bytes, big-endian. Both SMAs
 * (the HCA's and the switch's) read and write PortInfo (IBA 14.2.5.6) in
 * that wire format, as the kernel's struct ib_port_info: its big-endian
 * members directly, its packed sub-fields through the pib_pi_*()
 * accessors below.
 */
#define PIB_SMP_DATA_LEN	64

/* IBA PortInfo.PortPhysicalState. */
enum pib_phys_state {
	PIB_PHYS_NOP = 0,
	PIB_PHYS_SLEEP = 1,
	PIB_PHYS_POLLING = 2,
	PIB_PHYS_DISABLED = 3,
	PIB_PHYS_TRAINING = 4,
	PIB_PHYS_LINK_UP = 5,
};

/**
 * union pib_port_info - one PortInfo attribute, in wire format
 * @pi: the fields that the kernel's struct ib_port_info names
 * @raw: all 64 bytes. The kernel's struct ends after
 *	LinkRoundTripLatency (byte 59); CapabilityMask2 (60-61) and the
 *	LinkSpeedExt fields (62-63) follow it.
 *
 * An SMP's data sits wherever the MAD or the packet put it: an SMP that
 * arrives in a packet is only 4-byte aligned, so an SMA copies the 64
 * bytes into this union, which is aligned for struct ib_port_info, rather
 * than casting the SMP's data.
 */
union pib_port_info {
	struct ib_port_info pi;
	__u8 raw[PIB_SMP_DATA_LEN];
};

static_assert(sizeof(struct ib_port_info) <= PIB_SMP_DATA_LEN, "PortInfo");
static_assert(sizeof(union pib_port_info) == PIB_SMP_DATA_LEN, "PortInfo");

/*
 * PortInfo bytes past the end of struct ib_port_info's members:
 * LinkSpeedExtActive (4 bits) and LinkSpeedExtSupported (4), then 3
 * reserved bits and LinkSpeedExtEnabled (5).
 */
#define PIB_PI_LINK_SPEED_EXT		62
#define PIB_PI_LINK_SPEED_EXT_ENABLED	63

/* The @mask wide field @shift bits up in @byte. */
static inline __u8 pib_pi_bits(__u8 byte, unsigned int shift, __u8 mask)
{
	return byte >> shift & mask;
}

/* Store @v in the @mask wide field @shift bits up in *@byte; keep the rest. */
static inline void pib_pi_set_bits(__u8 *byte, unsigned int shift, __u8 mask,
				   __u8 v)
{
	*byte = (*byte & ~(mask << shift)) | (v & mask) << shift;
}

/*
 * PortInfo's packed sub-fields (IBA 14.2.5.6, Table 148): pib_pi_NAME()
 * reads one, pib_pi_set_NAME() writes one and keeps the byte's other bits.
 * A value wider than its field is cut to the field's width, as the wire
 * cuts it. The LinkSpeedExt fields lie past the kernel's struct: their @pi
 * must be a union pib_port_info's.
 */

/* LinkSpeedSupported */
static inline __u8 pib_pi_link_speed_supported(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->linkspeed_portstate, 4, 0xf);
}

static inline void pib_pi_set_link_speed_supported(struct ib_port_info *pi,
						   __u8 v)
{
	pib_pi_set_bits(&pi->linkspeed_portstate, 4, 0xf, v);
}

/* PortState: enum ib_port_state */
static inline __u8 pib_pi_port_state(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->linkspeed_portstate, 0, 0xf);
}

static inline void pib_pi_set_port_state(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->linkspeed_portstate, 0, 0xf, v);
}

/* PortPhysicalState: enum pib_phys_state */
static inline __u8 pib_pi_phys_state(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->portphysstate_linkdown, 4, 0xf);
}

static inline void pib_pi_set_phys_state(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->portphysstate_linkdown, 4, 0xf, v);
}

/* LinkDownDefaultState: enum pib_phys_state */
static inline __u8 pib_pi_link_down_default(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->portphysstate_linkdown, 0, 0xf);
}

static inline void pib_pi_set_link_down_default(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->portphysstate_linkdown, 0, 0xf, v);
}

/* M_KeyProtectBits */
static inline __u8 pib_pi_mkey_protect(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->mkeyprot_resv_lmc, 6, 0x3);
}

static inline void pib_pi_set_mkey_protect(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->mkeyprot_resv_lmc, 6, 0x3, v);
}

/* LMC */
static inline __u8 pib_pi_lmc(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->mkeyprot_resv_lmc, 0, 0x7);
}

static inline void pib_pi_set_lmc(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->mkeyprot_resv_lmc, 0, 0x7, v);
}

/* LinkSpeedActive */
static inline __u8 pib_pi_link_speed_active(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->linkspeedactive_enabled, 4, 0xf);
}

static inline void pib_pi_set_link_speed_active(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->linkspeedactive_enabled, 4, 0xf, v);
}

/* LinkSpeedEnabled */
static inline __u8 pib_pi_link_speed_enabled(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->linkspeedactive_enabled, 0, 0xf);
}

static inline void pib_pi_set_link_speed_enabled(struct ib_port_info *pi,
						 __u8 v)
{
	pib_pi_set_bits(&pi->linkspeedactive_enabled, 0, 0xf, v);
}

/* NeighborMTU: enum ib_mtu */
static inline __u8 pib_pi_neighbor_mtu(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->neighbormtu_mastersmsl, 4, 0xf);
}

static inline void pib_pi_set_neighbor_mtu(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->neighbormtu_mastersmsl, 4, 0xf, v);
}

/* MasterSMSL */
static inline __u8 pib_pi_sm_sl(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->neighbormtu_mastersmsl, 0, 0xf);
}

static inline void pib_pi_set_sm_sl(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->neighbormtu_mastersmsl, 0, 0xf, v);
}

/* VLCap */
static inline __u8 pib_pi_vl_cap(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->vlcap_inittype, 4, 0xf);
}

static inline void pib_pi_set_vl_cap(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->vlcap_inittype, 4, 0xf, v);
}

/* MTUCap: enum ib_mtu */
static inline __u8 pib_pi_mtu_cap(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->inittypereply_mtucap, 0, 0xf);
}

static inline void pib_pi_set_mtu_cap(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->inittypereply_mtucap, 0, 0xf, v);
}

/* OperationalVLs */
static inline __u8 pib_pi_operational_vls(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->operationalvl_pei_peo_fpi_fpo, 4, 0xf);
}

static inline void pib_pi_set_operational_vls(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->operationalvl_pei_peo_fpi_fpo, 4, 0xf, v);
}

/* ClientReregister */
static inline __u8 pib_pi_client_reregister(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->clientrereg_resv_subnetto, 7, 0x1);
}

static inline void pib_pi_set_client_reregister(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->clientrereg_resv_subnetto, 7, 0x1, v);
}

/* SubnetTimeOut */
static inline __u8 pib_pi_subnet_timeout(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->clientrereg_resv_subnetto, 0, 0x1f);
}

static inline void pib_pi_set_subnet_timeout(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->clientrereg_resv_subnetto, 0, 0x1f, v);
}

/* RespTimeValue */
static inline __u8 pib_pi_resp_time_value(const struct ib_port_info *pi)
{
	return pib_pi_bits(pi->resv_resptimevalue, 0, 0x1f);
}

static inline void pib_pi_set_resp_time_value(struct ib_port_info *pi, __u8 v)
{
	pib_pi_set_bits(&pi->resv_resptimevalue, 0, 0x1f, v);
}

/* LinkSpeedExtActive */
static inline __u8 pib_pi_link_speed_ext_active(const struct ib_port_info *pi)
{
	return pib_pi_bits(((const __u8 *)pi)[PIB_PI_LINK_SPEED_EXT], 4, 0xf);
}

static inline void pib_pi_set_link_speed_ext_active(struct ib_port_info *pi,
						    __u8 v)
{
	pib_pi_set_bits((__u8 *)pi + PIB_PI_LINK_SPEED_EXT, 4, 0xf, v);
}

/* LinkSpeedExtSupported */
static inline __u8
pib_pi_link_speed_ext_supported(const struct ib_port_info *pi)
{
	return pib_pi_bits(((const __u8 *)pi)[PIB_PI_LINK_SPEED_EXT], 0, 0xf);
}

static inline void pib_pi_set_link_speed_ext_supported(struct ib_port_info *pi,
						       __u8 v)
{
	pib_pi_set_bits((__u8 *)pi + PIB_PI_LINK_SPEED_EXT, 0, 0xf, v);
}

/* LinkSpeedExtEnabled */
static inline __u8 pib_pi_link_speed_ext_enabled(const struct ib_port_info *pi)
{
	const __u8 *raw = (const __u8 *)pi;

	return pib_pi_bits(raw[PIB_PI_LINK_SPEED_EXT_ENABLED], 0, 0x1f);
}

static inline void pib_pi_set_link_speed_ext_enabled(struct ib_port_info *pi,
						     __u8 v)
{
	pib_pi_set_bits((__u8 *)pi + PIB_PI_LINK_SPEED_EXT_ENABLED, 0, 0x1f, v);
}

/*
 * Logical port state changes an SM may ask for with PortInfo Set (IBA
 * 14.2.5.6, Table 148): NOP keeps the state, DOWN is always allowed, ARMED
 * only from INIT (or ARMED), ACTIVE only from ARMED (or ACTIVE). Indexed by
 * [current][requested].
 */
extern const __u8 pib_port_state_ok[5][5];

/* May a port in state @cur be set to @req? Both are enum ib_port_state. */
static inline int pib_port_state_change_ok(unsigned int cur, unsigned int req)
{
	return cur <= IB_PORT_ACTIVE && req <= IB_PORT_ACTIVE &&
	       pib_port_state_ok[cur][req];
}

#define PIB_MAD_METHOD_GET	0x01

/* What an SMA does with an SMP, by its M_Key (enum values of the check). */
enum pib_mkey_verdict {
	PIB_MKEY_OK,		/* answer it */
	PIB_MKEY_HIDE,		/* answer it, with PortInfo.M_Key as 0 */
	PIB_MKEY_DROP,		/* drop it; count an M_Key violation */
};

/**
 * pib_mkey_check() - the M_Key check of an SMA (IBA 14.2.4)
 * @mkey: the port's M_Key (port 0's, for a switch)
 * @protect: its M_KeyProtectBits
 * @smp_mkey: the M_Key the SMP carries
 * @method: the SMP's method
 *
 * An M_Key of 0 protects nothing. Otherwise an SMP with another key may
 * still Get below protection level 2, and level 1 hides the key in the
 * reply; Sets, TrapRepresses and Gets at level 2 and 3 are dropped.
 *
 * Return: enum pib_mkey_verdict.
 */
static inline enum pib_mkey_verdict pib_mkey_check(__u64 mkey, __u8 protect,
						   __u64 smp_mkey, __u8 method)
{
	if (!mkey || smp_mkey == mkey)
		return PIB_MKEY_OK;
	if (method == PIB_MAD_METHOD_GET && protect < 2)
		return protect ? PIB_MKEY_HIDE : PIB_MKEY_OK;
	return PIB_MKEY_DROP;
}

/*
 * Peer discovery. Every pib switch (one per netdev) broadcasts a hello on
 * the LAN each PIB_HELLO_INTERVAL_MS: a raw IB packet (LNH 0, DLID
 * permissive) whose payload names the sending switch. A peer heard in the
 * last PIB_PEER_TIMEOUT_MS has its link up. The LAN is no IB link: it loses
 * datagrams, and a busy (or emulated) host sends its hellos late, seen up
 * to 3 s apart under load. A link that goes down drops all traffic through
 * it until the SM has made the port ACTIVE again, long enough for RC QPs
 * to exhaust their retries; so ten hellos must be missed in a row.
 *
 * A switch made anew (its device deleted and added again, its host
 * rebooted) keeps its GUID, but draws a new incarnation: its peers see the
 * link bounce at once, not after a silence it may not have had. A switch
 * that goes away says so in a last hello (a bye), and its peers take the
 * link down at once. (Both are in bytes a pib from before them sent as 0
 * and ignores.)
 */
#define PIB_DEFAULT_UDP_PORT	4792
#define PIB_HELLO_MAGIC		0x50494248	/* "PIBH" */
#define PIB_HELLO_VERSION	1
#define PIB_HELLO_LEN		16
#define PIB_HELLO_PKT_LEN	(PIB_LRH_LEN + PIB_HELLO_LEN + PIB_VCRC_LEN)
#define PIB_HELLO_INTERVAL_MS	1000
#define PIB_PEER_TIMEOUT_MS	10000
/* Switch GUIDs use device index 0x80 of pib_guid_from_mac() (byte 0x7f). */
#define PIB_SWITCH_GUID_INDEX	0x80
/* Payload bytes 6-7: the bye bit and the incarnation (0: not said). */
#define PIB_HELLO_BYE_BIT	0x8000
#define PIB_HELLO_INCARNATION	0x7fff

/**
 * struct pib_hello - what a hello says
 * @version: PIB_HELLO_VERSION
 * @num_ports: the sender's switch ports, port 0 excluded
 * @bye: the sender is going away: this is its last hello
 * @incarnation: 1..PIB_HELLO_INCARNATION, drawn when the sender's switch
 *	was made; 0 from a pib that does not say it
 * @switch_guid: the sender's switch node GUID
 */
struct pib_hello {
	__u8 version;
	__u8 num_ports;
	__u8 bye;
	__u16 incarnation;
	__u64 switch_guid;
};

/* Build a sealed hello packet at @p (PIB_HELLO_PKT_LEN bytes). */
static inline unsigned int pib_hello_build(__u8 *p, const struct pib_hello *h)
{
	struct pib_lrh lrh = { .lnh = PIB_LNH_RAW, .dlid = PIB_PERMISSIVE_LID };

	__builtin_memset(p, 0, PIB_HELLO_PKT_LEN);
	pib_lrh_pack(p, &lrh);
	put_unaligned_be32(PIB_HELLO_MAGIC, p + PIB_LRH_LEN);
	p[PIB_LRH_LEN + 4] = h->version;
	p[PIB_LRH_LEN + 5] = h->num_ports;
	put_unaligned_be16((h->bye ? PIB_HELLO_BYE_BIT : 0) |
			   (h->incarnation & PIB_HELLO_INCARNATION),
			   p + PIB_LRH_LEN + 6);
	put_unaligned_be64(h->switch_guid, p + PIB_LRH_LEN + 8);
	return pib_pkt_seal(p, PIB_LRH_LEN + PIB_HELLO_LEN);
}

/*
 * Read a hello from a parsed raw packet's payload; 0, or -1 if it is none.
 * A GUID of 0 names no node, so no switch says it.
 */
static inline int pib_hello_parse(const __u8 *payload, unsigned int len,
				  struct pib_hello *h)
{
	__u16 w;

	if (len != PIB_HELLO_LEN || get_unaligned_be32(payload) != PIB_HELLO_MAGIC ||
	    payload[4] != PIB_HELLO_VERSION || !get_unaligned_be64(payload + 8))
		return -1;
	w = get_unaligned_be16(payload + 6);
	h->version = payload[4];
	h->num_ports = payload[5];
	h->bye = !!(w & PIB_HELLO_BYE_BIT);
	h->incarnation = w & PIB_HELLO_INCARNATION;
	h->switch_guid = get_unaligned_be64(payload + 8);
	return 0;
}

/*
 * Directed-route SMPs (IBA 14.2.2). Offsets into the 256-byte SMP; the
 * paths are indexed by hop, entry 0 unused.
 */
#define PIB_SMP_STATUS		4
#define PIB_SMP_HOP_PTR		6
#define PIB_SMP_HOP_CNT		7
#define PIB_SMP_DR_SLID		32
#define PIB_SMP_DR_DLID		34
#define PIB_SMP_INITIAL_PATH	128
#define PIB_SMP_RETURN_PATH	192
#define PIB_SMP_LEN		256
#define PIB_SMP_DIRECTION	0x8000
#define PIB_SMP_MAX_HOPS	63

/* What a switch does with a directed-route SMP. */
enum pib_dr_verdict {
	PIB_DR_DISCARD,
	PIB_DR_SMA,		/* this switch is the destination */
	PIB_DR_FORWARD,		/* send it out of *out_port */
};

static inline int pib_smp_returning(const __u8 *smp)
{
	return !!(get_unaligned_be16(smp + PIB_SMP_STATUS) & PIB_SMP_DIRECTION);
}

/**
 * pib_dr_switch_route() - route a directed-route SMP through a switch
 * @smp: the SMP; its hop pointer and return path are updated
 * @in_port: the switch port it arrived on
 * @num_ports: the switch's highest port number
 * @out_port: where to send it, for PIB_DR_FORWARD
 *
 * Outgoing (D=0), the SMP arrives with HopPtr naming this hop (the sender
 * advanced it): the switch records @in_port in ReturnPath[HopPtr], then
 * either is the destination (HopPtr = HopCnt) or sends it on along
 * InitialPath[HopPtr + 1]. Returning (D=1), the previous node left HopPtr
 * at its own hop: the switch steps back one hop and sends it out of
 * ReturnPath[HopPtr]. The switch's own replies start with HopPtr =
 * HopCnt + 1 and take the same step. Only paths that are directed from end
 * to end (permissive DrSLID and DrDLID) are routed.
 *
 * Return: enum pib_dr_verdict.
 */
static inline enum pib_dr_verdict pib_dr_switch_route(__u8 *smp,
						      unsigned int in_port,
						      unsigned int num_ports,
						      unsigned int *out_port)
{
	unsigned int hp = smp[PIB_SMP_HOP_PTR], hc = smp[PIB_SMP_HOP_CNT];

	if (hc > PIB_SMP_MAX_HOPS ||
	    get_unaligned_be16(smp + PIB_SMP_DR_SLID) != PIB_PERMISSIVE_LID ||
	    get_unaligned_be16(smp + PIB_SMP_DR_DLID) != PIB_PERMISSIVE_LID)
		return PIB_DR_DISCARD;
	if (!pib_smp_returning(smp)) {
		if (!hc || !hp || hp > hc)
			return PIB_DR_DISCARD;
		smp[PIB_SMP_RETURN_PATH + hp] = in_port;
		if (hp == hc) {
			smp[PIB_SMP_HOP_PTR] = hc + 1;
			return PIB_DR_SMA;
		}
		*out_port = smp[PIB_SMP_INITIAL_PATH + hp + 1];
		smp[PIB_SMP_HOP_PTR] = hp + 1;
	} else {
		/* Only the switch's own reply (from port 0) may be at HopCnt + 1. */
		if (hp < 2 || hp > hc + !in_port)
			return PIB_DR_DISCARD;
		*out_port = smp[PIB_SMP_RETURN_PATH + hp - 1];
		smp[PIB_SMP_HOP_PTR] = hp - 1;
	}
	return *out_port && *out_port <= num_ports ? PIB_DR_FORWARD :
						       PIB_DR_DISCARD;
}

/**
 * struct pib_pkt_brief - the LRH and BTH fields that name a packet in a
 *	trace line or a log line
 * @dqpn: BTH destination QP
 * @psn: BTH PSN
 * @slid: LRH source LID
 * @dlid: LRH destination LID
 * @vl: LRH virtual lane
 * @lnh: LRH link next header
 * @opcode: BTH opcode
 *
 * Fields the packet is too short for are zero.
 */
struct pib_pkt_brief {
	__u32 dqpn;
	__u32 psn;
	__u16 slid;
	__u16 dlid;
	__u8 vl;
	__u8 lnh;
	__u8 opcode;
};

void pib_pkt_brief(const __u8 *buf, __u32 len, struct pib_pkt_brief *b);

#endif /* PIB_HDR_H */
