/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * wire formats and the pure rules derived from them.
 *
 * This header is shared by the kernel module and the host-side unit tests,
 * so it only uses the fixed-width types of <linux/types.h> and no kernel
 * or libc helpers. Its tables are defined once, in pib_hdr.c, which
 * whatever includes this header links too.
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

/* The puts mask each byte, so that sparse sees no truncated constant. */
static inline void pib_put16(__u8 *p, __u16 v)
{
	p[0] = (v >> 8) & 0xff;
	p[1] = v & 0xff;
}

static inline void pib_put24(__u8 *p, __u32 v)
{
	p[0] = (v >> 16) & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = v & 0xff;
}

static inline void pib_put32(__u8 *p, __u32 v)
{
	p[0] = (v >> 24) & 0xff;
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
extern const unsigned short pib_opcode_rules[256];

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

static inline void pib_put_le16(__u8 *p, __u16 v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
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
 * @mkey: M_Key
 * @gid_prefix: GidPrefix
 * @lid: LID
 * @sm_lid: MasterSMLID
 * @cap_mask: CapabilityMask
 * @diag_code: DiagCode
 * @mkey_lease_period: M_KeyLeasePeriod
 * @local_port_num: LocalPortNum
 * @link_width_enabled: LinkWidthEnabled
 * @link_width_supported: LinkWidthSupported
 * @link_width_active: LinkWidthActive
 * @link_speed_supported: LinkSpeedSupported
 * @port_state: PortState (enum pib_port_state)
 * @phys_state: PortPhysicalState (enum pib_phys_state)
 * @link_down_default: LinkDownDefaultState
 * @mkey_protect: M_KeyProtectBits
 * @lmc: LMC
 * @link_speed_active: LinkSpeedActive
 * @link_speed_enabled: LinkSpeedEnabled
 * @neighbor_mtu: NeighborMTU (enum pib_ib_mtu)
 * @sm_sl: MasterSMSL
 * @vl_cap: VLCap
 * @init_type: InitType
 * @vl_high_limit: VLHighLimit
 * @vl_arb_high_cap: VLArbitrationHighCap
 * @vl_arb_low_cap: VLArbitrationLowCap
 * @init_type_reply: InitTypeReply
 * @mtu_cap: MTUCap (enum pib_ib_mtu)
 * @vl_stall_count: VLStallCount
 * @hoq_life: HOQLife
 * @operational_vls: OperationalVLs
 * @enforcement: PartitionEnforcementInbound/Outbound and
 *	FilterRawInbound/Outbound, one bit each
 * @mkey_violations: M_KeyViolations
 * @pkey_violations: P_KeyViolations
 * @qkey_violations: Q_KeyViolations
 * @guid_cap: GUIDCap
 * @client_reregister: ClientReregister
 * @subnet_timeout: SubnetTimeOut
 * @resp_time_value: RespTimeValue
 * @local_phy_errors: LocalPhyErrors
 * @overrun_errors: OverrunErrors
 * @max_credit_hint: MaxCreditHint
 * @link_roundtrip_latency: LinkRoundTripLatency
 * @cap_mask2: CapabilityMask2
 * @link_speed_ext_active: LinkSpeedExtActive
 * @link_speed_ext_supported: LinkSpeedExtSupported
 * @link_speed_ext_enabled: LinkSpeedExtEnabled
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
	__u8 enforcement;
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
extern const __u8 pib_port_state_ok[5][5];

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
 * last PIB_PEER_TIMEOUT_MS has its link up. The LAN is no IB link: it loses
 * datagrams, and a busy (or emulated) host sends its hellos late, seen up
 * to 3 s apart under load. A link that goes down drops all traffic through
 * it until the SM has made the port ACTIVE again, long enough for RC QPs
 * to exhaust their retries; so ten hellos must be missed in a row.
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
