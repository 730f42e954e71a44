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

#endif /* PIB_HDR_H */
