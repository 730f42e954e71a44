// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SA's agent: pib-sm's end of QP1 for the Subnet Administration class
 * (IBA 15). It receives what clients send the SA (path and multicast
 * member records from the kernel's ib_sa for rdma_cm and IPoIB, saquery's
 * tables) through libibumad, has sm_sa.c answer, and sends the answer
 * back; a GetTableResp goes as one buffer, which the kernel's RMPP code
 * cuts into segments (the agent is registered for RMPP). Reports to
 * InformInfo subscribers leave here too.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <infiniband/umad.h>

#include "pib_sm.h"

/* IBA 13.4.3: the SA class and the version pib-sm speaks. */
#define SM_SA_CLASS		0x03
#define SM_SA_CLASS_VERSION	2
/* IBA 13.6.2: RMPP version 1. */
#define SM_RMPP_VERSION		1
/* IBA 10.2.4.6: the Q_Key of QP1. */
#define SM_QP1_QKEY		0x80010000u
/* The largest request taken (an RMPP request reassembled by the kernel). */
#define SM_AGENT_MAX_REQ	(64 * 1024)
/* Requests answered in one sm_agent_poll() before the loop looks up. */
#define SM_AGENT_BATCH		64
/* An RMPP response waits this long for each window's ACK, this often. */
#define SM_AGENT_RMPP_RETRIES	3

/* The request methods the SA takes (IBA 15.2.5). */
static const uint8_t sm_sa_methods[] = {
	0x01,	/* Get */
	0x02,	/* Set */
	0x12,	/* GetTable */
	0x14,	/* GetMulti */
	0x15,	/* Delete */
};

/**
 * sm_agent_open() - register pib-sm as the SA on its port
 * @c: the SM; its dev and port name the port
 *
 * Return: 0, or -1 (said why).
 */
int sm_agent_open(struct sm_ctx *c)
{
	long mask[16 / sizeof(long)] = { 0 };
	const int bits = 8 * sizeof(long);
	unsigned int i;

	for (i = 0; i < sizeof(sm_sa_methods); i++)
		mask[sm_sa_methods[i] / bits] |= 1L << (sm_sa_methods[i] % bits);
	c->sa_port = umad_open_port((char *)c->dev, c->port);
	if (c->sa_port < 0) {
		sm_log(c, SM_LOG_ERR, "SA: cannot open the port: %s\n",
		       strerror(-c->sa_port));
		return -1;
	}
	c->sa_agent = umad_register(c->sa_port, SM_SA_CLASS, SM_SA_CLASS_VERSION,
				    SM_RMPP_VERSION, mask);
	if (c->sa_agent < 0) {
		sm_log(c, SM_LOG_ERR, "SA: cannot register its class (is another SM running on this port?): %s\n",
		       strerror(-c->sa_agent));
		umad_close_port(c->sa_port);
		c->sa_port = -1;
		return -1;
	}
	c->sa_buf_len = umad_size() + 256;
	c->sa_buf = malloc(c->sa_buf_len);
	if (!c->sa_buf) {
		sm_agent_close(c);
		return -1;
	}
	return 0;
}

/**
 * sm_agent_close() - unregister the SA and close its port
 * @c: the SM
 */
void sm_agent_close(struct sm_ctx *c)
{
	if (c->sa_port >= 0) {
		if (c->sa_agent >= 0)
			umad_unregister(c->sa_port, c->sa_agent);
		umad_close_port(c->sa_port);
	}
	c->sa_port = c->sa_agent = -1;
	free(c->sa_buf);
	c->sa_buf = NULL;
}

/* Is @mad (@len bytes) a GetTableResp to go by RMPP? */
static int sm_agent_is_rmpp(const uint8_t *mad, size_t len)
{
	return len > 24 && (mad[24 + 3] & 0x01);	/* RMPP flags: Active */
}

/**
 * sm_agent_send() - send a MAD of the SA class
 * @c: the SM
 * @mad: the MAD (header and all; longer than 256 bytes only by RMPP)
 * @len: its length
 * @to: the address it goes to (LID, QPN, SL, GRH); its Q_Key is QP1's
 * @pkey_index: the P_Key it goes with
 * @timeout_ms: how long to wait for a response (0: none is due)
 * @retries: how many times to resend meanwhile
 *
 * Return: 0, or a negative errno.
 */
int sm_agent_send(struct sm_ctx *c, const uint8_t *mad, size_t len,
		  const ib_mad_addr_t *to, int pkey_index, int timeout_ms,
		  int retries)
{
	size_t size = umad_size() + len;
	uint8_t *buf;
	int r;

	buf = calloc(1, size);
	if (!buf)
		return -ENOMEM;
	memcpy(umad_get_mad_addr(buf), to, sizeof(*to));
	umad_get_mad_addr(buf)->qkey = htonl(SM_QP1_QKEY);
	umad_set_pkey(buf, pkey_index);
	memcpy(umad_get_mad(buf), mad, len);
	r = umad_send(c->sa_port, c->sa_agent, buf, size - umad_size(),
		      timeout_ms, retries);
	free(buf);
	if (r < 0)
		sm_log(c, SM_LOG_ERR, "SA: send to LID %u: %s\n",
		       ntohs(to->lid), strerror(-r));
	return r < 0 ? r : 0;
}

/* Answer the request in c->sa_buf (@len bytes of MAD). */
static void sm_agent_answer(struct sm_ctx *c, int len)
{
	const ib_mad_addr_t *from = umad_get_mad_addr(c->sa_buf);
	const uint8_t *req = umad_get_mad(c->sa_buf);
	struct sm_sa_addr who = {
		.lid = ntohs(from->lid),
		.qpn = ntohl(from->qpn),
	};
	uint8_t *resp = NULL;
	size_t resp_len = 0;
	int rmpp;

	c->sa_requests++;
	if (sm_sa_handle(&c->sa, &c->fab, c->sm_lid, &who, req, (size_t)len,
			 &resp, &resp_len) || !resp)
		return;
	rmpp = sm_agent_is_rmpp(resp, resp_len);
	sm_log(c, SM_LOG_DEBUG,
	       "SA: method 0x%02x attribute 0x%04x from LID %u: status 0x%04x, %zu bytes\n",
	       req[3], (unsigned int)req[16] << 8 | req[17], ntohs(from->lid),
	       (unsigned int)resp[4] << 8 | resp[5], resp_len);
	sm_agent_send(c, resp, resp_len, from, umad_get_pkey(c->sa_buf),
		      rmpp ? (int)c->timeout_ms : 0,
		      rmpp ? SM_AGENT_RMPP_RETRIES : 0);
	free(resp);
}

/* Receive one MAD into c->sa_buf. Return: its length, 0, or -errno. */
static int sm_agent_recv(struct sm_ctx *c)
{
	int len = (int)(c->sa_buf_len - umad_size()), r;
	uint8_t *bigger;

	r = umad_recv(c->sa_port, c->sa_buf, &len, 0);
	if (r == -ENOSPC && len > 0 && len <= SM_AGENT_MAX_REQ) {
		bigger = realloc(c->sa_buf, umad_size() + (size_t)len);
		if (!bigger)
			return -ENOMEM;
		c->sa_buf = bigger;
		c->sa_buf_len = umad_size() + (size_t)len;
		r = umad_recv(c->sa_port, c->sa_buf, &len, 0);
	}
	if (r < 0)
		return r;
	/* A send of ours that failed (e.g. a Report no one acknowledged). */
	if (umad_status(c->sa_buf)) {
		sm_log(c, SM_LOG_DEBUG, "SA: a send failed: %s\n",
		       strerror(umad_status(c->sa_buf)));
		return 0;
	}
	return len;
}

/**
 * sm_agent_poll() - answer what comes to the SA for at most @timeout_ms
 * @c: the SM
 * @timeout_ms: how long to wait for the first request
 *
 * Return: how many requests were answered, or a negative errno (-EINTR:
 * a signal came).
 */
int sm_agent_poll(struct sm_ctx *c, int timeout_ms)
{
	struct pollfd p = { .fd = umad_get_fd(c->sa_port), .events = POLLIN };
	int n, len;

	n = poll(&p, 1, timeout_ms);
	if (n < 0)
		return -errno;
	for (n = 0; n < SM_AGENT_BATCH; n++) {
		len = sm_agent_recv(c);
		if (len == -EWOULDBLOCK || len == -ETIMEDOUT || len == -EAGAIN)
			break;
		if (len < 0) {
			sm_log(c, SM_LOG_ERR, "SA: receive: %s\n", strerror(-len));
			return len;
		}
		if (len)
			sm_agent_answer(c, len);
	}
	return n;
}
