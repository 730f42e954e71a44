/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pib-sm's model of a subnet: the nodes a sweep found, their ports and the
 * links between them, and what the SM computes from that: LIDs
 * (sm_lid.c), linear forwarding tables by min-hop routing (sm_route.c)
 * and multicast spanning trees (sm_mcast.c).
 *
 * Pure code: no MADs, no I/O but the LID file. The sweep (which sends the
 * SMPs) fills a struct sm_fabric; the rest reads it. The unit tests build
 * fabrics by hand (tests/unit/test_sm.c).
 */
#ifndef SM_FABRIC_H
#define SM_FABRIC_H

#include <stdint.h>
#include <stdio.h>

#include <rdma/pib-abi.h>

/* IBA 7.11.1: unicast LIDs are 0x0001 .. 0xbfff. */
#define SM_LID_UCAST_MAX	0xbfff
/* IBA 14.2.5.6: NumPorts is 8 bits, port 255 is reserved. */
#define SM_MAX_PORTS		254
/* An LFT entry that routes nowhere (IBA 14.2.5.10: port 255). */
#define SM_LFT_DROP		0xff
/* No node, no port: the other end of a port without a link. */
#define SM_NONE			(-1)
/* IBA 14.2.2: a directed route has at most 63 hops. */
#define SM_MAX_HOPS		63
/*
 * The most nodes the model takes in: SMAs that answer with ever new GUIDs
 * (a hostile peer's switch) cannot grow a sweep without bound.
 */
#define SM_MAX_NODES		4096
/* Sizes of SMP attributes as on the wire (IBA 14.2.5). */
#define SM_NODE_INFO_LEN	40
/* Where NodeInfo has its 24-bit VendorID (after LocalPortNum). */
#define SM_NODE_INFO_VENDOR_ID	37
#define SM_NODE_DESC_LEN	64
#define SM_SWITCH_INFO_LEN	20
#define SM_PORT_INFO_LEN	64

enum sm_node_type {
	SM_NODE_CA = 1,		/* NodeInfo.NodeType, IBA 14.2.5.3 */
	SM_NODE_SWITCH = 2,
	SM_NODE_ROUTER = 3,
};

/**
 * struct sm_port - one port of a node as the sweep saw it
 * @peer: the node at the other end of its link, or SM_NONE
 * @peer_port: that node's port number
 * @guid: the port's GUID (a switch's ports share port 0's)
 * @lid: the LID the SM gave it (CA and router ports, switch port 0)
 * @state: PortInfo.PortState as the sweep read it (IBA: 1 Down, 2 Init,
 *	3 Armed, 4 Active), 0 for a port it did not read
 * @mtu_cap: PortInfo.MTUCap as the sweep read it
 * @vl_cap: PortInfo.VLCap as the sweep read it
 * @port_info: the port's PortInfo as on the wire (IBA 14.2.5.6), as the
 *	last sweep read or set it; all zero if it was not read. The SA
 *	(sm_sa.h) answers PortInfoRecords from it and takes NeighborMTU,
 *	LinkWidthActive and LinkSpeed(Ext)Active from it for paths.
 */
struct sm_port {
	int peer;
	uint8_t peer_port;
	uint64_t guid;
	uint16_t lid;
	uint8_t state;
	uint8_t mtu_cap;
	uint8_t vl_cap;
	uint8_t port_info[SM_PORT_INFO_LEN];
};

/**
 * struct sm_node - a node of the subnet
 * @guid: its NodeGUID
 * @type: enum sm_node_type
 * @num_ports: NodeInfo.NumPorts (physical ports 1 .. @num_ports)
 * @port: ports 0 .. @num_ports; only a switch has a port 0
 * @lft: a switch's linear forwarding table, SM_LFT_DROP where no route,
 *	@lft_len entries (LIDs 0 .. @lft_len - 1)
 * @lft_len: entries of @lft
 * @load: per port, how many LIDs the switch routes out of it
 *	(min-hop's balance)
 * @path: the directed route the sweep reached it by, @path[1 ..
 *	@hops] the ports out of each switch on the way
 * @hops: the route's length (0: the SM's own node)
 * @entry: the port the sweep entered it through
 * @node_info: its NodeInfo as on the wire (IBA 14.2.5.3), as the sweep
 *	read it (PortGUID and LocalPortNum are those of the port it was
 *	read through); all zero if not read
 * @node_desc: its NodeDescription (IBA 14.2.5.2), all zero if not read
 * @switch_info: a switch's SwitchInfo as on the wire (IBA 14.2.5.4)
 * @linked: a pib switch's LinkedPorts (<rdma/pib-abi.h>), if @linked_known
 * @linked_known: @linked was read: only those ports' PortInfo is
 */
struct sm_node {
	uint64_t guid;
	enum sm_node_type type;
	uint8_t num_ports;
	struct sm_port port[SM_MAX_PORTS + 1];
	uint8_t *lft;
	unsigned int lft_len;
	unsigned int load[SM_MAX_PORTS + 1];
	uint8_t path[SM_MAX_HOPS + 1];
	uint8_t hops;
	uint8_t entry;
	uint8_t node_info[SM_NODE_INFO_LEN];
	uint8_t node_desc[SM_NODE_DESC_LEN];
	uint8_t switch_info[SM_SWITCH_INFO_LEN];
	uint8_t linked[PIB_SMP_LINKED_PORTS_LEN];
	uint8_t linked_known;
};

/**
 * struct sm_fabric - the nodes of a subnet
 * @node: the nodes, by index
 * @num_nodes: how many
 * @cap: room in @node
 * @top_lid: the highest LID given out, once LIDs are assigned
 */
struct sm_fabric {
	struct sm_node *node;
	int num_nodes;
	int cap;
	uint16_t top_lid;
};

/**
 * struct sm_lidmap - the GUID-to-LID map: which port had which LID, kept
 *	across sweeps and (through its file) restarts, so that LIDs are
 *	stable
 * @guid: port GUIDs
 * @lid: their LIDs
 * @len: entries
 * @cap: room
 */
struct sm_lidmap {
	uint64_t *guid;
	uint16_t *lid;
	unsigned int len;
	unsigned int cap;
};

/* sm_fabric.c: building the model */
void sm_fabric_init(struct sm_fabric *f);
void sm_fabric_free(struct sm_fabric *f);
int sm_fabric_add(struct sm_fabric *f, uint64_t guid, enum sm_node_type type,
		  unsigned int num_ports);
int sm_fabric_find(const struct sm_fabric *f, uint64_t guid);
int sm_fabric_link(struct sm_fabric *f, int a, unsigned int pa, int b,
		   unsigned int pb);
int sm_node_is_switch(const struct sm_node *n);
int sm_node_is_pib_switch(const struct sm_node *n);
int sm_port_to_read(const struct sm_node *n, unsigned int p);
int sm_switch_behind(const struct sm_fabric *f, int i, unsigned int p);
int sm_fabric_lid_owner(const struct sm_fabric *f, uint16_t lid, int *node,
			unsigned int *port);

/* sm_lid.c: LIDs, stable by port GUID */
void sm_lidmap_init(struct sm_lidmap *m);
void sm_lidmap_free(struct sm_lidmap *m);
uint16_t sm_lidmap_get(const struct sm_lidmap *m, uint64_t guid);
int sm_lidmap_set(struct sm_lidmap *m, uint64_t guid, uint16_t lid);
int sm_lidmap_read(struct sm_lidmap *m, FILE *in, unsigned int *bad_line);
int sm_lidmap_write(const struct sm_lidmap *m, FILE *out);
int sm_lids_assign(struct sm_fabric *f, struct sm_lidmap *m);

/* sm_route.c: min-hop linear forwarding tables */
int sm_route_minhop(struct sm_fabric *f);
int sm_route_hops(const struct sm_fabric *f, int from, int to);

/* sm_mcast.c: a multicast group's spanning tree */

/* A multicast group member: a CA (or router) port. */
struct sm_mcast_member {
	int node;
	unsigned int port;
};

/* Port masks of a group's MFT entries, one per node (switches only). */
struct sm_mft {
	uint64_t mask[(SM_MAX_PORTS + 1 + 63) / 64];
};

int sm_mcast_tree(const struct sm_fabric *f,
		  const struct sm_mcast_member *members, unsigned int n,
		  struct sm_mft *mft);
int sm_mft_has(const struct sm_mft *m, unsigned int port);

#endif /* SM_FABRIC_H */
