// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the SMA's pure rules in pib_hdr.h: PortInfo's layout and
 * accessors, port states and the M_Key check.
 */
#include <string.h>

#include "pib_hdr.h"
#include "unit.h"

/*
 * PortInfo with known values in every field the SMAs fill, through the
 * kernel's struct ib_port_info and pib's accessors: each byte must come out
 * where IBA 14.2.5.6 (Table 148) puts it. Distinct values in the two halves
 * of each packed byte catch an accessor on the wrong byte or nibble.
 */
static void test_portinfo_layout(void)
{
	static const __u8 want[PIB_SMP_DATA_LEN] = {
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* M_Key */
		0xfe, 0x80, 0, 0, 0, 0, 0x12, 0x34,		/* GidPrefix */
		0x12, 0x34, 0x00, 0x01,		/* LID, MasterSMLID */
		0x02, 0x00, 0x08, 0x02,		/* CapabilityMask */
		0xab, 0xcd, 0x01, 0x2c,		/* DiagCode, M_KeyLeasePeriod */
		0x01, 0x03, 0x07, 0x02,		/* LocalPortNum, LinkWidth* */
		0x14,	/* LinkSpeedSupported 1, PortState 4 */
		0x52,	/* PortPhysicalState 5, LinkDownDefaultState 2 */
		0x83,	/* M_KeyProtectBits 2, LMC 3 */
		0x21,	/* LinkSpeedActive 2, LinkSpeedEnabled 1 */
		0x35,	/* NeighborMTU 3, MasterSMSL 5 */
		0x10,	/* VLCap 1, InitType 0 */
		0x00, 0x08, 0x08,	/* VLHighLimit, VLArbitration*Cap */
		0x05,	/* InitTypeReply 0, MTUCap 5 */
		0x00,	/* VLStallCount, HOQLife */
		0x10,	/* OperationalVLs 1, enforcement 0 */
		0x00, 0x07, 0x00, 0x00, 0x00, 0x00,	/* *_KeyViolations */
		0x01,	/* GUIDCap */
		0x92,	/* ClientReregister 1, SubnetTimeOut 18 */
		0x08,	/* RespTimeValue 8 */
		0x00, 0x00, 0x00,	/* errors, MaxCreditHint */
		0x00, 0xab, 0xcd, 0xef,	/* LinkRoundTripLatency */
		0x00, 0x00,		/* CapabilityMask2 */
		0x24,	/* LinkSpeedExtActive 2, LinkSpeedExtSupported 4 */
		0x11,	/* LinkSpeedExtEnabled 17 */
	};
	union pib_port_info u;
	struct ib_port_info *pi = &u.pi;

	memset(&u, 0, sizeof(u));
	put_unaligned_be64(0x1122334455667788ULL, &pi->mkey);
	put_unaligned_be64(0xfe80000000001234ULL, &pi->gid_prefix);
	put_unaligned_be16(0x1234, &pi->lid);
	put_unaligned_be16(1, &pi->sm_lid);
	put_unaligned_be32(0x02000802, &pi->cap_mask);
	put_unaligned_be16(0xabcd, &pi->diag_code);
	put_unaligned_be16(300, &pi->mkey_lease_period);
	pi->local_port_num = 1;
	pi->link_width_enabled = 3;
	pi->link_width_supported = 7;
	pi->link_width_active = 2;
	pib_pi_set_link_speed_supported(pi, 1);
	pib_pi_set_port_state(pi, IB_PORT_ACTIVE);
	pib_pi_set_phys_state(pi, PIB_PHYS_LINK_UP);
	pib_pi_set_link_down_default(pi, PIB_PHYS_POLLING);
	pib_pi_set_mkey_protect(pi, 2);
	pib_pi_set_lmc(pi, 3);
	pib_pi_set_link_speed_active(pi, 2);
	pib_pi_set_link_speed_enabled(pi, 1);
	pib_pi_set_neighbor_mtu(pi, IB_MTU_1024);
	pib_pi_set_sm_sl(pi, 5);
	pib_pi_set_vl_cap(pi, 1);
	pi->vl_arb_high_cap = 8;
	pi->vl_arb_low_cap = 8;
	pib_pi_set_mtu_cap(pi, IB_MTU_4096);
	pib_pi_set_operational_vls(pi, 1);
	put_unaligned_be16(7, &pi->mkey_violations);
	pi->guid_cap = 1;
	pib_pi_set_client_reregister(pi, 1);
	pib_pi_set_subnet_timeout(pi, 18);
	pib_pi_set_resp_time_value(pi, 8);
	put_unaligned_be24(0xabcdef, pi->link_roundtrip_latency);
	pib_pi_set_link_speed_ext_active(pi, 2);
	pib_pi_set_link_speed_ext_supported(pi, 4);
	pib_pi_set_link_speed_ext_enabled(pi, 17);
	for (unsigned int i = 0; i < PIB_SMP_DATA_LEN; i++)
		if (u.raw[i] != want[i])
			fprintf(stderr, "PortInfo byte %u: 0x%02x, want 0x%02x\n",
				i, u.raw[i], want[i]);
	CHECK(!memcmp(u.raw, want, sizeof(want)));

	/* And back: the getters read what the setters wrote. */
	CHECK_EQ(pib_pi_port_state(pi), IB_PORT_ACTIVE);
	CHECK_EQ(pib_pi_phys_state(pi), PIB_PHYS_LINK_UP);
	CHECK_EQ(pib_pi_lmc(pi), 3);
	CHECK_EQ(pib_pi_mkey_protect(pi), 2);
	CHECK_EQ(pib_pi_neighbor_mtu(pi), IB_MTU_1024);
	CHECK_EQ(pib_pi_sm_sl(pi), 5);
	CHECK_EQ(pib_pi_client_reregister(pi), 1);
	CHECK_EQ(pib_pi_subnet_timeout(pi), 18);
	CHECK_EQ(pib_pi_link_speed_ext_enabled(pi), 17);
}

/* One packed PortInfo sub-field: its accessors, byte and bits (Table 148). */
struct pi_field {
	const char *name;
	__u8 (*get)(const struct ib_port_info *pi);
	void (*set)(struct ib_port_info *pi, __u8 v);
	unsigned int byte;
	__u8 bits;
};

#define PI_FIELD(name, byte, bits) \
	{ #name, pib_pi_##name, pib_pi_set_##name, byte, bits }

static const struct pi_field pi_fields[] = {
	PI_FIELD(link_speed_supported, 32, 0xf0),
	PI_FIELD(port_state, 32, 0x0f),
	PI_FIELD(phys_state, 33, 0xf0),
	PI_FIELD(link_down_default, 33, 0x0f),
	PI_FIELD(mkey_protect, 34, 0xc0),
	PI_FIELD(lmc, 34, 0x07),
	PI_FIELD(link_speed_active, 35, 0xf0),
	PI_FIELD(link_speed_enabled, 35, 0x0f),
	PI_FIELD(neighbor_mtu, 36, 0xf0),
	PI_FIELD(sm_sl, 36, 0x0f),
	PI_FIELD(vl_cap, 37, 0xf0),
	PI_FIELD(mtu_cap, 41, 0x0f),
	PI_FIELD(operational_vls, 43, 0xf0),
	PI_FIELD(client_reregister, 51, 0x80),
	PI_FIELD(subnet_timeout, 51, 0x1f),
	PI_FIELD(resp_time_value, 52, 0x1f),
	PI_FIELD(link_speed_ext_active, 62, 0xf0),
	PI_FIELD(link_speed_ext_supported, 62, 0x0f),
	PI_FIELD(link_speed_ext_enabled, 63, 0x1f),
};

/* Bytes of @u that differ from @fill, but for @skip. */
static unsigned int pi_changed(const union pib_port_info *u, __u8 fill,
			       unsigned int skip)
{
	unsigned int i, n = 0;

	for (i = 0; i < PIB_SMP_DATA_LEN; i++)
		n += i != skip && u->raw[i] != fill;
	return n;
}

/*
 * Each accessor reaches exactly its own bits: setting all ones into zeros
 * and zero into all ones changes those bits and nothing else, and a value
 * wider than the field is cut to it, as the old host-order codec cut it.
 */
static void test_portinfo_fields(void)
{
	for (unsigned int f = 0; f < sizeof(pi_fields) / sizeof(pi_fields[0]); f++) {
		const struct pi_field *pf = &pi_fields[f];
		unsigned int shift = __builtin_ctz(pf->bits);
		union pib_port_info u;

		memset(&u, 0, sizeof(u));
		pf->set(&u.pi, 0xff);
		if (u.raw[pf->byte] != pf->bits || pi_changed(&u, 0, pf->byte))
			fprintf(stderr, "PortInfo field %s\n", pf->name);
		CHECK_EQ(u.raw[pf->byte], pf->bits);
		CHECK_EQ(pi_changed(&u, 0, pf->byte), 0);
		CHECK_EQ(pf->get(&u.pi), pf->bits >> shift);

		memset(&u, 0xff, sizeof(u));
		CHECK_EQ(pf->get(&u.pi), pf->bits >> shift);
		pf->set(&u.pi, 0);
		CHECK_EQ(u.raw[pf->byte], (__u8)~pf->bits);
		CHECK_EQ(pi_changed(&u, 0xff, pf->byte), 0);
		CHECK_EQ(pf->get(&u.pi), 0);

		/* One more than the field holds wraps to 0, 1 to 1. */
		pf->set(&u.pi, (pf->bits >> shift) + 1);
		CHECK_EQ(pf->get(&u.pi), 0);
		pf->set(&u.pi, 1);
		CHECK_EQ(u.raw[pf->byte] & pf->bits, 1u << shift);
	}
}

static void test_port_states(void)
{
	/* NOP and DOWN always; ARMED from INIT; ACTIVE from ARMED. */
	CHECK(pib_port_state_change_ok(IB_PORT_INIT, IB_PORT_ARMED));
	CHECK(pib_port_state_change_ok(IB_PORT_ARMED, IB_PORT_ACTIVE));
	CHECK(pib_port_state_change_ok(IB_PORT_ACTIVE, IB_PORT_DOWN));
	CHECK(pib_port_state_change_ok(IB_PORT_DOWN, IB_PORT_NOP));
	CHECK(!pib_port_state_change_ok(IB_PORT_INIT, IB_PORT_ACTIVE));
	CHECK(!pib_port_state_change_ok(IB_PORT_DOWN, IB_PORT_ARMED));
	CHECK(!pib_port_state_change_ok(IB_PORT_ACTIVE, IB_PORT_ARMED));
	CHECK(!pib_port_state_change_ok(IB_PORT_INIT, IB_PORT_INIT));
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
	test_portinfo_fields();
	test_port_states();
	return unit_done("test_sma");
}
