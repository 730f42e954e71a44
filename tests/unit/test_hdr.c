// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of pib_hdr.h: MTU, GUID and link rate rules. */
#include "pib_hdr.h"
#include "unit.h"

static void test_mtu_bytes(void)
{
	CHECK_EQ(pib_ib_mtu_bytes(IB_MTU_256), 256);
	CHECK_EQ(pib_ib_mtu_bytes(IB_MTU_1024), 1024);
	CHECK_EQ(pib_ib_mtu_bytes(IB_MTU_4096), 4096);
	CHECK_EQ(pib_ib_mtu_bytes(0), 0);
	CHECK_EQ(pib_ib_mtu_bytes((enum ib_mtu)6), 0);
}

static void test_mtu_for_netdev(void)
{
	unsigned int min = 256 + PIB_IB_MAX_FRAMING + PIB_UDP_IP_OVERHEAD;
	unsigned int m;

	/* The brief's examples. */
	CHECK_EQ(pib_ib_mtu_for_netdev(1500), IB_MTU_1024);
	CHECK_EQ(pib_ib_mtu_for_netdev(9000), IB_MTU_4096);
	CHECK_EQ(pib_ib_mtu_for_netdev(65536), IB_MTU_4096);
	/* The smallest netdev that can carry IB, and one byte less. */
	CHECK_EQ(pib_ib_mtu_for_netdev(min), IB_MTU_256);
	CHECK_EQ(pib_ib_mtu_for_netdev(min - 1), 0);
	CHECK_EQ(pib_ib_mtu_for_netdev(0), 0);
	CHECK_EQ(pib_ib_mtu_for_netdev(68), 0);
	/* Every chosen MTU fits with its framing; the next one up does not. */
	for (m = min; m <= 9000; m++) {
		enum ib_mtu mtu = pib_ib_mtu_for_netdev(m);
		unsigned int need = pib_ib_mtu_bytes(mtu) + PIB_IB_MAX_FRAMING +
				    PIB_UDP_IP_OVERHEAD;

		if (need > m || (mtu < IB_MTU_4096 &&
				 need + pib_ib_mtu_bytes(mtu) <= m)) {
			CHECK(!"MTU rule broken");
			fprintf(stderr, "  netdev MTU %u -> IB MTU code %d\n", m, mtu);
			break;
		}
	}
}

static void test_guid(void)
{
	const __u8 mac[6] = { 0x52, 0x54, 0x00, 0x99, 0x00, 0x01 };
	const __u8 zero[6] = { 0 };
	const __u8 local[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };
	unsigned int i, j;

	/* Modified EUI-64: U/L bit flipped, FF:FE inserted. */
	CHECK_EQ(pib_guid_from_mac(mac, 0), 0x505400fffe990001ULL);
	CHECK_EQ(pib_guid_from_mac(mac, 1), 0x505400fefe990001ULL);
	CHECK_EQ(pib_guid_from_mac(zero, 0), 0x020000fffe000000ULL);
	CHECK_EQ(pib_guid_from_mac(local, 0), 0x00aabbfffeccddeeULL);
	/* Stable: the same inputs give the same GUID. */
	CHECK_EQ(pib_guid_from_mac(mac, 5), pib_guid_from_mac(mac, 5));
	/* Distinct for every device index on one netdev. */
	for (i = 0; i < PIB_MAX_DEVS_PER_NETDEV; i++)
		for (j = i + 1; j < PIB_MAX_DEVS_PER_NETDEV; j++)
			if (pib_guid_from_mac(mac, i) == pib_guid_from_mac(mac, j))
				CHECK(!"two devices share a GUID");
}

static void test_rates(void)
{
	const struct pib_ib_rate *r;
	unsigned int i;

	r = pib_ib_rate_for_mbps(0);
	CHECK_EQ(r->mbps, PIB_DEFAULT_MBPS);
	r = pib_ib_rate_for_mbps(100000);
	CHECK_EQ(r->width, PIB_IB_WIDTH_4X);
	CHECK_EQ(r->speed, PIB_IB_SPEED_EDR);
	r = pib_ib_rate_for_mbps(25000);
	CHECK_EQ(r->width, PIB_IB_WIDTH_1X);
	CHECK_EQ(r->speed, PIB_IB_SPEED_EDR);
	r = pib_ib_rate_for_mbps(1000);	/* slower than any IB link */
	CHECK_EQ(r->mbps, 2500);
	r = pib_ib_rate_for_mbps(0xffffffffu);
	CHECK_EQ(r->speed, PIB_IB_SPEED_NDR);
	/* The table runs fastest first, and every rate is valid. */
	for (i = 0; i < PIB_IB_NUM_RATES; i++) {
		CHECK(pib_ib_rates[i].width && pib_ib_rates[i].speed);
		if (i)
			CHECK(pib_ib_rates[i].mbps < pib_ib_rates[i - 1].mbps);
	}
}

/*
 * The RC requester's response window: PSNs sent and not acknowledged,
 * [oldest unacknowledged, next new PSN), across the 24-bit wrap.
 */
static void test_psn_window(void)
{
	static const __u32 firsts[] = { 0, 0x100, 0x7fffff, 0xffffc0, 0xffffff };
	__u32 first, end, d;
	unsigned int i;

	for (i = 0; i < sizeof(firsts) / sizeof(firsts[0]); i++) {
		first = firsts[i];
		end = (first + 64) & PIB_PSN_MASK;
		CHECK(pib_psn_in_window(first, first, end));
		CHECK(pib_psn_in_window((first + 63) & PIB_PSN_MASK, first, end));
		CHECK(!pib_psn_in_window(end, first, end));
		CHECK(!pib_psn_in_window((first - 1) & PIB_PSN_MASK, first, end));
		/* What a forger sends: 100 .. 2^20 ahead, and far behind. */
		for (d = 100; d <= 1u << 20; d += 4093)
			CHECK(!pib_psn_in_window((first + d) & PIB_PSN_MASK, first, end));
		CHECK(!pib_psn_in_window((first + (1u << 23)) & PIB_PSN_MASK, first, end));
		CHECK(!pib_psn_in_window((first - (1u << 22)) & PIB_PSN_MASK, first, end));
		/* Nothing outstanding: nothing is taken. */
		CHECK(!pib_psn_in_window(first, first, first));
		CHECK(!pib_psn_in_window((first + 1) & PIB_PSN_MASK, first, first));
	}
	CHECK_EQ(pib_psn_diff(0, 0xffffff), 1);
	CHECK_EQ(pib_psn_diff(0xffffff, 0), -1);
	CHECK_EQ(pib_psn_diff(0x400000, 0), 0x400000);
}

/* P_Key membership (IBA 10.9.3): full talks to all, limited not to limited. */
static void test_pkey_match(void)
{
	CHECK(pib_pkey_match(0xffff, 0xffff));
	CHECK(pib_pkey_match(0xffff, 0x7fff));
	CHECK(pib_pkey_match(0x7fff, 0xffff));
	CHECK(!pib_pkey_match(0x7fff, 0x7fff));
	CHECK(pib_pkey_match(0x8001, 0x0001));
	CHECK(!pib_pkey_match(0x8001, 0x8002));
	CHECK(!pib_pkey_match(0x8001, 0x0002));
	/* The invalid P_Key (0 or 0x8000) matches nothing. */
	CHECK(!pib_pkey_match(0x8000, 0x8000));
	CHECK(!pib_pkey_match(0x0000, 0x8000));
}

int main(void)
{
	test_pkey_match();
	test_psn_window();
	test_mtu_bytes();
	test_mtu_for_netdev();
	test_guid();
	test_rates();
	return unit_done("test_hdr");
}
