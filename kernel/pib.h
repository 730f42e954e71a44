/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * objects shared by the files of the pib driver.
 */
#ifndef PIB_H
#define PIB_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "pib_hdr.h"

#define PIB_DRV_VERSION		"0.1.0"
#define PIB_PORT_NUM		1
#define PIB_PKEY_TABLE_LEN	16
#define PIB_GID_TABLE_LEN	1
#define PIB_DEFAULT_PKEY	0xffff
#define PIB_GID_PREFIX		0xfe80000000000000ULL
#define PIB_MAX_PD		0x10000
/* No IEEE OUI is assigned to pib; 0 says so in query_device. */
#define PIB_VENDOR_ID		0

/**
 * struct pib_port - the state of the HCA's one port
 * @lock: protects every field below
 * @state: logical port state (IBA PortInfo.PortState)
 * @phys_state: physical port state (IBA PortInfo.PortPhysicalState)
 * @max_mtu: largest IB MTU the netdev can carry
 * @active_mtu: IB MTU in use
 * @cap_flags: PortInfo.CapabilityMask (IsSM etc.)
 * @width: active link width (enum pib_ib_width)
 * @speed: active link speed (enum pib_ib_speed)
 * @pkeys: P_Key table; entry 0 is the default partition
 */
struct pib_port {
	spinlock_t lock;
	enum ib_port_state state;
	enum ib_port_phys_state phys_state;
	enum ib_mtu max_mtu;
	enum ib_mtu active_mtu;
	u32 cap_flags;
	u8 width;
	u8 speed;
	u16 pkeys[PIB_PKEY_TABLE_LEN];
};

/**
 * struct pib_dev - one pib HCA
 * @ibdev: the RDMA core's device; must come first (ib_alloc_device)
 * @list: entry on the driver's device list (pib_devs)
 * @ndev: the netdev this HCA is attached to; a reference is held
 * @index: this device's index among the pib devices on @ndev
 * @registered: registration is complete (under pib_devs_lock)
 * @guid: node, port and system image GUID
 * @port: the port's state
 * @pd_count: protection domains allocated
 */
struct pib_dev {
	struct ib_device ibdev;
	struct list_head list;
	struct net_device *ndev;
	unsigned int index;
	bool registered;
	__be64 guid;
	struct pib_port port;
	atomic_t pd_count;
};

/**
 * struct pib_pd - a protection domain
 * @ibpd: the RDMA core's PD; must come first
 */
struct pib_pd {
	struct ib_pd ibpd;
};

/**
 * struct pib_ucontext - a user verbs context
 * @ibuc: the RDMA core's context; must come first
 */
struct pib_ucontext {
	struct ib_ucontext ibuc;
};

static inline struct pib_dev *to_pib_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct pib_dev, ibdev);
}

/* pib_dev.c: device lifetime and port state */
int pib_dev_add(const char *name, struct net_device *ndev);
void pib_dev_remove_all(void);
void pib_dev_netdev_event(struct net_device *ndev, unsigned long event);
void pib_dev_dealloc(struct ib_device *ibdev);

/* pib_verbs.c: verbs entry points */
extern const struct ib_device_ops pib_dev_ops;

#endif /* PIB_H */
