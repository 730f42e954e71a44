/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the SA's files share (sm_sa.c: MADs, dispatch, component masks and
 * the records read from the subnet; sm_sa_path.c: PathRecord;
 * sm_mcg.c: multicast groups; sm_sa_svc.c: services, InformInfo and
 * Reports). Not an interface: sm_sa.h is.
 */
#ifndef SM_SA_INT_H
#define SM_SA_INT_H

#include "sm_sa.h"

/* IBA 13.4.5 methods; the SA's own (IBA 15.2.2). */
enum sm_sa_method {
	SM_SA_GET = 0x01,
	SM_SA_SET = 0x02,
	SM_SA_REPORT = 0x06,
	SM_SA_TRAP_REPRESS = 0x07,	/* a response without the bit */
	SM_SA_GET_TABLE = 0x12,
	SM_SA_DELETE = 0x15,
	SM_SA_RESP = 0x80,		/* the response bit */
	SM_SA_GET_RESP = 0x81,
};

/* IBA 13.4.7 MAD status: generic codes (bits 2..4) and SA codes (bits
 * 8..15, IBA 15.4, Table 174). */
enum sm_sa_err {
	SM_SA_OK = 0,
	SM_SA_BAD_VERSION = 1 << 2,
	SM_SA_BAD_METHOD = 2 << 2,
	SM_SA_BAD_METHOD_ATTR = 3 << 2,
	SM_SA_BAD_VALUE = 7 << 2,
	SM_SA_ERR_NO_RESOURCES = 1 << 8,
	SM_SA_ERR_REQ_INVALID = 2 << 8,
	SM_SA_ERR_NO_RECORDS = 3 << 8,
	SM_SA_ERR_TOO_MANY_RECORDS = 4 << 8,
	SM_SA_ERR_REQ_INVALID_GID = 5 << 8,
	SM_SA_ERR_REQ_INSUFFICIENT_COMPONENTS = 6 << 8,
	SM_SA_ERR_REQ_DENIED = 7 << 8,
};

/* IBA 15.2.5 attribute IDs. */
enum sm_sa_attr {
	SM_SA_ATTR_CLASS_PORT_INFO = 0x0001,
	SM_SA_ATTR_NOTICE = 0x0002,
	SM_SA_ATTR_INFORM_INFO = 0x0003,
	SM_SA_ATTR_NODE_REC = 0x0011,
	SM_SA_ATTR_PORT_INFO_REC = 0x0012,
	SM_SA_ATTR_SWITCH_INFO_REC = 0x0014,
	SM_SA_ATTR_LINK_REC = 0x0020,
	SM_SA_ATTR_SERVICE_REC = 0x0031,
	SM_SA_ATTR_PATH_REC = 0x0035,
	SM_SA_ATTR_MCMEMBER_REC = 0x0038,
	SM_SA_ATTR_INFORM_INFO_REC = 0x00f3,
};

/* Selectors of PathRecord and MCMemberRecord (IBA 15.2.5.16). */
enum sm_sa_sel {
	SM_SA_SEL_GT = 0,
	SM_SA_SEL_LT = 1,
	SM_SA_SEL_EQ = 2,
	SM_SA_SEL_BEST = 3,
};

/* IBA 9.7.4.1.6 / 14.2.5.6 MTU codes. */
#define SM_SA_MTU_256		1
#define SM_SA_MTU_2048		4
#define SM_SA_MTU_4096		5
/* IBA rate code of 10 Gb/s (4x SDR): what an unknown rate is taken as. */
#define SM_SA_RATE_10G		3
/* PacketLifeTime of a path between two ports (opensm's default
 * subnet_timeout, 0x12: 4.096 us * 2^18, about 1 s); 0 to itself. */
#define SM_SA_PKT_LIFE		0x12
/* IBA 14.2.5.6 PortState Active. */
#define SM_SA_PORT_ACTIVE	4

/**
 * struct sm_sa_field - one field of a record, by component-mask bit
 * @bit: where it starts, in bits from the record's start, the most
 *	significant bit of byte 0 being bit 0 (IBA's order)
 * @len: its width in bits (0: a bit that names no field); widths over 64
 *	are whole bytes at a byte boundary
 */
struct sm_sa_field {
	uint16_t bit;
	uint16_t len;
};

/**
 * struct sm_sa_layout - a record type
 * @size: its size in bytes, before padding to 8
 * @nfields: component-mask bits it has (0 .. @nfields - 1)
 * @field: its fields, by component-mask bit
 */
struct sm_sa_layout {
	uint16_t size;
	uint8_t nfields;
	const struct sm_sa_field *field;
};

extern const struct sm_sa_layout sm_sa_path_layout;
extern const struct sm_sa_layout sm_sa_mcm_layout;
extern const struct sm_sa_layout sm_sa_svc_layout;
extern const struct sm_sa_layout sm_sa_inform_layout;
extern const struct sm_sa_layout sm_sa_iir_layout;

/**
 * struct sm_sa_ctx - one request being answered
 * @sa: the SA
 * @f: the subnet
 * @sm_lid: the SM's LID
 * @from: the requester (never NULL here: a zero one stands in)
 * @method: the request's method
 * @comp: its ComponentMask
 * @tmpl: its record (the template), SM_SA_DATA_LEN bytes
 * @layout: its record type
 * @out: the answer's records, @n of them, each @stride bytes apart
 * @n: records in @out
 * @cap: room in @out, in records
 * @stride: record size padded to 8 bytes
 */
struct sm_sa_ctx {
	struct sm_sa *sa;
	const struct sm_fabric *f;
	uint16_t sm_lid;
	const struct sm_sa_addr *from;
	uint8_t method;
	uint64_t comp;
	const uint8_t *tmpl;
	const struct sm_sa_layout *layout;
	uint8_t *out;
	unsigned int n;
	unsigned int cap;
	unsigned int stride;
};

/* Big-endian fields: bytes and bit fields (@bit, @len as struct
 * sm_sa_field's, @len at most 64). */
uint64_t sm_sa_get(const uint8_t *p, unsigned int bit, unsigned int len);
void sm_sa_put(uint8_t *p, unsigned int bit, unsigned int len, uint64_t v);
uint16_t sm_sa_be16(const uint8_t *p);
uint32_t sm_sa_be32(const uint8_t *p);
uint64_t sm_sa_be64(const uint8_t *p);
void sm_sa_put16(uint8_t *p, uint16_t v);
void sm_sa_put32(uint8_t *p, uint32_t v);
void sm_sa_put64(uint8_t *p, uint64_t v);

/* Is @p all zero? */
int sm_sa_zero(const uint8_t *p, size_t len);
/* A field of the request's template, and whether the mask names it. */
int sm_sa_has(const struct sm_sa_ctx *c, unsigned int bit);
uint64_t sm_sa_tmpl(const struct sm_sa_ctx *c, unsigned int bit);
/* Does @rec match the template in every field the mask names? */
int sm_sa_match(const struct sm_sa_ctx *c, const uint8_t *rec);
/* Add @rec to the answer. Return: 0 or SM_SA_ERR_NO_RESOURCES. */
int sm_sa_add(struct sm_sa_ctx *c, const uint8_t *rec);
/* Add @rec if it matches. Return: 0 or SM_SA_ERR_NO_RESOURCES. */
int sm_sa_offer(struct sm_sa_ctx *c, const uint8_t *rec);

/* How end port @port of node @node belongs to @pkey's partition: 2 full
 * member, 1 limited, 0 none. */
int sm_sa_pkey_member(const struct sm_sa *sa, const struct sm_fabric *f,
		      int node, unsigned int port, uint16_t pkey);

/* The subnet: a GID's port, a port's GID, rates and MTUs of ports. */
int sm_sa_gid_port(const struct sm_sa_ctx *c, const uint8_t *gid, int *node,
		   unsigned int *port);
int sm_sa_guid_port(const struct sm_fabric *f, uint64_t guid, int *node,
		    unsigned int *port);
void sm_sa_port_gid(const struct sm_sa *sa, const struct sm_fabric *f,
		    int node, unsigned int port, uint8_t *gid);
unsigned int sm_sa_port_mtu(const struct sm_port *p);
unsigned int sm_sa_port_rate(const struct sm_port *p);
unsigned int sm_sa_rate_mbps(unsigned int code);
/* What a selector compares: MTU and PacketLifeTime codes are ordered as
 * numbers, rate codes by their bandwidth. */
enum sm_sa_kind {
	SM_SA_K_MTU,
	SM_SA_K_RATE,
	SM_SA_K_LIFE,
};

int sm_sa_select(unsigned int sel, unsigned int want, unsigned int have,
		 enum sm_sa_kind kind);
int sm_sa_meets(unsigned int sel, unsigned int want, unsigned int have,
		enum sm_sa_kind kind);
void sm_sa_subnet_caps(const struct sm_fabric *f, unsigned int *mtu,
		       unsigned int *rate);

/* The records' handlers: SM_SA_OK or an enum sm_sa_err. */
int sm_sa_path_query(struct sm_sa_ctx *c);
int sm_sa_mcm_query(struct sm_sa_ctx *c);
int sm_sa_mcm_join(struct sm_sa_ctx *c);
int sm_sa_mcm_leave(struct sm_sa_ctx *c);
int sm_sa_svc_query(struct sm_sa_ctx *c);
int sm_sa_svc_set(struct sm_sa_ctx *c);
int sm_sa_svc_delete(struct sm_sa_ctx *c);
int sm_sa_inform_set(struct sm_sa_ctx *c);
int sm_sa_iir_query(struct sm_sa_ctx *c);

/* sm_mcg.c for sm_sa_svc.c: a departed port leaves every group. */
void sm_sa_mcg_drop_port(struct sm_sa *sa, uint64_t guid);
void sm_sa_mcg_free(struct sm_sa *sa);

#endif /* SM_SA_INT_H */
