/*
 * tlm/coherence/apu/apu_msg.c - the APU message table and the extension free list.
 */
#include "tlm/coherence/apu/apu_msg.h"

#include "tlm/noc/noc.h"

#include <stdlib.h>
#include <string.h>

const struct apu_msg_info apu_msg_info[APU_MSG_TYPES] = {
    [APU_RDBLK] = {"RdBlk", APU_VNET_REQ, false},
    [APU_RDBLKS] = {"RdBlkS", APU_VNET_REQ, false},
    [APU_RDBLKM] = {"RdBlkM", APU_VNET_REQ, false},
    [APU_VICDIRTY] = {"VicDirty", APU_VNET_REQ, false},
    [APU_VICCLEAN] = {"VicClean", APU_VNET_REQ, false},
    [APU_WT] = {"WT", APU_VNET_REQ, true},
    [APU_ATOMIC] = {"Atomic", APU_VNET_REQ, true},
    [APU_FLUSH] = {"Flush", APU_VNET_REQ, true},
    [APU_DMARD] = {"DMARd", APU_VNET_REQ, false},
    [APU_DMAWR] = {"DMAWr", APU_VNET_REQ, true},
    [APU_TCPRD] = {"TcpRd", APU_VNET_REQ, false},
    [APU_TCPWT] = {"TcpWT", APU_VNET_REQ, true},
    [APU_TCPATOMIC] = {"TcpAtomic", APU_VNET_REQ, true},
    [APU_TCPFLUSH] = {"TcpFlush", APU_VNET_REQ, true},
    [APU_PRBDOWNGRADE] = {"PrbDowngrade", APU_VNET_PRB, false},
    [APU_PRBINV] = {"PrbInv", APU_VNET_PRB, false},
    /* PrbAck carries data only when dirty: apu_msg_new sizes it without; the sender sets
     * req_bytes to APU_LINE when it attaches the owner's data */
    [APU_PRBACK] = {"PrbAck", APU_VNET_RSP, false},
    [APU_SYSRESP] = {"SysResp", APU_VNET_RSP, true},
    [APU_WBACK] = {"WBAck", APU_VNET_RSP, false},
    [APU_VICDATA] = {"VicData", APU_VNET_RSP, true},
    [APU_STALENOTIF] = {"StaleNotif", APU_VNET_RSP, false},
    [APU_TCCDATA] = {"TccData", APU_VNET_RSP, true},
    [APU_TCCWBACK] = {"TccWBAck", APU_VNET_RSP, false},
    [APU_DMADATA] = {"DMAData", APU_VNET_RSP, true},
    [APU_DMAACK] = {"DMAAck", APU_VNET_RSP, false},
    [APU_UNBLOCK] = {"Unblock", APU_VNET_UNB, false},
};

const char *const apu_msg_names[APU_MSG_TYPES] = {
    "RdBlk",	    "RdBlkS",	"RdBlkM",  "VicDirty", "VicClean", "WT",	"Atomic",
    "Flush",	    "DMARd",	"DMAWr",   "TcpRd",    "TcpWT",	   "TcpAtomic", "TcpFlush",
    "PrbDowngrade", "PrbInv",	"PrbAck",  "SysResp",  "WBAck",	   "VicData",	"StaleNotif",
    "TccData",	    "TccWBAck", "DMAData", "DMAAck",   "Unblock",
};

const unsigned char apu_msg_traffic[APU_MSG_TYPES] = {
    [APU_RDBLK] = NOC_TR_REQUEST,	 [APU_RDBLKS] = NOC_TR_REQUEST,
    [APU_RDBLKM] = NOC_TR_REQUEST,	 [APU_VICDIRTY] = NOC_TR_WRITEBACK,
    [APU_VICCLEAN] = NOC_TR_WRITEBACK,	 [APU_WT] = NOC_TR_DATA,
    [APU_ATOMIC] = NOC_TR_REQUEST,	 [APU_FLUSH] = NOC_TR_WRITEBACK,
    [APU_DMARD] = NOC_TR_REQUEST,	 [APU_DMAWR] = NOC_TR_DATA,
    [APU_TCPRD] = NOC_TR_REQUEST,	 [APU_TCPWT] = NOC_TR_DATA,
    [APU_TCPATOMIC] = NOC_TR_REQUEST,	 [APU_TCPFLUSH] = NOC_TR_WRITEBACK,
    [APU_PRBDOWNGRADE] = NOC_TR_PROBE,	 [APU_PRBINV] = NOC_TR_PROBE,
    [APU_PRBACK] = NOC_TR_PROBE,	 [APU_SYSRESP] = NOC_TR_DATA,
    [APU_WBACK] = NOC_TR_COHERENCE,	 [APU_VICDATA] = NOC_TR_WRITEBACK,
    [APU_STALENOTIF] = NOC_TR_COHERENCE, [APU_TCCDATA] = NOC_TR_DATA,
    [APU_TCCWBACK] = NOC_TR_COHERENCE,	 [APU_DMADATA] = NOC_TR_DATA,
    [APU_DMAACK] = NOC_TR_COHERENCE,	 [APU_UNBLOCK] = NOC_TR_COHERENCE,
};

const char *const apu_vnet_names[APU_VNETS] = {"REQ", "PRB", "RSP", "UNB"};

/* Extensions are allocated in chunks and never freed one by one: the free list is the pool. */
#define EXT_CHUNK 256

struct ext_chunk {
	struct ext_chunk *next;
	struct apu_ext e[EXT_CHUNK];
};

struct apu_msgs {
	struct tlm_pool *pool;
	int ext_id;
	struct apu_ext *free;
	struct ext_chunk *chunks;
	size_t capacity;
};

static void ext_free(void *p)
{
	struct apu_ext *e = p;
	struct apu_msgs *a = e->home;

	e->next_free = a->free;
	a->free = e;
}

int apu_msgs_create(struct tlm_pool *pool, struct apu_msgs **out)
{
	struct apu_msgs *a = calloc(1, sizeof(*a));
	int id;

	if (!a)
		return -CS_ENOMEM;
	id = tlm_ext_register(pool, "apu", ext_free);
	if (id < 0) {
		free(a);
		return id;
	}
	a->pool = pool;
	a->ext_id = id;
	*out = a;
	return 0;
}

void apu_msgs_destroy(struct apu_msgs *a)
{
	if (!a)
		return;
	while (a->chunks) {
		struct ext_chunk *c = a->chunks;

		a->chunks = c->next;
		free(c);
	}
	free(a);
}

struct tlm_pool *apu_msgs_pool(const struct apu_msgs *a)
{
	return a->pool;
}

int apu_msgs_ext_id(const struct apu_msgs *a)
{
	return a->ext_id;
}

size_t apu_msgs_ext_capacity(const struct apu_msgs *a)
{
	return a->capacity;
}

static struct apu_ext *ext_alloc(struct apu_msgs *a)
{
	struct apu_ext *e;

	if (!a->free) {
		struct ext_chunk *c = malloc(sizeof(*c));

		if (!c)
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		for (unsigned i = 0; i < EXT_CHUNK; i++) {
			c->e[i].next_free = a->free;
			a->free = &c->e[i];
		}
		a->capacity += EXT_CHUNK;
	}
	e = a->free;
	a->free = e->next_free;
	memset(e, 0, sizeof(*e));
	e->home = a;
	return e;
}

struct mem_msg *apu_msg_new(struct apu_msgs *a, enum apu_msg_type t, uint64_t addr, unsigned src,
			    unsigned dst, unsigned requester)
{
	struct tlm_payload *p = tlm_payload_alloc(a->pool);
	struct apu_ext *e;
	struct mem_msg *m;

	if (!p)
		return NULL;
	e = ext_alloc(a);
	if (!e) {
		tlm_payload_release(p);
		return NULL;
	}
	tlm_ext_set(p, a->ext_id, e);
	m = mem_msg_of(p);
	p->addr = apu_line_of(addr);
	p->len = APU_LINE;
	p->cmd = apu_msg_info[t].data ? TLM_WRITE_COMMAND : TLM_READ_COMMAND;
	m->type = (uint8_t)t;
	m->vnet = apu_msg_info[t].vnet;
	m->req_bytes = apu_msg_info[t].data ? APU_LINE : 0;
	m->src = (uint16_t)src;
	m->dst = (uint16_t)dst;
	m->requester = (uint16_t)requester;
	return m;
}
