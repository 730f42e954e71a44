/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * wire formats and the pure rules derived from them.
 *
 * This header is shared by the kernel module and the host-side unit tests,
 * so it only uses the fixed-width types of <linux/types.h> and no kernel
 * or libc helpers.
 */
#ifndef PIB_HDR_H
#define PIB_HDR_H

#include <linux/types.h>

/* Largest number of pib devices on one netdev (index 0 .. max - 1). */
#define PIB_MAX_DEVS_PER_NETDEV	64

/* IPv4 and UDP headers in front of every IB packet on the LAN. */
#define PIB_UDP_IPV4_OVERHEAD	(20 + 8)

/*
 * Worst-case IB framing around a payload: LRH (8) + GRH (40) + BTH (12) +
 * the largest extension header set (AtomicETH, 28) + ICRC (4) + VCRC (2) +
 * pad (3).
 */
#define PIB_IB_MAX_FRAMING	(8 + 40 + 12 + 28 + 4 + 2 + 3)

/* IBA MTU codes, as in PortInfo.NeighborMTU and enum ib_mtu. */
enum pib_ib_mtu {
	PIB_IB_MTU_INVALID = 0,
	PIB_IB_MTU_256 = 1,
	PIB_IB_MTU_512 = 2,
	PIB_IB_MTU_1024 = 3,
	PIB_IB_MTU_2048 = 4,
	PIB_IB_MTU_4096 = 5,
};

/**
 * pib_ib_mtu_bytes() - payload bytes of an IBA MTU code
 * @mtu: an IBA MTU code
 *
 * Return: 256 .. 4096, or 0 for an invalid code.
 */
static inline unsigned int pib_ib_mtu_bytes(enum pib_ib_mtu mtu)
{
	if (mtu < PIB_IB_MTU_256 || mtu > PIB_IB_MTU_4096)
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
 * Return: the IBA MTU code, or PIB_IB_MTU_INVALID if not even 256 bytes fit.
 */
static inline enum pib_ib_mtu pib_ib_mtu_for_netdev(unsigned int ndev_mtu)
{
	enum pib_ib_mtu mtu;

	for (mtu = PIB_IB_MTU_4096; mtu >= PIB_IB_MTU_256; mtu--)
		if (ndev_mtu >= pib_ib_mtu_bytes(mtu) + PIB_IB_MAX_FRAMING +
				PIB_UDP_IPV4_OVERHEAD)
			return mtu;
	return PIB_IB_MTU_INVALID;
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
static const struct pib_ib_rate pib_ib_rates[PIB_IB_NUM_RATES] = {
	{ 400000, PIB_IB_WIDTH_4X, PIB_IB_SPEED_NDR },
	{ 200000, PIB_IB_WIDTH_4X, PIB_IB_SPEED_HDR },
	{ 100000, PIB_IB_WIDTH_4X, PIB_IB_SPEED_EDR },
	{ 56000, PIB_IB_WIDTH_4X, PIB_IB_SPEED_FDR },
	{ 40000, PIB_IB_WIDTH_4X, PIB_IB_SPEED_QDR },
	{ 25000, PIB_IB_WIDTH_1X, PIB_IB_SPEED_EDR },
	{ 20000, PIB_IB_WIDTH_4X, PIB_IB_SPEED_DDR },
	{ 10000, PIB_IB_WIDTH_4X, PIB_IB_SPEED_SDR },
	{ 5000, PIB_IB_WIDTH_1X, PIB_IB_SPEED_DDR },
	{ 2500, PIB_IB_WIDTH_1X, PIB_IB_SPEED_SDR },
};

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

static inline __u16 pib_get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static inline __u32 pib_get24(const __u8 *p)
{
	return (__u32)p[0] << 16 | (__u32)p[1] << 8 | p[2];
}

static inline __u32 pib_get32(const __u8 *p)
{
	return (__u32)p[0] << 24 | pib_get24(p + 1);
}

static inline void pib_put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void pib_put24(__u8 *p, __u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline void pib_put32(__u8 *p, __u32 v)
{
	p[0] = v >> 24;
	pib_put24(p + 1, v);
}

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
	pib_put16(p + 2, h->dlid);
	pib_put16(p + 4, h->pkt_len & 0x7ff);
	pib_put16(p + 6, h->slid);
}

static inline void pib_lrh_unpack(const __u8 *p, struct pib_lrh *h)
{
	h->vl = p[0] >> 4;
	h->lver = p[0] & 0xf;
	h->sl = p[1] >> 4;
	h->lnh = p[1] & 0x3;
	h->dlid = pib_get16(p + 2);
	h->pkt_len = pib_get16(p + 4) & 0x7ff;
	h->slid = pib_get16(p + 6);
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
	pib_put32(p, (__u32)h->ip_ver << 28 | (__u32)h->tclass << 20 |
		  (h->flow_label & 0xfffff));
	pib_put16(p + 4, h->pay_len);
	p[6] = h->next_hdr;
	p[7] = h->hop_limit;
	__builtin_memcpy(p + 8, h->sgid, 16);
	__builtin_memcpy(p + 24, h->dgid, 16);
}

static inline void pib_grh_unpack(const __u8 *p, struct pib_grh *h)
{
	__u32 w = pib_get32(p);

	h->ip_ver = w >> 28;
	h->tclass = w >> 20;
	h->flow_label = w & 0xfffff;
	h->pay_len = pib_get16(p + 4);
	h->next_hdr = p[6];
	h->hop_limit = p[7];
	__builtin_memcpy(h->sgid, p + 8, 16);
	__builtin_memcpy(h->dgid, p + 24, 16);
}

/**
 * struct pib_bth - Base Transport Header, host order
 * @opcode: IBA opcode (enum pib_opcode)
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
	pib_put16(p + 2, h->pkey);
	p[4] = 0;
	pib_put24(p + 5, h->dest_qp);
	p[8] = !!h->ack_req << 7;
	pib_put24(p + 9, h->psn);
}

static inline void pib_bth_unpack(const __u8 *p, struct pib_bth *h)
{
	h->opcode = p[0];
	h->se = p[1] >> 7;
	h->mig = (p[1] >> 6) & 1;
	h->pad = (p[1] >> 4) & 3;
	h->tver = p[1] & 0xf;
	h->pkey = pib_get16(p + 2);
	h->dest_qp = pib_get24(p + 5);
	h->ack_req = p[8] >> 7;
	h->psn = pib_get24(p + 9);
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
	PIB_EXT_RETH = 1 << 1,		/* 16: VA, R_Key, DMA length */
	PIB_EXT_ATOMICETH = 1 << 2,	/* 28: VA, R_Key, swap/add, compare */
	PIB_EXT_AETH = 1 << 3,		/* 4: syndrome, MSN */
	PIB_EXT_ATOMICACKETH = 1 << 4,	/* 8: original remote data */
	PIB_EXT_IMMDT = 1 << 5,		/* 4: immediate data */
	PIB_EXT_IETH = 1 << 6,		/* 4: R_Key to invalidate */
	PIB_EXT_PAYLOAD = 1 << 7,	/* not a header: the packet has payload */
};

#define PIB_DETH_LEN		8
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
	       (ext & PIB_EXT_RETH ? PIB_RETH_LEN : 0) +
	       (ext & PIB_EXT_ATOMICETH ? PIB_ATOMICETH_LEN : 0) +
	       (ext & PIB_EXT_AETH ? PIB_AETH_LEN : 0) +
	       (ext & PIB_EXT_ATOMICACKETH ? PIB_ATOMICACKETH_LEN : 0) +
	       (ext & PIB_EXT_IMMDT ? PIB_IMMDT_LEN : 0) +
	       (ext & PIB_EXT_IETH ? PIB_IETH_LEN : 0);
}

/* BTH opcodes pib knows (IBA 9.2, Table 38): RC, UC and UD. */
enum pib_opcode {
	PIB_OP_RC_SEND_FIRST = 0x00,
	PIB_OP_RC_SEND_MIDDLE = 0x01,
	PIB_OP_RC_SEND_LAST = 0x02,
	PIB_OP_RC_SEND_LAST_IMM = 0x03,
	PIB_OP_RC_SEND_ONLY = 0x04,
	PIB_OP_RC_SEND_ONLY_IMM = 0x05,
	PIB_OP_RC_WRITE_FIRST = 0x06,
	PIB_OP_RC_WRITE_MIDDLE = 0x07,
	PIB_OP_RC_WRITE_LAST = 0x08,
	PIB_OP_RC_WRITE_LAST_IMM = 0x09,
	PIB_OP_RC_WRITE_ONLY = 0x0a,
	PIB_OP_RC_WRITE_ONLY_IMM = 0x0b,
	PIB_OP_RC_READ_REQUEST = 0x0c,
	PIB_OP_RC_READ_RESPONSE_FIRST = 0x0d,
	PIB_OP_RC_READ_RESPONSE_MIDDLE = 0x0e,
	PIB_OP_RC_READ_RESPONSE_LAST = 0x0f,
	PIB_OP_RC_READ_RESPONSE_ONLY = 0x10,
	PIB_OP_RC_ACKNOWLEDGE = 0x11,
	PIB_OP_RC_ATOMIC_ACKNOWLEDGE = 0x12,
	PIB_OP_RC_COMPARE_SWAP = 0x13,
	PIB_OP_RC_FETCH_ADD = 0x14,
	PIB_OP_RC_SEND_LAST_INV = 0x16,
	PIB_OP_RC_SEND_ONLY_INV = 0x17,
	PIB_OP_UC_SEND_FIRST = 0x20,
	PIB_OP_UC_SEND_MIDDLE = 0x21,
	PIB_OP_UC_SEND_LAST = 0x22,
	PIB_OP_UC_SEND_LAST_IMM = 0x23,
	PIB_OP_UC_SEND_ONLY = 0x24,
	PIB_OP_UC_SEND_ONLY_IMM = 0x25,
	PIB_OP_UC_WRITE_FIRST = 0x26,
	PIB_OP_UC_WRITE_MIDDLE = 0x27,
	PIB_OP_UC_WRITE_LAST = 0x28,
	PIB_OP_UC_WRITE_LAST_IMM = 0x29,
	PIB_OP_UC_WRITE_ONLY = 0x2a,
	PIB_OP_UC_WRITE_ONLY_IMM = 0x2b,
	PIB_OP_UD_SEND_ONLY = 0x64,
	PIB_OP_UD_SEND_ONLY_IMM = 0x65,
};

#define PIB_OP_VALID		0x100	/* in pib_opcode_rules: a known opcode */
#define PIB_OP_P		PIB_EXT_PAYLOAD
#define PIB_OP_IMM		(PIB_EXT_PAYLOAD | PIB_EXT_IMMDT)

/*
 * What each opcode carries: PIB_OP_VALID plus its extension headers
 * (enum pib_ext) and whether it has payload. Unknown opcodes are 0.
 */
static const unsigned short pib_opcode_rules[256] = {
	[PIB_OP_RC_SEND_FIRST] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_RC_SEND_MIDDLE] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_RC_SEND_LAST] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_RC_SEND_LAST_IMM] = PIB_OP_VALID | PIB_OP_IMM,
	[PIB_OP_RC_SEND_ONLY] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_RC_SEND_ONLY_IMM] = PIB_OP_VALID | PIB_OP_IMM,
	[PIB_OP_RC_WRITE_FIRST] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_RETH,
	[PIB_OP_RC_WRITE_MIDDLE] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_RC_WRITE_LAST] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_RC_WRITE_LAST_IMM] = PIB_OP_VALID | PIB_OP_IMM,
	[PIB_OP_RC_WRITE_ONLY] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_RETH,
	[PIB_OP_RC_WRITE_ONLY_IMM] = PIB_OP_VALID | PIB_OP_IMM | PIB_EXT_RETH,
	[PIB_OP_RC_READ_REQUEST] = PIB_OP_VALID | PIB_EXT_RETH,
	[PIB_OP_RC_READ_RESPONSE_FIRST] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_AETH,
	[PIB_OP_RC_READ_RESPONSE_MIDDLE] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_RC_READ_RESPONSE_LAST] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_AETH,
	[PIB_OP_RC_READ_RESPONSE_ONLY] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_AETH,
	[PIB_OP_RC_ACKNOWLEDGE] = PIB_OP_VALID | PIB_EXT_AETH,
	[PIB_OP_RC_ATOMIC_ACKNOWLEDGE] = PIB_OP_VALID | PIB_EXT_AETH |
					 PIB_EXT_ATOMICACKETH,
	[PIB_OP_RC_COMPARE_SWAP] = PIB_OP_VALID | PIB_EXT_ATOMICETH,
	[PIB_OP_RC_FETCH_ADD] = PIB_OP_VALID | PIB_EXT_ATOMICETH,
	[PIB_OP_RC_SEND_LAST_INV] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_IETH,
	[PIB_OP_RC_SEND_ONLY_INV] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_IETH,
	[PIB_OP_UC_SEND_FIRST] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_UC_SEND_MIDDLE] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_UC_SEND_LAST] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_UC_SEND_LAST_IMM] = PIB_OP_VALID | PIB_OP_IMM,
	[PIB_OP_UC_SEND_ONLY] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_UC_SEND_ONLY_IMM] = PIB_OP_VALID | PIB_OP_IMM,
	[PIB_OP_UC_WRITE_FIRST] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_RETH,
	[PIB_OP_UC_WRITE_MIDDLE] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_UC_WRITE_LAST] = PIB_OP_VALID | PIB_OP_P,
	[PIB_OP_UC_WRITE_LAST_IMM] = PIB_OP_VALID | PIB_OP_IMM,
	[PIB_OP_UC_WRITE_ONLY] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_RETH,
	[PIB_OP_UC_WRITE_ONLY_IMM] = PIB_OP_VALID | PIB_OP_IMM | PIB_EXT_RETH,
	[PIB_OP_UD_SEND_ONLY] = PIB_OP_VALID | PIB_OP_P | PIB_EXT_DETH,
	[PIB_OP_UD_SEND_ONLY_IMM] = PIB_OP_VALID | PIB_OP_IMM | PIB_EXT_DETH,
};

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
static const __u16 pib_vcrc_table[4][256] = {
	{
		0x0000, 0x1ba1, 0x3742, 0x2ce3, 0x6e84, 0x7525, 0x59c6, 0x4267,
		0xdd08, 0xc6a9, 0xea4a, 0xf1eb, 0xb38c, 0xa82d, 0x84ce, 0x9f6f,
		0x1a01, 0x01a0, 0x2d43, 0x36e2, 0x7485, 0x6f24, 0x43c7, 0x5866,
		0xc709, 0xdca8, 0xf04b, 0xebea, 0xa98d, 0xb22c, 0x9ecf, 0x856e,
		0x3402, 0x2fa3, 0x0340, 0x18e1, 0x5a86, 0x4127, 0x6dc4, 0x7665,
		0xe90a, 0xf2ab, 0xde48, 0xc5e9, 0x878e, 0x9c2f, 0xb0cc, 0xab6d,
		0x2e03, 0x35a2, 0x1941, 0x02e0, 0x4087, 0x5b26, 0x77c5, 0x6c64,
		0xf30b, 0xe8aa, 0xc449, 0xdfe8, 0x9d8f, 0x862e, 0xaacd, 0xb16c,
		0x6804, 0x73a5, 0x5f46, 0x44e7, 0x0680, 0x1d21, 0x31c2, 0x2a63,
		0xb50c, 0xaead, 0x824e, 0x99ef, 0xdb88, 0xc029, 0xecca, 0xf76b,
		0x7205, 0x69a4, 0x4547, 0x5ee6, 0x1c81, 0x0720, 0x2bc3, 0x3062,
		0xaf0d, 0xb4ac, 0x984f, 0x83ee, 0xc189, 0xda28, 0xf6cb, 0xed6a,
		0x5c06, 0x47a7, 0x6b44, 0x70e5, 0x3282, 0x2923, 0x05c0, 0x1e61,
		0x810e, 0x9aaf, 0xb64c, 0xaded, 0xef8a, 0xf42b, 0xd8c8, 0xc369,
		0x4607, 0x5da6, 0x7145, 0x6ae4, 0x2883, 0x3322, 0x1fc1, 0x0460,
		0x9b0f, 0x80ae, 0xac4d, 0xb7ec, 0xf58b, 0xee2a, 0xc2c9, 0xd968,
		0xd008, 0xcba9, 0xe74a, 0xfceb, 0xbe8c, 0xa52d, 0x89ce, 0x926f,
		0x0d00, 0x16a1, 0x3a42, 0x21e3, 0x6384, 0x7825, 0x54c6, 0x4f67,
		0xca09, 0xd1a8, 0xfd4b, 0xe6ea, 0xa48d, 0xbf2c, 0x93cf, 0x886e,
		0x1701, 0x0ca0, 0x2043, 0x3be2, 0x7985, 0x6224, 0x4ec7, 0x5566,
		0xe40a, 0xffab, 0xd348, 0xc8e9, 0x8a8e, 0x912f, 0xbdcc, 0xa66d,
		0x3902, 0x22a3, 0x0e40, 0x15e1, 0x5786, 0x4c27, 0x60c4, 0x7b65,
		0xfe0b, 0xe5aa, 0xc949, 0xd2e8, 0x908f, 0x8b2e, 0xa7cd, 0xbc6c,
		0x2303, 0x38a2, 0x1441, 0x0fe0, 0x4d87, 0x5626, 0x7ac5, 0x6164,
		0xb80c, 0xa3ad, 0x8f4e, 0x94ef, 0xd688, 0xcd29, 0xe1ca, 0xfa6b,
		0x6504, 0x7ea5, 0x5246, 0x49e7, 0x0b80, 0x1021, 0x3cc2, 0x2763,
		0xa20d, 0xb9ac, 0x954f, 0x8eee, 0xcc89, 0xd728, 0xfbcb, 0xe06a,
		0x7f05, 0x64a4, 0x4847, 0x53e6, 0x1181, 0x0a20, 0x26c3, 0x3d62,
		0x8c0e, 0x97af, 0xbb4c, 0xa0ed, 0xe28a, 0xf92b, 0xd5c8, 0xce69,
		0x5106, 0x4aa7, 0x6644, 0x7de5, 0x3f82, 0x2423, 0x08c0, 0x1361,
		0x960f, 0x8dae, 0xa14d, 0xbaec, 0xf88b, 0xe32a, 0xcfc9, 0xd468,
		0x4b07, 0x50a6, 0x7c45, 0x67e4, 0x2583, 0x3e22, 0x12c1, 0x0960,
	},
	{
		0x0000, 0xffb0, 0x5f71, 0xa0c1, 0xbee2, 0x4152, 0xe193, 0x1e23,
		0xddd5, 0x2265, 0x82a4, 0x7d14, 0x6337, 0x9c87, 0x3c46, 0xc3f6,
		0x1bbb, 0xe40b, 0x44ca, 0xbb7a, 0xa559, 0x5ae9, 0xfa28, 0x0598,
		0xc66e, 0x39de, 0x991f, 0x66af, 0x788c, 0x873c, 0x27fd, 0xd84d,
		0x3776, 0xc8c6, 0x6807, 0x97b7, 0x8994, 0x7624, 0xd6e5, 0x2955,
		0xeaa3, 0x1513, 0xb5d2, 0x4a62, 0x5441, 0xabf1, 0x0b30, 0xf480,
		0x2ccd, 0xd37d, 0x73bc, 0x8c0c, 0x922f, 0x6d9f, 0xcd5e, 0x32ee,
		0xf118, 0x0ea8, 0xae69, 0x51d9, 0x4ffa, 0xb04a, 0x108b, 0xef3b,
		0x6eec, 0x915c, 0x319d, 0xce2d, 0xd00e, 0x2fbe, 0x8f7f, 0x70cf,
		0xb339, 0x4c89, 0xec48, 0x13f8, 0x0ddb, 0xf26b, 0x52aa, 0xad1a,
		0x7557, 0x8ae7, 0x2a26, 0xd596, 0xcbb5, 0x3405, 0x94c4, 0x6b74,
		0xa882, 0x5732, 0xf7f3, 0x0843, 0x1660, 0xe9d0, 0x4911, 0xb6a1,
		0x599a, 0xa62a, 0x06eb, 0xf95b, 0xe778, 0x18c8, 0xb809, 0x47b9,
		0x844f, 0x7bff, 0xdb3e, 0x248e, 0x3aad, 0xc51d, 0x65dc, 0x9a6c,
		0x4221, 0xbd91, 0x1d50, 0xe2e0, 0xfcc3, 0x0373, 0xa3b2, 0x5c02,
		0x9ff4, 0x6044, 0xc085, 0x3f35, 0x2116, 0xdea6, 0x7e67, 0x81d7,
		0xddd8, 0x2268, 0x82a9, 0x7d19, 0x633a, 0x9c8a, 0x3c4b, 0xc3fb,
		0x000d, 0xffbd, 0x5f7c, 0xa0cc, 0xbeef, 0x415f, 0xe19e, 0x1e2e,
		0xc663, 0x39d3, 0x9912, 0x66a2, 0x7881, 0x8731, 0x27f0, 0xd840,
		0x1bb6, 0xe406, 0x44c7, 0xbb77, 0xa554, 0x5ae4, 0xfa25, 0x0595,
		0xeaae, 0x151e, 0xb5df, 0x4a6f, 0x544c, 0xabfc, 0x0b3d, 0xf48d,
		0x377b, 0xc8cb, 0x680a, 0x97ba, 0x8999, 0x7629, 0xd6e8, 0x2958,
		0xf115, 0x0ea5, 0xae64, 0x51d4, 0x4ff7, 0xb047, 0x1086, 0xef36,
		0x2cc0, 0xd370, 0x73b1, 0x8c01, 0x9222, 0x6d92, 0xcd53, 0x32e3,
		0xb334, 0x4c84, 0xec45, 0x13f5, 0x0dd6, 0xf266, 0x52a7, 0xad17,
		0x6ee1, 0x9151, 0x3190, 0xce20, 0xd003, 0x2fb3, 0x8f72, 0x70c2,
		0xa88f, 0x573f, 0xf7fe, 0x084e, 0x166d, 0xe9dd, 0x491c, 0xb6ac,
		0x755a, 0x8aea, 0x2a2b, 0xd59b, 0xcbb8, 0x3408, 0x94c9, 0x6b79,
		0x8442, 0x7bf2, 0xdb33, 0x2483, 0x3aa0, 0xc510, 0x65d1, 0x9a61,
		0x5997, 0xa627, 0x06e6, 0xf956, 0xe775, 0x18c5, 0xb804, 0x47b4,
		0x9ff9, 0x6049, 0xc088, 0x3f38, 0x211b, 0xdeab, 0x7e6a, 0x81da,
		0x422c, 0xbd9c, 0x1d5d, 0xe2ed, 0xfcce, 0x037e, 0xa3bf, 0x5c0f,
	},
	{
		0x0000, 0xfef4, 0x5df9, 0xa30d, 0xbbf2, 0x4506, 0xe60b, 0x18ff,
		0xd7f5, 0x2901, 0x8a0c, 0x74f8, 0x6c07, 0x92f3, 0x31fe, 0xcf0a,
		0x0ffb, 0xf10f, 0x5202, 0xacf6, 0xb409, 0x4afd, 0xe9f0, 0x1704,
		0xd80e, 0x26fa, 0x85f7, 0x7b03, 0x63fc, 0x9d08, 0x3e05, 0xc0f1,
		0x1ff6, 0xe102, 0x420f, 0xbcfb, 0xa404, 0x5af0, 0xf9fd, 0x0709,
		0xc803, 0x36f7, 0x95fa, 0x6b0e, 0x73f1, 0x8d05, 0x2e08, 0xd0fc,
		0x100d, 0xeef9, 0x4df4, 0xb300, 0xabff, 0x550b, 0xf606, 0x08f2,
		0xc7f8, 0x390c, 0x9a01, 0x64f5, 0x7c0a, 0x82fe, 0x21f3, 0xdf07,
		0x3fec, 0xc118, 0x6215, 0x9ce1, 0x841e, 0x7aea, 0xd9e7, 0x2713,
		0xe819, 0x16ed, 0xb5e0, 0x4b14, 0x53eb, 0xad1f, 0x0e12, 0xf0e6,
		0x3017, 0xcee3, 0x6dee, 0x931a, 0x8be5, 0x7511, 0xd61c, 0x28e8,
		0xe7e2, 0x1916, 0xba1b, 0x44ef, 0x5c10, 0xa2e4, 0x01e9, 0xff1d,
		0x201a, 0xdeee, 0x7de3, 0x8317, 0x9be8, 0x651c, 0xc611, 0x38e5,
		0xf7ef, 0x091b, 0xaa16, 0x54e2, 0x4c1d, 0xb2e9, 0x11e4, 0xef10,
		0x2fe1, 0xd115, 0x7218, 0x8cec, 0x9413, 0x6ae7, 0xc9ea, 0x371e,
		0xf814, 0x06e0, 0xa5ed, 0x5b19, 0x43e6, 0xbd12, 0x1e1f, 0xe0eb,
		0x7fd8, 0x812c, 0x2221, 0xdcd5, 0xc42a, 0x3ade, 0x99d3, 0x6727,
		0xa82d, 0x56d9, 0xf5d4, 0x0b20, 0x13df, 0xed2b, 0x4e26, 0xb0d2,
		0x7023, 0x8ed7, 0x2dda, 0xd32e, 0xcbd1, 0x3525, 0x9628, 0x68dc,
		0xa7d6, 0x5922, 0xfa2f, 0x04db, 0x1c24, 0xe2d0, 0x41dd, 0xbf29,
		0x602e, 0x9eda, 0x3dd7, 0xc323, 0xdbdc, 0x2528, 0x8625, 0x78d1,
		0xb7db, 0x492f, 0xea22, 0x14d6, 0x0c29, 0xf2dd, 0x51d0, 0xaf24,
		0x6fd5, 0x9121, 0x322c, 0xccd8, 0xd427, 0x2ad3, 0x89de, 0x772a,
		0xb820, 0x46d4, 0xe5d9, 0x1b2d, 0x03d2, 0xfd26, 0x5e2b, 0xa0df,
		0x4034, 0xbec0, 0x1dcd, 0xe339, 0xfbc6, 0x0532, 0xa63f, 0x58cb,
		0x97c1, 0x6935, 0xca38, 0x34cc, 0x2c33, 0xd2c7, 0x71ca, 0x8f3e,
		0x4fcf, 0xb13b, 0x1236, 0xecc2, 0xf43d, 0x0ac9, 0xa9c4, 0x5730,
		0x983a, 0x66ce, 0xc5c3, 0x3b37, 0x23c8, 0xdd3c, 0x7e31, 0x80c5,
		0x5fc2, 0xa136, 0x023b, 0xfccf, 0xe430, 0x1ac4, 0xb9c9, 0x473d,
		0x8837, 0x76c3, 0xd5ce, 0x2b3a, 0x33c5, 0xcd31, 0x6e3c, 0x90c8,
		0x5039, 0xaecd, 0x0dc0, 0xf334, 0xebcb, 0x153f, 0xb632, 0x48c6,
		0x87cc, 0x7938, 0xda35, 0x24c1, 0x3c3e, 0xc2ca, 0x61c7, 0x9f33,
	},
	{
		0x0000, 0xf875, 0x50fb, 0xa88e, 0xa1f6, 0x5983, 0xf10d, 0x0978,
		0xe3fd, 0x1b88, 0xb306, 0x4b73, 0x420b, 0xba7e, 0x12f0, 0xea85,
		0x67eb, 0x9f9e, 0x3710, 0xcf65, 0xc61d, 0x3e68, 0x96e6, 0x6e93,
		0x8416, 0x7c63, 0xd4ed, 0x2c98, 0x25e0, 0xdd95, 0x751b, 0x8d6e,
		0xcfd6, 0x37a3, 0x9f2d, 0x6758, 0x6e20, 0x9655, 0x3edb, 0xc6ae,
		0x2c2b, 0xd45e, 0x7cd0, 0x84a5, 0x8ddd, 0x75a8, 0xdd26, 0x2553,
		0xa83d, 0x5048, 0xf8c6, 0x00b3, 0x09cb, 0xf1be, 0x5930, 0xa145,
		0x4bc0, 0xb3b5, 0x1b3b, 0xe34e, 0xea36, 0x1243, 0xbacd, 0x42b8,
		0x3fbd, 0xc7c8, 0x6f46, 0x9733, 0x9e4b, 0x663e, 0xceb0, 0x36c5,
		0xdc40, 0x2435, 0x8cbb, 0x74ce, 0x7db6, 0x85c3, 0x2d4d, 0xd538,
		0x5856, 0xa023, 0x08ad, 0xf0d8, 0xf9a0, 0x01d5, 0xa95b, 0x512e,
		0xbbab, 0x43de, 0xeb50, 0x1325, 0x1a5d, 0xe228, 0x4aa6, 0xb2d3,
		0xf06b, 0x081e, 0xa090, 0x58e5, 0x519d, 0xa9e8, 0x0166, 0xf913,
		0x1396, 0xebe3, 0x436d, 0xbb18, 0xb260, 0x4a15, 0xe29b, 0x1aee,
		0x9780, 0x6ff5, 0xc77b, 0x3f0e, 0x3676, 0xce03, 0x668d, 0x9ef8,
		0x747d, 0x8c08, 0x2486, 0xdcf3, 0xd58b, 0x2dfe, 0x8570, 0x7d05,
		0x7f7a, 0x870f, 0x2f81, 0xd7f4, 0xde8c, 0x26f9, 0x8e77, 0x7602,
		0x9c87, 0x64f2, 0xcc7c, 0x3409, 0x3d71, 0xc504, 0x6d8a, 0x95ff,
		0x1891, 0xe0e4, 0x486a, 0xb01f, 0xb967, 0x4112, 0xe99c, 0x11e9,
		0xfb6c, 0x0319, 0xab97, 0x53e2, 0x5a9a, 0xa2ef, 0x0a61, 0xf214,
		0xb0ac, 0x48d9, 0xe057, 0x1822, 0x115a, 0xe92f, 0x41a1, 0xb9d4,
		0x5351, 0xab24, 0x03aa, 0xfbdf, 0xf2a7, 0x0ad2, 0xa25c, 0x5a29,
		0xd747, 0x2f32, 0x87bc, 0x7fc9, 0x76b1, 0x8ec4, 0x264a, 0xde3f,
		0x34ba, 0xcccf, 0x6441, 0x9c34, 0x954c, 0x6d39, 0xc5b7, 0x3dc2,
		0x40c7, 0xb8b2, 0x103c, 0xe849, 0xe131, 0x1944, 0xb1ca, 0x49bf,
		0xa33a, 0x5b4f, 0xf3c1, 0x0bb4, 0x02cc, 0xfab9, 0x5237, 0xaa42,
		0x272c, 0xdf59, 0x77d7, 0x8fa2, 0x86da, 0x7eaf, 0xd621, 0x2e54,
		0xc4d1, 0x3ca4, 0x942a, 0x6c5f, 0x6527, 0x9d52, 0x35dc, 0xcda9,
		0x8f11, 0x7764, 0xdfea, 0x279f, 0x2ee7, 0xd692, 0x7e1c, 0x8669,
		0x6cec, 0x9499, 0x3c17, 0xc462, 0xcd1a, 0x356f, 0x9de1, 0x6594,
		0xe8fa, 0x108f, 0xb801, 0x4074, 0x490c, 0xb179, 0x19f7, 0xe182,
		0x0b07, 0xf372, 0x5bfc, 0xa389, 0xaaf1, 0x5284, 0xfa0a, 0x027f,
	},
};

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

static inline void pib_put_le16(__u8 *p, __u16 v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline __u16 pib_get_le16(const __u8 *p)
{
	return (__u16)(p[0] | p[1] << 8);
}

static inline void pib_put_le32(__u8 *p, __u32 v)
{
	pib_put_le16(p, v);
	pib_put_le16(p + 2, v >> 16);
}

static inline __u32 pib_get_le32(const __u8 *p)
{
	return pib_get_le16(p) | (__u32)pib_get_le16(p + 2) << 16;
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

	pib_put16(pkt + 4, (end / 4) & 0x7ff);
	if (lnh != PIB_LNH_RAW)
		pib_put_le32(pkt + len, pib_icrc(pkt, pib_hdr_len(lnh), len));
	pib_put_le16(pkt + end, pib_vcrc(pkt, end));
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

static const char *const pib_pkt_err_names[PIB_PKT_NUM_ERRS] = {
	[PIB_PKT_OK] = "ok",
	[PIB_PKT_SHORT] = "short",
	[PIB_PKT_BAD_LEN] = "bad_len",
	[PIB_PKT_BAD_VCRC] = "bad_vcrc",
	[PIB_PKT_BAD_LVER] = "bad_lver",
	[PIB_PKT_BAD_LNH] = "bad_lnh",
	[PIB_PKT_BAD_GRH] = "bad_grh",
	[PIB_PKT_BAD_TVER] = "bad_tver",
	[PIB_PKT_BAD_OPCODE] = "bad_opcode",
	[PIB_PKT_BAD_PAYLOAD] = "bad_payload",
	[PIB_PKT_BAD_ICRC] = "bad_icrc",
	[PIB_PKT_BAD_VL15] = "bad_vl15",
	[PIB_PKT_BAD_SLID] = "bad_slid",
};

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

/*
 * Checks of an IBA packet's GRH and transport headers; @end is the ICRC's
 * offset; the ICRC too if @crcs.
 */
static inline enum pib_pkt_err pib_pkt_parse_iba(const __u8 *buf,
						 unsigned int end,
						 struct pib_pkt *pkt,
						 int crcs)
{
	unsigned int ext_len, rules;

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
	rules = pib_opcode_rules[pkt->bth.opcode];
	if (!(rules & PIB_OP_VALID))
		return PIB_PKT_BAD_OPCODE;
	pkt->ext = rules & ~PIB_OP_VALID;
	ext_len = pib_ext_len(rules);
	if (end < pkt->hdr_len + ext_len + pkt->bth.pad)
		return PIB_PKT_SHORT;
	pkt->payload_off = pkt->hdr_len + ext_len;
	pkt->payload_len = end - pkt->payload_off - pkt->bth.pad;
	if (!(rules & PIB_EXT_PAYLOAD) && (pkt->payload_len || pkt->bth.pad))
		return PIB_PKT_BAD_PAYLOAD;
	if (crcs && pib_icrc(buf, pkt->hdr_len, end) != pib_get_le32(buf + end))
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
		pkt->bth.opcode == PIB_OP_UD_SEND_ONLY && !pkt->bth.dest_qp &&
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
	if (crcs && pib_vcrc(buf, end) != pib_get_le16(buf + end))
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
	    pkt->bth.opcode != PIB_OP_UD_SEND_ONLY)
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
 * Subnet management. SMP attribute data is 64 bytes, big-endian; these
 * codecs turn PortInfo into host order and back, for the HCA's SMA (and the
 * switch's) and for the unit tests.
 */
#define PIB_SMP_DATA_LEN	64

/* IBA PortInfo.PortState (and enum ib_port_state). */
enum pib_port_state {
	PIB_PORT_NOP = 0,
	PIB_PORT_DOWN = 1,
	PIB_PORT_INIT = 2,
	PIB_PORT_ARMED = 3,
	PIB_PORT_ACTIVE = 4,
};

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
 * struct pib_portinfo - IBA PortInfo (14.2.5.6) in host order
 *
 * Field names follow the IBA; widths follow the wire format.
 */
struct pib_portinfo {
	__u64 mkey;
	__u64 gid_prefix;
	__u16 lid;
	__u16 sm_lid;
	__u32 cap_mask;
	__u16 diag_code;
	__u16 mkey_lease_period;
	__u8 local_port_num;
	__u8 link_width_enabled;
	__u8 link_width_supported;
	__u8 link_width_active;
	__u8 link_speed_supported;
	__u8 port_state;
	__u8 phys_state;
	__u8 link_down_default;
	__u8 mkey_protect;
	__u8 lmc;
	__u8 link_speed_active;
	__u8 link_speed_enabled;
	__u8 neighbor_mtu;
	__u8 sm_sl;
	__u8 vl_cap;
	__u8 init_type;
	__u8 vl_high_limit;
	__u8 vl_arb_high_cap;
	__u8 vl_arb_low_cap;
	__u8 init_type_reply;
	__u8 mtu_cap;
	__u8 vl_stall_count;
	__u8 hoq_life;
	__u8 operational_vls;
	__u8 enforcement;	/* PartitionEnforcement/FilterRaw bits */
	__u16 mkey_violations;
	__u16 pkey_violations;
	__u16 qkey_violations;
	__u8 guid_cap;
	__u8 client_reregister;
	__u8 subnet_timeout;
	__u8 resp_time_value;
	__u8 local_phy_errors;
	__u8 overrun_errors;
	__u16 max_credit_hint;
	__u32 link_roundtrip_latency;
	__u16 cap_mask2;
	__u8 link_speed_ext_active;
	__u8 link_speed_ext_supported;
	__u8 link_speed_ext_enabled;
};

static inline __u64 pib_get64(const __u8 *p)
{
	return (__u64)pib_get32(p) << 32 | pib_get32(p + 4);
}

static inline void pib_put64(__u8 *p, __u64 v)
{
	pib_put32(p, v >> 32);
	pib_put32(p + 4, v);
}

static inline void pib_portinfo_pack(__u8 *d, const struct pib_portinfo *pi)
{
	__builtin_memset(d, 0, PIB_SMP_DATA_LEN);
	pib_put64(d, pi->mkey);
	pib_put64(d + 8, pi->gid_prefix);
	pib_put16(d + 16, pi->lid);
	pib_put16(d + 18, pi->sm_lid);
	pib_put32(d + 20, pi->cap_mask);
	pib_put16(d + 24, pi->diag_code);
	pib_put16(d + 26, pi->mkey_lease_period);
	d[28] = pi->local_port_num;
	d[29] = pi->link_width_enabled;
	d[30] = pi->link_width_supported;
	d[31] = pi->link_width_active;
	d[32] = pi->link_speed_supported << 4 | (pi->port_state & 0xf);
	d[33] = pi->phys_state << 4 | (pi->link_down_default & 0xf);
	d[34] = pi->mkey_protect << 6 | (pi->lmc & 0x7);
	d[35] = pi->link_speed_active << 4 | (pi->link_speed_enabled & 0xf);
	d[36] = pi->neighbor_mtu << 4 | (pi->sm_sl & 0xf);
	d[37] = pi->vl_cap << 4 | (pi->init_type & 0xf);
	d[38] = pi->vl_high_limit;
	d[39] = pi->vl_arb_high_cap;
	d[40] = pi->vl_arb_low_cap;
	d[41] = pi->init_type_reply << 4 | (pi->mtu_cap & 0xf);
	d[42] = pi->vl_stall_count << 5 | (pi->hoq_life & 0x1f);
	d[43] = pi->operational_vls << 4 | (pi->enforcement & 0xf);
	pib_put16(d + 44, pi->mkey_violations);
	pib_put16(d + 46, pi->pkey_violations);
	pib_put16(d + 48, pi->qkey_violations);
	d[50] = pi->guid_cap;
	d[51] = !!pi->client_reregister << 7 | (pi->subnet_timeout & 0x1f);
	d[52] = pi->resp_time_value & 0x1f;
	d[53] = pi->local_phy_errors << 4 | (pi->overrun_errors & 0xf);
	pib_put16(d + 54, pi->max_credit_hint);
	pib_put24(d + 57, pi->link_roundtrip_latency);
	pib_put16(d + 60, pi->cap_mask2);
	d[62] = pi->link_speed_ext_active << 4 |
		(pi->link_speed_ext_supported & 0xf);
	d[63] = pi->link_speed_ext_enabled & 0x1f;
}

static inline void pib_portinfo_unpack(const __u8 *d, struct pib_portinfo *pi)
{
	pi->mkey = pib_get64(d);
	pi->gid_prefix = pib_get64(d + 8);
	pi->lid = pib_get16(d + 16);
	pi->sm_lid = pib_get16(d + 18);
	pi->cap_mask = pib_get32(d + 20);
	pi->diag_code = pib_get16(d + 24);
	pi->mkey_lease_period = pib_get16(d + 26);
	pi->local_port_num = d[28];
	pi->link_width_enabled = d[29];
	pi->link_width_supported = d[30];
	pi->link_width_active = d[31];
	pi->link_speed_supported = d[32] >> 4;
	pi->port_state = d[32] & 0xf;
	pi->phys_state = d[33] >> 4;
	pi->link_down_default = d[33] & 0xf;
	pi->mkey_protect = d[34] >> 6;
	pi->lmc = d[34] & 0x7;
	pi->link_speed_active = d[35] >> 4;
	pi->link_speed_enabled = d[35] & 0xf;
	pi->neighbor_mtu = d[36] >> 4;
	pi->sm_sl = d[36] & 0xf;
	pi->vl_cap = d[37] >> 4;
	pi->init_type = d[37] & 0xf;
	pi->vl_high_limit = d[38];
	pi->vl_arb_high_cap = d[39];
	pi->vl_arb_low_cap = d[40];
	pi->init_type_reply = d[41] >> 4;
	pi->mtu_cap = d[41] & 0xf;
	pi->vl_stall_count = d[42] >> 5;
	pi->hoq_life = d[42] & 0x1f;
	pi->operational_vls = d[43] >> 4;
	pi->enforcement = d[43] & 0xf;
	pi->mkey_violations = pib_get16(d + 44);
	pi->pkey_violations = pib_get16(d + 46);
	pi->qkey_violations = pib_get16(d + 48);
	pi->guid_cap = d[50];
	pi->client_reregister = d[51] >> 7;
	pi->subnet_timeout = d[51] & 0x1f;
	pi->resp_time_value = d[52] & 0x1f;
	pi->local_phy_errors = d[53] >> 4;
	pi->overrun_errors = d[53] & 0xf;
	pi->max_credit_hint = pib_get16(d + 54);
	pi->link_roundtrip_latency = pib_get24(d + 57);
	pi->cap_mask2 = pib_get16(d + 60);
	pi->link_speed_ext_active = d[62] >> 4;
	pi->link_speed_ext_supported = d[62] & 0xf;
	pi->link_speed_ext_enabled = d[63] & 0x1f;
}

/*
 * Logical port state changes an SM may ask for with PortInfo Set (IBA
 * 14.2.5.6, Table 148): NOP keeps the state, DOWN is always allowed, ARMED
 * only from INIT (or ARMED), ACTIVE only from ARMED (or ACTIVE). Indexed by
 * [current][requested].
 */
static const __u8 pib_port_state_ok[5][5] = {
	[PIB_PORT_DOWN] = { [PIB_PORT_NOP] = 1, [PIB_PORT_DOWN] = 1 },
	[PIB_PORT_INIT] = { [PIB_PORT_NOP] = 1, [PIB_PORT_DOWN] = 1,
			    [PIB_PORT_ARMED] = 1 },
	[PIB_PORT_ARMED] = { [PIB_PORT_NOP] = 1, [PIB_PORT_DOWN] = 1,
			     [PIB_PORT_ARMED] = 1, [PIB_PORT_ACTIVE] = 1 },
	[PIB_PORT_ACTIVE] = { [PIB_PORT_NOP] = 1, [PIB_PORT_DOWN] = 1,
			      [PIB_PORT_ACTIVE] = 1 },
};

/* May a port in state @cur be set to @req? Both are enum pib_port_state. */
static inline int pib_port_state_change_ok(unsigned int cur, unsigned int req)
{
	return cur <= PIB_PORT_ACTIVE && req <= PIB_PORT_ACTIVE &&
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
 * last PIB_PEER_TIMEOUT_MS has its link up.
 */
#define PIB_DEFAULT_UDP_PORT	4792
#define PIB_HELLO_MAGIC		0x50494248	/* "PIBH" */
#define PIB_HELLO_VERSION	1
#define PIB_HELLO_LEN		16
#define PIB_HELLO_PKT_LEN	(PIB_LRH_LEN + PIB_HELLO_LEN + PIB_VCRC_LEN)
#define PIB_HELLO_INTERVAL_MS	1000
#define PIB_PEER_TIMEOUT_MS	3500
/* Switch GUIDs use device index 0x80 of pib_guid_from_mac() (byte 0x7f). */
#define PIB_SWITCH_GUID_INDEX	0x80

/**
 * struct pib_hello - what a hello says
 * @version: PIB_HELLO_VERSION
 * @num_ports: the sender's switch ports, port 0 excluded
 * @switch_guid: the sender's switch node GUID
 */
struct pib_hello {
	__u8 version;
	__u8 num_ports;
	__u64 switch_guid;
};

/* Build a sealed hello packet at @p (PIB_HELLO_PKT_LEN bytes). */
static inline unsigned int pib_hello_build(__u8 *p, const struct pib_hello *h)
{
	struct pib_lrh lrh = { .lnh = PIB_LNH_RAW, .dlid = PIB_PERMISSIVE_LID };

	__builtin_memset(p, 0, PIB_HELLO_PKT_LEN);
	pib_lrh_pack(p, &lrh);
	pib_put32(p + PIB_LRH_LEN, PIB_HELLO_MAGIC);
	p[PIB_LRH_LEN + 4] = h->version;
	p[PIB_LRH_LEN + 5] = h->num_ports;
	pib_put64(p + PIB_LRH_LEN + 8, h->switch_guid);
	return pib_pkt_seal(p, PIB_LRH_LEN + PIB_HELLO_LEN);
}

/*
 * Read a hello from a parsed raw packet's payload; 0, or -1 if it is none.
 * A GUID of 0 names no node, so no switch says it.
 */
static inline int pib_hello_parse(const __u8 *payload, unsigned int len,
				  struct pib_hello *h)
{
	if (len != PIB_HELLO_LEN || pib_get32(payload) != PIB_HELLO_MAGIC ||
	    payload[4] != PIB_HELLO_VERSION || !pib_get64(payload + 8))
		return -1;
	h->version = payload[4];
	h->num_ports = payload[5];
	h->switch_guid = pib_get64(payload + 8);
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
	return !!(pib_get16(smp + PIB_SMP_STATUS) & PIB_SMP_DIRECTION);
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
	    pib_get16(smp + PIB_SMP_DR_SLID) != PIB_PERMISSIVE_LID ||
	    pib_get16(smp + PIB_SMP_DR_DLID) != PIB_PERMISSIVE_LID)
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

#endif /* PIB_HDR_H */
