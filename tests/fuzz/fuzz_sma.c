// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_sma: MADs through the HCA's process_mad (pib_sma.c, and pib_pma.c
 * behind it), one after another on one device, so that Sets change what
 * later MADs see. Input: records of a flags byte (bit 0:
 * IB_MAD_IGNORE_MKEY; bit 7: offer only flags & 0x7f bytes of room for
 * the reply) and a 256-byte MAD. The answer to each is a well-formed
 * reply or none, and the port stays within the IBA's ranges.
 */
#include "fuzz.h"

static void check_port(struct pib_dev *dev)
{
	struct pib_port *port = &dev->port;
	unsigned int i;

	FUZZ_CHECK(!kshim_locks_held && !kshim_atomic);
	FUZZ_CHECK(port->state >= IB_PORT_DOWN && port->state <= IB_PORT_ACTIVE);
	FUZZ_CHECK(port->phys_state == IB_PORT_PHYS_STATE_LINK_UP ||
		   port->phys_state == IB_PORT_PHYS_STATE_DISABLED);
	FUZZ_CHECK(port->lid < PIB_LID_MCAST && port->sm_lid < PIB_LID_MCAST);
	FUZZ_CHECK(port->lmc <= 7 && port->mkey_protect <= 3);
	FUZZ_CHECK(port->active_mtu >= IB_MTU_256 &&
		   port->active_mtu <= port->max_mtu);
	FUZZ_CHECK(port->subnet_timeout <= 31 && port->sm_sl <= 15);
	for (i = 0; i < ARRAY_SIZE(port->sl2vl); i++)
		FUZZ_CHECK(port->sl2vl[i] == 0 || port->sl2vl[i] == PIB_VL15);
	/* GUIDInfo entry 0 is the port GUID, whatever the SM sets. */
	FUZZ_CHECK(!port->guids[0] && pib_port_guid(dev, 0) == dev->guid);
}

static void check_reply(const struct ib_mad *in, const struct ib_mad *out,
			int ret, size_t out_size)
{
	FUZZ_CHECK(ret & IB_MAD_RESULT_SUCCESS);
	FUZZ_CHECK(!(ret & ~(IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY |
			     IB_MAD_RESULT_CONSUMED)));
	if (!(ret & IB_MAD_RESULT_REPLY))
		return;
	FUZZ_CHECK(out_size == sizeof(*out));
	FUZZ_CHECK(out->mad_hdr.method == IB_MGMT_METHOD_GET_RESP);
	FUZZ_CHECK(out->mad_hdr.mgmt_class == in->mad_hdr.mgmt_class);
	FUZZ_CHECK(out->mad_hdr.tid == in->mad_hdr.tid);
	FUZZ_CHECK(out->mad_hdr.attr_id == in->mad_hdr.attr_id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct pib_dev *dev;
	unsigned int n;

	fuzz_world_init(1, false);
	dev = fuzz_world.dev[0];
	pib_port_link_update(dev, false);
	for (n = 0; in.n && n < 64; n++) {
		u8 flags = fuzz_u8(&in);
		struct ib_mad *mad = malloc(sizeof(*mad));
		struct ib_mad *out = malloc(sizeof(*out));
		size_t out_size = flags & 0x80 ? flags & 0x7f : sizeof(*out);
		u16 pkey_index = 0;
		int ret;

		fuzz_bytes(&in, mad, sizeof(*mad));
		memset(out, 0xa5, sizeof(*out));
		ret = pib_process_mad(&dev->ibdev, flags & IB_MAD_IGNORE_MKEY,
				      PIB_PORT_NUM, NULL, NULL, mad, out,
				      &out_size, &pkey_index);
		check_reply(mad, out, ret, out_size);
		kshim_run_work();
		check_port(dev);
		free(mad);
		free(out);
	}
	fuzz_world_fini();
	return 0;
}
