/* The NVTX v3 tool interface, as the agent needs it: export tables,
 * callback modules and ids, event attributes.  Values and layouts are
 * NVIDIA's ABI (nvtx3/nvToolsExt.h, nvtxDetail/nvtxTypes.h, nvtxImpl.h);
 * declared here under our own names so the agent builds without CUDA, and
 * checked against the real headers where they are installed
 * (tests/agent/test-nvtx-abi.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* NvtxExportTableID */
#define NV_ETID_CALLBACKS 1
#define NV_ETID_VERSIONINFO 3

/* NvtxCallbackModule */
#define NV_CB_MODULE_CORE 1
#define NV_CB_MODULE_CORE2 5

/* NvtxCallbackIdCore */
enum {
	NV_CBID_CORE_MarkEx = 1,
	NV_CBID_CORE_MarkA = 2,
	NV_CBID_CORE_MarkW = 3,
	NV_CBID_CORE_RangeStartEx = 4,
	NV_CBID_CORE_RangeStartA = 5,
	NV_CBID_CORE_RangeStartW = 6,
	NV_CBID_CORE_RangeEnd = 7,
	NV_CBID_CORE_RangePushEx = 8,
	NV_CBID_CORE_RangePushA = 9,
	NV_CBID_CORE_RangePushW = 10,
	NV_CBID_CORE_RangePop = 11,
	NV_CBID_CORE_NameCategoryA = 12,
	NV_CBID_CORE_NameCategoryW = 13,
	NV_CBID_CORE_NameOsThreadA = 14,
	NV_CBID_CORE_NameOsThreadW = 15,
};

/* NvtxCallbackIdCore2 */
enum {
	NV_CBID_CORE2_DomainMarkEx = 1,
	NV_CBID_CORE2_DomainRangeStartEx = 2,
	NV_CBID_CORE2_DomainRangeEnd = 3,
	NV_CBID_CORE2_DomainRangePushEx = 4,
	NV_CBID_CORE2_DomainRangePop = 5,
	NV_CBID_CORE2_DomainResourceCreate = 6,
	NV_CBID_CORE2_DomainResourceDestroy = 7,
	NV_CBID_CORE2_DomainNameCategoryA = 8,
	NV_CBID_CORE2_DomainNameCategoryW = 9,
	NV_CBID_CORE2_DomainRegisterStringA = 10,
	NV_CBID_CORE2_DomainRegisterStringW = 11,
	NV_CBID_CORE2_DomainCreateA = 12,
	NV_CBID_CORE2_DomainCreateW = 13,
	NV_CBID_CORE2_DomainDestroy = 14,
	NV_CBID_CORE2_Initialize = 15,
};

/* nvtxMessageType_t, nvtxColorType_t */
#define NV_MESSAGE_UNKNOWN 0
#define NV_MESSAGE_TYPE_ASCII 1
#define NV_MESSAGE_TYPE_UNICODE 2
#define NV_MESSAGE_TYPE_REGISTERED 3
#define NV_COLOR_ARGB 1

/* push/pop when no tool tracks them */
#define NV_NO_PUSH_POP_TRACKING (-2)

/* nvtxEventAttributes_v2 */
struct nv_event_attributes {
	uint16_t version;
	uint16_t size;
	uint32_t category;
	int32_t colorType;
	uint32_t color;
	int32_t payloadType;
	int32_t reserved0;
	union {
		uint64_t ullValue;
		int64_t llValue;
		double dValue;
		uint32_t uiValue;
		int32_t iValue;
		float fValue;
	} payload;
	int32_t messageType;
	union {
		const char *ascii;
		const wchar_t *unicode;
		const void *registered;
	} message;
};

typedef void (*nv_function_pointer)(void);
typedef nv_function_pointer **nv_function_table;

/* NvtxExportTableCallbacks; GetModuleFunctionTable returns non-zero on
 * success */
struct nv_etbl_callbacks {
	size_t struct_size;
	int (*GetModuleFunctionTable)(int module, nv_function_table *out_table, unsigned int *out_size);
};

/* NvtxExportTableVersionInfo */
struct nv_etbl_version_info {
	size_t struct_size;
	uint32_t version;
	uint32_t reserved0;
	void (*SetInjectionNvtxVersion)(uint32_t version);
};

typedef const void *(*nv_get_export_table)(uint32_t export_table_id);

#define NV_TOOL_VERSION 3

/* The entry point a tool exports; non-zero on success. */
int InitializeInjectionNvtx2(nv_get_export_table get);
