// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of the SMA's pure rules in pib_hdr.h: PortInfo and port states. */
#include <string.h>

#include "pib_hdr.h"
#include "unit.h"

static void test_portinfo_layout(void)
{
	struct pib_portinfo pi = {
		.mkey = 0x1122334455667788ULL, .gid_prefix = 0xfe80000000000000ULL,
		.lid = 0x1234, .sm_lid = 0x0001, .cap_mask = 0x02000802,
		.local_port_num = 1, .link_width_active = 2,
		.link_speed_supported = 1, .port_state = PIB_PORT_ACTIVE,
		.phys_state = PIB_PHYS_LINK_UP, .link_down_default = 2,
		.mkey_protect = 2, .lmc = 3, .neighbor_mtu = 3, .sm_sl = 5,
		.vl_cap = 1, .mtu_cap = 5, .operational_vls = 1,
		.mkey_violations = 7, .guid_cap = 1, .client_reregister = 1,
		.subnet_timeout = 18, .resp_time_value = 8,
		.link_roundtrip_latency = 0xabcdef, .link_speed_ext_active = 2,
	};
	struct pib_portinfo back;
	__u8 d[PIB_SMP_DATA_LEN];

	pib_portinfo_pack(d, &pi);
	/* Offsets and bit positions from IBA 14.2.5.6. */
	CHECK_EQ(d[0], 0x11);
	CHECK_EQ(d[7], 0x88);
	CHECK_EQ(d[8], 0xfe);
	CHECK_EQ(pib_get16(d + 16), 0x1234);
	CHECK_EQ(pib_get16(d + 18), 1);
	CHECK_EQ(pib_get32(d + 20), 0x02000802);
	CHECK_EQ(d[28], 1);
	CHECK_EQ(d[32], 0x14);		/* LinkSpeedSupported 1, PortState 4 */
	CHECK_EQ(d[33], 0x52);		/* PhysState 5, LinkDownDefault 2 */
	CHECK_EQ(d[34], 0x83);		/* M_KeyProtect 2, LMC 3 */
	CHECK_EQ(d[36], 0x35);		/* NeighborMTU 3, MasterSMSL 5 */
	CHECK_EQ(d[41], 0x05);		/* MTUCap 5 */
	CHECK_EQ(d[43], 0x10);		/* OperationalVLs 1 */
	CHECK_EQ(pib_get16(d + 44), 7);
	CHECK_EQ(d[51], 0x92);		/* ClientReregister, SubnetTimeOut 18 */
	CHECK_EQ(d[52], 8);
	CHECK_EQ(pib_get24(d + 57), 0xabcdef);
	CHECK_EQ(d[62], 0x20);

	pib_portinfo_unpack(d, &back);
	CHECK_EQ(back.mkey, pi.mkey);
	CHECK_EQ(back.lid, pi.lid);
	CHECK_EQ(back.port_state, pi.port_state);
	CHECK_EQ(back.mkey_protect, pi.mkey_protect);
	CHECK_EQ(back.client_reregister, 1);
	CHECK_EQ(back.link_roundtrip_latency, 0xabcdef);

	/*
	 * Every byte pattern survives unpack, pack, unpack, pack: the second
	 * packing equals the first (reserved bits come out zero).
	 */
	for (int v = 0; v < 256; v++) {
		__u8 in[PIB_SMP_DATA_LEN], out1[PIB_SMP_DATA_LEN];
		__u8 out2[PIB_SMP_DATA_LEN];

		memset(in, v, sizeof(in));
		pib_portinfo_unpack(in, &back);
		pib_portinfo_pack(out1, &back);
		pib_portinfo_unpack(out1, &back);
		pib_portinfo_pack(out2, &back);
		CHECK(!memcmp(out1, out2, sizeof(out1)));
		CHECK_EQ(out1[16], v);	/* LID survives */
	}
}

static void test_port_states(void)
{
	/* NOP and DOWN always; ARMED from INIT; ACTIVE from ARMED. */
	CHECK(pib_port_state_change_ok(PIB_PORT_INIT, PIB_PORT_ARMED));
	CHECK(pib_port_state_change_ok(PIB_PORT_ARMED, PIB_PORT_ACTIVE));
	CHECK(pib_port_state_change_ok(PIB_PORT_ACTIVE, PIB_PORT_DOWN));
	CHECK(pib_port_state_change_ok(PIB_PORT_DOWN, PIB_PORT_NOP));
	CHECK(!pib_port_state_change_ok(PIB_PORT_INIT, PIB_PORT_ACTIVE));
	CHECK(!pib_port_state_change_ok(PIB_PORT_DOWN, PIB_PORT_ARMED));
	CHECK(!pib_port_state_change_ok(PIB_PORT_ACTIVE, PIB_PORT_ARMED));
	CHECK(!pib_port_state_change_ok(PIB_PORT_INIT, PIB_PORT_INIT));
	/* Out-of-range states (4-bit fields reach 15) are refused. */
	for (unsigned int c = 0; c < 16; c++)
		for (unsigned int r = 5; r < 16; r++)
			CHECK(!pib_port_state_change_ok(c, r) && !pib_port_state_change_ok(r, 1));
}

/* The M_Key check (IBA 14.2.4), by protection level and method. */
static void test_mkey(void)
{
	const __u64 key = 0xc0ffee42, wrong = 0;
	const __u8 get = 0x01, set = 0x02, repress = 0x07;
	__u8 level;

	/* No M_Key: nothing is protected. */
	CHECK_EQ(pib_mkey_check(0, 3, 0x1234, set), PIB_MKEY_OK);
	for (level = 0; level < 4; level++) {
		/* The right key: everything goes. */
		CHECK_EQ(pib_mkey_check(key, level, key, get), PIB_MKEY_OK);
		CHECK_EQ(pib_mkey_check(key, level, key, set), PIB_MKEY_OK);
		CHECK_EQ(pib_mkey_check(key, level, key, repress), PIB_MKEY_OK);
		/* Another key: Set and TrapRepress never. */
		CHECK_EQ(pib_mkey_check(key, level, wrong, set), PIB_MKEY_DROP);
		CHECK_EQ(pib_mkey_check(key, level, wrong, repress), PIB_MKEY_DROP);
	}
	/* Get with another key: level 0 answers, 1 hides the key, 2-3 drop. */
	CHECK_EQ(pib_mkey_check(key, 0, wrong, get), PIB_MKEY_OK);
	CHECK_EQ(pib_mkey_check(key, 1, wrong, get), PIB_MKEY_HIDE);
	CHECK_EQ(pib_mkey_check(key, 2, wrong, get), PIB_MKEY_DROP);
	CHECK_EQ(pib_mkey_check(key, 3, wrong, get), PIB_MKEY_DROP);
}

int main(void)
{
	test_mkey();
	test_portinfo_layout();
	test_port_states();
	return unit_done("test_sma");
}
