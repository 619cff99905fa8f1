/* The agent's own copy of the NVTX tool ABI (nvtx-abi.h) against NVIDIA's
 * headers: every id, value, size and offset the agent relies on.  Built
 * only where the NVTX v3 headers are installed; a mismatch fails the
 * build. */
#include <stddef.h>
#include <stdio.h>

#include "nvtx3/nvToolsExt.h"
#include "collectors/agent/nvtx-abi.h"

#define SAME(a, b) _Static_assert((long)(a) == (long)(b), #a " != " #b)
#define SAME_FIELD(ta, fa, tb, fb)                                           \
	SAME(offsetof(ta, fa), offsetof(tb, fb));                             \
	SAME(sizeof(((ta *)0)->fa), sizeof(((tb *)0)->fb))

SAME(NV_ETID_CALLBACKS, NVTX_ETID_CALLBACKS);
SAME(NV_ETID_VERSIONINFO, NVTX_ETID_VERSIONINFO);
SAME(NV_CB_MODULE_CORE, NVTX_CB_MODULE_CORE);
SAME(NV_CB_MODULE_CORE2, NVTX_CB_MODULE_CORE2);

SAME(NV_CBID_CORE_MarkEx, NVTX_CBID_CORE_MarkEx);
SAME(NV_CBID_CORE_MarkA, NVTX_CBID_CORE_MarkA);
SAME(NV_CBID_CORE_MarkW, NVTX_CBID_CORE_MarkW);
SAME(NV_CBID_CORE_RangeStartEx, NVTX_CBID_CORE_RangeStartEx);
SAME(NV_CBID_CORE_RangeStartA, NVTX_CBID_CORE_RangeStartA);
SAME(NV_CBID_CORE_RangeStartW, NVTX_CBID_CORE_RangeStartW);
SAME(NV_CBID_CORE_RangeEnd, NVTX_CBID_CORE_RangeEnd);
SAME(NV_CBID_CORE_RangePushEx, NVTX_CBID_CORE_RangePushEx);
SAME(NV_CBID_CORE_RangePushA, NVTX_CBID_CORE_RangePushA);
SAME(NV_CBID_CORE_RangePushW, NVTX_CBID_CORE_RangePushW);
SAME(NV_CBID_CORE_RangePop, NVTX_CBID_CORE_RangePop);
SAME(NV_CBID_CORE_NameCategoryA, NVTX_CBID_CORE_NameCategoryA);
SAME(NV_CBID_CORE_NameCategoryW, NVTX_CBID_CORE_NameCategoryW);
SAME(NV_CBID_CORE_NameOsThreadA, NVTX_CBID_CORE_NameOsThreadA);
SAME(NV_CBID_CORE_NameOsThreadW, NVTX_CBID_CORE_NameOsThreadW);

SAME(NV_CBID_CORE2_DomainMarkEx, NVTX_CBID_CORE2_DomainMarkEx);
SAME(NV_CBID_CORE2_DomainRangeStartEx, NVTX_CBID_CORE2_DomainRangeStartEx);
SAME(NV_CBID_CORE2_DomainRangeEnd, NVTX_CBID_CORE2_DomainRangeEnd);
SAME(NV_CBID_CORE2_DomainRangePushEx, NVTX_CBID_CORE2_DomainRangePushEx);
SAME(NV_CBID_CORE2_DomainRangePop, NVTX_CBID_CORE2_DomainRangePop);
SAME(NV_CBID_CORE2_DomainResourceCreate, NVTX_CBID_CORE2_DomainResourceCreate);
SAME(NV_CBID_CORE2_DomainResourceDestroy, NVTX_CBID_CORE2_DomainResourceDestroy);
SAME(NV_CBID_CORE2_DomainNameCategoryA, NVTX_CBID_CORE2_DomainNameCategoryA);
SAME(NV_CBID_CORE2_DomainNameCategoryW, NVTX_CBID_CORE2_DomainNameCategoryW);
SAME(NV_CBID_CORE2_DomainRegisterStringA, NVTX_CBID_CORE2_DomainRegisterStringA);
SAME(NV_CBID_CORE2_DomainRegisterStringW, NVTX_CBID_CORE2_DomainRegisterStringW);
SAME(NV_CBID_CORE2_DomainCreateA, NVTX_CBID_CORE2_DomainCreateA);
SAME(NV_CBID_CORE2_DomainCreateW, NVTX_CBID_CORE2_DomainCreateW);
SAME(NV_CBID_CORE2_DomainDestroy, NVTX_CBID_CORE2_DomainDestroy);
SAME(NV_CBID_CORE2_Initialize, NVTX_CBID_CORE2_Initialize);

SAME(NV_MESSAGE_UNKNOWN, NVTX_MESSAGE_UNKNOWN);
SAME(NV_MESSAGE_TYPE_ASCII, NVTX_MESSAGE_TYPE_ASCII);
SAME(NV_MESSAGE_TYPE_UNICODE, NVTX_MESSAGE_TYPE_UNICODE);
SAME(NV_MESSAGE_TYPE_REGISTERED, NVTX_MESSAGE_TYPE_REGISTERED);
SAME(NV_COLOR_ARGB, NVTX_COLOR_ARGB);
SAME(NV_NO_PUSH_POP_TRACKING, NVTX_NO_PUSH_POP_TRACKING);
SAME(NV_TOOL_VERSION, NVTX_VERSION);

SAME(sizeof(struct nv_event_attributes), sizeof(nvtxEventAttributes_t));
SAME(sizeof(struct nv_event_attributes), NVTX_EVENT_ATTRIB_STRUCT_SIZE);
SAME_FIELD(struct nv_event_attributes, version, nvtxEventAttributes_t, version);
SAME_FIELD(struct nv_event_attributes, size, nvtxEventAttributes_t, size);
SAME_FIELD(struct nv_event_attributes, category, nvtxEventAttributes_t, category);
SAME_FIELD(struct nv_event_attributes, colorType, nvtxEventAttributes_t, colorType);
SAME_FIELD(struct nv_event_attributes, color, nvtxEventAttributes_t, color);
SAME_FIELD(struct nv_event_attributes, payloadType, nvtxEventAttributes_t, payloadType);
SAME_FIELD(struct nv_event_attributes, payload, nvtxEventAttributes_t, payload);
SAME_FIELD(struct nv_event_attributes, messageType, nvtxEventAttributes_t, messageType);
SAME_FIELD(struct nv_event_attributes, message, nvtxEventAttributes_t, message);

SAME(sizeof(struct nv_etbl_callbacks), sizeof(NvtxExportTableCallbacks));
SAME_FIELD(struct nv_etbl_callbacks, struct_size, NvtxExportTableCallbacks, struct_size);
SAME_FIELD(struct nv_etbl_callbacks, GetModuleFunctionTable, NvtxExportTableCallbacks, GetModuleFunctionTable);
SAME(sizeof(struct nv_etbl_version_info), sizeof(NvtxExportTableVersionInfo));
SAME_FIELD(struct nv_etbl_version_info, struct_size, NvtxExportTableVersionInfo, struct_size);
SAME_FIELD(struct nv_etbl_version_info, version, NvtxExportTableVersionInfo, version);
SAME_FIELD(struct nv_etbl_version_info, SetInjectionNvtxVersion, NvtxExportTableVersionInfo,
	   SetInjectionNvtxVersion);

/* the entry point's type, as NVTX calls it */
static int (*const entry)(NvtxGetExportTableFunc_t) __attribute__((unused)) = (NvtxInitializeInjectionNvtxFunc_t)0;

int main(void)
{
	printf("ok\n");
	return 0;
}
