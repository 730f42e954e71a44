/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * the interface between pib.ko and its rdma-core provider
 * (libpib). Both sides compile this header; it only uses <linux/types.h>.
 */
#ifndef PIB_ABI_H
#define PIB_ABI_H

#include <linux/types.h>

/*
 * Version of the driver-specific part of the uverbs commands. The provider
 * refuses a device whose /sys/class/infiniband_verbs/uverbsN/abi_version
 * differs.
 */
#define PIB_UVERBS_ABI_VERSION	1

/* Content of /sys/class/infiniband/<dev>/hca_type for every pib device. */
#define PIB_ABI_HCA_TYPE	"pib"

#endif /* PIB_ABI_H */
