/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pcapng blocks of a device's packet capture (pib_capture.c): a
 * Section Header Block, an Interface Description Block with nanosecond
 * timestamps, and an Enhanced Packet Block per packet with its direction.
 * Little-endian, as the byte-order magic says.
 *
 * The link type is LINKTYPE_WIRESHARK_UPPER_PDU: each packet starts with
 * a tag that names Wireshark's "infiniband" dissector, which then decodes
 * the packet from the first byte of its LRH to its VCRC (Wireshark has no
 * reader for LINKTYPE_INFINIBAND, 247). Pure code on byte buffers,
 * compiled by the unit tests too.
 */
#ifndef PIB_PCAPNG_H
#define PIB_PCAPNG_H

#ifdef __KERNEL__
#include <linux/string.h>
#include <linux/types.h>
#else
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#endif

#define PIB_PCAPNG_SHB			0x0a0d0d0aU
#define PIB_PCAPNG_IDB			0x00000001U
#define PIB_PCAPNG_EPB			0x00000006U
#define PIB_PCAPNG_MAGIC		0x1a2b3c4dU
#define PIB_PCAPNG_LINKTYPE_UPPER_PDU	252
/* The exported PDU tags before each packet (big-endian, as Wireshark's). */
#define PIB_PCAPNG_PDU_TAG_END		0
#define PIB_PCAPNG_PDU_TAG_DISSECTOR	12
#define PIB_PCAPNG_PDU_DISSECTOR	"infiniband"	/* 10 bytes, 2 of pad */
#define PIB_PCAPNG_PDU_PREFIX		(4 + 12 + 4)
#define PIB_PCAPNG_OPT_END		0
#define PIB_PCAPNG_OPT_IF_NAME		2
#define PIB_PCAPNG_OPT_IF_TSRESOL	9
#define PIB_PCAPNG_OPT_EPB_FLAGS	2
/* epb_flags' direction bits */
#define PIB_PCAPNG_INBOUND		1
#define PIB_PCAPNG_OUTBOUND		2

/* The longest interface name an IDB carries (IB_DEVICE_NAME_MAX). */
#define PIB_PCAPNG_NAME_MAX		64
/* Bytes of a Section Header Block and an Interface Description Block. */
#define PIB_PCAPNG_HDR_MAX		(28 + 16 + 4 + PIB_PCAPNG_NAME_MAX + 8 + 4 + 4)
/* Bytes of an EPB besides the tagged packet and its padding. */
#define PIB_PCAPNG_EPB_OVERHEAD		(28 + 8 + 4 + 4)
/* Bytes of an EPB's head: the block's fields and the packet's tags. */
#define PIB_PCAPNG_EPB_HEAD		(28 + PIB_PCAPNG_PDU_PREFIX)

static inline __u32 pib_pcapng_pad4(__u32 n)
{
	return (n + 3) & ~3U;
}

static inline void pib_pcapng_put16(__u8 *p, __u32 v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static inline void pib_pcapng_put32(__u8 *p, __u32 v)
{
	pib_pcapng_put16(p, v & 0xffff);
	pib_pcapng_put16(p + 2, v >> 16);
}

/* An option of @len bytes at @p, padded; returns its length. */
static inline __u32 pib_pcapng_opt(__u8 *p, __u16 code, const void *val,
				   __u16 len)
{
	__u32 n = 4 + pib_pcapng_pad4(len);

	memset(p, 0, n);
	pib_pcapng_put16(p, code);
	pib_pcapng_put16(p + 2, len);
	memcpy(p + 4, val, len);
	return n;
}

/*
 * pib_pcapng_header() - a file's first blocks: the SHB and the IDB of
 * interface 0, named @name (cut at PIB_PCAPNG_NAME_MAX bytes); @p has room
 * for PIB_PCAPNG_HDR_MAX bytes. Returns the bytes written.
 */
static inline __u32 pib_pcapng_header(__u8 *p, const char *name)
{
	__u8 tsresol = 9;	/* 10^-9 s */
	__u32 idb, name_len = 0;

	while (name_len < PIB_PCAPNG_NAME_MAX && name[name_len])
		name_len++;

	pib_pcapng_put32(p, PIB_PCAPNG_SHB);
	pib_pcapng_put32(p + 4, 28);
	pib_pcapng_put32(p + 8, PIB_PCAPNG_MAGIC);
	pib_pcapng_put16(p + 12, 1);		/* version 1.0 */
	pib_pcapng_put16(p + 14, 0);
	pib_pcapng_put32(p + 16, 0xffffffffU);	/* section length unknown */
	pib_pcapng_put32(p + 20, 0xffffffffU);
	pib_pcapng_put32(p + 24, 28);
	p += 28;
	idb = 16;
	pib_pcapng_put32(p, PIB_PCAPNG_IDB);
	pib_pcapng_put16(p + 8, PIB_PCAPNG_LINKTYPE_UPPER_PDU);
	pib_pcapng_put16(p + 10, 0);
	pib_pcapng_put32(p + 12, 0);		/* no snap length */
	idb += pib_pcapng_opt(p + idb, PIB_PCAPNG_OPT_IF_NAME, name, name_len);
	idb += pib_pcapng_opt(p + idb, PIB_PCAPNG_OPT_IF_TSRESOL, &tsresol, 1);
	pib_pcapng_put32(p + idb, PIB_PCAPNG_OPT_END);
	idb += 4 + 4;
	pib_pcapng_put32(p + 4, idb);
	pib_pcapng_put32(p + idb - 4, idb);
	return 28 + idb;
}

/* Bytes of the EPB of an IB packet of @len bytes. */
static inline __u32 pib_pcapng_epb_len(__u32 len)
{
	return PIB_PCAPNG_EPB_OVERHEAD +
	       pib_pcapng_pad4(PIB_PCAPNG_PDU_PREFIX + len);
}

/*
 * pib_pcapng_epb_head() - an EPB's fields before the IB packet, for a
 * packet of @len bytes at @ts_ns nanoseconds (interface 0): its block
 * fields and the tags that name the dissector, PIB_PCAPNG_EPB_HEAD bytes
 * at @p.
 */
static inline void pib_pcapng_epb_head(__u8 *p, __u64 ts_ns, __u32 len)
{
	static const char name[12] = PIB_PCAPNG_PDU_DISSECTOR;
	__u32 cap = PIB_PCAPNG_PDU_PREFIX + len;

	pib_pcapng_put32(p, PIB_PCAPNG_EPB);
	pib_pcapng_put32(p + 4, pib_pcapng_epb_len(len));
	pib_pcapng_put32(p + 8, 0);
	pib_pcapng_put32(p + 12, ts_ns >> 32);
	pib_pcapng_put32(p + 16, ts_ns & 0xffffffffU);
	pib_pcapng_put32(p + 20, cap);
	pib_pcapng_put32(p + 24, cap);
	p += 28;
	p[0] = 0;
	p[1] = PIB_PCAPNG_PDU_TAG_DISSECTOR;
	p[2] = 0;
	p[3] = sizeof(name);
	memcpy(p + 4, name, sizeof(name));
	memset(p + 4 + sizeof(name), 0, 4);	/* PIB_PCAPNG_PDU_TAG_END */
}

/*
 * pib_pcapng_epb_tail() - what follows an IB packet of @len bytes: its
 * padding, the direction (PIB_PCAPNG_INBOUND or _OUTBOUND) and the block's
 * length again. Returns the bytes written at @p (at most 3 + 16).
 */
static inline __u32 pib_pcapng_epb_tail(__u8 *p, __u32 len, __u32 dir)
{
	__u32 pad = pib_pcapng_pad4(len) - len, n;
	__u8 flags[4];

	memset(p, 0, pad);
	pib_pcapng_put32(flags, dir);
	n = pad + pib_pcapng_opt(p + pad, PIB_PCAPNG_OPT_EPB_FLAGS, flags, 4);
	pib_pcapng_put32(p + n, PIB_PCAPNG_OPT_END);
	pib_pcapng_put32(p + n + 4, pib_pcapng_epb_len(len));
	return n + 8;
}

#endif /* PIB_PCAPNG_H */
