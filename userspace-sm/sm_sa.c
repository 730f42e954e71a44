// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SA's front: a request's checks (versions, method, attribute,
 * length), the table of what it answers, component-mask matching, the
 * answer's MAD, and the records read straight from the subnet model:
 * ClassPortInfo, NodeRecord, PortInfoRecord, SwitchInfoRecord and
 * LinkRecord. Every request byte is untrusted: the request is copied into
 * a zeroed MAD first, and no loop runs longer than the subnet or the SA's
 * own tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sm_sa_int.h"

/* IBA 13.4.2 and 15.2.1.1: the MAD header, where its fields are. */
#define SM_SA_CLASS		0x03
#define SM_SA_CLASS_VERSION	2
#define SM_SA_BASE_VERSION	1
#define SM_MAD_BASE_VER		0
#define SM_MAD_CLASS		1
#define SM_MAD_CLASS_VER	2
#define SM_MAD_METHOD		3
#define SM_MAD_STATUS		4
#define SM_MAD_COMMON_LEN	24
#define SM_MAD_ATTR		16
#define SM_RMPP_VERSION		24
#define SM_RMPP_TYPE		25
#define SM_RMPP_FLAGS		26
#define SM_RMPP_SEG		28
#define SM_RMPP_PAYLOAD		32
#define SM_SA_ATTR_OFFSET	44
#define SM_SA_COMP_MASK		48
/* IBA 13.6.2: RMPP version 1, type DATA, Active | First | Last. */
#define SM_RMPP_V1		1
#define SM_RMPP_DATA		1
#define SM_RMPP_ONE_SEGMENT	0x07
/* RMPP PayloadLength counts the SA header's last 20 bytes too. */
#define SM_SA_CLASS_HDR_LEN	(SM_SA_HDR_LEN - 36)

/* Record sizes (IBA 15.2.5), before padding. */
#define SM_CPI_LEN		72
#define SM_NR_LEN		(4 + SM_NODE_INFO_LEN + SM_NODE_DESC_LEN)
#define SM_PIR_LEN		(4 + SM_PORT_INFO_LEN + 4)
#define SM_SWIR_LEN		(4 + SM_SWITCH_INFO_LEN)
#define SM_LR_LEN		6

/* IBA 14.2.5.3 NodeInfo, 14.2.5.6 PortInfo: the bytes the SA fills in. */
#define SM_NI_BASE_VER		0
#define SM_NI_CLASS_VER		1
#define SM_NI_TYPE		2
#define SM_NI_PORTS		3
#define SM_NI_NODE_GUID		12
#define SM_NI_PORT_GUID		20
#define SM_NI_LOCAL_PORT	36
#define SM_PI_GID_PREFIX	8
#define SM_PI_LID		16
#define SM_PI_STATE		32	/* low nibble */
#define SM_PI_MTU_CAP		41	/* low nibble */

/* ClassPortInfo (IBA 13.4.8.1) of the SA: what opensm says, less what
 * pib-sm does not do: IsUDMulticastSupported (bit 9); CapabilityMask2
 * IsExtendedSpeedsSupported (bit 7) and IsSendOnlyFullMemberSupported
 * (bit 12, which IPoIB checks for its send-only joins); RespTimeValue
 * 18 (about 1 s). */
#define SM_CPI_CAP		(1u << 9)
#define SM_CPI_CAP2		((1u << 7) | (1u << 12))
#define SM_CPI_RESP_TIME	18
#define SM_CPI_REDIR_QP		32
#define SM_CPI_REDIR_QKEY	36
#define SM_CPI_TRAP_QKEY	68

uint16_t sm_sa_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t sm_sa_be32(const uint8_t *p)
{
	return (uint32_t)sm_sa_be16(p) << 16 | sm_sa_be16(p + 2);
}

uint64_t sm_sa_be64(const uint8_t *p)
{
	return (uint64_t)sm_sa_be32(p) << 32 | sm_sa_be32(p + 4);
}

void sm_sa_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

void sm_sa_put32(uint8_t *p, uint32_t v)
{
	sm_sa_put16(p, v >> 16);
	sm_sa_put16(p + 2, v);
}

void sm_sa_put64(uint8_t *p, uint64_t v)
{
	sm_sa_put32(p, v >> 32);
	sm_sa_put32(p + 4, v);
}

uint64_t sm_sa_get(const uint8_t *p, unsigned int bit, unsigned int len)
{
	uint64_t v = 0;
	unsigned int i, b;

	for (i = 0; i < len && i < 64; i++) {
		b = bit + i;
		v = v << 1 | ((p[b / 8] >> (7 - b % 8)) & 1);
	}
	return v;
}

void sm_sa_put(uint8_t *p, unsigned int bit, unsigned int len, uint64_t v)
{
	unsigned int i, b;

	for (i = 0; i < len && i < 64; i++) {
		b = bit + len - 1 - i;
		if ((v >> i) & 1)
			p[b / 8] |= 0x80 >> b % 8;
		else
			p[b / 8] &= ~(0x80 >> b % 8);
	}
}

int sm_sa_has(const struct sm_sa_ctx *c, unsigned int bit)
{
	return bit < 64 && (c->comp >> bit) & 1;
}

uint64_t sm_sa_tmpl(const struct sm_sa_ctx *c, unsigned int bit)
{
	const struct sm_sa_field *fl = &c->layout->field[bit];

	return sm_sa_get(c->tmpl, fl->bit, fl->len);
}

int sm_sa_match(const struct sm_sa_ctx *c, const uint8_t *rec)
{
	const struct sm_sa_field *fl;
	unsigned int i;

	for (i = 0; i < c->layout->nfields; i++) {
		fl = &c->layout->field[i];
		if (!sm_sa_has(c, i) || !fl->len)
			continue;
		if (fl->len > 64) {
			if (memcmp(rec + fl->bit / 8, c->tmpl + fl->bit / 8,
				   fl->len / 8))
				return 0;
		} else if (sm_sa_get(rec, fl->bit, fl->len) !=
			   sm_sa_get(c->tmpl, fl->bit, fl->len)) {
			return 0;
		}
	}
	return 1;
}

int sm_sa_add(struct sm_sa_ctx *c, const uint8_t *rec)
{
	unsigned int cap;
	uint8_t *out;

	if (c->n >= SM_SA_MAX_RECORDS)
		return SM_SA_ERR_NO_RESOURCES;
	if (c->n == c->cap) {
		cap = c->cap ? c->cap * 2 : 16;
		out = realloc(c->out, (size_t)cap * c->stride);
		if (!out)
			return SM_SA_ERR_NO_RESOURCES;
		c->out = out;
		c->cap = cap;
	}
	memset(c->out + (size_t)c->n * c->stride, 0, c->stride);
	memcpy(c->out + (size_t)c->n * c->stride, rec, c->layout->size);
	c->n++;
	return SM_SA_OK;
}

int sm_sa_offer(struct sm_sa_ctx *c, const uint8_t *rec)
{
	return sm_sa_match(c, rec) ? sm_sa_add(c, rec) : SM_SA_OK;
}

/* ---- records read from the subnet ---- */

/* The LID of port @p of node @n as an end port: a switch's is port 0's. */
static uint16_t sm_sa_end_lid(const struct sm_node *n, unsigned int p)
{
	return sm_node_is_switch(n) ? n->port[0].lid : n->port[p].lid;
}

static int sm_sa_cpi_query(struct sm_sa_ctx *c)
{
	uint8_t r[SM_CPI_LEN] = { 0 };

	r[0] = SM_SA_BASE_VERSION;
	r[1] = SM_SA_CLASS_VERSION;
	sm_sa_put16(r + 2, SM_CPI_CAP);
	sm_sa_put32(r + 4, SM_CPI_CAP2 << 5 | SM_CPI_RESP_TIME);
	sm_sa_put32(r + SM_CPI_REDIR_QP, 1);
	sm_sa_put32(r + SM_CPI_REDIR_QKEY, SM_SA_QP1_QKEY);
	sm_sa_put32(r + SM_CPI_TRAP_QKEY, SM_SA_QP1_QKEY);
	return sm_sa_add(c, r);
}

static const struct sm_sa_field sm_sa_nr_fields[] = {
	{ 0, 16 }, { 16, 16 },				/* LID, reserved */
	{ 32, 8 }, { 40, 8 }, { 48, 8 }, { 56, 8 },	/* versions, type, ports */
	{ 64, 64 }, { 128, 64 }, { 192, 64 },		/* GUIDs */
	{ 256, 16 }, { 272, 16 }, { 288, 32 },		/* P_Keys, device, rev */
	{ 320, 8 }, { 328, 24 },			/* LocalPortNum, vendor */
	{ 352, 8 * SM_NODE_DESC_LEN },			/* NodeDescription */
};

static const struct sm_sa_layout sm_sa_nr_layout = {
	SM_NR_LEN, sizeof(sm_sa_nr_fields) / sizeof(sm_sa_nr_fields[0]),
	sm_sa_nr_fields
};

/* A NodeRecord of node @n as seen through its end port @p. */
static int sm_sa_nr_one(struct sm_sa_ctx *c, const struct sm_node *n,
			unsigned int p)
{
	uint8_t r[SM_NR_LEN] = { 0 }, *ni = r + 4;

	sm_sa_put16(r, sm_sa_end_lid(n, p));
	memcpy(ni, n->node_info, SM_NODE_INFO_LEN);
	if (!ni[SM_NI_BASE_VER]) {
		ni[SM_NI_BASE_VER] = 1;
		ni[SM_NI_CLASS_VER] = 1;
	}
	ni[SM_NI_TYPE] = n->type;
	ni[SM_NI_PORTS] = n->num_ports;
	sm_sa_put64(ni + SM_NI_NODE_GUID, n->guid);
	sm_sa_put64(ni + SM_NI_PORT_GUID, n->port[p].guid);
	if (!sm_node_is_switch(n))
		ni[SM_NI_LOCAL_PORT] = p;
	memcpy(r + 4 + SM_NODE_INFO_LEN, n->node_desc, SM_NODE_DESC_LEN);
	return sm_sa_offer(c, r);
}

/* One per end port: a switch's port 0, a CA's ports with LIDs. */
static int sm_sa_nr_query(struct sm_sa_ctx *c)
{
	const struct sm_node *n;
	unsigned int p;
	int i, r = 0;

	for (i = 0; !r && i < c->f->num_nodes; i++) {
		n = &c->f->node[i];
		for (p = 0; !r && p <= n->num_ports; p++) {
			if (sm_node_is_switch(n) ? p == 0 : p && n->port[p].lid)
				r = sm_sa_nr_one(c, n, p);
		}
	}
	return r;
}

static const struct sm_sa_field sm_sa_pir_fields[] = {
	{ 0, 16 }, { 16, 8 }, { 24, 8 },		/* EndportLID, port, options */
	{ 32, 64 }, { 96, 64 }, { 160, 16 }, { 176, 16 },	/* M_Key .. SMLID */
	{ 192, 32 }, { 224, 16 }, { 240, 16 }, { 256, 8 },	/* CapMask .. port */
	{ 264, 8 }, { 272, 8 }, { 280, 8 },		/* LinkWidth* */
	{ 288, 4 }, { 292, 4 }, { 296, 4 }, { 300, 4 },	/* speed .. downdef */
	{ 304, 2 }, { 306, 3 }, { 309, 3 },		/* M_KeyProtect, -, LMC */
	{ 312, 4 }, { 316, 4 }, { 320, 4 }, { 324, 4 },	/* speeds, MTU, SMSL */
	{ 328, 4 }, { 332, 4 }, { 336, 8 }, { 344, 8 },	/* VLCap .. VLArbHigh */
	{ 352, 8 }, { 360, 4 }, { 364, 4 },		/* VLArbLow, ITReply, MTUCap */
	{ 368, 3 }, { 371, 5 }, { 376, 4 },		/* VLStall, HOQLife, OpVLs */
	{ 380, 1 }, { 381, 1 }, { 382, 1 }, { 383, 1 },	/* enforcement */
	{ 384, 16 }, { 400, 16 }, { 416, 16 }, { 432, 8 },	/* violations, GUIDCap */
	{ 440, 1 }, { 441, 2 }, { 443, 5 },		/* ClientRereg .. SubnetTO */
	{ 448, 3 }, { 451, 5 }, { 456, 4 }, { 460, 4 },	/* RespTime, errors */
	{ 464, 16 }, { 480, 8 }, { 488, 24 },		/* CreditHint, -, RTLatency */
	{ 512, 16 }, { 528, 4 }, { 532, 4 },		/* CapMask2, SpeedExt */
	{ 536, 3 }, { 539, 5 },				/* -, LinkSpeedExtEnabled */
};

static const struct sm_sa_layout sm_sa_pir_layout = {
	SM_PIR_LEN, sizeof(sm_sa_pir_fields) / sizeof(sm_sa_pir_fields[0]),
	sm_sa_pir_fields
};

int sm_sa_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/* PortInfoRecord of port @p of node @n; a port never read gets what the
 * model knows of it. */
static int sm_sa_pir_one(struct sm_sa_ctx *c, const struct sm_node *n,
			 unsigned int p)
{
	const struct sm_port *port = &n->port[p];
	uint8_t r[SM_PIR_LEN] = { 0 }, *pi = r + 4;

	sm_sa_put16(r, sm_sa_end_lid(n, p));
	r[2] = p;
	memcpy(pi, port->port_info, SM_PORT_INFO_LEN);
	if (sm_sa_zero(pi, SM_PORT_INFO_LEN)) {
		sm_sa_put64(pi + SM_PI_GID_PREFIX, c->sa->prefix);
		sm_sa_put16(pi + SM_PI_LID, sm_sa_end_lid(n, p));
		pi[SM_PI_STATE] = port->state & 0xf;
		pi[SM_PI_MTU_CAP] = port->mtu_cap & 0xf;
	}
	return sm_sa_offer(c, r);
}

/* Every port of a switch (0 and those the sweep read), a CA's with LIDs. */
static int sm_sa_pir_query(struct sm_sa_ctx *c)
{
	const struct sm_node *n;
	unsigned int p;
	int i, r = 0, sw;

	for (i = 0; !r && i < c->f->num_nodes; i++) {
		n = &c->f->node[i];
		sw = sm_node_is_switch(n);
		for (p = 0; !r && p <= n->num_ports; p++) {
			if (sw ? p == 0 || n->port[p].state ||
				 !sm_sa_zero(n->port[p].port_info,
					     SM_PORT_INFO_LEN) :
			    p && n->port[p].lid)
				r = sm_sa_pir_one(c, n, p);
		}
	}
	return r;
}

/* SwitchInfoRecord: LID, reserved; SwitchInfo's fields match no bit. */
static const struct sm_sa_field sm_sa_swir_fields[] = {
	{ 0, 16 }, { 16, 16 },
};

static const struct sm_sa_layout sm_sa_swir_layout = {
	SM_SWIR_LEN, 2, sm_sa_swir_fields
};

static int sm_sa_swir_query(struct sm_sa_ctx *c)
{
	const struct sm_node *n;
	uint8_t r[SM_SWIR_LEN];
	int i, ret = 0;

	for (i = 0; !ret && i < c->f->num_nodes; i++) {
		n = &c->f->node[i];
		if (!sm_node_is_switch(n) || !n->port[0].lid)
			continue;
		memset(r, 0, sizeof(r));
		sm_sa_put16(r, n->port[0].lid);
		memcpy(r + 4, n->switch_info, SM_SWITCH_INFO_LEN);
		ret = sm_sa_offer(c, r);
	}
	return ret;
}

/* LinkRecord: FromLID, FromPort, ToPort, ToLID (IBA 15.2.5.13). */
static const struct sm_sa_field sm_sa_lr_fields[] = {
	{ 0, 16 }, { 16, 8 }, { 24, 8 }, { 32, 16 },
};

static const struct sm_sa_layout sm_sa_lr_layout = {
	SM_LR_LEN, 4, sm_sa_lr_fields
};

/* One per direction of each link: each linked port names its own. */
static int sm_sa_lr_query(struct sm_sa_ctx *c)
{
	const struct sm_node *n, *peer;
	uint8_t r[SM_LR_LEN];
	unsigned int p;
	int i, ret = 0;

	for (i = 0; !ret && i < c->f->num_nodes; i++) {
		n = &c->f->node[i];
		for (p = 1; !ret && p <= n->num_ports; p++) {
			if (n->port[p].peer < 0 ||
			    n->port[p].peer >= c->f->num_nodes)
				continue;
			peer = &c->f->node[n->port[p].peer];
			sm_sa_put16(r, sm_sa_end_lid(n, p));
			r[2] = p;
			r[3] = n->port[p].peer_port;
			sm_sa_put16(r + 4,
				    sm_sa_end_lid(peer, n->port[p].peer_port));
			ret = sm_sa_offer(c, r);
		}
	}
	return ret;
}

/* ---- dispatch ---- */

static const struct sm_sa_layout sm_sa_cpi_layout = { SM_CPI_LEN, 0, NULL };

/**
 * struct sm_sa_op - what the SA does with one attribute
 * @attr: the attribute ID
 * @layout: its record type
 * @query: Get and GetTable (NULL: neither)
 * @set: Set (NULL: not supported)
 * @del: Delete (NULL: not supported)
 * @no_table: Get only, no GetTable
 */
struct sm_sa_op {
	uint16_t attr;
	const struct sm_sa_layout *layout;
	int (*query)(struct sm_sa_ctx *c);
	int (*set)(struct sm_sa_ctx *c);
	int (*del)(struct sm_sa_ctx *c);
	int no_table;
};

static const struct sm_sa_op sm_sa_ops[] = {
	{ SM_SA_ATTR_CLASS_PORT_INFO, &sm_sa_cpi_layout, sm_sa_cpi_query,
	  NULL, NULL, 1 },
	{ SM_SA_ATTR_INFORM_INFO, &sm_sa_inform_layout, NULL,
	  sm_sa_inform_set, NULL, 0 },
	{ SM_SA_ATTR_NODE_REC, &sm_sa_nr_layout, sm_sa_nr_query, NULL, NULL, 0 },
	{ SM_SA_ATTR_PORT_INFO_REC, &sm_sa_pir_layout, sm_sa_pir_query, NULL,
	  NULL, 0 },
	{ SM_SA_ATTR_SWITCH_INFO_REC, &sm_sa_swir_layout, sm_sa_swir_query,
	  NULL, NULL, 0 },
	{ SM_SA_ATTR_LINK_REC, &sm_sa_lr_layout, sm_sa_lr_query, NULL, NULL, 0 },
	{ SM_SA_ATTR_SERVICE_REC, &sm_sa_svc_layout, sm_sa_svc_query,
	  sm_sa_svc_set, sm_sa_svc_delete, 0 },
	{ SM_SA_ATTR_PATH_REC, &sm_sa_path_layout, sm_sa_path_query, NULL,
	  NULL, 0 },
	{ SM_SA_ATTR_MCMEMBER_REC, &sm_sa_mcm_layout, sm_sa_mcm_query,
	  sm_sa_mcm_join, sm_sa_mcm_leave, 0 },
	{ SM_SA_ATTR_INFORM_INFO_REC, &sm_sa_iir_layout, sm_sa_iir_query, NULL,
	  NULL, 0 },
};

static const struct sm_sa_op *sm_sa_op_of(uint16_t attr)
{
	size_t i;

	for (i = 0; i < sizeof(sm_sa_ops) / sizeof(sm_sa_ops[0]); i++)
		if (sm_sa_ops[i].attr == attr)
			return &sm_sa_ops[i];
	return NULL;
}

/* The handler of @method on @op, or NULL. */
static int (*sm_sa_handler(const struct sm_sa_op *op, uint8_t method))(
	struct sm_sa_ctx *c)
{
	switch (method) {
	case SM_SA_GET:
		return op->query;
	case SM_SA_GET_TABLE:
		return op->no_table ? NULL : op->query;
	case SM_SA_SET:
		return op->set;
	case SM_SA_DELETE:
		return op->del;
	}
	return NULL;
}

static int sm_sa_known_method(uint8_t method)
{
	return method == SM_SA_GET || method == SM_SA_SET ||
	       method == SM_SA_GET_TABLE || method == SM_SA_DELETE;
}

/* IBA 15.2.2: the response method of a request method. */
static uint8_t sm_sa_resp_method(uint8_t method)
{
	return method == SM_SA_SET ? SM_SA_GET_RESP : method | SM_SA_RESP;
}

/* A Get must find one record exactly (IBA 15.4.4). */
static int sm_sa_verdict(const struct sm_sa_ctx *c, int status)
{
	if (status || c->method != SM_SA_GET)
		return status;
	if (!c->n)
		return SM_SA_ERR_NO_RECORDS;
	return c->n > 1 ? SM_SA_ERR_TOO_MANY_RECORDS : SM_SA_OK;
}

/* The answer to @mad: header as the request's, @status, records. */
static int sm_sa_reply(const struct sm_sa_ctx *c, const uint8_t *mad,
		       int status, uint8_t **resp, size_t *resp_len)
{
	int table = c->method == SM_SA_GET_TABLE && !status;
	size_t data = (size_t)c->n * c->stride;
	size_t len = table ? SM_SA_HDR_LEN + data : SM_SA_MAD_LEN;
	uint8_t *r = calloc(1, len);

	if (!r)
		return -ENOMEM;
	memcpy(r, mad, SM_MAD_COMMON_LEN);
	memcpy(r + SM_SA_COMP_MASK, mad + SM_SA_COMP_MASK, 8);
	r[SM_MAD_CLASS_VER] = SM_SA_CLASS_VERSION;
	r[SM_MAD_METHOD] = sm_sa_resp_method(c->method);
	sm_sa_put16(r + SM_MAD_STATUS, status);
	if (!status)
		sm_sa_put16(r + SM_SA_ATTR_OFFSET, c->stride / 8);
	if (table) {
		r[SM_RMPP_VERSION] = SM_RMPP_V1;
		r[SM_RMPP_TYPE] = SM_RMPP_DATA;
		r[SM_RMPP_FLAGS] = SM_RMPP_ONE_SEGMENT;
		sm_sa_put32(r + SM_RMPP_SEG, 1);
		sm_sa_put32(r + SM_RMPP_PAYLOAD, SM_SA_CLASS_HDR_LEN + data);
		if (data)
			memcpy(r + SM_SA_HDR_LEN, c->out, data);
	} else if (!status && c->n) {
		memcpy(r + SM_SA_HDR_LEN, c->out, c->layout->size);
	}
	*resp = r;
	*resp_len = len;
	return 0;
}

/* The generic checks of a request (IBA 13.4.7). Return: its status. */
static int sm_sa_check(const uint8_t *mad, size_t len,
		       const struct sm_sa_op **op)
{
	if (mad[SM_MAD_BASE_VER] != SM_SA_BASE_VERSION ||
	    mad[SM_MAD_CLASS_VER] != SM_SA_CLASS_VERSION)
		return SM_SA_BAD_VERSION;
	if (!sm_sa_known_method(mad[SM_MAD_METHOD]))
		return SM_SA_BAD_METHOD;
	*op = sm_sa_op_of(sm_sa_be16(mad + SM_MAD_ATTR));
	if (!*op || !sm_sa_handler(*op, mad[SM_MAD_METHOD]))
		return SM_SA_BAD_METHOD_ATTR;
	if (len < SM_SA_MAD_LEN)
		return SM_SA_ERR_REQ_INVALID;	/* a truncated record */
	return SM_SA_OK;
}

static const struct sm_sa_addr sm_sa_nobody;

int sm_sa_handle(struct sm_sa *sa, const struct sm_fabric *f, uint16_t sm_lid,
		 const struct sm_sa_addr *from, const uint8_t *req, size_t len,
		 uint8_t **resp, size_t *resp_len)
{
	uint8_t mad[SM_SA_MAD_LEN] = { 0 };
	const struct sm_sa_op *op = NULL;
	struct sm_sa_ctx c;
	int status, r;

	*resp = NULL;
	*resp_len = 0;
	if (!req || len < SM_MAD_COMMON_LEN || req[SM_MAD_CLASS] != SM_SA_CLASS ||
	    req[SM_MAD_METHOD] & SM_SA_RESP ||
	    req[SM_MAD_METHOD] == SM_SA_TRAP_REPRESS)
		return 0;
	memcpy(mad, req, len < SM_SA_MAD_LEN ? len : SM_SA_MAD_LEN);
	memset(&c, 0, sizeof(c));
	c.sa = sa;
	c.f = f;
	c.sm_lid = sm_lid;
	c.from = from ? from : &sm_sa_nobody;
	c.method = mad[SM_MAD_METHOD];
	c.comp = sm_sa_be64(mad + SM_SA_COMP_MASK);
	c.tmpl = mad + SM_SA_HDR_LEN;
	c.layout = &sm_sa_cpi_layout;
	sa->requests++;
	status = sm_sa_check(mad, len, &op);
	if (!status) {
		c.layout = op->layout;
		c.stride = (op->layout->size + 7u) & ~7u;
		status = sm_sa_verdict(&c, sm_sa_handler(op, c.method)(&c));
	}
	if (status)
		sa->errors++;
	r = sm_sa_reply(&c, mad, status, resp, resp_len);
	free(c.out);
	return r;
}

int sm_sa_pkey_member(const struct sm_sa *sa, const struct sm_fabric *f,
		      int node, unsigned int port, uint16_t pkey)
{
	const struct sm_part *p = sm_parts_find(sa->parts, pkey);

	return p ? sm_part_membership(p, f->node[node].port[port].guid,
				      f->node[node].type, sa->sm_guid) : 0;
}

/* ---- the SA's life ---- */

int sm_sa_init(struct sm_sa *sa, uint64_t subnet_prefix)
{
	memset(sa, 0, sizeof(*sa));
	sa->prefix = subnet_prefix;
	sa->group = calloc(SM_SA_MAX_GROUPS, sizeof(*sa->group));
	sa->svc = calloc(SM_SA_MAX_SERVICES, sizeof(*sa->svc));
	sa->sub = calloc(SM_SA_MAX_SUBS, sizeof(*sa->sub));
	sm_parts_init(&sa->own_parts);
	sa->parts = &sa->own_parts;
	if (sa->group && sa->svc && sa->sub && sa->own_parts.part[0].n)
		return 0;
	sm_sa_free(sa);
	return -ENOMEM;
}

void sm_sa_free(struct sm_sa *sa)
{
	sm_sa_mcg_free(sa);
	free(sa->group);
	free(sa->svc);
	free(sa->sub);
	free(sa->port);
	free(sa->rereg);
	sm_parts_free(&sa->own_parts);
	memset(sa, 0, sizeof(*sa));
}
