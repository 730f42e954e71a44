/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pib-sm's Subnet Administrator (IBA 15): the records that rdma_cm,
 * IPoIB, perftest and saquery ask the SA for, answered from the subnet
 * model of sm_fabric.h, plus the state the SA keeps itself: multicast
 * groups, service records and InformInfo subscriptions.
 *
 * Pure logic: no I/O. The program hands every MAD that arrives on its SA
 * agent (management class 3, class version 2, registered with RMPP
 * version 1) to sm_sa_handle() and sends what it returns back to the
 * requester. After each sweep it calls sm_sa_ports_update() (which
 * returns the Report MADs to send) and sm_sa_ipoib_bcast(), then, when
 * sm_sa_mcast_dirty() says so, programs the MFTs of every MLID up to
 * sm_sa_mlid_top() from sm_sa_mlid_members().
 *
 * What the SA answers (method: Get 0x01, Set 0x02, GetTable 0x12,
 * Delete 0x15):
 *   ClassPortInfo 0x0001	Get
 *   InformInfo 0x0003		Set (subscribe/unsubscribe to traps 64, 65)
 *   NodeRecord 0x0011		Get, GetTable
 *   PortInfoRecord 0x0012	Get, GetTable
 *   SwitchInfoRecord 0x0014	Get, GetTable
 *   LinkRecord 0x0020		Get, GetTable
 *   ServiceRecord 0x0031	Get, GetTable, Set, Delete
 *   PathRecord 0x0035		Get, GetTable
 *   MCMemberRecord 0x0038	Get, GetTable, Set (join), Delete (leave)
 *   InformInfoRecord 0x00f3	Get, GetTable
 *
 * Component masks (IBA 15.2.4): each record type has a table of its
 * fields by component-mask bit; a record matches a request when each
 * field the mask names equals the request's. Mask bits beyond a record's
 * fields are ignored, as opensm ignores them. The SA trusts no SM_Key:
 * every requester sees every record (pib's subnets have one owner).
 */
#ifndef SM_SA_H
#define SM_SA_H

#include <stddef.h>
#include <stdint.h>

#include "sm_fabric.h"
#include "sm_part.h"

/* A MAD, its SA header (IBA 15.2.1.1) and the record data after it. */
#define SM_SA_MAD_LEN		256
#define SM_SA_HDR_LEN		56
#define SM_SA_DATA_LEN		(SM_SA_MAD_LEN - SM_SA_HDR_LEN)
/* IBA 4.1.1: GIDs. */
#define SM_SA_GID_LEN		16

/* The most records one GetTableResp holds; more: ERR_NO_RESOURCES. */
#define SM_SA_MAX_RECORDS	4096
/* Multicast groups: MLIDs 0xc000 .. 0xc000 + SM_SA_MAX_GROUPS - 1. */
#define SM_SA_MLID_BASE		0xc000
#define SM_SA_MAX_GROUPS	1024
/* Ports in one group; service records; InformInfo subscriptions. */
#define SM_SA_MAX_MEMBERS	4096
#define SM_SA_MAX_SERVICES	1024
#define SM_SA_MAX_SUBS		256

/* IBA 15.4: the P_Key of the default partition; the IPoIB broadcast
 * group's Q_Key (RFC 4391's 0x00000b1b, as opensm's default). */
#define SM_SA_DEFAULT_PKEY	0xffff
#define SM_SA_IPOIB_QKEY	0x00000b1b
/* IBA 13.5.1: QP1's Q_Key; Reports are sent with it. */
#define SM_SA_QP1_QKEY		0x80010000u

/**
 * struct sm_sa_addr - who sent a request, as umad's ib_mad_addr says
 * @lid: the requester's LID (0: unknown)
 * @qpn: its QP number
 *
 * The SA takes it to check that a port joins groups for itself (an
 * MCMemberRecord's PortGID must be the requester's port unless @lid is
 * 0) and to know where an InformInfo subscriber is.
 */
struct sm_sa_addr {
	uint16_t lid;
	uint32_t qpn;
};

/**
 * struct sm_sa_member - a port's membership in a multicast group
 * @guid: its port GUID (its PortGID's interface ID)
 * @join_state: MCMemberRecord.JoinState bits it holds (IBA 15.2.5.17:
 *	bit 0 FullMember, 1 NonMember, 2 SendOnlyNonMember, 3
 *	SendOnlyFullMember)
 */
struct sm_sa_member {
	uint64_t guid;
	uint8_t join_state;
};

/**
 * struct sm_sa_group - a multicast group (IBA 15.2.5.17)
 * @mgid: its MGID
 * @mlid: its MLID
 * @qkey: Q_Key
 * @pkey: P_Key
 * @mtu: MTU (IBA 9.7.4.1.6 code: 1 256 .. 5 4096)
 * @rate: static rate (IBA 9.8.? code: 2 2.5 Gb/s, 3 10 Gb/s, ...)
 * @life: PacketLifeTime
 * @sl: SL
 * @tclass: TClass
 * @flow_label: FlowLabel
 * @hop_limit: HopLimit
 * @scope: Scope (the MGID's)
 * @ipoib: the IPoIB broadcast group: it stays without members
 * @member: its members, @n of them, room for @cap
 * @n: members
 * @cap: room in @member
 */
struct sm_sa_group {
	uint8_t mgid[SM_SA_GID_LEN];
	uint16_t mlid;
	uint32_t qkey;
	uint16_t pkey;
	uint8_t mtu;
	uint8_t rate;
	uint8_t life;
	uint8_t sl;
	uint8_t tclass;
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t scope;
	int ipoib;
	struct sm_sa_member *member;
	unsigned int n;
	unsigned int cap;
};

/* A registered ServiceRecord (IBA 15.2.5.14) as on the wire. */
#define SM_SA_SERVICE_LEN	176

/**
 * struct sm_sa_service - a registered service
 * @rec: its ServiceRecord
 * @expires: when its lease ends, in sm_sa_tick()'s time (0: never)
 */
struct sm_sa_service {
	uint8_t rec[SM_SA_SERVICE_LEN];
	uint64_t expires;
};

/* InformInfo (IBA 13.4.8.3) as on the wire. */
#define SM_SA_INFORM_LEN	36

/**
 * struct sm_sa_sub - an InformInfo subscription
 * @gid: the subscriber's port GID (subnet prefix and its port GUID)
 * @lid: the subscriber's LID: where Reports go
 * @info: its InformInfo, as it sent it (QPN: where Reports go)
 */
struct sm_sa_sub {
	uint8_t gid[SM_SA_GID_LEN];
	uint16_t lid;
	uint8_t info[SM_SA_INFORM_LEN];
};

/* Sweeps with failed SMPs in a row that a port may miss and stay. */
#define SM_SA_PORT_GRACE	1

/**
 * struct sm_sa_port - an end port the SA knew at the last
 *	sm_sa_ports_update()
 * @guid: its port GUID
 * @lid: its LID
 * @missed: sweeps in a row, each with SMPs that failed, that did not
 *	find it (struct sm_sa's @keep_missed)
 */
struct sm_sa_port {
	uint64_t guid;
	uint16_t lid;
	unsigned int missed;
};

/**
 * struct sm_sa - the SA's state
 * @prefix: the subnet prefix of every GID (IBA 4.1.1; fe80::/64 by default)
 * @group: multicast groups, @ngroups of them (room for SM_SA_MAX_GROUPS)
 * @ngroups: groups
 * @mlid_top: the highest MLID ever given out (0: none)
 * @mgid_seq: the last MGID the SA made up for a zero-MGID create
 * @dirty: membership changed since sm_sa_mcast_dirty() last said so
 * @svc: service records, @nsvc of them (room for SM_SA_MAX_SERVICES)
 * @nsvc: service records
 * @now: the time sm_sa_tick() last gave, in seconds
 * @sub: InformInfo subscriptions, @nsub of them (room for SM_SA_MAX_SUBS)
 * @nsub: subscriptions
 * @port: the end ports of the last sm_sa_ports_update(), @nports of them
 * @nports: ports
 * @keep_missed: set by the SM before sm_sa_ports_update() when SMPs of
 *	the sweep failed: a port it did not find may be behind them, and
 *	stays (its groups and subscriptions with it) for SM_SA_PORT_GRACE
 *	such sweeps in a row; a sweep whose SMPs all went through drops it
 * @rereg: the port GUIDs owed a ClientReregister (sm_sa_rereg_note()),
 *	@nrereg of them
 * @nrereg: ports owed one
 * @tid: the last TransactionID of a Report the SA sent
 * @requests: requests handled
 * @errors: requests answered with an error status
 * @parts: the subnet's partitions (sm_sa_init(): @own_parts)
 * @sm_guid: the SM's own port (SELF in a partition file)
 * @own_parts: the partitions of a subnet with no partition file (the
 *	default partition alone, every port a full member), until the SM
 *	gives the SA the subnet's
 */
struct sm_sa {
	uint64_t prefix;
	struct sm_sa_group *group;
	unsigned int ngroups;
	uint16_t mlid_top;
	uint32_t mgid_seq;
	int dirty;
	struct sm_sa_service *svc;
	unsigned int nsvc;
	uint64_t now;
	struct sm_sa_sub *sub;
	unsigned int nsub;
	struct sm_sa_port *port;
	unsigned int nports;
	int keep_missed;
	uint64_t *rereg;
	unsigned int nrereg;
	uint64_t tid;
	unsigned long requests;
	unsigned long errors;
	const struct sm_parts *parts;
	uint64_t sm_guid;
	struct sm_parts own_parts;
};

/**
 * struct sm_sa_report - a Report(Notice) MAD to send to a subscriber
 * @mad: the MAD (class 3, method Report 0x06, attribute Notice 0x0002)
 * @len: its length (SM_SA_MAD_LEN)
 * @dlid: the subscriber's LID
 * @dqpn: its QP (InformInfo.QPN)
 * @qkey: the Q_Key to send with (SM_SA_QP1_QKEY)
 */
struct sm_sa_report {
	uint8_t mad[SM_SA_MAD_LEN];
	size_t len;
	uint16_t dlid;
	uint32_t dqpn;
	uint32_t qkey;
};

/**
 * sm_sa_init - an SA with no groups, services or subscriptions
 * @sa: the SA
 * @subnet_prefix: the subnet prefix of its GIDs (opensm's default:
 *	0xfe80000000000000)
 *
 * Return: 0, or -ENOMEM.
 */
int sm_sa_init(struct sm_sa *sa, uint64_t subnet_prefix);

/**
 * sm_sa_free - free what @sa holds
 * @sa: the SA
 */
void sm_sa_free(struct sm_sa *sa);

/**
 * sm_sa_handle - answer one SA MAD
 * @sa: the SA
 * @f: the subnet as the last sweep found it
 * @sm_lid: the SM's own LID
 * @from: who sent it (NULL: unknown, as @from->lid 0)
 * @req: the MAD as umad delivered it: common MAD header at byte 0, RMPP
 *	header at 24, SA header at 36, record data at 56
 * @len: its length (SM_SA_MAD_LEN for one MAD; of a longer one, only
 *	the first SM_SA_MAD_LEN bytes count)
 * @resp: the answer, malloc'd (the caller frees it), or NULL when none
 *	is due: a response method (or TrapRepress), a MAD too short to hold
 *	a MAD header, a class that is not the SA's
 * @resp_len: its length
 *
 * Every answer keeps the request's TransactionID, attribute and
 * modifier, has class 3, class version 2 and SM_Key 0 (C15-0.1.5), and
 * the method Get and Set -> GetResp 0x81, GetTable -> GetTableResp 0x92,
 * Delete -> DeleteResp 0x95, any other request method -> that method |
 * 0x80 with status "method not supported". Status (IBA 13.4.7, 15.4):
 * generic bad version, method not supported, method/attribute not
 * supported, or an SA error in bits 8..15 (enum sm_sa_err).
 *
 * A GetTableResp with records is one buffer: header, RMPP header
 * (version 1, DATA, flags Active|First|Last, PayloadLength = 20 bytes
 * of SA header plus the records, as the kernel's RMPP sender computes it
 * again when it segments), SA header (AttributeOffset = record size in
 * 8-byte words) and the records back to back, each padded to 8 bytes;
 * @resp_len is exactly that (the kernel pads the last segment), so it
 * may be shorter or longer than SM_SA_MAD_LEN. Every other answer is one
 * SM_SA_MAD_LEN MAD with no RMPP flags. A Get that matches no record
 * answers ERR_NO_RECORDS, more than one ERR_TOO_MANY_RECORDS; a GetTable
 * that matches none answers with no records and status 0 (IBA 15.4.4).
 *
 * Return: 0, or -ENOMEM (then *@resp is NULL).
 */
int sm_sa_handle(struct sm_sa *sa, const struct sm_fabric *f, uint16_t sm_lid,
		 const struct sm_sa_addr *from, const uint8_t *req, size_t len,
		 uint8_t **resp, size_t *resp_len);

/**
 * sm_sa_tick - tell the SA the time, and drop services whose lease ended
 * @sa: the SA
 * @now: a monotonic time in seconds
 *
 * A ServiceRecord's lease (ServiceLease seconds, 0xffffffff: forever)
 * counts from the last tick before its Set; without ticks no lease ends.
 */
void sm_sa_tick(struct sm_sa *sa, uint64_t now);

/**
 * sm_sa_ipoib_bcast - create or update the IPoIB broadcast groups
 * @sa: the SA
 * @f: the subnet as the last sweep found it
 *
 * One group per partition marked ipoib in @sa->parts (without a
 * partition file, the default partition's alone): ff1S:401b:PKEY::
 * ffff:ffff, with the partition's P_Key (full-member bit set), scope S,
 * Q_Key (IPoIB's 0x0b1b by default), SL, TClass, MTU and rate when it
 * names them. The default partition's group, ff12:401b:ffff::ffff:ffff
 * (P_Key 0xffff, Q_Key 0x0b1b, SL 0, TClass 0, FlowLabel 0, HopLimit 0,
 * link-local scope), like any group whose partition names no MTU or rate,
 * gets the largest MTU every CA port of @f can do (the least of their MTUCaps and
 * of the NeighborMTUs of every link), and the least rate of those links,
 * so that IPoIB works on any LAN (pib on a 1500-byte Ethernet: 1024)
 * with no configuration. While the group has members, its MTU and rate
 * stay as they are (members joined with them); with none they follow the
 * subnet. A subnet with no CA port yet gives 2048 and 10 Gb/s. Call it
 * after each sweep. The group keeps the first MLID, 0xc000, when it is
 * made first.
 *
 * Return: 0, or -ENOSPC when no MLID is left, or -ENOMEM.
 */
int sm_sa_ipoib_bcast(struct sm_sa *sa, const struct sm_fabric *f);

/**
 * sm_sa_ports_update - take the end ports a sweep found
 * @sa: the SA
 * @f: the subnet as the sweep found it
 * @sm_lid: the SM's own LID (the Notices' IssuerLID; its port's GID is
 *	their IssuerGID)
 * @reports: the Reports to send, malloc'd (the caller frees them), or
 *	NULL when there are none
 * @nreports: how many
 *
 * Ports (CA and router ports with a link, switch port 0, by port GUID)
 * that were not there at the last call are in service (trap 64), ports
 * that are gone out of service (trap 65); every subscriber to that trap
 * (or to all, 0xffff) whose InformInfo covers the port (its GID if not
 * zero, its LID range unless it begins at 0xffff) gets a Report. A port
 * that is gone leaves every multicast group (which may end groups), and
 * its own subscriptions end. With @sa->keep_missed, a port the sweep did
 * not find is not gone yet (see struct sm_sa).
 *
 * Return: 0, or -ENOMEM.
 */
int sm_sa_ports_update(struct sm_sa *sa, const struct sm_fabric *f,
		       uint16_t sm_lid, struct sm_sa_report **reports,
		       unsigned int *nreports);

/**
 * sm_sa_port_in - is port @guid one of @ports?
 * @ports: end ports (as struct sm_sa.port)
 * @n: how many
 * @guid: the port GUID
 *
 * Return: 1 or 0.
 */
int sm_sa_port_in(const struct sm_sa_port *ports, unsigned int n,
		  uint64_t guid);

/**
 * sm_sa_rereg_note - the end ports of a sweep that the SA has not taken
 *	in, before sm_sa_ports_update() takes them
 * @sa: the SA
 * @f: the subnet as the sweep found it
 *
 * A port that the SA does not have (new, or back after a sweep that did
 * not reach it, which took it out of its groups and ended its
 * subscriptions) is owed a PortInfo.ClientReregister, so that its
 * clients (IPoIB, for one) join and subscribe again, as on the SM's first
 * sweep as master. A port stays owed until sm_sa_rereg_done(), or until
 * a sweep no longer finds it.
 *
 * Return: 0, or -ENOMEM (the ports owed are as before).
 */
int sm_sa_rereg_note(struct sm_sa *sa, const struct sm_fabric *f);

/**
 * sm_sa_rereg_owed - is port @guid owed a ClientReregister?
 * @sa: the SA
 * @guid: the port GUID
 *
 * Return: 1 or 0.
 */
int sm_sa_rereg_owed(const struct sm_sa *sa, uint64_t guid);

/**
 * sm_sa_rereg_done - port @guid took its ClientReregister
 * @sa: the SA
 * @guid: the port GUID (one not owed one is no error)
 */
void sm_sa_rereg_done(struct sm_sa *sa, uint64_t guid);

/**
 * sm_sa_mcast_dirty - did multicast membership change?
 * @sa: the SA
 *
 * Return: 1 if a group was made or removed, or a port joined or left one,
 * since the last call (which then said 1); else 0.
 */
int sm_sa_mcast_dirty(struct sm_sa *sa);

/**
 * sm_sa_mlid_top - the highest MLID the SA ever gave a group
 * @sa: the SA
 *
 * Return: that MLID, or 0 if none. The MFTs from SM_SA_MLID_BASE up to it
 * hold every group's, and the entries of removed groups to clear.
 */
uint16_t sm_sa_mlid_top(const struct sm_sa *sa);

/**
 * sm_sa_mlid_members - the member ports of the group with an MLID
 * @sa: the SA
 * @f: the subnet (members are found in it by port GUID; members not in
 *	it are left out)
 * @mlid: the MLID
 * @m: room for @max members, filled for sm_mcast_tree()
 * @max: room in @m
 *
 * Return: how many members @m holds (0: no group has @mlid, or it has no
 * member in @f), at most @max.
 */
unsigned int sm_sa_mlid_members(const struct sm_sa *sa,
				const struct sm_fabric *f, uint16_t mlid,
				struct sm_mcast_member *m, unsigned int max);

#endif /* SM_SA_H */
