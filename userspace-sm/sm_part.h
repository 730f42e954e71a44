/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sm_part.h: partitions (IBA 10.9) as opensm's partition file describes
 * them, the part of its format pib-sm supports:
 *
 *   NAME=PKEY[,ipoib][,mtu=N][,rate=N][,sl=N][,scope=N][,Q_Key=N]
 *            [,TClass=N][,defmember=full|limited|both] : [MEMBER[,MEMBER]...] ;
 *
 * MEMBER is a port GUID, ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF (the
 * SM's own port) or NONE, each with =full, =limited or =both (both: full,
 * as opensm has it unless allow_both_pkeys). '#' starts a comment; a
 * definition may span lines and ends with ';'. Not supported (an error
 * with the line): a P_Key left out (opensm makes one up), indx0, and
 * mgid= groups.
 *
 * As in opensm, the default partition (P_Key 0x7fff) has every port as a
 * limited member and the SM's port as a full one unless the file defines
 * it; with no file at all, every port is a full member (sm_parts_init).
 */
#ifndef SM_PART_H
#define SM_PART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* IBA 10.9.1.1: the default partition's P_Key, membership bit clear. */
#define SM_PART_DEFAULT_PKEY	0x7fff
/* The P_Key's membership bit: full member. */
#define SM_PART_FULL		0x8000
/* Bounds on what a file may ask for. */
#define SM_PART_MAX		64
#define SM_PART_MAX_MEMBERS	4096
#define SM_PART_FILE_MAX	(256 * 1024)

/* Who a member entry names. */
enum sm_part_who {
	SM_PART_GUID,
	SM_PART_ALL,
	SM_PART_ALL_CAS,
	SM_PART_ALL_SWITCHES,
	SM_PART_ALL_ROUTERS,
	SM_PART_SELF,
};

/**
 * struct sm_part_member - one member entry of a partition
 * @guid: the port GUID (SM_PART_GUID)
 * @who: whom it names
 * @full: full member (else limited)
 */
struct sm_part_member {
	uint64_t guid;
	uint8_t who;
	uint8_t full;
};

/**
 * struct sm_part - a partition
 * @name: its name in the file
 * @pkey: its P_Key, membership bit clear
 * @ipoib: an IPoIB broadcast group is made for it
 * @mtu: the broadcast group's MTU code (0: the largest every port can do)
 * @rate: its rate code (0: the SA's default)
 * @sl: its SL
 * @scope: its MGID scope (0: link-local, 2)
 * @qkey: its Q_Key (0: IPoIB's, 0x0b1b)
 * @tclass: its TClass
 * @member: the member entries
 * @n: how many
 */
struct sm_part {
	char name[64];
	uint16_t pkey;
	uint8_t ipoib;
	uint8_t mtu;
	uint8_t rate;
	uint8_t sl;
	uint8_t scope;
	uint32_t qkey;
	uint8_t tclass;
	struct sm_part_member *member;
	unsigned int n;
};

/**
 * struct sm_parts - the partitions of a subnet
 * @part: the partitions; [0] is the default partition
 * @n: how many
 * @file: whether they came from a file
 */
struct sm_parts {
	struct sm_part part[SM_PART_MAX];
	unsigned int n;
	int file;
};

/* The node types that ALL_CAS and friends match (NodeInfo.NodeType). */
#define SM_PART_NODE_CA		1
#define SM_PART_NODE_SWITCH	2
#define SM_PART_NODE_ROUTER	3

void sm_parts_init(struct sm_parts *ps);
void sm_parts_free(struct sm_parts *ps);
int sm_parts_parse(struct sm_parts *ps, const char *text, size_t len,
		   unsigned int *line, const char **why);
int sm_parts_read(struct sm_parts *ps, FILE *in, unsigned int *line,
		  const char **why);
int sm_part_membership(const struct sm_part *p, uint64_t port_guid,
		       unsigned int node_type, uint64_t sm_guid);
unsigned int sm_parts_pkeys(const struct sm_parts *ps, uint64_t port_guid,
			    unsigned int node_type, uint64_t sm_guid,
			    uint16_t *pkeys, unsigned int max);
const struct sm_part *sm_parts_find(const struct sm_parts *ps, uint16_t pkey);

#endif /* SM_PART_H */
