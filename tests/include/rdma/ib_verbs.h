/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host stand-in (tests/include/README.md): the enums of the kernel's
 * <rdma/ib_verbs.h> that pib_hdr.h uses, with the kernel's values (those
 * of the IBA's PortInfo fields).
 */
#ifndef PIB_HOST_IB_VERBS_H
#define PIB_HOST_IB_VERBS_H

enum ib_port_state {
	IB_PORT_NOP = 0,
	IB_PORT_DOWN = 1,
	IB_PORT_INIT = 2,
	IB_PORT_ARMED = 3,
	IB_PORT_ACTIVE = 4,
	IB_PORT_ACTIVE_DEFER = 5,
};

enum ib_mtu {
	IB_MTU_256 = 1,
	IB_MTU_512 = 2,
	IB_MTU_1024 = 3,
	IB_MTU_2048 = 4,
	IB_MTU_4096 = 5,
};

#endif
