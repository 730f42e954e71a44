/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fuzz.h: what the libFuzzer harnesses share: reading the input, and a
 * small world of pib's own kernel objects (a netdev's switch, its devices)
 * built as pib_dev.c and pib_net.c would build them, whose packets are
 * checked on their way out.
 */
#ifndef PIB_FUZZ_H
#define PIB_FUZZ_H

#include "pib.h"
#include "fuzz_check.h"

/* A fuzz input, read front to back; past its end it reads as zeros. */
struct fuzz_in {
	const u8 *p;
	size_t n;
};

static inline u8 fuzz_u8(struct fuzz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline u16 fuzz_u16(struct fuzz_in *in)
{
	u16 hi = fuzz_u8(in);

	return hi << 8 | fuzz_u8(in);
}

static inline u32 fuzz_u32(struct fuzz_in *in)
{
	u32 hi = fuzz_u16(in);

	return hi << 16 | fuzz_u16(in);
}

static inline u64 fuzz_u64(struct fuzz_in *in)
{
	u64 hi = fuzz_u32(in);

	return hi << 32 | fuzz_u32(in);
}

/* Copy up to @len bytes into @dst, zeros after the input's end. */
static inline void fuzz_bytes(struct fuzz_in *in, void *dst, size_t len)
{
	size_t n = min(len, in->n);

	memcpy(dst, in->p, n);
	memset((u8 *)dst + n, 0, len - n);
	in->p += n;
	in->n -= n;
}


/* The LIDs of the world: its devices are 1, 2, ...; the switch is 100. */
#define FUZZ_DEV_LID(i)		((i) + 1)
#define FUZZ_SW_LID		100
#define FUZZ_MAX_DEVS		2
#define FUZZ_PEERS		3

/**
 * struct fuzz_world - pib's objects of one netdev
 * @ndev: the netdev
 * @sw: its switch, if the harness asked for one
 * @dev: its pib devices
 * @ndevs: entries of @dev
 * @tx_packets: packets the devices and the switch sent (all checked)
 * @ttl_max: the hop budget packets sent to peers may have (the harness
 *	lowers it while a packet from a peer is forwarded)
 * @tx_hook: called with every packet a device sends, if set
 */
struct fuzz_world {
	struct net_device ndev;
	struct pib_switch *sw;
	struct pib_dev *dev[FUZZ_MAX_DEVS];
	unsigned int ndevs;
	unsigned long tx_packets;
	u8 ttl_max;
	void (*tx_hook)(struct pib_dev *dev, const u8 *pkt, unsigned int len);
};

extern struct fuzz_world fuzz_world;

void fuzz_world_init(unsigned int ndevs, bool with_switch);
void fuzz_world_fini(void);
void fuzz_port_up(struct pib_dev *dev, u16 lid, enum ib_mtu mtu);
void fuzz_check_pkt(const u8 *pkt, unsigned int len);
void fuzz_check_switch(struct pib_switch *sw);
void fuzz_peer_set_up(struct pib_switch *sw, unsigned int i, bool up);
bool fuzz_peer_up(struct pib_switch *sw, unsigned int i);

#endif /* PIB_FUZZ_H */
